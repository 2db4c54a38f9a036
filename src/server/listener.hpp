// The HTTPS port's accept loop: a connection over --max-connections is closed at once, the others
// are handed to the event loops in turn, one session each.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <memory>

#include "server/server_state.hpp"

namespace kpw {

class TlsListener : public std::enable_shared_from_this<TlsListener> {
 public:
  // `acceptor` listens already (listen_on).
  TlsListener(Loops& loops, boost::asio::ip::tcp::acceptor&& acceptor, ServerState& state)
      : loops_(loops), acceptor_(std::move(acceptor)), state_(state) {}

  // Accepts on the acceptor's loop; each connection goes to the next loop in turn.
  void accept();
  void close();

 private:
  void admit(boost::asio::ip::tcp::socket socket);

  Loops& loops_;
  boost::asio::ip::tcp::acceptor acceptor_;
  ServerState& state_;
  std::size_t next_loop_ = 0;
};

}  // namespace kpw
