#include "server/port.hpp"

#include <algorithm>

#include "server/metrics.hpp"
#include "server/server_state.hpp"

namespace kpw {
namespace {

namespace http = boost::beast::http;
using std::chrono::milliseconds;

// The probe and metrics ports take GET requests without a body: no wait there is longer than
// this, whatever the review port allows.
constexpr milliseconds kPlainMaxWait{10'000};
// A body on a GET is read and ignored up to this (beyond it: 413 and close).
constexpr std::size_t kPlainMaxBodyBytes = 4096;

// Prometheus' text exposition format.
constexpr std::string_view kExpositionType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kNotFound = "404 page not found\n";
constexpr std::string_view kGetOnly = "405 method not allowed\n";

// The path of an absolute-form target (`https://host:port/path?q`, RFC 9112 §3.2.2), else the
// target as sent.
std::string_view origin_form(std::string_view target) {
  const std::size_t scheme = target.find("://");
  if (scheme == std::string_view::npos || target.front() == '/') return target;
  const std::size_t path = target.find('/', scheme + 3);
  return path == std::string_view::npos ? std::string_view("/") : target.substr(path);
}

KnownPath known_path(std::string_view path) {
  // With a trailing slash too: upstream's server answers /readyz/ (its /readyz redirects there).
  if (path == "/healthz" || path == "/healthz/") return KnownPath::kHealthz;
  if (path == "/readyz" || path == "/readyz/") return KnownPath::kReadyz;
  if (path == "/metrics") return KnownPath::kMetrics;
  return KnownPath::kOther;
}

bool is_probe(KnownPath path) { return path == KnownPath::kHealthz || path == KnownPath::kReadyz; }

// HEAD is answered as GET; the session drops the body.
bool is_get(http::verb method) { return method == http::verb::get || method == http::verb::head; }

void answer_review_port(const Request& r, const ServerState& state, HttpAnswer& answer) {
  if (r.method == http::verb::get && is_probe(r.target.known)) {
    return answer_probe(r.target.known, state, answer);
  }
  state.handler(r.target.route, r.method_text, r.content_type, r.body, answer);
}

void answer_probe_port(const Request& r, const ServerState& state, HttpAnswer& answer) {
  if (!is_get(r.method)) return answer.plain(405, kGetOnly);
  if (!is_probe(r.target.known)) return answer.plain(404, kNotFound);
  answer_probe(r.target.known, state, answer);
}

void answer_metrics_port(const Request& r, const ServerState&, HttpAnswer& answer) {
  if (!is_get(r.method)) return answer.plain(405, kGetOnly);
  if (r.target.known != KnownPath::kMetrics) return answer.plain(404, kNotFound);
  answer.plain(200, {});
  // HttpAnswer has no named answer for the exposition format: plain text with its version.
  answer.content_type = kExpositionType;
  metrics::render(answer.body);
}

Limits plain_limits(const ServerOptions& o) {
  Limits limits;
  limits.max_header_bytes = o.max_header_bytes;
  limits.max_body_bytes = kPlainMaxBodyBytes;
  limits.header_timeout = std::min(o.header_timeout, kPlainMaxWait);
  limits.read_timeout = std::min(o.read_timeout, kPlainMaxWait);
  limits.idle_timeout = std::min(o.idle_timeout, kPlainMaxWait);
  return limits;
}

}  // namespace

Port review_port(const ServerOptions& o) {
  Port port;
  port.answer = answer_review_port;
  port.routes = true;
  port.allow = "POST";
  port.limits.max_header_bytes = o.max_header_bytes;
  port.limits.max_body_bytes = o.max_request_bytes;
  port.limits.header_timeout = o.header_timeout;
  port.limits.read_timeout = o.read_timeout;
  port.limits.idle_timeout = o.idle_timeout;
  return port;
}

Port probe_port(const ServerOptions& o) {
  Port port;
  port.answer = answer_probe_port;
  port.allow = "GET";
  port.limits = plain_limits(o);
  return port;
}

Port metrics_port(const ServerOptions& o) {
  Port port;
  port.answer = answer_metrics_port;
  port.allow = "GET";
  port.limits = plain_limits(o);
  return port;
}

Target find_target(const Port& port, std::string_view request_target) {
  const std::string_view origin = origin_form(request_target);
  const std::string_view path = origin.substr(0, origin.find('?'));
  Target target;
  if (port.routes) target.route = find_route(path);
  if (target.route == nullptr) target.known = known_path(path);
  return target;
}

void answer_probe(KnownPath probe, const ServerState& state, HttpAnswer& answer) {
  answer.probe(probe == KnownPath::kHealthz || (state.ready && !state.stopping));
}

}  // namespace kpw
