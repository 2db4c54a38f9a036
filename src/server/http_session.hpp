// One connection of any port, plain or TLS, on the model of Boost.Beast's advanced_server_flex:
// request → answer until either side closes, every wait bounded by a timer. HttpSession<Derived>
// is the whole cycle (header and body reads with their limits, the bytes of bodies in flight, the
// large-review slots and their 429 and 413 paths, judging on the loop, in batches, or on a review thread, the one-buffer
// answer, keep-alive, draining); TlsSession and PlainSession give it their stream and what
// differs (the handshake, the closing). What a request is answered with is the port's (port.hpp).
#pragma once

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>

#include "admission/answer.hpp"
#include "server/metrics.hpp"
#include "server/port.hpp"
#include "server/request_head.hpp"
#include "server/server_state.hpp"

namespace kpw {

// A request body read into a std::string, each piece appended: Beast's string_body resizes the
// string first (zero-filling every byte it is about to overwrite). Nothing is reserved from the
// Content-Length: the body grows as its bytes arrive, which is what the session charges to
// ServerOptions::max_body_bytes_in_flight.
struct RequestBody {
  using value_type = std::string;
  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}
    void init(const boost::optional<std::uint64_t>& /*length*/, boost::beast::error_code& ec) {
      ec = {};
    }
    template <class ConstBuffers>
    std::size_t put(const ConstBuffers& buffers, boost::beast::error_code& ec) {
      std::size_t n = 0;
      for (const boost::asio::const_buffer b : boost::beast::buffers_range_ref(buffers)) {
        body_.append(static_cast<const char*>(b.data()), b.size());
        n += b.size();
      }
      ec = {};
      return n;
    }
    void finish(boost::beast::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

// What draining needs of a connection, whatever its stream.
class Connection {
 public:
  // Draining: an idle connection closes now; a busy one closes after its answer. Posted to the
  // connection's loop (draining runs on the first loop).
  virtual void close_if_idle_async() = 0;

 protected:
  ~Connection() = default;
};

// Derived provides `stream()` (a Beast AsyncStream on its loop), the bound on the waits from now
// on (`expires_at(time_point)`, `expires_after(duration)`, `no_deadline()`: past it the socket is
// closed and the pending operation fails), `read_waits_first()` (a hint: the next read is of a
// request not sent yet), `close()`, `shutdown()` (the close after a last
// answer, once the request's memory is let go) and `shared_from_this()`.
template <class Derived>
class HttpSession : public Connection {
 public:
  void close_if_idle_async() override;

 protected:
  using error_code = boost::beast::error_code;

  HttpSession(const Port& port, ServerState& state) : state_(state), port_(port) {}
  ~HttpSession();

  // Joins the connection list (for draining); on the connection's loop, before its first wait.
  void join_connections();
  // Between requests: the first one is bounded by the header timeout, later ones by the idle one.
  void wait_for_request(bool first);
  // Gives back what a request holds, counts it abandoned if unanswered, and closes the socket.
  void finish();
  // Between requests, waiting for the next one's first byte.
  bool idle() const { return idle_; }


  using Clock = std::chrono::steady_clock;

  ServerState& state_;
  const Port& port_;

 private:
  using Parser = boost::beast::http::request_parser<RequestBody>;

  Derived& derived() { return static_cast<Derived&>(*this); }
  void read_header();
  void on_header(error_code ec);
  void on_head();
  void read_body();
  void read_body_rest();
  void read_body_parsed();
  void on_body(error_code ec);
  bool charge_body(std::size_t total);
  void refund_body();
  void refuse_budget(bool body_coming);
  bool take_large_slot();
  bool waits_on_api_server() const;
  void judge_waiting();
  void give_back_large_slot();
  void refuse_large();
  void discard_body(bool keep_alive);
  void judge();
  void answer();
  void fail_read(error_code ec);
  void send(bool keep_alive);
  void after_answer(bool keep_alive);
  void trim_buffers();
  void release(metrics::RequestEnd end);
  // Whether the answer keeps the connection open: as the client asks, while the server is ready.
  // From SIGTERM on (readiness off, the shutdown delay) every answer closes its connection, so
  // that the client's next request opens a new one, which the Service sends to a ready replica,
  // instead of reusing this one until the delay ends and its close races a request being written
  // (`write: broken pipe`, which the API server does not retry).
  bool keeps_alive() const {
    return head_.keep_alive && state_.ready.load(std::memory_order_relaxed) &&
           !state_.stopping.load(std::memory_order_relaxed);
  }
  int route_index_or_none() const {
    return target_.route == nullptr ? -1 : static_cast<int>(route_index(*target_.route));
  }

  std::list<std::weak_ptr<Connection>>::iterator self_in_list_;
  bool registered_ = false;
  boost::beast::flat_buffer buffer_;
  // The request's head, read by read_common_head or, for any other head, by Beast's parser
  // (engaged for that request only); its body, which the parser holds while it reads it.
  RequestHead head_;
  std::string body_;
  std::optional<Parser> parser_;
  boost::beast::http::response<boost::beast::http::empty_body> continue_;
  std::string out_;  // the answer as sent, head and body; keeps its capacity
  HttpAnswer answer_;
  Clock::time_point request_start_;
  Target target_;  // what the request's path names, found at its header
  bool counted_ = false;
  bool idle_ = false;
  bool large_slot_ = false;      // this request holds a slot of the review threads
  std::size_t charged_ = 0;      // bytes of its body charged to metrics::body_bytes_in_flight()
  std::uint64_t unread_ = 0;     // bytes of a refused body still to read and drop
  std::size_t large_bytes_ = 0;  // bodies above this are large for this request's route
};

}  // namespace kpw
