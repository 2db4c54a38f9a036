#include "server/server.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

namespace kpw {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using beast::error_code;

constexpr std::size_t kHeaderLimit = 16 * 1024;

// The OpenSSL error queue as one line ("error:0480006C:PEM routines::no start line").
std::string openssl_error() {
  unsigned long code = ERR_get_error();
  std::string out;
  while (code != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
    code = ERR_get_error();
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

// ALPN: pick http/1.1 when offered; otherwise carry on without ALPN rather than failing the
// handshake with a fatal alert.
int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11, in, inlen) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

std::optional<std::string> configure_tls(ssl::context& ctx, const ServerOptions& options) {
  SSL_CTX* native = ctx.native_handle();
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_compression |
                  ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(native, options.tls_min_version == TlsMinVersion::kTls13
                                            ? TLS1_3_VERSION
                                            : TLS1_2_VERSION);
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_SERVER);
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(native, options.cert_file.c_str()) != 1) {
    return "cannot load the serving certificate " + options.cert_file + ": " + openssl_error();
  }
  if (SSL_CTX_use_PrivateKey_file(native, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return "cannot load the private key " + options.key_file + ": " + openssl_error();
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return "the private key " + options.key_file + " does not match the certificate " +
           options.cert_file;
  }
  SSL_CTX_set_alpn_select_cb(native, &select_alpn, nullptr);
  return std::nullopt;
}

// The path of an absolute-form target (`https://host:port/path?q`, RFC 9112 §3.2.2), else the
// target as sent.
std::string_view origin_form(std::string_view target) {
  const std::size_t scheme = target.find("://");
  if (scheme == std::string_view::npos || target.front() == '/') return target;
  const std::size_t path = target.find('/', scheme + 3);
  return path == std::string_view::npos ? std::string_view("/") : target.substr(path);
}

// Shared by every session: read-only after start, except the two atomics.
struct ServerState {
  const ServerOptions& options;
  RequestFn handler;
  std::atomic<bool> stopping{false};
  std::atomic<int> in_flight{0};
};

// One TLS connection: handshake, then request → answer until either side closes.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, ssl::context& ctx, ServerState& state)
      : stream_(std::move(socket), ctx), state_(state) {}

  void run() {
    beast::get_lowest_layer(stream_).expires_after(state_.options.handshake_timeout);
    stream_.async_handshake(ssl::stream_base::server,
                            [self = shared_from_this()](error_code ec) {
                              if (ec) return;  // a failed handshake just ends the connection
                              self->read_header(true);
                            });
  }

 private:
  // Waits for the next request: the idle bound applies until its header has arrived.
  void read_header(bool first) {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(state_.options.max_request_bytes);
    beast::get_lowest_layer(stream_).expires_after(first ? state_.options.read_timeout
                                                         : state_.options.idle_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](error_code ec, std::size_t) {
                              self->on_header(ec);
                            });
  }

  void on_header(error_code ec) {
    if (ec) return fail_read(ec);
    ++state_.in_flight;
    counted_ = true;
    beast::get_lowest_layer(stream_).expires_after(state_.options.read_timeout);
    // curl and others wait for "100 Continue" before sending a large body.
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      continue_.result(http::status::continue_);
      continue_.version(11);
      return http::async_write(stream_, continue_,
                               [self = shared_from_this()](error_code ec, std::size_t) {
                                 if (ec) return self->finish();
                                 self->read_body();
                               });
    }
    read_body();
  }

  void read_body() {
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](error_code ec, std::size_t) {
                       self->on_body(ec);
                     });
  }

  void on_body(error_code ec) {
    if (ec) return fail_read(ec);
    http::request<http::string_body>& req = parser_->get();
    answer_.status = 200;
    answer_.content_type = "application/json";
    answer_.body.clear();
    answer_.close = false;
    answer_.method_not_allowed = false;
    const auto content_type = req.find(http::field::content_type);
    state_.handler(req.method_string(), origin_form(req.target()),
                   content_type == req.end() ? std::string_view{} : content_type->value(),
                   req.body(), answer_);
    // A HEAD answer has no body: sending one would corrupt the next response on the connection.
    if (req.method() == http::verb::head) answer_.body.clear();
    send(req.keep_alive() && !answer_.close && !state_.stopping);
  }

  // Too large: HTTP 413 with the review-shaped answer, unread body, then close. Any other
  // malformed HTTP gets a plain 400 and a close. A closed or timed-out connection just ends.
  void fail_read(error_code ec) {
    if (ec == http::error::body_limit) {
      answer_too_large(state_.options.max_request_bytes, answer_);
      return send(false);
    }
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::ssl::error::stream_truncated ||
        ec == net::error::eof || ec == net::error::connection_reset) {
      return finish();
    }
    if (ec.category() == http::make_error_code(http::error::bad_target).category() ||
        ec == http::error::header_limit) {
      answer_.status = 400;
      answer_.content_type = "text/plain; charset=utf-8";
      answer_.body = "400 Bad Request: ";
      answer_.body += ec.message();
      answer_.body += '\n';
      answer_.method_not_allowed = false;
      return send(false);
    }
    finish();
  }

  void send(bool keep_alive) {
    res_.clear();
    res_.result(answer_.status);
    res_.version(11);
    res_.set(http::field::content_type, answer_.content_type);
    if (answer_.method_not_allowed) res_.set(http::field::allow, "POST");
    res_.body().swap(answer_.body);  // both strings keep their capacity for the next request
    res_.keep_alive(keep_alive);
    res_.prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(state_.options.read_timeout);
    http::async_write(stream_, res_,
                      [self = shared_from_this(), keep_alive](error_code ec, std::size_t) {
                        self->res_.body().swap(self->answer_.body);
                        self->release();
                        if (ec) return;
                        if (keep_alive && !self->state_.stopping) return self->read_header(false);
                        self->shutdown();
                      });
  }

  void shutdown() {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(3));
    stream_.async_shutdown([self = shared_from_this()](error_code) {
      beast::get_lowest_layer(self->stream_).close();
    });
  }

  void release() {
    if (counted_) --state_.in_flight;
    counted_ = false;
  }
  void finish() {
    release();
    beast::get_lowest_layer(stream_).close();
  }

  beast::ssl_stream<beast::tcp_stream> stream_;
  ServerState& state_;
  http::response<http::empty_body> continue_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  HttpAnswer answer_;
  bool counted_ = false;
};

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(net::io_context& ioc, tcp::acceptor&& acceptor, ssl::context& ctx, ServerState& state)
      : ioc_(ioc), acceptor_(std::move(acceptor)), ctx_(ctx), state_(state) {}

  void accept() {
    acceptor_.async_accept(net::make_strand(ioc_),
                           [self = shared_from_this()](error_code ec, tcp::socket socket) {
                             if (!self->acceptor_.is_open()) return;
                             if (!ec) {
                               socket.set_option(tcp::no_delay(true), ec);
                               std::make_shared<Session>(std::move(socket), self->ctx_,
                                                         self->state_)
                                   ->run();
                             }
                             self->accept();
                           });
  }
  void close() {
    error_code ignored;
    acceptor_.close(ignored);
  }

 private:
  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  ssl::context& ctx_;
  ServerState& state_;
};

std::optional<std::string> open_acceptor(net::io_context& ioc, const ServerOptions& options,
                                         tcp::acceptor& acceptor) {
  error_code ec;
  const net::ip::address address = net::ip::make_address(options.bind_address, ec);
  if (ec) return "--bind-address " + options.bind_address + " is not an IP address";
  const tcp::endpoint endpoint(address, options.port);
  acceptor = tcp::acceptor(ioc);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return "cannot listen on " + options.bind_address + ":" + std::to_string(options.port) + ": " +
           ec.message();
  }
  return std::nullopt;
}

// Stop accepting, then stop the threads once no request is in flight (or the drain bound passed).
void drain(net::io_context& ioc, net::steady_timer& timer, ServerState& state,
           std::chrono::steady_clock::time_point deadline) {
  if (state.in_flight.load() == 0 || std::chrono::steady_clock::now() >= deadline) {
    ioc.stop();
    return;
  }
  timer.expires_after(std::chrono::milliseconds(20));
  timer.async_wait([&ioc, &timer, &state, deadline](error_code) {
    drain(ioc, timer, state, deadline);
  });
}

}  // namespace

std::optional<std::string> run_server(const ServerOptions& options, RequestFn handler) {
  ssl::context ctx(ssl::context::tls_server);
  if (auto error = configure_tls(ctx, options)) return error;

  const unsigned threads = options.threads == 0 ? 1 : options.threads;
  net::io_context ioc(static_cast<int>(threads));
  tcp::acceptor acceptor(ioc);
  if (auto error = open_acceptor(ioc, options, acceptor)) return error;

  ServerState state{options, handler};
  auto listener = std::make_shared<Listener>(ioc, std::move(acceptor), ctx, state);
  listener->accept();

  net::steady_timer drain_timer(ioc);
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](error_code ec, int) {
    if (ec) return;
    state.stopping = true;
    listener->close();
    std::fprintf(stderr, "karmada-policy-webhook: stopping: finishing requests in flight\n");
    drain(ioc, drain_timer, state, std::chrono::steady_clock::now() + options.drain_timeout);
  });

  std::fprintf(stderr, "karmada-policy-webhook: serving https://%s:%u with %u thread%s\n",
               options.bind_address.c_str(), static_cast<unsigned>(options.port), threads,
               threads == 1 ? "" : "s");
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (std::thread& t : pool) t.join();
  std::fprintf(stderr, "karmada-policy-webhook: stopped\n");
  return std::nullopt;
}

}  // namespace kpw
