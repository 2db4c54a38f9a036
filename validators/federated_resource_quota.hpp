// Validation of FederatedResourceQuota (policy.karmada.io/v1alpha1): upstream's rules Q-1…Q-13,
// our D-Q1 and the CRD schema rows QS-1…QS-4 of docs/rules.md.
#pragma once

#include <array>

#include "admission/field_error.hpp"
#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"

namespace kpw {

namespace rules {

// Upstream's rules (pkg/webhook/federatedresourcequota): always denied.
inline constexpr RuleInfo kQ1{"Q-1", kUpstreamRule, kFieldScope, "",
                              "metadata.name is at most 63 characters"};
inline constexpr RuleInfo kQ2{"Q-2", kUpstreamRule, kFieldScope, "",
                              "a resource name is a qualified name"};
inline constexpr RuleInfo kQ3{"Q-3", kUpstreamRule, kFieldScope, "",
                              "a resource name without '/' is a standard resource"};
inline constexpr RuleInfo kQ4{"Q-4", kUpstreamRule, kFieldScope, "",
                              "a resource name without '/' is a standard quota resource"};
inline constexpr RuleInfo kQ5{"Q-5", kUpstreamRule, kFieldScope, "",
                              "a resource quantity is not negative"};
inline constexpr RuleInfo kQ6{"Q-6", kUpstreamRule, kFieldScope, "",
                              "an integer resource's quantity is a whole number"};
inline constexpr RuleInfo kQ7{"Q-7", kUpstreamRule, kFieldScope, "",
                              "a static assignment's clusterName is a cluster name"};
inline constexpr RuleInfo kQ8{"Q-8", kUpstreamRule, kFieldScope, "",
                              "a static assignment's hard resources as Q-2…Q-6"};
inline constexpr RuleInfo kQ9{"Q-9", kUpstreamRule, kFieldScope, "",
                              "spec.overall is not less than the sum of the assignments"};
inline constexpr RuleInfo kQ10{"Q-10", kUpstreamRule, kFieldScope, "",
                               "an assigned resource is one of spec.overall"};
inline constexpr RuleInfo kQ11{"Q-11", kUpstreamRule, kFieldScope, "",
                               "status.overall and status.overallUsed as Q-2…Q-6"};
inline constexpr RuleInfo kQ12{"Q-12", kUpstreamRule, kFieldScope, "",
                               "an aggregated status's clusterName is a cluster name"};
inline constexpr RuleInfo kQ13{"Q-13", kUpstreamRule, kFieldScope, "",
                               "an aggregated status's hard and used as Q-2…Q-6"};
// Ours: ratcheted on UPDATE, governed by --strict-rules.
inline constexpr RuleInfo kDQ1{"D-Q1", kStrictRule, kListScope, "",
                               "static assignments name different clusters"};
inline constexpr RuleInfo kQS1{"QS-1", kStrictRule, kFieldScope, "",
                               "spec and spec.overall are present objects"};
inline constexpr RuleInfo kQS2{"QS-2", kStrictRule, kFieldScope, "",
                               "a resource map is an object of quantities"};
inline constexpr RuleInfo kQS3{"QS-3", kStrictRule, kFieldScope, "",
                               "a static assignment has clusterName and hard"};
inline constexpr RuleInfo kQS4{"QS-4", kStrictRule, kFieldScope, "",
                               "status is an object and an aggregated status has clusterName"};

// Every rule above, for the kind table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 18> kFederatedResourceQuotaRules = {
    kQ1,  kQ2,  kQ3,  kQ4,  kQ5,  kQ6,  kQ7,  kQ8,  kQ9,
    kQ10, kQ11, kQ12, kQ13, kDQ1, kQS1, kQS2, kQS3, kQS4};

}  // namespace rules

void validate_federated_resource_quota(const AdmissionRequest& request, AdmissionResult& result);

// `check`'s unknown-field walk (K-U1) over spec, from the schema table.
void check_federated_resource_quota_unknown_fields(const JsonValue& spec,
                                                   const FieldPath& spec_path, ErrorList& errors);

}  // namespace kpw
