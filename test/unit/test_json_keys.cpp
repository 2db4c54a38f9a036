// The JSON reader's duplicate keys: refused where they repeat, in objects of any size.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.hpp"
#include "json/json_reader.hpp"
#include "json_access.hpp"

using kpw::test::int_at;
using kpw::test::object_at;

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
