// ClusterTaintPolicy rules T-1, T-2 (upstream, with upstream's TestValidatePolicyTaints cases),
// TS-1…TS-4 and D-T1 (docs/rules.md "ClusterTaintPolicy"), the flag, the order, ratcheting.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "admission/warnings.hpp"
#include "support.hpp"
#include "validators/cluster_taint_policy.hpp"

using kpw::StrictRules;
using kpw::test::Call;
using kpw::test::run;
using kpw::test::Verdict;
using Fields = std::vector<std::string>;

namespace {

constexpr std::string_view kForbidden =
    "Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be "
    "explicitly enabled by administrators through command-line flags";

std::string policy(std::string_view spec) {
  return R"({"apiVersion":"policy.karmada.io/v1alpha1","kind":"ClusterTaintPolicy",)"
         R"("metadata":{"name":"p"},"spec":)" +
         std::string(spec) + "}";
}

std::string taints(std::string_view items) {
  return policy(R"({"taints":[)" + std::string(items) + "]}");
}

Call with(StrictRules strict, bool allow_no_execute = false) {
  Call c = Call::cluster_scoped();
  c.settings.strict_rules = strict;
  c.settings.allow_no_execute_taint_policy = allow_no_execute;
  return c;
}

Verdict ctp(std::string_view object, const Call& call = with(StrictRules::kDeny)) {
  return run(&kpw::validate_cluster_taint_policy, object, call);
}

std::string duplicate(std::string_view field, std::string_view key, std::string_view effect) {
  return std::string(field) + ": Duplicate value: \"Duplicate taint with the same key(" +
         std::string(key) + ") and effect(" + std::string(effect) + ") is not allowed\"";
}

}  // namespace

TEST_CASE("T valid policy") {
  CHECK(ctp(taints(R"({"key":"k","effect":"NoSchedule"},{"key":"k","effect":"NoExecute"})"),
            with(StrictRules::kDeny, true))
            .allowed());
  CHECK(ctp(policy(R"({"targetClusters":{"clusterNames":["m1"],"fieldSelector":
          {"matchExpressions":[{"key":"region","operator":"In","values":["eu"]}]}},
          "addOnConditions":[{"conditionType":"Ready","operator":"In","statusValues":["False","Unknown"]}],
          "removeOnConditions":[{"conditionType":"Ready","operator":"NotIn","statusValues":["False"]}],
          "taints":[{"key":"example.com/not-ready","value":"yes","effect":"NoSchedule"}]})"))
            .allowed());
}

// Upstream's TestValidatePolicyTaints (5 cases), with upstream's verdicts: its effects
// PreferNoSchedule and SelectiveNoSchedule are D-T1 violations, so strict rules are off.
TEST_CASE("T-2 upstream TestValidatePolicyTaints: non-repeating key-value pairs") {
  CHECK(
      ctp(taints(
              R"({"key":"key1","effect":"NoSchedule"},{"key":"key2","effect":"PreferNoSchedule"})"),
          with(StrictRules::kOff, true))
          .allowed());
}

TEST_CASE("T-2 upstream TestValidatePolicyTaints: there are duplicate key-value pairs") {
  const Verdict v = ctp(
      taints(
          R"({"key":"key1","effect":"NoSchedule"},{"key":"key1","effect":"NoSchedule","value":"value1"})"),
      with(StrictRules::kOff, true));
  CHECK(v.message == duplicate("spec.taints[0]", "key1", "NoSchedule"));
}

TEST_CASE("T-2 upstream TestValidatePolicyTaints: some duplicate key-value pairs") {
  const Verdict v = ctp(taints(R"({"key":"key1","effect":"NoSchedule"},
      {"key":"key2","effect":"PreferNoSchedule"},{"key":"key1","effect":"NoSchedule"})"),
                        with(StrictRules::kOff, true));
  CHECK(v.message == duplicate("spec.taints[0]", "key1", "NoSchedule"));
}

TEST_CASE("T-2 upstream TestValidatePolicyTaints: multi duplicate key-value pairs") {
  const Verdict v = ctp(taints(R"({"key":"key1","effect":"NoSchedule"},
      {"key":"key2","effect":"SelectiveNoSchedule","value":"value1"},{"key":"key1","effect":"NoSchedule"},
      {"key":"key3","effect":"NoExecute"},{"key":"key2","effect":"SelectiveNoSchedule"})"),
                        with(StrictRules::kOff, true));
  CHECK(v.message == "[" + duplicate("spec.taints[0]", "key1", "NoSchedule") + ", " +
                         duplicate("spec.taints[1]", "key2", "SelectiveNoSchedule") + "]");
}

TEST_CASE("T-1 upstream TestValidatePolicyTaints: NoExecute effect is not allowed") {
  const Verdict v = ctp(taints(R"({"key":"key1","effect":"NoExecute"})"));
  CHECK(v.message == "spec.taints[0]: " + std::string(kForbidden));
  CHECK(v.errors.at(0).rule == kpw::rules::kT1);
}

TEST_CASE("T-1 the flag allows NoExecute; exact effect only") {
  const std::string no_execute =
      taints(R"({"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoExecute"})");
  CHECK(ctp(no_execute).fields() == Fields{"spec.taints[1]"});
  CHECK(ctp(no_execute, with(StrictRules::kDeny, true)).allowed());
  // T-1 is upstream's: --strict-rules=off does not lift it.
  CHECK(ctp(no_execute, with(StrictRules::kOff)).fields() == Fields{"spec.taints[1]"});
  // `noexecute` is not NoExecute: T-1 passes it (D-T1 does not).
  const std::string lower = taints(R"({"key":"a","effect":"noexecute"})");
  CHECK(ctp(lower, with(StrictRules::kOff)).allowed());
  CHECK(ctp(lower).errors.at(0).rule == kpw::rules::kDT1);
}

TEST_CASE("T-2 every occurrence but the last of each key and effect") {
  const Verdict three = ctp(taints(R"({"key":"k","effect":"NoSchedule"},
      {"key":"k","effect":"NoSchedule"},{"key":"k","effect":"NoSchedule","value":"v"})"));
  CHECK(three.message == "[" + duplicate("spec.taints[0]", "k", "NoSchedule") + ", " +
                             duplicate("spec.taints[1]", "k", "NoSchedule") + "]");
  // A different effect, or only the value the same: no duplicate.
  CHECK(ctp(taints(R"({"key":"k","effect":"NoSchedule"},{"key":"k","effect":"NoExecute"})"),
            with(StrictRules::kDeny, true))
            .allowed());
  CHECK(
      ctp(taints(
              R"({"key":"a","value":"v","effect":"NoSchedule"},{"key":"b","value":"v","effect":"NoSchedule"})"))
          .allowed());
  // Interleaved groups: a b a b a -> 0 (a), 1 (b), 2 (a).
  CHECK(ctp(taints(R"({"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoSchedule"},
      {"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoSchedule"},{"key":"a","effect":"NoSchedule"})"))
            .fields() == Fields{"spec.taints[0]", "spec.taints[1]", "spec.taints[2]"});
}

TEST_CASE("T-2 key and effect inserted raw, the sentence quoted; null taints are zero taints") {
  CHECK(
      ctp(taints(R"({"key":"a\"<b","effect":"NoSchedule"},{"key":"a\"<b","effect":"NoSchedule"})"),
          with(StrictRules::kOff))
          .message ==
      R"(spec.taints[0]: Duplicate value: "Duplicate taint with the same key(a\"<b) and effect(NoSchedule) is not allowed")");
  const Verdict nulls = ctp(taints("null,null"), with(StrictRules::kOff));
  CHECK(nulls.message == duplicate("spec.taints[0]", "", ""));
  // Strict: the schema adds that a taint is an object (the API server refuses a null item).
  const Verdict strict = ctp(taints("null,null"));
  CHECK(strict.fields() == Fields{"spec.taints[0]", "spec.taints[0]", "spec.taints[1]"});
  CHECK(strict.errors.at(1).text() ==
        "spec.taints[0]: Invalid value: null: must be of type object");
  CHECK(strict.errors.at(1).rule == kpw::rules::kTS2);
}

TEST_CASE("T-1 T-2 order: per taint T-1 then T-2, then the strict rules") {
  const Verdict v = ctp(taints(R"({"key":"k","effect":"NoExecute"},{"key":"k","effect":"NoExecute"},
      {"key":"Bad Key","effect":"NoSchedule"})"));
  CHECK(v.fields() ==
        Fields{"spec.taints[0]", "spec.taints[0]", "spec.taints[1]", "spec.taints[2].key"});
  CHECK(v.errors.at(0).text() == "spec.taints[0]: " + std::string(kForbidden));
  CHECK(v.errors.at(1).text() == duplicate("spec.taints[0]", "k", "NoExecute"));
  CHECK(v.errors.at(2).rule == kpw::rules::kT1);
  CHECK(v.errors.at(3).rule == kpw::rules::kDT1);
}

TEST_CASE("T-2 linear in the number of taints", "[linear]") {
  std::string items;
  for (int i = 0; i < 200000; ++i) {
    if (i) items += ",";
    items += R"({"key":"k)" + std::to_string(i % 100000) + R"(","effect":"NoSchedule"})";
  }
  CHECK(ctp(taints(items)).errors.size() == 100);  // 100000 reported, the first 100 shown
  std::string same;
  for (int i = 0; i < 200000; ++i)
    same += i ? R"(,{"key":"k","effect":"NoSchedule"})" : R"({"key":"k","effect":"NoSchedule"})";
  CHECK(ctp(taints(same)).errors.size() == 100);  // 199999 reported, the first 100 shown
}

TEST_CASE("TS-1 spec is required and an object") {
  const Verdict none = ctp(R"({"kind":"ClusterTaintPolicy","metadata":{"name":"p"}})");
  CHECK(none.message == "spec: Required value");
  CHECK(none.errors.at(0).rule == kpw::rules::kTS1);
  CHECK(ctp(policy("null")).fields() == Fields{"spec"});
  CHECK(ctp(policy(R"("x")")).message == R"(spec: Invalid value: "x": must be of type object)");
  // Upstream decodes a missing spec to the zero spec and allows it.
  CHECK(ctp(R"({"kind":"ClusterTaintPolicy"})", with(StrictRules::kOff)).allowed());
}

TEST_CASE("TS-2 taints: required, at least one, each with key and effect") {
  CHECK(ctp(policy("{}")).message == "spec.taints: Required value");
  CHECK(ctp(policy(R"({"taints":[]})")).message ==
        "spec.taints: Required value: must have at least 1 item");
  CHECK(ctp(policy(R"({"taints":{}})")).message ==
        "spec.taints: Invalid value: {...}: must be of type array");
  // Taints 0 and 1 read as zero taints for T-2 (a null item is one upstream), so T-2 comes first.
  const Verdict v = ctp(taints(R"({"value":"v"},"x",{"key":1,"effect":"NoSchedule"})"));
  CHECK(v.fields() == Fields{"spec.taints[0]", "spec.taints[0].key", "spec.taints[0].effect",
                             "spec.taints[1]", "spec.taints[2].key"});
  CHECK(v.errors.at(0).rule == kpw::rules::kT2);
  for (std::size_t i = 1; i < v.errors.size(); ++i) CHECK(v.errors[i].rule == kpw::rules::kTS2);
  CHECK(ctp(policy(R"({"taints":[]})"), with(StrictRules::kOff)).allowed());
}

TEST_CASE("TS-3 conditions: conditionType, operator and statusValues required") {
  const Verdict v = ctp(policy(R"({"addOnConditions":[{}],"removeOnConditions":[
      {"conditionType":"Ready","operator":"In","statusValues":"True"}],
      "taints":[{"key":"k","effect":"NoSchedule"}]})"));
  CHECK(v.fields() ==
        Fields{"spec.addOnConditions[0].conditionType", "spec.addOnConditions[0].operator",
               "spec.addOnConditions[0].statusValues", "spec.removeOnConditions[0].statusValues"});
  for (const kpw::FieldError& e : v.errors) CHECK(e.rule == kpw::rules::kTS3);
}

TEST_CASE("TS-4 targetClusters: a cluster affinity, expressions with key and operator") {
  const Verdict v = ctp(policy(R"({"targetClusters":{"clusterNames":"m1",
      "labelSelector":{"matchExpressions":[{"values":["a"]}]},
      "fieldSelector":{"matchExpressions":[{"key":"zone"}]}},
      "taints":[{"key":"k","effect":"NoSchedule"}]})"));
  CHECK(v.fields() == Fields{"spec.targetClusters.clusterNames",
                             "spec.targetClusters.labelSelector.matchExpressions[0].key",
                             "spec.targetClusters.labelSelector.matchExpressions[0].operator",
                             "spec.targetClusters.fieldSelector.matchExpressions[0].operator"});
  for (const kpw::FieldError& e : v.errors) CHECK(e.rule == kpw::rules::kTS4);
  CHECK(ctp(policy(R"({"targetClusters":[],"taints":[{"key":"k","effect":"NoSchedule"}]})"))
            .fields() == Fields{"spec.targetClusters"});
}

TEST_CASE("D-T1 taint effect, key and value as Cluster objects take them") {
  const Verdict v = ctp(taints(R"({"key":"k","effect":"PreferNoSchedule"},
      {"key":"Example.com/x","effect":"NoSchedule"},{"key":"k2","value":"not ok!","effect":"NoSchedule"},
      {"key":"","effect":"NoSchedule"})"));
  CHECK(v.fields() == Fields{"spec.taints[0].effect", "spec.taints[1].key", "spec.taints[2].value",
                             "spec.taints[3].key", "spec.taints[3].key"});
  CHECK(
      v.errors.at(0).text() ==
      R"(spec.taints[0].effect: Unsupported value: "PreferNoSchedule": supported values: "NoSchedule", "NoExecute")");
  for (const kpw::FieldError& e : v.errors) CHECK(e.rule == kpw::rules::kDT1);
  CHECK(
      ctp(taints(R"({"key":"k","effect":"PreferNoSchedule"})"), with(StrictRules::kOff)).allowed());
}

TEST_CASE("D-T1 condition operator and statusValues") {
  const Verdict v = ctp(policy(R"({"addOnConditions":[
      {"conditionType":"Ready","operator":"Foo","statusValues":["True","Maybe"]}],
      "taints":[{"key":"k","effect":"NoSchedule"}]})"));
  CHECK(v.fields() ==
        Fields{"spec.addOnConditions[0].operator", "spec.addOnConditions[0].statusValues[1]"});
  CHECK(
      v.errors.at(1).text() ==
      R"(spec.addOnConditions[0].statusValues[1]: Unsupported value: "Maybe": supported values: "True", "False", "Unknown")");
  for (const kpw::FieldError& e : v.errors) CHECK(e.rule == kpw::rules::kDT1);
}

TEST_CASE("D-T1 every bad field-selector expression, after the schema walk") {
  const Verdict v = ctp(policy(R"({"taints":[{"key":"k","effect":"Typo"}],
      "targetClusters":{"fieldSelector":{"matchExpressions":[{"key":"rack","operator":"In"},
      {"key":"zone","operator":"Exists"}]}}})"));
  CHECK(v.fields() == Fields{"spec.taints[0].effect",
                             "spec.targetClusters.fieldSelector.matchExpressions[0].key",
                             "spec.targetClusters.fieldSelector.matchExpressions[1].operator"});
}

TEST_CASE("D-T1 ratcheted with a long error text: the warning keeps its rule ID and reason") {
  // Upstream stores a taint key such as "bad key!": the qualified-name text alone is ~240 bytes,
  // and a warning is cut to 256 (what the API server shows). The cut goes in the error text, so
  // that the rule ID and why it was allowed still end the warning.
  const std::string stored = taints(R"({"key":"bad key!","effect":"NoSchedule"})");
  const Verdict v = ctp(stored, Call::update_of(stored, ""));
  CHECK(v.allowed());
  REQUIRE(v.warnings.size() == 1);
  const std::string& w = v.warnings[0];
  CHECK(w.size() <= kpw::Warnings::kMaxEachBytes);
  CHECK(w.rfind(R"(spec.taints[0].key: Invalid value: "bad key!": name part must consist)", 0) ==
        0);
  const std::string tail = "... [D-T1]; allowed because it is unchanged: fix it at its next change";
  CHECK(w.size() >= tail.size());
  CHECK(w.compare(w.size() - tail.size(), tail.size(), tail) == 0);
  // The same with --strict-rules=warn on CREATE.
  const Verdict warned = ctp(stored, with(StrictRules::kWarn));
  REQUIRE(warned.warnings.size() == 1);
  CHECK(warned.warnings[0].size() <= kpw::Warnings::kMaxEachBytes);
  CHECK(warned.warned("... [D-T1]; allowed by --strict-rules=warn"));
}

TEST_CASE("D-T1 ratchets on UPDATE; T-1 does not (B-12)") {
  const std::string old_policy = taints(R"({"key":"k","effect":"PreferNoSchedule"})");
  Call update = Call::update_of(old_policy, "");
  // Unchanged strict violation: allowed with a warning.
  const Verdict same = ctp(old_policy, update);
  CHECK(same.allowed());
  CHECK(same.warned("[D-T1]; allowed because it is unchanged"));
  // Changed: denied.
  CHECK_FALSE(ctp(taints(R"({"key":"k","effect":"Typo"})"), update).allowed());
  // A NoExecute policy admitted while the flag was on: any UPDATE is denied once it is off.
  const std::string no_execute = taints(R"({"key":"k","effect":"NoExecute"})");
  CHECK(ctp(no_execute, Call::update_of(no_execute, "")).fields() == Fields{"spec.taints[0]"});
}

TEST_CASE("D-T1 ratcheting a key of 300 bytes: the warning cuts the key, not its ending") {
  const std::string key(300, 'k');
  const std::string old_policy = taints(R"({"key":")" + key + R"(","effect":"NoSchedule"})");
  const Verdict same = ctp(old_policy, Call::update_of(old_policy, ""));
  CHECK(same.allowed());
  REQUIRE(same.warnings.size() == 1);
  const std::string& w = same.warnings[0];
  CHECK(w.size() <= kpw::Warnings::kMaxEachBytes);
  CHECK(w.find(R"(spec.taints[0].key: Invalid value: "kkk)") == 0);
  const std::string ending =
      R"(k"... (300 bytes): name part must be no more than 63 bytes [D-T1]; allowed because it )"
      "is unchanged: fix it at its next change";
  CHECK(w.size() >= ending.size());
  CHECK(w.substr(w.size() - std::min(w.size(), ending.size())) == ending);
}
