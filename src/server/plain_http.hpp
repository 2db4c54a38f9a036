// A small plain-HTTP listener for the probe and metrics ports: GET only, short answers, every
// wait bounded. Not for admission traffic.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kpw {

struct PlainAnswer {
  unsigned status = 200;
  std::string_view content_type = "text/plain; charset=utf-8";
  std::string body;
};

using PlainHandler = std::function<void(std::string_view path, PlainAnswer& answer)>;

// `address` is `host:port`, `:port` (all interfaces) or `[v6]:port`. Returns an error message when
// the address is malformed or cannot be bound.
class PlainHttpListener {
 public:
  static std::optional<std::string> open(boost::asio::io_context& ioc, const std::string& address,
                                         PlainHandler handler,
                                         std::shared_ptr<PlainHttpListener>& out);
  virtual ~PlainHttpListener() = default;
  virtual void close() = 0;
  virtual std::string endpoint() const = 0;
};

// Splits `host:port`; "" host means all interfaces. False when malformed.
bool split_host_port(const std::string& address, std::string& host, unsigned short& port);

}  // namespace kpw
