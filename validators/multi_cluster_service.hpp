// Validation of MultiClusterService (networking.karmada.io/v1alpha1, namespaced): upstream's
// MCS-1…MCS-7 (pkg/webhook/multiclusterservice and its lifted validatingmcs.go), the ObjectMeta
// rules (validators/object_meta.hpp) with a DNS-1035 name, and the CRD's schema (MCS-S1, strict)
// (docs/rules.md, "MultiClusterService").
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "validators/object_meta.hpp"

namespace kpw {

namespace rules {

// Upstream's rules: always denied.
inline constexpr RuleInfo kMCS1{"MCS-1", kUpstreamRule, kFieldScope, "",
                                "metadata.name is a DNS-1035 label"};
inline constexpr RuleInfo kMCS2{"MCS-2", kUpstreamRule, kListScope, "",
                                "port names, when set, are DNS-1123 labels and unique"};
inline constexpr RuleInfo kMCS3{"MCS-3", kUpstreamRule, kFieldScope, "",
                                "ports are between 1 and 65535"};
inline constexpr RuleInfo kMCS4{"MCS-4", kUpstreamRule, kFieldScope, "",
                                "types are CrossCluster or LoadBalancer"};
inline constexpr RuleInfo kMCS5{"MCS-5", kUpstreamRule, kFieldScope, "",
                                "types hold one distinct value at most"};
inline constexpr RuleInfo kMCS6{"MCS-6", kUpstreamRule, kFieldScope, "",
                                "provider and consumer cluster names are cluster names"};
inline constexpr RuleInfo kMCS7{"MCS-7", kUpstreamRule, kFieldScope, "",
                                "UPDATE: types are immutable"};
inline constexpr RuleInfo kMCS8{"MCS-8", kUpstreamRule, kFieldScope, "",
                                "UPDATE: status.loadBalancer ingress IPs are IPs, hostnames DNS "
                                "names (MCI-9's rules)"};
// The CRD's schema, in the webhook too.
inline constexpr RuleInfo kMCSS1{"MCS-S1", kStrictRule, kFieldScope, "",
                                 "the CRD's schema: spec and spec.types required, every field of "
                                 "its type, ports[i].port and clusters' name required"};

// Every rule the path reports, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 21> kMultiClusterServiceRules = {
    kMCS1, kMCS2, kMCS3, kMCS4, kMCS5, kMCS6, kMCS7, kMCS8, kMCSS1, kKM1, kKM2,
    kKM3,  kKM4,  kKM5,  kKM6,  kKM7,  kKM8,  kKMU1, kKMU2, kKMU3,  kKMU4};

}  // namespace rules

void validate_multi_cluster_service(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
