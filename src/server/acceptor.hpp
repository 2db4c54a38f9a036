// The one way this server opens a listening socket: the HTTPS port and the plain-HTTP probe and
// metrics ports alike.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kpw {

// Opens `acceptor` on `endpoint` and listens; else says why, naming the address as `shown`
// ("cannot listen on <shown>: <reason>").
std::optional<std::string> listen_on(boost::asio::ip::tcp::acceptor& acceptor,
                                     const boost::asio::ip::tcp::endpoint& endpoint,
                                     std::string_view shown);

// listen_on `address`: `host:port`, `:port` (all interfaces) or `[v6]:port`; else says why
// (malformed, not an IP address, cannot be bound).
std::optional<std::string> listen_at(boost::asio::ip::tcp::acceptor& acceptor,
                                     const std::string& address);

// Splits `host:port`; "" host means all interfaces. False when malformed.
bool split_host_port(const std::string& address, std::string& host, unsigned short& port);

}  // namespace kpw
