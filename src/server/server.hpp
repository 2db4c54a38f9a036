// The HTTPS listener: Boost.Beast HTTP/1.1 over OpenSSL, keep-alive, one session per connection,
// N I/O threads; a request is answered inline by a RequestFn (no thread hop, no lock), unless its
// body is large: then it is judged on a review thread, so it cannot delay the others.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/service.hpp"

namespace kpw {

enum class TlsMinVersion { kTls12, kTls13 };

struct ServerOptions {
  std::string bind_address = "0.0.0.0";
  unsigned short port = 8443;
  std::string cert_file;
  std::string key_file;
  TlsMinVersion tls_min_version = TlsMinVersion::kTls13;
  std::size_t max_request_bytes = kDefaultMaxRequestBytes;
  std::size_t max_header_bytes = 16 * 1024;
  unsigned threads = 1;
  // Bodies over large_review_bytes (an eighth of it for a mutator whose answer can be tens of
  // times its body: Route::large_divisor) are judged on review_threads threads (at a lower CPU
  // priority) instead of inline on an I/O thread; at most max_large_reviews of them are in flight
  // (queued or judged: a slot is taken once the body has arrived), more are refused with HTTP 429
  // and Retry-After.
  std::size_t large_review_bytes = 64 * 1024;
  unsigned review_threads = 1;
  std::size_t max_large_reviews = 8;
  // The request bodies every connection holds at once, counted as their bytes arrive: a body
  // that would pass it is refused with HTTP 429 and Retry-After (and read and dropped as it
  // comes), so a client that announces a large body and sends it slowly holds only what it has
  // sent, and slow clients together cannot take what others' reviews need.
  std::size_t max_body_bytes_in_flight = 64 * 1024 * 1024;
  // Paths whose reviews may wait on the API server (RB-2's status writes): judged on threads of
  // their own, never on an I/O thread; at most max_waiting_reviews at once, more are refused with
  // HTTP 429 and Retry-After.
  std::vector<std::string> judge_off_loop;
  unsigned waiting_review_threads = 8;
  std::size_t max_waiting_reviews = 64;
  std::size_t max_connections = 4096;  // more are accepted and closed at once
  // Plain-HTTP listeners; "" or "0" disables one.
  std::string health_probe_address = ":8000";  // /healthz, /readyz
  std::string metrics_address = ":8080";       // /metrics
  // Bounds on every wait. The idle bound is longer than Go's client idle timeout (90 s), so the
  // API server, not us, closes an idle keep-alive connection and never races our close with a
  // new POST.
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds header_timeout{10'000};  // first byte of a request to its last header
  std::chrono::milliseconds read_timeout{30'000};    // first byte of a request to its last byte
  std::chrono::milliseconds idle_timeout{120'000};   // between requests on a keep-alive connection
  // SIGTERM: readiness turns false at once; the listener stays open for shutdown_delay (so the
  // endpoints drop this pod first); then requests in flight finish, idle connections close, and
  // the process exits no later than shutdown_grace after that.
  std::chrono::milliseconds shutdown_delay{5'000};
  std::chrono::milliseconds shutdown_grace{30'000};
  // How often the certificate files are checked for a change (Secret volumes swap a symlink).
  std::chrono::milliseconds cert_check_interval{5'000};
  // What the binary is, logged on the "serving" line when `version` is set (the bench servers
  // leave it empty): src/cli/build_info.hpp's values.
  std::string version, commit, karmada;
  // Called once, on the main thread, when every listener is up (after the "serving" line): what
  // should start only with a server that will serve (the watch cache).
  std::function<void()> on_serving;
};

// The request handler: `handle_http` with the server's settings for the webhook, a fixed answer
// for the benchmark ceiling. `route` is the row the path names (nullptr: none), found once when
// the header arrived.
using RequestFn =
    std::function<void(const Route* route, std::string_view method, std::string_view content_type,
                       std::string& body, HttpAnswer& answer)>;

// The allocator settings the server runs with (run_server applies them; benchmarks that stand for
// the server apply them too).
void configure_memory();

// Loads the certificate, binds and serves until SIGTERM or SIGINT, then drains as ServerOptions
// says and returns nullopt. A startup problem
// (unreadable certificate or key, mismatched pair, bad address, port in use) returns its one-line
// description before anything is served.
std::optional<std::string> run_server(const ServerOptions& options, RequestFn handler);

}  // namespace kpw
