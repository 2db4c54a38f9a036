#include "server/acceptor.hpp"

namespace kpw {

std::optional<std::string> listen_on(boost::asio::ip::tcp::acceptor& acceptor,
                                     const boost::asio::ip::tcp::endpoint& endpoint,
                                     std::string_view shown) {
  namespace net = boost::asio;
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  // A restarted server binds its port again while the last one's connections are in TIME_WAIT.
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return "cannot listen on " + std::string(shown) + ": " + ec.message();
  return std::nullopt;
}

}  // namespace kpw
