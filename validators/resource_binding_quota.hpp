// RB-2, FederatedResourceQuota enforcement, as upstream's steps (docs/rules.md "ResourceBinding",
// docs/compatibility.md "RB-2"): what a ResourceBinding uses, what a change of it charges, and
// what one quota says of that charge. Pure: the quotas come from the caller (the watch cache, or
// the API server after a conflict), and writing the new usage is src/kube/quota_ledger's. Every
// function is linear in its inputs, up to sorting.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "admission/quota.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"

namespace kpw {

// RB-2 step 1, an UPDATE: whether the change can move usage (upstream's quota-relevant fields):
// the per-replica requests, the total scheduled replicas, the cluster set (when either binding
// has components), and the components' replicas or requests.
bool quota_relevant_change(const JsonValue& old_object, const JsonValue& object);

// RB-2 step 2: what a binding uses, sorted by name, zero amounts left out: each per-replica
// request × Σ spec.clusters[].replicas; with spec.components, Σ (component request × its
// replicas) × the number of clusters. Nothing without clusters or with no replica scheduled.
// An error (naming the field) for a request that is not a quantity or a product out of range.
std::optional<std::string> binding_usage(const JsonValue& object, ResourceAmounts& out);

// new − old, zero amounts left out, sorted by name; false when a difference is out of range.
bool usage_delta(const ResourceAmounts& now, const ResourceAmounts& before, ResourceAmounts& out);

// RB-2 step 4, one quota.
enum class QuotaCheck : std::uint8_t {
  kUntouched,  // no spec.overall, or the charge touches none of its resources: nothing to write
  kExceeded,   // `message` is upstream's denial
  kCharged,    // within every limit: `used` is the status.overallUsed to write
};
// `used` is upstream's overallUsed + charge (karmada's util.Resource arithmetic: cpu in millis,
// the rest in units, rounded up; only amounts above zero kept, and only cpu, memory,
// ephemeral-storage, pods and the names Kubernetes counts as scalar resources), and the first
// resource in name order over its limit denies. D-Q2: a `requests.<name>` limit is charged
// <name>'s amount.
// D-Q2 under `requests_limits` (--strict-rules): kDeny charges `requests.<name>` limits and
// enforces them, kWarn charges them and, where one is exceeded, says so in `warning` and charges
// on, kOff leaves them as upstream does (never charged). A `requests.<name>` limit only denies
// (or warns) a charge that adds to it: a binding that does not add to it is never held back by
// it (it was not enforced before the switch to this server).
struct QuotaJudgment {
  QuotaCheck check = QuotaCheck::kUntouched;
  std::string message;       // kExceeded: the denial
  bool d_q2 = false;         // kExceeded by a `requests.<name>` limit
  std::string d_q2_warning;  // kCharged under kWarn: the `requests.<name>` limit exceeded
};
QuotaCheck check_quota(std::string_view ns, const QuotaEntry& quota, const ResourceAmounts& delta,
                       StrictRules requests_limits, ResourceAmounts& used, QuotaJudgment& out);

// The merge patch that writes `used` as status.overallUsed of `quota`, conditional on its
// resourceVersion: {"metadata":{"resourceVersion":..},"status":{"overallUsed":{..}}}, each value
// as Kubernetes writes it, and every key of the stored overallUsed that `used` lacks set to null
// (`"overallUsed":null` when `used` is empty, as upstream's write leaves the field out).
void append_overall_used_patch(const QuotaEntry& quota, const ResourceAmounts& used,
                               std::string& out);

// Reads a FederatedResourceQuota object's spec.overall and status.overallUsed (and its name and
// resourceVersion) into `out`; an error when metadata.name is missing. A value of spec.overall
// that is not a quantity is left out (the API server's schema refuses it).
std::optional<std::string> read_quota(const JsonValue& object, QuotaEntry& out);

}  // namespace kpw
