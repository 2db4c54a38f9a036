// Validation of FederatedHPA (autoscaling.karmada.io/v1alpha1, namespaced): upstream's FH-2…FH-16
// (pkg/webhook/federatedhpa and its lifted validatingfhpa.go, Kubernetes' HPA validation of
// release 1.27), the ObjectMeta rules (validators/object_meta.hpp, FH-1), our D-H1 and D-H2, and
// the CRD's schema (FH-S1, strict) (docs/rules.md, "FederatedHPA").
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "validators/object_meta.hpp"

namespace kpw {

namespace rules {

// Upstream's rules: always denied.
inline constexpr RuleInfo kFH2{"FH-2", kUpstreamRule, kFieldScope, "",
                               "spec.minReplicas, when set, is at least 1"};
inline constexpr RuleInfo kFH3{"FH-3", kUpstreamRule, kFieldScope, "",
                               "spec.maxReplicas is at least 1"};
inline constexpr RuleInfo kFH4{"FH-4", kUpstreamRule, kFieldScope, "",
                               "spec.maxReplicas is at least spec.minReplicas"};
inline constexpr RuleInfo kFH5{"FH-5", kUpstreamRule, kFieldScope, "",
                               "scaleTargetRef kind and name set, each one path segment"};
inline constexpr RuleInfo kFH6{"FH-6", kUpstreamRule, kFieldScope, "",
                               "a metric names its source type"};
inline constexpr RuleInfo kFH7{"FH-7", kUpstreamRule, kFieldScope, "",
                               "a metric's type is ContainerResource, Object, Pods or Resource "
                               "(External is not supported)"};
inline constexpr RuleInfo kFH8{"FH-8", kUpstreamRule, kFieldScope, "",
                               "the source the type names is set"};
inline constexpr RuleInfo kFH9{"FH-9", kUpstreamRule, kFieldScope, "",
                               "no source other than the one the type names"};
inline constexpr RuleInfo kFH10{"FH-10", kUpstreamRule, kFieldScope, "",
                                "an object metric: described object, metric name, a value or "
                                "averageValue target"};
inline constexpr RuleInfo kFH11{"FH-11", kUpstreamRule, kFieldScope, "",
                                "a pods metric: metric name, an averageValue target"};
inline constexpr RuleInfo kFH12{"FH-12", kUpstreamRule, kFieldScope, "",
                                "a resource metric: a name, averageUtilization xor averageValue"};
inline constexpr RuleInfo kFH13{"FH-13", kUpstreamRule, kFieldScope, "",
                                "a container resource metric: a container resource name, a "
                                "container (DNS-1123 label), averageUtilization xor averageValue"};
inline constexpr RuleInfo kFH14{"FH-14", kUpstreamRule, kFieldScope, "",
                                "a metric target: its type Utilization, Value or AverageValue; "
                                "values positive, averageUtilization at least 1"};
inline constexpr RuleInfo kFH15{"FH-15", kUpstreamRule, kFieldScope, "",
                                "behavior: stabilization window 0…3600, selectPolicy Disabled, Max "
                                "or Min, at least one policy, each Pods or Percent, value and "
                                "period above 0, period at most 1800"};
inline constexpr RuleInfo kFH16{"FH-16", kUpstreamRule, kFieldScope, "",
                                "status.currentReplicas and desiredReplicas are not negative"};
// Ours (docs/compatibility.md, "FederatedHPA").
inline constexpr RuleInfo kDH1{"D-H1", kStrictRule, kFieldScope, "",
                               "behavior's scaleUp and scaleDown tolerance is not negative"};
inline constexpr RuleInfo kDH2{"D-H2", kStrictRule, kFieldScope, "",
                               "a metric's selector is a valid label selector"};
// The CRD's schema, in the webhook too.
inline constexpr RuleInfo kFHS1{"FH-S1", kStrictRule, kFieldScope, "",
                                "the CRD's schema: spec, maxReplicas and scaleTargetRef required, "
                                "every field of its type, quantities that parse"};

// Every rule the path reports, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 26> kFederatedHPARules = {
    kFH2,  kFH3,  kFH4, kFH5, kFH6,  kFH7, kFH8, kFH9, kFH10, kFH11, kFH12, kFH13, kFH14,
    kFH15, kFH16, kDH1, kDH2, kFHS1, kKM1, kKM2, kKM3, kKM4,  kKM5,  kKM6,  kKM7,  kKM8};

}  // namespace rules

void validate_federated_hpa(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
