#include "server/acceptor.hpp"

namespace kpw {

namespace net = boost::asio;

std::optional<std::string> listen_on(net::ip::tcp::acceptor& acceptor,
                                     const net::ip::tcp::endpoint& endpoint,
                                     std::string_view shown) {
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  // A restarted server binds its port again while the last one's connections are in TIME_WAIT.
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return "cannot listen on " + std::string(shown) + ": " + ec.message();
  return std::nullopt;
}

std::optional<std::string> listen_at(net::ip::tcp::acceptor& acceptor, const std::string& address) {
  std::string host;
  unsigned short port = 0;
  if (!split_host_port(address, host, port)) {
    return "\"" + address + "\" is not host:port or :port";
  }
  boost::system::error_code ec;
  const net::ip::address ip =
      host.empty() ? net::ip::address(net::ip::address_v4::any()) : net::ip::make_address(host, ec);
  if (ec) return "\"" + address + "\": " + host + " is not an IP address";
  return listen_on(acceptor, net::ip::tcp::endpoint(ip, port), address);
}

bool split_host_port(const std::string& address, std::string& host, unsigned short& port) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 >= address.size()) return false;
  host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned long value = 0;
  for (std::size_t i = colon + 1; i < address.size(); ++i) {
    const char c = address[i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned long>(c - '0');
    if (value > 65535) return false;
  }
  port = static_cast<unsigned short>(value);
  return true;
}

}  // namespace kpw
