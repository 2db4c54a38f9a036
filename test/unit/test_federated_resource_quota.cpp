// FederatedResourceQuota rules Q-1…Q-13, D-Q1 and QS-1…QS-4 (docs/rules.md): messages, paths,
// the sorted order of resource maps, exact quantities.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support.hpp"
#include "validators/federated_resource_quota.hpp"

using kpw::test::Call;
using kpw::test::run;
using kpw::test::Verdict;
using Lines = std::vector<std::string>;
using Fields = std::vector<std::string>;

namespace {

Verdict frq(std::string_view spec, std::string_view rest = "") {
  return run(&kpw::validate_federated_resource_quota,
             R"({"apiVersion":"policy.karmada.io/v1alpha1","kind":"FederatedResourceQuota",)"
             R"("metadata":{"name":"q","namespace":"ns1"},"spec":)" +
                 std::string(spec) + std::string(rest) + "}");
}

Call strict_off() {
  Call c;
  c.settings.strict_rules = kpw::StrictRules::kOff;
  return c;
}

// "<rule> <field>: <body>" per error.
Lines lines(const Verdict& v) {
  Lines out;
  for (const kpw::FieldError& e : v.errors) out.push_back(std::string(e.rule->id) + " " + e.text());
  return out;
}

}  // namespace

TEST_CASE("FRQ valid quotas") {
  CHECK(frq(R"({"overall":{"cpu":"1","memory":"1Gi"}})").allowed());
  CHECK(frq(R"({"overall":{"cpu":"1","memory":"1Gi"},"staticAssignments":[
              {"clusterName":"m1","hard":{"cpu":"500m","memory":"512Mi"}},
              {"clusterName":"m2","hard":{"cpu":"0.5","memory":"536870912"}}]})")
            .allowed());
  CHECK(frq(R"({"overall":{"pods":10,"nvidia.com/gpu":"2","count/deployments.apps":"3",
                 "requests.hugepages-2Mi":"1Gi","hugepages-1Gi":"2Gi","example.com/foo":"1"}})")
            .allowed());
}

TEST_CASE("Q-1 metadata.name is at most 63 characters") {
  const std::string name(64, 'a');
  const Verdict v = run(&kpw::validate_federated_resource_quota,
                        R"({"metadata":{"name":")" + name + R"("},"spec":{"overall":{}}})");
  CHECK(lines(v) == Lines{"Q-1 metadata.name: Invalid value: \"" + name +
                          "\": must be no more than 63 characters"});
  CHECK(run(&kpw::validate_federated_resource_quota,
            R"({"metadata":{"name":")" + std::string(63, 'a') + R"("},"spec":{"overall":{}}})")
            .allowed());
}

TEST_CASE("Q-2 Q-3 Q-4 resource names") {
  CHECK(lines(frq(R"({"overall":{"invalid-resource":"1"}})")) ==
        Lines{"Q-3 spec.overall[invalid-resource]: Invalid value: \"invalid-resource\": must be a "
              "standard resource type or fully qualified",
              "Q-4 spec.overall[invalid-resource]: Invalid value: \"invalid-resource\": must be a "
              "standard resource for quota"});
  // Q-2 replaces Q-3, Q-4 still applies.
  const Lines tilde = lines(frq(R"({"overall":{"a~b":"1"}})"));
  REQUIRE(tilde.size() == 2);
  CHECK(tilde[0].starts_with("Q-2 spec.overall[a~b]: Invalid value: \"a~b\": name part must"));
  CHECK(tilde[1] ==
        "Q-4 spec.overall[a~b]: Invalid value: \"a~b\": must be a standard resource for quota");
  // storage is standard but not a quota resource; a name with `/` needs no standard name.
  CHECK(lines(frq(R"({"overall":{"storage":"1Gi","x.io/y":"1"}})")) ==
        Lines{"Q-4 spec.overall[storage]: Invalid value: \"storage\": must be a standard resource "
              "for quota"});
}

TEST_CASE("Q-5 Q-6 Q-9 negative and fractional quantities, shown as written") {
  CHECK(lines(frq(R"({"overall":{"cpu":"-1"}})")) ==
        Lines{"Q-5 spec.overall[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
              "Q-9 spec.overall[cpu]: Invalid value: \"-1\": overall is less than assignments"});
  CHECK(lines(frq(R"({"overall":{"pods":"-1.5"}})")) ==
        Lines{"Q-5 spec.overall[pods]: Invalid value: \"-1.5\": must be greater than or equal to 0",
              "Q-6 spec.overall[pods]: Invalid value: \"-1.5\": must be an integer",
              "Q-9 spec.overall[pods]: Invalid value: \"-1.5\": overall is less than assignments"});
  CHECK(lines(frq(R"({"overall":{"nvidia.com/gpu":0.5}})")) ==
        Lines{"Q-6 spec.overall[nvidia.com/gpu]: Invalid value: 0.5: must be an integer"});
  // Integer detection as upstream: MilliValue() % 1000, and which names are integer resources.
  CHECK(frq(R"({"overall":{"pods":"0.9999","cpu":"1.5","requests.example.com/foo":"0.5",
                 "kubernetes.io/foo":"0.5"}})")
            .allowed());
  CHECK(frq(R"({"overall":{"pods":"1.0001"}})").fields() == Fields{"spec.overall[pods]"});
}

TEST_CASE("Q-7 static assignment cluster names") {
  const auto q7 = [](std::string_view name) {
    return lines(frq(R"({"overall":{"cpu":"1"},"staticAssignments":[{"clusterName":")" +
                     std::string(name) + R"(","hard":{"cpu":"1"}}]})"));
  };
  CHECK(q7("") == Lines{"Q-7 spec.staticAssignments[0].clusterName: Invalid value: \"\": must be "
                        "not empty"});
  CHECK(q7(std::string(49, 'a')) ==
        Lines{"Q-7 spec.staticAssignments[0].clusterName: Invalid value: \"" +
              std::string(49, 'a') + "\": must be no more than 48 characters"});
  CHECK(q7("a.b") == Lines{"Q-7 spec.staticAssignments[0].clusterName: Invalid value: \"a.b\": "
                           "must not contain dots"});
  const Lines upper = q7("A.b");
  REQUIRE(upper.size() == 1);
  CHECK(upper[0].find("a lowercase RFC 1123 label must consist") != std::string::npos);
  CHECK(q7(std::string(48, 'a')).empty());
  // Absent: the schema's Required (QS-3) and upstream's "" (Q-7).
  CHECK(lines(frq(R"({"overall":{"cpu":"1"},"staticAssignments":[{"hard":{"cpu":"1"}}]})")) ==
        Lines{"QS-3 spec.staticAssignments[0].clusterName: Required value",
              "Q-7 spec.staticAssignments[0].clusterName: Invalid value: \"\": must be not empty"});
}

TEST_CASE("Q-8 Q-10 assigned resources") {
  CHECK(lines(frq(R"({"overall":{"cpu":"1"},"staticAssignments":[
                      {"clusterName":"m1","hard":{"cpu":"-1","memory":"1Gi"}}]})")) ==
        Lines{"Q-8 spec.staticAssignments[0].hard[cpu]: Invalid value: \"-1\": must be greater "
              "than or equal to 0",
              "Q-10 spec.staticAssignments[0].hard[memory]: Invalid value: \"memory\": assignment "
              "resourceName is not exist in overall"});
}

TEST_CASE("Q-9 exact sums") {
  const auto spec = [](std::string_view overall, std::string_view a, std::string_view b) {
    return R"({"overall":{"cpu":)" + std::string(overall) +
           R"(},"staticAssignments":[{"clusterName":"m1","hard":{"cpu":)" + std::string(a) +
           R"(}},{"clusterName":"m2","hard":{"cpu":)" + std::string(b) + "}}]}";
  };
  CHECK(frq(spec(R"("1")", R"("500m")", R"("0.5")")).allowed());
  CHECK(frq(spec(R"("1Gi")", R"("1024Mi")", R"("0")")).allowed());
  CHECK(frq(spec(R"("1Gi")", R"("512Mi")", R"("536870912")")).allowed());
  CHECK(lines(frq(spec(R"("1Gi")", R"("512Mi")", R"("536870913")"))) ==
        Lines{"Q-9 spec.overall[cpu]: Invalid value: \"1Gi\": overall is less than assignments"});
  CHECK(frq(spec(R"("999m")", R"("500m")", R"("0.5")")).fields() == Fields{"spec.overall[cpu]"});
  // At the int64 edge: exact, no wrap.
  CHECK(frq(spec(R"("9223372036854775808")", R"("9223372036854775807")", R"("1")")).allowed());
  CHECK(frq(spec(R"("9223372036854775807")", R"("9223372036854775807")", R"("1")")).fields() ==
        Fields{"spec.overall[cpu]"});
  // A binary suffix is capped at 2^63 - 1 when parsed, as Kubernetes does: 16Ei < 8Ei + 8Ei.
  CHECK(frq(spec(R"("18446744073709551614")", R"("8Ei")", R"("8Ei")")).allowed());
  CHECK(frq(spec(R"("16Ei")", R"("8Ei")", R"("8Ei")")).fields() == Fields{"spec.overall[cpu]"});
  // A sum too wide for an exact Quantity is taken as above any overall.
  CHECK(frq(spec(R"("2e50")", R"("1e50")", R"("1n")")).fields() == Fields{"spec.overall[cpu]"});
}

TEST_CASE("B-10 resource maps in sorted name order") {
  CHECK(frq(R"({"overall":{"zz":"1","pods":"1.5","aa":"1","cpu":"-1"}})").fields() ==
        Fields{"spec.overall[aa]", "spec.overall[aa]", "spec.overall[cpu]", "spec.overall[pods]",
               "spec.overall[zz]", "spec.overall[zz]", "spec.overall[cpu]"});
}

TEST_CASE("D-Q1 duplicate clusterName") {
  const Verdict v = frq(R"({"overall":{"cpu":"2"},"staticAssignments":[
      {"clusterName":"m1","hard":{"cpu":"1"}},{"clusterName":"m2","hard":{"cpu":"0"}},
      {"clusterName":"m1","hard":{"cpu":"1"}}]})");
  CHECK(lines(v) == Lines{"D-Q1 spec.staticAssignments[2].clusterName: Duplicate value: \"m1\""});
  CHECK(run(&kpw::validate_federated_resource_quota,
            R"({"spec":{"overall":{"cpu":"2"},"staticAssignments":[
                {"clusterName":"m1","hard":{"cpu":"1"}},{"clusterName":"m1","hard":{"cpu":"1"}}]}})",
            strict_off())
            .allowed());
}

TEST_CASE("QS-1 QS-2 QS-3 QS-4 schema rows") {
  CHECK(lines(run(&kpw::validate_federated_resource_quota, R"({"metadata":{"name":"q"}})")) ==
        Lines{"QS-1 spec: Required value"});
  CHECK(lines(frq("{}")) == Lines{"QS-1 spec.overall: Required value"});
  CHECK(lines(frq(R"({"overall":[]})")) ==
        Lines{"QS-2 spec.overall: Invalid value: [...]: must be of type object"});
  // A quantity that does not parse is a field error naming the value, not a 400.
  CHECK(lines(frq(R"({"overall":{"cpu":"abc","memory":true,"pods":null}})")) ==
        Lines{"QS-2 spec.overall[cpu]: Invalid value: \"abc\": quantities must match the regular "
              "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
              "QS-2 spec.overall[memory]: Invalid value: true: must be of type string or number",
              "QS-2 spec.overall[pods]: Invalid value: null: must be of type string or number"});
  CHECK(lines(frq(R"({"overall":{"cpu":"1"},"staticAssignments":[null,{"clusterName":"m1"}]})")) ==
        Lines{"QS-3 spec.staticAssignments[0]: Invalid value: null: must be of type object",
              "QS-3 spec.staticAssignments[1].hard: Required value"});
  CHECK(lines(frq(R"({"overall":{"cpu":"1"},"staticAssignments":{}})")) ==
        Lines{"QS-3 spec.staticAssignments: Invalid value: {...}: must be of type array"});
  CHECK(lines(frq(R"({"overall":{}})", R"(,"status":{"aggregatedStatus":[{"hard":{}}]})")) ==
        Lines{"QS-4 status.aggregatedStatus[0].clusterName: Required value",
              "Q-12 status.aggregatedStatus[0].clusterName: Invalid value: \"\": must be not "
              "empty"});
  CHECK(lines(frq(R"({"overall":{}})", R"(,"status":"x")")) ==
        Lines{"QS-4 status: Invalid value: \"x\": must be of type object"});
  CHECK(frq(R"({"overall":{}})", R"(,"status":{"overall":{"cpu":"x"}})").fields() ==
        Fields{"status.overall[cpu]"});
  // Strict: off gives upstream's verdicts.
  CHECK(run(&kpw::validate_federated_resource_quota, R"({"spec":{"overall":{"cpu":"abc"}}})",
            strict_off())
            .allowed());
}

TEST_CASE("Q-11 Q-12 Q-13 status") {
  CHECK(lines(frq(R"({"overall":{}})", R"(,"status":{"overall":{"cpu":"-1"},
        "overallUsed":{"pods":"0.5"},"aggregatedStatus":[{"clusterName":"a.b",
        "hard":{"x~":"1"},"used":{"cpu":"-1m"}}]})"))
            .size() == 6);
  const Verdict v = frq(R"({"overall":{}})", R"(,"status":{"overall":{"cpu":"-1"},
        "overallUsed":{"pods":"0.5"},"aggregatedStatus":[{"clusterName":"a.b",
        "hard":{"memory":"1Gi"},"used":{"cpu":"-1m"}}]})");
  CHECK(lines(v) ==
        Lines{"Q-11 status.overall[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
              "Q-11 status.overallUsed[pods]: Invalid value: \"0.5\": must be an integer",
              "Q-12 status.aggregatedStatus[0].clusterName: Invalid value: \"a.b\": must not "
              "contain dots",
              "Q-13 status.aggregatedStatus[0].used[cpu]: Invalid value: \"-1m\": must be greater "
              "than or equal to 0"});
}

TEST_CASE("FRQ upstream order: Q-1, overall, assignments, Q-9, Q-10, status") {
  const Verdict v = run(&kpw::validate_federated_resource_quota,
                        R"({"metadata":{"name":")" + std::string(64, 'n') + R"("},
      "spec":{"overall":{"pods":"1.5","cpu":"1"},"staticAssignments":[
        {"clusterName":"A","hard":{"cpu":"-1","memory":"1"}},
        {"clusterName":"m","hard":{"cpu":"3"}}]},
      "status":{"overall":{"cpu":"-1"},"aggregatedStatus":[{"clusterName":""}]}})");
  CHECK(v.fields() == Fields{"metadata.name", "spec.overall[pods]",
                             "spec.staticAssignments[0].clusterName",
                             "spec.staticAssignments[0].hard[cpu]", "spec.overall[cpu]",
                             "spec.staticAssignments[0].hard[memory]", "status.overall[cpu]",
                             "status.aggregatedStatus[0].clusterName"});
}

TEST_CASE("FRQ hostile shapes never crash", "[linear]") {
  for (const char* spec : {"null", "1", "[]", R"({"overall":null})", R"({"overall":{"":""}})",
                           R"({"overall":{},"staticAssignments":[1,"x",[],{}]})",
                           R"({"overall":{},"staticAssignments":[{"clusterName":1,"hard":[]}]})"}) {
    INFO(spec);
    CHECK_NOTHROW(frq(spec));
  }
  // A map of 20 000 resources and as many assignments: linear (hashing, no nested loops).
  std::string overall, assignments;
  for (int i = 0; i < 20000; ++i) {
    if (i > 0) {
      overall += ",";
      assignments += ",";
    }
    overall += "\"x.io/r" + std::to_string(i) + "\":\"2\"";
    // Each assignment also names one resource of overall's start (r0 by the others).
    assignments += R"({"clusterName":"c)" + std::to_string(i) + R"(","hard":{"x.io/r)" +
                   std::to_string(i) + R"(":"1")" + (i > 0 ? R"(,"x.io/r0":"0")" : "") + "}}";
  }
  CHECK(frq(R"({"overall":{)" + overall + R"(},"staticAssignments":[)" + assignments + "]}")
            .allowed());
}
