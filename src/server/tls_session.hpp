// A connection of the HTTPS port: the TLS handshake with the context it was accepted with, then
// HttpSession's cycle; close_notify after a last answer. Counted in the open connections.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <memory>

#include "server/http_session.hpp"
#include "server/tls_context.hpp"

namespace kpw {

class TlsSession final : public HttpSession<TlsSession>,
                         public std::enable_shared_from_this<TlsSession> {
 public:
  TlsSession(boost::asio::ip::tcp::socket&& socket, TlsContext ctx, const Port& port,
             ServerState& state);
  ~TlsSession();

  // Joins the connection list and starts the handshake; runs on the connection's loop.
  void run();
  boost::beast::ssl_stream<boost::beast::tcp_stream>& stream() { return stream_; }

 private:
  friend class HttpSession<TlsSession>;
  void acknowledge_now();
  void shutdown();

  TlsContext ctx_;  // the pair this connection was accepted with (rotation swaps the shared one)
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
};

}  // namespace kpw
