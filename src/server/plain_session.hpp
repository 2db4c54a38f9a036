// A connection of a plain-HTTP port (probes, metrics): HttpSession's cycle over TCP, with the
// port's limits; the socket shut down after a last answer.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <memory>

#include "server/http_session.hpp"

namespace kpw {

class PlainSession final : public HttpSession<PlainSession>,
                           public std::enable_shared_from_this<PlainSession> {
 public:
  PlainSession(Socket&& socket, const Port& port, ServerState& state);

  // Joins the connection list and waits for the first request; runs on the connection's loop.
  void run();
  TcpStream& stream() { return stream_; }

 private:
  friend class HttpSession<PlainSession>;
  void shutdown();
  // Beast's stream bounds each operation itself.
  void expires_at(Clock::time_point t) { stream_.expires_at(t); }
  template <class Duration>
  void expires_after(Duration d) {
    stream_.expires_after(d);
  }
  void no_deadline() { stream_.expires_never(); }
  void read_waits_first() {}  // Beast's stream reads first (edge-triggered, speculative)
  void close() { stream_.close(); }

  TcpStream stream_;
};

}  // namespace kpw
