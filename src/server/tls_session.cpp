#include "server/tls_session.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <chrono>

#include "server/metrics.hpp"

namespace kpw {
namespace {

constexpr std::chrono::seconds kShutdownBound{3};

}  // namespace

TlsSession::TlsSession(Socket&& socket, TlsContext ctx, const Port& port, ServerState& state)
    : HttpSession(port, state),
      ctx_(std::move(ctx)),
      stream_(std::move(socket), *ctx_),
      timer_(stream_.get_executor()) {
  const Limits& l = port.limits;
  granularity_ = std::max<Clock::duration>(
      std::chrono::milliseconds(1),
      std::min({Clock::duration(state.options.handshake_timeout), Clock::duration(l.header_timeout),
                Clock::duration(l.read_timeout), Clock::duration(l.idle_timeout),
                Clock::duration(kShutdownBound)}));
}

TlsSession::~TlsSession() { metrics::connection_closed(); }

void TlsSession::run() {
  join_connections();
  expires_after(state_.options.handshake_timeout);
  stream_.async_handshake([self = shared_from_this()](error_code ec) {
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
void TlsSession::acknowledge_now() {
#ifdef TCP_QUICKACK
  if (!stream_.is_open()) return;
  const int on = 1;
  ::setsockopt(stream_.socket().native_handle(), IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
#endif
}

// close_notify, bounded: a client that never answers it does not hold the connection.
void TlsSession::shutdown() {
  expires_after(kShutdownBound);
  stream_.async_shutdown([self = shared_from_this()](error_code) { self->close(); });
}

void TlsSession::expires_at(Clock::time_point t) {
  deadline_ = t;
  if (timer_waiting_ && timer_at_ <= t) return;  // it ends in time and looks at the deadline then
  if (stream_.is_open()) arm(t);
}

void TlsSession::arm(Clock::time_point t) {
  const Clock::time_point now = Clock::now();
  timer_at_ = t - now > granularity_ ? now + granularity_ : t;
  timer_waiting_ = true;
  const std::uint64_t generation = ++timer_generation_;
  timer_.expires_at(timer_at_);  // a pending wait ends now, aborted: its generation is old
  timer_.async_wait([self = shared_from_this(), generation](error_code) {
    self->on_timer(generation);
  });
}

void TlsSession::on_timer(std::uint64_t generation) {
  if (generation != timer_generation_) return;
  timer_waiting_ = false;
  if (!stream_.is_open()) return;
  if (Clock::now() >= deadline_) return stream_.close(/*timed_out=*/true);
  // Idle since before this wait began, or nearly: OpenSSL's record buffers (~33 KB, kept while
  // requests come) are let go, and the memory trimmer gives the pages back; the next request's
  // read allocates them again. Nothing is freed while OpenSSL holds bytes not yet read.
  if (idle() && SSL_free_buffers(stream_.native_handle()) == 1) {
    metrics::connection_buffers_released();
  }
  arm(deadline_);
}

// The pending wait, if any, ends now: it holds the session.
void TlsSession::close() {
  stream_.close();
  ++timer_generation_;
  timer_waiting_ = false;
  timer_.cancel();
}

}  // namespace kpw
