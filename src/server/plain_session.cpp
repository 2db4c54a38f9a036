#include "server/plain_session.hpp"

namespace kpw {

PlainSession::PlainSession(Socket&& socket, const Port& port,
                           ServerState& state)
    : HttpSession(port, state), stream_(std::move(socket)) {}

void PlainSession::run() {
  join_connections();
  wait_for_request(true);
}

void PlainSession::shutdown() {
  error_code ignored;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace kpw
