// What a port serves: its limits and one answer function (the review port: reviews and the
// probes; the probe port: the probes; the metrics port: /metrics). The sessions, the writer and
// every bound are the same for all three (http_session.hpp).
#pragma once

#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "admission/answer.hpp"
#include "admission/route.hpp"
#include "server/server.hpp"

namespace kpw {

struct ServerState;

// The bounds of one request on a port, and of the wait for the next.
struct Limits {
  std::size_t max_header_bytes = 0;
  std::size_t max_body_bytes = 0;
  std::chrono::milliseconds header_timeout{0};  // first byte of a request to its last header
  std::chrono::milliseconds read_timeout{0};    // first byte of a request to its last byte
  std::chrono::milliseconds idle_timeout{0};    // between requests on a keep-alive connection
};

// The paths a port answers besides the route table's.
enum class KnownPath : std::uint8_t { kOther, kHealthz, kReadyz, kMetrics };

// What a request's target names, found once when its header arrives and carried with it.
struct Target {
  const Route* route = nullptr;  // the route table's row (review port only); nullptr: none
  KnownPath known = KnownPath::kOther;
};

// One request read whole, as an answer function sees it. Views into the session's head and body:
// valid until the answer is written.
struct Request {
  boost::beast::http::verb method;
  std::string_view method_text;
  std::string_view content_type;
  std::string& body;  // parsed in place by a review: garbage afterwards
  const Target& target;
};

// A port's answer to one request (on the connection's loop, or on a review thread for a large
// body): sets `answer` through its named constructors.
using AnswerFn = void (*)(const Request& request, const ServerState& state, HttpAnswer& answer);

struct Port {
  AnswerFn answer = nullptr;
  // The route table's port: paths are looked up there at the header, and a large body takes a
  // slot of the review threads (or is refused with 429).
  bool routes = false;
  std::string_view allow;  // the method a 405 names in `Allow`
  Limits limits;
};

// The HTTPS port: reviews (handle_http, through the server's RequestFn), and GET /healthz and
// /readyz (and /readyz/, /healthz/: upstream's answers there), as Karmada's installers probe
// https://:8443/readyz.
Port review_port(const ServerOptions& options);
// --health-probe-bind-address: GET /healthz and /readyz.
Port probe_port(const ServerOptions& options);
// --metrics-bind-address: GET /metrics.
Port metrics_port(const ServerOptions& options);

// The request target (origin or absolute form, with its query) as the port reads it.
Target find_target(const Port& port, std::string_view request_target);

// The probes, answered alike on every port: /healthz while the process runs, /readyz until
// draining begins. Readiness says whether this process can answer reviews, nothing else: it never
// depends on the API server (docs/operations.md, "Readiness").
void answer_probe(KnownPath probe, const ServerState& state, HttpAnswer& answer);

}  // namespace kpw
