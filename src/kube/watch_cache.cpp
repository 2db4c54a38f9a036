#include "kube/watch_cache.hpp"

#include <algorithm>
#include <random>

#include "util/log.hpp"
#include "util/prometheus.hpp"

namespace kpw::kube {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

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

}  // namespace

Watched<RicSummary> ric_watch(ClusterState& state) {
  Watched<RicSummary> w;
  w.kind = &kRicKind;
  w.path = "/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations";
  w.resource = "resourceinterpretercustomizations";
  w.group = "config.karmada.io";
  w.rights = "get, list, watch";
  w.purpose = "RIC-1";
  w.metrics = "karmada_policy_webhook_cluster_state";
  w.objects_help = "ResourceInterpreterCustomizations in the cache.";
  w.key = [](const RicSummary& s) { return s.name; };
  w.publish = [&state](const std::map<std::string, RicSummary>& items,
                       const std::vector<std::string>*) {
    auto index = std::make_shared<RicIndex>();
    std::string key;
    for (const auto& [name, item] : items) {
      if (item.operations == 0) continue;  // scripts no exclusive operation: conflicts with none
      ric_target_key(item.target_api_version, item.target_kind, key);
      index->by_target[key].push_back(RicEntry{name, item.operations});
    }
    index->objects = items.size();
    state.publish(std::move(index));
  };
  return w;
}

Watched<QuotaSummary> quota_watch(QuotaState& state) {
  Watched<QuotaSummary> w;
  w.kind = &kQuotaKind;
  w.path = "/apis/policy.karmada.io/v1alpha1/federatedresourcequotas";
  w.resource = "federatedresourcequotas";
  w.group = "policy.karmada.io";
  w.rights = "get, list, watch, and update, patch on federatedresourcequotas/status";
  w.purpose = "RB-2";
  w.metrics = "karmada_policy_webhook_quota_state";
  w.objects_help = "FederatedResourceQuotas in the cache.";
  // Namespace, then name: a namespace's quotas are neighbours, in name order.
  w.key = [](const QuotaSummary& s) { return s.ns + '\n' + s.name; };
  // Only the namespaces that changed are built again; the others' lists are shared with the
  // index published before (a quota written by every review costs its namespace, not all).
  w.publish = [&state](const std::map<std::string, QuotaSummary>& items,
                       const std::vector<std::string>* changed) {
    const QuotaIndex* before = state.index();
    auto index = std::make_shared<QuotaIndex>();
    const auto build = [&](std::string_view ns) {
      auto list = std::make_shared<std::vector<QuotaEntry>>();
      const std::string first = std::string(ns) + '\n';
      for (auto it = items.lower_bound(first); it != items.end() && it->second.ns == ns; ++it) {
        list->push_back(it->second.entry);
      }
      if (list->empty()) {
        index->by_namespace.erase(std::string(ns));
      } else {
        index->by_namespace[std::string(ns)] = std::move(list);
      }
    };
    if (changed == nullptr || before == nullptr) {
      std::string_view last;
      for (const auto& [key, item] : items) {
        if (item.ns == last) continue;
        last = item.ns;
        build(item.ns);
      }
    } else {
      index->by_namespace = before->by_namespace;
      std::vector<std::string_view> namespaces;
      for (const std::string& key : *changed) {
        namespaces.push_back(std::string_view(key).substr(0, key.find('\n')));
      }
      std::sort(namespaces.begin(), namespaces.end());
      namespaces.erase(std::unique(namespaces.begin(), namespaces.end()), namespaces.end());
      for (std::string_view ns : namespaces) build(ns);
    }
    index->objects = items.size();
    state.publish(std::move(index));
  };
  return w;
}

template <class Summary>
WatchCache<Summary>::WatchCache(std::unique_ptr<ApiClient> client, SyncState& state,
                                Watched<Summary> watched, CacheOptions options)
    : client_(std::move(client)), state_(state), watched_(std::move(watched)), options_(options) {}

template <class Summary>
WatchCache<Summary>::~WatchCache() {
  stop();
}

template <class Summary>
void WatchCache<Summary>::start() {
  log::info("cluster state: watching " + std::string(watched_.resource) + " for " +
                std::string(watched_.purpose),
            {{"apiserver", client_->config().server}, {"source", client_->config().source}});
  thread_ = std::thread([this] { run(); });
}

template <class Summary>
void WatchCache<Summary>::stop() {
  client_->stop();
  if (thread_.joinable()) thread_.join();
}

template <class Summary>
void WatchCache<Summary>::run() {
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

template <class Summary>
bool WatchCache<Summary>::list() {
  const Clock::time_point started = Clock::now();
  std::map<std::string, Summary> fresh;
  std::string continue_token;
  ListPageOf<Summary> page;
  const std::string listing = "listing " + std::string(watched_.resource);
  for (;;) {
    std::string target(watched_.path);
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
      log_failure(listing, response);
      return false;  // 410 on a continue token too: the next list starts from the beginning
    }
    page.items.clear();
    if (auto error = read_list(response.body, *watched_.kind, page)) {
      count_error(response.status);
      log_failure(listing, Response{response.status, {}, "the list does not read: " + *error});
      return false;
    }
    for (Summary& item : page.items) {
      std::string key = watched_.key(item);
      fresh.insert_or_assign(std::move(key), std::move(item));
    }
    continue_token = std::move(page.continue_token);
    if (continue_token.empty()) break;
  }
  items_ = std::move(fresh);
  relisted_ = true;
  resource_version_ = std::move(page.resource_version);
  lists_.fetch_add(1, std::memory_order_relaxed);
  publish();
  synced_.store(true, std::memory_order_release);
  const auto ms = std::chrono::duration_cast<milliseconds>(Clock::now() - started).count();
  log::info("cluster state: listed " + std::string(watched_.resource),
            {{"objects", std::to_string(items_.size())},
             {"resourceVersion", resource_version_},
             {"ms", std::to_string(ms)}});
  state_.set_failure({});
  return true;
}

template <class Summary>
typename WatchCache<Summary>::WatchEnd WatchCache<Summary>::watch() {
  thread_local std::minstd_rand random{std::random_device{}()};
  const long long longest = options_.watch_timeout.count();
  std::uniform_int_distribution<long long> pick(std::max(1LL, longest / 2), std::max(1LL, longest));
  const long long timeout = pick(random);
  std::string target(watched_.path);
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
      WatchEventOf<Summary> e;
      if (auto error = read_event(event, *watched_.kind, e)) {
        broken = "a watch event does not read: " + *error;
        return false;
      }
      switch (e.type) {
        case EventType::kAdded:
        case EventType::kModified: {
          resource_version_ = e.object.resource_version;
          std::string key = watched_.key(e.object);
          changed_.push_back(key);
          items_.insert_or_assign(std::move(key), std::move(e.object));
          dirty_ = true;
          event_ns_.store(now_ns(), std::memory_order_relaxed);
          break;
        }
        case EventType::kDeleted:
          resource_version_ = e.object.resource_version;
          changed_.push_back(watched_.key(e.object));
          items_.erase(changed_.back());
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
    log_failure("watching " + std::string(watched_.resource), Response{200, {}, broken});
    return WatchEnd::kFailed;
  }
  if (response.status != 0) heard();
  if (response.status != 200) count_error(response.status);
  if (response.status == 401) client_->credentials_rejected();
  if (response.status == 200) count_error(0);  // the stream broke (the server went away)
  log_failure("watching " + std::string(watched_.resource), response);
  return WatchEnd::kFailed;
}

template <class Summary>
void WatchCache<Summary>::publish() {
  watched_.publish(items_, relisted_ ? nullptr : &changed_);
  changed_.clear();
  relisted_ = false;
  objects_.store(items_.size(), std::memory_order_relaxed);
  published_at_ = Clock::now();
  dirty_ = false;
}

template <class Summary>
void WatchCache<Summary>::heard() {
  state_.heard();
}

template <class Summary>
void WatchCache<Summary>::count_error(unsigned status) {
  std::size_t slot = kErrorCodes.size();
  for (std::size_t i = 0; i < kErrorCodes.size(); ++i) {
    if (kErrorCodes[i] == status) slot = i;
  }
  api_errors_[slot].fetch_add(1, std::memory_order_relaxed);
}

// One line per failure that differs from the last (a down API server is retried every 30 s for
// as long as it is down: one line when it goes, one when it is back).
template <class Summary>
void WatchCache<Summary>::log_failure(std::string_view what, const Response& response) {
  std::string text = status_text(response.status, response.body, response.error);
  // The state keeps the last failure (reviews quote it): a repeat of it is not logged again.
  if (text == state_.failure()) return;
  state_.set_failure(text);
  std::string hint;
  if (response.status == 401) {
    hint = "the API server rejects the credentials (" + client_->config().source + ")";
  } else if (response.status == 403) {
    hint = "the credentials may not list and watch " + std::string(watched_.resource) + " (" +
           std::string(watched_.group) + "): grant " + std::string(watched_.rights) +
           " (docs/operations.md, \"Cluster state\")";
  } else if (response.status == 404) {
    hint = "this API server serves no " + std::string(watched_.resource) +
           ": is it karmada-apiserver?";
  }
  log::error("cluster state: " + std::string(what) + " failed; retrying with backoff",
             {{"apiserver", client_->config().server},
              {"error", text},
              {"hint", hint},
              {"resourceVersion", resource_version_}});
}

template <class Summary>
CacheStats WatchCache<Summary>::stats() const {
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

template <class Summary>
void WatchCache<Summary>::render_metrics(std::string& out) const {
  using prometheus::header;
  using prometheus::sample;
  const CacheStats s = stats();
  const std::string prefix(watched_.metrics);
  const std::string resource(watched_.resource);
  const std::string purpose(watched_.purpose);
  const std::string synced = prefix + "_synced", ready = prefix + "_ready",
                    objects = prefix + "_objects", lists = prefix + "_lists_total",
                    list_restarts = prefix + "_list_restarts_total",
                    watch_restarts = prefix + "_watch_restarts_total",
                    since_heard = prefix + "_seconds_since_heard",
                    since_event = prefix + "_seconds_since_event";
  const std::string synced_help =
      "1 once the first list of " + resource + " is in (" + purpose + ").";
  const std::string lists_help = "Full lists of " + resource + " completed.";
  using prometheus::Single;
  prometheus::singles(
      out,
      {
          Single{synced, "gauge", synced_help, s.synced ? 1.0 : 0.0},
          Single{ready, "gauge",
                 "1 while synced and heard from the API server within "
                 "--cluster-state-stale-after (reviews judged otherwise say so).",
                 state_.fresh() ? 1.0 : 0.0},
          Single{objects, "gauge", watched_.objects_help, static_cast<double>(s.objects)},
          Single{lists, "counter", lists_help, static_cast<double>(s.lists)},
          Single{list_restarts, "counter",
                 "Lists begun again: after 410 Gone or a list that failed.",
                 static_cast<double>(s.list_restarts)},
          Single{watch_restarts, "counter", "Watches resumed from the last resourceVersion.",
                 static_cast<double>(s.watch_restarts)},
          Single{since_heard, "gauge",
                 "Seconds since the last answer, event or bookmark of the API server (-1: never).",
                 s.seconds_since_heard},
          Single{since_event, "gauge",
                 "Seconds since the last change seen by the watch (-1: none yet).",
                 s.seconds_since_event},
      });
  const std::string errors = prefix + "_api_errors_total";
  header(out, errors, "counter",
         "Failed API requests and watches by HTTP status (0: no answer; the stream broke).");
  for (std::size_t i = 0; i < s.api_errors.size(); ++i) {
    const std::string code = i < kErrorCodes.size() ? std::to_string(kErrorCodes[i]) : "other";
    sample(out, errors, "code=\"" + code + "\"", static_cast<double>(s.api_errors[i]));
  }
}

template class WatchCache<RicSummary>;
template class WatchCache<QuotaSummary>;

}  // namespace kpw::kube
