// Bounded, in-place JSON parsing: depth, duplicate keys, UTF-8.
#include <catch2/catch.hpp>

#include <string>

#include "admission/json.hpp"

using kpw::JsonArena;

TEST_CASE("json: parses in place and reuses the arena") {
  JsonArena arena;
  for (int i = 0; i < 3; ++i) {
    std::string text = R"({"a":{"b":[1,2,"x"]},"n":-5})";
    auto r = arena.parse_in_place(text);
    REQUIRE(r.ok);
    CHECK(arena.document()["a"]["b"].Size() == 3);
    CHECK(arena.document()["n"].GetInt() == -5);
  }
}

TEST_CASE("json: nesting deeper than the limit is refused / not recursed") {
  JsonArena arena;
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  auto r = arena.parse_in_place(deep);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("deeper than") != std::string::npos);

  std::string ok(kpw::kMaxJsonDepth, '[');
  ok += std::string(kpw::kMaxJsonDepth, ']');
  CHECK(arena.parse_in_place(ok).ok);
  std::string one_more(kpw::kMaxJsonDepth + 1, '[');
  one_more += std::string(kpw::kMaxJsonDepth + 1, ']');
  CHECK_FALSE(arena.parse_in_place(one_more).ok);
}

TEST_CASE("json: duplicate keys are refused at any depth") {
  JsonArena arena;
  std::string top = R"({"a":1,"a":2})";
  auto r = arena.parse_in_place(top);
  CHECK_FALSE(r.ok);
  CHECK(r.error == "duplicate JSON key \"a\"");
  std::string nested = R"({"x":[{"k":{"spec":1,"spec":2}}]})";
  CHECK_FALSE(arena.parse_in_place(nested).ok);
  std::string distinct = R"({"x":[{"k":{"spec":1,"Spec":2}}]})";
  CHECK(arena.parse_in_place(distinct).ok);
}

TEST_CASE("json: malformed text / invalid UTF-8 and empty input are refused") {
  JsonArena arena;
  for (std::string bad : {std::string("{"), std::string(""), std::string("{\"a\":}"),
                          std::string("{\"a\":\"\xff\"}"), std::string("[1] [2]")}) {
    INFO(bad);
    auto r = arena.parse_in_place(bad);
    CHECK_FALSE(r.ok);
    CHECK(r.error.rfind("malformed JSON", 0) == 0);
  }
}

TEST_CASE("json: scalar rendering for messages") {
  JsonArena arena;
  std::string text = R"(["a\"b", 3, -4, 1.5, true, null, {"x":1}, [1], 18446744073709551615])";
  REQUIRE(arena.parse_in_place(text).ok);
  const auto& a = arena.document();
  std::string out;
  for (const auto& v : a.GetArray()) {
    kpw::append_json_scalar(out, v);
    out += ' ';
  }
  CHECK(out == "\"a\\\"b\" 3 -4 1.5 true null {...} [...] 18446744073709551615 ");
}

TEST_CASE("json: unpaired surrogate escapes are refused - the answer must stay UTF-8") {
  kpw::JsonArena arena;
  for (const char* text : {R"({"uid":"\udc00x"})", R"({"uid":"\udfff"})", R"({"\udc00":1})",
                           R"({"uid":"x\ud800"})"}) {
    std::string t = text;
    CHECK_FALSE(arena.parse_in_place(t).ok);
  }
  std::string pair = R"({"uid":"\ud83d\ude00"})";  // a proper pair: U+1F600
  REQUIRE(arena.parse_in_place(pair).ok);
  CHECK(std::string(arena.document()["uid"].GetString()) == "\xF0\x9F\x98\x80");
  std::string raw = "{\"uid\":\"\xED\x9F\xBF\"}";  // U+D7FF, the last code point before them
  CHECK(arena.parse_in_place(raw).ok);
}
