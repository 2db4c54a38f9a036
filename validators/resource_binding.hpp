// Validation of ResourceBinding (work.karmada.io, v1alpha2 and v1alpha1): upstream's RB-1, and RB-3
// behind --feature-gates=MultiplePodTemplatesScheduling=true (docs/rules.md, "ResourceBinding").
// Upstream's RB-2 (FederatedQuotaEnforcement) is not offered: the server does not start with it.
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
inline constexpr RuleInfo kRB3{"RB-3", kUpstreamRule, kFieldScope, "",
                               "component names are non-empty and unique "
                               "(MultiplePodTemplatesScheduling)"};

// Every rule above, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 2> kResourceBindingRules = {kRB1, kRB3};

}  // namespace rules

void validate_resource_binding(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
