// The strict JSON Patch applier (RFC 6902) that `check` stores objects with and the tests hold
// every patch to: what applies, and what is refused where RFC 6902 says an op fails.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "json/json.hpp"
#include "json/json_patch_apply.hpp"
#include "json/json_pointer.hpp"
#include "support.hpp"

namespace {

struct Applied {
  std::optional<std::string> error;
  std::string object;  // as the ops left it
};

Applied apply(const std::string& object, const std::string& patch) {
  kpw::JsonDocument doc;
  doc.Parse(object.c_str());
  REQUIRE_FALSE(doc.HasParseError());
  Applied out;
  out.error = kpw::apply_json_patch(doc, patch, doc.GetAllocator());
  out.object = kpw::test::text_of(doc);
  return out;
}

// Applies `patch`, which must apply, and returns the object.
std::string applied(const std::string& object, const std::string& patch) {
  const Applied a = apply(object, patch);
  INFO(patch << ": " << a.error.value_or(""));
  REQUIRE_FALSE(a.error.has_value());
  return a.object;
}

// `patch` must be refused, with a message holding `why`; returns the message.
std::string refused(const std::string& object, const std::string& patch, const std::string& why) {
  const Applied a = apply(object, patch);
  INFO(patch);
  REQUIRE(a.error.has_value());
  INFO(*a.error);
  CHECK(a.error->find(why) != std::string::npos);
  return *a.error;
}

}  // namespace

TEST_CASE("patch apply: add sets an absent member and replaces a present one") {
  CHECK(applied(R"({"a":1})", R"([{"op":"add","path":"/b","value":{"c":[1]}}])") ==
        R"({"a":1,"b":{"c":[1]}})");
  CHECK(applied(R"({"a":1,"b":2})", R"([{"op":"add","path":"/a","value":null}])") ==
        R"({"a":null,"b":2})");
  CHECK(applied(R"({"a":{}})",
                R"([{"op":"add","path":"/a/x","value":"s"},)"
                R"({"op":"add","path":"/a/y","value":true}])") == R"({"a":{"x":"s","y":true}})");
}

TEST_CASE("patch apply: add into an array inserts at an index or appends at -") {
  CHECK(applied(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/-","value":3}])") ==
        R"({"l":[1,2,3]})");
  CHECK(applied(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/0","value":0}])") ==
        R"({"l":[0,1,2]})");
  CHECK(applied(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/1","value":9}])") ==
        R"({"l":[1,9,2]})");
  CHECK(applied(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/2","value":3}])") ==
        R"({"l":[1,2,3]})");  // the index just past the end appends
  CHECK(applied(R"({"l":[]})",
                R"([{"op":"add","path":"/l/-","value":"a"},)"
                R"({"op":"add","path":"/l/-","value":"b"}])") == R"({"l":["a","b"]})");
}

TEST_CASE("patch apply: replace and remove act on what is there, members keep their order") {
  CHECK(applied(R"({"a":1,"b":2,"c":3})", R"([{"op":"replace","path":"/b","value":[2]}])") ==
        R"({"a":1,"b":[2],"c":3})");
  CHECK(applied(R"({"a":1,"b":2,"c":3})", R"([{"op":"remove","path":"/a"}])") ==
        R"({"b":2,"c":3})");
  CHECK(applied(R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/1"}])") == R"({"l":[1,3]})");
  CHECK(applied(R"({"l":[1,2,3]})", R"([{"op":"replace","path":"/l/2","value":"x"}])") ==
        R"({"l":[1,2,"x"]})");
  CHECK(applied(R"({"a":null})", R"([{"op":"replace","path":"/a","value":0}])") == R"({"a":0})");
}

TEST_CASE("patch apply: escaped tokens name members holding ~ and / (RFC 6901)") {
  CHECK(applied(R"({"m":{"a/b":1,"c~d":2}})",
                R"([{"op":"replace","path":"/m/a~1b","value":10},)"
                R"({"op":"remove","path":"/m/c~0d"},)"
                R"({"op":"add","path":"/m/~01~10","value":3}])") == R"({"m":{"a/b":10,"~1/0":3}})");
  // As the builder writes them.
  std::string pointer = "/m/";
  kpw::append_pointer_token(pointer, "karmada.io/x~y");
  CHECK(pointer == "/m/karmada.io~1x~0y");
  CHECK(applied(R"({"m":{}})", R"([{"op":"add","path":")" + pointer + R"(","value":1}])") ==
        R"({"m":{"karmada.io/x~y":1}})");
}

TEST_CASE("patch apply: an empty path is the whole document") {
  CHECK(applied(R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])") == R"({"b":2})");
  CHECK(applied(R"({"a":1})", R"([{"op":"add","path":"","value":[]}])") == "[]");
  refused(R"({"a":1})", R"([{"op":"remove","path":""}])", "whole document");
  CHECK(applied(R"({"a":1})", "[]") == R"({"a":1})");
}

TEST_CASE("patch apply: a path that is missing is refused, not created") {
  refused(R"({"a":{}})", R"([{"op":"add","path":"/x/y","value":1}])", "parent does not exist");
  refused(R"({"a":{}})", R"([{"op":"add","path":"/a/x/y","value":1}])", "parent does not exist");
  refused(R"({"a":{}})", R"([{"op":"replace","path":"/a/x","value":1}])", "no such member");
  refused(R"({"a":{}})", R"([{"op":"remove","path":"/a/x"}])", "no such member");
  refused(R"({"a":{}})", R"([{"op":"remove","path":"/b"}])", "no such member");
  refused(R"({"a":1})", R"([{"op":"add","path":"/a/x","value":1}])",
          "neither an object nor an array");
}

TEST_CASE("patch apply: array indexes must exist and be written as RFC 6901 says") {
  const std::string l = R"({"l":[1,2]})";
  refused(l, R"([{"op":"add","path":"/l/3","value":0}])", "past the end");
  refused(l, R"([{"op":"replace","path":"/l/2","value":0}])", "no such element");
  refused(l, R"([{"op":"remove","path":"/l/2"}])", "no such element");
  refused(l, R"([{"op":"replace","path":"/l/-","value":0}])", "not an array index");
  refused(l, R"([{"op":"remove","path":"/l/-"}])", "not an array index");
  refused(l, R"([{"op":"replace","path":"/l/01","value":0}])", "not an array index");
  refused(l, R"([{"op":"replace","path":"/l/-1","value":0}])", "not an array index");
  refused(l, R"([{"op":"replace","path":"/l/99999999999","value":0}])", "not an array index");
  refused(l, R"([{"op":"add","path":"/l/5/x","value":0}])", "parent does not exist");
  refused(l, R"([{"op":"add","path":"/l/-/x","value":0}])", "parent does not exist");
}

TEST_CASE("patch apply: malformed ops and ops a webhook never sends are refused") {
  const std::string o = R"({"a":1})";
  refused(o, R"({"op":"add","path":"/b","value":1})", "must be an array");
  refused(o, R"([{"op":"add","path":"/b"}])", "no \"value\"");
  refused(o, R"([{"op":"replace","path":"/a"}])", "no \"value\"");
  refused(o, R"([{"path":"/a"}])", "no \"op\"");
  refused(o, R"([{"op":"remove"}])", "no \"path\"");
  refused(o, R"([{"op":"remove","path":1}])", "no \"path\"");
  refused(o, R"([1])", "must be an object");
  refused(o, R"([{"op":"delete","path":"/a"}])", "no such op");
  refused(o, R"([{"op":"move","from":"/a","path":"/b"}])", "not applied here");
  refused(o, R"([{"op":"test","path":"/a","value":1}])", "not applied here");
  refused(o, R"([{"op":"remove","path":"a"}])", "no JSON Pointer");
  refused(o, R"([{"op":"remove","path":"/a~2"}])", "no JSON Pointer");
  refused(o, R"([{"op":"remove","path":"/a~"}])", "no JSON Pointer");
  refused(o, R"([{"op":"add","path":"/b","value":1},)", "not JSON");
  refused(o, R"([{"op":"add","path":"/b","value":1,"value":2}])", "not JSON");  // a repeated key
}

TEST_CASE("patch apply: the message names the failing op, and the ops before it stay applied") {
  const Applied a = apply(R"({"a":1})", R"([{"op":"add","path":"/b","value":2},)"
                                        R"({"op":"remove","path":"/c"}])");
  REQUIRE(a.error.has_value());
  CHECK(*a.error == "op 1 (remove /c): no such member");
  CHECK(a.object == R"({"a":1,"b":2})");
}

TEST_CASE("patch apply: the object keeps no reference into the patch it was given") {
  // A patch read from text holds strings that point into the text (read in place).
  std::string text = R"([{"op":"add","path":"/a","value":{"key":"value"}},)"
                     R"({"op":"add","path":"/l/-","value":"item"}])";
  kpw::JsonDocument patch;
  REQUIRE_FALSE(patch.ParseInsitu(text.data()).HasParseError());
  kpw::JsonDocument doc;
  doc.Parse(R"({"l":[]})");
  REQUIRE_FALSE(kpw::apply_json_patch(doc, patch, doc.GetAllocator()).has_value());
  std::fill(text.begin(), text.end(), 'X');
  CHECK(kpw::test::text_of(doc) == R"({"l":["item"],"a":{"key":"value"}})");
}

TEST_CASE("patch apply: ops that share a parent see what the ops before them changed") {
  // The walk to a parent is reused from op to op; inserting or removing elements of that parent
  // must not leave a later op looking at an element that moved.
  CHECK(applied(R"({"l":[{"x":1},{"x":2}]})", R"([{"op":"add","path":"/l/0/y","value":1},)"
                                              R"({"op":"add","path":"/l/0","value":{"x":0}},)"
                                              R"({"op":"replace","path":"/l/0/x","value":10},)"
                                              R"({"op":"remove","path":"/l/1"},)"
                                              R"({"op":"add","path":"/l/1/z","value":3},)"
                                              R"({"op":"add","path":"/l/-","value":{}},)"
                                              R"({"op":"add","path":"/l/2/w","value":4}])") ==
        R"({"l":[{"x":10},{"x":2,"z":3},{"w":4}]})");
  CHECK(applied(R"({"a":{"b":{"c":1}}})",
                R"([{"op":"add","path":"/a/b/d","value":2},)"
                R"({"op":"replace","path":"/a/b","value":{"e":3}},)"
                R"({"op":"add","path":"/a/b/f","value":4},)"
                R"({"op":"remove","path":"/a"},)"
                R"({"op":"add","path":"/a","value":{"g":{}}},)"
                R"({"op":"add","path":"/a/g/h","value":5}])") == R"({"a":{"g":{"h":5}}})");
}

TEST_CASE("patch apply: ops into elements of an array beside 400 000 other fields take linear time",
          "[linear]") {
  // Looking `items` up again among the other fields for every op made this quadratic (about
  // three minutes; ten seconds at 100 000).
  constexpr int kWide = 400'000;
  std::string text = R"({"spec":{)";
  for (int i = 0; i < kWide; ++i) text += R"("u)" + std::to_string(i) + R"(":0,)";
  text += R"("items":[)";
  for (int i = 0; i < kWide; ++i) text += i == 0 ? "{}" : ",{}";
  text += "]}}";
  std::string patch = "[";
  for (int i = 0; i < kWide; ++i) {
    if (i != 0) patch += ',';
    patch += R"({"op":"add","path":"/spec/items/)" + std::to_string(i) + R"(/x","value":1})";
  }
  patch += ']';
  kpw::JsonDocument doc;
  REQUIRE_FALSE(doc.Parse(text.c_str()).HasParseError());
  const auto error = kpw::apply_json_patch(doc, patch, doc.GetAllocator());
  INFO(error.value_or(""));
  REQUIRE_FALSE(error.has_value());
  const kpw::JsonValue& items = *kpw::find_member(*kpw::find_member(doc, "spec"), "items");
  REQUIRE(items.Size() == kWide);
  int set = 0;
  for (const kpw::JsonValue& item : items.GetArray()) set += kpw::find_member(item, "x") != nullptr;
  CHECK(set == kWide);
}
