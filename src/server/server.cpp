#include "server/server.hpp"

#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/stat.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "json/json.hpp"
#include "server/acceptor.hpp"
#include "server/metrics.hpp"
#include "server/plain_http.hpp"
#include "server/review_pool.hpp"
#include "util/log.hpp"

namespace kpw {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using beast::error_code;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 16 * 1024;
constexpr std::size_t kKeptBodyBytes = 64 * 1024;
// A denial's log line carries this much of its message (a tenant must not be able to make every
// denial a 16 KiB line).
constexpr std::size_t kMaxLoggedReasonBytes = 2048;

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

using TlsContext = std::shared_ptr<ssl::context>;

// A TLS context holding the pair on disk now, or the reason it cannot be loaded.
std::optional<std::string> load_tls(const ServerOptions& options, TlsContext& out) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_compression |
                   ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(
      native, options.tls_min_version == TlsMinVersion::kTls13 ? TLS1_3_VERSION : TLS1_2_VERSION);
  // No resumption: the API server's webhook client (client-go's TLSConfigFor) keeps no session
  // cache, so every connection is a full handshake and tickets would be pure cost: OpenSSL sends
  // two per connection by default, ~30 µs of server CPU and a record the client must parse.
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(native, 0);
  SSL_CTX_set_options(native, SSL_OP_NO_TICKET);
  // TLS 1.3 suites in the order Go's server (upstream's webhook) uses on AES hardware: AES-128-GCM
  // first. OpenSSL clients put AES-256-GCM-SHA384 first, whose key schedule costs more; a client
  // that prefers ChaCha20 (no AES instructions) still gets it.
  SSL_CTX_set_ciphersuites(native,
                           "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                           "TLS_CHACHA20_POLY1305_SHA256");
  SSL_CTX_set_options(native, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_PRIORITIZE_CHACHA);
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
  out = std::move(ctx);
  return std::nullopt;
}

// What identifies the content of a file for change detection (stat follows the symlinks a
// Secret volume swaps).
struct FileStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  bool operator==(const FileStamp& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

FileStamp stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return FileStamp{st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

class Session;

// Shared by every session. The request path reads it without locking: atomics only. The mutex
// guards the list of connections, touched when one opens or closes and when draining.
struct ServerState {
  ServerState(const ServerOptions& o, RequestFn h, ReviewPool& p)
      : options(o), handler(h), reviews(p) {}
  const ServerOptions& options;
  RequestFn handler;
  ReviewPool& reviews;  // large reviews are judged there, off the I/O threads
  std::atomic<bool> stopping{false};
  std::atomic<bool> ready{false};
  std::atomic<std::shared_ptr<ssl::context>> tls;
  std::mutex connections_mutex;
  std::list<std::weak_ptr<Session>> connections;
};

// One TLS connection: handshake, then request → answer until either side closes.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, TlsContext ctx, ServerState& state)
      : ctx_(std::move(ctx)), stream_(std::move(socket), *ctx_), state_(state) {}

  ~Session() {
    metrics::connection_closed();
    if (registered_) {
      std::lock_guard<std::mutex> lock(state_.connections_mutex);
      state_.connections.erase(self_in_list_);
    }
  }

  void run() {
    {
      std::lock_guard<std::mutex> lock(state_.connections_mutex);
      self_in_list_ = state_.connections.insert(state_.connections.end(), weak_from_this());
      registered_ = true;
    }
    beast::get_lowest_layer(stream_).expires_after(state_.options.handshake_timeout);
    stream_.async_handshake(ssl::stream_base::server, [self = shared_from_this()](error_code ec) {
      if (ec) {
        metrics::tls_handshake_failed();
        return self->finish();
      }
      self->acknowledge_now();
      self->wait_for_request(true);
    });
  }

  // The client's last handshake flight gets no answer from us (we send no session tickets), so
  // the kernel would delay its ACK by up to 40 ms; a client that writes its request without
  // TCP_NODELAY waits for that ACK (Nagle) before sending. Acknowledge at once instead.
  void acknowledge_now() {
#ifdef TCP_QUICKACK
    const int on = 1;
    ::setsockopt(beast::get_lowest_layer(stream_).socket().native_handle(), IPPROTO_TCP,
                 TCP_QUICKACK, &on, sizeof on);
#endif
  }

  net::any_io_executor get_executor() { return stream_.get_executor(); }

  // Draining: an idle connection closes now; a busy one closes after its answer. Runs on the
  // connection's loop.
  void close_if_idle_async() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (self->idle_) self->finish();
    });
  }

 private:
  // Between requests: the idle bound applies until the first byte of the next one arrives.
  void wait_for_request(bool first) {
    if (buffer_.size() > 0) return read_header();  // pipelined
    idle_ = true;
    beast::get_lowest_layer(stream_).expires_after(first ? state_.options.header_timeout
                                                         : state_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = shared_from_this()](error_code ec, std::size_t n) {
                              self->idle_ = false;
                              if (ec) return self->finish();
                              self->buffer_.commit(n);
                              self->read_header();
                            });
  }

  void read_header() {
    request_start_ = Clock::now();
    // The previous body's buffer serves the next request (no malloc, which for a body this size
    // also made glibc consolidate its small-chunk bins, every request); a large one is let go,
    // so an idle connection never holds megabytes.
    std::string body;
    if (parser_) body.swap(parser_->get().body());
    parser_.emplace();
    if (body.capacity() <= kKeptBodyBytes) {
      body.clear();
      parser_->get().body().swap(body);
    }
    parser_->header_limit(static_cast<std::uint32_t>(state_.options.max_header_bytes));
    parser_->body_limit(state_.options.max_request_bytes);
    beast::get_lowest_layer(stream_).expires_at(
        std::min(request_start_ + state_.options.header_timeout,
                 request_start_ + state_.options.read_timeout));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(error_code ec) {
    if (ec) return fail_read(ec);
    const std::string_view target = parser_->get().target();
    webhook_ = route_webhook(target.substr(0, target.find('?')));
    metrics::request_started(webhook_.index);
    counted_ = true;
    // A mutation's answer can be tens of times its body (a default in every element of a list):
    // it counts as large from an eighth of the size, so that no review judged inline costs more
    // than a few milliseconds.
    large_bytes_ = webhook_.mutating ? state_.options.large_review_bytes / 8
                                     : state_.options.large_review_bytes;
    // A large body takes a slot of the review threads before it is read, so the memory of the
    // bodies in flight is bounded too; without one it is refused unread.
    if (const auto length = parser_->content_length();
        length && *length > large_bytes_ && !take_large_slot()) {
      answer_busy(state_.reviews.max_in_flight(), large_bytes_, answer_);
      return send(false);
    }
    beast::get_lowest_layer(stream_).expires_at(request_start_ + state_.options.read_timeout);
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
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, std::size_t) { self->on_body(ec); });
  }

  void on_body(error_code ec) {
    if (ec) return fail_read(ec);
    http::request<http::string_body>& req = parser_->get();
    if (probe(req.method(), origin_form(req.target()))) return answer();
    if (!large_slot_ && req.body().size() > large_bytes_ &&
        !take_large_slot()) {  // a chunked body: its size is known only now
      answer_busy(state_.reviews.max_in_flight(), large_bytes_, answer_);
      return answer();
    }
    if (!large_slot_) {
      judge();  // inline: a small body costs microseconds, less than a hop to another thread
      return answer();
    }
    // Judged on a review thread; the answer is written back on this connection's loop.
    state_.reviews.post([self = shared_from_this()] {
      self->judge();
      release_review_document();
      self->give_back_large_slot();
      net::post(self->stream_.get_executor(), [self] { self->answer(); });
    });
  }

  bool take_large_slot() {
    if (!state_.reviews.try_acquire()) {
      metrics::large_review_refused();
      return false;
    }
    large_slot_ = true;
    metrics::large_review_started();
    // The body goes into memory a previous large body left faulted in (see take_buffer).
    std::string& body = parser_->get().body();
    if (body.empty()) {
      std::string buffer = state_.reviews.take_buffer();
      if (buffer.capacity() > body.capacity()) body.swap(buffer);
    }
    return true;
  }

  // After the judging (or when the request is abandoned): the body is not needed any more.
  void give_back_large_slot() {
    if (!large_slot_) return;
    large_slot_ = false;
    if (parser_) state_.reviews.give_buffer(std::move(parser_->get().body()));
    state_.reviews.release();
    metrics::large_review_finished();
  }

  // The handler's verdict for the request read (on this connection's loop, or a review thread).
  void judge() {
    http::request<http::string_body>& req = parser_->get();
    const auto content_type = req.find(http::field::content_type);
    state_.handler(req.method_string(), origin_form(req.target()),
                   content_type == req.end() ? std::string_view{} : content_type->value(),
                   req.body(), answer_);
    log_outcome();
  }

  void answer() {
    http::request<http::string_body>& req = parser_->get();
    // A HEAD answer has no body: sending one would corrupt the next response on the connection.
    if (req.method() == http::verb::head) answer_.body.clear();
    send(req.keep_alive() && !answer_.close && !state_.stopping);
  }

  // GET /readyz and /healthz on the TLS port too, as upstream's deployments probe there.
  bool probe(http::verb method, std::string_view target) {
    if (method != http::verb::get) return false;
    const std::string_view path = target.substr(0, target.find('?'));
    if (path != "/readyz" && path != "/healthz") return false;
    answer_.outcome.reviewed = false;
    answer_.method_not_allowed = false;
    answer_.close = false;
    answer_.content_type = "text/plain; charset=utf-8";
    const bool ok = path == "/healthz" || (state_.ready && !state_.stopping);
    answer_.status = ok ? 200 : 503;
    answer_.body = ok ? "ok\n" : "not ready\n";
    return true;
  }

  // A denial or an internal error is worth a log line; an allowed request is not (at the default
  // level).
  void log_outcome() {
    const ReviewOutcome& o = answer_.outcome;
    if (o.internal_error) {
      metrics::review_failed(webhook_.index);
      log::error("review failed: answered with code 500",
                 {{"webhook", webhook_.path}, {"uid", o.uid}, {"error", o.denial}});
      return;
    }
    if (!o.reviewed) return;
    for (const RuleViolation& v : o.violations) {
      metrics::rule_violations(webhook_.index, v.rule, v.action, v.count);
    }
    if (o.allowed) {
      if (log::verbosity() >= 2) {
        log::info("admission allowed", {{"webhook", webhook_.path},
                                        {"kind", o.kind},
                                        {"namespace", o.ns},
                                        {"name", o.name},
                                        {"uid", o.uid}});
      }
      return;
    }
    // The answer holds the whole message (up to 100 errors); a line of the log, its start.
    std::string reason;
    append_echoed_text(reason, o.denial, kMaxLoggedReasonBytes);
    std::string rules;  // the IDs of the rules that denied, `V-P1,SC-3`
    for (const RuleViolation& v : o.violations) {
      if (v.action != RuleAction::kDeny) continue;
      if (!rules.empty()) rules += ',';
      rules += rule_id(v.rule);
    }
    log::info("admission denied", {{"webhook", webhook_.path},
                                   {"kind", o.kind},
                                   {"namespace", o.ns},
                                   {"name", o.name},
                                   {"uid", o.uid},
                                   {"rules", rules},
                                   {"reason", reason}});
  }

  // Too large: HTTP 413 with the review-shaped answer, unread body, then close. Malformed HTTP
  // gets a plain 400 and a close. A closed or timed-out connection just ends.
  void fail_read(error_code ec) {
    if (ec == http::error::body_limit) {
      answer_too_large(state_.options.max_request_bytes, answer_);
      return send(false);
    }
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::ssl::error::stream_truncated ||
        ec == net::error::eof || ec == net::error::connection_reset ||
        ec == http::error::partial_message) {
      return finish();
    }
    if (ec.category() == http::make_error_code(http::error::bad_target).category()) {
      answer_.status = 400;
      answer_.content_type = "text/plain; charset=utf-8";
      answer_.body = "400 Bad Request: ";
      answer_.body += ec.message();
      answer_.body += '\n';
      answer_.method_not_allowed = false;
      answer_.outcome.reviewed = false;
      return send(false);
    }
    finish();
  }

  // The answer, head and body, is written into one reused buffer and sent as one write (one
  // TLS record for a typical answer). The head is what Beast would write for it: status line,
  // Content-Type, Allow on a 405, `Connection: close` when closing, Content-Length.
  void send(bool keep_alive) {
    std::string& out = out_;
    out.clear();
    out += "HTTP/1.1 ";
    append_decimal(out, answer_.status);
    out += ' ';
    out += http::obsolete_reason(static_cast<http::status>(answer_.status));
    out += "\r\nContent-Type: ";
    out += answer_.content_type;
    if (answer_.method_not_allowed) out += "\r\nAllow: POST";
    if (answer_.retry_after) out += "\r\nRetry-After: 1";
    if (!keep_alive) out += "\r\nConnection: close";
    out += "\r\nContent-Length: ";
    append_decimal(out, answer_.body.size());
    out += "\r\n\r\n";
    out += answer_.body;
    beast::get_lowest_layer(stream_).expires_after(state_.options.read_timeout);
    net::async_write(stream_, net::buffer(out),
                     [self = shared_from_this(), keep_alive](error_code ec, std::size_t) {
                       self->release(metrics::RequestEnd::kAnswered);
                       self->trim_buffers();
                       if (ec) return self->finish();
                       if (keep_alive && !self->state_.stopping) {
                         return self->wait_for_request(false);
                       }
                       self->shutdown();
                     });
  }

  // A large answer (a mutating review's patch) is not kept for the life of the connection.
  void trim_buffers() {
    if (out_.capacity() > kKeptBodyBytes) std::string().swap(out_);
    if (answer_.body.capacity() > kKeptBodyBytes) std::string().swap(answer_.body);
  }

  static void append_decimal(std::string& out, std::size_t n) {
    char digits[20];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, end);
  }

  void shutdown() {
    // Draining: the answer is fully written; waiting for the client's close_notify would only
    // hold the exit.
    if (state_.stopping) return finish();
    // The request (a body of up to --max-request-bytes) is not needed while close_notify comes.
    parser_.reset();
    std::string().swap(answer_.body);
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(3));
    stream_.async_shutdown([self = shared_from_this()](error_code) {
      beast::get_lowest_layer(self->stream_).close();
    });
  }

  // The request is answered (or abandoned): count it, once.
  void release(metrics::RequestEnd end) {
    if (!counted_) return;
    counted_ = false;
    const double seconds = std::chrono::duration<double>(Clock::now() - request_start_).count();
    metrics::request_finished(webhook_.index, end, answer_.status, seconds, answer_.outcome);
  }
  void finish() {
    give_back_large_slot();
    release(metrics::RequestEnd::kAbandoned);
    beast::get_lowest_layer(stream_).close();
  }

  // The path of an absolute-form target (`https://host:port/path?q`, RFC 9112 §3.2.2), else the
  // target as sent.
  static std::string_view origin_form(std::string_view target) {
    const std::size_t scheme = target.find("://");
    if (scheme == std::string_view::npos || target.front() == '/') return target;
    const std::size_t path = target.find('/', scheme + 3);
    return path == std::string_view::npos ? std::string_view("/") : target.substr(path);
  }

  TlsContext ctx_;  // the pair this connection was accepted with (rotation swaps the shared one)
  beast::ssl_stream<beast::tcp_stream> stream_;
  ServerState& state_;
  std::list<std::weak_ptr<Session>>::iterator self_in_list_;
  bool registered_ = false;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::empty_body> continue_;
  std::string out_;  // the answer as sent, head and body; keeps its capacity
  HttpAnswer answer_;
  Clock::time_point request_start_;
  WebhookRoute webhook_;  // the webhook the request's path names (index -1: none)
  bool counted_ = false;
  bool idle_ = false;
  bool large_slot_ = false;      // this request holds a slot of the review threads
  std::size_t large_bytes_ = 0;  // bodies above this are large for this request's webhook
};

// One event loop per I/O thread. A connection lives on one loop for its whole life, so its
// handlers never run concurrently and need no strand: a strand's executor does not fit inside
// any_io_executor, and Beast's operations heap-allocated a copy of it ~26 times per request.
using Loops = std::vector<std::unique_ptr<net::io_context>>;

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(Loops& loops, tcp::acceptor&& acceptor, ServerState& state)
      : loops_(loops), acceptor_(std::move(acceptor)), state_(state) {}

  // Accepts on the first loop; each connection goes to the next loop in turn.
  void accept() {
    net::io_context& loop = *loops_[next_loop_++ % loops_.size()];
    acceptor_.async_accept(loop.get_executor(),
                           [self = shared_from_this()](error_code ec, tcp::socket socket) {
                             if (!self->acceptor_.is_open()) return;
                             if (!ec) self->admit(std::move(socket));
                             self->accept();
                           });
  }

  void close() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
      error_code ignored;
      self->acceptor_.close(ignored);
    });
  }

 private:
  // Over the cap a connection is closed at once, so the ones already open keep their service.
  void admit(tcp::socket socket) {
    if (static_cast<std::size_t>(metrics::open_connections()) >= state_.options.max_connections) {
      metrics::connection_refused();
      error_code ignored;
      socket.close(ignored);
      return;
    }
    error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    metrics::connection_opened();
    // The session starts on its own loop's thread, as all its later work runs.
    auto session = std::make_shared<Session>(std::move(socket), state_.tls.load(), state_);
    net::post(session->get_executor(), [session] { session->run(); });
  }

  Loops& loops_;
  tcp::acceptor acceptor_;
  ServerState& state_;
  std::size_t next_loop_ = 0;
};

std::optional<std::string> open_acceptor(const ServerOptions& options, tcp::acceptor& acceptor) {
  error_code ec;
  const net::ip::address address = net::ip::make_address(options.bind_address, ec);
  if (ec) return "--bind-address " + options.bind_address + " is not an IP address";
  return listen_on(acceptor, tcp::endpoint(address, options.port),
                   options.bind_address + ":" + std::to_string(options.port));
}

// Watches the certificate files; a changed pair that loads replaces the context for new
// handshakes (open connections keep theirs); a broken one is logged and the old pair kept.
class CertificateWatcher {
 public:
  CertificateWatcher(net::io_context& ioc, ServerState& state)
      : timer_(ioc),
        state_(state),
        cert_(stamp(state.options.cert_file)),
        key_(stamp(state.options.key_file)) {}

  void start() {
    timer_.expires_after(state_.options.cert_check_interval);
    timer_.async_wait([this](error_code ec) {
      if (ec) return;
      check();
      start();
    });
  }
  void stop() { timer_.cancel(); }

 private:
  void check() {
    const FileStamp cert = stamp(state_.options.cert_file);
    const FileStamp key = stamp(state_.options.key_file);
    if (cert == cert_ && key == key_) return;
    cert_ = cert;
    key_ = key;
    TlsContext fresh;
    if (auto error = load_tls(state_.options, fresh)) {
      metrics::certificate_reloaded(false);
      log::error("certificate changed but cannot be used; keeping the previous one",
                 {{"error", *error}});
      return;
    }
    state_.tls.store(std::move(fresh));
    metrics::certificate_reloaded(true);
    log::info("certificate reloaded", {{"cert", state_.options.cert_file}});
  }

  net::steady_timer timer_;
  ServerState& state_;
  FileStamp cert_;
  FileStamp key_;
};

// After connections close (a burst of clients, an attack) or large reviews are answered, glibc
// keeps their freed small blocks; hand them back every second after such events, so RSS returns
// to its idle level (not while a large review is in flight: its memory is in use). The trim runs
// on a review thread: walking the heaps takes milliseconds no I/O thread should spend.
class MemoryTrimmer {
 public:
  MemoryTrimmer(net::io_context& ioc, ReviewPool& reviews) : timer_(ioc), reviews_(reviews) {}
  void start() {
    timer_.expires_after(std::chrono::seconds(1));
    timer_.async_wait([this](error_code ec) {
      if (ec) return;
      pending_ = metrics::take_memory_events() > 0 || pending_;
      if (pending_ && metrics::large_reviews_in_flight() == 0) {
        pending_ = false;
        reviews_.post([] { malloc_trim(0); });
      }
      start();
    });
  }
  void stop() { timer_.cancel(); }

 private:
  net::steady_timer timer_;
  ReviewPool& reviews_;
  bool pending_ = false;
};

// The SIGTERM sequence of ServerOptions, driven by one timer.
class Drain {
 public:
  Drain(Loops& loops, ServerState& state, std::shared_ptr<Listener> listener,
        std::vector<std::shared_ptr<PlainHttpListener>> plain, CertificateWatcher& watcher,
        MemoryTrimmer& trimmer)
      : loops_(loops),
        timer_(*loops.front()),
        state_(state),
        listener_(std::move(listener)),
        plain_(std::move(plain)),
        watcher_(watcher),
        trimmer_(trimmer) {}

  void begin(bool skip_delay) {
    state_.ready = false;
    const auto delay = skip_delay ? std::chrono::milliseconds(0) : state_.options.shutdown_delay;
    log::info("stopping: not ready; still accepting for the shutdown delay",
              {{"delay", std::to_string(delay.count()) + "ms"}});
    timer_.expires_after(delay);
    timer_.async_wait([this](error_code ec) {
      if (ec) return;
      stop_accepting();
    });
  }

 private:
  void stop_accepting() {
    state_.stopping = true;
    listener_->close();
    watcher_.stop();
    trimmer_.stop();
    deadline_ = Clock::now() + state_.options.shutdown_grace;
    close_idle_connections();
    wait();
  }

  void close_idle_connections() {
    std::vector<std::shared_ptr<Session>> open;
    {
      std::lock_guard<std::mutex> lock(state_.connections_mutex);
      for (const std::weak_ptr<Session>& w : state_.connections) {
        if (auto s = w.lock()) open.push_back(std::move(s));
      }
    }
    for (auto& s : open) s->close_if_idle_async();
  }

  void wait() {
    if (metrics::open_connections() <= 0 || Clock::now() >= deadline_) {
      if (metrics::open_connections() > 0) {
        log::error("shutdown grace ran out; closing the remaining connections",
                   {{"open", std::to_string(metrics::open_connections())}});
      }
      for (auto& p : plain_) p->close();
      for (auto& loop : loops_) loop->stop();
      return;
    }
    // Connections that were busy when draining began are idle now, or closing.
    close_idle_connections();
    timer_.expires_after(std::chrono::milliseconds(20));
    timer_.async_wait([this](error_code ec) {
      if (ec) return;
      wait();
    });
  }

  Loops& loops_;
  net::steady_timer timer_;
  ServerState& state_;
  std::shared_ptr<Listener> listener_;
  std::vector<std::shared_ptr<PlainHttpListener>> plain_;
  CertificateWatcher& watcher_;
  MemoryTrimmer& trimmer_;
  Clock::time_point deadline_;
};

bool disabled(const std::string& address) { return address.empty() || address == "0"; }

// Runs a loop until it is stopped. Something that throws outside a review's handler (the
// handler's own boundary is in handle_http) ends only the connection whose handler it was: the
// handler and the session it held are gone, and the loop runs on.
void run_loop(net::io_context& loop) {
  for (;;) {
    try {
      loop.run();
      return;
    } catch (const std::exception& e) {
      metrics::connection_failed();
      log::error("a connection failed and was closed", {{"error", e.what()}});
    } catch (...) {
      metrics::connection_failed();
      log::error("a connection failed and was closed");
    }
  }
}

}  // namespace

void configure_memory() {
  // Large blocks (request bodies up to --max-request-bytes) get their own mappings, returned to
  // the system when freed; otherwise glibc raises its threshold after the first one and keeps such
  // buffers at the end of a thread's heap, where malloc_trim cannot give them back. The review
  // threads keep theirs for reuse on purpose, in their block cache, for a quiet second.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

std::optional<std::string> run_server(const ServerOptions& options, RequestFn handler) {
  configure_memory();
  TlsContext ctx;
  if (auto error = load_tls(options, ctx)) return error;

  const unsigned threads = options.threads == 0 ? 1 : options.threads;
  Loops loops;
  for (unsigned i = 0; i < threads; ++i) loops.push_back(std::make_unique<net::io_context>(1));
  // After the loops, so that it is destroyed first: its queued jobs hold sessions of the loops.
  ReviewPool reviews(std::max(1u, options.review_threads),
                     std::max<std::size_t>(1, options.max_large_reviews));
  ServerState state(options, handler, reviews);
  state.tls.store(ctx);
  // The first loop also carries the listeners, timers and signals.
  net::io_context& ioc = *loops.front();
  tcp::acceptor acceptor(ioc);
  if (auto error = open_acceptor(options, acceptor)) return error;

  std::vector<std::shared_ptr<PlainHttpListener>> plain;
  if (!disabled(options.health_probe_address)) {
    std::shared_ptr<PlainHttpListener> probes;
    auto error = PlainHttpListener::open(
        ioc, options.health_probe_address,
        [&state](std::string_view path, PlainAnswer& a) {
          if (path == "/healthz") {
            a.body = "ok\n";
          } else if (path == "/readyz") {
            const bool ready = state.ready && !state.stopping;
            a.status = ready ? 200 : 503;
            a.body = ready ? "ok\n" : "not ready\n";
          } else {
            a.status = 404;
            a.body = "404 page not found\n";
          }
        },
        probes);
    if (error) return "--health-probe-bind-address " + *error;
    plain.push_back(probes);
  }
  if (!disabled(options.metrics_address)) {
    std::shared_ptr<PlainHttpListener> metrics_listener;
    auto error = PlainHttpListener::open(
        ioc, options.metrics_address,
        [](std::string_view path, PlainAnswer& a) {
          if (path != "/metrics") {
            a.status = 404;
            a.body = "404 page not found\n";
            return;
          }
          a.content_type = "text/plain; version=0.0.4; charset=utf-8";
          metrics::render(a.body);
        },
        metrics_listener);
    if (error) return "--metrics-bind-address " + *error;
    plain.push_back(metrics_listener);
  }

  auto listener = std::make_shared<Listener>(loops, std::move(acceptor), state);
  listener->accept();
  CertificateWatcher watcher(ioc, state);
  watcher.start();
  MemoryTrimmer trimmer(ioc, reviews);
  trimmer.start();
  Drain drain(loops, state, listener, plain, watcher, trimmer);

  // SIGTERM (the kubelet) waits out the shutdown delay; SIGINT (a person at a terminal) does not.
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](error_code ec, int signal) {
    if (!ec) drain.begin(signal == SIGINT);
  });

  state.ready = true;
  std::string probes = disabled(options.health_probe_address) ? "off" : plain.front()->endpoint();
  std::string metrics_at = disabled(options.metrics_address) ? "off" : plain.back()->endpoint();
  log::info("serving https://" + options.bind_address + ":" + std::to_string(options.port),
            {{"threads", std::to_string(threads)}, {"probes", probes}, {"metrics", metrics_at}});
  // The other loops have no work until connections arrive: guards keep them running until the
  // drain stops every loop.
  std::vector<net::executor_work_guard<net::io_context::executor_type>> idle_guards;
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) {
    idle_guards.push_back(net::make_work_guard(*loops[i]));
    pool.emplace_back([&loop = *loops[i]] { run_loop(loop); });
  }
  run_loop(ioc);
  for (std::thread& t : pool) t.join();
  log::info("stopped");
  return std::nullopt;
}

}  // namespace kpw
