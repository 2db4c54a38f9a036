// RB-2's side effect: a binding's change in usage charged to its namespace's
// FederatedResourceQuotas and recorded in their status (docs/rules.md "ResourceBinding",
// docs/operations.md "Quota enforcement"). Judged from the watch cache (QuotaState); each quota
// the charge touches is written through the status subresource with a merge patch conditional on
// the resourceVersion it was judged from; on 409 Conflict that quota is read again, judged again
// and written again, at most kMaxTries times. Reviews of one namespace take turns (a striped
// lock), and what this process wrote is used until the cache has seen it, so that this server's
// own writes do not conflict with each other. Every call ends within the budget.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "admission/quota.hpp"
#include "kube/api_client.hpp"
#include "kube/kube_config.hpp"

namespace kpw::kube {

class QuotaLedger final : public QuotaEnforcement {
 public:
  static constexpr int kMaxTries = 5;  // client-go's retry.DefaultRetry, as upstream's
  struct Options {
    // A review's whole charge: well inside the webhook's timeoutSeconds (3 s), so that the
    // answer is a clear one, never the API server's timeout.
    std::chrono::milliseconds budget{2'000};
    // Clients kept idle for the next reviews (one is in use per review writing; each request
    // opens its own connection, as the watch caches' do). They share one rate limiter
    // (--kube-api-qps, --kube-api-burst), as a client-go client's requests do.
    std::size_t max_clients = 16;
  };

  QuotaLedger(KubeConfig config, ClientLimits limits, const QuotaState& state, Options options);
  ~QuotaLedger() override;

  QuotaOutcome charge(const QuotaCharge& charge) override;
  bool may_charge(std::string_view ns) const override;
  void stop();  // any thread: calls in progress end at once with an error
  // Writes by outcome (karmada_policy_webhook_quota_writes_total{result}).
  void render_metrics(std::string& out) const;

 private:
  // A quota as this process last wrote it, kept while the cache still shows the version the
  // write replaced.
  struct Written {
    std::string replaced_version;
    QuotaEntry entry;
  };
  struct Stripe {
    std::timed_mutex lock;
    std::unordered_map<std::string, Written> written;  // by namespace '\n' name
  };
  enum class WriteResult : std::uint8_t { kWritten, kConflict, kGone, kFailed };
  static constexpr std::size_t kStripes = 64;

  Stripe& stripe_of(std::string_view ns);
  // The quota as it is best known: what this process wrote, else the cache's.
  const QuotaEntry& view(Stripe& stripe, std::string_view ns, const QuotaEntry& cached,
                         std::string& key) const;
  WriteResult write(ApiClient& client, std::string_view ns, const QuotaEntry& quota,
                    const ResourceAmounts& used, bool dry_run, QuotaEntry& written,
                    std::string& error);
  // GET one quota: kWritten (read), kGone (404) or kFailed.
  WriteResult read(ApiClient& client, std::string_view ns, std::string_view name, QuotaEntry& out,
                   std::string& error);
  std::unique_ptr<ApiClient> take_client(std::string& error);
  void give_back(std::unique_ptr<ApiClient> client);

  const KubeConfig config_;
  const ClientLimits limits_;
  const QuotaState& state_;
  const Options options_;
  std::array<Stripe, kStripes> stripes_;
  std::mutex clients_mutex_;
  std::vector<std::unique_ptr<ApiClient>> idle_;
  std::vector<ApiClient*> busy_;  // for stop()
  bool stopping_ = false;
  std::atomic<std::uint64_t> written_{0}, conflicts_{0}, failures_{0}, denied_{0};
};

}  // namespace kpw::kube
