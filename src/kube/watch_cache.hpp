// A watch cache of one resource of the API server (client-go's reflector is the model): list in
// pages, watch from the list's resourceVersion with bookmarks, resume a broken watch from the last
// resourceVersion, list again on 410 Gone, back off with jitter on errors; it publishes what a
// rule needs into a SyncState's index, which reviews read and never wait on. One thread of its
// own per cache. Two are watched: ResourceInterpreterCustomizations for RIC-1 (ric_watch()) and,
// with FederatedQuotaEnforcement, FederatedResourceQuotas for RB-2 (quota_watch());
// docs/operations.md "Cluster state".
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "admission/cluster_state.hpp"
#include "admission/quota.hpp"
#include "kube/api_client.hpp"
#include "kube/watch_events.hpp"

namespace kpw::kube {

struct CacheOptions {
  std::size_t page_size = 500;  // LIST ?limit=
  // A watch asks the server to end it after a time drawn in [watch_timeout/2, watch_timeout]
  // (client-go draws in [5, 10] minutes), then resumes; a watch silent for watch_timeout plus
  // a minute is dead (no bookmark, no end) and is resumed.
  std::chrono::seconds watch_timeout{240};
  std::chrono::milliseconds backoff_initial{800};  // doubled per failure, jittered
  std::chrono::milliseconds backoff_max{30'000};
  // Large caches publish at most this often while events stream in (a publish copies the index).
  std::chrono::milliseconds publish_interval{100};
  std::size_t max_event_bytes = 16u << 20;
};

// API errors by HTTP status; 0 counts answers that never came (connect, TLS, timeouts, streams
// that broke).
inline constexpr std::array<unsigned, 9> kErrorCodes = {0, 400, 401, 403, 404, 410, 429, 500, 503};

struct CacheStats {
  bool synced = false;
  std::size_t objects = 0;
  std::uint64_t lists = 0;           // full lists completed
  std::uint64_t list_restarts = 0;   // lists begun again: 410 Gone, or a list that failed
  std::uint64_t watch_restarts = 0;  // watches begun again after the first of a list
  double seconds_since_heard = -1;   // since the last answer, event or bookmark (-1: never)
  double seconds_since_event = -1;   // since the last ADDED/MODIFIED/DELETED (-1: none yet)
  std::array<std::uint64_t, kErrorCodes.size() + 1> api_errors{};  // by kErrorCodes, then other
};

// What a cache watches and what it makes of the objects.
template <class Summary>
struct Watched {
  const WatchedKind<Summary>* kind = nullptr;
  std::string_view path;          // the collection: /apis/<group>/<version>/<resource>
  std::string_view resource;      // its plural, for logs
  std::string_view group;         // for the hint when the credentials may not read it
  std::string_view rights;        // what to grant then: "get, list, watch"
  std::string_view purpose;       // the rule that reads it ("RIC-1")
  std::string_view metrics;       // the metrics' prefix (karmada_policy_webhook_cluster_state)
  std::string_view objects_help;  // what the objects gauge counts
  // Where an object is kept: unique per object.
  std::string (*key)(const Summary&) = nullptr;
  // Publishes the index of `items` (by key) into the state; `changed` holds the keys changed
  // since the last publish, or is null after a new list (everything may have).
  std::function<void(const std::map<std::string, Summary>& items,
                     const std::vector<std::string>* changed)>
      publish;
};

// RIC-1's: every ResourceInterpreterCustomization, by target, into `state`.
Watched<RicSummary> ric_watch(ClusterState& state);
// RB-2's: every FederatedResourceQuota, by namespace, into `state`.
Watched<QuotaSummary> quota_watch(QuotaState& state);

template <class Summary>
class WatchCache {
 public:
  WatchCache(std::unique_ptr<ApiClient> client, SyncState& state, Watched<Summary> watched,
             CacheOptions options);
  ~WatchCache();  // stops
  WatchCache(const WatchCache&) = delete;
  WatchCache& operator=(const WatchCache&) = delete;

  void start();
  void stop();
  CacheStats stats() const;
  // The Prometheus text of stats() (server/metrics appends it to /metrics).
  void render_metrics(std::string& out) const;

 private:
  void run();
  bool list();  // true: the index holds a whole list; rv_ set
  enum class WatchEnd { kResume, kRelist, kFailed };
  WatchEnd watch();
  void publish();
  void heard();
  void count_error(unsigned status);
  void log_failure(std::string_view what, const Response& response);

  std::unique_ptr<ApiClient> client_;
  SyncState& state_;
  const Watched<Summary> watched_;
  const CacheOptions options_;
  std::thread thread_;
  std::string resource_version_;          // the cache's thread only
  std::map<std::string, Summary> items_;  // by key; the cache's thread only
  std::vector<std::string> changed_;      // keys changed since the last publish
  bool dirty_ = false;
  bool relisted_ = false;  // a list replaced items_ since the last publish
  std::chrono::steady_clock::time_point published_at_{};

  // Read by any thread.
  std::atomic<bool> synced_{false};
  std::atomic<std::size_t> objects_{0};
  std::atomic<std::uint64_t> lists_{0}, list_restarts_{0}, watch_restarts_{0};
  std::atomic<std::int64_t> event_ns_{0};  // steady clock; 0: never (heard: in state_)
  std::array<std::atomic<std::uint64_t>, kErrorCodes.size() + 1> api_errors_{};
};

using RicCache = WatchCache<RicSummary>;
using QuotaCache = WatchCache<QuotaSummary>;

}  // namespace kpw::kube
