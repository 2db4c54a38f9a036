#include "kube/quota_ledger.hpp"

#include <functional>

#include "json/json.hpp"
#include "kube/watch_events.hpp"
#include "util/log.hpp"
#include "util/prometheus.hpp"
#include "validators/resource_binding_quota.hpp"

namespace kpw::kube {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kCollection = "/apis/policy.karmada.io/v1alpha1/namespaces/";

std::string quota_path(std::string_view ns, std::string_view name) {
  std::string target(kCollection);
  target += ns;
  target += "/federatedresourcequotas/";
  target += name;
  return target;
}

// A quota object in an answer's body, read with a document of the calling thread's own (a
// review thread's arena holds the review being judged).
bool read_answer(std::string& body, QuotaEntry& out, std::string& error) {
  thread_local std::unique_ptr<JsonArena> arena;
  if (arena == nullptr) arena = std::make_unique<JsonArena>();
  const JsonParseResult parsed = arena->parse_in_place(body);
  if (!parsed.ok) {
    arena->release();
    error = "the API server's answer does not decode: " + std::string(parsed.error);
    return false;
  }
  const auto problem = read_quota(arena->document(), out);
  arena->release();
  if (problem) {
    error = "the API server's answer does not read: " + *problem;
    return false;
  }
  return true;
}

std::string quota_name(std::string_view ns, std::string_view name) {
  return "FederatedResourceQuota(" + std::string(ns) + "/" + std::string(name) + ")";
}

ClientLimits shared(ClientLimits limits) {
  if (limits.limiter == nullptr) {
    limits.limiter = std::make_shared<RateLimiter>(limits.qps, limits.burst);
  }
  return limits;
}

}  // namespace

QuotaLedger::QuotaLedger(KubeConfig config, ClientLimits limits, const QuotaState& state,
                         Options options)
    : config_(std::move(config)),
      limits_(shared(std::move(limits))),
      state_(state),
      options_(options) {}

QuotaLedger::~QuotaLedger() { stop(); }

void QuotaLedger::stop() {
  std::lock_guard lock(clients_mutex_);
  stopping_ = true;
  for (ApiClient* client : busy_) client->stop();
}

QuotaLedger::Stripe& QuotaLedger::stripe_of(std::string_view ns) {
  return stripes_[std::hash<std::string_view>{}(ns) % kStripes];
}

const QuotaEntry& QuotaLedger::view(Stripe& stripe, std::string_view ns, const QuotaEntry& cached,
                                    std::string& key) const {
  if (stripe.written.empty()) return cached;
  key.assign(ns);
  key += '\n';
  key += cached.name;
  const auto it = stripe.written.find(key);
  if (it == stripe.written.end()) return cached;
  // The cache still shows what this process's write replaced: the write is newer. Otherwise the
  // cache has moved on (our write's event, or another writer's): it is what is known.
  if (it->second.replaced_version == cached.resource_version) return it->second.entry;
  stripe.written.erase(it);  // the stripe's lock is held
  return cached;
}

std::unique_ptr<ApiClient> QuotaLedger::take_client(std::string& error) {
  std::unique_ptr<ApiClient> client;
  {
    std::lock_guard lock(clients_mutex_);
    if (stopping_) {
      error = "the server is stopping";
      return nullptr;
    }
    if (!idle_.empty()) {
      client = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (client == nullptr) {
    if (auto problem = ApiClient::make(config_, limits_, client)) {
      error = *problem;
      return nullptr;
    }
  }
  std::lock_guard lock(clients_mutex_);
  busy_.push_back(client.get());
  return client;
}

void QuotaLedger::give_back(std::unique_ptr<ApiClient> client) {
  client->set_deadline(std::nullopt);
  std::lock_guard lock(clients_mutex_);
  std::erase(busy_, client.get());
  if (!stopping_ && idle_.size() < options_.max_clients) idle_.push_back(std::move(client));
}

QuotaLedger::WriteResult QuotaLedger::write(ApiClient& client, std::string_view ns,
                                            const QuotaEntry& quota, const ResourceAmounts& used,
                                            bool dry_run, QuotaEntry& written, std::string& error) {
  std::string patch;
  append_overall_used_patch(quota, used, patch);
  std::string target = quota_path(ns, quota.name) + "/status";
  if (dry_run) target += "?dryRun=All";
  Response response = client.send("PATCH", target, patch, "application/merge-patch+json");
  if (response.ok()) {
    if (read_answer(response.body, written, error)) return WriteResult::kWritten;
    return WriteResult::kFailed;
  }
  error = status_text(response.status, response.body, response.error);
  if (response.status == 409) return WriteResult::kConflict;
  if (response.status == 404) return WriteResult::kGone;
  return WriteResult::kFailed;
}

QuotaLedger::WriteResult QuotaLedger::read(ApiClient& client, std::string_view ns,
                                           std::string_view name, QuotaEntry& out,
                                           std::string& error) {
  Response response = client.get(quota_path(ns, name));
  if (!response.ok()) {
    error = status_text(response.status, response.body, response.error);
    return response.status == 404 ? WriteResult::kGone : WriteResult::kFailed;
  }
  return read_answer(response.body, out, error) ? WriteResult::kWritten : WriteResult::kFailed;
}

bool QuotaLedger::may_charge(std::string_view ns) const {
  if (state_.status() != SyncState::Status::kSynced) return true;
  const std::vector<QuotaEntry>* quotas = state_.quotas(ns);
  return quotas != nullptr && !quotas->empty();
}

QuotaOutcome QuotaLedger::charge(const QuotaCharge& c) {
  QuotaOutcome out;
  const auto fail = [&](unsigned code, std::string message) {
    failures_.fetch_add(1, std::memory_order_relaxed);
    out.verdict = QuotaOutcome::Verdict::kFailed;
    out.code = code;
    out.message = std::move(message);
    return out;
  };
  const auto deny = [&](std::string message) {
    denied_.fetch_add(1, std::memory_order_relaxed);
    out.verdict = QuotaOutcome::Verdict::kDenied;
    out.code = 403;
    out.message = std::move(message);
    return out;
  };
  if (state_.status() != SyncState::Status::kSynced) {
    return fail(503,
                "RB-2 cannot be judged yet: this webhook has not listed the cluster's "
                "FederatedResourceQuotas from " +
                    state_.server() + " since it started" + state_.failure_note() +
                    "; try again once it has (the other webhooks of this server are not "
                    "affected)");
  }
  if (!state_.fresh()) {
    out.warning = "RB-2 judged from a cache that has heard nothing from " + state_.server() +
                  " for " + std::to_string(static_cast<long long>(state_.seconds_since_heard())) +
                  "s" + state_.failure_note() +
                  "; a FederatedResourceQuota created since then was not seen";
  }
  const std::vector<QuotaEntry>* quotas = state_.quotas(c.ns);
  if (quotas == nullptr || quotas->empty()) return out;
  const Clock::time_point deadline = Clock::now() + options_.budget;
  const std::string binding = std::string(c.ns) + "/" + std::string(c.binding);

  // One review of a namespace at a time: each judges what the one before it wrote.
  Stripe& stripe = stripe_of(c.ns);
  std::unique_lock lock(stripe.lock, std::defer_lock);
  if (!lock.try_lock_until(deadline)) {
    return fail(500, "RB-2 could not judge ResourceBinding " + binding + " within " +
                         std::to_string(options_.budget.count()) +
                         "ms: the reviews of its namespace before it took that long");
  }
  // Every quota judged before anything is written: a denial writes nothing. A pending quota is
  // the published index's or this stripe's overlay's (both stay put while the stripe is held: an
  // overlay entry is replaced only when its own quota is written, after its last use here).
  struct Pending {
    const QuotaEntry* quota;
    ResourceAmounts used;
  };
  std::vector<Pending> pending;
  ResourceAmounts used;
  QuotaJudgment judged;
  std::string key;
  for (const QuotaEntry& cached : *quotas) {
    const QuotaEntry& quota = view(stripe, c.ns, cached, key);
    switch (check_quota(c.ns, quota, *c.delta, c.requests_limits, used, judged)) {
      case QuotaCheck::kUntouched:
        break;
      case QuotaCheck::kExceeded:
        out.d_q2_denied = judged.d_q2;
        return deny(std::move(judged.message));
      case QuotaCheck::kCharged:
        if (out.d_q2_warning.empty()) out.d_q2_warning = std::move(judged.d_q2_warning);
        pending.push_back(Pending{&quota, std::move(used)});
        break;
    }
  }
  if (pending.empty()) return out;

  std::string error;
  std::unique_ptr<ApiClient> client = take_client(error);
  if (client == nullptr) {
    return fail(500, "permanent error updating FRQ statuses for RB " + binding + ": " + error);
  }
  client->set_deadline(deadline);
  // The quotas written so far, to be given back their charge if a later one fails or denies.
  std::vector<QuotaEntry> written_now;
  ResourceAmounts refund;
  const auto undo = [&] {
    if (c.dry_run || written_now.empty()) return;
    refund.clear();
    for (const ResourceAmount& a : *c.delta) refund.push_back({a.name, a.value.negated()});
    for (QuotaEntry& quota : written_now) {
      for (int attempt = 1; attempt <= kMaxTries && Clock::now() < deadline; ++attempt) {
        ResourceAmounts back;
        QuotaJudgment ignored;  // a refund's usage, whatever the limits say
        check_quota(c.ns, quota, refund, c.requests_limits, back, ignored);
        QuotaEntry after;
        std::string why;
        const WriteResult r = write(*client, c.ns, quota, back, false, after, why);
        if (r == WriteResult::kWritten || r == WriteResult::kGone) break;
        if (r == WriteResult::kFailed ||
            read(*client, c.ns, std::string(quota.name), quota, why) != WriteResult::kWritten) {
          log::error(
              "RB-2: the charge of a denied binding was not given back (the quota "
              "controller recomputes it)",
              {{"quota", quota_name(c.ns, quota.name)}, {"binding", binding}, {"error", why}});
          break;
        }
      }
    }
  };
  const auto finish = [&](QuotaOutcome result) {
    give_back(std::move(client));
    return result;
  };
  QuotaEntry fresh;  // a quota read again after a conflict
  for (Pending& p : pending) {
    for (int attempt = 1;; ++attempt) {
      const QuotaEntry& quota = *p.quota;
      QuotaEntry written;
      const WriteResult r = write(*client, c.ns, quota, p.used, c.dry_run, written, error);
      if (r == WriteResult::kWritten) {
        written_.fetch_add(1, std::memory_order_relaxed);
        if (!c.dry_run) {
          key.assign(c.ns);
          key += '\n';
          key += quota.name;
          stripe.written.insert_or_assign(key, Written{quota.resource_version, written});
          written_now.push_back(std::move(written));
        }
        break;
      }
      if (r == WriteResult::kGone) break;  // deleted since: it limits nothing any more
      if (r == WriteResult::kFailed) {
        undo();
        return finish(fail(500, "permanent error updating FRQ statuses for RB " + binding + ": " +
                                    quota_name(c.ns, quota.name) + ": " + error));
      }
      conflicts_.fetch_add(1, std::memory_order_relaxed);
      if (attempt == kMaxTries) {
        undo();
        return finish(fail(500,
                           "failed to apply FederatedResourceQuota updates after multiple "
                           "retries for RB " +
                               binding + ": " + quota_name(c.ns, quota.name) + ": " + error));
      }
      // Changed since it was judged: judged again as it is now.
      const std::string name = quota.name;
      const WriteResult got = read(*client, c.ns, name, fresh, error);
      if (got == WriteResult::kGone) break;
      if (got != WriteResult::kWritten) {
        undo();
        return finish(fail(500, "permanent error updating FRQ statuses for RB " + binding + ": " +
                                    quota_name(c.ns, name) + ": " + error));
      }
      p.quota = &fresh;
      const QuotaCheck again =
          check_quota(c.ns, fresh, *c.delta, c.requests_limits, p.used, judged);
      if (again == QuotaCheck::kUntouched) break;
      if (again == QuotaCheck::kExceeded) {
        undo();
        out.d_q2_denied = judged.d_q2;
        return finish(deny(std::move(judged.message)));
      }
      if (out.d_q2_warning.empty()) out.d_q2_warning = std::move(judged.d_q2_warning);
    }
  }
  return finish(out);
}

void QuotaLedger::render_metrics(std::string& out) const {
  constexpr std::string_view kWrites = "karmada_policy_webhook_quota_writes_total";
  prometheus::header(out, kWrites, "counter",
                     "RB-2's FederatedResourceQuota status writes by result (written, conflict: "
                     "read again and retried) and charges by outcome (denied, failed).");
  prometheus::sample(out, kWrites, "result=\"written\"",
                     static_cast<double>(written_.load(std::memory_order_relaxed)));
  prometheus::sample(out, kWrites, "result=\"conflict\"",
                     static_cast<double>(conflicts_.load(std::memory_order_relaxed)));
  prometheus::sample(out, kWrites, "result=\"denied\"",
                     static_cast<double>(denied_.load(std::memory_order_relaxed)));
  prometheus::sample(out, kWrites, "result=\"failed\"",
                     static_cast<double>(failures_.load(std::memory_order_relaxed)));
}

}  // namespace kpw::kube
