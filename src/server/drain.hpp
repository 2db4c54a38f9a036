// The SIGTERM sequence of ServerOptions (not ready, a delay, stop accepting, let requests in
// flight finish, close what is idle, stop the loops by the grace's end), driven by one timer.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <vector>

#include "server/certificate_watcher.hpp"
#include "server/listener.hpp"
#include "server/memory_trimmer.hpp"
#include "server/server_state.hpp"

namespace kpw {

class Drain {
 public:
  // Its timer runs on the first loop.
  Drain(Loops& loops, ServerState& state, std::shared_ptr<Listener> listener,
        std::vector<std::shared_ptr<Listener>> plain, CertificateWatcher& watcher,
        MemoryTrimmer& trimmer);

  // `skip_delay`: stop accepting at once (SIGINT).
  void begin(bool skip_delay);

 private:
  void stop_accepting();
  void close_idle_connections();
  void wait();

  Loops& loops_;
  boost::asio::steady_timer timer_;
  ServerState& state_;
  std::shared_ptr<Listener> listener_;            // the HTTPS port: closed when draining begins
  std::vector<std::shared_ptr<Listener>> plain_;  // probes and metrics: closed last
  CertificateWatcher& watcher_;
  MemoryTrimmer& trimmer_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace kpw
