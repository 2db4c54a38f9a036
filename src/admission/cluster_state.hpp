// What reviews read of the cluster: RIC-1's index of the ResourceInterpreterCustomizations the
// watch cache (src/kube/ric_cache.hpp) has seen, published whole and read without waiting on it.
#pragma once

#include <atomic>
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
// take no lock unless the index changed since their thread last read it.
class ClusterState {
 public:
  enum class Status : std::uint8_t {
    kSyncing,  // configured; the first list is not in yet
    kSynced,   // the index holds the API server's customizations (as of the last event)
  };

  Status status() const { return status_.load(std::memory_order_acquire); }
  // The index as of the last publish; valid on this thread until its next call (any thread).
  const RicIndex* ric_index() const;

  // The publisher: a new index, the cache synced from now on.
  void publish(std::shared_ptr<const RicIndex> index);

 private:
  std::atomic<Status> status_{Status::kSyncing};
  std::atomic<std::uint64_t> generation_{0};
  mutable std::mutex mutex_;  // guards index_ (taken by a reader only when generation_ moved)
  std::shared_ptr<const RicIndex> index_;
};

}  // namespace kpw
