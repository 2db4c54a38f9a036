// go_json::decodes_into: the verdicts of Go's encoding/json Unmarshal into
// []DependentObjectReference (RB-1), as upstream's live karmada-webhook gave them for each text.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "json/go_decode.hpp"

namespace {

using kpw::go_json::Field;
using kpw::go_json::Kind;
using kpw::go_json::Type;

// The shape RB-1 decodes into (validators/resource_binding.cpp declares its own).
constexpr Type kString{.kind = Kind::kString};
constexpr Type kStrings{.kind = Kind::kSlice, .element = &kString};
constexpr Type kStringMap{.kind = Kind::kMap, .element = &kString};
constexpr Field kRequirementFields[] = {
    {"key", &kString}, {"operator", &kString}, {"values", &kStrings}};
constexpr Type kRequirement{.kind = Kind::kStruct, .fields = kRequirementFields};
constexpr Type kRequirements{.kind = Kind::kSlice, .element = &kRequirement};
constexpr Field kSelectorFields[] = {{"matchLabels", &kStringMap},
                                     {"matchExpressions", &kRequirements}};
constexpr Type kSelector{.kind = Kind::kStruct, .fields = kSelectorFields};
constexpr Field kReferenceFields[] = {{"apiVersion", &kString},
                                      {"kind", &kString},
                                      {"namespace", &kString},
                                      {"name", &kString},
                                      {"labelSelector", &kSelector}};
constexpr Type kReference{.kind = Kind::kStruct, .fields = kReferenceFields};
constexpr Type kDependencies{.kind = Kind::kSlice, .element = &kReference};

bool decodes(std::string_view text) { return kpw::go_json::decodes_into(text, kDependencies); }

std::string nested(std::size_t depth) {
  // An unknown member holding `depth` nested arrays, inside the list and its element (two more).
  return R"([{"other":)" + std::string(depth, '[') + std::string(depth, ']') + "}]";
}

}  // namespace

TEST_CASE("RB-1 Go decodes the list, null and whitespace around them") {
  for (const char* text : {"[]", "null", " null ", "\t[]\n", "[null]", "[{}]", R"([{"name":"a"}] )",
                           R"([{"apiVersion":"v1","kind":"ConfigMap",
                           "namespace":"default","name":"cm"}])"}) {
    INFO(text);
    CHECK(decodes(text));
  }
}

TEST_CASE("RB-1 Go refuses what is not one JSON value") {
  for (const char* text : {"",
                           " ",
                           "[] x",
                           "[],",
                           "[1,]",
                           R"([{"a":01}])",
                           R"([{"a":.5}])",
                           R"([{"a":tru}])",
                           R"([{"a":"\x"}])",
                           "[{\"a\":\"\t\"}]",
                           "[",
                           "[{",
                           R"([{"a")",
                           R"([{"a":)",
                           R"([{"a":1)",
                           R"(["\u12"])",
                           "-",
                           "[-]",
                           "[1.]",
                           "[1e]",
                           "[1e+]",
                           R"([{1:2}])",
                           R"([{"a" 1}])",
                           "nul",
                           "[nullx]"}) {
    INFO(text);
    CHECK_FALSE(decodes(text));
  }
}

TEST_CASE("RB-1 Go's grammar: numbers, escapes and duplicate keys") {
  for (const char* text : {R"([{"a":1e5}])", R"([{"a":-0.5E+3}])", R"([{"a":0}])",
                           R"([{"a":[true,false,null,"s",{"b":-1.25e-3}]}])",
                           R"([{"name":"a","name":"b"}])", R"([{"name":"\ud800"}])",
                           R"([{"name":"\"\\\/\b\f\n\r\t\u00e9"}])", "[{\"name\":\"\xc3\xa9\"}]"}) {
    INFO(text);
    CHECK(decodes(text));
  }
}

TEST_CASE("RB-1 a value of another JSON type than the Go field's") {
  for (const char* text :
       {"[1]", R"(["x"])", "{}", R"("s")", "1", "true", R"([{"name":1}])", R"([{"namespace":1}])",
        R"([{"apiversion":2}])", R"([{"labelSelector":1}])",
        R"([{"labelSelector":{"matchLabels":{"a":1}}}])",
        R"([{"labelSelector":{"matchLabels":[]}}])",
        R"([{"labelSelector":{"matchLabels":{"a":"b","a":2}}}])",
        R"([{"labelSelector":{"matchExpressions":[{"values":[1]}]}}])",
        R"([{"labelSelector":{"matchExpressions":{}}}])",
        R"([{"labelSelector":{"matchExpressions":[{"operator":true}]}}])", R"([[]])",
        R"([{"name":{}}])", R"([{"kind":[]}])"}) {
    INFO(text);
    CHECK_FALSE(decodes(text));
  }
}

TEST_CASE("RB-1 null decodes into every Go type; unknown members hold anything") {
  for (
      const char* text :
      {R"([{"name":null}])", R"([{"labelSelector":null}])",
       R"([{"labelSelector":{"matchLabels":{"a":null}}}])",
       R"([{"labelSelector":{"matchExpressions":[null]}}])",
       R"([{"labelSelector":{"matchExpressions":[{"key":"a","operator":"In","values":["x",null]}]}}])",
       R"([{"other":1}])", R"([{"other":[[[[1]]]]}])",
       R"([{"labelSelector":{"other":{"a":2}}}])"}) {
    INFO(text);
    CHECK(decodes(text));
  }
}

TEST_CASE("RB-1 members match fields as Go folds names (ASCII case, Kelvin sign, long s)") {
  CHECK_FALSE(decodes(R"([{"NAME":1}])"));
  CHECK(decodes(R"([{"Name":"x"}])"));
  CHECK(decodes(R"([{"APIVERSION":"v1"}])"));
  CHECK_FALSE(decodes(R"([{"\u212aind":1}])"));        // escaped Kelvin sign: kind
  CHECK_FALSE(decodes("[{\"\xe2\x84\xaaind\":1}]"));   // the Kelvin sign itself
  CHECK_FALSE(decodes("[{\"name\xc5\xbfpace\":1}]"));  // the long s: namespace
  CHECK_FALSE(decodes(R"([{"name\u017fpace":1}])"));
  CHECK_FALSE(decodes(R"([{"labelSelector":{"MATCHLABELS":{"a":2}}}])"));
  CHECK_FALSE(decodes(R"([{"labelSelector":{"matchExpressions":[{"Values":"x"}]}}])"));
  CHECK(decodes(R"([{"n\u0061me":"x"}])"));
  CHECK_FALSE(decodes(R"([{"n\u0061me":1}])"));
  // Other runes fold to nothing ASCII: the member is unknown.
  CHECK(decodes("[{\"n\xc3\xa1me\":1}]"));
  CHECK(decodes(R"([{"name\u0000":1}])"));
  CHECK(decodes(R"([{"namespacenamespacenamespacenamespace":1}])"));
}

TEST_CASE("RB-1 Go's nesting limit: 10000 containers, not one more") {
  CHECK(decodes(nested(9998)));        // 10 000 in all
  CHECK_FALSE(decodes(nested(9999)));  // 10 001
  CHECK_FALSE(decodes(nested(100000)));
}

TEST_CASE("RB-1 a list of 20 000 references, then one bad element", "[linear]") {
  std::string text = "[";
  for (int i = 0; i < 20000; ++i) {
    if (i > 0) text += ",";
    text += R"({"apiVersion":"v1","kind":"ConfigMap","namespace":"default","name":"cm)" +
            std::to_string(i) + R"("})";
  }
  CHECK(decodes(text + "]"));
  CHECK_FALSE(decodes(text + ",1]"));
}
