// One accept loop per port, each connection handed to the event loops in turn, one session each:
// on the HTTPS port a TlsSession (a connection over --max-connections is closed at once), on the
// probe and metrics ports a PlainSession.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <memory>
#include <string>

#include "server/port.hpp"
#include "server/server_state.hpp"

namespace kpw {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  enum class Stream { kTls, kPlain };
  // `acceptor` listens already (listen_on); `port` outlives the listener and its sessions.
  Listener(Loops& loops, boost::asio::ip::tcp::acceptor&& acceptor, ServerState& state,
           const Port& port, Stream stream)
      : loops_(loops),
        acceptor_(std::move(acceptor)),
        state_(state),
        port_(port),
        stream_(stream) {}

  // Accepts on the acceptor's loop; each connection goes to the next loop in turn.
  void accept();
  void close();
  // The address listened on, `ip:port`.
  std::string endpoint() const;

 private:
  void admit(Socket socket);

  Loops& loops_;
  boost::asio::ip::tcp::acceptor acceptor_;
  ServerState& state_;
  const Port& port_;
  Stream stream_;
  std::size_t next_loop_ = 0;
};

}  // namespace kpw
