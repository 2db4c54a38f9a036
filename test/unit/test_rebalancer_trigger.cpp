// WorkloadRebalancer rules W-1…W-4 and ScheduleTrigger rules S-1…S-5 (README), with the
// duplicate warnings and the type errors of these schema-less kinds.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support.hpp"
#include "validators/schedule_trigger.hpp"
#include "validators/workload_rebalancer.hpp"

using kpw::test::Call;
using kpw::test::run;
using kpw::test::Verdict;
using Fields = std::vector<std::string>;

namespace {

constexpr std::string_view kDeployment =
    R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"})";

Verdict rebalancer(std::string_view spec) {
  return run(
      &kpw::validate_workload_rebalancer,
      R"({"kind":"WorkloadRebalancer","metadata":{"name":"r"},"spec":)" + std::string(spec) + "}",
      Call::cluster_scoped());
}

Verdict trigger(std::string_view spec, std::string_view status = "{}") {
  return run(&kpw::validate_schedule_trigger,
             R"({"kind":"ScheduleTrigger","metadata":{"name":"t"},"spec":)" + std::string(spec) +
                 R"(,"status":)" + std::string(status) + "}",
             Call::cluster_scoped());
}

std::string workloads(std::string_view items) {
  return R"({"workloads":[)" + std::string(items) + "]}";
}

}  // namespace

TEST_CASE("W valid rebalancer") {
  CHECK(rebalancer(workloads(kDeployment)).allowed());
  CHECK(
      rebalancer(
          R"({"workloads":[{"apiVersion":"v1","kind":"Namespace","name":"n"}],"ttlSecondsAfterFinished":0})")
          .allowed());
}

TEST_CASE("W-1 at least one workload") {
  CHECK(rebalancer("{}").fields() == Fields{"spec.workloads"});
  CHECK(rebalancer(R"({"workloads":[]})").fields() == Fields{"spec.workloads"});
  CHECK(rebalancer(R"({"workloads":null})").fields() == Fields{"spec.workloads"});
  CHECK(run(&kpw::validate_workload_rebalancer, R"({"kind":"WorkloadRebalancer"})",
            Call::cluster_scoped())
            .fields() == Fields{"spec"});
}

TEST_CASE("W-2 workload apiVersion kind and name") {
  CHECK(rebalancer(workloads(R"({"apiVersion":"","kind":"","name":""})")).fields() ==
        Fields{"spec.workloads[0].apiVersion", "spec.workloads[0].kind", "spec.workloads[0].name"});
  CHECK(rebalancer(workloads(R"({"apiVersion":"apps/v1/x","kind":"1D","name":"d"})")).fields() ==
        Fields{"spec.workloads[0].apiVersion", "spec.workloads[0].kind"});
  CHECK(rebalancer(workloads(R"({"apiVersion":"Apps/v1","kind":"D","name":"d"})")).fields() ==
        Fields{"spec.workloads[0].apiVersion"});
}

TEST_CASE("W-3 a set namespace is a DNS-1123 label") {
  CHECK(rebalancer(
            workloads(
                R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"Bad_NS","name":"d"})"))
            .fields() == Fields{"spec.workloads[0].namespace"});
}

TEST_CASE("W-4 TTL is not negative") {
  CHECK(
      rebalancer(
          R"({"workloads":[{"apiVersion":"v1","kind":"Pod","namespace":"a","name":"b"}],"ttlSecondsAfterFinished":-1})")
          .fields() == Fields{"spec.ttlSecondsAfterFinished"});
}

TEST_CASE("W duplicate workloads warn") {
  const Verdict v =
      rebalancer(workloads(std::string(kDeployment) + "," + std::string(kDeployment)));
  CHECK(v.allowed());
  CHECK(v.warned("spec.workloads[1]"));
}

TEST_CASE("W wrong JSON types name the field") {
  CHECK(rebalancer(R"({"workloads":{}})").fields() == Fields{"spec.workloads"});
  CHECK(rebalancer(workloads("7")).fields() == Fields{"spec.workloads[0]"});
  CHECK(
      rebalancer(
          R"({"workloads":[{"apiVersion":"v1","kind":"Pod","name":"p"}],"ttlSecondsAfterFinished":"1"})")
          .fields() == Fields{"spec.ttlSecondsAfterFinished"});
  CHECK(rebalancer("[]").fields() == Fields{"spec"});
}

TEST_CASE("S valid trigger") {
  CHECK(trigger(R"({"targetRefPolicy":[{"name":"p","namespace":"ns1"}]})").allowed());
  CHECK(trigger(std::string(R"({"targetRefResource":[)") + std::string(kDeployment) +
                R"(],"retryAfterSeconds":0,"autoCleanAfterMinutes":0})")
            .allowed());
}

TEST_CASE("S-1 something to trigger") {
  CHECK(trigger("{}").fields() == Fields{"spec"});
  CHECK(trigger(R"({"targetRefPolicy":[],"targetRefResource":[]})").fields() == Fields{"spec"});
}

TEST_CASE("S-2 resource targets are object references") {
  CHECK(
      trigger(
          R"({"targetRefResource":[{"apiVersion":"","kind":"Deployment","name":"d","namespace":"-x"}]})")
          .fields() ==
      Fields{"spec.targetRefResource[0].apiVersion", "spec.targetRefResource[0].namespace"});
}

TEST_CASE("S-3 policy targets are named by a DNS-1123 subdomain") {
  CHECK(trigger(R"({"targetRefPolicy":[{"namespace":"ns1"}]})").fields() ==
        Fields{"spec.targetRefPolicy[0].name"});
  CHECK(trigger(R"({"targetRefPolicy":[{"name":"Bad_Name"}]})").fields() ==
        Fields{"spec.targetRefPolicy[0].name"});
  CHECK(trigger(R"({"targetRefPolicy":[{"name":"a.b-c"}]})").allowed());
}

TEST_CASE("S-4 intervals are not negative") {
  CHECK(
      trigger(
          R"({"targetRefPolicy":[{"name":"p"}],"retryAfterSeconds":-1,"autoCleanAfterMinutes":-2})")
          .fields() == Fields{"spec.retryAfterSeconds", "spec.autoCleanAfterMinutes"});
}

TEST_CASE("S-5 status phase values") {
  const std::string spec = R"({"targetRefPolicy":[{"name":"p"}]})";
  CHECK(trigger(spec, R"({"phase":"Done"})").fields() == Fields{"status.phase"});
  CHECK(trigger(spec, R"({"phase":3})").fields() == Fields{"status.phase"});
  for (const char* phase : {"Running", "Failed", "Success"}) {
    CHECK(trigger(spec, std::string(R"({"phase":")") + phase + "\"}").allowed());
  }
}

TEST_CASE("S duplicate targets warn") {
  const Verdict v = trigger(R"({"targetRefPolicy":[{"name":"p"},{"name":"p"}]})");
  CHECK(v.allowed());
  CHECK(v.warned("spec.targetRefPolicy[1]"));
}
