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

}  // namespace kpw
