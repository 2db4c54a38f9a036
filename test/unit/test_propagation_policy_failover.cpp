// PropagationPolicy / ClusterPropagationPolicy rules: failover, selectors, suspension, schema.
// One case per rule ID (docs/compatibility.md: upstream's V- rules, the schema rules SC-;
// docs/rules.md: the D- rules), then the error order. Paths and types as docs/compatibility.md
// lists them. The base policy, UPDATE, labels and placement: test_propagation_policy.cpp.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "propagation_policy_support.hpp"

using kpw::ErrorType;
using kpw::test::cpp;
using kpw::test::edit;
using kpw::test::kSelector;
using kpw::test::pp;
using kpw::test::spread;
using kpw::test::validate;
using kpw::test::validate_cpp;
using kpw::test::Verdict;
using kpw::test::with_failover;
using Fields = std::vector<std::string>;

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
