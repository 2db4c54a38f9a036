// Bounded, in-place JSON parsing: depth, UTF-8, and the reader's RFC 8259 grammar edge cases.
// Duplicate keys in objects of any size: test_json_keys.cpp.
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "json/json.hpp"
#include "json/json_reader.hpp"
#include "json/json_scan.hpp"
#include "json_access.hpp"

using kpw::JsonArena;
using kpw::test::array_at;
using kpw::test::int_at;
using kpw::test::string_at;
using kpw::test::value_at;

TEST_CASE("json: parses in place and reuses the arena") {
  JsonArena arena;
  for (int i = 0; i < 3; ++i) {
    std::string text = R"({"a":{"b":[1,2,"x"]},"n":-5})";
    auto r = arena.parse_in_place(text);
    REQUIRE(r.ok);
    CHECK(array_at(arena.document(), "/a/b").Size() == 3);
    CHECK(int_at(arena.document(), "/n") == -5);
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
  for (const char* text :
       {R"({"uid":"\udc00x"})", R"({"uid":"\udfff"})", R"({"\udc00":1})", R"({"uid":"x\ud800"})"}) {
    std::string t = text;
    CHECK_FALSE(arena.parse_in_place(t).ok);
  }
  std::string pair = R"({"uid":"\ud83d\ude00"})";  // a proper pair: U+1F600
  REQUIRE(arena.parse_in_place(pair).ok);
  CHECK(string_at(arena.document(), "/uid") == "\xF0\x9F\x98\x80");
  std::string raw = "{\"uid\":\"\xED\x9F\xBF\"}";  // U+D7FF, the last code point before them
  CHECK(arena.parse_in_place(raw).ok);
}

// ---- the reader (json_reader.cpp): RFC 8259 edge cases, checked on the document it builds ----

namespace {

// Parses `text` with a fresh arena; the arena and the text must outlive the checks.
struct Parsed {
  JsonArena arena;
  std::string text;
  kpw::JsonParseResult result;
  explicit Parsed(std::string t) : text(std::move(t)) { result = arena.parse_in_place(text); }
  const kpw::JsonValue& root() { return arena.document(); }
};

std::string decoded(const kpw::JsonValue& v) {
  return std::string(v.GetString(), v.GetStringLength());
}

}  // namespace

TEST_CASE("json reader: whole numbers are stored as int64 or uint64 as RapidJSON stores them") {
  Parsed p("[0, -0, 9223372036854775807, -9223372036854775808, 18446744073709551615, 7]");
  REQUIRE(p.result.ok);
  const auto& a = kpw::test::array_at(p.root(), "");
  REQUIRE(a.Size() == 6);
  CHECK((a[0].IsUint64() && a[0].IsInt() && a[0].GetInt64() == 0));
  CHECK((a[1].IsInt64() && a[1].GetInt64() == 0 && !a[1].IsDouble()));
  CHECK((a[2].IsInt64() && a[2].GetInt64() == INT64_MAX));
  CHECK((a[3].IsInt64() && a[3].GetInt64() == INT64_MIN));
  CHECK((a[4].IsUint64() && !a[4].IsInt64() && a[4].GetUint64() == UINT64_MAX));
  CHECK((a[5].IsInt() && a[5].IsUint() && a[5].GetInt() == 7));
}

TEST_CASE("json reader: numbers beyond 64-bit integers and fractions are doubles") {
  Parsed p("[-9223372036854775809, 18446744073709551616, 1.5, -2.5e3, 1E+2, 1e-400, 0.1]");
  REQUIRE(p.result.ok);
  const auto& a = kpw::test::array_at(p.root(), "");
  REQUIRE(a.Size() == 7);
  for (rapidjson::SizeType i = 0; i < a.Size(); ++i) CHECK(a[i].IsDouble());
  CHECK(a[0].GetDouble() == -9223372036854775809.0);
  CHECK(a[1].GetDouble() == 18446744073709551616.0);
  CHECK(a[2].GetDouble() == 1.5);
  CHECK(a[3].GetDouble() == -2500.0);
  CHECK(a[4].GetDouble() == 100.0);
  CHECK(a[5].GetDouble() == 0.0);  // below the smallest double: zero, as Go's decoder reads it
  CHECK(a[6].GetDouble() == 0.1);  // the nearest double
}

TEST_CASE("json reader: malformed numbers and numbers beyond a double are refused") {
  for (const char* text :
       {"[1e400]", "[-1e400]", "[01]", "[1.]", "[.5]", "[1e]", "[1e+]", "[-]", "[+1]", "[0x10]",
        "[NaN]", "[Infinity]", "[-Infinity]", "[1.5.2]", "[--1]", "[1e5e]"}) {
    INFO(text);
    Parsed p(text);
    CHECK_FALSE(p.result.ok);
    CHECK(p.result.error.rfind("malformed JSON", 0) == 0);
  }
}

TEST_CASE("json reader: every escape is decoded in place") {
  Parsed p(R"(["\"\\\/\b\f\n\r\t", "\u0041", "\u00e9", "\u20ac", "\ud83d\ude00", "a\u0000b"])");
  REQUIRE(p.result.ok);
  const auto& a = kpw::test::array_at(p.root(), "");
  REQUIRE(a.Size() == 6);
  CHECK(decoded(a[0]) == "\"\\/\b\f\n\r\t");
  CHECK(decoded(a[1]) == "A");
  CHECK(decoded(a[2]) == "\xC3\xA9");
  CHECK(decoded(a[3]) == "\xE2\x82\xAC");
  CHECK(decoded(a[4]) == "\xF0\x9F\x98\x80");
  CHECK(decoded(a[5]) == std::string("a\0b", 3));
  // Decoded strings are NUL-terminated where they end.
  CHECK(std::string(a[3].GetString()) == "\xE2\x82\xAC");
}

TEST_CASE("json reader: invalid escapes are refused") {
  for (const char* text : {R"(["\x"])", R"(["\u12"])", R"(["\u12G4"])", R"(["\)", R"(["\u)",
                           R"(["\ud800\u0041"])", R"(["\ud800\\"])", R"(["\U0041"])",
                           R"(["\udc00\udc00"])", R"(["\udfff\udfff"])", R"(["\ud800\ud800"])"}) {
    INFO(text);
    Parsed p(text);
    CHECK_FALSE(p.result.ok);
  }
}

TEST_CASE("json reader: escapes and UTF-8 at every position around the 16-byte scan") {
  // Strings of 1..40 bytes with one special sequence at each position: the decoded string must be
  // the plain text with the sequence's decoded bytes in its place.
  struct Sample {
    std::string json, bytes;
  };
  const Sample samples[] = {{"\\n", "\n"},
                            {"\\u00e9", "\xC3\xA9"},
                            {"\\\"", "\""},
                            {"\xE2\x82\xAC", "\xE2\x82\xAC"},
                            {"\\ud83d\\ude00", "\xF0\x9F\x98\x80"}};
  for (const Sample& s : samples) {
    for (std::size_t length = 1; length <= 40; ++length) {
      for (std::size_t at = 0; at <= length; ++at) {
        const std::string plain(length, 'x');
        const std::string text =
            "[\"" + plain.substr(0, at) + s.json + plain.substr(at) + "\",\"" + plain + "\"]";
        Parsed p(text);
        INFO(text);
        REQUIRE(p.result.ok);
        CHECK(decoded(p.root()[0]) == plain.substr(0, at) + s.bytes + plain.substr(at));
        CHECK(decoded(p.root()[1]) == plain);
      }
    }
  }
}

TEST_CASE("json reader: strings ending at the end of the text and unterminated ones") {
  for (std::size_t length = 0; length <= 40; ++length) {
    const std::string plain(length, 'y');
    Parsed whole("\"" + plain + "\"");
    INFO(length);
    REQUIRE(whole.result.ok);
    CHECK(decoded(whole.root()) == plain);
    Parsed open("\"" + plain);
    CHECK_FALSE(open.result.ok);
    Parsed open_escape("\"" + plain + "\\");
    CHECK_FALSE(open_escape.result.ok);
  }
}

TEST_CASE("json reader: control characters must be escaped and DEL need not be") {
  for (const char c : {'\x01', '\x1f', '\t', '\n', '\0'}) {
    Parsed p(std::string("[\"a") + c + "b\"]");
    INFO(static_cast<int>(c));
    CHECK_FALSE(p.result.ok);
  }
  Parsed del(
      "[\"a\x7f"
      "b\"]");
  REQUIRE(del.result.ok);
  CHECK(decoded(del.root()[0]) ==
        "a\x7f"
        "b");
}

TEST_CASE("json reader: every ASCII byte at every position of the scan is judged alike") {
  // Each byte below 0x80 alone inside a 33-byte string, followed by a long string so that the
  // block scan (16 bytes with SSE2, 8 with KPW_JSON_SWAR) reads it, not the byte-wise tail:
  // control characters are refused, every other byte but '"' and '\\' is kept as it is.
  const std::string plain(32, 'x'), tail(40, 'z');
  for (int b = 0; b < 0x80; ++b) {
    if (b == '"' || b == '\\') continue;
    for (std::size_t at = 0; at <= plain.size(); ++at) {
      const std::string expected = plain.substr(0, at) + static_cast<char>(b) + plain.substr(at);
      Parsed p("[\"" + expected + "\",\"" + tail + "\"]");
      INFO(b << " at " << at);
      if (b < 0x20) {
        REQUIRE_FALSE(p.result.ok);
      } else {
        REQUIRE(p.result.ok);
        REQUIRE(decoded(p.root()[0]) == expected);
      }
    }
  }
}

TEST_CASE("json scan: the SSE2 and the word scan stop at the same byte, reading nothing past the text") {
  // The reader uses one of them (SSE2 on x86-64; words with KPW_JSON_SWAR or without SSE2): both
  // are compiled wherever SSE2 is, so every build holds both against the byte-wise rule. Each text
  // is a buffer of exactly its bytes and the NUL, the reader's limit: under AddressSanitizer
  // (make test-asan) a load past it is reported.
  const auto special = [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b == '"' || b == '\\' || b < 0x20 || b >= 0x80;
  };
  const char rare[] = {'"', '\\', '\x01', '\x1f', '\x7f', '\x80', '\xc3', '\xff'};
  std::mt19937 rng(24);
  for (int round = 0; round < 50000; ++round) {
    const std::size_t n = rng() % 80;
    const auto text = std::make_unique<char[]>(n + 1);
    for (std::size_t i = 0; i < n; ++i) {
      text[i] = rng() % 24 == 0 ? rare[rng() % sizeof rare] : static_cast<char>('#' + rng() % 57);
    }
    text[n] = '\0';
    char* const from = text.get() + rng() % (n + 1);
    const char* const limit = text.get() + n + 1;
    char* expected = from;
    while (!special(*expected)) ++expected;
    INFO("length " << n << ", from " << (from - text.get()));
    REQUIRE(kpw::json_scan::find_special_words(from, limit) == expected);
#if defined(__SSE2__)
    REQUIRE(kpw::json_scan::find_special_sse2(from, limit) == expected);
#endif
    REQUIRE(kpw::json_scan::find_special(from, limit) == expected);
  }
}

TEST_CASE("json reader: UTF-8 in strings is checked and bytes outside strings are refused") {
  for (const char* text :
       {"[\"\xC0\xAF\"]", "[\"\xED\xA0\x80\"]", "[\"\xF4\x90\x80\x80\"]", "[\"\xE2\x82\"]",
        "[\"\x80\"]", "[\"\xF0\x9F\x98\"]", "[\xC3\xA9]", "{\"a\":1}\xC2\xA0"}) {
    INFO(text);
    Parsed p(text);
    CHECK_FALSE(p.result.ok);
  }
  Parsed ok("[\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xED\x9F\xBF\"]");
  CHECK(ok.result.ok);
}

TEST_CASE("json reader: invalid UTF-8 is refused at every position around the 16-byte scan") {
  const std::string tail(40, 'z');  // keeps the bad bytes away from the end of the text
  for (const std::string bad : {"\xC0\xAF", "\xED\xA0\x80", "\x80", "\xE2\x82", "\xFF"}) {
    for (std::size_t length = 0; length <= 40; ++length) {
      for (std::size_t at = 0; at <= length; ++at) {
        const std::string plain(length, 'x');
        const std::string text =
            "[\"" + plain.substr(0, at) + bad + plain.substr(at) + "\",\"" + tail + "\"]";
        INFO(length << " " << at);
        Parsed p(text);
        REQUIRE_FALSE(p.result.ok);
        CHECK(p.result.error.rfind("malformed JSON: invalid UTF-8", 0) == 0);
      }
    }
  }
}

TEST_CASE("json reader: whitespace is the four RFC 8259 characters only") {
  Parsed p(" \t\r\n{ \"a\" \t:\n[ 1 ,\r\"b\" ] , \"c\" : { } }\n ");
  REQUIRE(p.result.ok);
  CHECK(string_at(p.root(), "/a/1") == std::string("b"));
  CHECK(value_at(p.root(), "/c").IsObject());
  for (const char* text : {"\f{}", "{}\v",
                           "[1,\xC2\xA0"
                           "2]"}) {
    INFO(text);
    Parsed bad(text);
    CHECK_FALSE(bad.result.ok);
  }
}

TEST_CASE("json reader: literals whole or refused and nothing after the root") {
  Parsed p("[true,false,null]");
  REQUIRE(p.result.ok);
  REQUIRE(kpw::test::array_at(p.root(), "").Size() == 3);
  CHECK((p.root()[0].IsTrue() && p.root()[1].IsFalse() && p.root()[2].IsNull()));
  for (const char* text :
       {"tru", "nul", "fals", "truex", "[true false]", "{} {}", "1 2", "   ", "[1,]", "{\"a\":1,}",
        "[,1]", "{,}", "{\"a\"}", "{\"a\" 1}", "{1:2}", "[1", "{\"a\":1", "]"}) {
    INFO(text);
    Parsed bad(text);
    CHECK_FALSE(bad.result.ok);
    CHECK(bad.result.error.rfind("malformed JSON", 0) == 0);
  }
  Parsed nul_byte(std::string("{}\0", 3));
  CHECK_FALSE(nul_byte.result.ok);
}

TEST_CASE("json reader: keys are compared after unescaping") {
  Parsed dup(R"({"a":1,"\u0061":2})");
  CHECK_FALSE(dup.result.ok);
  CHECK(dup.result.error == "duplicate JSON key \"a\"");
  Parsed siblings(R"([{"a":1},{"a":2},{"b":{"a":3}}])");
  CHECK(siblings.result.ok);
  // Many keys in one object, a repeat at the end (past any small-object shortcut).
  std::string many = "{";
  for (int i = 0; i < 200; ++i) many += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  Parsed distinct(many.substr(0, many.size() - 1) + "}");
  CHECK(distinct.result.ok);
  Parsed repeated(many + "\"k137\":0}");
  CHECK_FALSE(repeated.result.ok);
  CHECK(repeated.result.error == "duplicate JSON key \"k137\"");
}

TEST_CASE("json reader: a refused text leaves an empty document and the arena reusable") {
  JsonArena arena;
  std::string bad = R"({"a":[1,2,{"b":)";
  CHECK_FALSE(arena.parse_in_place(bad).ok);
  CHECK(arena.document().IsNull());
  std::string good = R"({"a":[1,2,{"b":3}]})";
  REQUIRE(arena.parse_in_place(good).ok);
  CHECK(int_at(arena.document(), "/a/2/b") == 3);
}

TEST_CASE("json: append_json_string escapes what JSON needs, at every position of a word") {
  // A reference, byte by byte.
  const auto reference = [](std::string_view text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
      if (c == '"') {
        out += "\\\"";
      } else if (c == '\\') {
        out += "\\\\";
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20) {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  // Every byte value, alone and at each offset of a 19-byte text (both 8-byte words and the tail).
  for (int b = 0; b < 256; ++b) {
    for (std::size_t at = 0; at < 19; ++at) {
      std::string text(19, 'a');
      text[at] = static_cast<char>(b);
      if (at + 1 < text.size()) text[at + 1] = '\x7f';  // a byte just above the escaped ones
      std::string out;
      kpw::append_json_string(out, text);
      REQUIRE(out == reference(text));
    }
  }
  std::string out = "x";
  kpw::append_json_string(out, "");
  CHECK(out == "x\"\"");
}
