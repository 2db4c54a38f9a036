// Reading policy files for `check`: YAML scalars typed as Kubernetes reads them, positions, and
// the nearest-parent lookup for absent fields.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "check/source.hpp"

using kpw::check::load;
using kpw::check::LoadedFile;

namespace {

// Loads `text` into `file`; returns the seconds it took. The hostile inputs below took minutes
// (or tens of GB) while a step of loading was quadratic; linear, they take well under a second
// (a few under the sanitizers), so a bound of 30 s fails only when a step is quadratic again.
double seconds_to_load(const std::string& text, LoadedFile& file) {
  const auto start = std::chrono::steady_clock::now();
  file = load(text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

constexpr double kLinearSeconds = 30;

std::string member_name(const kpw::JsonValue& obj, rapidjson::SizeType i) {
  return std::string((obj.MemberBegin() + i)->name.GetString());
}

}  // namespace

TEST_CASE("check: plain scalars follow YAML 1.1 and quoted ones stay strings") {
  const auto file =
      load("a: yes\nb: 'yes'\nc: 42\nd: 1.5\ne: ~\nf: 0x1F\ng: \"7\"\nh: off\ni: text\nj:\n");
  REQUIRE_FALSE(file.syntax_error);
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(o["a"].IsTrue());
  CHECK(std::string(o["b"].GetString()) == "yes");
  CHECK(o["c"].GetInt64() == 42);
  CHECK(o["d"].GetDouble() == 1.5);
  CHECK(o["e"].IsNull());
  CHECK(o["f"].GetInt64() == 31);
  CHECK(std::string(o["g"].GetString()) == "7");
  CHECK(o["h"].IsFalse());
  CHECK(std::string(o["i"].GetString()) == "text");
  CHECK(o["j"].IsNull());
  CHECK(kpw::check::plain_scalar_is_string("text"));
  CHECK_FALSE(kpw::check::plain_scalar_is_string("on"));
  CHECK_FALSE(kpw::check::plain_scalar_is_string("12"));
}

TEST_CASE("check: a map or list as a key is dropped with its value, a key written \"?\" is kept") {
  const auto file = load("? [a, b]\n: dropped\n\"?\": kept\nc: 1\n");
  REQUIRE_FALSE(file.syntax_error);
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(o.MemberCount() == 2);
  CHECK(std::string(o["?"].GetString()) == "kept");
  CHECK(o["c"].GetInt64() == 1);
}

TEST_CASE("check: positions of keys and items and the nearest parent of an absent field") {
  const auto file = load("spec:\n  list:\n    - name: a\n    - name: b\n");
  REQUIRE(file.objects.size() == 1);
  const auto& obj = file.objects[0];
  CHECK(obj.locate("spec.list[1].name").line == 4);
  CHECK(obj.locate("spec.list[1].name").column == 7);
  CHECK(obj.locate("spec.list[1]").column == 7);
  CHECK(obj.locate("spec.list[1].missing").line == 4);  // nearest parent: the item
  CHECK(obj.locate("spec.other").line == 1);            // nearest parent: spec
  CHECK(obj.locate("metadata.labels[a/b]").line == 1);  // nothing: the object's start
}

TEST_CASE("check: documents, lists and syntax errors") {
  const auto multi =
      load("a: 1\n---\n---\nkind: List\napiVersion: v1\nitems:\n  - {b: 2}\n  - {c: 3}\n");
  REQUIRE_FALSE(multi.syntax_error);
  REQUIRE(multi.objects.size() == 3);
  CHECK(multi.objects[1].document == 2);
  CHECK(multi.objects[2].start.line == 8);
  const auto broken = load("a: [1,\nb: 2\n");
  REQUIRE(broken.syntax_error);
  CHECK(broken.syntax_error->position.line >= 1);
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "[";
  for (int i = 0; i < 200; ++i) deep += "]";
  CHECK(load(deep).syntax_error);  // nesting is bounded
}

TEST_CASE(
    "check: a map of 300 000 keys is read in linear time, a repeated key replacing the first") {
  std::string text;
  for (int i = 0; i < 300'000; ++i) text.append("k").append(std::to_string(i)).append(": 1\n");
  text += "k7: last\n";
  LoadedFile file;
  const double seconds = seconds_to_load(text, file);
  REQUIRE_FALSE(file.syntax_error);
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(o.MemberCount() == 300'000);
  CHECK(std::string(o["k7"].GetString()) == "last");
  CHECK(member_name(o, 7) == "k7");  // in the place of the first
  CHECK(seconds < kLinearSeconds);
}

TEST_CASE("check: a merge key of 100 000 members into a map of 100 000 is read in linear time") {
  std::string text = "base: &b {";
  for (int i = 0; i < 100'000; ++i) text.append("m").append(std::to_string(i)).append(": 1, ");
  text += "k5: merged}\nobj:\n";
  for (int i = 0; i < 100'000; ++i) text.append("  k").append(std::to_string(i)).append(": 2\n");
  text += "  <<: *b\n  m9: own\n";
  LoadedFile file;
  const double seconds = seconds_to_load(text, file);
  REQUIRE_FALSE(file.syntax_error);
  REQUIRE(file.objects.size() == 1);
  const auto& obj = (*file.objects[0].json)["obj"];
  CHECK(obj.MemberCount() == 200'000);
  CHECK(obj["k5"].GetInt64() == 2);  // the map's own key wins over the merged one
  CHECK(std::string(obj["m9"].GetString()) == "own");
  CHECK(obj["m99999"].GetInt64() == 1);
  CHECK(seconds < kLinearSeconds);
}
