// The Lua front end of RIC-2 (util/lua_syntax) and the validator over it: the dialect as
// upstream's gopher-lua reads it where Lua 5.2 agrees (docs/compatibility.md, "RIC-2: the Lua
// parser", the measured table), nothing executed, bounded memory and time, errors as values.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "support.hpp"
#include "util/lua_syntax.hpp"
#include "validators/resource_interpreter_customization.hpp"

using kpw::lua_script_loads;
using kpw::LuaLoadFigures;
using kpw::test::run;

namespace {

bool loads(std::string_view script) {
  std::string error;
  return lua_script_loads(script, error);
}

std::string load_error(std::string_view script) {
  std::string error;
  CHECK_FALSE(lua_script_loads(script, error));
  return error;
}

constexpr std::string_view kAggregate = R"(function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then
    return desiredObj
  end
  local replicas = 0
  for i = 1, #statusItems do
    local item = statusItems[i]
    if item.status == nil or item.status.replicas == nil then
      goto continue
    end
    replicas = replicas + item.status.replicas
    ::continue::
  end
  desiredObj.status = {replicas = replicas}
  return desiredObj
end
)";

std::string customization(std::string_view customizations) {
  return R"({"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterCustomization",)"
         R"("metadata":{"name":"c"},"spec":{"target":{"apiVersion":"apps/v1","kind":"Deployment"},)"
         R"("customizations":)" +
         std::string(customizations) + "}}";
}

}  // namespace

TEST_CASE("RIC-2 lua: the dialect is Lua 5.1 plus goto and labels") {
  CHECK(loads(kAggregate));
  CHECK(loads("while true do end"));  // nothing runs
  CHECK(loads(""));
  CHECK(loads("-- only a comment"));
  CHECK(loads("local a = ..."));  // the main chunk is a vararg function
  CHECK(loads("x = \"\\x41\""));
  CHECK(loads("local goto_ = 1 ::top:: goto top"));
  // Lua 5.3 and 5.4 syntax: rejected, as upstream rejects it.
  CHECK(load_error("x = 7 // 2") == "<string>:1: unexpected symbol near '/'");
  CHECK(load_error("x = 1 & 2") == "<string>:1: unexpected symbol near '&'");
  CHECK(load_error("x = 1 << 2") == "<string>:1: unexpected symbol near '<'");
  CHECK(load_error("local x <const> = 1") == "<string>:1: unexpected symbol near '<'");
  CHECK(load_error("local goto = 1") == "<string>:1: <name> expected near 'goto'");
}

TEST_CASE("RIC-2 lua: what Lua 5.2 reads and gopher-lua does not is refused") {
  // Upstream refuses these (and gopher-lua runs the scripts in Karmada's controllers).
  CHECK(load_error("x = \"a\\z\n  b\"") ==
        "<string>:1: escape '\\z' is not in upstream's dialect near '\"a\\z'");
  CHECK(load_error("x = 1\ny = 0x1p4") ==
        "<string>:2: a hexadecimal float is not in upstream's dialect near '0x1p4'");
  CHECK(load_error("x = 0X1.8") ==
        "<string>:1: a hexadecimal float is not in upstream's dialect near '0X1.8'");
  CHECK(load_error("--[==[\n]==] x = '\\\n' .. 0xA.8") ==
        "<string>:3: a hexadecimal float is not in upstream's dialect near '0xA.8'");
  // Not an escape, a comment, a long string, an integer, a decimal exponent, concatenation.
  CHECK(loads("x = \"\\\\z\""));
  CHECK(loads("-- \\z 0x1p4\nx = 1"));
  CHECK(loads("--[[ 0x1p4 ]] x = [==[ \\z 0x1.8 ]==]"));
  CHECK(loads("x = 0xFF + 0x10 .. 1 .. .5e-3 + 1E+2"));
  CHECK(loads("local a0x1p4 = 1 return a0x1p4"));
}

TEST_CASE("RIC-2 lua: compile errors, not only syntax errors") {
  CHECK(load_error("break") == "<string>:1: <break> at line 1 not inside a loop");
  CHECK(load_error("goto nowhere") ==
        "<string>:1: no visible label 'nowhere' for <goto> at line 1");
  CHECK(load_error("function f() return ... end") ==
        "<string>:1: cannot use '...' outside a vararg function near '...'");
  CHECK(load_error("::a:: ::a::") == "<string>:1: label 'a' already defined on line 1");
  std::string locals = "local v0";
  for (int i = 1; i < 201; ++i) locals += ",v" + std::to_string(i);
  CHECK(load_error(locals + " = 1") ==
        "<string>:1: too many local variables (limit is 200) in main function near '='");
  CHECK(load_error("x = \"abc") == "<string>:1: unfinished string near <eof>");
  CHECK(load_error("x = 1 @ 2") == "<string>:1: unexpected symbol near '@'");
  // A binary chunk is refused (text only): what it would run is never looked at.
  CHECK(load_error("\x1bLua") == "attempt to load a binary chunk (mode is 't')");
}

TEST_CASE("RIC-2 lua: deep nesting answers at once, with Lua's limit") {
  const std::string parens = "x = " + std::string(100000, '(') + "1" + std::string(100000, ')');
  CHECK(load_error(parens) ==
        "<string>:1: too many C levels (limit is 200) in main function near '('");
  std::string blocks;
  for (int i = 0; i < 100000; ++i) blocks += "do ";
  CHECK(load_error(blocks).find("too many C levels (limit is 200)") != std::string::npos);
}

TEST_CASE("RIC-2 lua: memory is capped and comes back", "[linear]") {
  // 3 MiB of realistic functions: loads, within the cap, linear.
  std::string big;
  for (int i = 0; big.size() < 3 * 1024 * 1024; ++i) {
    big += "function F" + std::to_string(i);
    big += kAggregate.substr(std::string_view("function AggregateStatus").size());
  }
  std::string error;
  LuaLoadFigures figures;
  const auto start = std::chrono::steady_clock::now();
  CHECK(lua_script_loads(big, error, &figures));
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(error.empty());
  CHECK(figures.arena_bytes < kpw::kLuaMemoryCap);
  CHECK(took < std::chrono::seconds(5));  // about 0.1 s; a generous bound for sanitizers
  // Half a million constants in one table: past the cap, a clear message, no crash.
  std::string constants = "t = {";
  for (int i = 0; i < 1000000; ++i) constants += std::to_string(i) + ".5,";
  constants += "}";
  CHECK(load_error(constants) == kpw::kLuaOutOfMemory);
  // A realistic script afterwards: the thread's first chunk alone, nothing taken from the system.
  CHECK(lua_script_loads(kAggregate, error, &figures));
  CHECK(figures.mallocs == 0);
  CHECK(figures.arena_bytes < 64 * 1024);
}

TEST_CASE("RIC-2 lua: a script that loaded is remembered byte for byte, errors never") {
  using kpw::lua_memory_figures;
  using kpw::lua_script_loads_remembered;
  kpw::lua_forget_scripts();
  std::string error = "stale";
  const auto before = lua_memory_figures();
  CHECK(lua_script_loads_remembered(kAggregate, error));
  CHECK(lua_script_loads_remembered(kAggregate, error));
  CHECK(error.empty());
  auto now = lua_memory_figures();
  CHECK(now.parsed == before.parsed + 1);
  CHECK(now.found == before.found + 1);
  CHECK(now.scripts == 1);
  CHECK(now.bytes == kAggregate.size());
  // One byte more, one byte changed: parsed, and judged as what they are.
  std::string changed(kAggregate);
  changed += " ";
  CHECK(lua_script_loads_remembered(changed, error));
  changed.back() = '&';
  CHECK_FALSE(lua_script_loads_remembered(changed, error));
  CHECK(error.find("near") != std::string::npos);
  // A broken script is parsed every time, for its message, and never remembered.
  std::string again;
  CHECK_FALSE(lua_script_loads_remembered(changed, again));
  CHECK(again == error);
  CHECK_FALSE(lua_script_loads_remembered("x = 0x1p4", error));
  CHECK_FALSE(lua_script_loads_remembered("x = 0x1p4", error));
  now = lua_memory_figures();
  CHECK(now.parsed == before.parsed + 6);
  CHECK(now.scripts == 2);
  // Bounded: a script past kLuaRememberedScriptBytes is not remembered; past the slots or the
  // bytes, the memory starts over, and the verdicts stay right.
  std::string big = "local t = {" + std::string(kpw::kLuaRememberedScriptBytes, ' ') + "}";
  CHECK(lua_script_loads_remembered(big, error));
  CHECK(lua_script_loads_remembered(big, error));
  CHECK(lua_memory_figures().scripts == 2);
  for (std::size_t i = 0; i < 3 * kpw::kLuaRememberedScripts; ++i) {
    const std::string script = "local x = " + std::to_string(i) + std::string(4000, ' ');
    CHECK(lua_script_loads_remembered(script, error));
    now = lua_memory_figures();
    CHECK(now.scripts <= kpw::kLuaRememberedScripts);
    CHECK(now.bytes <= kpw::kLuaRememberedBytes);
  }
  CHECK_FALSE(lua_script_loads_remembered(changed, error));
  CHECK(lua_script_loads_remembered(kAggregate, error));
  kpw::lua_forget_scripts();
  CHECK(lua_memory_figures().scripts == 0);
}

TEST_CASE("RIC-2 lua: each thread has its own arena") {
  bool other = false;
  std::thread t([&] { other = loads(kAggregate) && !loads("x = 1 & 2"); });
  t.join();
  CHECK(other);
  CHECK(loads(kAggregate));
}

TEST_CASE("RIC-2 the first broken script in upstream's order, at its field") {
  const auto v = run(&kpw::validate_resource_interpreter_customization,
                     customization(R"({"dependencyInterpretation":{"luaScript":"x = 1 & 2"},)"
                                   R"("healthInterpretation":{"luaScript":"break"},)"
                                   R"("retention":{"luaScript":"while true do end"},)"
                                   R"("replicaResource":{"luaScript":""}})"),
                     kpw::test::Call::cluster_scoped());
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].rule == kpw::rules::kRIC2);
  CHECK(v.errors[0].text() ==
        "spec.customizations.healthInterpretation.luaScript: Invalid value: "
        "InterpreterOperation(InterpretHealth) Lua script error: <string>:1: <break> at line 1 "
        "not inside a loop");
  REQUIRE(v.warnings.size() == 1);
  CHECK(v.warnings[0] == kpw::kRIC1NotChecked);
}

TEST_CASE("RIC-S1 the CRD's schema; RIC-2 still judges the scripts that are strings") {
  const auto v = run(&kpw::validate_resource_interpreter_customization,
                     customization(R"({"retention":{},"statusReflection":{"luaScript":1},)"
                                   R"("statusAggregation":{"luaScript":"return ,"}})"),
                     kpw::test::Call::cluster_scoped());
  REQUIRE(v.errors.size() == 3);
  // In document order, as the API server's schema walks it.
  CHECK(v.errors[0].text() == "spec.customizations.retention.luaScript: Required value");
  CHECK(v.errors[0].rule == kpw::rules::kRICS1);
  CHECK(v.errors[1].text() ==
        "spec.customizations.statusReflection.luaScript: Invalid value: 1: "
        "must be of type string");
  CHECK(v.errors[2].rule == kpw::rules::kRIC2);
  const auto none = run(&kpw::validate_resource_interpreter_customization,
                        R"({"kind":"ResourceInterpreterCustomization","metadata":{"name":"c"}})",
                        kpw::test::Call::cluster_scoped());
  CHECK(none.message == "spec: Required value");
  CHECK(none.warnings.size() == 1);  // the RIC-1 warning whatever the verdict
}
