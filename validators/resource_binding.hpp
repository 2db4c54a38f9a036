// Validation of ResourceBinding (work.karmada.io, v1alpha2 and v1alpha1): upstream's RB-1, RB-2
// behind --feature-gates=FederatedQuotaEnforcement=true (validators/resource_binding_quota.hpp)
// and RB-3 behind --feature-gates=MultiplePodTemplatesScheduling=true (docs/rules.md,
// "ResourceBinding").
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

// Upstream's rules (pkg/webhook/resourcebinding): always denied.
inline constexpr RuleInfo kRB1{"RB-1", kUpstreamRule, kFieldScope, "",
                               "the dependencies annotation decodes as a list of dependent "
                               "object references"};
inline constexpr RuleInfo kRB2{"RB-2", kUpstreamRule, kFieldScope, "",
                               "the scheduled usage fits every FederatedResourceQuota of the "
                               "namespace (FederatedQuotaEnforcement)"};
// Ours, strict (--strict-rules): RB-2 with `requests.<name>` limits enforced as <name>'s.
inline constexpr RuleInfo kDQ2{"D-Q2", kStrictRule, kFieldScope, "",
                               "a FederatedResourceQuota's requests.<name> limit is charged and "
                               "enforced as <name>'s (FederatedQuotaEnforcement)"};
inline constexpr RuleInfo kRB3{"RB-3", kUpstreamRule, kFieldScope, "",
                               "component names are non-empty and unique "
                               "(MultiplePodTemplatesScheduling)"};

// Every rule above, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 4> kResourceBindingRules = {kRB1, kRB2, kRB3, kDQ2};

}  // namespace rules

void validate_resource_binding(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
