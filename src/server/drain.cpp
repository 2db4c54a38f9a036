#include "server/drain.hpp"

#include <mutex>
#include <string>

#include "server/http_session.hpp"
#include "server/metrics.hpp"
#include "util/log.hpp"

namespace kpw {
namespace {

using Clock = std::chrono::steady_clock;
using boost::system::error_code;

}  // namespace

Drain::Drain(Loops& loops, ServerState& state, std::shared_ptr<Listener> listener,
             std::vector<std::shared_ptr<Listener>> plain, CertificateWatcher& watcher,
             MemoryTrimmer& trimmer)
    : loops_(loops),
      timer_(*loops.front()),
      state_(state),
      listener_(std::move(listener)),
      plain_(std::move(plain)),
      watcher_(watcher),
      trimmer_(trimmer) {}

void Drain::begin(bool skip_delay) {
  state_.ready = false;
  const auto delay = skip_delay ? std::chrono::milliseconds(0) : state_.options.shutdown_delay;
  log::info("stopping: not ready; still accepting for the shutdown delay",
            {{"delay", std::to_string(delay.count()) + "ms"}});
  timer_.expires_after(delay);
  timer_.async_wait([this](error_code ec) {
    if (ec) return;
    stop_accepting();
  });
}

void Drain::stop_accepting() {
  state_.stopping = true;
  listener_->close();
  watcher_.stop();
  trimmer_.stop();
  deadline_ = Clock::now() + state_.options.shutdown_grace;
  close_idle_connections();
  wait();
}

void Drain::close_idle_connections() {
  std::vector<std::shared_ptr<Connection>> open;
  {
    std::lock_guard<std::mutex> lock(state_.connections_mutex);
    for (const std::weak_ptr<Connection>& w : state_.connections) {
      if (auto s = w.lock()) open.push_back(std::move(s));
    }
  }
  for (auto& s : open) s->close_if_idle_async();
}

void Drain::wait() {
  if (metrics::open_connections() <= 0 || Clock::now() >= deadline_) {
    if (metrics::open_connections() > 0) {
      log::error("shutdown grace ran out; closing the remaining connections",
                 {{"open", std::to_string(metrics::open_connections())}});
    }
    for (auto& p : plain_) p->close();
    for (auto& loop : loops_) loop->stop();
    return;
  }
  // Connections that were busy when draining began are idle now, or closing.
  close_idle_connections();
  timer_.expires_after(std::chrono::milliseconds(20));
  timer_.async_wait([this](error_code ec) {
    if (ec) return;
    wait();
  });
}

}  // namespace kpw
