// What reviews are judged with, from the server's flags (docs/operations.md, "Flags"): one value,
// made once by main for `serve`, `review` and `check` alike, and handed to every handler with its
// request (AdmissionRequest::settings). Nothing reads a flag any other way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "admission/rules.hpp"

namespace kpw {

class ClusterState;       // cluster_state.hpp
class QuotaEnforcement;   // quota.hpp

struct Settings {
  // --strict-rules: what a violation of a `strict` rule does. Validators meet it through the
  // review's strict policy (judge.hpp); a mutator reads it here: under `off` it stores what
  // upstream's round trip stores where that decides the verdict (docs/compatibility.md,
  // "End-to-end parity").
  StrictRules strict_rules = StrictRules::kDeny;
  bool allow_no_execute_taint_policy = false;  // --allow-no-execute-taint-policy (T-1)
  // The mutators' defaults.
  std::string purge_mode = "Gracefully";               // --default-purge-mode (the CRD's)
  std::int64_t toleration_seconds = 300;               // --default-toleration-seconds (the CRD's)
  std::optional<std::int64_t> rebalancer_ttl_seconds;  // --default-rebalancer-ttl-seconds
  // --feature-gates (feature_gates.hpp): the upstream gates that change a verdict here.
  bool multiple_pod_templates_scheduling = false;  // RB-3
  // FederatedQuotaEnforcement (RB-2): the quotas' cache and their status writes; null with the
  // gate off (with it on, `serve` needs an API server: docs/operations.md).
  QuotaEnforcement* quota = nullptr;
  // The cluster as the watch cache sees it (cluster_state.hpp), for RIC-1: null when no API server
  // is configured (`review`, `check`, --cluster-state=off, or no kubeconfig outside a pod).
  const ClusterState* cluster = nullptr;
};

// The flags' defaults: what a request carries unless its caller says otherwise (unit tests).
inline const Settings kDefaultSettings{};

}  // namespace kpw
