// Validation of WorkloadRebalancer (apps.karmada.io/v1alpha1): rules W-1…W-4 of docs/rules.md.
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

inline constexpr RuleInfo kW1{"W-1", kStrictRule, kFieldScope, "",
                              "a WorkloadRebalancer names at least one workload"};
inline constexpr RuleInfo kW2{"W-2", kStrictRule, kFieldScope, "",
                              "a workload reference has apiVersion, kind and name"};
inline constexpr RuleInfo kW3{"W-3", kStrictRule, kFieldScope, "",
                              "a workload namespace is a DNS-1123 label"};
inline constexpr RuleInfo kW4{"W-4", kStrictRule, kFieldScope, "",
                              "ttlSecondsAfterFinished is not negative"};

// Every rule above, for the kind table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 4> kWorkloadRebalancerRules = {kW1, kW2, kW3, kW4};

}  // namespace rules

void validate_workload_rebalancer(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
