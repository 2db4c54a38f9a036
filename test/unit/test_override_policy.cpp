// OverridePolicy / ClusterOverridePolicy rules (docs/rules.md "OverridePolicy and
// ClusterOverridePolicy"): upstream's O-1…O-21 and CO-1, our D-O1…D-O4 and the schema OS-1…OS-5,
// the values rendered as upstream's Go structs, and the OP mutator (OM-1, the round trip).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "mutators/override_policy.hpp"
#include "support.hpp"
#include "validators/common.hpp"
#include "validators/override_policy.hpp"
#include "validators/override_policy_schema.hpp"

using kpw::test::Call;
using kpw::test::mutate;
using kpw::test::run;
using kpw::test::Verdict;
using Fields = std::vector<std::string>;

namespace {

constexpr std::string_view kSelector =
    R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"})";

Verdict op(std::string_view spec, const Call& call = {}) {
  return run(
      &kpw::validate_override_policy,
      R"({"kind":"OverridePolicy","metadata":{"name":"o"},"spec":)" + std::string(spec) + "}",
      call);
}

Verdict cop(std::string_view spec, const Call& call = Call::cluster_scoped()) {
  return run(&kpw::validate_cluster_override_policy,
             R"({"kind":"ClusterOverridePolicy","metadata":{"name":"o"},"spec":)" +
                 std::string(spec) + "}",
             call);
}

// A spec with one override rule holding `overriders`.
std::string rule(std::string_view overriders) {
  return R"({"resourceSelectors":[)" + std::string(kSelector) +
         R"(],"overrideRules":[{"targetCluster":{"clusterNames":["m1"]},"overriders":)" +
         std::string(overriders) + "}]}";
}

const std::string kPrefix = "spec.overrideRules[0].overriders.";

}  // namespace

TEST_CASE("O valid OverridePolicy and ClusterOverridePolicy") {
  const std::string spec =
      rule(R"({"plaintext":[{"path":"/spec/replicas","operator":"replace","value":2}]})");
  CHECK(op(spec).allowed());
  CHECK(cop(spec).allowed());
  CHECK(op("{}").allowed());
}

TEST_CASE("O-1 O-2 every bad expression of spec.targetCluster, key before operator") {
  const Verdict v = op(
      R"({"targetCluster":{"fieldSelector":{"matchExpressions":[{"key":"region","operator":"In"},{"key":"foo","operator":"Bad"},{"key":"zone","operator":"Exists"}]}}})");
  CHECK(v.fields() == Fields{"spec.targetCluster.fieldSelector.matchExpressions[1].key",
                             "spec.targetCluster.fieldSelector.matchExpressions[1].operator",
                             "spec.targetCluster.fieldSelector.matchExpressions[2].operator"});
  CHECK(v.errors[0].rule == kpw::rules::kO1);
  CHECK(v.errors[1].rule == kpw::rules::kO2);
}

TEST_CASE("O-3 overrideRules and targetCluster: [] counts, null does not; the value as upstream") {
  const Verdict v = op(
      R"({"overrideRules":[],"targetCluster":{"clusterNames":["m1"],"fieldSelector":{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}}})");
  REQUIRE(v.fields() == Fields{"spec.targetCluster"});
  CHECK(
      v.message ==
      R"(spec.targetCluster: Invalid value: {"fieldSelector":{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]},"clusterNames":["m1"]}: overrideRules and targetCluster can't co-exist)");
  CHECK(op(R"({"overrideRules":null,"targetCluster":{}})").allowed());
  CHECK(op(R"({"overrideRules":[],"targetCluster":{}})").message ==
        "spec.targetCluster: Invalid value: {}: overrideRules and targetCluster can't co-exist");
}

TEST_CASE(
    "O-4 legacy overriders beside overrideRules; fieldOverrider and empty lists do not count") {
  const Verdict v = op(
      R"({"overrideRules":[],"overriders":{"imageOverrider":[{"component":"Tag","operator":"add","value":"<1>"}],"plaintext":[{"path":"/a","operator":"remove"}]}})");
  CHECK(
      v.message ==
      R"(spec.overriders: Invalid value: {"plaintext":[{"path":"/a","operator":"remove","value":null}],"imageOverrider":[{"component":"Tag","operator":"add","value":"\u003c1\u003e"}]}: overrideRules and overriders can't co-exist)");
  CHECK(op(R"({"overrideRules":[],"overriders":{"plaintext":[],"labelsOverrider":[]}})").allowed());
}

TEST_CASE("D-O1 a legacy fieldOverrider beside overrideRules") {
  const Verdict v = op(
      R"({"overrideRules":[],"overriders":{"fieldOverrider":[{"fieldPath":"/a","yaml":[{"subPath":"/b","operator":"remove"}]}]}})");
  REQUIRE(v.fields() == Fields{"spec.overriders.fieldOverrider"});
  CHECK(v.errors[0].rule == kpw::rules::kDO1);
}

TEST_CASE("O-5 O-6 annotations: keys lower-cased, sorted, the total size") {
  const Verdict v = op(rule(
      R"({"annotationsOverrider":[{"operator":"add","value":{"z~":"v","EXAMPLE.com/x":"v","a~":"v"}}]})"));
  CHECK(v.fields() == Fields{kPrefix + "annotationsOverrider[0].value[a~]",
                             kPrefix + "annotationsOverrider[0].value[z~]"});
  CHECK(v.errors[0].rule == kpw::rules::kO5);
  const Verdict big = op(rule(R"({"annotationsOverrider":[{"operator":"add","value":{"k":")" +
                              std::string(262144, 'x') + R"("}}]})"));
  REQUIRE(big.fields() == Fields{kPrefix + "annotationsOverrider[0].value"});
  CHECK(big.errors[0].rule == kpw::rules::kO6);
}

TEST_CASE("O-7 O-8 labels: the key's error before its value's, keys sorted") {
  const Verdict v =
      op(rule(R"({"labelsOverrider":[{"operator":"add","value":{"b":"bad value!","A_":"x"}}]})"));
  REQUIRE(v.fields() == Fields{kPrefix + "labelsOverrider[0].value[A_]",
                               kPrefix + "labelsOverrider[0].value[b]"});
  CHECK(v.errors[0].rule == kpw::rules::kO7);
  CHECK(v.errors[1].rule == kpw::rules::kO8);
  CHECK(op(rule(R"({"labelsOverrider":[{"operator":"add","value":{"a":""}}]})")).allowed());
}

TEST_CASE("O-9 predicate path") {
  const Verdict v = op(rule(
      R"({"imageOverrider":[{"predicate":{"path":"a"},"component":"Tag","operator":"remove"}]})"));
  CHECK(v.fields() == Fields{kPrefix + "imageOverrider[0].predicate.path"});
  CHECK(
      op(rule(
             R"({"imageOverrider":[{"predicate":{"path":""},"component":"Tag","operator":"remove"}]})"))
          .allowed());
}

TEST_CASE("O-10 … O-18 field overriders, in upstream's order") {
  const Verdict v = op(rule(
      R"({"fieldOverrider":[{"fieldPath":"/d","json":[{"subPath":"a","operator":"add"}],"yaml":[{"subPath":"b","operator":"remove","value":1}]},{"fieldPath":"d"}]})"));
  CHECK(v.fields() ==
        Fields{kPrefix + "fieldOverrider[0]", kPrefix + "fieldOverrider[0].json[0].subPath",
               kPrefix + "fieldOverrider[0].json[0].value",
               kPrefix + "fieldOverrider[0].yaml[0].subPath",
               kPrefix + "fieldOverrider[0].yaml[0].value", kPrefix + "fieldOverrider[1]",
               kPrefix + "fieldOverrider[1].fieldPath"});
  std::vector<kpw::Rule> rules;
  for (const kpw::FieldError& e : v.errors) rules.push_back(e.rule);
  CHECK(rules == std::vector<kpw::Rule>{kpw::rules::kO10, kpw::rules::kO13, kpw::rules::kO14,
                                        kpw::rules::kO16, kpw::rules::kO18, kpw::rules::kO11,
                                        kpw::rules::kO12});
  CHECK(
      op(rule(
             R"({"fieldOverrider":[{"fieldPath":"/d","json":[{"subPath":"/a","operator":"add","value":""}]}]})"))
          .allowed());
}

TEST_CASE("O-15 the forbidden value compact and HTML-escaped") {
  const Verdict v = op(rule(
      R"({"fieldOverrider":[{"fieldPath":"/d","json":[{"subPath":"/a","operator":"remove","value":{ "db" : "<new>" , "b":[ 1 , 2 ] }}]}]})"));
  CHECK(
      v.message ==
      kPrefix +
          R"(fieldOverrider[0].json[0].value: Invalid value: {"db":"\u003cnew\u003e","b":[1,2]}: value is not allowed for remove operation)");
}

TEST_CASE("O-19 O-20 an override rule's target cluster") {
  const Verdict v = op(
      R"({"overrideRules":[{"overriders":{}},{"targetCluster":{"fieldSelector":{"matchExpressions":[{"key":"Provider","operator":"Gt"}]}},"overriders":{}}]})");
  CHECK(v.fields() ==
        Fields{"spec.overrideRules[1].targetCluster.fieldSelector.matchExpressions[0].key",
               "spec.overrideRules[1].targetCluster.fieldSelector.matchExpressions[0].operator"});
  CHECK(v.errors[0].rule == kpw::rules::kO19);
  CHECK(v.errors[1].rule == kpw::rules::kO20);
}

TEST_CASE("O-21 CO-1 selectors keyed on request.namespace") {
  const std::string spec =
      R"({"resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns1"},{"apiVersion":"v1","kind":"ConfigMap","namespace":"other"},{"apiVersion":"v1","kind":"ConfigMap"}]})";
  const Verdict v = op(spec);
  CHECK(v.fields() ==
        Fields{"spec.resourceSelectors[1].namespace", "spec.resourceSelectors[2].namespace"});
  CHECK(v.errors[0].rule == kpw::rules::kO21);
  CHECK(op(spec, Call::cluster_scoped()).allowed());  // an OP review without a namespace
  CHECK(cop(spec).allowed());
  const Verdict c = cop(spec, Call{});  // a COP review that carries one
  REQUIRE_FALSE(c.allowed());
  CHECK(c.errors[0].rule == kpw::rules::kCO1);
}

TEST_CASE("D-O2 the legacy overriders' content") {
  const Verdict v = op(
      R"({"overriders":{"labelsOverrider":[{"operator":"add","value":{"a b":"v"}}],"imageOverrider":[{"predicate":{"path":"x"},"component":"Tag","operator":"remove"}]}})");
  CHECK(v.fields() == Fields{"spec.overriders.labelsOverrider[0].value[a b]",
                             "spec.overriders.imageOverrider[0].predicate.path"});
  for (const kpw::FieldError& e : v.errors) CHECK(e.rule == kpw::rules::kDO2);
}

TEST_CASE("D-O3 plaintext, image values, container names") {
  const Verdict v = op(rule(
      R"({"plaintext":[{"path":"","operator":"remove"},{"path":"a","operator":"add"}],"imageOverrider":[{"component":"Tag","operator":"replace","value":""}],"argsOverrider":[{"containerName":"","operator":"add"}]})"));
  CHECK(v.fields() == Fields{kPrefix + "imageOverrider[0].value", kPrefix + "plaintext[0].path",
                             kPrefix + "plaintext[1].path", kPrefix + "plaintext[1].value",
                             kPrefix + "argsOverrider[0].containerName"});
  for (const kpw::FieldError& e : v.errors) CHECK(e.rule == kpw::rules::kDO3);
}

TEST_CASE("D-O4 an empty fieldPath") {
  const Verdict v = op(rule(
      R"({"fieldOverrider":[{"fieldPath":"","yaml":[{"subPath":"/a","operator":"remove"}]}]})"));
  REQUIRE(v.fields() == Fields{kPrefix + "fieldOverrider[0].fieldPath"});
  CHECK(v.errors[0].rule == kpw::rules::kDO4);
  Call off;
  off.settings.strict_rules = kpw::StrictRules::kOff;
  CHECK(
      op(rule(
             R"({"fieldOverrider":[{"fieldPath":"","yaml":[{"subPath":"/a","operator":"remove"}]}]})"),
         off)
          .allowed());
}

TEST_CASE("OS-1 … OS-5 the CRD schema, never a crash on null or wrong types") {
  CHECK(run(&kpw::validate_override_policy, R"({"kind":"OverridePolicy"})").fields() ==
        Fields{"spec"});
  CHECK(op("null").fields() == Fields{"spec"});
  CHECK(op("[]").fields() == Fields{"spec"});
  const Verdict v = op(
      R"({"resourceSelectors":[null,{"kind":"x"}],"overrideRules":[null,{"targetCluster":{"fieldSelector":{"matchExpressions":[null]}}}],"targetCluster":"x","overriders":{"plaintext":[null],"fieldOverrider":[{"json":[null]}]}})",
      Call::cluster_scoped());
  CHECK_FALSE(v.allowed());
  for (const kpw::FieldError& e : v.errors) {
    INFO(e.field);
    // O-4 is upstream's too: a null plaintext item counts, as it does in Go.
    CHECK((kpw::is_strict(e.rule) || e.rule == kpw::rules::kO4));
  }
}

TEST_CASE("O warnings: plaintext and fieldOverrider paths overriding the identity") {
  const Verdict v = op(rule(
      R"({"plaintext":[{"path":"/metadata/name","operator":"replace","value":"x"},{"path":"/apiVersion","operator":"remove"}]})"));
  CHECK(v.allowed());
  CHECK(v.warnings.size() == 2);
  CHECK(v.warned("plaintext[0].path: \"/metadata/name\" overrides the resource's identity"));
}

TEST_CASE("O append_struct_json renders in Go field order with Go's zero values") {
  std::string text = R"({"yaml":[],"json":[{"value":{"a":"&"},"operator":"add"}]})";
  kpw::JsonArena arena;
  REQUIRE(arena.parse_in_place(text).ok);
  std::string out;
  kpw::schema::append_struct_json(out, kpw::field_overrider_fields(), arena.document());
  CHECK(out ==
        R"({"fieldPath":"","json":[{"subPath":"","operator":"add","value":{"a":"\u0026"}}]})");
}

TEST_CASE(
    "OM-1 a selector's namespace from request.namespace: add when absent, replace when empty") {
  const auto m = mutate(
      &kpw::mutate_override_policy,
      R"({"spec":{"resourceSelectors":[{"apiVersion":"v1","kind":"A"},{"apiVersion":"v1","kind":"B","namespace":""},{"apiVersion":"v1","kind":"C","namespace":"x"}]}})");
  REQUIRE(m.error.empty());
  CHECK(
      m.patch ==
      R"([{"op":"add","path":"/spec/resourceSelectors/0/namespace","value":"ns1"},{"op":"replace","path":"/spec/resourceSelectors/1/namespace","value":"ns1"}])");
  CHECK(m.string("/spec/resourceSelectors/2/namespace") == "x");
}

TEST_CASE("OM round trip: explicit empties removed, no artefacts, idempotent") {
  const auto m = mutate(
      &kpw::mutate_override_policy,
      R"({"spec":{"resourceSelectors":[],"overrideRules":[],"targetCluster":{"clusterNames":[]},"overriders":{"plaintext":[{"path":"/a","operator":"remove"}],"imageOverrider":[{"component":"Tag","operator":"remove","value":""}],"argsOverrider":[{"containerName":"c","operator":"add","value":[]}],"fieldOverrider":[]}}})");
  REQUIRE(m.error.empty());
  CHECK(
      m.patch ==
      R"([{"op":"remove","path":"/spec/targetCluster/clusterNames"},{"op":"remove","path":"/spec/overriders/imageOverrider/0/value"},{"op":"remove","path":"/spec/overriders/argsOverrider/0/value"},{"op":"remove","path":"/spec/overriders/fieldOverrider"},{"op":"remove","path":"/spec/resourceSelectors"},{"op":"remove","path":"/spec/overrideRules"}])");
  CHECK_FALSE(m.has("/spec/overriders/plaintext/0/value"));
  const auto again = mutate(&kpw::mutate_override_policy, kpw::test::text_of(m.doc));
  CHECK(again.patch.empty());
  CHECK(mutate(&kpw::mutate_override_policy, R"({"metadata":{}})").patch.empty());
  CHECK(mutate(&kpw::mutate_override_policy, R"({"spec":null})").patch.empty());
}

TEST_CASE("O rules and the OP mutator are linear in the object", "[linear]") {
  // 100 000 label entries (sorted, each breaking O-7), 50 000 field overriders each breaking O-10
  // and O-12 (each renders its own FieldOverrider), 10 000 selectors to fill (OM-1).
  std::string labels;
  for (int i = 0; i < 100000; ++i) {
    labels += (i == 0 ? "" : ",");
    labels += "\"K" + std::to_string(100000 - i) + "!\":\"v\"";
  }
  std::string fields;
  for (int i = 0; i < 50000; ++i) {
    fields += (i == 0 ? "" : ",");
    fields +=
        R"({"fieldPath":"x","json":[{"subPath":"/a","operator":"remove"}],"yaml":[{"subPath":"/b","operator":"remove"}]})";
  }
  const Verdict v = op(rule(R"({"labelsOverrider":[{"operator":"add","value":{)" + labels +
                            R"(}}],"fieldOverrider":[)" + fields + "]}"));
  CHECK_FALSE(v.allowed());
  std::string selectors;  // three ops each: well under JsonPatch::kMaxBytes
  for (int i = 0; i < 10000; ++i) {
    selectors += (i == 0 ? "" : ",");
    selectors +=
        R"({"apiVersion":"v1","kind":"ConfigMap","name":"","labelSelector":{"matchLabels":{}}})";
  }
  const auto m = mutate(&kpw::mutate_override_policy, R"({"spec":{"resourceSelectors":[)" +
                                                          selectors + R"(],"overrideRules":[]}})");
  CHECK(m.error.empty());
  CHECK(m.at("/spec/resourceSelectors/9999/namespace") == "ns1");
}
