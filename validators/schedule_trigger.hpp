// Validation of ScheduleTrigger (policy.karmada.io/v1alpha1): rules S-1…S-5 of docs/rules.md.
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

inline constexpr RuleInfo kS1{"S-1", kStrictRule, kFieldScope, "",
                              "a ScheduleTrigger has a target"};
inline constexpr RuleInfo kS2{"S-2", kStrictRule, kFieldScope, "",
                              "a target resource has apiVersion, kind and name"};
inline constexpr RuleInfo kS3{"S-3", kStrictRule, kFieldScope, "",
                              "a target policy has a valid name and namespace"};
inline constexpr RuleInfo kS4{"S-4", kStrictRule, kFieldScope, "",
                              "retryAfterSeconds and autoCleanAfterMinutes are not negative"};
inline constexpr RuleInfo kS5{"S-5", kStrictRule, kFieldScope, "",
                              "status.phase is Running, Failed or Success"};

// Every rule above, for the kind table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 5> kScheduleTriggerRules = {kS1, kS2, kS3, kS4, kS5};

}  // namespace rules

void validate_schedule_trigger(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
