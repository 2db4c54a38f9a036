// Open-loop load at a fixed rate over keep-alive TLS connections, for latency percentiles without
// coordinated omission: each request has a scheduled send time, and its latency runs from that
// time (not from when a connection was free) to the last byte of its answer.
//
//   openloop --port P --ca CA --body FILE [--path /validate-propagationpolicy] [--rate 1000]
//            [--connections 25] [--seconds 10] [--delay 0] [--drain 10] [--ready-file FILE]
//            [--dispatch idle|turn]
//
// --dispatch idle (the default): each request goes to an idle connection, or waits for the first
// one to become idle. --dispatch turn: request i goes to connection i mod N and waits behind that
// connection's earlier requests, so every connection keeps getting its share: a server that
// stalls some of its connections cannot be routed around (the stall phase of run.sh uses it).
//
// The schedule starts when every connection has finished its TLS handshake, --delay seconds
// later (fractions allowed); --ready-file is created at that moment (before the delay), so a
// script can start other load between the connections and the first request. After the last
// scheduled request, answers still in flight get --drain seconds.
//
// Prints one line: `OPENLOOP sent=… ok=… errors=… … p50_us=… p99_us=… p999_us=… max_us=…
// unanswered=…`. A request still unanswered when the run ends (in flight, or scheduled but never
// sent because every connection was busy) counts in the percentiles with the time it had waited
// so far (a lower bound): a stalled server must not look fast because its answers never came.
#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "util/file.hpp"

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  unsigned short port = 0;
  std::string ca, body_file, path = "/validate-propagationpolicy";
  unsigned rate = 1000, connections = 25, seconds = 10;
  double delay = 0, drain = 10;
  std::string ready_file;
  bool by_turn = false;  // --dispatch turn
};

struct Shared {
  std::string body;
  std::string path;
  std::deque<Clock::time_point> backlog;  // scheduled but not yet sent (all connections busy)
  bool by_turn = false;  // each connection sends only its own queue, never the shared backlog
  std::vector<double> latencies_us;
  unsigned long errors = 0;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(net::io_context& ioc, ssl::context& ctx, Shared& shared)
      : stream_(ioc, ctx), shared_(shared) {}

  void start(unsigned short port, std::function<void()> ready) {
    SSL_set_tlsext_host_name(stream_.native_handle(), "localhost");
    stream_.set_verify_callback(ssl::host_name_verification("localhost"));
    beast::get_lowest_layer(stream_).async_connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), port),
        [self = shared_from_this(), ready](beast::error_code ec) {
          if (ec) return self->fail();
          self->stream_.async_handshake(ssl::stream_base::client,
                                        [self, ready](beast::error_code ec) {
                                          if (ec) return self->fail();
                                          self->idle_ = true;
                                          ready();
                                        });
        });
  }

  bool idle() const { return idle_ && !broken_; }
  // A request written or being written whose answer has not come (and the connection is fine).
  bool in_flight() const { return sending_ && !broken_; }
  Clock::time_point scheduled() const { return scheduled_; }
  // --dispatch turn: send now if idle, else after this connection's earlier requests.
  void enqueue(Clock::time_point scheduled) {
    if (broken_) {
      ++shared_.errors;
    } else if (idle_) {
      send(scheduled);
    } else {
      queue_.push_back(scheduled);
    }
  }
  const std::deque<Clock::time_point>& queue() const { return queue_; }

  void send(Clock::time_point scheduled) {
    idle_ = false;
    sending_ = true;
    scheduled_ = scheduled;
    req_ = {http::verb::post, shared_.path + "?timeout=3s", 11};
    req_.set(http::field::host, "localhost");
    req_.set(http::field::content_type, "application/json");
    req_.body() = shared_.body;
    req_.prepare_payload();
    http::async_write(
        stream_, req_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
          if (ec) return self->fail();
          self->res_ = {};
          http::async_read(
              self->stream_, self->buffer_, self->res_, [self](beast::error_code ec, std::size_t) {
                if (ec) return self->fail();
                self->sending_ = false;
                const double us =
                    std::chrono::duration<double, std::micro>(Clock::now() - self->scheduled_)
                        .count();
                if (self->res_.result() == http::status::ok) {
                  self->shared_.latencies_us.push_back(us);
                } else {
                  ++self->shared_.errors;
                }
                self->next();
              });
        });
  }

 private:
  void next() {
    if (!queue_.empty()) {
      const Clock::time_point t = queue_.front();
      queue_.pop_front();
      return send(t);
    }
    if (!shared_.by_turn && !shared_.backlog.empty()) {
      const Clock::time_point t = shared_.backlog.front();
      shared_.backlog.pop_front();
      return send(t);
    }
    idle_ = true;
  }
  void fail() {
    ++shared_.errors;
    broken_ = true;
    shared_.errors += queue_.size();  // never to be sent
    queue_.clear();
  }

  beast::ssl_stream<beast::tcp_stream> stream_;
  Shared& shared_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
  Clock::time_point scheduled_;
  std::deque<Clock::time_point> queue_;  // --dispatch turn: this connection's waiting requests
  bool idle_ = false;
  bool sending_ = false;
  bool broken_ = false;
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const std::size_t i =
      std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--port")
      o.port = static_cast<unsigned short>(std::atoi(value.c_str()));
    else if (flag == "--ca")
      o.ca = value;
    else if (flag == "--body")
      o.body_file = value;
    else if (flag == "--path")
      o.path = value;
    else if (flag == "--rate")
      o.rate = static_cast<unsigned>(std::atoi(value.c_str()));
    else if (flag == "--connections")
      o.connections = static_cast<unsigned>(std::atoi(value.c_str()));
    else if (flag == "--seconds")
      o.seconds = static_cast<unsigned>(std::atoi(value.c_str()));
    else if (flag == "--delay")
      o.delay = std::max(0.0, std::atof(value.c_str()));
    else if (flag == "--drain")
      o.drain = std::max(0.0, std::atof(value.c_str()));
    else if (flag == "--ready-file")
      o.ready_file = value;
    else if (flag == "--dispatch" && (value == "idle" || value == "turn"))
      o.by_turn = value == "turn";
    else {
      std::fprintf(stderr, "openloop: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (o.port == 0 || o.ca.empty() || o.body_file.empty() || o.rate == 0 || o.connections == 0) {
    std::fprintf(stderr,
                 "usage: openloop --port P --ca CA --body FILE [--path P] [--rate N] "
                 "[--connections N] [--seconds N] [--delay S] [--drain S] "
                 "[--ready-file FILE] [--dispatch idle|turn]\n");
    return 2;
  }
  Shared shared;
  if (!kpw::read_file(o.body_file, shared.body)) {
    std::fprintf(stderr, "openloop: cannot read %s\n", o.body_file.c_str());
    return 2;
  }
  shared.path = o.path;
  shared.by_turn = o.by_turn;

  net::io_context ioc(1);
  ssl::context ctx(ssl::context::tls_client);
  ctx.load_verify_file(o.ca);
  ctx.set_verify_mode(ssl::verify_peer);

  std::vector<std::shared_ptr<Connection>> conns;
  unsigned ready = 0;
  net::steady_timer ticker(ioc);
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const auto period = std::chrono::nanoseconds(1'000'000'000LL / o.rate);
  const unsigned long total = static_cast<unsigned long>(o.rate) * o.seconds;
  unsigned long sent = 0;
  std::size_t cursor = 0;
  Clock::time_point start;

  std::function<void()> tick = [&] {
    const Clock::time_point scheduled = start + period * sent;
    if (o.by_turn) conns[sent % conns.size()]->enqueue(scheduled);
    ++sent;
    bool placed = o.by_turn;
    for (std::size_t k = 0; k < conns.size() && !placed; ++k) {
      auto& c = conns[(cursor + k) % conns.size()];
      if (c->idle()) {
        c->send(scheduled);
        cursor = (cursor + k + 1) % conns.size();
        placed = true;
      }
    }
    if (!placed) shared.backlog.push_back(scheduled);
    if (sent < total) {
      ticker.expires_at(start + period * sent);
      ticker.async_wait([&](beast::error_code ec) {
        if (!ec) tick();
      });
    }
  };

  for (unsigned i = 0; i < o.connections; ++i) {
    auto c = std::make_shared<Connection>(ioc, ctx, shared);
    conns.push_back(c);
    c->start(o.port, [&] {
      if (++ready == o.connections) {
        if (!o.ready_file.empty()) std::ofstream(o.ready_file) << "ready\n";
        start = Clock::now() + seconds(o.delay);
        ticker.expires_at(start);
        ticker.async_wait([&](beast::error_code ec) {
          if (!ec) tick();
        });
      }
    });
  }
  // Stop --drain seconds after the last scheduled request (answers still in flight then are
  // counted as unanswered).
  net::steady_timer deadline(ioc);
  deadline.expires_after(seconds(o.delay + o.seconds + o.drain));
  deadline.async_wait([&](beast::error_code) { ioc.stop(); });
  net::steady_timer done(ioc);
  std::function<void()> poll = [&] {
    if (sent >= total && shared.backlog.empty() &&
        std::all_of(conns.begin(), conns.end(), [](auto& c) { return c->idle(); })) {
      ioc.stop();
      return;
    }
    done.expires_after(std::chrono::milliseconds(10));
    done.async_wait([&](beast::error_code ec) {
      if (!ec) poll();
    });
  };
  poll();
  ioc.run();

  std::vector<double>& l = shared.latencies_us;
  const unsigned long ok = l.size();
  // The requests never answered wait at least until now: their age joins the percentiles.
  const Clock::time_point end = Clock::now();
  unsigned long unanswered = 0;
  auto waited = [&](Clock::time_point scheduled) {
    l.push_back(std::chrono::duration<double, std::micro>(end - scheduled).count());
    ++unanswered;
  };
  for (auto& c : conns) {
    if (c->in_flight()) waited(c->scheduled());
  }
  for (const Clock::time_point t : shared.backlog) waited(t);
  for (auto& c : conns) {
    for (const Clock::time_point t : c->queue()) waited(t);
  }
  const double p50 = percentile(l, 0.50), p99 = percentile(l, 0.99), p999 = percentile(l, 0.999);
  const double max = l.empty() ? 0 : *std::max_element(l.begin(), l.end());
  std::printf(
      "OPENLOOP sent=%lu ok=%lu errors=%lu rate=%u connections=%u p50_us=%.0f p99_us=%.0f "
      "p999_us=%.0f max_us=%.0f unanswered=%lu\n",
      sent, ok, shared.errors, o.rate, o.connections, p50, p99, p999, max, unanswered);
  return ok + shared.errors >= sent && shared.errors == 0 && unanswered == 0 ? 0 : 1;
}
