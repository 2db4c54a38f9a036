// Deletion protection of any kind (upstream's /validate-resourcedeletionprotection): rule RDP-1
// of docs/rules.md.
#pragma once

#include <array>
#include <string_view>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

inline constexpr RuleInfo kRDP1{
    "RDP-1", kUpstreamRule, kFieldScope, "",
    "an object labelled resourcetemplate.karmada.io/deletion-protected=Always is not deleted"};

// Every rule above, for the route table (metrics rows, docs test).
inline constexpr std::array<Rule, 1> kDeletionProtectionRules = {kRDP1};

}  // namespace rules

// Upstream's message, byte for byte.
inline constexpr std::string_view kDeletionProtectedMessage =
    "This resource is protected, please make sure to remove the label: "
    "resourcetemplate.karmada.io/deletion-protected";

// A DELETE (the envelope answers every other operation unjudged, Reads::kOldObjectOnDelete):
// denied when request.oldObject carries the label with exactly "Always".
void validate_deletion_protection(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
