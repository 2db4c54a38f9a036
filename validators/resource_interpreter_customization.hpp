// Validation of ResourceInterpreterCustomization (config.karmada.io/v1alpha1, cluster-scoped):
// upstream's RIC-2 (every Lua script loads; pkg/webhook/resourceinterpretercustomization) and the
// CRD's schema (RIC-S1, strict) (docs/rules.md, "ResourceInterpreterCustomization"), and RIC-1
// (no two customizations of one target script the same operation) against the cluster's
// customizations as the watch cache last saw them (Settings::cluster); without that cache every
// review carries a warning saying RIC-1 was not checked.
#pragma once

#include <array>
#include <string_view>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

// Upstream's rules: always denied.
inline constexpr RuleInfo kRIC1{"RIC-1", kUpstreamRule, kFieldScope, "",
                                "no other customization of the same target (apiVersion, kind) "
                                "scripts the same operation (InterpretDependency excepted)"};
inline constexpr RuleInfo kRIC2{"RIC-2", kUpstreamRule, kFieldScope, "",
                                "every non-empty luaScript parses and compiles (Lua 5.2's front "
                                "end; nothing runs)"};
// The CRD's schema, in the webhook too.
inline constexpr RuleInfo kRICS1{"RIC-S1", kStrictRule, kFieldScope, "",
                                 "the CRD's schema: spec, its target (apiVersion, kind) and "
                                 "customizations required, each customization's luaScript "
                                 "required, every field of its type"};

// Every rule the path reports, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 3> kResourceInterpreterCustomizationRules = {kRIC1, kRIC2,
                                                                               kRICS1};

}  // namespace rules

// The warning a review carries when RIC-1 could not be judged (docs/compatibility.md, "RIC-1"):
// no API server configured (`review`, `check`, --cluster-state=off).
inline constexpr std::string_view kRIC1NotChecked =
    "RIC-1 not checked: this webhook reads no API server, so conflicts with the cluster's other "
    "ResourceInterpreterCustomizations were not checked";
// The code of the refusal of a review that RIC-1 cannot judge yet: the cache has not listed the
// cluster's customizations (docs/operations.md, "Readiness"). The request may be sent again.
inline constexpr unsigned kRIC1NotListedCode = 503;

void validate_resource_interpreter_customization(const AdmissionRequest& request,
                                                 AdmissionResult& result);

}  // namespace kpw
