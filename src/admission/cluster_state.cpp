#include "admission/cluster_state.hpp"

#include "admission/quota.hpp"

namespace kpw {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SyncState::SyncState(std::string server, std::chrono::milliseconds stale_after)
    : server_(std::move(server)), stale_after_(stale_after) {}

void ric_target_key(std::string_view api_version, std::string_view kind, std::string& out) {
  out.assign(api_version);
  out.push_back('\n');
  out.append(kind);
}

double SyncState::seconds_since_heard() const {
  const std::int64_t at = heard_ns_.load(std::memory_order_relaxed);
  if (at == 0) return -1;
  return static_cast<double>(steady_ns() - at) / 1e9;
}

bool SyncState::fresh() const {
  if (status() != Status::kSynced) return false;
  if (stale_after_.count() == 0) return true;
  const double silent = seconds_since_heard();
  return silent >= 0 && silent * 1000 <= static_cast<double>(stale_after_.count());
}

std::string SyncState::failure() const {
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

std::string SyncState::failure_note() const {
  constexpr std::size_t kShown = 300;
  std::string why = failure();
  if (why.empty()) return {};
  if (why.size() > kShown) why = why.substr(0, kShown) + "...";
  return " (the last request failed: " + why + ")";
}

void SyncState::heard() { heard_ns_.store(steady_ns(), std::memory_order_relaxed); }

void SyncState::set_failure(std::string why) {
  std::lock_guard lock(failure_mutex_);
  failure_ = std::move(why);
}

void SyncState::synced_now() {
  heard();
  status_.store(Status::kSynced, std::memory_order_release);
}

const std::vector<QuotaEntry>* QuotaState::quotas(std::string_view ns) const {
  const QuotaIndex* published = index();
  if (published == nullptr) return nullptr;
  // A review's namespace, looked up without building a key (C++20 heterogeneous lookup is not
  // in every standard library here): one string per thread, reused.
  thread_local std::string key;
  key.assign(ns);
  const auto it = published->by_namespace.find(key);
  return it == published->by_namespace.end() ? nullptr : it->second.get();
}

std::uint64_t SyncState::next_generation() {
  static std::atomic<std::uint64_t> last_generation{0};
  return last_generation.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace kpw
