// The watch cache of the cluster's ResourceInterpreterCustomizations, for RIC-1 (client-go's
// reflector is the model): list in pages, watch from the list's resourceVersion with bookmarks,
// resume a broken watch from the last resourceVersion, list again on 410 Gone, back off with
// jitter on errors; it publishes what RIC-1 needs into a ClusterState, which reviews read and
// never wait on. One thread of its own; docs/operations.md "Cluster state".
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "admission/cluster_state.hpp"
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

class RicCache {
 public:
  RicCache(std::unique_ptr<ApiClient> client, ClusterState& state, CacheOptions options);
  ~RicCache();  // stops
  RicCache(const RicCache&) = delete;
  RicCache& operator=(const RicCache&) = delete;

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
  bool apply(std::string& event_text);  // false: the event says relist (410) or is unreadable
  void publish();
  void heard();
  void count_error(unsigned status);
  void log_failure(std::string_view what, const Response& response);

  std::unique_ptr<ApiClient> client_;
  ClusterState& state_;
  const CacheOptions options_;
  std::thread thread_;
  std::string resource_version_;             // the cache's thread only
  std::map<std::string, RicSummary> items_;  // by name; the cache's thread only
  bool dirty_ = false;
  std::chrono::steady_clock::time_point published_at_{};

  // Read by any thread.
  std::atomic<bool> synced_{false};
  std::atomic<std::size_t> objects_{0};
  std::atomic<std::uint64_t> lists_{0}, list_restarts_{0}, watch_restarts_{0};
  std::atomic<std::int64_t> event_ns_{0};  // steady clock; 0: never (heard: in state_)
  std::array<std::atomic<std::uint64_t>, kErrorCodes.size() + 1> api_errors_{};
};

}  // namespace kpw::kube
