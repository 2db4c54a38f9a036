// What RB-2 (FederatedResourceQuota enforcement, docs/rules.md "ResourceBinding") reads and does
// outside the review: the namespace's quotas as the watch cache of federatedresourcequotas
// (src/kube/watch_cache.hpp) published them, and the charge of a binding's change in usage,
// which records it in the quotas' status (src/kube/quota_ledger.hpp). Reviews hold a
// QuotaEnforcement only with --feature-gates=FederatedQuotaEnforcement=true.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "admission/cluster_state.hpp"
#include "admission/rules.hpp"
#include "util/quantity.hpp"

namespace kpw {

// One resource's amount: its name (`cpu`, `memory`, `nvidia.com/gpu`) and its exact value.
struct ResourceAmount {
  std::string name;
  Quantity value;

  bool operator==(const ResourceAmount&) const = default;
};
// A resource list: sorted by name, each name once.
using ResourceAmounts = std::vector<ResourceAmount>;

// One limit of spec.overall: its value, and the text Kubernetes writes for it (Quantity.String(),
// which upstream's denial quotes).
struct ResourceLimit {
  std::string name;
  Quantity value;
  std::string text;

  bool operator==(const ResourceLimit&) const = default;
};

// One FederatedResourceQuota as RB-2 needs it.
struct QuotaEntry {
  std::string name;
  std::string resource_version;        // what a status write is conditional on
  std::vector<ResourceLimit> overall;  // spec.overall, sorted by name
  ResourceAmounts used;                // status.overallUsed, sorted by name
  // Keys of status.overallUsed whose value is not a quantity (the API server's schema refuses
  // them; read as absent, and removed by the next write).
  std::vector<std::string> unreadable_used;

  bool operator==(const QuotaEntry&) const = default;
};

// Every quota, by namespace. Immutable once published; a namespace's list is shared from one
// publish to the next while it does not change.
struct QuotaIndex {
  // namespace → its quotas, in name order (the order RB-2 checks them in).
  std::unordered_map<std::string, std::shared_ptr<const std::vector<QuotaEntry>>> by_namespace;
  std::size_t objects = 0;
};

// The FederatedResourceQuotas as RB-2 reads them.
class QuotaState : public Published<QuotaIndex> {
 public:
  using Published::Published;
  // The namespace's quotas in name order; null when it has none or nothing is published.
  const std::vector<QuotaEntry>* quotas(std::string_view ns) const;
};

// A binding's change in usage, to be charged to its namespace's quotas.
struct QuotaCharge {
  std::string_view ns;
  std::string_view binding;
  const ResourceAmounts* delta = nullptr;  // new usage − old usage: non-zero amounts only
  bool dry_run = false;                    // request.dryRun: nothing is written
  // D-Q2 (`requests.<name>` limits) under --strict-rules: enforced, warned, or upstream's (off).
  StrictRules requests_limits = StrictRules::kDeny;
};

// What the charge came to.
struct QuotaOutcome {
  enum class Verdict : std::uint8_t {
    kAllowed,  // every quota passed; those the charge touches are written
    kDenied,   // a quota would be exceeded: code 403, reason QuotaExceeded
    kFailed,   // not judged or not written: `code` (500, or 503 before the first list)
  };
  Verdict verdict = Verdict::kAllowed;
  unsigned code = 0;
  std::string message;
  std::string warning;  // judged from a cache that is not fresh: said whatever the verdict
  // D-Q2 decided: the denial is a `requests.<name>` limit's, or (allowed) `d_q2_warning` says
  // which one the charge exceeds under --strict-rules=warn.
  bool d_q2_denied = false;
  std::string d_q2_warning;
};

class QuotaEnforcement {
 public:
  virtual ~QuotaEnforcement() = default;
  // Judges the charge against every quota of the namespace and, when each passes, records the
  // new usage in those it touches (conditional writes, retried on conflict). Any thread; bounded
  // in time well inside the webhook's timeout.
  virtual QuotaOutcome charge(const QuotaCharge& charge) = 0;
  // False when the namespace has no quota to charge (the cache is synced and holds none there):
  // the review needs no usage computed. True otherwise, a cache not yet synced included (charge
  // answers that).
  virtual bool may_charge(std::string_view ns) const = 0;
};

}  // namespace kpw
