#include "server/server.hpp"

#include <malloc.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "server/acceptor.hpp"
#include "server/certificate_watcher.hpp"
#include "server/drain.hpp"
#include "server/listener.hpp"
#include "server/memory_trimmer.hpp"
#include "server/metrics.hpp"
#include "server/port.hpp"
#include "server/review_pool.hpp"
#include "server/server_state.hpp"
#include "server/tls_context.hpp"
#include "util/log.hpp"

namespace kpw {
namespace {

namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;

bool disabled(const std::string& address) { return address.empty() || address == "0"; }

std::optional<std::string> open_acceptor(const ServerOptions& options, tcp::acceptor& acceptor) {
  error_code ec;
  const net::ip::address address = net::ip::make_address(options.bind_address, ec);
  if (ec) return "--bind-address " + options.bind_address + " is not an IP address";
  return listen_on(acceptor, tcp::endpoint(address, options.port),
                   options.bind_address + ":" + std::to_string(options.port));
}

// A probe or metrics port at `address`, its sessions on the loops in turn.
std::optional<std::string> open_plain(Loops& loops, ServerState& state, const std::string& address,
                                      const Port& port, std::shared_ptr<Listener>& out) {
  tcp::acceptor acceptor(*loops.front());
  if (auto error = listen_at(acceptor, address)) return error;
  out =
      std::make_shared<Listener>(loops, std::move(acceptor), state, port, Listener::Stream::kPlain);
  out->accept();
  return std::nullopt;
}

// Runs a loop until it is stopped. Something that throws outside a review's handler (the
// handler's own boundary is in handle_http) ends only the connection whose handler it was: the
// handler and the session it held are gone, and the loop runs on.
void run_loop(net::io_context& loop, unsigned number) {
  metrics::count_on_shard(number);
  for (;;) {
    try {
      loop.run();
      return;
    } catch (const std::exception& e) {
      metrics::connection_failed();
      log::error("a connection failed and was closed", {{"error", e.what()}});
    } catch (...) {
      metrics::connection_failed();
      log::error("a connection failed and was closed");
    }
  }
}

}  // namespace

void configure_memory() {
  // Large blocks (request bodies up to --max-request-bytes) get their own mappings, returned to
  // the system when freed; otherwise glibc raises its threshold after the first one and keeps such
  // buffers at the end of a thread's heap, where malloc_trim cannot give them back. The review
  // threads keep theirs for reuse on purpose, in their block cache, for a quiet second.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

std::optional<std::string> run_server(const ServerOptions& options, RequestFn handler) {
  configure_memory();
  // A client gone before its answer must end only its connection (the write fails with EPIPE),
  // never the process by SIGPIPE: TlsStream's BIO sends with MSG_NOSIGNAL, and anything else
  // that writes a socket with write(2) (OpenSSL's own socket BIO did) is covered here.
  std::signal(SIGPIPE, SIG_IGN);
  TlsContext ctx;
  if (auto error =
          load_tls_context(options.cert_file, options.key_file, options.tls_min_version, ctx)) {
    return error;
  }

  // What the ports serve, and the state every connection shares: declared before the loops, so
  // that a session still open when they stop leaves both as the loops are destroyed.
  const Port review_serves = review_port(options);
  const Port probe_serves = probe_port(options);
  const Port metrics_serves = metrics_port(options);
  ServerState state(options, handler);
  state.tls.store(ctx);

  const unsigned threads = options.threads == 0 ? 1 : options.threads;
  Loops loops;
  for (unsigned i = 0; i < threads; ++i) loops.push_back(std::make_unique<net::io_context>(1));
  // After the loops, so that it is destroyed first: its queued jobs hold sessions of the loops.
  ReviewPool reviews(std::max(1u, options.review_threads),
                     std::max<std::size_t>(1, options.max_large_reviews));
  state.reviews = &reviews;
  std::optional<ReviewPool> waiting;
  if (!options.judge_off_loop.empty()) {
    waiting.emplace(std::max(1u, options.waiting_review_threads),
                    std::max<std::size_t>(1, options.max_waiting_reviews), false);
    state.waiting = &*waiting;
  }
  // The first loop also carries the listeners, timers and signals.
  net::io_context& ioc = *loops.front();
  tcp::acceptor acceptor(ioc);
  if (auto error = open_acceptor(options, acceptor)) return error;

  std::vector<std::shared_ptr<Listener>> plain;
  if (!disabled(options.health_probe_address)) {
    std::shared_ptr<Listener> listener;
    if (auto error =
            open_plain(loops, state, options.health_probe_address, probe_serves, listener)) {
      return "--health-probe-bind-address " + *error;
    }
    plain.push_back(listener);
  }
  if (!disabled(options.metrics_address)) {
    std::shared_ptr<Listener> listener;
    if (auto error = open_plain(loops, state, options.metrics_address, metrics_serves, listener)) {
      return "--metrics-bind-address " + *error;
    }
    plain.push_back(listener);
  }

  auto listener = std::make_shared<Listener>(loops, std::move(acceptor), state, review_serves,
                                             Listener::Stream::kTls);
  listener->accept();
  CertificateWatcher watcher(ioc, options, state.tls);
  watcher.start();
  MemoryTrimmer trimmer(ioc, reviews);
  trimmer.start();
  Drain drain(loops, state, listener, plain, watcher, trimmer);

  // SIGTERM (the kubelet) waits out the shutdown delay; SIGINT (a person at a terminal) does not.
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](error_code ec, int signal) {
    if (!ec) drain.begin(signal == SIGINT);
  });

  state.ready = true;
  std::string probes_at =
      disabled(options.health_probe_address) ? "off" : plain.front()->endpoint();
  std::string metrics_at = disabled(options.metrics_address) ? "off" : plain.back()->endpoint();
  const std::string serving =
      "serving https://" + options.bind_address + ":" + std::to_string(options.port);
  const std::string thread_count = std::to_string(threads);
  if (options.version.empty()) {
    log::info(serving, {{"threads", thread_count}, {"probes", probes_at}, {"metrics", metrics_at}});
  } else {
    log::info(serving, {{"threads", thread_count},
                        {"probes", probes_at},
                        {"metrics", metrics_at},
                        {"version", options.version},
                        {"commit", options.commit},
                        {"karmada", options.karmada}});
  }
  if (options.on_serving) options.on_serving();
  // The other loops have no work until connections arrive: guards keep them running until the
  // drain stops every loop.
  std::vector<net::executor_work_guard<net::io_context::executor_type>> idle_guards;
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) {
    idle_guards.push_back(net::make_work_guard(*loops[i]));
    pool.emplace_back([&loop = *loops[i], i] { run_loop(loop, i); });
  }
  run_loop(ioc, 0);
  for (std::thread& t : pool) t.join();
  log::info("stopped");
  return std::nullopt;
}

}  // namespace kpw
