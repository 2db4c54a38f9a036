#include "server/session.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "server/answer_writer.hpp"
#include "server/review_log.hpp"

namespace kpw {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;

constexpr std::size_t kReadChunk = 16 * 1024;
constexpr std::size_t kKeptBodyBytes = 64 * 1024;

// The path of an absolute-form target (`https://host:port/path?q`, RFC 9112 §3.2.2), else the
// target as sent.
std::string_view origin_form(std::string_view target) {
  const std::size_t scheme = target.find("://");
  if (scheme == std::string_view::npos || target.front() == '/') return target;
  const std::size_t path = target.find('/', scheme + 3);
  return path == std::string_view::npos ? std::string_view("/") : target.substr(path);
}

}  // namespace

Session::Session(net::ip::tcp::socket&& socket, TlsContext ctx, ServerState& state)
    : ctx_(std::move(ctx)), stream_(std::move(socket), *ctx_), state_(state) {}

Session::~Session() {
  metrics::connection_closed();
  if (registered_) {
    std::lock_guard<std::mutex> lock(state_.connections_mutex);
    state_.connections.erase(self_in_list_);
  }
}

void Session::run() {
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

// The client's last handshake flight gets no answer from us (we send no session tickets), so the
// kernel would delay its ACK by up to 40 ms; a client that writes its request without TCP_NODELAY
// waits for that ACK (Nagle) before sending. Acknowledge at once instead.
void Session::acknowledge_now() {
#ifdef TCP_QUICKACK
  const int on = 1;
  ::setsockopt(beast::get_lowest_layer(stream_).socket().native_handle(), IPPROTO_TCP, TCP_QUICKACK,
               &on, sizeof on);
#endif
}

// Posted: draining runs on the first loop, the connection on its own.
void Session::close_if_idle_async() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->idle_) self->finish();
  });
}

// Between requests: the idle bound applies until the first byte of the next one arrives.
void Session::wait_for_request(bool first) {
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

void Session::read_header() {
  request_start_ = Clock::now();
  // The previous body's buffer serves the next request (no malloc, which for a body this size
  // also made glibc consolidate its small-chunk bins, every request); a large one is let go, so
  // an idle connection never holds megabytes.
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

void Session::on_header(error_code ec) {
  if (ec) return fail_read(ec);
  const std::string_view target = origin_form(parser_->get().target());
  route_ = find_route(target.substr(0, target.find('?')));
  metrics::request_started(route_index_or_none());
  counted_ = true;
  // A mutation's answer can be tens of times its body (a default in every element of a list): it
  // counts as large from an eighth of the size, so that no review judged inline costs more than a
  // few milliseconds.
  large_bytes_ = route_ != nullptr && route_->mutating ? state_.options.large_review_bytes / 8
                                                       : state_.options.large_review_bytes;
  // A large body takes a slot of the review threads before it is read, so the memory of the
  // bodies in flight is bounded too; without one it is refused, its body dropped unkept.
  if (const auto length = parser_->content_length();
      length && *length > large_bytes_ && !take_large_slot()) {
    return refuse_large(*length);
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

void Session::read_body() {
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](error_code ec, std::size_t) { self->on_body(ec); });
}

void Session::on_body(error_code ec) {
  if (ec) return fail_read(ec);
  http::request<http::string_body>& req = parser_->get();
  if (probe(req.method(), origin_form(req.target()))) return answer();
  if (!large_slot_) {
    judge();  // inline: a small body costs microseconds, less than a hop to another thread
    return answer();
  }
  // Judged on a review thread (smallest body first); the answer is written back on this
  // connection's loop.
  state_.reviews->post(req.body().size(), [self = shared_from_this()] {
    self->judge();
    release_review_document();
    self->give_back_large_slot();
    net::post(self->stream_.get_executor(), [self] { self->answer(); });
  });
}

bool Session::take_large_slot() {
  if (!state_.reviews->try_acquire()) {
    metrics::large_review_refused();
    return false;
  }
  large_slot_ = true;
  metrics::large_review_started();
  // The body goes into memory a previous large body left faulted in (see take_buffer).
  std::string& body = parser_->get().body();
  if (body.empty()) {
    std::string buffer = state_.reviews->take_buffer();
    if (buffer.capacity() > body.capacity()) body.swap(buffer);
  }
  return true;
}

// No slot: HTTP 429 with Retry-After at once, the body unread. The client may be writing it still
// (the API server writes the whole request before it reads the answer): closing the connection
// now would reset it mid-write, which the API server reports as a failed call instead of retrying
// the 429, so the body is read as it comes and dropped (no memory held, bounded by the read
// timeout and --max-request-bytes), and the connection serves the next request. A client waiting
// for "100 Continue" sends no body: that connection is closed after the answer.
void Session::refuse_large(std::uint64_t length) {
  answer_.busy(state_.reviews->max_in_flight(), large_bytes_);
  const bool body_coming = !beast::iequals(parser_->get()[http::field::expect], "100-continue") &&
                           length <= state_.options.max_request_bytes;
  answer_.close = !body_coming;
  unread_ = body_coming ? length : 0;
  send(body_coming && parser_->get().keep_alive() && !state_.stopping);
}

void Session::discard_body(bool keep_alive) {
  const std::size_t buffered =
      static_cast<std::size_t>(std::min<std::uint64_t>(buffer_.size(), unread_));
  buffer_.consume(buffered);
  unread_ -= buffered;
  if (unread_ == 0) return after_answer(keep_alive);
  beast::get_lowest_layer(stream_).expires_at(request_start_ + state_.options.read_timeout);
  const auto chunk = static_cast<std::size_t>(std::min<std::uint64_t>(unread_, kReadChunk));
  stream_.async_read_some(buffer_.prepare(chunk),
                          [self = shared_from_this(), keep_alive](error_code ec, std::size_t n) {
                            if (ec) return self->finish();
                            self->buffer_.commit(n);
                            self->discard_body(keep_alive);
                          });
}

// After the judging (or when the request is abandoned): the body is not needed any more.
void Session::give_back_large_slot() {
  if (!large_slot_) return;
  large_slot_ = false;
  if (parser_) state_.reviews->give_buffer(std::move(parser_->get().body()));
  state_.reviews->release();
  metrics::large_review_finished();
}

// The handler's verdict for the request read (on this connection's loop, or a review thread).
void Session::judge() {
  http::request<http::string_body>& req = parser_->get();
  const auto content_type = req.find(http::field::content_type);
  state_.handler(route_, req.method_string(),
                 content_type == req.end() ? std::string_view{} : content_type->value(), req.body(),
                 answer_);
  report_review(route_, answer_.outcome);
}

void Session::answer() {
  http::request<http::string_body>& req = parser_->get();
  // A HEAD answer has no body: sending one would corrupt the next response on the connection.
  if (req.method() == http::verb::head) answer_.body.clear();
  send(req.keep_alive() && !answer_.close && !state_.stopping);
}

// GET /readyz and /healthz on the TLS port too, as upstream's deployments probe there.
bool Session::probe(http::verb method, std::string_view target) {
  if (method != http::verb::get) return false;
  const std::string_view path = target.substr(0, target.find('?'));
  if (path != "/readyz" && path != "/healthz") return false;
  answer_.probe(path == "/healthz" || (state_.ready && !state_.stopping));
  return true;
}

// Too large: HTTP 413 with the review-shaped answer, unread body, then close. Malformed HTTP gets
// a plain 400 and a close. A closed or timed-out connection just ends.
void Session::fail_read(error_code ec) {
  if (ec == http::error::body_limit) {
    answer_.too_large(state_.options.max_request_bytes);
    return send(false);
  }
  if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
      ec == net::error::operation_aborted || ec == net::ssl::error::stream_truncated ||
      ec == net::error::eof || ec == net::error::connection_reset ||
      ec == http::error::partial_message) {
    return finish();
  }
  if (ec.category() == http::make_error_code(http::error::bad_target).category()) {
    answer_.plain(400, "400 Bad Request: " + ec.message() + "\n");
    return send(false);
  }
  finish();
}

void Session::send(bool keep_alive) {
  write_answer(answer_, "POST", keep_alive, out_);
  beast::get_lowest_layer(stream_).expires_after(state_.options.read_timeout);
  net::async_write(stream_, net::buffer(out_),
                   [self = shared_from_this(), keep_alive](error_code ec, std::size_t) {
                     self->release(metrics::RequestEnd::kAnswered);
                     self->trim_buffers();
                     if (ec) return self->finish();
                     if (self->unread_ > 0) return self->discard_body(keep_alive);
                     self->after_answer(keep_alive);
                   });
}

void Session::after_answer(bool keep_alive) {
  if (keep_alive && !state_.stopping) return wait_for_request(false);
  shutdown();
}

// A large answer (a mutating review's patch) is not kept for the life of the connection.
void Session::trim_buffers() {
  if (out_.capacity() > kKeptBodyBytes) std::string().swap(out_);
  if (answer_.body.capacity() > kKeptBodyBytes) std::string().swap(answer_.body);
}

void Session::shutdown() {
  // Draining: the answer is fully written; waiting for the client's close_notify would only hold
  // the exit.
  if (state_.stopping) return finish();
  // The request (a body of up to --max-request-bytes) is not needed while close_notify comes.
  parser_.reset();
  std::string().swap(answer_.body);
  beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(3));
  stream_.async_shutdown(
      [self = shared_from_this()](error_code) { beast::get_lowest_layer(self->stream_).close(); });
}

// The request is answered (or abandoned): count it, once.
void Session::release(metrics::RequestEnd end) {
  if (!counted_) return;
  counted_ = false;
  const double seconds = std::chrono::duration<double>(Clock::now() - request_start_).count();
  metrics::request_finished(route_index_or_none(), end, answer_.status, seconds, answer_.outcome);
}

void Session::finish() {
  give_back_large_slot();
  release(metrics::RequestEnd::kAbandoned);
  beast::get_lowest_layer(stream_).close();
}

}  // namespace kpw
