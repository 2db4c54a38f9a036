// RB-2's arithmetic (validators/resource_binding_quota.hpp) as upstream's handler and karmada's
// util.Resource do it, the quantities it writes (util/quantity.hpp), and the rule in
// validate_resource_binding: when it charges, what, and how a denial is answered. The writes
// themselves are tested against a real API server and upstream's webhook
// (test/e2e/test_apiserver_quota.py).
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "admission/quota.hpp"
#include "json/json.hpp"
#include "support.hpp"
#include "util/quantity.hpp"
#include "validators/resource_binding.hpp"
#include "validators/resource_binding_quota.hpp"

using kpw::Quantity;
using kpw::QuantityFormat;
using kpw::QuotaCheck;
using kpw::QuotaEntry;
using kpw::ResourceAmounts;

namespace {

std::string written(const Quantity& q, QuantityFormat f) {
  std::string out;
  kpw::append_quantity(out, q, f);
  return out;
}

Quantity q(std::string_view text) {
  const kpw::ParsedQuantity p = kpw::parse_quantity(text);
  REQUIRE(p.ok());
  return p.value;
}

// Parses JSON text and keeps it alive for the test.
struct Doc {
  std::string text;
  std::unique_ptr<kpw::JsonArena> arena = std::make_unique<kpw::JsonArena>();
  explicit Doc(std::string json) : text(std::move(json)) {
    REQUIRE(arena->parse_in_place(text).ok);
  }
  const kpw::JsonValue& value() { return arena->document(); }
};

std::string binding(std::string_view spec) {
  return R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding",)"
         R"("metadata":{"name":"rb","namespace":"ns1"},"spec":)" +
         std::string(spec) + "}";
}

ResourceAmounts usage(std::string_view spec) {
  Doc doc(binding(spec));
  ResourceAmounts out;
  REQUIRE_FALSE(kpw::binding_usage(doc.value(), out));
  return out;
}

std::string listed(const ResourceAmounts& list) {
  std::string out;
  for (const kpw::ResourceAmount& a : list) out += a.name + "=" + a.value.str() + " ";
  return out;
}

QuotaEntry quota(std::string_view overall, std::string_view used = "{}") {
  Doc doc(R"({"metadata":{"name":"q","namespace":"ns1","resourceVersion":"7"},)"
          R"("spec":{"overall":)" +
          std::string(overall) + R"(},"status":{"overallUsed":)" + std::string(used) + "}}");
  QuotaEntry entry;
  REQUIRE_FALSE(kpw::read_quota(doc.value(), entry));
  return entry;
}

ResourceAmounts amounts(std::initializer_list<std::pair<const char*, const char*>> list) {
  ResourceAmounts out;
  for (const auto& [name, value] : list) out.push_back({name, q(value)});
  return out;
}

// check_quota in namespace ns1; `message` is the denial, or under kWarn D-Q2's warning.
QuotaCheck judge(const QuotaEntry& entry, const ResourceAmounts& delta, ResourceAmounts& used,
                 std::string& message, kpw::StrictRules mode = kpw::StrictRules::kDeny) {
  kpw::QuotaJudgment j;
  const QuotaCheck c = kpw::check_quota("ns1", entry, delta, mode, used, j);
  message = c == QuotaCheck::kExceeded ? j.message : j.d_q2_warning;
  return c;
}

// What a charge writes: the merge patch's overallUsed.
std::string patch_of(const QuotaEntry& entry, const ResourceAmounts& used) {
  std::string out;
  kpw::append_overall_used_patch(entry, used, out);
  return out;
}

// The enforcement a review sees, recording each charge; answers `outcome`.
struct Recorder : kpw::QuotaEnforcement {
  std::vector<std::string> charges;
  kpw::QuotaOutcome outcome;
  kpw::QuotaOutcome charge(const kpw::QuotaCharge& c) override {
    charges.push_back(std::string(c.ns) + "/" + std::string(c.binding) + ": " + listed(*c.delta) +
                      (c.dry_run ? "(dry run)" : ""));
    return outcome;
  }
  bool quotas_here = true;
  bool may_charge(std::string_view) const override { return quotas_here; }
};

}  // namespace

TEST_CASE("RB-2 quantities are written as Kubernetes writes the values it computed") {
  using F = QuantityFormat;
  CHECK(written(Quantity::of(1500, -3), F::kDecimalSI) == "1500m");
  CHECK(written(Quantity::of(2000, -3), F::kDecimalSI) == "2");
  CHECK(written(Quantity::of(0, 0), F::kDecimalSI) == "0");
  CHECK(written(Quantity::of(5000, 0), F::kDecimalSI) == "5k");
  CHECK(written(Quantity::of(1000, 0), F::kBinarySI) == "1k");  // within ±1024: DecimalSI
  CHECK(written(Quantity::of(1024, 0), F::kBinarySI) == "1Ki");
  CHECK(written(Quantity::of(1500, 0), F::kBinarySI) == "1500");
  CHECK(written(Quantity::of(3LL << 30, 0), F::kBinarySI) == "3Gi");
  CHECK(written(Quantity::of(1536LL << 20, 0), F::kBinarySI) == "1536Mi");
  CHECK(written(Quantity::of(-2048, 0), F::kBinarySI) == "-2Ki");
  CHECK(written(Quantity::of(1000, 0), F::kDecimalExponent) == "1e3");
  // Go's ScaledValue: rounded away from zero.
  CHECK(kpw::scaled_value(q("0.0001"), 3) == 1);
  CHECK(kpw::scaled_value(q("-0.0001"), 3) == -1);
  CHECK(kpw::scaled_value(q("1.5Gi"), 0) == 1610612736);
  CHECK(kpw::scaled_value(q("100m"), 0) == 1);
  CHECK(kpw::scaled_value(q("9e30"), 0) == INT64_MAX);
}

TEST_CASE("RB-2 usage: per-replica requests x scheduled replicas; components x clusters") {
  CHECK(listed(usage(R"({"replicaRequirements":{"resourceRequest":{"cpu":"500m","memory":"1Gi"}},)"
                     R"("clusters":[{"name":"m1","replicas":2},{"name":"m2","replicas":1}]})")) ==
        "cpu=1.5 memory=3221225472 ");
  // Nothing scheduled, no clusters, or zero replicas: no usage.
  CHECK(usage(R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}}})").empty());
  CHECK(usage(R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}},)"
              R"("clusters":[{"name":"m1"}]})")
            .empty());
  // A zero request is left out.
  CHECK(listed(usage(R"({"replicaRequirements":{"resourceRequest":{"cpu":"0","pods":"1"}},)"
                     R"("clusters":[{"name":"m1","replicas":3}]})")) == "pods=3 ");
  // Components: Σ (request × its replicas), times the number of clusters.
  CHECK(
      listed(usage(
          R"({"components":[)"
          R"({"name":"jm","replicas":1,"replicaRequirements":{"resourceRequest":{"cpu":"1"}}},)"
          R"({"name":"tm","replicas":3,"replicaRequirements":{"resourceRequest":{"cpu":"500m","memory":"2Gi"}}}],)"
          R"("clusters":[{"name":"m1"},{"name":"m2"}]})")) == "cpu=5 memory=12884901888 ");
  // A request that is not a quantity names its field.
  Doc bad(binding(R"({"replicaRequirements":{"resourceRequest":{"cpu":"lots"}},)"
                  R"("clusters":[{"name":"m1","replicas":1}]})"));
  ResourceAmounts out;
  CHECK(kpw::binding_usage(bad.value(), out).value_or("") ==
        "spec.replicaRequirements.resourceRequest.cpu: not a quantity");
}

TEST_CASE("RB-2 an UPDATE is charged only for a quota-relevant change") {
  const auto changed = [](std::string_view before, std::string_view after) {
    Doc a(binding(before));
    Doc b(binding(after));
    return kpw::quota_relevant_change(a.value(), b.value());
  };
  const std::string base =
      R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}},"clusters":[{"name":"m1","replicas":2}]})";
  CHECK_FALSE(changed(base, base));
  // 1 and 1000m are the same quantity (Cmp).
  CHECK_FALSE(changed(base, R"({"replicaRequirements":{"resourceRequest":{"cpu":"1000m"}},)"
                            R"("clusters":[{"name":"m1","replicas":2}]})"));
  CHECK(changed(base, R"({"replicaRequirements":{"resourceRequest":{"cpu":"2"}},)"
                      R"("clusters":[{"name":"m1","replicas":2}]})"));
  // The same total on other clusters is no change without components...
  CHECK_FALSE(changed(base, R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}},)"
                            R"("clusters":[{"name":"m2","replicas":2}]})"));
  CHECK(changed(base, R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}},)"
                      R"("clusters":[{"name":"m1","replicas":3}]})"));
  // ...and is one with them.
  const std::string comp = R"("components":[{"name":"a","replicas":1}])";
  CHECK(changed(R"({)" + comp + R"(,"clusters":[{"name":"m1"}]})",
                R"({)" + comp + R"(,"clusters":[{"name":"m2"}]})"));
  CHECK(changed(R"({)" + comp + R"(,"clusters":[{"name":"m1"}]})",
                R"({"components":[{"name":"a","replicas":2}],"clusters":[{"name":"m1"}]})"));
}

TEST_CASE("RB-2 one quota: charged, exceeded with upstream's message, or untouched") {
  ResourceAmounts used;
  std::string message;
  const QuotaEntry cpu2 = quota(R"({"cpu":"2"})", R"({"cpu":"1"})");
  REQUIRE(judge(cpu2, amounts({{"cpu", "500m"}}), used, message) == QuotaCheck::kCharged);
  // util.Resource keeps what is above zero.
  CHECK(patch_of(cpu2, used) ==
        R"({"metadata":{"resourceVersion":"7"},"status":{"overallUsed":{"cpu":"1500m"}}})");
  REQUIRE(judge(cpu2, amounts({{"cpu", "1500m"}}), used, message) == QuotaCheck::kExceeded);
  CHECK(message ==
        "FederatedResourceQuota(ns1/q) exceeded for resource cpu: requested sum 2500m, limit 2.");
  // Exactly at the limit passes.
  CHECK(judge(cpu2, amounts({{"cpu", "1"}}), used, message) == QuotaCheck::kCharged);
  // A charge of resources the quota does not limit touches nothing; neither does no overall.
  CHECK(judge(cpu2, amounts({{"memory", "1Gi"}}), used, message) == QuotaCheck::kUntouched);
  CHECK(judge(quota("null"), amounts({{"cpu", "1"}}), used, message) == QuotaCheck::kUntouched);
  // A negative charge (a scale down) is written too; usage back to zero leaves overallUsed out,
  // as upstream's write does, and zeros stored before are removed.
  REQUIRE(judge(cpu2, amounts({{"cpu", "-500m"}}), used, message) == QuotaCheck::kCharged);
  CHECK(listed(used) == "cpu=0.5 ");
  REQUIRE(judge(cpu2, amounts({{"cpu", "-1"}}), used, message) == QuotaCheck::kCharged);
  CHECK(used.empty());
  CHECK(patch_of(cpu2, used) ==
        R"({"metadata":{"resourceVersion":"7"},"status":{"overallUsed":null}})");
  const QuotaEntry zeros = quota(R"({"cpu":"4"})", R"({"cpu":"0","pods":"0","services":"2"})");
  REQUIRE(judge(zeros, amounts({{"cpu", "1"}}), used, message) == QuotaCheck::kCharged);
  CHECK(patch_of(zeros, used) == R"({"metadata":{"resourceVersion":"7"},"status":{"overallUsed":)"
                                 R"({"cpu":"1","pods":null,"services":null}}})");
}

TEST_CASE("RB-2 usage already over a limit denies any charge of the quota, first name first") {
  ResourceAmounts used;
  std::string message;
  const QuotaEntry over = quota(R"({"cpu":"10","memory":"1Gi"})", R"({"cpu":"1","memory":"2Gi"})");
  REQUIRE(judge(over, amounts({{"cpu", "1"}}), used, message) == QuotaCheck::kExceeded);
  CHECK(
      message ==
      "FederatedResourceQuota(ns1/q) exceeded for resource memory: requested sum 2Gi, limit 1Gi.");
}

TEST_CASE("RB-2 names util.Resource does not keep are dropped from what is written") {
  ResourceAmounts used;
  std::string message;
  const QuotaEntry q1 = quota(R"({"cpu":"4","nvidia.com/gpu":"2"})",
                              R"({"cpu":"1","foo":"3","nvidia.com/gpu":"1","bad":"x"})");
  REQUIRE(judge(q1, amounts({{"nvidia.com/gpu", "1"}}), used, message) == QuotaCheck::kCharged);
  CHECK(patch_of(q1, used) == R"({"metadata":{"resourceVersion":"7"},"status":{"overallUsed":)"
                              R"({"cpu":"1","nvidia.com/gpu":"2","foo":null,"bad":null}}})");
}

TEST_CASE("RB-2 D-Q2: a requests.<name> limit is charged <name>'s amount (upstream: never)") {
  ResourceAmounts used;
  std::string message;
  const QuotaEntry req = quota(R"({"requests.cpu":"1","requests.memory":"1Gi"})");
  REQUIRE(judge(req, amounts({{"cpu", "500m"}, {"memory", "512Mi"}}), used, message) ==
          QuotaCheck::kCharged);
  CHECK(patch_of(req, used) == R"({"metadata":{"resourceVersion":"7"},"status":{"overallUsed":)"
                               R"({"requests.cpu":"500m","requests.memory":"512Mi"}}})");
  REQUIRE(judge(req, amounts({{"cpu", "2"}}), used, message) == QuotaCheck::kExceeded);
  CHECK(message ==
        "FederatedResourceQuota(ns1/q) exceeded for resource requests.cpu: requested "
        "sum 2, limit 1.");
  // --strict-rules=warn: charged, and the limit exceeded said.
  REQUIRE(judge(req, amounts({{"cpu", "2"}}), used, message, kpw::StrictRules::kWarn) ==
          QuotaCheck::kCharged);
  CHECK(message ==
        "FederatedResourceQuota(ns1/q) exceeded for resource requests.cpu: requested "
        "sum 2, limit 1.");
  CHECK(listed(used) == "requests.cpu=2 ");
  // --strict-rules=off: upstream's arithmetic, which never charges them.
  CHECK(judge(req, amounts({{"cpu", "2"}}), used, message, kpw::StrictRules::kOff) ==
        QuotaCheck::kUntouched);
  // Never a freeze: usage over a requests.<name> limit does not hold back a charge that does not
  // add to it (a memory-only change here, or a scale down).
  const QuotaEntry over =
      quota(R"({"requests.cpu":"1","memory":"4Gi"})", R"({"requests.cpu":"3","memory":"1Gi"})");
  CHECK(judge(over, amounts({{"memory", "1Gi"}}), used, message) == QuotaCheck::kCharged);
  CHECK(judge(over, amounts({{"cpu", "-1"}}), used, message) == QuotaCheck::kCharged);
  CHECK(listed(used) == "memory=1073741824 requests.cpu=2 ");
  CHECK(judge(over, amounts({{"cpu", "1m"}}), used, message) == QuotaCheck::kExceeded);
}

TEST_CASE("RB-2 in the validator: what is charged, when, and how a denial is answered") {
  Recorder recorder;
  kpw::test::Call call;
  call.settings.quota = &recorder;
  const std::string scheduled = binding(
      R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}},"clusters":[{"name":"m1","replicas":2}]})");
  // A CREATE not yet scheduled: nothing to charge.
  CHECK(kpw::test::run(&kpw::validate_resource_binding,
                       binding(R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}}})"), call)
            .allowed());
  CHECK(recorder.charges.empty());
  CHECK(kpw::test::run(&kpw::validate_resource_binding, scheduled, call).allowed());
  REQUIRE(recorder.charges == std::vector<std::string>{"ns1/rb: cpu=2 "});
  // An UPDATE that changes nothing quota-relevant (the labels) is not charged.
  const std::string labelled =
      R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding",)"
      R"("metadata":{"name":"rb","namespace":"ns1","labels":{"a":"b"}},)"
      R"("spec":{"replicaRequirements":{"resourceRequest":{"cpu":"1"}},)"
      R"("clusters":[{"name":"m1","replicas":2}]}})";
  CHECK(kpw::test::run(&kpw::validate_resource_binding, labelled,
                       [&] {
                         kpw::test::Call c = kpw::test::Call::update_of(scheduled);
                         c.settings.quota = &recorder;
                         return c;
                       }())
            .allowed());
  CHECK(recorder.charges.size() == 1);
  // A scale down is charged the difference.
  kpw::test::Call down = kpw::test::Call::update_of(scheduled);
  down.settings.quota = &recorder;
  CHECK(kpw::test::run(&kpw::validate_resource_binding,
                       binding(R"({"replicaRequirements":{"resourceRequest":{"cpu":"1"}},)"
                               R"("clusters":[{"name":"m1","replicas":1}]})"),
                       down)
            .allowed());
  CHECK(recorder.charges.back() == "ns1/rb: cpu=-1 ");
  // A denial: code 403 and the quota's message; RB-3 is not reached.
  recorder.outcome.verdict = kpw::QuotaOutcome::Verdict::kDenied;
  recorder.outcome.code = 403;
  recorder.outcome.message = "FederatedResourceQuota(ns1/q) exceeded for resource cpu: ...";
  const kpw::test::Verdict denied =
      kpw::test::run(&kpw::validate_resource_binding, scheduled, call);
  CHECK(denied.code == 403);
  CHECK(denied.message == recorder.outcome.message);
  // A namespace without quotas: nothing computed, nothing charged.
  recorder.quotas_here = false;
  const std::size_t charged = recorder.charges.size();
  CHECK(kpw::test::run(&kpw::validate_resource_binding, scheduled, call).allowed());
  CHECK(recorder.charges.size() == charged);
  recorder.quotas_here = true;
  // RB-1 first: a bad annotation is denied before anything is charged.
  const std::size_t before = recorder.charges.size();
  CHECK_FALSE(
      kpw::test::run(
          &kpw::validate_resource_binding,
          R"({"metadata":{"name":"rb","annotations":{"resourcebinding.karmada.io/dependencies":"{"}},)"
          R"("spec":{"clusters":[{"name":"m1","replicas":1}],)"
          R"("replicaRequirements":{"resourceRequest":{"cpu":"1"}}}})",
          call)
          .allowed());
  CHECK(recorder.charges.size() == before);
}
