// What reviews read of the cluster: what the watch caches (src/kube/watch_cache.hpp) have seen,
// published whole and read without waiting on them, and how fresh it is (docs/operations.md,
// "Readiness": a review says what it could not trust, readiness never depends on it). One
// SyncState per watched resource: RIC-1's index of ResourceInterpreterCustomizations here
// (ClusterState), RB-2's FederatedResourceQuotas in admission/quota.hpp (QuotaState).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/interpreter_operations.hpp"

namespace kpw {

// How fresh one watched resource is: synced or not, when the API server last answered, and why
// its last request failed. One publisher (the cache's thread); any number of readers.
class SyncState {
 public:
  enum class Status : std::uint8_t {
    kSyncing,  // configured; the first list is not in yet
    kSynced,   // the index holds the API server's objects (as of the last event)
  };

  // `server`: the API server's address, for messages; `stale_after`: a synced cache that has
  // heard nothing from it for longer is stale (0: never).
  explicit SyncState(std::string server = {},
                     std::chrono::milliseconds stale_after = std::chrono::minutes(5));

  Status status() const { return status_.load(std::memory_order_acquire); }
  // Seconds since the API server last answered (an answer, an event, a bookmark); -1: never.
  double seconds_since_heard() const;
  // Synced, and heard from within stale_after.
  bool fresh() const;
  const std::string& server() const { return server_; }
  // Why the last request to the API server failed; "" when the last one succeeded.
  std::string failure() const;
  // For a review's message: " (the last request failed: <why, cut at 300 bytes>)", or "".
  std::string failure_note() const;

  // The publisher: the API server answered now.
  void heard();
  // The publisher: why the last request failed ("": it succeeded).
  void set_failure(std::string why);

 protected:
  // The publisher: what was published came from the API server just now; synced from now on.
  void synced_now();
  // Generations are unique in the process, not per state: a reader's cache of a state destroyed
  // since can never match a new state built at the same address.
  static std::uint64_t next_generation();

 private:
  const std::string server_;
  const std::chrono::milliseconds stale_after_;
  std::atomic<Status> status_{Status::kSyncing};
  std::atomic<std::int64_t> heard_ns_{0};  // steady clock; 0: never
  mutable std::mutex failure_mutex_;
  std::string failure_;
};

// A SyncState and the immutable index its cache publishes. Readers take no lock unless the index
// changed since their thread last read it.
template <class Index>
class Published : public SyncState {
 public:
  using SyncState::SyncState;

  // The index as of the last publish (null before the first); valid on this thread until its
  // next call (any thread).
  const Index* index() const {
    // Each thread keeps the index it read last: a review reads one atomic and, only after a
    // publish, takes the mutex once to copy the new pointer.
    struct Seen {
      const Published* state = nullptr;
      std::uint64_t generation = 0;
      std::shared_ptr<const Index> index;
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

  // The publisher: a new index (from the API server, so heard from now), synced from now on.
  void publish(std::shared_ptr<const Index> index) {
    {
      std::lock_guard lock(mutex_);
      index_ = std::move(index);
      generation_.store(next_generation(), std::memory_order_release);
    }
    synced_now();
  }

 private:
  std::atomic<std::uint64_t> generation_{0};
  mutable std::mutex mutex_;  // guards index_ (taken by a reader only when generation_ moved)
  std::shared_ptr<const Index> index_;
};

// One customization as RIC-1 needs it: its name and which exclusive operations it scripts.
struct RicEntry {
  std::string name;
  karmada::OperationMask operations = 0;
};

// Every customization, by target. Immutable once published.
struct RicIndex {
  // ric_target_key(apiVersion, kind) → the customizations of that target, in name order (the
  // order RIC-1 reports the first conflict in: docs/compatibility.md, "RIC-1").
  std::unordered_map<std::string, std::vector<RicEntry>> by_target;
  std::size_t objects = 0;
};

// The key of a target in RicIndex::by_target (apiVersion and kind cannot hold '\n'), written into
// `out` (a review reuses its thread's string: no allocation once warm).
void ric_target_key(std::string_view api_version, std::string_view kind, std::string& out);

// The ResourceInterpreterCustomizations as RIC-1 reads them.
class ClusterState : public Published<RicIndex> {
 public:
  using Published::Published;
  const RicIndex* ric_index() const { return index(); }
};

}  // namespace kpw
