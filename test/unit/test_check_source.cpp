// Reading policy files for `check`: YAML scalars typed as Kubernetes reads them, positions, and
// the nearest-parent lookup for absent fields.
#include <catch2/catch.hpp>

#include <string>

#include "check/source.hpp"

using kpw::check::load;

TEST_CASE("check: plain scalars follow YAML 1.1 and quoted ones stay strings") {
  const auto file = load("a: yes\nb: 'yes'\nc: 42\nd: 1.5\ne: ~\nf: 0x1F\ng: \"7\"\nh: off\ni: text\nj:\n");
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
  const auto multi = load("a: 1\n---\n---\nkind: List\napiVersion: v1\nitems:\n  - {b: 2}\n  - {c: 3}\n");
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
