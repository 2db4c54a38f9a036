// Validation of ClusterTaintPolicy (policy.karmada.io/v1alpha1, cluster-scoped): upstream's T-1,
// T-2, the CRD schema TS-1…TS-4 and our D-T1 (docs/rules.md, "ClusterTaintPolicy").
#pragma once

#include <array>

#include "admission/field_error.hpp"
#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"

namespace kpw {

namespace rules {

inline constexpr RuleInfo kT1{"T-1", kUpstreamRule, kFieldScope, "",
                              "no NoExecute taint unless --allow-no-execute-taint-policy"};
inline constexpr RuleInfo kT2{"T-2", kUpstreamRule, kListScope, "",
                              "taints are unique by key and effect"};
inline constexpr RuleInfo kTS1{"TS-1", kStrictRule, kFieldScope, "",
                               "a ClusterTaintPolicy has a spec"};
inline constexpr RuleInfo kTS2{"TS-2", kStrictRule, kFieldScope, "",
                               "spec.taints has at least one taint, each with key and effect"};
inline constexpr RuleInfo kTS3{"TS-3", kStrictRule, kFieldScope, "",
                               "a condition has conditionType, operator and statusValues"};
inline constexpr RuleInfo kTS4{"TS-4", kStrictRule, kFieldScope, "",
                               "targetClusters is a cluster affinity; expressions have key and "
                               "operator"};
inline constexpr RuleInfo kDT1{"D-T1", kStrictRule, kFieldScope, "",
                               "taints, conditions and the field selector hold values the "
                               "controller and Cluster objects accept"};

// Every rule above, for the kind table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 7> kClusterTaintPolicyRules = {kT1,  kT2,  kTS1, kTS2,
                                                                 kTS3, kTS4, kDT1};

}  // namespace rules

void validate_cluster_taint_policy(const AdmissionRequest& request, AdmissionResult& result);

// K-U1 for `check`: the fields of `spec` the ClusterTaintPolicy schema does not declare.
void check_cluster_taint_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                               ErrorList& errors);

}  // namespace kpw
