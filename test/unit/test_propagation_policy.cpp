// PropagationPolicy / ClusterPropagationPolicy rules, one case per rule ID (docs/compatibility.md:
// upstream's V- rules with their nil-versus-empty cases, the schema rules SC-; docs/rules.md: the
// D- rules). Paths and types as docs/compatibility.md lists them.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support.hpp"
#include "validators/propagation_policy.hpp"

using kpw::ErrorType;
using kpw::Operation;
using kpw::test::Call;
using kpw::test::run;
using kpw::test::Verdict;
using Fields = std::vector<std::string>;

namespace {

constexpr std::string_view kSelector =
    R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"})";

// `text` with the first `from` replaced by `to` (the case must contain `from`).
std::string edit(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

constexpr std::string_view kLabel = R"("propagationpolicy.karmada.io/permanent-id":"id-1")";

// A PP in ns1 with the permanent-id label and one selector, plus `extra` spec members.
std::string pp(std::string_view extra = "", std::string_view selectors = "") {
  std::string s =
      R"({"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy",)"
      R"("metadata":{"name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"id-1"}},)"
      R"("spec":{"resourceSelectors":[)";
  s += selectors.empty() ? kSelector : selectors;
  s += "]";
  if (!extra.empty()) {
    s += ",";
    s += extra;
  }
  s += "}}";
  return s;
}

std::string cpp(std::string_view extra = "", std::string_view selectors = "") {
  return edit(pp(extra, selectors), "\"propagationpolicy.karmada.io",
              "\"clusterpropagationpolicy.karmada.io");
}

Verdict validate(const std::string& object, const Call& call = {}) {
  return run(&kpw::validate_propagation_policy, object, call);
}
Verdict validate_cpp(const std::string& object) {
  return run(&kpw::validate_cluster_propagation_policy, object, Call::cluster_scoped());
}

std::string with_failover(std::string_view app, bool propagate_deps = true) {
  std::string s = propagate_deps ? R"("propagateDeps":true,)" : "";
  return pp(s + R"("failover":{"application":)" + std::string(app) + "}");
}

}  // namespace

TEST_CASE("C01 base policy is allowed") {
  const Verdict v = validate(pp(
      R"("priority":0,"preemption":"Never","schedulerName":"default-scheduler","conflictResolution":"Abort")"));
  CHECK(v.allowed());
  CHECK(v.warnings.empty());
}

// ---- V-U1, V-U2, V-L1 ----

TEST_CASE("V-U1 schedulerName change on UPDATE short-circuits everything else") {
  const std::string old_obj = pp(R"("schedulerName":"default-scheduler")");
  const Verdict v = validate(
      pp(R"("schedulerName":"other","placement":{"spreadConstraints":[{"spreadByField":"cluster","minGroups":-1}]})"),
      Call::update_of(old_obj));
  CHECK(v.fields() == Fields{"spec.schedulerName"});
  CHECK(v.errors[0].type == ErrorType::kInvalid);
  CHECK(v.message.find("\"other\"") != std::string::npos);
}

TEST_CASE("V-U1 removing schedulerName is a change, unless it was the default (H8)") {
  const std::string old_obj = pp(R"("schedulerName":"my-scheduler")");
  CHECK(validate(pp(), Call::update_of(old_obj)).fields() == Fields{"spec.schedulerName"});
  // Absent (or "") is what the CRD stores as default-scheduler: not a change.
  const std::string defaulted = pp(R"("schedulerName":"default-scheduler")");
  CHECK(validate(pp(), Call::update_of(defaulted)).allowed());
}

TEST_CASE("V-U2 permanent-id label changed or removed on UPDATE") {
  const std::string old_obj = pp();
  const std::string changed = edit(pp(), "id-1", "id-2");
  CHECK(validate(changed, Call::update_of(old_obj)).fields() ==
        Fields{"metadata.labels[propagationpolicy.karmada.io/permanent-id]"});
  const std::string removed = edit(pp(), kLabel, R"("other":"v")");
  const Verdict v = validate(removed, Call::update_of(old_obj));
  CHECK(v.fields() == Fields{"metadata.labels[propagationpolicy.karmada.io/permanent-id]"});
  CHECK(v.errors[0].value == "\"\"");  // C06: immutable, not required
}

TEST_CASE("V-U2 unchanged UPDATE is allowed") {
  const std::string obj = pp();
  CHECK(validate(obj, Call::update_of(obj)).allowed());
}

TEST_CASE("V-L1 permanent-id label is required on CREATE") {
  const Verdict v = validate(edit(pp(), kLabel, ""));
  CHECK(v.fields() == Fields{"metadata.labels[propagationpolicy.karmada.io/permanent-id]"});
  CHECK(v.errors[0].type == ErrorType::kRequired);
}

TEST_CASE("V-L1 an empty label value is present (C03)") {
  CHECK(validate(edit(pp(), "id-1", "")).allowed());
}

TEST_CASE("V-L1 CPP needs its own label key") {
  CHECK(validate_cpp(cpp()).allowed());
  const Verdict v = run(&kpw::validate_cluster_propagation_policy, pp(), Call::cluster_scoped());
  CHECK(v.fields() == Fields{"metadata.labels[clusterpropagationpolicy.karmada.io/permanent-id]"});
}

// ---- placement ----

TEST_CASE("V-P1 clusterAffinity with clusterAffinities - an empty list counts") {
  const Verdict v = validate(
      pp(R"("placement":{"clusterAffinity":{"clusterNames":["m1"]},"clusterAffinities":[]})"));
  CHECK(v.fields() == Fields{"spec.placement.clusterAffinities"});
  CHECK(v.errors[0].type == ErrorType::kForbidden);
  CHECK(
      validate(
          pp(R"("placement":{"clusterAffinity":{"clusterNames":["m1"]},"clusterAffinities":null})"))
          .allowed());
}

TEST_CASE("V-P2 overflow needs Divided Aggregated or dynamic weight") {
  const std::string term =
      R"({"affinityName":"p","clusterNames":["m1"],"overflowAffinities":[{"affinityName":"o","clusterNames":["m2"]}]})";
  const std::string base = R"("placement":{"clusterAffinities":[)" + term + "]";
  CHECK(validate(pp(base + "}")).fields() ==
        Fields{"spec.placement.clusterAffinities[0].overflowAffinities"});
  CHECK(
      validate(
          pp(base +
             R"(,"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Aggregated"}})"))
          .allowed());
  CHECK(
      validate(
          pp(base +
             R"(,"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Weighted","weightPreference":{"dynamicWeight":"AvailableReplicas"}}})"))
          .allowed());
  CHECK_FALSE(
      validate(
          pp(base +
             R"(,"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Weighted","weightPreference":{"staticWeightList":[]}}})"))
          .allowed());
  CHECK_FALSE(validate(pp(base + R"(,"replicaScheduling":{"replicaSchedulingType":"Duplicated"}})"))
                  .allowed());
}

TEST_CASE("V-P3 fieldSelector keys and operators - first offender only") {
  auto fs = [](std::string_view exprs) {
    return pp(R"("placement":{"clusterAffinity":{"fieldSelector":{"matchExpressions":)" +
              std::string(exprs) + "}}}");
  };
  CHECK(validate(fs(R"([{"key":"Region","operator":"In","values":["x"]}])")).fields() ==
        Fields{"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key"});
  const Verdict two =
      validate(fs(R"([{"key":"foo","operator":"In"},{"key":"bar","operator":"Gt"}])"));
  CHECK(two.fields() ==
        Fields{"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key"});
  CHECK(two.errors[0].type == ErrorType::kNotSupported);
  CHECK(validate(fs(R"([{"key":"zone","operator":"Exists"}])")).fields() ==
        Fields{"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].operator"});
  CHECK(validate(fs(R"([{"key":"provider","operator":"NotIn","values":[]}])")).allowed());
  CHECK(validate(fs("[]")).allowed());
}

TEST_CASE("V-P4 affinityName must be a label key") {
  auto named = [](std::string_view name) {
    return pp(R"("placement":{"clusterAffinities":[{"affinityName":")" + std::string(name) +
              R"(","clusterNames":["m1"]}]})");
  };
  const std::string path = "spec.placement.clusterAffinities[0].affinityName";
  CHECK(validate(named("group 1")).fields() == Fields{path});
  CHECK(validate(named("GroupA")).allowed());
  CHECK(validate(named("Example.com/g")).fields() == Fields{path});
  CHECK(validate(named("a/b/c")).fields() == Fields{path});
  CHECK(validate(named("example.com/g")).allowed());
  // "" : SC-5 length plus V-P4's two problems (C15).
  CHECK(validate(named("")).errors.size() == 3);
}

TEST_CASE("V-P5 duplicate affinityName is reported on each repeat") {
  const Verdict v = validate(pp(
      R"("placement":{"clusterAffinities":[{"affinityName":"g1"},{"affinityName":"g1"},{"affinityName":"g1"}]})"));
  CHECK(v.fields() == Fields{"spec.placement.clusterAffinities[1].affinityName",
                             "spec.placement.clusterAffinities[2].affinityName"});
  CHECK(v.errors[0].type == ErrorType::kDuplicate);
  CHECK(
      validate(
          pp(R"("placement":{"clusterAffinities":[{"affinityName":"g1"},{"affinityName":"G1"}]})"))
          .allowed());
}

TEST_CASE("V-P6 fieldSelector rule applies to each term") {
  const Verdict v = validate(pp(
      R"("placement":{"clusterAffinities":[{"affinityName":"a"},{"affinityName":"b","fieldSelector":{"matchExpressions":[{"key":"rack","operator":"In"}]}}]})"));
  CHECK(v.fields() ==
        Fields{"spec.placement.clusterAffinities[1].fieldSelector.matchExpressions[0].key"});
}

TEST_CASE(
    "V-P7 overflow needs the term's own affinity - labelSelector {} counts and clusterNames [] "
    "does not") {
  const std::string rs =
      R"(,"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Aggregated"})";
  auto term = [&](std::string_view inline_affinity) {
    return pp(R"("placement":{"clusterAffinities":[{"affinityName":"p")" +
              std::string(inline_affinity) +
              R"(,"overflowAffinities":[{"affinityName":"o","clusterNames":["m2"]}]}])" + rs + "}");
  };
  const Fields overflow{"spec.placement.clusterAffinities[0].overflowAffinities"};
  CHECK(validate(term("")).fields() == overflow);
  CHECK(validate(term(R"(,"clusterNames":[])")).fields() == overflow);
  CHECK(validate(term(R"(,"labelSelector":{})")).allowed());
  CHECK(validate(term(R"(,"exclude":["m3"])")).allowed());
}

TEST_CASE("V-P8 V-P9 V-P10 overflow names and selectors") {
  const std::string rs =
      R"(,"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Aggregated"})";
  auto overflows = [&](std::string_view list) {
    return pp(
        R"("placement":{"clusterAffinities":[{"affinityName":"p","clusterNames":["m1"],"overflowAffinities":)" +
        std::string(list) + "}]" + rs + "}");
  };
  CHECK(validate(overflows(R"([{"affinityName":"bad name"}])")).fields() ==
        Fields{"spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName"});
  const Verdict same_as_primary = validate(overflows(R"([{"affinityName":"p"}])"));
  CHECK(same_as_primary.fields() ==
        Fields{"spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName"});
  CHECK(same_as_primary.errors[0].type == ErrorType::kDuplicate);
  CHECK(validate(overflows(R"([{"affinityName":"o"},{"affinityName":"o"}])")).fields() ==
        Fields{"spec.placement.clusterAffinities[0].overflowAffinities[1].affinityName"});
  CHECK(
      validate(
          overflows(
              R"([{"affinityName":"o","fieldSelector":{"matchExpressions":[{"key":"rack","operator":"In"}]}}])"))
          .fields() == Fields{"spec.placement.clusterAffinities[0].overflowAffinities[0]."
                              "fieldSelector.matchExpressions[0].key"});
  // The same overflow name in two terms is fine (C55).
  CHECK(
      validate(
          pp(R"("placement":{"clusterAffinities":[{"affinityName":"a","clusterNames":["m1"],"overflowAffinities":[{"affinityName":"o"}]},{"affinityName":"b","clusterNames":["m1"],"overflowAffinities":[{"affinityName":"o"}]}])" +
             rs + "}"))
          .allowed());
}

// ---- spread constraints ----

std::string spread(std::string_view list) {
  return pp(R"("placement":{"spreadConstraints":)" + std::string(list) + "}");
}

TEST_CASE("V-S2 spreadByField with spreadByLabel") {
  const Verdict v =
      validate(spread(R"([{"spreadByField":"cluster","spreadByLabel":"x","minGroups":1}])"));
  CHECK(v.fields() == Fields{"spec.placement.spreadConstraints[0].spreadByLabel"});
  CHECK(v.errors[0].type == ErrorType::kForbidden);
}

TEST_CASE("V-S3 V-S4 V-S5 group bounds") {
  CHECK(validate(spread(R"([{"spreadByField":"cluster","minGroups":-1}])")).fields() ==
        Fields{"spec.placement.spreadConstraints[0].minGroups"});
  CHECK(
      validate(spread(R"([{"spreadByField":"cluster","minGroups":1,"maxGroups":-1}])")).fields() ==
      Fields{"spec.placement.spreadConstraints[0].maxGroups"});
  CHECK(validate(spread(R"([{"spreadByField":"cluster","minGroups":3,"maxGroups":2}])")).fields() ==
        Fields{"spec.placement.spreadConstraints[0].maxGroups"});
  CHECK(validate(spread(R"([{"spreadByField":"cluster","minGroups":5,"maxGroups":0}])")).allowed());
  CHECK(
      validate(spread(R"([{"spreadByField":"cluster","minGroups":-1,"maxGroups":-2}])")).fields() ==
      Fields{"spec.placement.spreadConstraints[0].minGroups",
             "spec.placement.spreadConstraints[0].maxGroups"});
}

TEST_CASE("V-S6 duplicate spreadByField once per value") {
  CHECK(
      validate(
          spread(
              R"([{"spreadByField":"region","minGroups":1},{"spreadByField":"region","minGroups":1},{"spreadByField":"cluster","minGroups":1}])"))
          .fields() == Fields{"spec.placement.spreadConstraints[1].spreadByField"});
  CHECK(
      validate(
          spread(
              R"([{"spreadByField":"cluster"},{"spreadByField":"cluster"},{"spreadByField":"cluster"}])"))
          .fields() == Fields{"spec.placement.spreadConstraints[1].spreadByField"});
}

TEST_CASE("V-S7 spreading by field needs a cluster constraint") {
  const Verdict v = validate(spread(R"([{"spreadByField":"region","minGroups":1}])"));
  CHECK(v.fields() == Fields{"spec.placement.spreadConstraints"});
  CHECK(v.errors[0].type == ErrorType::kRequired);
  CHECK(validate(spread(R"([{"spreadByLabel":"topo","minGroups":1}])")).allowed());
  CHECK(validate(spread("[]")).allowed());
}

// ---- workload affinity, tolerations ----

TEST_CASE("V-W1 V-W2 V-W3 workload affinity keys") {
  auto wa = [](std::string_view body) {
    return pp(R"("placement":{"workloadAffinity":)" + std::string(body) + "}");
  };
  CHECK(validate(wa(R"({"affinity":{"groupByLabelKey":"bad key"}})")).fields() ==
        Fields{"spec.placement.workloadAffinity.affinity.groupByLabelKey"});
  CHECK(validate(wa(R"({"antiAffinity":{"groupByLabelKey":"-x"}})")).fields() ==
        Fields{"spec.placement.workloadAffinity.antiAffinity.groupByLabelKey"});
  CHECK(
      validate(
          wa(R"({"affinity":{"groupByLabelKey":"app"},"antiAffinity":{"groupByLabelKey":"app"}})"))
          .fields() == Fields{"spec.placement.workloadAffinity.antiAffinity.groupByLabelKey"});
  CHECK(
      validate(
          wa(R"({"affinity":{"groupByLabelKey":"app"},"antiAffinity":{"groupByLabelKey":"team"}})"))
          .allowed());
  CHECK(validate(wa(R"({"affinity":{"groupByLabelKey":""},"antiAffinity":{"groupByLabelKey":""}})"))
            .errors.size() == 5);
}

TEST_CASE("V-T1 toleration operators Lt and Gt only") {
  CHECK(
      validate(
          pp(R"("placement":{"clusterTolerations":[{"key":"k","operator":"Exists"},{"key":"k","operator":"Gt","value":"5"}]})"))
          .fields() == Fields{"spec.placement.clusterTolerations[1].operator"});
  CHECK(
      validate(
          pp(R"("placement":{"clusterTolerations":[{"key":"k","operator":"exists","effect":"Bogus"}]})"))
          .allowed());
}

// ---- failover ----

TEST_CASE("V-F0 D-F4 application failover needs propagateDeps") {
  const std::string app = R"({"decisionConditions":{"tolerationSeconds":300},"purgeMode":"Never"})";
  CHECK(validate(with_failover(app, false)).fields() == Fields{"spec.propagateDeps"});
  CHECK(validate(pp(R"("propagateDeps":false,"failover":{"application":)" + app + "}")).fields() ==
        Fields{"spec.propagateDeps"});
  CHECK(validate(with_failover(app)).allowed());
  CHECK(validate(pp(R"("failover":{"cluster":{"purgeMode":"Gracefully"}})")).allowed());
}

TEST_CASE("V-F1 D-F2 tolerationSeconds - negative denied and absent is not a crash") {
  CHECK(validate(
            with_failover(R"({"decisionConditions":{"tolerationSeconds":-1},"purgeMode":"Never"})"))
            .fields() == Fields{"spec.failover.application.decisionConditions.tolerationSeconds"});
  CHECK(validate(with_failover(
                     R"({"decisionConditions":{"tolerationSeconds":0},"purgeMode":"Directly"})"))
            .allowed());
  CHECK(validate(with_failover(R"({"decisionConditions":{},"purgeMode":"Never"})")).allowed());
  CHECK(validate(with_failover(
                     R"({"decisionConditions":{"tolerationSeconds":null},"purgeMode":"Never"})"))
            .allowed());
}

TEST_CASE("V-F2 V-F3 V-F4 D-F1 grace period belongs to graceful purging") {
  const std::string grace = "spec.failover.application.gracePeriodSeconds";
  auto app = [](std::string_view mode_and_grace) {
    return with_failover(R"({"decisionConditions":{"tolerationSeconds":300},)" +
                         std::string(mode_and_grace) + "}");
  };
  const Verdict missing = validate(app(R"("purgeMode":"Gracefully")"));
  CHECK(missing.fields() == Fields{grace});
  CHECK(missing.errors[0].type == ErrorType::kRequired);
  CHECK(validate(app(R"("purgeMode":"Gracefully","gracePeriodSeconds":0)")).fields() ==
        Fields{grace});
  CHECK(validate(app(R"("purgeMode":"Directly","gracePeriodSeconds":10)")).fields() ==
        Fields{grace});
  CHECK(validate(app(R"("purgeMode":"Never","gracePeriodSeconds":-5)")).fields() ==
        Fields{grace, grace});
  CHECK(validate(app(R"("purgeMode":"Gracefully","gracePeriodSeconds":600)")).allowed());
  CHECK(validate(app(R"("gracePeriodSeconds":600)")).fields() == Fields{grace});
  CHECK(validate(app(R"("gracePeriodSeconds":null)")).allowed());  // C43: purgeMode absent
}

TEST_CASE("principle 5 old purge mode names work with a warning") {
  auto app = [](std::string_view mode_and_grace) {
    return with_failover(R"({"decisionConditions":{"tolerationSeconds":300},)" +
                         std::string(mode_and_grace) + "}");
  };
  const Verdict graciously = validate(app(R"("purgeMode":"Graciously","gracePeriodSeconds":600)"));
  CHECK(graciously.allowed());  // C42 differs from upstream on purpose
  CHECK(graciously.warned("\"Gracefully\""));
  CHECK(validate(app(R"("purgeMode":"Graciously")")).fields() ==
        Fields{"spec.failover.application.gracePeriodSeconds"});
  const Verdict immediately = validate(app(R"("purgeMode":"Immediately","gracePeriodSeconds":10)"));
  CHECK(immediately.fields() == Fields{"spec.failover.application.gracePeriodSeconds"});
  CHECK(immediately.warned("\"Directly\""));
  const Verdict cluster = validate(pp(R"("failover":{"cluster":{"purgeMode":"Immediately"}})"));
  CHECK(cluster.allowed());
  CHECK(cluster.warned("spec.failover.cluster.purgeMode"));
}

TEST_CASE("V-F5 V-F6 state preservation alias names") {
  CHECK(
      validate(
          with_failover(
              R"({"decisionConditions":{"tolerationSeconds":300},"purgeMode":"Never","statePreservation":{"rules":[{"aliasLabelName":"ok","jsonPath":"{.a}"},{"aliasLabelName":"-bad","jsonPath":"{.x}"}]}})"))
          .fields() ==
      Fields{"spec.failover.application.statePreservation.rules[1].aliasLabelName"});
  CHECK(
      validate(
          pp(R"("failover":{"cluster":{"purgeMode":"Directly","statePreservation":{"rules":[{"aliasLabelName":"bad@","jsonPath":"{.x}"}]}}})"))
          .fields() == Fields{"spec.failover.cluster.statePreservation.rules[0].aliasLabelName"});
}

TEST_CASE("D-F3 design failover fields") {
  const std::string base =
      R"({"decisionConditions":{"tolerationSeconds":300},"purgeMode":"Never",)";
  CHECK(validate(with_failover(base + R"("blockPredecessorSeconds":-1})")).fields() ==
        Fields{"spec.failover.application.blockPredecessorSeconds"});
  CHECK(validate(with_failover(base + R"("preConditions":{"delaySeconds":-1}})")).fields() ==
        Fields{"spec.failover.application.preConditions.delaySeconds"});
  const Verdict state =
      validate(with_failover(base + R"("preConditions":{"healthyState":"Unhealthy"}})"));
  CHECK(state.fields() == Fields{"spec.failover.application.preConditions.healthyState"});
  CHECK(state.errors[0].type == ErrorType::kNotSupported);
  CHECK(
      validate(
          with_failover(
              base +
              R"("blockPredecessorSeconds":600,"preConditions":{"delaySeconds":0,"healthyState":"Healthy"}})"))
          .allowed());
}

// ---- selectors, suspension ----

TEST_CASE("V-S1 PP selectors stay in the policy namespace") {
  CHECK(validate(
            pp("", R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns2","name":"d"})"))
            .fields() == Fields{"spec.resourceSelectors[0].namespace"});
  const Verdict omitted =
      validate(pp("", R"({"apiVersion":"apps/v1","kind":"Deployment","name":"d"})"));
  CHECK(omitted.fields() == Fields{"spec.resourceSelectors[0].namespace"});
  CHECK(omitted.errors[0].value == "\"\"");
  CHECK(
      validate_cpp(
          cpp("",
              R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"anything","name":"d"})"))
          .allowed());
}

TEST_CASE("V-R1 D-R1 preemption Always needs named selectors") {
  const std::string selectors =
      R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"},{"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","labelSelector":{"matchLabels":{"a":"b"}}})";
  const Verdict v = validate(pp(R"("preemption":"Always")", selectors));
  CHECK(v.fields() == Fields{"spec.resourceSelectors[1].name"});
  CHECK(v.errors[0].type == ErrorType::kRequired);
  CHECK(validate(pp(R"("preemption":"Never")", selectors)).allowed());
}

TEST_CASE("D-R2 CPP preemption Always pins namespaced kinds") {
  auto sel = [](std::string_view api, std::string_view kind, std::string_view ns) {
    std::string s = R"({"apiVersion":")" + std::string(api) + R"(","kind":")" + std::string(kind) +
                    R"(","name":"x")";
    if (!ns.empty()) s += R"(,"namespace":")" + std::string(ns) + "\"";
    return s + "}";
  };
  const std::string always = R"("preemption":"Always")";
  const Verdict deployment = validate_cpp(cpp(always, sel("apps/v1", "Deployment", "")));
  CHECK(deployment.fields() == Fields{"spec.resourceSelectors[0].namespace"});
  CHECK(deployment.errors[0].type == ErrorType::kRequired);
  CHECK(validate_cpp(cpp(always, sel("v1", "Pod", ""))).fields() ==
        Fields{"spec.resourceSelectors[0].namespace"});
  CHECK(validate_cpp(cpp(always, sel("apps/v1", "Deployment", "ns1"))).allowed());
  CHECK(validate_cpp(cpp(always, sel("v1", "Namespace", ""))).warnings.empty());
  const Verdict custom = validate_cpp(cpp(always, sel("example.com/v1", "Foo", "")));
  CHECK(custom.allowed());
  CHECK(custom.warned("Foo"));
  CHECK(validate_cpp(cpp(R"("preemption":"Never")", sel("apps/v1", "Deployment", ""))).allowed());
  // A PP never needs it: V-S1 already pins selectors to the policy namespace.
  CHECK(validate(pp(always, sel("apps/v1", "Deployment", "ns1"))).allowed());
}

TEST_CASE("V-X1 suspension dispatching with dispatchingOnClusters") {
  CHECK(
      validate(
          pp(R"("suspension":{"dispatching":true,"dispatchingOnClusters":{"clusterNames":["c1"]}})"))
          .fields() == Fields{"spec.suspension.dispatchingOnClusters"});
  CHECK(
      validate(
          pp(R"("suspension":{"dispatching":false,"dispatchingOnClusters":{"clusterNames":["c1"]}})"))
          .allowed());
  CHECK(validate(
            pp(R"("suspension":{"dispatching":true,"dispatchingOnClusters":{"clusterNames":[]}})"))
            .allowed());
  CHECK(
      validate(pp(R"("suspension":{"dispatching":true,"dispatchingOnClusters":null})")).allowed());
}

TEST_CASE("association true is deprecated with a warning") {
  const Verdict v = validate(pp(R"("association":true,"propagateDeps":true)"));
  CHECK(v.allowed());
  CHECK(v.warned("spec.association"));
  CHECK(validate(pp(R"("association":false)")).warnings.empty());
}

// ---- schema rules ----

TEST_CASE("SC-1 wrong JSON types and integer ranges") {
  CHECK(validate(pp(R"("priority":"high")")).fields() == Fields{"spec.priority"});
  CHECK(validate(pp(R"("priority":1.5)")).fields() == Fields{"spec.priority"});
  CHECK(validate(pp(R"("priority":2147483648)")).fields() == Fields{"spec.priority"});
  CHECK(validate(pp(R"("priority":-2147483648)")).allowed());
  // Whole numbers beyond int64 are out of range, not of another type; a fraction is the type.
  CHECK(validate(pp(R"("priority":9223372036854775808)")).errors[0].detail ==
        "must fit in a 32-bit integer");
  CHECK(validate(pp(R"("priority":1e19)")).errors[0].detail == "must fit in a 32-bit integer");
  CHECK(validate(pp(R"("priority":1.5)")).errors[0].detail == "must be of type integer");
  CHECK(validate(pp(R"("propagateDeps":"yes")")).fields() == Fields{"spec.propagateDeps"});
  CHECK(validate(pp(R"("placement":[])")).fields() == Fields{"spec.placement"});
  CHECK(
      validate(pp("", R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":7})"))
          .fields() == Fields{"spec.resourceSelectors[0].name"});
  CHECK(
      validate(
          pp("",
             R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","labelSelector":{"matchLabels":{"a":1}}})"))
          .fields() == Fields{"spec.resourceSelectors[0].labelSelector.matchLabels[a]"});
}

TEST_CASE("SC-2 at least one resource selector") {
  CHECK(validate(edit(pp(), R"("resourceSelectors")", R"("other")")).fields() ==
        Fields{"spec.resourceSelectors"});
  const Verdict v = validate(edit(pp(), kSelector, ""));
  CHECK(v.fields() == Fields{"spec.resourceSelectors"});
  CHECK(v.errors[0].type == ErrorType::kRequired);
}

TEST_CASE("SC-3 required keys") {
  CHECK(validate(pp("", R"({"apiVersion":"apps/v1","namespace":"ns1","name":"d"})")).fields() ==
        Fields{"spec.resourceSelectors[0].kind"});
  CHECK(validate(pp(R"("propagateDeps":true,"failover":{"application":{"purgeMode":"Never"}})"))
            .fields() == Fields{"spec.failover.application.decisionConditions"});
  CHECK(validate(pp(R"("schedulePriority":{"priorityClassName":"high"})")).fields() ==
        Fields{"spec.schedulePriority.priorityClassSource"});
  CHECK(validate(pp(R"("placement":{"clusterAffinities":[{"clusterNames":["m1"]}]})")).fields() ==
        Fields{"spec.placement.clusterAffinities[0].affinityName"});
}

TEST_CASE("SC-4 enums") {
  CHECK(validate(pp(R"("preemption":"always")")).fields() == Fields{"spec.preemption"});  // C31
  CHECK(validate(pp(R"("conflictResolution":"Replace")")).fields() ==
        Fields{"spec.conflictResolution"});
  const Verdict rack = validate(spread(R"([{"spreadByField":"rack"}])"));
  CHECK(rack.fields() == Fields{"spec.placement.spreadConstraints[0].spreadByField",
                                "spec.placement.spreadConstraints"});
  CHECK(rack.errors[0].type == ErrorType::kNotSupported);
  CHECK(validate(pp(R"("failover":{"cluster":{"purgeMode":"Never"}})")).fields() ==
        Fields{"spec.failover.cluster.purgeMode"});
}

TEST_CASE("SC-5 affinityName length 1 to 32") {
  auto named = [](std::size_t n) {
    return pp(R"("placement":{"clusterAffinities":[{"affinityName":")" + std::string(n, 'a') +
              R"("}]})");
  };
  CHECK(validate(named(32)).allowed());
  CHECK(validate(named(33)).fields() == Fields{"spec.placement.clusterAffinities[0].affinityName"});
  CHECK(validate(named(64)).errors.size() == 2);  // C18: length and name part > 63
}

TEST_CASE("SC-6 static weights are at least 1") {
  auto weight = [](std::string_view w) {
    return pp(
        R"("placement":{"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Weighted","weightPreference":{"staticWeightList":[{"targetCluster":{"clusterNames":["m1"]},"weight":)" +
        std::string(w) + "}]}}}");
  };
  CHECK(validate(weight("0")).fields() ==
        Fields{"spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight"});
  CHECK(validate(weight("1")).allowed());
  CHECK(validate(weight("4294967296")).allowed());  // int64
}

TEST_CASE("C57 negative priority is allowed") {
  CHECK(validate(pp(R"("priority":-100)")).allowed());
}

TEST_CASE("C59 unknown fields and a missing kind are ignored") {
  CHECK(validate(pp(R"("bogus":1)")).allowed());
}

TEST_CASE("2.3 error order - placement then failover then selectors then suspension") {
  const Verdict v = validate(pp(
      R"("placement":{"spreadConstraints":[{"spreadByField":"region","minGroups":-1}]},)"
      R"("failover":{"application":{"decisionConditions":{"tolerationSeconds":-1},"purgeMode":"Never"}},)"
      R"("suspension":{"dispatching":true,"dispatchingOnClusters":{"clusterNames":["c"]}})",
      R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns2","name":"d"})"));
  CHECK(v.fields() == Fields{"spec.placement.spreadConstraints[0].minGroups",
                             "spec.placement.spreadConstraints", "spec.propagateDeps",
                             "spec.failover.application.decisionConditions.tolerationSeconds",
                             "spec.resourceSelectors[0].namespace",
                             "spec.suspension.dispatchingOnClusters"});
  CHECK(v.message.front() == '[');
}

TEST_CASE("spec absent or not an object") {
  std::string obj = pp();
  const std::size_t at = obj.find(R"(,"spec")");
  CHECK(validate(obj.substr(0, at) + "}").fields() == Fields{"spec"});
  CHECK(validate(obj.substr(0, at) + R"(,"spec":[]})").fields() == Fields{"spec"});
}
