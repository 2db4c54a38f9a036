#include "server/plain_http.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>

#include "server/acceptor.hpp"

namespace kpw {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using beast::error_code;

constexpr std::chrono::seconds kTimeout{10};

class PlainSession : public std::enable_shared_from_this<PlainSession> {
 public:
  PlainSession(tcp::socket&& socket, const PlainHandler& handler)
      : stream_(std::move(socket)), handler_(handler) {}

  void read() {
    req_ = {};
    stream_.expires_after(kTimeout);
    http::async_read(stream_, buffer_, req_,
                     [self = shared_from_this()](error_code ec, std::size_t) {
                       if (ec) return self->close();
                       self->answer();
                     });
  }

 private:
  void answer() {
    PlainAnswer a;
    const std::string_view target = req_.target();
    const std::string_view path = target.substr(0, target.find('?'));
    if (req_.method() != http::verb::get && req_.method() != http::verb::head) {
      a.status = 405;
      a.body = "405 method not allowed\n";
    } else {
      handler_(path, a);
    }
    res_ = {};
    res_.result(a.status);
    res_.version(11);
    res_.set(http::field::content_type, a.content_type);
    if (a.status == 405) res_.set(http::field::allow, "GET");
    res_.body() = req_.method() == http::verb::head ? std::string() : std::move(a.body);
    res_.keep_alive(req_.keep_alive());
    res_.prepare_payload();
    http::async_write(stream_, res_, [self = shared_from_this()](error_code ec, std::size_t) {
      if (ec || !self->res_.keep_alive()) return self->close();
      self->read();
    });
  }

  void close() {
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  const PlainHandler& handler_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
};

class Listener final : public PlainHttpListener, public std::enable_shared_from_this<Listener> {
 public:
  Listener(net::io_context& ioc, PlainHandler handler)
      : ioc_(ioc), acceptor_(ioc), handler_(std::move(handler)) {}

  std::optional<std::string> bind(const std::string& address) {
    std::string host;
    unsigned short port = 0;
    if (!split_host_port(address, host, port)) {
      return "\"" + address + "\" is not host:port or :port";
    }
    error_code ec;
    const net::ip::address ip = host.empty() ? net::ip::address(net::ip::address_v4::any())
                                             : net::ip::make_address(host, ec);
    if (ec) return "\"" + address + "\": " + host + " is not an IP address";
    return listen_on(acceptor_, tcp::endpoint(ip, port), address);
  }

  void accept() {
    acceptor_.async_accept(
        net::make_strand(ioc_), [self = shared_from_this()](error_code ec, tcp::socket socket) {
          if (!self->acceptor_.is_open()) return;
          if (!ec) {
            std::make_shared<PlainSession>(std::move(socket), self->handler_)->read();
          }
          self->accept();
        });
  }

  void close() override {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
      error_code ignored;
      self->acceptor_.close(ignored);
    });
  }

  std::string endpoint() const override {
    error_code ec;
    const tcp::endpoint e = acceptor_.local_endpoint(ec);
    if (ec) return "?";
    return e.address().to_string() + ":" + std::to_string(e.port());
  }

 private:
  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  PlainHandler handler_;
};

}  // namespace

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

std::optional<std::string> PlainHttpListener::open(boost::asio::io_context& ioc,
                                                   const std::string& address, PlainHandler handler,
                                                   std::shared_ptr<PlainHttpListener>& out) {
  auto listener = std::make_shared<Listener>(ioc, std::move(handler));
  if (auto error = listener->bind(address)) return error;
  listener->accept();
  out = listener;
  return std::nullopt;
}

}  // namespace kpw
