// The HTTPS listener: Boost.Beast HTTP/1.1 over OpenSSL, keep-alive, one session per connection,
// N I/O threads; every request is answered inline by a RequestFn (no thread hop, no lock).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

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
  unsigned threads = 1;
  // Bounds on every wait. The idle bound is longer than Go's client idle timeout (90 s), so the
  // API server, not us, closes an idle keep-alive connection and never races our close with a
  // new POST.
  std::chrono::seconds handshake_timeout{10};
  std::chrono::seconds read_timeout{30};
  std::chrono::seconds idle_timeout{120};
  std::chrono::seconds drain_timeout{10};
};

// The request handler: `handle_http` for the webhook, a fixed answer for the benchmark ceiling.
using RequestFn = void (*)(std::string_view method, std::string_view target,
                           std::string_view content_type, std::string& body, HttpAnswer& answer);

// Loads the certificate, binds and serves until SIGTERM or SIGINT, then stops accepting, lets
// requests in flight finish (up to drain_timeout) and returns nullopt. A startup problem
// (unreadable certificate or key, mismatched pair, bad address, port in use) returns its one-line
// description before anything is served.
std::optional<std::string> run_server(const ServerOptions& options, RequestFn handler);

}  // namespace kpw
