// Prometheus metrics, kept in atomics (no lock on the request path) and rendered as text.
// Names and labels of the controller_runtime_webhook_* series are controller-runtime's, so
// dashboards made for upstream's webhook keep working.
#pragma once

#include <atomic>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "admission/rules.hpp"
#include "admission/service.hpp"

namespace kpw::metrics {

// A webhook to keep series for: its path, and the rules its handler may report (one
// rule_violations row each; a rule not listed is counted under rule="unlisted").
struct WebhookSeriesSpec {
  std::string_view path;
  std::span<const Rule> rules;
};

// The webhooks to keep series for, by index (WebhookRoute::index). Set once before serving;
// each one gets its series, however many there are (without it, none). `threads`: the event loops
// that will count requests, each into counters of its own (count_on_shard).
void set_webhooks(std::span<const WebhookSeriesSpec> webhooks, std::size_t threads = 1);
// The calling thread counts its requests into counters of its own, number `number` (modulo the
// `threads` of set_webhooks): event loop n calls it with n before serving, so two loops never
// write one cache line. A thread that does not call it counts with loop 0 (still exactly: the
// counters are atomic).
void count_on_shard(std::size_t number);

// How a request ended: answered, or abandoned (its connection ended before an answer was sent,
// counted under code "other").
enum class RequestEnd { kAnswered, kAbandoned };

// webhook: an index of the paths given to set_webhooks; -1 (no webhook) is not counted.
void request_started(int webhook);
// status: the HTTP status sent; the operation and verdict count for an answered review
// (`outcome.reviewed`).
void request_finished(int webhook, RequestEnd end, unsigned status, double seconds,
                      const ReviewOutcome& outcome);

// A review met `count` violations of `rule` that ended with `action` (deny, warn, ratchet).
void rule_violations(int webhook, Rule rule, RuleAction action, std::uint32_t count);

// A handler threw: answered with code 500.
void review_failed(int webhook);
// Something threw outside a handler and escaped to the event loop: that connection was closed.
void connection_failed();
// Large reviews (judged on the review threads): one more / one fewer in flight, and one refused
// because --max-large-reviews were in flight already.
void large_review_started();
void large_review_finished();
void large_review_refused();
long large_reviews_in_flight();
// The bytes of request bodies every connection holds (ServerOptions::max_body_bytes_in_flight):
// the sessions add what arrives and take it back when the request ends.
std::atomic<std::size_t>& body_bytes_in_flight();
void body_budget_refused();

void connection_opened();
void connection_closed();
void connection_refused();  // over --max-connections
void tls_handshake_failed();
void certificate_reloaded(bool ok);

long open_connections();
// Connections closed and large reviews answered since the last call: events after which memory
// may be given back to the system.
unsigned long take_memory_events();
// An idle connection let its TLS record buffers go: another such event.
void connection_buffers_released();

// The text exposition format (version 0.0.4).
void render(std::string& out);
// karmada_policy_webhook_build_info's labels (`version="0.1.0",commit="…",…`), set once before
// serving; without them the metric is not rendered (the bench servers).
void set_build_info(std::string labels);
// Metrics of another part (the watch cache), appended by render; set once before serving.
void set_more(std::function<void(std::string&)> render_more);

}  // namespace kpw::metrics
