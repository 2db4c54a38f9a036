#include "server/metrics.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "util/prometheus.hpp"

namespace kpw::metrics {
namespace {

using prometheus::append_number;
using prometheus::header;
using prometheus::sample;

using Counter = std::atomic<std::uint64_t>;
constexpr auto kRelaxed = std::memory_order_relaxed;

// The HTTP statuses this server sends; anything else, and an abandoned request, counts under
// code "other" (slot kOther).
constexpr std::array<unsigned, 8> kCodes = {200, 400, 404, 405, 413, 429, 500, 503};
constexpr std::size_t kOther = kCodes.size();
// controller-runtime's buckets (Prometheus defaults) with finer ones below 5 ms, where reviews
// actually land.
constexpr std::array<double, 16> kBuckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                             0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                             1,      2.5,     5,      10};

// What every request of a webhook updates, one shard per thread (Registry::shards): the event
// loops serving one path each write their own cache lines. When two cores incremented the same
// counters, each of a request's seven updates fetched its line from the other core first
// (review_bench BM_RequestMetrics; docs/performance.md). A series' figure is the sum of its shards.
struct alignas(64) RequestCounters {
  std::array<Counter, kCodes.size() + 1> requests{};   // last: "other"
  std::array<Counter, kBuckets.size() + 1> buckets{};  // last: +Inf only
  Counter latency_count{0};
  Counter latency_sum_ns{0};
  // Started minus finished on this shard's threads: negative when a request ends on another
  // thread than it started on; the sum over shards is the gauge.
  std::atomic<std::int64_t> in_flight{0};
  std::array<std::array<Counter, 2>, kOperationCount> admissions{};  // [operation][allowed]
};

struct WebhookSeries {
  std::unique_ptr<RequestCounters[]> shards;
  Counter failures{0};  // handlers that threw
  // [rule][action], rule by its place in `rules`; one more row for a rule not listed.
  std::span<const Rule> rules;
  std::unique_ptr<std::array<Counter, kRuleActionCount>[]> violations;
};

struct Registry {
  // Sized by set_webhooks, before serving; read-only after.
  std::unique_ptr<WebhookSeries[]> webhooks;
  std::size_t shards = 1;                         // RequestCounters per webhook
  std::vector<std::string> webhook_labels;        // `webhook="/validate-…"`, by index
  std::function<void(std::string&)> render_more;  // set_more, before serving
  std::string build_labels;                       // set_build_info, before serving
  std::atomic<long> open_connections{0};
  Counter connections_total{0};
  Counter memory_events{0};
  std::atomic<std::size_t> body_bytes{0};
  Counter body_refused{0};
  Counter connections_refused{0};
  Counter connection_failures{0};
  std::atomic<std::int64_t> large_in_flight{0};
  Counter large_total{0};
  Counter large_refused{0};
  Counter handshake_failures{0};
  Counter reloads_ok{0};
  Counter reloads_failed{0};
};

Registry& registry() {
  static Registry r;
  return r;
}

// A server that did not call set_webhooks (the benchmark ceiling) keeps no series.
WebhookSeries* series(int webhook) {
  Registry& r = registry();
  if (webhook < 0 || static_cast<std::size_t>(webhook) >= r.webhook_labels.size()) return nullptr;
  return &r.webhooks[static_cast<std::size_t>(webhook)];
}

// The shard the calling thread counts into (count_on_shard), modulo the number of shards.
thread_local std::size_t t_shard = 0;

RequestCounters& own_shard(WebhookSeries& s) { return s.shards[t_shard % registry().shards]; }

// A series' RequestCounters summed over its shards, as render reads them.
struct RequestTotals {
  std::array<std::uint64_t, kCodes.size() + 1> requests{};
  std::array<std::uint64_t, kBuckets.size() + 1> buckets{};
  std::uint64_t latency_count = 0;
  std::uint64_t latency_sum_ns = 0;
  std::int64_t in_flight = 0;
  std::array<std::array<std::uint64_t, 2>, kOperationCount> admissions{};
};

RequestTotals totals_of(const WebhookSeries& s) {
  RequestTotals t;
  for (std::size_t i = 0; i < registry().shards; ++i) {
    const RequestCounters& k = s.shards[i];
    for (std::size_t c = 0; c < t.requests.size(); ++c)
      t.requests[c] += k.requests[c].load(kRelaxed);
    for (std::size_t b = 0; b < t.buckets.size(); ++b) t.buckets[b] += k.buckets[b].load(kRelaxed);
    t.latency_count += k.latency_count.load(kRelaxed);
    t.latency_sum_ns += k.latency_sum_ns.load(kRelaxed);
    t.in_flight += k.in_flight.load(kRelaxed);
    for (std::size_t op = 0; op < kOperationCount; ++op) {
      for (std::size_t a = 0; a < 2; ++a) t.admissions[op][a] += k.admissions[op][a].load(kRelaxed);
    }
  }
  return t;
}

std::size_t code_slot(RequestEnd end, unsigned status) {
  if (end == RequestEnd::kAbandoned) return kOther;
  for (std::size_t i = 0; i < kCodes.size(); ++i) {
    if (kCodes[i] == status) return i;
  }
  return kOther;
}

}  // namespace

void set_webhooks(std::span<const WebhookSeriesSpec> webhooks, std::size_t threads) {
  Registry& r = registry();
  r.shards = std::max<std::size_t>(threads, 1);
  r.webhooks = std::make_unique<WebhookSeries[]>(webhooks.size());
  r.webhook_labels.clear();
  for (std::size_t i = 0; i < webhooks.size(); ++i) {
    r.webhook_labels.push_back("webhook=\"" + std::string(webhooks[i].path) + "\"");
    WebhookSeries& s = r.webhooks[i];
    s.shards = std::make_unique<RequestCounters[]>(r.shards);
    s.rules = webhooks[i].rules;
    s.violations = std::make_unique<std::array<Counter, kRuleActionCount>[]>(s.rules.size() + 1);
  }
}

void count_on_shard(std::size_t number) { t_shard = number; }

void request_started(int webhook) {
  if (WebhookSeries* s = series(webhook)) own_shard(*s).in_flight.fetch_add(1, kRelaxed);
}

void request_finished(int webhook, RequestEnd end, unsigned status, double seconds,
                      const ReviewOutcome& outcome) {
  WebhookSeries* const w = series(webhook);
  if (w == nullptr) return;
  RequestCounters* const s = &own_shard(*w);
  s->in_flight.fetch_sub(1, kRelaxed);
  s->requests[code_slot(end, status)].fetch_add(1, kRelaxed);
  std::size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  s->buckets[bucket].fetch_add(1, kRelaxed);
  s->latency_count.fetch_add(1, kRelaxed);
  s->latency_sum_ns.fetch_add(static_cast<std::uint64_t>(seconds * 1e9), kRelaxed);
  if (end == RequestEnd::kAnswered && outcome.reviewed) {
    s->admissions[static_cast<std::size_t>(outcome.operation)][outcome.allowed ? 1 : 0].fetch_add(
        1, kRelaxed);
  }
}

void rule_violations(int webhook, Rule rule, RuleAction action, std::uint32_t count) {
  if (WebhookSeries* s = series(webhook)) {
    // A kind lists a few dozen rules and a review meets a handful: a short scan, no lock.
    const auto it = std::find(s->rules.begin(), s->rules.end(), rule);
    const auto row = static_cast<std::size_t>(it - s->rules.begin());
    s->violations[row][static_cast<std::size_t>(action)].fetch_add(count, kRelaxed);
  }
}

void review_failed(int webhook) {
  if (WebhookSeries* s = series(webhook)) s->failures.fetch_add(1, kRelaxed);
}
void connection_failed() { registry().connection_failures.fetch_add(1, kRelaxed); }
void large_review_started() {
  registry().large_in_flight.fetch_add(1, kRelaxed);
  registry().large_total.fetch_add(1, kRelaxed);
}
void large_review_finished() {
  registry().large_in_flight.fetch_sub(1, kRelaxed);
  registry().memory_events.fetch_add(1, kRelaxed);
}
void large_review_refused() { registry().large_refused.fetch_add(1, kRelaxed); }
std::atomic<std::size_t>& body_bytes_in_flight() { return registry().body_bytes; }
void body_budget_refused() { registry().body_refused.fetch_add(1, kRelaxed); }
long large_reviews_in_flight() {
  return static_cast<long>(registry().large_in_flight.load(kRelaxed));
}

void connection_opened() {
  registry().open_connections.fetch_add(1, kRelaxed);
  registry().connections_total.fetch_add(1, kRelaxed);
}
void connection_closed() {
  registry().open_connections.fetch_sub(1, kRelaxed);
  registry().memory_events.fetch_add(1, kRelaxed);
}
void connection_buffers_released() { registry().memory_events.fetch_add(1, kRelaxed); }
unsigned long take_memory_events() { return registry().memory_events.exchange(0, kRelaxed); }
void connection_refused() { registry().connections_refused.fetch_add(1, kRelaxed); }
void tls_handshake_failed() { registry().handshake_failures.fetch_add(1, kRelaxed); }
void certificate_reloaded(bool ok) {
  (ok ? registry().reloads_ok : registry().reloads_failed).fetch_add(1, kRelaxed);
}
long open_connections() { return registry().open_connections.load(kRelaxed); }

void render(std::string& out) {
  const std::vector<std::string>& labels = registry().webhook_labels;
  const std::size_t n = labels.size();
  std::vector<RequestTotals> totals;
  totals.reserve(n);
  for (std::size_t i = 0; i < n; ++i) totals.push_back(totals_of(registry().webhooks[i]));

  header(out, "controller_runtime_webhook_requests_total", "counter",
         "Total number of admission requests by HTTP status code.");
  for (std::size_t i = 0; i < n; ++i) {
    const RequestTotals& s = totals[i];
    for (std::size_t c = 0; c <= kOther; ++c) {
      const std::uint64_t v = s.requests[c];
      if (v == 0 && (c == kOther || kCodes[c] != 200)) continue;
      const std::string code = c == kOther ? "other" : std::to_string(kCodes[c]);
      sample(out, "controller_runtime_webhook_requests_total", "code=\"" + code + "\"," + labels[i],
             static_cast<double>(v));
    }
  }

  header(out, "controller_runtime_webhook_latency_seconds", "histogram",
         "Histogram of the latency of processing admission requests");
  for (std::size_t i = 0; i < n; ++i) {
    const RequestTotals& s = totals[i];
    const std::string& label = labels[i];
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b < kBuckets.size(); ++b) {
      cumulative += s.buckets[b];
      std::string le;
      append_number(le, kBuckets[b]);
      sample(out, "controller_runtime_webhook_latency_seconds_bucket", label + ",le=\"" + le + "\"",
             static_cast<double>(cumulative));
    }
    cumulative += s.buckets[kBuckets.size()];
    sample(out, "controller_runtime_webhook_latency_seconds_bucket", label + ",le=\"+Inf\"",
           static_cast<double>(cumulative));
    sample(out, "controller_runtime_webhook_latency_seconds_sum", label,
           static_cast<double>(s.latency_sum_ns) / 1e9);
    sample(out, "controller_runtime_webhook_latency_seconds_count", label,
           static_cast<double>(s.latency_count));
  }

  header(out, "controller_runtime_webhook_requests_in_flight", "gauge",
         "Current number of admission requests being served.");
  for (std::size_t i = 0; i < n; ++i) {
    sample(out, "controller_runtime_webhook_requests_in_flight", labels[i],
           static_cast<double>(totals[i].in_flight));
  }

  header(out, "karmada_policy_webhook_admission_total", "counter",
         "Admission reviews answered, by operation and verdict.");
  for (std::size_t i = 0; i < n; ++i) {
    const RequestTotals& s = totals[i];
    for (std::size_t op = 0; op < kOperationCount; ++op) {
      for (int allowed = 1; allowed >= 0; --allowed) {
        const std::uint64_t v = s.admissions[op][static_cast<std::size_t>(allowed)];
        if (v == 0) continue;
        sample(out, "karmada_policy_webhook_admission_total",
               labels[i] + ",operation=\"" +
                   std::string(operation_name(static_cast<Operation>(op))) + "\",allowed=\"" +
                   (allowed ? "true" : "false") + "\"",
               static_cast<double>(v));
      }
    }
  }

  header(out, "karmada_policy_webhook_rule_violations_total", "counter",
         "Rule violations met, by rule ID and what became of them: deny, warn "
         "(--strict-rules=warn) or ratchet (unchanged on UPDATE, or the object is being deleted).");
  for (std::size_t i = 0; i < n; ++i) {
    const WebhookSeries& s = registry().webhooks[i];
    for (std::size_t row = 0; row <= s.rules.size(); ++row) {
      const std::string_view id = row < s.rules.size() ? rule_id(s.rules[row]) : "unlisted";
      for (std::size_t a = 0; a < kRuleActionCount; ++a) {
        const std::uint64_t v = s.violations[row][a].load(kRelaxed);
        if (v == 0) continue;
        sample(out, "karmada_policy_webhook_rule_violations_total",
               labels[i] + ",rule=\"" + std::string(id) + "\",action=\"" +
                   std::string(rule_action_name(static_cast<RuleAction>(a))) + "\"",
               static_cast<double>(v));
      }
    }
  }

  header(out, "karmada_policy_webhook_review_failures_total", "counter",
         "Reviews whose handler threw (answered with code 500; the server went on).");
  for (std::size_t i = 0; i < n; ++i) {
    sample(out, "karmada_policy_webhook_review_failures_total", labels[i],
           static_cast<double>(registry().webhooks[i].failures.load(kRelaxed)));
  }

  const Registry& r = registry();
  using prometheus::Single;
  prometheus::singles(
      out,
      {
          Single{"karmada_policy_webhook_connection_failures_total", "counter",
                 "Connections closed because something threw outside a review's handler.",
                 static_cast<double>(r.connection_failures.load(kRelaxed))},
          Single{"karmada_policy_webhook_large_reviews_in_flight", "gauge",
                 "Reviews over --large-review-bytes queued or judged on the review threads.",
                 static_cast<double>(r.large_in_flight.load(kRelaxed))},
          Single{"karmada_policy_webhook_large_reviews_total", "counter",
                 "Reviews over --large-review-bytes admitted to the review threads.",
                 static_cast<double>(r.large_total.load(kRelaxed))},
          Single{"karmada_policy_webhook_large_reviews_refused_total", "counter",
                 "Reviews over --large-review-bytes refused with HTTP 429 (--max-large-reviews "
                 "in flight).",
                 static_cast<double>(r.large_refused.load(kRelaxed))},
          Single{"karmada_policy_webhook_body_bytes_in_flight", "gauge",
                 "Bytes of request bodies held at once, counted as they arrive.",
                 static_cast<double>(r.body_bytes.load(kRelaxed))},
          Single{"karmada_policy_webhook_body_bytes_refused_total", "counter",
                 "Requests refused with HTTP 429 because their body would pass "
                 "--max-body-bytes-in-flight.",
                 static_cast<double>(r.body_refused.load(kRelaxed))},
          Single{"karmada_policy_webhook_open_connections", "gauge", "Open client connections.",
                 static_cast<double>(r.open_connections.load(kRelaxed))},
          Single{"karmada_policy_webhook_connections_total", "counter", "Accepted connections.",
                 static_cast<double>(r.connections_total.load(kRelaxed))},
          Single{"karmada_policy_webhook_connections_refused_total", "counter",
                 "Connections refused over --max-connections.",
                 static_cast<double>(r.connections_refused.load(kRelaxed))},
          Single{"karmada_policy_webhook_tls_handshake_failures_total", "counter",
                 "TLS handshakes that failed or timed out.",
                 static_cast<double>(r.handshake_failures.load(kRelaxed))},
      });
  header(out, "karmada_policy_webhook_certificate_reloads_total", "counter",
         "Serving certificate reloads after the files changed, by result.");
  sample(out, "karmada_policy_webhook_certificate_reloads_total", "result=\"success\"",
         static_cast<double>(r.reloads_ok.load(kRelaxed)));
  sample(out, "karmada_policy_webhook_certificate_reloads_total", "result=\"failure\"",
         static_cast<double>(r.reloads_failed.load(kRelaxed)));
  if (!r.build_labels.empty()) {
    header(out, "karmada_policy_webhook_build_info", "gauge",
           "1, labelled with this binary's version, git commit and the Karmada version whose "
           "karmada-webhook it matches.");
    sample(out, "karmada_policy_webhook_build_info", r.build_labels, 1);
  }
  if (r.render_more) r.render_more(out);
}

void set_build_info(std::string labels) { registry().build_labels = std::move(labels); }

void set_more(std::function<void(std::string&)> render_more) {
  registry().render_more = std::move(render_more);
}

}  // namespace kpw::metrics
