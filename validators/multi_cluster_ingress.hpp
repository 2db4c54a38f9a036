// Validation of MultiClusterIngress (networking.karmada.io/v1alpha1, namespaced): upstream's
// MCI-1…MCI-9 (pkg/webhook/multiclusteringress and its lifted validatingmci.go, Kubernetes'
// Ingress validation of release-1.27 with AllowInvalidSecretName and AllowInvalidWildcardHostRule
// off), the ObjectMeta rules (validators/object_meta.hpp) and the CRD's schema for the spec
// (MCI-S1, strict) (docs/rules.md, "MultiClusterIngress").
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "validators/object_meta.hpp"

namespace kpw {

namespace rules {

// Upstream's rules: always denied.
inline constexpr RuleInfo kMCI1{"MCI-1", kUpstreamRule, kFieldScope, "",
                                "a defaultBackend or rules is specified"};
inline constexpr RuleInfo kMCI2{"MCI-2", kUpstreamRule, kFieldScope, "",
                                "a backend is a resource or a service, not both"};
inline constexpr RuleInfo kMCI3{"MCI-3", kUpstreamRule, kFieldScope, "",
                                "a resource backend: apiGroup a DNS-1123 subdomain, kind and name "
                                "set and path segments"};
inline constexpr RuleInfo kMCI4{"MCI-4", kUpstreamRule, kFieldScope, "",
                                "a service backend: a DNS-1035 name, a port name or number"};
inline constexpr RuleInfo kMCI5{"MCI-5", kUpstreamRule, kFieldScope, "",
                                "a rule's host is a DNS name (wildcard allowed), not an IP"};
inline constexpr RuleInfo kMCI6{"MCI-6", kUpstreamRule, kFieldScope, "", "an http rule has paths"};
inline constexpr RuleInfo kMCI7{"MCI-7", kUpstreamRule, kFieldScope, "",
                                "a path has a supported pathType and an absolute, clean path"};
inline constexpr RuleInfo kMCI8{"MCI-8", kUpstreamRule, kFieldScope, "",
                                "TLS hosts, secret names and the ingress class name are DNS names"};
inline constexpr RuleInfo kMCI9{"MCI-9", kUpstreamRule, kFieldScope, "",
                                "UPDATE: status.loadBalancer ingress IPs are IPs, hostnames DNS "
                                "names"};
// The CRD's schema for the spec, in the webhook too.
inline constexpr RuleInfo kMCIS1{"MCI-S1", kStrictRule, kFieldScope, "",
                                 "the CRD's schema: every field of the spec of its JSON type"};

// Every rule the path reports, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 22> kMultiClusterIngressRules = {
    kMCI1, kMCI2, kMCI3, kMCI4, kMCI5, kMCI6, kMCI7, kMCI8, kMCI9, kMCIS1, kKM1,
    kKM2,  kKM3,  kKM4,  kKM5,  kKM6,  kKM7,  kKM8,  kKMU1, kKMU2, kKMU3,  kKMU4};

}  // namespace rules

void validate_multi_cluster_ingress(const AdmissionRequest& request, AdmissionResult& result);

// MCI-9 (and MultiClusterService's MCS-8): each `status.loadBalancer.ingress[i]` of `object`, its
// `ip` an IP as ParseIPSloppy reads one, its `hostname` a DNS-1123 subdomain and not an IP.
void check_load_balancer_status(Rule rule, const JsonValue& object, ErrorList& errors);

}  // namespace kpw
