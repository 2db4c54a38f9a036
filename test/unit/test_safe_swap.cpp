// Safe swap (docs/compatibility.md "End-to-end parity", "Rule classes", "Ratcheting"): the mutator
// normalises explicit empties as upstream's round trip stores them; strict rules ratchet on UPDATE,
// never deny an object being deleted, and follow --strict-rules; upstream rules always deny.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "admission/rules.hpp"
#include "check/metadata.hpp"
#include "mutators/propagation_policy.hpp"
#include "support.hpp"
#include "table/table.hpp"
#include "validators/propagation_policy.hpp"
#include "validators/propagation_policy_rules.hpp"

using kpw::test::Call;
using kpw::test::mutate;
using kpw::test::Mutation;
using kpw::test::run;
using kpw::test::text_of;

namespace {

std::string pp(std::string_view spec,
               std::string_view metadata = R"("name":"p","namespace":"ns1")") {
  return R"({"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy","metadata":{)" +
         std::string(metadata) + R"(},"spec":{)" + std::string(spec) + "}}";
}

constexpr std::string_view kSelector =
    R"("resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"}],"priority":0,"preemption":"Never","schedulerName":"default-scheduler","conflictResolution":"Abort")";

std::string with(std::string_view extra) {
  return std::string(kSelector) + "," + std::string(extra);
}

Mutation create(const std::string& object) {
  return mutate(&kpw::mutate_propagation_policy, object);
}

constexpr std::string_view kCppLabels =
    R"("name":"c","labels":{"clusterpropagationpolicy.karmada.io/permanent-id":"0b0c7e4e-5f3a-4b8e-9d7e-2f1a3c4d5e6f"})";

// A CPP that upstream admits and our D-R2 denies: preemption Always, a Deployment without
// namespace.
std::string preempting_cpp(std::string_view preemption = "Always",
                           std::string_view metadata = kCppLabels) {
  return R"({"apiVersion":"policy.karmada.io/v1alpha1","kind":"ClusterPropagationPolicy","metadata":{)" +
         std::string(metadata) +
         R"(},"spec":{"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}],"preemption":")" +
         std::string(preemption) + R"("}})";
}

kpw::test::Verdict validate_cpp(const std::string& object, Call call = Call::cluster_scoped()) {
  return run(&kpw::validate_cluster_propagation_policy, object, call);
}

Call cpp_update(const std::string& old_object, kpw::StrictRules mode = kpw::StrictRules::kDeny) {
  Call c = Call::update_of(old_object, "");
  c.settings.strict_rules = mode;
  return c;
}

}  // namespace

TEST_CASE("rules: every kind's rules, unique IDs, each with a class") {
  std::set<std::string_view> ids;
  for (const kpw::Rule r : kpw::all_rules()) {
    CHECK(ids.insert(r->id).second);  // two kinds never declare the same ID twice
    CHECK(kpw::find_rule(r->id) == r);
    CHECK_FALSE(r->summary.empty());
  }
  // Every rule a validating route lists is one all_rules() knows, and the K-* rules are there too.
  for (const kpw::Route& route : kpw::routes()) {
    // A conversion route reports no rule and mutates nothing.
    CHECK(route.rules.empty() == (route.mutating || route.takes == kpw::Takes::kConversionReview));
    for (const kpw::Rule r : route.rules) CHECK(kpw::find_rule(r->id) == r);
  }
  CHECK(kpw::find_rule("K-U1") == kpw::Rule(kpw::rules::kKU1));
  CHECK_FALSE(kpw::find_rule("V-P99"));
  CHECK(kpw::rules::kDR2.rule_class == kpw::RuleClass::kStrict);
  CHECK(kpw::rules::kVP1.rule_class == kpw::RuleClass::kUpstream);
  CHECK(kpw::rules::kSC3.rule_class == kpw::RuleClass::kStrict);
  CHECK(kpw::parse_strict_rules("warn") == kpw::StrictRules::kWarn);
  CHECK_FALSE(kpw::parse_strict_rules("Deny"));
}

TEST_CASE("parity: enums sent as \"\" get the CRD default they are stored as") {
  const Mutation m = create(pp(
      R"("resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"}],"priority":0,"preemption":"","schedulerName":"","conflictResolution":"","activationPreference":"")"));
  REQUIRE(m.error.empty());
  CHECK(m.string("/spec/preemption") == "Never");
  CHECK(m.string("/spec/schedulerName") == "default-scheduler");
  CHECK(m.string("/spec/conflictResolution") == "Abort");
  CHECK_FALSE(m.has("/spec/activationPreference"));
}

TEST_CASE("parity: zero values upstream's re-marshal drops are removed") {
  const Mutation m = create(pp(with(
      R"("association":false,"propagateDeps":false,"dependentOverrides":[],"placement":{"clusterAffinity":{"clusterNames":[],"exclude":[],"labelSelector":{"matchLabels":{},"matchExpressions":[]},"fieldSelector":{"matchExpressions":[]}},"clusterAffinities":[],"clusterTolerations":[{"key":"","operator":"","value":"","effect":"","tolerationSeconds":0}],"spreadConstraints":[{"spreadByLabel":"zone-label","spreadByField":"","maxGroups":0,"minGroups":0}]},"suspension":{"dispatchingOnClusters":{"clusterNames":[]}})")));
  REQUIRE(m.error.empty());
  for (const char* gone :
       {"/spec/association", "/spec/propagateDeps", "/spec/dependentOverrides",
        "/spec/placement/clusterAffinity/clusterNames", "/spec/placement/clusterAffinity/exclude",
        "/spec/placement/clusterAffinity/labelSelector/matchLabels",
        "/spec/placement/clusterAffinity/labelSelector/matchExpressions",
        "/spec/placement/clusterAffinity/fieldSelector/matchExpressions",
        "/spec/placement/clusterAffinities", "/spec/placement/clusterTolerations/0/key",
        "/spec/placement/clusterTolerations/0/effect",
        "/spec/placement/spreadConstraints/0/spreadByField",
        "/spec/placement/spreadConstraints/0/maxGroups",
        "/spec/suspension/dispatchingOnClusters/clusterNames"}) {
    INFO(gone);
    CHECK_FALSE(m.has(gone));
  }
  // Pointer fields keep their zero; `{}` of a pointer struct stays; M-2b gives minGroups 1.
  CHECK(m.integer("/spec/placement/clusterTolerations/0/tolerationSeconds") == 0);
  CHECK(m.has("/spec/placement/clusterAffinity/labelSelector"));
  CHECK(m.integer("/spec/placement/spreadConstraints/0/minGroups") == 1);
  CHECK(m.string("/spec/placement/spreadConstraints/0/spreadByLabel") == "zone-label");
  // And then the validator admits it (A1: the empty list no longer conflicts).
  CHECK(run(&kpw::validate_propagation_policy, text_of(m.doc)).allowed());
}

TEST_CASE("parity: the validator alone keeps upstream's validator-alone verdict (A1)") {
  const std::string object = pp(
      with(R"("placement":{"clusterAffinity":{},"clusterAffinities":[]})"),
      R"("name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"x"})");
  CHECK(run(&kpw::validate_propagation_policy, object).fields() ==
        std::vector<std::string>{"spec.placement.clusterAffinities"});
}

TEST_CASE("parity: overflowAffinities [] is dropped (A2) and a removed propagateDeps can be set") {
  const Mutation m = create(pp(
      R"("resourceSelectors":[{"apiVersion":"multicluster.x-k8s.io/v1alpha1","kind":"ServiceImport","namespace":"ns1","name":"s"}],"propagateDeps":false,"placement":{"clusterAffinities":[{"affinityName":"a","overflowAffinities":[]}]})"));
  REQUIRE(m.error.empty());
  CHECK_FALSE(m.has("/spec/placement/clusterAffinities/0/overflowAffinities"));
  CHECK(m.at("/spec/propagateDeps").IsTrue());
}

TEST_CASE("H1: replicaSchedulingType \"\" is stored as Divided with its Weighted") {
  const char* type = "/spec/placement/replicaScheduling/replicaSchedulingType";
  const char* pref = "/spec/placement/replicaScheduling/replicaDivisionPreference";
  const Mutation m =
      create(pp(with(R"("placement":{"replicaScheduling":{"replicaSchedulingType":""}})")));
  REQUIRE(m.error.empty());
  CHECK(m.string(type) == "Divided");
  CHECK(m.string(pref) == "Weighted");
  const Mutation duplicated = create(pp(with(
      R"("placement":{"replicaScheduling":{"replicaSchedulingType":"Duplicated","replicaDivisionPreference":"","weightPreference":{"dynamicWeight":"","staticWeightList":[]}}})")));
  REQUIRE(duplicated.error.empty());
  CHECK_FALSE(duplicated.has(pref));
  CHECK_FALSE(duplicated.has("/spec/placement/replicaScheduling/weightPreference/dynamicWeight"));
  CHECK_FALSE(
      duplicated.has("/spec/placement/replicaScheduling/weightPreference/staticWeightList"));
}

TEST_CASE("H7: purgeMode \"\" is judged as the Gracefully it becomes") {
  const Mutation m = create(pp(with(
      R"("propagateDeps":true,"failover":{"application":{"decisionConditions":{"tolerationSeconds":300},"purgeMode":""},"cluster":{"purgeMode":""}})")));
  REQUIRE(m.error.empty());
  CHECK(m.string("/spec/failover/application/purgeMode") == "Gracefully");
  CHECK(m.integer("/spec/failover/application/gracePeriodSeconds") == 600);
  CHECK(m.string("/spec/failover/cluster/purgeMode") == "Gracefully");
}

TEST_CASE("parity: CPP selectors drop an empty namespace and name; PP fills the namespace") {
  const std::string cpp =
      R"({"kind":"ClusterPropagationPolicy","metadata":{"name":"c"},"spec":{"resourceSelectors":[{"apiVersion":"v1","kind":"Namespace","namespace":"","name":""}]}})";
  const Mutation m = mutate(&kpw::mutate_cluster_propagation_policy, cpp, Call::cluster_scoped());
  REQUIRE(m.error.empty());
  CHECK_FALSE(m.has("/spec/resourceSelectors/0/namespace"));
  CHECK_FALSE(m.has("/spec/resourceSelectors/0/name"));
  const Mutation p = create(pp(
      R"("resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap","namespace":"","name":"","labelSelector":{"matchExpressions":[{"key":"a","operator":"Exists","values":[]}]}}])"));
  REQUIRE(p.error.empty());
  CHECK(p.string("/spec/resourceSelectors/0/namespace") == "ns1");
  CHECK_FALSE(p.has("/spec/resourceSelectors/0/labelSelector/matchExpressions/0/values"));
}

TEST_CASE("parity: a normalised object mutated again gives no patch") {
  const Mutation first = create(pp(
      R"("resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap","name":"c"}],"preemption":"","propagateDeps":false,"placement":{"clusterAffinities":[],"spreadConstraints":[{"minGroups":0,"maxGroups":0}],"replicaScheduling":{"replicaSchedulingType":""}})"));
  INFO(first.error);
  REQUIRE(first.error.empty());
  const std::string stored = text_of(first.doc);
  const Mutation again = mutate(&kpw::mutate_propagation_policy, stored, Call::update_of(stored));
  REQUIRE(again.error.empty());
  CHECK(again.patch.empty());
}

TEST_CASE("H8: schedulerName \"\" and default-scheduler are one name on UPDATE") {
  const std::string labels =
      R"("name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"x"})";
  const std::string stored_empty = pp(
      R"("resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns1","name":"c"}],"schedulerName":"")",
      labels);
  const std::string defaulted = pp(
      R"("resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns1","name":"c"}],"schedulerName":"default-scheduler")",
      labels);
  CHECK(run(&kpw::validate_propagation_policy, defaulted, Call::update_of(stored_empty)).allowed());
  CHECK(run(&kpw::validate_propagation_policy, stored_empty, Call::update_of(defaulted)).allowed());
  const std::string other = pp(
      R"("resourceSelectors":[{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns1","name":"c"}],"schedulerName":"mine")",
      labels);
  CHECK(run(&kpw::validate_propagation_policy, other, Call::update_of(defaulted)).fields() ==
        std::vector<std::string>{"spec.schedulerName"});
}

TEST_CASE("ratchet: a strict violation unchanged on UPDATE is allowed with a warning") {
  const std::string old_object = preempting_cpp();
  CHECK(validate_cpp(old_object).fields() ==
        std::vector<std::string>{"spec.resourceSelectors[0].namespace"});
  // A new label, the same spec: allowed, and told.
  const std::string relabelled = preempting_cpp(
      "Always",
      R"("name":"c","labels":{"clusterpropagationpolicy.karmada.io/permanent-id":"0b0c7e4e-5f3a-4b8e-9d7e-2f1a3c4d5e6f","team":"a"})");
  const kpw::test::Verdict v = validate_cpp(relabelled, cpp_update(old_object));
  CHECK(v.allowed());
  CHECK(v.warned("[D-R2]; allowed because it is unchanged: fix it at its next change"));
}

TEST_CASE("ratchet: a changed strict violation is denied") {
  // preemption Never -> Always makes D-R2 fire for a selector that did not change.
  const kpw::test::Verdict v =
      validate_cpp(preempting_cpp("Always"), cpp_update(preempting_cpp("Never")));
  CHECK(v.fields() == std::vector<std::string>{"spec.resourceSelectors[0].namespace"});
}

TEST_CASE("ratchet: an upstream-class violation is denied even when unchanged") {
  const std::string object = pp(
      with(R"("placement":{"clusterAffinity":{},"clusterAffinities":[{"affinityName":"a"}]})"),
      R"("name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"x"})");
  CHECK(run(&kpw::validate_propagation_policy, object, Call::update_of(object)).fields() ==
        std::vector<std::string>{"spec.placement.clusterAffinities"});
}

TEST_CASE("ratchet: an object being deleted is never denied by a strict rule") {
  const std::string old_object = preempting_cpp();
  // The controller removes its finalizer from an object already marked for deletion.
  const std::string deleting = preempting_cpp(
      "Always",
      R"("name":"c","deletionTimestamp":"2026-11-23T00:00:00Z","labels":{"clusterpropagationpolicy.karmada.io/permanent-id":"0b0c7e4e-5f3a-4b8e-9d7e-2f1a3c4d5e6f"})");
  const kpw::test::Verdict v = validate_cpp(deleting, cpp_update(old_object));
  CHECK(v.allowed());
  CHECK(v.warned("allowed because the object is being deleted"));
}

TEST_CASE("strict rules: warn allows with a warning and off allows silently") {
  Call warn = Call::cluster_scoped();
  warn.settings.strict_rules = kpw::StrictRules::kWarn;
  const kpw::test::Verdict w = validate_cpp(preempting_cpp(), warn);
  CHECK(w.allowed());
  CHECK(w.warned("[D-R2]; allowed by --strict-rules=warn"));
  Call off = Call::cluster_scoped();
  off.settings.strict_rules = kpw::StrictRules::kOff;
  const kpw::test::Verdict o = validate_cpp(preempting_cpp(), off);
  CHECK(o.allowed());
  CHECK_FALSE(o.warned("D-R2"));
  // Upstream rules deny whatever the mode.
  const std::string upstream_bad = pp(
      with(R"("placement":{"clusterAffinity":{},"clusterAffinities":[{"affinityName":"a"}]})"),
      R"("name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"x"})");
  Call pp_off;
  pp_off.settings.strict_rules = kpw::StrictRules::kOff;
  CHECK_FALSE(run(&kpw::validate_propagation_policy, upstream_bad, pp_off).allowed());
}

TEST_CASE("ratchet: schema rules ratchet per field") {
  const std::string labels =
      R"("name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"x"})";
  // SC-4: an enum value the CRD refuses, stored by another implementation.
  const std::string old_object = pp(with(R"("activationPreference":"Eager")"), labels);
  const std::string changed_elsewhere =
      pp(with(R"("activationPreference":"Eager","dependentOverrides":["o"])"), labels);
  const kpw::test::Verdict v =
      run(&kpw::validate_propagation_policy, changed_elsewhere, Call::update_of(old_object));
  CHECK(v.allowed());
  CHECK(v.warned("[SC-4]"));
  const std::string changed_value = pp(with(R"("activationPreference":"Later")"), labels);
  CHECK(
      run(&kpw::validate_propagation_policy, changed_value, Call::update_of(old_object)).fields() ==
      std::vector<std::string>{"spec.activationPreference"});
}

// A required field is absent from both objects, yet the object holding it is new: nothing was
// stored that way, so nothing ratchets (KEP-4008 judges a required field with its parent).
TEST_CASE("ratchet: a required field missing from a new element is denied on UPDATE") {
  const std::string labels =
      R"("name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"x"})";
  const std::string selectors =
      R"("priority":0,"preemption":"Never","schedulerName":"default-scheduler","conflictResolution":"Abort","resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"})";
  const std::string old_object = pp(selectors + "]", labels);
  // SC-3: the new second selector has no kind.
  const std::string added = pp(selectors + R"(,{"apiVersion":"v1","namespace":"ns1"}])", labels);
  CHECK(run(&kpw::validate_propagation_policy, added, Call::update_of(old_object)).fields() ==
        std::vector<std::string>{"spec.resourceSelectors[1].kind"});
  // Stored without it already, the selector unchanged, another field changed: ratcheted.
  const std::string changed_elsewhere = pp(
      selectors + R"(,{"apiVersion":"v1","namespace":"ns1"}],"dependentOverrides":["o"])", labels);
  const kpw::test::Verdict v =
      run(&kpw::validate_propagation_policy, changed_elsewhere, Call::update_of(added));
  CHECK(v.allowed());
  CHECK(v.warned("[SC-3]"));
}

// docs/compatibility.md's "Rule classes" table lists every rule of rules.cpp once, with its class.
TEST_CASE("rules: docs/compatibility.md lists every rule with its class") {
  std::ifstream in(std::string(KPW_SOURCE_DIR) + "/docs/compatibility.md");
  REQUIRE(in);
  std::string line;
  bool in_table = false;
  std::map<std::string, std::string> documented;  // ID -> class
  while (std::getline(in, line)) {
    if (line.rfind("| rule | class |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|", 0) != 0) break;
    if (line.rfind("|---", 0) == 0) continue;
    const std::size_t a = line.find('|', 1);
    const std::size_t b = line.find('|', a + 1);
    REQUIRE(b != std::string::npos);
    auto trim = [](std::string t) {
      t.erase(0, t.find_first_not_of(' '));
      t.erase(t.find_last_not_of(' ') + 1);
      return t;
    };
    const std::string id = trim(line.substr(1, a - 1));
    CHECK(documented.emplace(id, trim(line.substr(a + 1, b - a - 1))).second);
  }
  CHECK(documented.size() == kpw::all_rules().size());
  for (const kpw::Rule r : kpw::all_rules()) {
    INFO(r->id);
    REQUIRE(documented.count(std::string(r->id)) == 1);
    CHECK(documented[std::string(r->id)] == kpw::rule_class_name(r->rule_class));
  }
}

// check's null pruning: members at every depth, empty objects (no member array at all) left
// alone, list elements kept (UBSan caught an erase of an empty range in an empty object).
TEST_CASE("check: prune_nulls drops null members, keeps null elements and empty objects") {
  std::string text =
      R"({"a":null,"b":{},"c":{"d":null,"e":{"f":null}},"g":[null,{"h":null}],"i":1})";
  kpw::JsonArena arena;
  REQUIRE(arena.parse_in_place(text).ok);
  kpw::check::prune_nulls(arena.document());
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  arena.document().Accept(writer);
  CHECK(std::string(out.GetString()) == R"({"b":{},"c":{"e":{}},"g":[null,{}],"i":1})");
}

// K-M3 as the API server judges annotation keys: lower-cased first, so an upper-case prefix is
// fine (a label key's is not, K-M2).
TEST_CASE("check: K-M3 annotation keys are case-insensitive, K-M2 label keys are not") {
  std::string text =
      R"({"metadata":{"name":"p","annotations":{"Example.com/x":"1"},"labels":{"Example.com/x":"1"}}})";
  kpw::JsonArena arena;
  REQUIRE(arena.parse_in_place(text).ok);
  kpw::ErrorList errors;
  kpw::check::check_object_meta(arena.document(), errors);
  REQUIRE(errors.errors().size() == 1);
  CHECK(errors.errors()[0].rule == kpw::Rule(kpw::rules::kKM2));
  CHECK(errors.errors()[0].field == "metadata.labels[Example.com/x]");
}
