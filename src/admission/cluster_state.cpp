#include "admission/cluster_state.hpp"

namespace kpw {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ClusterState::ClusterState(std::string server, std::chrono::milliseconds stale_after)
    : server_(std::move(server)), stale_after_(stale_after) {}

void ric_target_key(std::string_view api_version, std::string_view kind, std::string& out) {
  out.assign(api_version);
  out.push_back('\n');
  out.append(kind);
}

const RicIndex* ClusterState::ric_index() const {
  // Each thread keeps the index it read last: a review reads one atomic and, only after a publish,
  // takes the mutex once to copy the new pointer.
  struct Seen {
    const ClusterState* state = nullptr;
    std::uint64_t generation = 0;
    std::shared_ptr<const RicIndex> index;
  };
  thread_local Seen seen;
  const std::uint64_t generation = generation_.load(std::memory_order_acquire);
  if (seen.state != this || seen.generation != generation) {
    std::lock_guard lock(mutex_);
    seen.state = this;
    seen.generation = generation_.load(std::memory_order_relaxed);
    seen.index = index_;
  }
  return seen.index.get();
}

double ClusterState::seconds_since_heard() const {
  const std::int64_t at = heard_ns_.load(std::memory_order_relaxed);
  if (at == 0) return -1;
  return static_cast<double>(steady_ns() - at) / 1e9;
}

bool ClusterState::fresh() const {
  if (status() != Status::kSynced) return false;
  if (stale_after_.count() == 0) return true;
  const double silent = seconds_since_heard();
  return silent >= 0 && silent * 1000 <= static_cast<double>(stale_after_.count());
}

std::string ClusterState::failure() const {
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

void ClusterState::heard() { heard_ns_.store(steady_ns(), std::memory_order_relaxed); }

void ClusterState::set_failure(std::string why) {
  std::lock_guard lock(failure_mutex_);
  failure_ = std::move(why);
}

void ClusterState::publish(std::shared_ptr<const RicIndex> index) {
  // Generations are unique in the process, not per state: a reader's cache of a state destroyed
  // since can never match a new state built at the same address.
  static std::atomic<std::uint64_t> last_generation{0};
  {
    std::lock_guard lock(mutex_);
    index_ = std::move(index);
    generation_.store(last_generation.fetch_add(1, std::memory_order_relaxed) + 1,
                      std::memory_order_release);
  }
  heard();  // what is published came from the API server just now
  status_.store(Status::kSynced, std::memory_order_release);
}

}  // namespace kpw
