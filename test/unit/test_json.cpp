// Bounded, in-place JSON parsing: depth, duplicate keys, UTF-8.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include "json/json.hpp"
#include "json/json_reader.hpp"
#include "json_access.hpp"

using kpw::JsonArena;
using kpw::test::array_at;
using kpw::test::int_at;
using kpw::test::object_at;
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

// ---- duplicate keys in objects of any size (read_json_in_place, for the offset and the key) ----

namespace {

using kpw::JsonReadError;

struct Read {
  std::string text;
  kpw::JsonDocument doc;
  kpw::JsonReadResult result;
  explicit Read(std::string t) : text(std::move(t)) {
    result = kpw::read_json_in_place(text.data(), text.size(), doc);
  }
  bool ok() const { return result.error == JsonReadError::kNone; }
};

// `{"<prefix>0":0,...,"<prefix><count-1>":0` (no closing brace: callers add members or close it).
std::string object_head(std::string_view prefix, int count) {
  std::string out = "{";
  for (int i = 0; i < count; ++i) {
    if (i != 0) out += ',';
    out += '"';
    out += prefix;
    out += std::to_string(i);
    out += "\":0";
  }
  return out;
}

// Checks that `text + key + ":0}"` is refused at `key` (a JSON string) as a repeat of `decoded`.
void check_repeat(const std::string& text, const std::string& key, const std::string& decoded) {
  Read r(text + key + ":0}");
  INFO(r.text);
  REQUIRE(r.result.error == JsonReadError::kDuplicateKey);
  CHECK(r.result.offset == text.size());
  CHECK(std::string(r.result.detail) == decoded);
}

}  // namespace

TEST_CASE("json reader: an object with a million distinct keys is read in linear time",
          "[linear]") {
  // A quadratic duplicate check takes minutes here: test/CMakeLists.txt gives [linear] tests a
  // time limit.
  constexpr int kKeys = 1'000'000;
  const std::string head = object_head("k", kKeys);
  {
    Read all(head + "}");
    REQUIRE(all.ok());
    CHECK(all.doc.MemberCount() == kKeys);
    CHECK(int_at(all.doc, "/k999999") == 0);
  }
  check_repeat(head + ",", "\"k0\"", "k0");
}

TEST_CASE("json reader: a key repeated in an object of any size is refused where it repeats") {
  for (int n = 1; n <= 100; ++n) {
    const std::string head = object_head("k", n);
    Read distinct(head + ",\"k" + std::to_string(n).append("\":0}"));
    INFO(n);
    REQUIRE(distinct.ok());
    for (int j = 0; j < n; ++j) {
      const std::string key = std::string("k").append(std::to_string(j));
      check_repeat(head + ",", '"' + key + '"', key);
    }
  }
}

TEST_CASE("json reader: keys of nested and sibling objects never clash, whatever their sizes") {
  const std::string keys = object_head("k", 100).substr(1);  // "k0":0,...,"k99":0
  // An object holding one with the same keys, then more of its own (some only the inner had).
  Read nested("{" + keys + ",\"in\":{" + keys + ",\"x\":0},\"x\":0," +
              object_head("k", 200).substr(1 + keys.size() + 1) + "}");
  INFO(nested.text);
  REQUIRE(nested.ok());
  CHECK(nested.doc.MemberCount() == 202);
  CHECK(object_at(nested.doc, "/in").MemberCount() == 101);
  // Siblings, in an array and in an object.
  CHECK(Read("[{" + keys + "},{" + keys + "},{" + keys + "}]").ok());
  CHECK(Read("{\"a\":{" + keys + "},\"b\":{" + keys + "}}").ok());
  // Large, small, large: the same keys at each level.
  CHECK(Read("{" + keys + ",\"s\":{\"k0\":{" + keys + "},\"k1\":0}}").ok());
  // Twenty-key objects nested 100 deep, each holding the next as its last member.
  std::string deep, close;
  for (int d = 0; d < 100; ++d) {
    deep += object_head("k", 20) + ",\"next\":";
    close += '}';
  }
  CHECK(Read(deep + "0" + close).ok());
  // A repeat is found at its own level, before and after an inner object with the same keys.
  check_repeat(deep + "{" + keys + ",", "\"k42\"", "k42");
  check_repeat("{" + keys + ",\"in\":{" + keys + "},", "\"k7\"", "k7");
  check_repeat("{" + keys + ",\"in\":{" + keys + ",\"x\":0},\"x\":0,", "\"in\"", "in");
  check_repeat("{\"in\":{" + keys + "}," + keys + ",", "\"in\"", "in");
}

TEST_CASE("json reader: keys are compared byte for byte after unescaping, in objects of any size") {
  for (int n : {0, 1, 15, 16, 17, 100}) {
    std::string head = object_head("p", n);
    head += n == 0 ? "" : ",";
    INFO(n);
    check_repeat(head + "\"a\":0,", "\"\\u0061\"", "a");
    check_repeat(head + "\"\\u0061\":0,", "\"a\"", "a");
    check_repeat(head + "\"\xC3\xA9\":0,", "\"\\u00e9\"", "\xC3\xA9");
    check_repeat(head + "\"k12\":0,", "\"k\\u0031\\u0032\"", "k12");
    check_repeat(head + "\"\":0,", "\"\"", "");
    // An escaped NUL is a byte of the key like any other: only the same length is the same key.
    check_repeat(head + "\"a\\u0000\":0,", "\"a\\u0000\"", std::string("a\0", 2));
    CHECK(Read(head + R"("a":0,"a\u0000":0,"a\u0000\u0000":0,"":0,"\u0000":0})").ok());
    CHECK(Read(head + R"("ab":0,"ba":0,"Ab":0,"aB":0,"a b":0,"a\"":0,"a\\":0})").ok());
  }
}

TEST_CASE("json reader: a text refused inside large objects leaves nothing behind for the next") {
  const std::string keys = object_head("k", 100).substr(1);
  for (const std::string& bad :
       {"{" + keys + ",\"in\":{" + keys + ",", "{" + keys + ",\"in\":{" + keys + ",\"k3\":0}}",
        "{" + keys + ",\"in\":{" + keys + "},\"k3\":0}",
        "[{" + keys + ",\"in\":{" + keys + ",\"x\":tru}}]"}) {
    INFO(bad);
    CHECK_FALSE(Read(bad).ok());
    // The same keys again, in new text: nothing of the refused text is taken for them.
    CHECK(Read("{" + keys + ",\"in\":{" + keys + "}}").ok());
    CHECK(Read("[{" + keys + "},{" + keys + "}]").ok());
  }
}

namespace {

// Random objects whose keys repeat now and then, nested in one another with the same names, and
// where the first repeat in the text is (as a plain reference finds it).
struct RandomObjects {
  RandomObjects(std::mt19937& r, double chance) : random(r), repeat_chance(chance) {}

  std::mt19937& random;
  double repeat_chance;
  int budget = 4000;  // keys left for this text
  std::string text;
  std::size_t repeat_at = std::string::npos;
  std::string repeated;

  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); }

  void object(int depth) {
    const int shape = pick(0, 9);
    int count = shape < 5 ? pick(0, 20) : shape < 8 ? pick(10, 70) : pick(60, 400);
    count = std::min(count, budget);
    budget -= count;
    std::vector<std::string> names;
    std::set<std::string> seen;
    text += '{';
    for (int i = 0; i < count; ++i) {
      if (i != 0) text += ',';
      std::string name = std::string("k").append(std::to_string(i));
      if (!names.empty() && std::bernoulli_distribution(repeat_chance)(random)) {
        name = names[static_cast<std::size_t>(pick(0, static_cast<int>(names.size()) - 1))];
      }
      if (!seen.insert(name).second && repeat_at == std::string::npos) {
        repeat_at = text.size();
        repeated = name;
      }
      names.push_back(name);
      // Its first letter escaped now and then: the same key.
      text += pick(0, 3) == 0 ? "\"\\u006b" : "\"k";
      text.append(name, 1).append(1, '"');
      text += ':';
      if (depth < 6 && budget > 0 && pick(0, 9) == 0) {
        object(depth + 1);
      } else {
        text += '0';
      }
    }
    text += '}';
  }
};

}  // namespace

TEST_CASE("json reader: in random nested objects of any size the first repeated key is refused") {
  std::mt19937 random(20261123);
  int refused = 0;
  for (int i = 0; i < 1000; ++i) {
    RandomObjects g(random, i % 3 == 0 ? 0.0 : i % 3 == 1 ? 0.002 : 0.02);
    g.object(0);
    Read r(g.text);
    INFO(g.text);
    if (g.repeat_at == std::string::npos) {
      REQUIRE(r.ok());
    } else {
      ++refused;
      REQUIRE(r.result.error == JsonReadError::kDuplicateKey);
      CHECK(r.result.offset == g.repeat_at);
      CHECK(std::string(r.result.detail) == g.repeated);
    }
  }
  CHECK(refused > 300);
  CHECK(refused < 700);
}
