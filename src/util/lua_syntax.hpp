// Whether a Lua script parses and compiles, never running it: Lua 5.2's own front end
// (luaL_loadbufferx, text chunks only), as RIC-2 needs it (docs/compatibility.md, "RIC-2: the
// Lua parser", for why 5.2 and where its verdicts differ from upstream's gopher-lua).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kpw {

struct LuaLoadFigures {
  std::size_t arena_bytes = 0;  // handed out to Lua while loading (the cap counts these)
  std::size_t mallocs = 0;      // chunks taken for this load (the thread's block cache, or malloc)
};

// At most this many bytes are handed to Lua for one load (a 3 MiB realistic script needs about
// 16 MiB: docs/performance.md); past it the load fails with kLuaOutOfMemory.
inline constexpr std::size_t kLuaMemoryCap = 64 * 1024 * 1024;
inline constexpr std::string_view kLuaOutOfMemory =
    "the script needs more than 64 MiB to compile; split it";

// Loads `script` (parse and compile only) in a fresh lua_State over the calling thread's arena,
// then drops it. True when it loads and uses nothing of Lua 5.2 that upstream's gopher-lua lacks
// (the `\z` escape, hexadecimal floats); otherwise false with Lua's message in `error` (for
// example `<string>:1: unexpected symbol near '&'`), or ours for those two. Bounded: Lua's own
// limits cap the nesting (200 C levels) and kLuaMemoryCap the memory; the time is linear in the
// script. `figures`, when given, tells what the load cost (tests and benchmarks).
bool lua_script_loads(std::string_view script, std::string& error,
                      LuaLoadFigures* figures = nullptr);

// lua_script_loads, with the calling thread's memory of the scripts that loaded: a script byte
// for byte the same as one remembered loads again without being parsed (its keyed hash finds it,
// its bytes are compared whole), so the verdict is the same as lua_script_loads' and costs a hash
// and a compare. Only scripts that loaded are remembered (an error is parsed again, for its
// message), each up to kLuaRememberedScriptBytes, all up to kLuaRememberedBytes and
// kLuaRememberedScripts; a script past what is left empties the memory first. An UPDATE of an
// interpreter customization that leaves its scripts alone, the usual one, is judged in
// microseconds (docs/performance.md, "ResourceInterpreterCustomization").
inline constexpr std::size_t kLuaRememberedScriptBytes = 64 * 1024;
inline constexpr std::size_t kLuaRememberedBytes = 256 * 1024;
inline constexpr std::size_t kLuaRememberedScripts = 64;
bool lua_script_loads_remembered(std::string_view script, std::string& error);

// The calling thread's memory: what it found and what it parsed (tests), and emptying it
// (benchmarks of the first load).
struct LuaMemoryFigures {
  std::size_t found = 0;   // scripts answered from memory
  std::size_t parsed = 0;  // scripts parsed (not remembered, or not to be)
  std::size_t scripts = 0;  // scripts remembered now
  std::size_t bytes = 0;    // their bytes
};
LuaMemoryFigures lua_memory_figures();
void lua_forget_scripts();

}  // namespace kpw
