#include "admission/cluster_state.hpp"

namespace kpw {

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

void ClusterState::publish(std::shared_ptr<const RicIndex> index) {
  {
    std::lock_guard lock(mutex_);
    index_ = std::move(index);
    generation_.fetch_add(1, std::memory_order_release);
  }
  status_.store(Status::kSynced, std::memory_order_release);
}

}  // namespace kpw
