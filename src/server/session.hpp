// One TLS connection of the HTTPS port: handshake, then request → answer until either side closes,
// every wait bounded by a timer. A request is judged inline on the connection's loop, or on a
// review thread when its body is large.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "admission/service.hpp"
#include "server/metrics.hpp"
#include "server/server_state.hpp"
#include "server/tls_context.hpp"

namespace kpw {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(boost::asio::ip::tcp::socket&& socket, TlsContext ctx, ServerState& state);
  ~Session();

  // Joins the connection list and starts the handshake; runs on the connection's loop.
  void run();
  boost::asio::any_io_executor get_executor() { return stream_.get_executor(); }
  // Draining: an idle connection closes now; a busy one closes after its answer.
  void close_if_idle_async();

 private:
  using error_code = boost::beast::error_code;
  using Clock = std::chrono::steady_clock;
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  void acknowledge_now();
  void wait_for_request(bool first);
  void read_header();
  void on_header(error_code ec);
  void read_body();
  void on_body(error_code ec);
  bool take_large_slot();
  void give_back_large_slot();
  void refuse_large(std::uint64_t length);
  void discard_body(bool keep_alive);
  void after_answer(bool keep_alive);
  void judge();
  void answer();
  bool probe(boost::beast::http::verb method, std::string_view target);
  void fail_read(error_code ec);
  void send(bool keep_alive);
  void trim_buffers();
  void shutdown();
  void release(metrics::RequestEnd end);
  void finish();

  TlsContext ctx_;  // the pair this connection was accepted with (rotation swaps the shared one)
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
  ServerState& state_;
  std::list<std::weak_ptr<Session>>::iterator self_in_list_;
  bool registered_ = false;
  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  boost::beast::http::response<boost::beast::http::empty_body> continue_;
  std::string out_;  // the answer as sent, head and body; keeps its capacity
  HttpAnswer answer_;
  Clock::time_point request_start_;
  const Route* route_ = nullptr;  // the route the request's path names, found at its header
  int route_index_or_none() const {
    return route_ == nullptr ? -1 : static_cast<int>(route_index(*route_));
  }
  bool counted_ = false;
  bool idle_ = false;
  bool large_slot_ = false;      // this request holds a slot of the review threads
  std::uint64_t unread_ = 0;     // bytes of a refused body still to read and drop
  std::size_t large_bytes_ = 0;  // bodies above this are large for this request's webhook
};

}  // namespace kpw
