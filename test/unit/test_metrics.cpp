// The Prometheus series: one per webhook the server is given, however many, and the labels
// dashboards made for upstream's webhook read.
#include <array>
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "admission/review.hpp"
#include "admission/route.hpp"
#include "admission/service.hpp"
#include "server/metrics.hpp"

namespace {

namespace metrics = kpw::metrics;

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

// `count` webhooks, /hook-0 … /hook-<count-1>, with fresh series.
std::vector<std::string> set_hooks(std::size_t count) {
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < count; ++i) paths.push_back("/hook-" + std::to_string(i));
  std::vector<metrics::WebhookSeriesSpec> specs;
  for (const std::string& p : paths) specs.push_back({p, {}});
  metrics::set_webhooks(specs);
  return paths;
}

kpw::ReviewOutcome reviewed(kpw::Operation operation, bool allowed) {
  kpw::ReviewOutcome outcome;
  outcome.reviewed = true;
  outcome.operation = operation;
  outcome.allowed = allowed;
  return outcome;
}

}  // namespace

TEST_CASE("metrics: every webhook given at start-up has its series, past 16 too") {
  set_hooks(40);
  metrics::request_started(39);
  metrics::request_finished(39, metrics::RequestEnd::kAnswered, 200, 0.001,
                            reviewed(kpw::Operation::kCreate, true));
  std::string text;
  metrics::render(text);
  CHECK(has_line(text,
                 R"(controller_runtime_webhook_requests_total{code="200",webhook="/hook-39"} 1)"));
  CHECK(has_line(text, R"(controller_runtime_webhook_requests_in_flight{webhook="/hook-39"} 0)"));
  CHECK(has_line(
      text,
      R"(karmada_policy_webhook_admission_total{webhook="/hook-39",operation="CREATE",allowed="true"} 1)"));
  CHECK(has_line(text,
                 R"(controller_runtime_webhook_requests_total{code="200",webhook="/hook-0"} 0)"));
}

TEST_CASE("metrics: the server's webhooks are the route table's, each with its series") {
  std::vector<metrics::WebhookSeriesSpec> specs;
  for (const kpw::Route& r : kpw::routes()) specs.push_back({r.path, r.rules});
  metrics::set_webhooks(specs);
  REQUIRE(!kpw::routes().empty());
  for (const kpw::Route& w : kpw::routes()) {
    REQUIRE(kpw::find_route(w.path) == &w);
    CHECK(specs[kpw::route_index(w)].path == w.path);
  }
  std::string text;
  metrics::render(text);
  for (const kpw::Route& w : kpw::routes()) {
    CHECK(has_line(text, R"(controller_runtime_webhook_requests_in_flight{webhook=")" +
                             std::string(w.path) + R"("} 0)"));
  }
}

TEST_CASE("metrics: an abandoned request counts under code other, its verdict not at all") {
  set_hooks(2);
  metrics::request_started(1);
  metrics::request_finished(1, metrics::RequestEnd::kAbandoned, 200, 0.001,
                            reviewed(kpw::Operation::kCreate, true));
  metrics::request_started(1);
  metrics::request_finished(1, metrics::RequestEnd::kAnswered, 418, 0.001, kpw::ReviewOutcome{});
  std::string text;
  metrics::render(text);
  CHECK(has_line(text,
                 R"(controller_runtime_webhook_requests_total{code="other",webhook="/hook-1"} 2)"));
  CHECK(has_line(text,
                 R"(controller_runtime_webhook_requests_total{code="200",webhook="/hook-1"} 0)"));
  CHECK(text.find("karmada_policy_webhook_admission_total{") == std::string::npos);
  CHECK(text.find(R"(code="other",webhook="/hook-0")") == std::string::npos);
}

TEST_CASE("metrics: admissions are labelled with the operation as the API server spells it") {
  set_hooks(1);
  for (const auto op : {kpw::Operation::kCreate, kpw::Operation::kUpdate, kpw::Operation::kDelete,
                        kpw::Operation::kConnect}) {
    metrics::request_started(0);
    metrics::request_finished(0, metrics::RequestEnd::kAnswered, 200, 0.001, reviewed(op, false));
  }
  std::string text;
  metrics::render(text);
  for (const std::string_view name : {"CREATE", "UPDATE", "DELETE", "CONNECT"}) {
    CHECK(has_line(text, R"(karmada_policy_webhook_admission_total{webhook="/hook-0",operation=")" +
                             std::string(name) + R"(",allowed="false"} 1)"));
  }
}

TEST_CASE("metrics: rule violations by the webhook's own rules, an unlisted one counted too") {
  static constexpr kpw::RuleInfo kListed{"T-1", kpw::RuleClass::kStrict, kpw::RatchetScope::kField,
                                         "", "a listed rule"};
  static constexpr kpw::RuleInfo kUnlisted{"T-2", kpw::RuleClass::kStrict,
                                           kpw::RatchetScope::kField, "", "an unlisted rule"};
  static constexpr std::array<kpw::Rule, 1> kRules = {kListed};
  const std::array<metrics::WebhookSeriesSpec, 1> specs = {{{"/hook-r", kRules}}};
  metrics::set_webhooks(specs);
  metrics::rule_violations(0, kListed, kpw::RuleAction::kDeny, 2);
  metrics::rule_violations(0, kListed, kpw::RuleAction::kRatchet, 1);
  metrics::rule_violations(0, kUnlisted, kpw::RuleAction::kWarn, 3);
  std::string text;
  metrics::render(text);
  CHECK(has_line(
      text,
      R"(karmada_policy_webhook_rule_violations_total{webhook="/hook-r",rule="T-1",action="deny"} 2)"));
  CHECK(has_line(
      text,
      R"(karmada_policy_webhook_rule_violations_total{webhook="/hook-r",rule="T-1",action="ratchet"} 1)"));
  CHECK(has_line(
      text,
      R"(karmada_policy_webhook_rule_violations_total{webhook="/hook-r",rule="unlisted",action="warn"} 3)"));
  CHECK(text.find("rule=\"T-2\"") == std::string::npos);
}

TEST_CASE("metrics: each event loop counts into its own shard, and the series are their sums") {
  std::vector<metrics::WebhookSeriesSpec> specs = {{"/hook-s", {}}};
  metrics::set_webhooks(specs, 3);
  // Four threads on three shards (the fourth shares loop 0's), 1 000 requests each.
  std::vector<std::thread> loops;
  for (std::size_t n = 0; n < 4; ++n) {
    loops.emplace_back([n] {
      metrics::count_on_shard(n);
      for (int i = 0; i < 1000; ++i) {
        metrics::request_started(0);
        metrics::request_finished(0, metrics::RequestEnd::kAnswered, 200, 0.0002 * (n + 1),
                                  reviewed(kpw::Operation::kUpdate, n % 2 == 0));
      }
    });
  }
  for (std::thread& t : loops) t.join();
  // A request started on loop 2's shard and finished on loop 1's: in flight nowhere after it.
  metrics::count_on_shard(2);
  metrics::request_started(0);
  metrics::request_started(0);
  metrics::count_on_shard(1);
  metrics::request_finished(0, metrics::RequestEnd::kAnswered, 400, 0.004, kpw::ReviewOutcome{});
  metrics::count_on_shard(0);
  std::string text;
  metrics::render(text);
  CHECK(has_line(
      text, R"(controller_runtime_webhook_requests_total{code="200",webhook="/hook-s"} 4000)"));
  CHECK(has_line(text,
                 R"(controller_runtime_webhook_requests_total{code="400",webhook="/hook-s"} 1)"));
  CHECK(has_line(text, R"(controller_runtime_webhook_requests_in_flight{webhook="/hook-s"} 1)"));
  CHECK(has_line(text,
                 R"(controller_runtime_webhook_latency_seconds_count{webhook="/hook-s"} 4001)"));
  // 0.2 ms and 0.6 ms (loops 0 and 2) are at or under 1 ms; 0.4 and 0.8 too; 4 ms is not.
  CHECK(has_line(
      text,
      R"(controller_runtime_webhook_latency_seconds_bucket{webhook="/hook-s",le="0.00025"} 1000)"));
  CHECK(has_line(
      text,
      R"(controller_runtime_webhook_latency_seconds_bucket{webhook="/hook-s",le="0.001"} 4000)"));
  CHECK(has_line(
      text,
      R"(controller_runtime_webhook_latency_seconds_bucket{webhook="/hook-s",le="+Inf"} 4001)"));
  CHECK(has_line(
      text,
      R"(karmada_policy_webhook_admission_total{webhook="/hook-s",operation="UPDATE",allowed="true"} 2000)"));
  CHECK(has_line(
      text,
      R"(karmada_policy_webhook_admission_total{webhook="/hook-s",operation="UPDATE",allowed="false"} 2000)"));
}
