// What the connections of every port share, and the event loops they run on.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "server/review_pool.hpp"
#include "server/server.hpp"
#include "server/tls_context.hpp"

namespace kpw {

class Connection;

// One event loop per I/O thread. A connection lives on one loop for its whole life, so its
// handlers never run concurrently and need no strand: a strand's executor does not fit inside
// any_io_executor, and Beast's operations heap-allocated a copy of it ~26 times per request.
using Loops = std::vector<std::unique_ptr<boost::asio::io_context>>;

// A connection's socket and stream name their loop's executor type, not any_io_executor: the
// polymorphic executor cost ~7 % of a keep-alive request's CPU (copies, destruction and queries of
// it in every operation of Beast's stream; docs/performance.md, "Transport against nginx").
using LoopExecutor = boost::asio::io_context::executor_type;
using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, LoopExecutor>;
using TcpStream =
    boost::beast::basic_stream<boost::asio::ip::tcp, LoopExecutor, boost::beast::unlimited_rate_policy>;

// Shared by every session. The request path reads it without locking: atomics only. The mutex
// guards the list of connections, touched when one opens or closes and when draining. It outlives
// the loops: a session still open when they stop leaves the list as they are destroyed.
struct ServerState {
  ServerState(const ServerOptions& o, RequestFn h) : options(o), handler(std::move(h)) {}
  const ServerOptions& options;
  RequestFn handler;
  // Large reviews are judged there, off the I/O threads. Set before serving; destroyed before the
  // loops (its queued jobs hold sessions of the loops).
  ReviewPool* reviews = nullptr;
  // Reviews that may wait on the API server (ServerOptions::judge_off_loop) are judged there;
  // null when there are none.
  ReviewPool* waiting = nullptr;
  std::atomic<bool> stopping{false};
  std::atomic<bool> ready{false};
  std::atomic<TlsContext> tls;
  std::mutex connections_mutex;
  std::list<std::weak_ptr<Connection>> connections;  // every port's
};

}  // namespace kpw
