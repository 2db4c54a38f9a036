#include "server/http_session.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <cstdint>
#include <limits>
#include <mutex>

#include "server/answer_writer.hpp"
#include "server/plain_session.hpp"
#include "server/review_log.hpp"
#include "server/tls_session.hpp"

namespace kpw {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

constexpr std::size_t kReadChunk = 16 * 1024;
constexpr std::size_t kKeptBodyBytes = 64 * 1024;

}  // namespace

template <class Derived>
HttpSession<Derived>::~HttpSession() {
  if (registered_) {
    std::lock_guard<std::mutex> lock(state_.connections_mutex);
    state_.connections.erase(self_in_list_);
  }
}

template <class Derived>
void HttpSession<Derived>::join_connections() {
  std::lock_guard<std::mutex> lock(state_.connections_mutex);
  self_in_list_ = state_.connections.insert(state_.connections.end(),
                                            std::weak_ptr<Connection>(derived().weak_from_this()));
  registered_ = true;
}

template <class Derived>
void HttpSession<Derived>::close_if_idle_async() {
  net::post(derived().stream().get_executor(), [self = derived().shared_from_this()] {
    if (self->idle_) self->finish();
  });
}

// The idle bound applies until the first byte of the next request arrives.
template <class Derived>
void HttpSession<Derived>::wait_for_request(bool first) {
  if (buffer_.size() > 0) return read_header();  // pipelined
  idle_ = true;
  if (!first) derived().read_waits_first();
  derived().expires_after(first ? port_.limits.header_timeout : port_.limits.idle_timeout);
  derived().stream().async_read_some(
      buffer_.prepare(kReadChunk),
      [self = derived().shared_from_this()](error_code ec, std::size_t n) {
        self->idle_ = false;
        if (ec) return self->finish();
        self->buffer_.commit(n);
        self->read_header();
      });
}

// A head in the common shape, whole in the buffer (nearly every request: the API server writes
// head and body at once), is read here; any other is Beast's parser's, body included.
template <class Derived>
void HttpSession<Derived>::read_header() {
  request_start_ = Clock::now();
  // The previous body's buffer serves the next request (no malloc, which for a body this size
  // also made glibc consolidate its small-chunk bins, every request); a large one is let go, so
  // an idle connection never holds megabytes.
  if (body_.capacity() > kKeptBodyBytes) std::string().swap(body_);
  body_.clear();
  parser_.reset();
  const Limits& limits = port_.limits;
  const auto* data = static_cast<const char*>(buffer_.data().data());
  const std::size_t head_bytes =
      read_common_head(std::string_view(data, buffer_.size()),
                       HeadLimits{limits.max_header_bytes, limits.max_body_bytes}, head_);
  if (head_bytes != 0) {
    buffer_.consume(head_bytes);
    return on_head();
  }
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  parser_->body_limit(limits.max_body_bytes);
  derived().expires_at(
      std::min(request_start_ + limits.header_timeout, request_start_ + limits.read_timeout));
  http::async_read_header(
      derived().stream(), buffer_, *parser_,
      [self = derived().shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
}

template <class Derived>
void HttpSession<Derived>::on_header(error_code ec) {
  if (ec) return fail_read(ec);
  head_of(*parser_, head_);
  on_head();
}

template <class Derived>
void HttpSession<Derived>::on_head() {
  target_ = find_target(port_, head_.target);
  metrics::request_started(route_index_or_none());
  counted_ = true;
  // A route whose answer can be tens of times its body counts a body as large from a fraction of
  // the size (Route::large_divisor), so that no review judged inline costs more than a few
  // milliseconds. A port without routes judges nothing large.
  const std::size_t large = state_.options.large_review_bytes;
  large_bytes_ = !port_.routes              ? SIZE_MAX
                 : target_.route != nullptr ? large / target_.route->large_divisor
                                            : large;
  // A body announced as large goes into memory a previous large body left faulted in (a page
  // the system hands out anew costs a fault: ReviewPool::take_buffer). It is charged to the bytes
  // in flight as it arrives, not as announced, and takes a slot of the review threads only once
  // it has arrived (on_body): a client that announces a large body and dribbles it holds what it
  // has sent and no slot.
  if (const auto length = head_.content_length;
      length && *length > large_bytes_ && body_.empty()) {
    std::string buffer = state_.reviews->take_buffer();
    if (buffer.capacity() > body_.capacity()) body_.swap(buffer);
  }
  derived().expires_at(request_start_ + port_.limits.read_timeout);
  // curl and others wait for "100 Continue" before sending a large body: one that would pass the
  // bytes in flight now is refused instead, and its connection closed (no body is coming).
  if (head_.expect_continue && head_.content_length &&
      metrics::body_bytes_in_flight().load(std::memory_order_relaxed) + *head_.content_length >
          state_.options.max_body_bytes_in_flight) {
    return refuse_budget(false);
  }
  if (head_.expect_continue) {
    continue_.result(http::status::continue_);
    continue_.version(11);
    return http::async_write(derived().stream(), continue_,
                             [self = derived().shared_from_this()](error_code ec, std::size_t) {
                               if (ec) return self->finish();
                               self->read_body();
                             });
  }
  read_body();
}

// A body after a common head has its Content-Length (or none): what the buffer holds of it is
// taken, the rest read as it comes. Beast's parser reads any other request's body.
template <class Derived>
void HttpSession<Derived>::read_body() {
  if (parser_) {
    parser_->get().body().swap(body_);
    return read_body_parsed();
  }
  const auto length = static_cast<std::size_t>(head_.content_length.value_or(0));
  const std::size_t taken = std::min(buffer_.size(), length - body_.size());
  if (!charge_body(body_.size() + taken)) return refuse_budget(true);
  if (body_.size() + taken == length) body_.reserve(length);  // all here: one allocation
  body_.append(static_cast<const char*>(buffer_.data().data()), taken);
  buffer_.consume(taken);
  if (body_.size() == length) return on_body({});
  read_body_rest();
}

// The rest of a common head's body, read into the connection's buffer as it comes and taken from
// there: the body grows only as far as bytes arrive, as with Beast's parser, so a client that
// announces a body and does not send it holds no more memory than one that sends nothing.
template <class Derived>
void HttpSession<Derived>::read_body_rest() {
  const std::size_t missing = static_cast<std::size_t>(*head_.content_length) - body_.size();
  derived().stream().async_read_some(
      buffer_.prepare(std::min(missing, kReadChunk)),
      [self = derived().shared_from_this()](error_code ec, std::size_t n) {
        if (ec) return self->on_body(ec);
        self->buffer_.commit(n);
        self->read_body();
      });
}

// Any other head's body, by Beast's parser, piece by piece: each piece charged as it arrives.
template <class Derived>
void HttpSession<Derived>::read_body_parsed() {
  if (parser_->is_done()) return on_body({});
  http::async_read_some(derived().stream(), buffer_, *parser_,
                        [self = derived().shared_from_this()](error_code ec, std::size_t) {
                          if (ec) return self->on_body(ec);
                          if (!self->charge_body(self->parser_->get().body().size())) {
                            return self->refuse_budget(false);
                          }
                          self->read_body_parsed();
                        });
}

// The body's bytes so far (`total`) charged to the bytes in flight of every connection; false
// (nothing charged) when that would pass --max-body-bytes-in-flight. One atomic add a request
// whose body arrives at once.
template <class Derived>
bool HttpSession<Derived>::charge_body(std::size_t total) {
  if (total <= charged_) return true;
  const std::size_t more = total - charged_;
  std::atomic<std::size_t>& in_flight = metrics::body_bytes_in_flight();
  if (in_flight.fetch_add(more, std::memory_order_relaxed) + more >
      state_.options.max_body_bytes_in_flight) {
    in_flight.fetch_sub(more, std::memory_order_relaxed);
    return false;
  }
  charged_ = total;
  return true;
}

template <class Derived>
void HttpSession<Derived>::refund_body() {
  if (charged_ == 0) return;
  metrics::body_bytes_in_flight().fetch_sub(charged_, std::memory_order_relaxed);
  charged_ = 0;
}

// The bodies in flight are at their bound: HTTP 429 with Retry-After, what was read let go at
// once. The client may be writing the rest still (the API server writes the whole request before
// it reads the answer): closing the connection now would reset it mid-write, which the API server
// reports as a failed call instead of retrying the 429, so the rest is read as it comes and
// dropped (no memory held, bounded by the read timeout) and the connection serves the next
// request. Without `body_coming` (a client waiting for "100 Continue", or a body Beast's parser
// was reading, a chunked one, which cannot be skipped so) the connection closes after the answer.
template <class Derived>
void HttpSession<Derived>::refuse_budget(bool body_coming) {
  metrics::body_budget_refused();
  answer_.busy_memory(state_.options.max_body_bytes_in_flight);
  unread_ = body_coming ? *head_.content_length - body_.size() : 0;
  std::string().swap(body_);
  if (parser_) std::string().swap(parser_->get().body());
  refund_body();
  answer_.close = !body_coming;
  send(body_coming && keeps_alive());
}

template <class Derived>
void HttpSession<Derived>::on_body(error_code ec) {
  if (parser_) body_.swap(parser_->get().body());
  if (ec) return fail_read(ec);
  if (waits_on_api_server()) return judge_waiting();
  if (body_.size() > large_bytes_ && !take_large_slot()) return refuse_large();
  if (!large_slot_) {
    // On this loop (a small body costs microseconds, less than a hop to another thread), in
    // batches: the review waits behind the requests of the loop's other ready connections, and
    // the answer behind the reviews posted before it. Under load the loop reads the requests
    // that one poll found, then judges them, then writes their answers, each kind of work back
    // to back while its code and data are in the caches, instead of alternating the transport
    // and the review per request (docs/performance.md, "Reviews in batches": 6-20 % more
    // requests a second, less CPU in user space and in the kernel). A wait in the queue is
    // bounded like the answer's write.
    derived().expires_after(port_.limits.read_timeout);
    net::post(derived().stream().get_executor(), [self = derived().shared_from_this()] {
      self->judge();
      net::post(self->derived().stream().get_executor(), [self] { self->answer(); });
    });
    return;
  }
  // Judged on a review thread (smallest body first); the answer is written back on this
  // connection's loop. No I/O is pending meanwhile: no bound applies until the answer's write.
  derived().no_deadline();
  state_.reviews->post(body_.size(), [self = derived().shared_from_this()] {
    self->judge();
    release_review_document();
    self->give_back_large_slot();
    net::post(self->derived().stream().get_executor(), [self] { self->answer(); });
  });
}

// A review that may wait on the API server (RB-2's status writes) is judged on a thread of its
// own, never on this loop, where it would hold up every connection of the loop while it waits.
template <class Derived>
bool HttpSession<Derived>::waits_on_api_server() const {
  if (state_.waiting == nullptr || target_.route == nullptr) return false;
  for (const std::string& path : state_.options.judge_off_loop) {
    if (target_.route->path == path) return true;
  }
  return false;
}

template <class Derived>
void HttpSession<Derived>::judge_waiting() {
  if (!state_.waiting->try_acquire()) {
    give_back_large_slot();
    answer_.busy_waiting(state_.waiting->max_in_flight());
    return send(keeps_alive());
  }
  derived().no_deadline();
  state_.waiting->post(body_.size(), [self = derived().shared_from_this()] {
    self->judge();
    release_review_document();
    self->give_back_large_slot();
    self->state_.waiting->release();
    net::post(self->derived().stream().get_executor(), [self] { self->answer(); });
  });
}

template <class Derived>
bool HttpSession<Derived>::take_large_slot() {
  if (!state_.reviews->try_acquire()) {
    metrics::large_review_refused();
    return false;
  }
  large_slot_ = true;
  metrics::large_review_started();
  return true;
}

// A large body has arrived and every slot is taken: HTTP 429 with Retry-After, the body let go,
// and the connection serves the next request (the API server retries the 429).
template <class Derived>
void HttpSession<Derived>::refuse_large() {
  answer_.busy(state_.reviews->max_in_flight(), large_bytes_);
  std::string().swap(body_);
  refund_body();
  send(keeps_alive());
}

template <class Derived>
void HttpSession<Derived>::discard_body(bool keep_alive) {
  const std::size_t buffered =
      static_cast<std::size_t>(std::min<std::uint64_t>(buffer_.size(), unread_));
  buffer_.consume(buffered);
  unread_ -= buffered;
  if (unread_ == 0) return after_answer(keep_alive);
  derived().expires_at(request_start_ + port_.limits.read_timeout);
  const auto chunk = static_cast<std::size_t>(std::min<std::uint64_t>(unread_, kReadChunk));
  derived().stream().async_read_some(
      buffer_.prepare(chunk),
      [self = derived().shared_from_this(), keep_alive](error_code ec, std::size_t n) {
        if (ec) return self->finish();
        self->buffer_.commit(n);
        self->discard_body(keep_alive);
      });
}

// After the judging (or when the request is abandoned): the body is not needed any more.
template <class Derived>
void HttpSession<Derived>::give_back_large_slot() {
  if (!large_slot_) return;
  large_slot_ = false;
  // The body is the parser's while it reads it (a request ended in the middle of its body).
  if (body_.empty() && parser_) body_.swap(parser_->get().body());
  state_.reviews->give_buffer(std::move(body_));
  state_.reviews->release();
  metrics::large_review_finished();
}

// The port's answer to the request read (on this connection's loop, or a review thread).
template <class Derived>
void HttpSession<Derived>::judge() {
  const Request request{head_.method, head_.method_text, head_.content_type, body_, target_};
  port_.answer(request, state_, answer_);
  report_review(target_.route, answer_.outcome);
}

template <class Derived>
void HttpSession<Derived>::answer() {
  // A HEAD answer has no body: sending one would corrupt the next response on the connection.
  if (head_.method == http::verb::head) answer_.body.clear();
  send(keeps_alive() && !answer_.close);
}

// Too large: HTTP 413 with the review-shaped answer, unread body, then close. Malformed HTTP (an
// oversized header included) gets a plain 400 and a close. A closed or timed-out connection just
// ends.
template <class Derived>
void HttpSession<Derived>::fail_read(error_code ec) {
  if (ec == http::error::body_limit) {
    answer_.too_large(port_.limits.max_body_bytes);
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

template <class Derived>
void HttpSession<Derived>::send(bool keep_alive) {
  write_answer(answer_, port_.allow, keep_alive, out_);
  derived().expires_after(port_.limits.read_timeout);
  net::async_write(derived().stream(), net::buffer(out_),
                   [self = derived().shared_from_this(), keep_alive](error_code ec, std::size_t) {
                     self->release(metrics::RequestEnd::kAnswered);
                     self->trim_buffers();
                     if (ec) return self->finish();
                     if (self->unread_ > 0) return self->discard_body(keep_alive);
                     self->after_answer(keep_alive);
                   });
}

template <class Derived>
void HttpSession<Derived>::after_answer(bool keep_alive) {
  if (keep_alive && !state_.stopping) return wait_for_request(false);
  // Draining: the answer is fully written; waiting for the client's close would only hold the
  // exit.
  if (state_.stopping) return finish();
  // The request (a body of up to the port's limit) is not needed while the stream closes.
  parser_.reset();
  std::string().swap(body_);
  std::string().swap(answer_.body);
  derived().shutdown();
}

// A large answer (a mutating review's patch) is not kept for the life of the connection.
template <class Derived>
void HttpSession<Derived>::trim_buffers() {
  if (out_.capacity() > kKeptBodyBytes) std::string().swap(out_);
  if (answer_.body.capacity() > kKeptBodyBytes) std::string().swap(answer_.body);
}

// The request is answered (or abandoned): count it, once.
template <class Derived>
void HttpSession<Derived>::release(metrics::RequestEnd end) {
  refund_body();
  if (!counted_) return;
  counted_ = false;
  const double seconds = std::chrono::duration<double>(Clock::now() - request_start_).count();
  metrics::request_finished(route_index_or_none(), end, answer_.status, seconds, answer_.outcome);
}

template <class Derived>
void HttpSession<Derived>::finish() {
  give_back_large_slot();
  release(metrics::RequestEnd::kAbandoned);
  derived().close();
}

template class HttpSession<TlsSession>;
template class HttpSession<PlainSession>;

}  // namespace kpw
