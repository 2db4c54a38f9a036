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
  PlainSession(boost::asio::ip::tcp::socket&& socket, const Port& port, ServerState& state);

  // Joins the connection list and waits for the first request; runs on the connection's loop.
  void run();
  boost::beast::tcp_stream& stream() { return stream_; }

 private:
  friend class HttpSession<PlainSession>;
  void shutdown();

  boost::beast::tcp_stream stream_;
};

}  // namespace kpw
