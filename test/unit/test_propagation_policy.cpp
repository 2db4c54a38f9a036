// PropagationPolicy / ClusterPropagationPolicy rules: the base policy, UPDATE, labels, placement.
// One case per rule ID (docs/compatibility.md: upstream's V- rules with their nil-versus-empty
// cases; docs/rules.md: the D- rules). Paths and types as docs/compatibility.md lists them.
// Failover, selectors, suspension and the schema rules: test_propagation_policy_failover.cpp.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "propagation_policy_support.hpp"

using kpw::ErrorType;
using kpw::test::Call;
using kpw::test::cpp;
using kpw::test::edit;
using kpw::test::kLabel;
using kpw::test::pp;
using kpw::test::run;
using kpw::test::spread;
using kpw::test::validate;
using kpw::test::validate_cpp;
using kpw::test::Verdict;
using Fields = std::vector<std::string>;

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
