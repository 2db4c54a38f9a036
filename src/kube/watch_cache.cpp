#include "kube/ric_cache.hpp"

#include <algorithm>
#include <random>

#include "util/log.hpp"
#include "util/prometheus.hpp"

namespace kpw::kube {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::string_view kResource =
    "/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations";
// Below this many objects every batch of events is published at once (a publish copies the
// index: microseconds here); above it at most every CacheOptions::publish_interval.
constexpr std::size_t kPublishAtOnce = 1000;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

double seconds_since(std::int64_t ns) {
  if (ns == 0) return -1;
  return static_cast<double>(now_ns() - ns) / 1e9;
}

// A query value as Go's url.QueryEscape writes it (a continue token is base64: '+', '/', '=').
void append_query_value(std::string& out, std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
}

// Full jitter over the upper half: [d/2, d].
milliseconds jittered(milliseconds d) {
  thread_local std::minstd_rand random{std::random_device{}()};
  std::uniform_int_distribution<long long> pick(d.count() / 2, d.count());
  return milliseconds(pick(random));
}

std::string status_text(const Response& response) {
  if (response.status == 0) return response.error;
  const ApiStatus status = read_status(response.body);
  std::string text = "HTTP " + std::to_string(response.status);
  if (!status.reason.empty()) text += " " + status.reason;
  if (!status.message.empty()) text += ": " + status.message;
  if (!response.error.empty()) text += " (" + response.error + ")";
  return text;
}

}  // namespace

RicCache::RicCache(std::unique_ptr<ApiClient> client, ClusterState& state, CacheOptions options)
    : client_(std::move(client)), state_(state), options_(options) {}

RicCache::~RicCache() { stop(); }

void RicCache::start() {
  log::info("cluster state: watching resourceinterpretercustomizations for RIC-1",
            {{"apiserver", client_->config().server}, {"source", client_->config().source}});
  thread_ = std::thread([this] { run(); });
}

void RicCache::stop() {
  client_->stop();
  if (thread_.joinable()) thread_.join();
}

void RicCache::run() {
  milliseconds backoff = options_.backoff_initial;
  const auto back_off = [&] {
    const bool go_on = client_->sleep_for(jittered(backoff));
    backoff = std::min(backoff * 2, options_.backoff_max);
    return go_on;
  };
  while (!client_->stopping()) {
    if (!list()) {
      list_restarts_.fetch_add(1, std::memory_order_relaxed);
      if (!back_off()) return;
      continue;
    }
    backoff = options_.backoff_initial;
    for (;;) {
      const WatchEnd end = watch();
      if (client_->stopping()) return;
      if (end == WatchEnd::kRelist) {
        list_restarts_.fetch_add(1, std::memory_order_relaxed);
        break;
      }
      watch_restarts_.fetch_add(1, std::memory_order_relaxed);
      if (end == WatchEnd::kFailed) {
        if (!back_off()) return;
      } else {
        backoff = options_.backoff_initial;
      }
    }
  }
}

bool RicCache::list() {
  const Clock::time_point started = Clock::now();
  std::map<std::string, RicSummary> fresh;
  std::string continue_token;
  ListPage page;
  for (;;) {
    std::string target(kResource);
    target += "?limit=" + std::to_string(options_.page_size);
    if (!continue_token.empty()) {
      target += "&continue=";
      append_query_value(target, continue_token);
    }
    Response response = client_->get(target);
    if (client_->stopping()) return false;
    if (response.status != 0) heard();
    if (!response.ok()) {
      count_error(response.status);
      if (response.status == 401) client_->credentials_rejected();
      log_failure("listing resourceinterpretercustomizations", response);
      return false;  // 410 on a continue token too: the next list starts from the beginning
    }
    page.items.clear();
    if (auto error = read_ric_list(response.body, page)) {
      count_error(response.status);
      log_failure("listing resourceinterpretercustomizations",
                  Response{response.status, {}, "the list does not read: " + *error});
      return false;
    }
    for (RicSummary& item : page.items) {
      std::string name = item.name;
      fresh.insert_or_assign(std::move(name), std::move(item));
    }
    continue_token = std::move(page.continue_token);
    if (continue_token.empty()) break;
  }
  items_ = std::move(fresh);
  resource_version_ = std::move(page.resource_version);
  lists_.fetch_add(1, std::memory_order_relaxed);
  publish();
  synced_.store(true, std::memory_order_release);
  const auto ms = std::chrono::duration_cast<milliseconds>(Clock::now() - started).count();
  log::info("cluster state: listed resourceinterpretercustomizations",
            {{"objects", std::to_string(items_.size())},
             {"resourceVersion", resource_version_},
             {"ms", std::to_string(ms)}});
  state_.set_failure({});
  return true;
}

RicCache::WatchEnd RicCache::watch() {
  thread_local std::minstd_rand random{std::random_device{}()};
  const long long longest = options_.watch_timeout.count();
  std::uniform_int_distribution<long long> pick(std::max(1LL, longest / 2), std::max(1LL, longest));
  const long long timeout = pick(random);
  std::string target(kResource);
  target += "?allowWatchBookmarks=true&resourceVersion=";
  append_query_value(target, resource_version_);
  target += "&timeoutSeconds=" + std::to_string(timeout) + "&watch=true";

  EventFramer framer(options_.max_event_bytes);
  std::string event;
  bool relist = false;
  std::string broken;  // why this side ended the stream
  const auto publish_due = [&] {
    if (dirty_ && (items_.size() < kPublishAtOnce ||
                   Clock::now() - published_at_ >= options_.publish_interval)) {
      publish();
    }
  };
  const auto on_bytes = [&](std::string_view bytes) {
    heard();
    if (auto error = framer.feed(bytes)) {
      broken = "the watch stream does not frame: " + *error;
      return false;
    }
    while (framer.next(event)) {
      WatchEvent e;
      if (auto error = read_watch_event(event, e)) {
        broken = "a watch event does not read: " + *error;
        return false;
      }
      switch (e.type) {
        case EventType::kAdded:
        case EventType::kModified: {
          resource_version_ = e.object.resource_version;
          std::string name = e.object.name;
          items_.insert_or_assign(std::move(name), std::move(e.object));
          dirty_ = true;
          event_ns_.store(now_ns(), std::memory_order_relaxed);
          break;
        }
        case EventType::kDeleted:
          resource_version_ = e.object.resource_version;
          items_.erase(e.object.name);
          dirty_ = true;
          event_ns_.store(now_ns(), std::memory_order_relaxed);
          break;
        case EventType::kBookmark:
          if (!e.object.resource_version.empty()) resource_version_ = e.object.resource_version;
          break;
        case EventType::kError:
          count_error(static_cast<unsigned>(std::max(0, e.status.code)));
          if (e.status.code == 410) {
            relist = true;
          } else {
            broken = "the watch sent an error: " + std::to_string(e.status.code) + " " +
                     e.status.reason + ": " + e.status.message;
          }
          return false;
      }
    }
    publish_due();
    return true;
  };
  const std::function<void()> tick = publish_due;
  const Response response =
      client_->watch(target, std::chrono::seconds(timeout + 60), on_bytes, tick);
  if (dirty_) publish();
  if (client_->stopping()) return WatchEnd::kFailed;
  if (relist) {
    log::info("cluster state: the watch's resourceVersion is too old (410 Gone): listing again",
              {{"resourceVersion", resource_version_}});
    return WatchEnd::kRelist;
  }
  if (response.status == 200 && response.error.empty() && broken.empty()) {
    heard();
    state_.set_failure({});
    return WatchEnd::kResume;  // the server ended it (timeoutSeconds)
  }
  if (response.status == 410) {
    count_error(410);
    log::info("cluster state: the watch's resourceVersion is too old (410 Gone): listing again",
              {{"resourceVersion", resource_version_}});
    return WatchEnd::kRelist;
  }
  if (!broken.empty()) {
    log_failure("watching resourceinterpretercustomizations", Response{200, {}, broken});
    return WatchEnd::kFailed;
  }
  if (response.status != 0) heard();
  if (response.status != 200) count_error(response.status);
  if (response.status == 401) client_->credentials_rejected();
  if (response.status == 200) count_error(0);  // the stream broke (the server went away)
  log_failure("watching resourceinterpretercustomizations", response);
  return WatchEnd::kFailed;
}

void RicCache::publish() {
  auto index = std::make_shared<RicIndex>();
  std::string key;
  for (const auto& [name, item] : items_) {
    if (item.operations == 0) continue;  // scripts no exclusive operation: conflicts with none
    ric_target_key(item.target_api_version, item.target_kind, key);
    index->by_target[key].push_back(RicEntry{name, item.operations});
  }
  index->objects = items_.size();
  state_.publish(std::move(index));
  objects_.store(items_.size(), std::memory_order_relaxed);
  published_at_ = Clock::now();
  dirty_ = false;
}

void RicCache::heard() { state_.heard(); }

void RicCache::count_error(unsigned status) {
  std::size_t slot = kErrorCodes.size();
  for (std::size_t i = 0; i < kErrorCodes.size(); ++i) {
    if (kErrorCodes[i] == status) slot = i;
  }
  api_errors_[slot].fetch_add(1, std::memory_order_relaxed);
}

// One line per failure that differs from the last (a down API server is retried every 30 s for
// as long as it is down: one line when it goes, one when it is back).
void RicCache::log_failure(std::string_view what, const Response& response) {
  std::string text = status_text(response);
  // The state keeps the last failure (reviews quote it): a repeat of it is not logged again.
  if (text == state_.failure()) return;
  state_.set_failure(text);
  std::string hint;
  if (response.status == 401) {
    hint = "the API server rejects the credentials (" + client_->config().source + ")";
  } else if (response.status == 403) {
    hint =
        "the credentials may not list and watch resourceinterpretercustomizations "
        "(config.karmada.io): grant get, list, watch (docs/operations.md, \"Cluster state\")";
  } else if (response.status == 404) {
    hint = "this API server serves no resourceinterpretercustomizations: is it karmada-apiserver?";
  }
  log::error("cluster state: " + std::string(what) + " failed; retrying with backoff",
             {{"apiserver", client_->config().server},
              {"error", text},
              {"hint", hint},
              {"resourceVersion", resource_version_}});
}

CacheStats RicCache::stats() const {
  CacheStats s;
  s.synced = synced_.load(std::memory_order_acquire);
  s.objects = objects_.load(std::memory_order_relaxed);
  s.lists = lists_.load(std::memory_order_relaxed);
  s.list_restarts = list_restarts_.load(std::memory_order_relaxed);
  s.watch_restarts = watch_restarts_.load(std::memory_order_relaxed);
  s.seconds_since_heard = state_.seconds_since_heard();
  s.seconds_since_event = seconds_since(event_ns_.load(std::memory_order_relaxed));
  for (std::size_t i = 0; i < api_errors_.size(); ++i) {
    s.api_errors[i] = api_errors_[i].load(std::memory_order_relaxed);
  }
  return s;
}

void RicCache::render_metrics(std::string& out) const {
  using prometheus::header;
  using prometheus::sample;
  const CacheStats s = stats();
  using prometheus::Single;
  prometheus::singles(
      out,
      {
          Single{"karmada_policy_webhook_cluster_state_synced", "gauge",
                 "1 once the first list of resourceinterpretercustomizations is in (RIC-1).",
                 s.synced ? 1.0 : 0.0},
          Single{"karmada_policy_webhook_cluster_state_ready", "gauge",
                 "1 while synced and heard from the API server within "
                 "--cluster-state-stale-after (reviews judged otherwise say so).",
                 state_.fresh() ? 1.0 : 0.0},
          Single{"karmada_policy_webhook_cluster_state_objects", "gauge",
                 "ResourceInterpreterCustomizations in the cache.", static_cast<double>(s.objects)},
          Single{"karmada_policy_webhook_cluster_state_lists_total", "counter",
                 "Full lists of resourceinterpretercustomizations completed.",
                 static_cast<double>(s.lists)},
          Single{"karmada_policy_webhook_cluster_state_list_restarts_total", "counter",
                 "Lists begun again: after 410 Gone or a list that failed.",
                 static_cast<double>(s.list_restarts)},
          Single{"karmada_policy_webhook_cluster_state_watch_restarts_total", "counter",
                 "Watches resumed from the last resourceVersion.",
                 static_cast<double>(s.watch_restarts)},
          Single{"karmada_policy_webhook_cluster_state_seconds_since_heard", "gauge",
                 "Seconds since the last answer, event or bookmark of the API server (-1: never).",
                 s.seconds_since_heard},
          Single{"karmada_policy_webhook_cluster_state_seconds_since_event", "gauge",
                 "Seconds since the last change seen by the watch (-1: none yet).",
                 s.seconds_since_event},
      });
  constexpr std::string_view kErrors = "karmada_policy_webhook_cluster_state_api_errors_total";
  header(out, kErrors, "counter",
         "Failed API requests and watches by HTTP status (0: no answer; the stream broke).");
  for (std::size_t i = 0; i < s.api_errors.size(); ++i) {
    const std::string code = i < kErrorCodes.size() ? std::to_string(kErrorCodes[i]) : "other";
    sample(out, kErrors, "code=\"" + code + "\"", static_cast<double>(s.api_errors[i]));
  }
}

}  // namespace kpw::kube
