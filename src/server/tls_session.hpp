// A connection of the HTTPS port: the TLS handshake with the context it was accepted with, then
// HttpSession's cycle; close_notify after a last answer. Counted in the open connections.
//
// The bound on its waits is one deadline and one timer: moving the deadline later (every request
// does) costs a store; the timer, armed at most the shortest bound ahead, looks at the deadline
// when it fires and closes the socket if it has passed, or waits again. Beast's stream instead
// armed and cancelled a timer around every read and write (docs/performance.md, "Transport
// against nginx").
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>

#include "server/http_session.hpp"
#include "server/tls_context.hpp"
#include "server/tls_stream.hpp"

namespace kpw {

class TlsSession final : public HttpSession<TlsSession>,
                         public std::enable_shared_from_this<TlsSession> {
 public:
  TlsSession(Socket&& socket, TlsContext ctx, const Port& port, ServerState& state);
  ~TlsSession();

  // Joins the connection list and starts the handshake; runs on the connection's loop.
  void run();
  TlsStream& stream() { return stream_; }

 private:
  friend class HttpSession<TlsSession>;
  using Timer = boost::asio::basic_waitable_timer<Clock, boost::asio::wait_traits<Clock>, LoopExecutor>;

  void acknowledge_now();
  void shutdown();
  void expires_at(Clock::time_point t);
  template <class Duration>
  void expires_after(Duration d) {
    expires_at(Clock::now() + d);
  }
  void no_deadline() { expires_at(Clock::time_point::max()); }
  void read_waits_first() { stream_.read_waits_first(); }
  void close();
  void arm(Clock::time_point t);
  void on_timer(std::uint64_t generation);

  TlsContext ctx_;  // the pair this connection was accepted with (rotation swaps the shared one)
  TlsStream stream_;
  Timer timer_;
  Clock::time_point deadline_ = Clock::time_point::max();
  Clock::time_point timer_at_{};       // when the pending wait ends
  std::uint64_t timer_generation_ = 0;  // of the pending wait; an older one's end is ignored
  bool timer_waiting_ = false;
  Clock::duration granularity_;  // the shortest bound: how far ahead the timer is armed at most
};

}  // namespace kpw
