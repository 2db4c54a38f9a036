// libFuzzer: untrusted bytes as a luaScript for RIC-2's load (util/lua_syntax): it must answer
// loads or an error message, never crash, hang, leak or run anything; the same bytes twice give
// the same answer (the arena leaves nothing behind), and an error always has a message. The
// thread's memory of scripts that loaded (lua_script_loads_remembered) answers as a load does,
// the first time and when the script is found again.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "util/lua_syntax.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view script(reinterpret_cast<const char*>(data), size);
  std::string first;
  std::string second;
  const bool ok = kpw::lua_script_loads(script, first);
  if (ok != kpw::lua_script_loads(script, second) || first != second) std::abort();
  if (ok != first.empty()) std::abort();
  for (int i = 0; i < 2; ++i) {
    std::string remembered = "stale";
    if (kpw::lua_script_loads_remembered(script, remembered) != ok || remembered != first) {
      std::abort();
    }
  }
  return 0;
}
