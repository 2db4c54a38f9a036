// Validation of ResourceInterpreterCustomization (config.karmada.io/v1alpha1, cluster-scoped):
// upstream's RIC-2 (every Lua script loads; pkg/webhook/resourceinterpretercustomization) and the
// CRD's schema (RIC-S1, strict) (docs/rules.md, "ResourceInterpreterCustomization"). RIC-1
// (conflicts between customizations) needs the cluster's customizations and is not judged yet:
// every review carries a warning saying so.
#pragma once

#include <array>
#include <string_view>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

// Upstream's rule: always denied.
inline constexpr RuleInfo kRIC2{"RIC-2", kUpstreamRule, kFieldScope, "",
                                "every non-empty luaScript parses and compiles (Lua 5.2's front "
                                "end; nothing runs)"};
// The CRD's schema, in the webhook too.
inline constexpr RuleInfo kRICS1{"RIC-S1", kStrictRule, kFieldScope, "",
                                 "the CRD's schema: spec, its target (apiVersion, kind) and "
                                 "customizations required, each customization's luaScript "
                                 "required, every field of its type"};

// Every rule the path reports, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 2> kResourceInterpreterCustomizationRules = {kRIC2, kRICS1};

}  // namespace rules

// The warning every review carries until RIC-1 is judged (docs/compatibility.md, "RIC-1").
inline constexpr std::string_view kRIC1NotChecked =
    "RIC-1 not checked: this webhook does not yet compare a ResourceInterpreterCustomization "
    "with the cluster's others (two customizations of one target defining the same operation "
    "are admitted)";

void validate_resource_interpreter_customization(const AdmissionRequest& request,
                                                 AdmissionResult& result);

}  // namespace kpw
