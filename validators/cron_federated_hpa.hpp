// Validation of CronFederatedHPA (autoscaling.karmada.io/v1alpha1, namespaced): upstream's
// CFH-1…CFH-12 (pkg/webhook/cronfederatedhpa), the ObjectMeta rules (validators/object_meta.hpp)
// with a DNS-1123 subdomain name, schedules judged the same at every instant (D-C1, in CFH-5) and
// as the controller reads them (D-C2, strict), and the CRD's schema (CFH-S1, strict)
// (docs/rules.md, "CronFederatedHPA").
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "validators/object_meta.hpp"

namespace kpw {

namespace rules {

// Upstream's rules: always denied.
inline constexpr RuleInfo kCFH1{"CFH-1", kUpstreamRule, kFieldScope, "",
                                "metadata.name is a DNS-1123 subdomain"};
inline constexpr RuleInfo kCFH2{"CFH-2", kUpstreamRule, kFieldScope, "",
                                "a scaleTargetRef of apiVersion autoscaling.karmada.io/v1alpha1 "
                                "is a FederatedHPA"};
inline constexpr RuleInfo kCFH3{"CFH-3", kUpstreamRule, kFieldScope, "",
                                "scaleTargetRef kind and name are set and path segments"};
inline constexpr RuleInfo kCFH4{"CFH-4", kUpstreamRule, kListScope, "", "rule names are unique"};
inline constexpr RuleInfo kCFH5{"CFH-5", kUpstreamRule, kFieldScope, "",
                                "a schedule is a cron expression (gronx's grammar, every item "
                                "checked: D-C1)"};
inline constexpr RuleInfo kCFH6{"CFH-6", kUpstreamRule, kFieldScope, "",
                                "a time zone, when set, is an IANA name (built-in tzdata), UTC, "
                                "Local or empty"};
inline constexpr RuleInfo kCFH7{"CFH-7", kUpstreamRule, kFieldScope, "",
                                "scaling a FederatedHPA: targetMinReplicas or targetMaxReplicas "
                                "set"};
inline constexpr RuleInfo kCFH8{"CFH-8", kUpstreamRule, kFieldScope, "",
                                "scaling a FederatedHPA: targetMinReplicas, when set, above 0"};
inline constexpr RuleInfo kCFH9{"CFH-9", kUpstreamRule, kFieldScope, "",
                                "scaling a FederatedHPA: targetMaxReplicas, when set, above 0"};
inline constexpr RuleInfo kCFH10{"CFH-10", kUpstreamRule, kFieldScope, "",
                                 "scaling a FederatedHPA: targetMinReplicas at most "
                                 "targetMaxReplicas"};
inline constexpr RuleInfo kCFH11{"CFH-11", kUpstreamRule, kFieldScope, "",
                                 "scaling anything else: targetReplicas set"};
inline constexpr RuleInfo kCFH12{"CFH-12", kUpstreamRule, kFieldScope, "",
                                 "scaling anything else: targetReplicas not negative"};
// Beyond upstream.
inline constexpr RuleInfo kDC2{"D-C2", kStrictRule, kFieldScope, "",
                               "a schedule is one the CronFederatedHPA controller can run (5-field "
                               "standard cron or @yearly @annually @monthly @weekly @daily "
                               "@midnight @hourly)"};
inline constexpr RuleInfo kCFHS1{"CFH-S1", kStrictRule, kFieldScope, "",
                                 "the CRD's schema: spec, scaleTargetRef (kind, name), rules "
                                 "(name at most 32 characters, schedule) required, history limits "
                                 "0…32 and 1…32, every field of its type"};

// Every rule the path reports, for the route table (metrics rows, docs test, `check`).
// Upstream runs no ObjectMeta update rules here (no K-MU).
inline constexpr std::array<Rule, 22> kCronFederatedHPARules = {
    kCFH1,  kCFH2, kCFH3,  kCFH4, kCFH5, kCFH6, kCFH7, kCFH8, kCFH9, kCFH10, kCFH11,
    kCFH12, kDC2,  kCFHS1, kKM1,  kKM2,  kKM3,  kKM4,  kKM5,  kKM6,  kKM7,   kKM8};

}  // namespace rules

void validate_cron_federated_hpa(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
