#include "kube/api_client.hpp"

#include <openssl/ssl.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "util/base64.hpp"

namespace kpw::kube {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;
using Stream = beast::ssl_stream<beast::tcp_stream>;

constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
constexpr std::size_t kMaxErrorBodyBytes = 64 * 1024;
constexpr std::size_t kWatchBufferBytes = 64 * 1024;
constexpr std::string_view kUserAgent = "karmada-policy-webhook";

std::string describe(const error_code& ec) {
  if (ec == beast::error::timeout) return "timed out";
  return ec.message();
}

}  // namespace

struct ApiClient::Impl {
  KubeConfig config;
  ClientLimits limits;
  TokenSource tokens;
  asio::io_context ioc{1};
  ssl::context tls{ssl::context::tls_client};
  std::unique_ptr<Stream> stream;  // the connection of the call in progress
  std::atomic<bool> stopping{false};
  std::mutex sleep_mutex;
  std::condition_variable sleep_cv;
  std::optional<Clock::time_point> deadline;  // set_deadline()
  std::shared_ptr<RateLimiter> limiter;       // limits.limiter, or one of its own

  Impl(const KubeConfig& c, const ClientLimits& l)
      : config(c),
        limits(l),
        tokens(c),
        limiter(l.limiter != nullptr ? l.limiter : std::make_shared<RateLimiter>(l.qps, l.burst)) {}

  std::optional<std::string> load_tls();
  // Runs the loop until the operation `initiate` starts has completed; `tick` every period.
  template <typename Initiate>
  error_code run(Initiate&& initiate, std::size_t* bytes = nullptr,
                 const std::function<void()>* tick = nullptr,
                 std::chrono::milliseconds period = {});
  bool wait_for_token();
  // `limit`, or less when the deadline comes first (at least a millisecond).
  std::chrono::milliseconds bounded(std::chrono::milliseconds limit) const;
  std::optional<std::string> connect();
  std::optional<std::string> send(http::verb method, std::string_view target, bool watch,
                                  std::string_view body = {}, std::string_view content_type = {});
  void close();
};

std::optional<std::string> ApiClient::Impl::load_tls() {
  error_code ec;
  tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                  ec);
  if (config.insecure_skip_tls_verify) {
    tls.set_verify_mode(ssl::verify_none, ec);
  } else {
    tls.set_verify_mode(ssl::verify_peer, ec);
    if (!config.ca_pem.empty()) {
      tls.add_certificate_authority(asio::buffer(config.ca_pem), ec);
      if (ec) return "the API server's CA (" + config.source + "): " + ec.message();
    } else {
      tls.set_default_verify_paths(ec);
      if (ec) return "the system's CA certificates: " + ec.message();
    }
  }
  if (!config.client_cert_pem.empty() || !config.client_key_pem.empty()) {
    tls.use_certificate_chain(asio::buffer(config.client_cert_pem), ec);
    if (ec) return "the client certificate (" + config.source + "): " + ec.message();
    tls.use_private_key(asio::buffer(config.client_key_pem), ssl::context::pem, ec);
    if (ec) return "the client key (" + config.source + "): " + ec.message();
  }
  return std::nullopt;
}

template <typename Initiate>
error_code ApiClient::Impl::run(Initiate&& initiate, std::size_t* bytes,
                                const std::function<void()>* tick,
                                std::chrono::milliseconds period) {
  error_code result = asio::error::operation_aborted;
  bool done = false;
  initiate([&](error_code ec, auto&&... rest) {
    result = ec;
    if constexpr (sizeof...(rest) == 1) {
      if constexpr (std::is_convertible_v<decltype((rest, ...)), std::size_t>) {
        if (bytes != nullptr) *bytes = (rest, ...);
      }
    }
    done = true;
  });
  ioc.restart();
  while (!done) {
    if (tick != nullptr && *tick) {
      if (ioc.run_one_for(period) == 0 && !done) (*tick)();
    } else {
      ioc.run_one();
    }
    if (ioc.stopped() && !done) ioc.restart();
  }
  return result;
}

RateLimiter::RateLimiter(double qps, int burst)
    : qps_(qps > 0 ? qps : 1e9),
      burst_(std::max(1, burst)),
      tokens_(burst_),
      refilled_(Clock::now()) {}

std::chrono::duration<double> RateLimiter::take() {
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  tokens_ =
      std::min(burst_, tokens_ + std::chrono::duration<double>(now - refilled_).count() * qps_);
  refilled_ = now;
  if (tokens_ >= 1) {
    tokens_ -= 1;
    return std::chrono::duration<double>(0);
  }
  return std::chrono::duration<double>((1 - tokens_) / qps_);
}

bool ApiClient::Impl::wait_for_token() {
  for (;;) {
    const std::chrono::duration<double> wait = limiter->take();
    if (wait.count() <= 0) return true;
    if (deadline && Clock::now() + std::chrono::duration_cast<Clock::duration>(wait) > *deadline) {
      return false;
    }
    std::unique_lock lock(sleep_mutex);
    if (sleep_cv.wait_for(lock, wait, [this] { return stopping.load(); })) return false;
  }
}

std::chrono::milliseconds ApiClient::Impl::bounded(std::chrono::milliseconds limit) const {
  if (!deadline) return limit;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
  return std::max(std::chrono::milliseconds(1), std::min(limit, left));
}

std::optional<std::string> ApiClient::Impl::connect() {
  close();
  stream = std::make_unique<Stream>(ioc, tls);
  if (stopping) return "stopping";
  // Resolve (a literal address resolves at once) under the connect timeout.
  tcp::resolver resolver(ioc);
  asio::steady_timer timer(ioc);
  timer.expires_after(bounded(limits.connect_timeout));
  timer.async_wait([&resolver](error_code ec) {
    if (!ec) resolver.cancel();
  });
  tcp::resolver::results_type endpoints;
  error_code ec = run([&](auto handler) {
    resolver.async_resolve(config.host, config.port,
                           [&endpoints, handler](error_code e, tcp::resolver::results_type r) {
                             endpoints = std::move(r);
                             handler(e);
                           });
  });
  timer.cancel();
  if (ec) return "resolving " + config.host + ": " + describe(ec);
  beast::tcp_stream& lowest = beast::get_lowest_layer(*stream);
  lowest.expires_after(bounded(limits.connect_timeout));
  ec = run([&](auto handler) { lowest.async_connect(endpoints, handler); });
  if (ec) return "connecting to " + config.server + ": " + describe(ec);
  // A request's header and body go out in separate writes: without this the body waits for the
  // ACK of the header, which the server delays (40 ms a request).
  lowest.socket().set_option(tcp::no_delay(true), ec);
  SSL* native = stream->native_handle();
  const std::string& name = config.tls_server_name.empty() ? config.host : config.tls_server_name;
  error_code not_address;
  asio::ip::make_address(name, not_address);
  if (not_address) SSL_set_tlsext_host_name(native, name.c_str());  // SNI names no address
  if (!config.insecure_skip_tls_verify) {
    stream->set_verify_callback(ssl::host_name_verification(name), ec);
  }
  ec = run([&](auto handler) { stream->async_handshake(ssl::stream_base::client, handler); });
  if (ec) return "TLS handshake with " + config.server + ": " + describe(ec);
  return std::nullopt;
}

std::optional<std::string> ApiClient::Impl::send(http::verb method, std::string_view target,
                                                 bool watch, std::string_view body,
                                                 std::string_view content_type) {
  if (!wait_for_token()) return stopping ? "stopping" : "the client's rate limit (--kube-api-qps)";
  if (auto error = connect()) return error;
  http::request<http::string_body> request{method, config.base_path + std::string(target), 11};
  if (!content_type.empty()) {
    request.set(http::field::content_type, content_type);
    request.body().assign(body);
    request.prepare_payload();
  }
  request.set(http::field::host, config.host);
  request.set(http::field::user_agent, kUserAgent);
  request.set(http::field::accept, "application/json");
  if (!watch) request.keep_alive(false);
  const std::string& token = tokens.token();
  if (!token.empty()) {
    request.set(http::field::authorization, "Bearer " + token);
  } else if (!config.username.empty()) {
    std::string basic = "Basic ";
    append_base64(basic, config.username + ":" + config.password);
    request.set(http::field::authorization, basic);
  }
  beast::get_lowest_layer(*stream).expires_after(bounded(limits.request_timeout));
  const error_code ec =
      run([&](auto handler) { http::async_write(*stream, request, std::move(handler)); });
  if (ec) return "writing the request to " + config.server + ": " + describe(ec);
  return std::nullopt;
}

void ApiClient::Impl::close() {
  if (stream == nullptr) return;
  error_code ignored;
  beast::get_lowest_layer(*stream).socket().close(ignored);
  stream.reset();
}

ApiClient::ApiClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiClient::~ApiClient() = default;

std::optional<std::string> ApiClient::make(const KubeConfig& config, const ClientLimits& limits,
                                           std::unique_ptr<ApiClient>& out) {
  auto impl = std::make_unique<Impl>(config, limits);
  if (auto error = impl->load_tls()) return error;
  out.reset(new ApiClient(std::move(impl)));
  return std::nullopt;
}

Response ApiClient::get(std::string_view target) { return send("GET", target, {}, {}); }

void ApiClient::set_deadline(std::optional<Clock::time_point> deadline) {
  impl_->deadline = deadline;
}

Response ApiClient::send(std::string_view method, std::string_view target, std::string_view body,
                         std::string_view content_type) {
  Impl& d = *impl_;
  Response response;
  if (auto error = d.send(http::string_to_verb(method), target, false, body, content_type)) {
    response.error = std::move(*error);
    d.close();
    return response;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.header_limit(kMaxHeaderBytes);
  parser.body_limit(d.limits.max_body_bytes);
  const error_code ec =
      d.run([&](auto handler) { http::async_read(*d.stream, buffer, parser, std::move(handler)); });
  if (parser.is_header_done()) response.status = parser.get().result_int();
  if (ec) {
    response.error = "reading the answer of " + d.config.server + ": " + describe(ec);
  } else {
    response.body = std::move(parser.get().body());
  }
  d.close();
  return response;
}

Response ApiClient::watch(std::string_view target, std::chrono::milliseconds idle,
                          const std::function<bool(std::string_view)>& on_bytes,
                          const std::function<void()>& tick,
                          std::chrono::milliseconds tick_period) {
  Impl& d = *impl_;
  Response response;
  if (auto error = d.send(http::verb::get, target, true)) {
    response.error = std::move(*error);
    d.close();
    return response;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::buffer_body> parser;
  parser.header_limit(kMaxHeaderBytes);
  parser.body_limit(boost::none);  // a watch has no end but the server's; the framer bounds events
  error_code ec = d.run([&](auto handler) {
    http::async_read_header(*d.stream, buffer, parser, std::move(handler));
  });
  if (ec) {
    response.error = "reading the answer of " + d.config.server + ": " + describe(ec);
    d.close();
    return response;
  }
  response.status = parser.get().result_int();
  const bool streaming = response.status == 200;
  auto chunk = std::make_unique<char[]>(kWatchBufferBytes);
  while (!parser.is_done()) {
    parser.get().body().data = chunk.get();
    parser.get().body().size = kWatchBufferBytes;
    beast::get_lowest_layer(*d.stream).expires_after(streaming ? idle : d.limits.request_timeout);
    std::size_t ignored = 0;
    ec = d.run(
        [&](auto handler) { http::async_read_some(*d.stream, buffer, parser, std::move(handler)); },
        &ignored, &tick, tick_period);
    if (ec == http::error::need_buffer) ec = {};
    if (ec) {
      response.error = "reading the watch of " + d.config.server + ": " + describe(ec);
      break;
    }
    const std::size_t n = kWatchBufferBytes - parser.get().body().size;
    const std::string_view bytes(chunk.get(), n);
    if (streaming) {
      if (n > 0 && !on_bytes(bytes)) break;
    } else if (response.body.size() < kMaxErrorBodyBytes) {
      response.body.append(bytes.substr(0, kMaxErrorBodyBytes - response.body.size()));
    }
  }
  d.close();
  return response;
}

void ApiClient::credentials_rejected() { impl_->tokens.invalidate(); }

bool ApiClient::sleep_for(std::chrono::milliseconds d) {
  std::unique_lock lock(impl_->sleep_mutex);
  return !impl_->sleep_cv.wait_for(lock, d, [this] { return impl_->stopping.load(); });
}

void ApiClient::stop() {
  Impl& d = *impl_;
  {
    std::lock_guard lock(d.sleep_mutex);
    d.stopping = true;
  }
  d.sleep_cv.notify_all();
  // On the caller's loop: close the connection of the call in progress, which then returns.
  asio::post(d.ioc, [&d] {
    if (d.stream != nullptr) {
      error_code ignored;
      beast::get_lowest_layer(*d.stream).socket().close(ignored);
    }
  });
}

bool ApiClient::stopping() const { return impl_->stopping; }

const KubeConfig& ApiClient::config() const { return impl_->config; }

}  // namespace kpw::kube
