// The shared rule library (validators/common.hpp): each check on its own, reporting the rule it
// is given.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "doc_support.hpp"
#include "json/json.hpp"
#include "validators/cluster_taint_policy.hpp"
#include "validators/common.hpp"
#include "validators/propagation_policy_rules.hpp"
#include "validators/schedule_trigger.hpp"
#include "validators/workload_rebalancer.hpp"

using kpw::Duplicates;
using kpw::ErrorList;
using kpw::FieldError;
using kpw::FieldPath;
using kpw::JsonArena;
using kpw::JsonValue;
using kpw::Rule;
namespace rules = kpw::rules;
using kpw::rule_id;

using kpw::test::Doc;
using kpw::test::lines;

namespace {

using Lines = std::vector<std::string>;

Lines field_selector(Rule rule, std::string_view affinity) {
  Doc doc(affinity);
  ErrorList errors;
  const FieldPath path = FieldPath::root("affinity");
  kpw::check_cluster_field_selector(rule, doc.root(), path, errors);
  return lines(errors);
}

}  // namespace

TEST_CASE("V-P3 V-P6 V-P10 common: cluster field selector keys and operators") {
  CHECK(field_selector(rules::kVP3, R"({"fieldSelector":{"matchExpressions":[
          {"key":"zone","operator":"In","values":["a"]},{"key":"region","operator":"NotIn"}]}})")
            .empty());
  CHECK(field_selector(rules::kVP6, R"({"fieldSelector":{"matchExpressions":[
          {"key":"provider","operator":"Exists"},{"key":"rack","operator":"In"}]}})") ==
        Lines{"V-P6 affinity.fieldSelector.matchExpressions[0].operator: Unsupported value: "
              "\"Exists\": supported values: \"In\", \"NotIn\""});
  // Only the first offending expression, its key before its operator.
  CHECK(field_selector(rules::kVP10, R"({"fieldSelector":{"matchExpressions":[
          {"key":"zone"},{"key":"rack","operator":"Gt"},{"key":"x"}]}})") ==
        Lines{"V-P10 affinity.fieldSelector.matchExpressions[1].key: Unsupported value: "
              "\"rack\": supported values: \"provider\", \"region\", \"zone\""});
  // Keys and operators that are not strings are the schema's; no selector, nothing.
  CHECK(
      field_selector(rules::kVP3, R"({"fieldSelector":{"matchExpressions":[{"key":1}]}})").empty());
  CHECK(field_selector(rules::kVP3, R"({"clusterNames":["a"]})").empty());
}

TEST_CASE("D-T1 common: every bad field-selector expression, key and operator") {
  Doc doc(R"({"fieldSelector":{"matchExpressions":[
          {"key":"zone","operator":"In"},{"key":"rack","operator":"Gt"},{"key":1,"operator":"In"},
          {"key":"region","operator":"Exists"}]}})");
  ErrorList errors;
  const FieldPath path = FieldPath::root("targetClusters");
  kpw::check_cluster_field_selector_all(rules::kDT1, rules::kDT1, doc.root(), path, errors);
  CHECK(lines(errors) ==
        Lines{"D-T1 targetClusters.fieldSelector.matchExpressions[1].key: Unsupported value: "
              "\"rack\": supported values: \"provider\", \"region\", \"zone\"",
              "D-T1 targetClusters.fieldSelector.matchExpressions[1].operator: Unsupported value: "
              "\"Gt\": supported values: \"In\", \"NotIn\"",
              "D-T1 targetClusters.fieldSelector.matchExpressions[3].operator: Unsupported value: "
              "\"Exists\": supported values: \"In\", \"NotIn\""});
}

TEST_CASE("V-P4 common: a label key is a qualified name, one error per problem") {
  Doc doc(R"({"ok":"example.com/Name","bad":"a/b/c","empty":"","num":3})");
  const FieldPath path = FieldPath::root("term");
  ErrorList errors;
  kpw::check_label_key(rules::kVP4, doc.root(), "ok", path, errors);
  kpw::check_label_key(rules::kVP4, doc.root(), "absent", path, errors);
  kpw::check_label_key(rules::kVP4, doc.root(), "num", path, errors);
  CHECK(errors.empty());
  kpw::check_label_key(rules::kVW1, doc.root(), "empty", path, errors);
  REQUIRE(errors.errors().size() == 2);  // "" is both empty and not of the form
  CHECK(errors.errors()[0].field == "term.empty");
  CHECK(errors.errors()[0].rule == rules::kVW1);
  kpw::check_label_key(rules::kVF5, doc.root(), "bad", path, errors);
  REQUIRE(errors.errors().size() == 3);
  CHECK(errors.errors()[2].field == "term.bad");
  CHECK(errors.errors()[2].value == "\"a/b/c\"");
}

TEST_CASE("common: a label map names the offending entry") {
  Doc doc(R"({"app":"web","example.com/tier":"","Bad Key":"x","ok":"a b","n":1,"gone":null})");
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  ErrorList errors;
  CHECK_FALSE(kpw::check_label_map(rules::kKM2, doc.root(), labels, errors));
  const Lines got = lines(errors);
  REQUIRE(got.size() == 3);
  CHECK(got[0].rfind("K-M2 metadata.labels[Bad Key]: Invalid value: \"Bad Key\": name part", 0) ==
        0);
  CHECK(got[1].rfind("K-M2 metadata.labels[ok]: Invalid value: \"a b\": a valid label must", 0) ==
        0);
  CHECK(got[2] == "K-M2 metadata.labels[n]: Invalid value: 1: must be of type string");
  Doc good(R"({"app":"web","example.com/Tier":"v1.2_3"})");
  ErrorList none;
  CHECK(kpw::check_label_map(rules::kKM2, good.root(), labels, none));
  CHECK(none.empty());
}

TEST_CASE("common: an annotation map: keys case-insensitive qualified names, 256 KiB in all") {
  const FieldPath path = FieldPath::root("annotations");
  Doc doc(R"({"Example.COM/Note":"any text at all","a b":"x","v":2})");
  ErrorList errors;
  CHECK_FALSE(kpw::check_annotation_map(rules::kKM3, doc.root(), path, errors));
  const Lines got = lines(errors);
  REQUIRE(got.size() == 2);
  CHECK(got[0].rfind("K-M3 annotations[a b]: Invalid value: \"a b\": name part", 0) == 0);
  CHECK(got[1] == "K-M3 annotations[v]: Invalid value: 2: must be of type string");
  // The same key as a label key: its prefix must be lower-case.
  ErrorList as_label;
  CHECK_FALSE(kpw::check_label_map(rules::kKM2, doc.root(), path, as_label));
  CHECK(lines(as_label)[0].rfind("K-M2 annotations[Example.COM/Note]: Invalid value", 0) == 0);

  const std::string big(kpw::kMaxAnnotationBytes, 'x');
  Doc large(R"({"a":")" + big + R"(","b":"c"})");
  ErrorList size;
  CHECK_FALSE(kpw::check_annotation_map(rules::kKM3, large.root(), path, size));
  CHECK(lines(size) == Lines{"K-M3 annotations: Too long: may not be more than 262144 bytes"});
}

TEST_CASE("common: a JSON pointer is empty or starts with a slash") {
  const FieldPath path = FieldPath::root("path");
  ErrorList errors;
  CHECK(kpw::check_json_pointer(rules::kSC1, "", path, errors));
  CHECK(kpw::check_json_pointer(rules::kSC1, "/", path, errors));
  CHECK(kpw::check_json_pointer(rules::kSC1, "/spec/replicas", path, errors));
  CHECK_FALSE(kpw::check_json_pointer(rules::kSC4, "spec/replicas", path, errors));
  CHECK(lines(errors) == Lines{"SC-4 path: Invalid value: \"spec/replicas\": JSON pointer must be "
                               "empty or start with a \"/\""});
}

TEST_CASE("V-P5 V-P9 V-S6 common: duplicates, each repeat or once per value") {
  const FieldPath list = FieldPath::root("list");
  ErrorList errors;
  Duplicates every(rules::kVP5);
  every.seed("own");
  const char* values[] = {"a", "b", "a", "own", "a"};
  for (std::size_t i = 0; i < 5; ++i) {
    const FieldPath item = list.index(i);
    CHECK(every.check(values[i], i, item, errors) == (i >= 2));
  }
  Duplicates once(rules::kVS6, Duplicates::Report::kOncePerValue);
  for (std::size_t i = 0; i < 5; ++i) {
    const FieldPath item = list.index(i + 10);
    once.check(values[i], i, item, errors);
  }
  CHECK(lines(errors) ==
        Lines{R"(V-P5 list[2]: Duplicate value: "a")", R"(V-P5 list[3]: Duplicate value: "own")",
              R"(V-P5 list[4]: Duplicate value: "a")", R"(V-S6 list[12]: Duplicate value: "a")"});
}

TEST_CASE("common: unique members of a list of objects") {
  Doc doc(R"([{"name":"x"},{"name":"y"},{"other":1},"s",{"name":"x"},{"name":2}])");
  const FieldPath list = FieldPath::root("targets");
  ErrorList errors;
  kpw::check_unique_member(rules::kS3, doc.root(), "name", list, errors);
  CHECK(lines(errors) == Lines{R"(S-3 targets[4].name: Duplicate value: "x")"});
}

TEST_CASE("common: duplicates are found in linear time", "[linear]") {
  std::string json = "[";
  for (int i = 0; i < 300000; ++i) {
    json += (i ? ",{\"name\":\"n" : "{\"name\":\"n") + std::to_string(i % 150000) + "\"}";
  }
  json += "]";
  Doc doc(json);
  const FieldPath list = FieldPath::root("targets");
  ErrorList errors;
  kpw::check_unique_member(rules::kS3, doc.root(), "name", list, errors);
  CHECK(errors.size() == 150000);
}
