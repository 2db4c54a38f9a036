// Validation of OverridePolicy and ClusterOverridePolicy (policy.karmada.io/v1alpha1): upstream's
// rules O-1…O-21 and CO-1, our D-O1…D-O4, the CRD schema OS-1…OS-5 (docs/rules.md).
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

// Upstream's (pkg/util/validation ValidateOverrideSpec), in its order.
inline constexpr RuleInfo kO1{"O-1", kUpstreamRule, kFieldScope, "",
                              "spec.targetCluster field selector keys: provider, region, zone"};
inline constexpr RuleInfo kO2{"O-2", kUpstreamRule, kFieldScope, "",
                              "spec.targetCluster field selector operators: In, NotIn"};
inline constexpr RuleInfo kO3{"O-3", kUpstreamRule, kFieldScope, "",
                              "overrideRules and targetCluster are not both set"};
inline constexpr RuleInfo kO4{"O-4", kUpstreamRule, kFieldScope, "",
                              "overrideRules and legacy overriders are not both set"};
inline constexpr RuleInfo kO5{"O-5", kUpstreamRule, kFieldScope, "",
                              "annotationsOverrider keys are qualified names"};
inline constexpr RuleInfo kO6{"O-6", kUpstreamRule, kFieldScope, "",
                              "an annotationsOverrider map holds at most 256 KiB"};
inline constexpr RuleInfo kO7{"O-7", kUpstreamRule, kFieldScope, "",
                              "labelsOverrider keys are qualified names"};
inline constexpr RuleInfo kO8{"O-8", kUpstreamRule, kFieldScope, "",
                              "labelsOverrider values are label values"};
inline constexpr RuleInfo kO9{"O-9", kUpstreamRule, kFieldScope, "",
                              "an imageOverrider predicate path is a JSON pointer"};
inline constexpr RuleInfo kO10{"O-10", kUpstreamRule, kFieldScope, "",
                               "a fieldOverrider sets json or yaml, not both"};
inline constexpr RuleInfo kO11{"O-11", kUpstreamRule, kFieldScope, "",
                               "a fieldOverrider sets json or yaml"};
inline constexpr RuleInfo kO12{"O-12", kUpstreamRule, kFieldScope, "",
                               "a fieldOverrider fieldPath is a JSON pointer"};
inline constexpr RuleInfo kO13{"O-13", kUpstreamRule, kFieldScope, "",
                               "a fieldOverrider json subPath is a JSON pointer"};
inline constexpr RuleInfo kO14{"O-14", kUpstreamRule, kFieldScope, "",
                               "a json add or replace has a value"};
inline constexpr RuleInfo kO15{"O-15", kUpstreamRule, kFieldScope, "",
                               "a json remove has no value"};
inline constexpr RuleInfo kO16{"O-16", kUpstreamRule, kFieldScope, "",
                               "a fieldOverrider yaml subPath is a JSON pointer"};
inline constexpr RuleInfo kO17{"O-17", kUpstreamRule, kFieldScope, "",
                               "a yaml add or replace has a value"};
inline constexpr RuleInfo kO18{"O-18", kUpstreamRule, kFieldScope, "",
                               "a yaml remove has no value"};
inline constexpr RuleInfo kO19{"O-19", kUpstreamRule, kFieldScope, "",
                               "an override rule's field selector keys: provider, region, zone"};
inline constexpr RuleInfo kO20{"O-20", kUpstreamRule, kFieldScope, "",
                               "an override rule's field selector operators: In, NotIn"};
inline constexpr RuleInfo kO21{"O-21", kUpstreamRule, kFieldScope, "",
                               "an OverridePolicy selects in its own namespace"};
inline constexpr RuleInfo kCO1{"CO-1", kUpstreamRule, kFieldScope, "",
                               "a ClusterOverridePolicy review with a namespace selects in it"};
// Ours (docs/rules.md "OverridePolicy and ClusterOverridePolicy").
inline constexpr RuleInfo kDO1{"D-O1", kStrictRule, kFieldScope, "",
                               "overrideRules and a legacy fieldOverrider are not both set"};
inline constexpr RuleInfo kDO2{"D-O2", kStrictRule, kFieldScope, "",
                               "legacy spec.overriders content is checked as overrideRules' is"};
inline constexpr RuleInfo kDO3{"D-O3", kStrictRule, kFieldScope, "",
                               "plaintext paths and values, image values, container names"};
inline constexpr RuleInfo kDO4{"D-O4", kStrictRule, kFieldScope, "",
                               "a fieldOverrider fieldPath is not empty"};
// The CRD schema, checked in the webhook too.
inline constexpr RuleInfo kOS1{"OS-1", kStrictRule, kFieldScope, "",
                               "spec is present and an object; field types"};
inline constexpr RuleInfo kOS2{"OS-2", kStrictRule, kFieldScope, "",
                               "resource selectors have apiVersion and kind"};
inline constexpr RuleInfo kOS3{"OS-3", kStrictRule, kFieldScope, "",
                               "override rules have overriders"};
inline constexpr RuleInfo kOS4{"OS-4", kStrictRule, kFieldScope, "",
                               "overriders: required keys and enums"};
inline constexpr RuleInfo kOS5{"OS-5", kStrictRule, kFieldScope, "",
                               "cluster affinities: selector expressions have key and operator"};

// Every rule above, for the kind table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 31> kOverridePolicyRules = {
    kO1,  kO2,  kO3,  kO4,  kO5,  kO6,  kO7,  kO8,  kO9,  kO10, kO11, kO12, kO13, kO14, kO15, kO16,
    kO17, kO18, kO19, kO20, kO21, kCO1, kDO1, kDO2, kDO3, kDO4, kOS1, kOS2, kOS3, kOS4, kOS5};

}  // namespace rules

void validate_override_policy(const AdmissionRequest& request, AdmissionResult& result);
void validate_cluster_override_policy(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
