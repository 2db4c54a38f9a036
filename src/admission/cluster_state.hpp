// What reviews read of the cluster: RIC-1's index of the ResourceInterpreterCustomizations the
// watch cache (src/kube/ric_cache.hpp) has seen, published whole and read without waiting on it,
// and how fresh it is (docs/operations.md, "Readiness": a review says what it could not trust,
// readiness never depends on it).
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

// The cluster as reviews see it. One publisher (the cache's thread); any number of readers, which
// take no lock unless the index changed since their thread last read it (or, on the cold paths,
// to read why the API server did not answer).
class ClusterState {
 public:
  enum class Status : std::uint8_t {
    kSyncing,  // configured; the first list is not in yet
    kSynced,   // the index holds the API server's customizations (as of the last event)
  };

  // `server`: the API server's address, for messages; `stale_after`: a synced cache that has
  // heard nothing from it for longer is stale (0: never).
  explicit ClusterState(std::string server = {},
                        std::chrono::milliseconds stale_after = std::chrono::minutes(5));

  Status status() const { return status_.load(std::memory_order_acquire); }
  // The index as of the last publish; valid on this thread until its next call (any thread).
  const RicIndex* ric_index() const;
  // Seconds since the API server last answered (an answer, an event, a bookmark); -1: never.
  double seconds_since_heard() const;
  // Synced, and heard from within stale_after.
  bool fresh() const;
  const std::string& server() const { return server_; }
  // Why the last request to the API server failed; "" when the last one succeeded.
  std::string failure() const;

  // The publisher: a new index (from the API server, so heard from now), synced from now on.
  void publish(std::shared_ptr<const RicIndex> index);
  // The publisher: the API server answered now.
  void heard();
  // The publisher: why the last request failed ("": it succeeded).
  void set_failure(std::string why);

 private:
  const std::string server_;
  const std::chrono::milliseconds stale_after_;
  std::atomic<Status> status_{Status::kSyncing};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::int64_t> heard_ns_{0};  // steady clock; 0: never
  mutable std::mutex mutex_;  // guards index_ (taken by a reader only when generation_ moved)
  std::shared_ptr<const RicIndex> index_;
  mutable std::mutex failure_mutex_;
  std::string failure_;
};

}  // namespace kpw
