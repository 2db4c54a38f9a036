// Validation of ResourceInterpreterWebhookConfiguration (config.karmada.io/v1alpha1,
// cluster-scoped): upstream's RIWC-1…RIWC-11 (pkg/webhook/configuration, adapted from Kubernetes'
// admissionregistration validation, with apiserver's ValidateWebhookURL and
// ValidateWebhookService, URLs read by Go's net/url) and the CRD's schema (RIWC-S1, strict)
// (docs/rules.md, "ResourceInterpreterWebhookConfiguration").
#pragma once

#include <array>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

namespace rules {

// Upstream's rules: always denied.
inline constexpr RuleInfo kRIWC1{"RIWC-1", kUpstreamRule, kFieldScope, "",
                                 "a webhook's name is a fully qualified domain name"};
inline constexpr RuleInfo kRIWC2{"RIWC-2", kUpstreamRule, kListScope, "",
                                 "webhook names are unique"};
inline constexpr RuleInfo kRIWC3{"RIWC-3", kUpstreamRule, kFieldScope, "",
                                 "a rule's operations: set, '*' alone, each a supported one"};
inline constexpr RuleInfo kRIWC4{"RIWC-4", kUpstreamRule, kFieldScope, "",
                                 "a rule's apiGroups: set, '*' alone"};
inline constexpr RuleInfo kRIWC5{"RIWC-5", kUpstreamRule, kFieldScope, "",
                                 "a rule's apiVersions: set, '*' alone, none empty"};
inline constexpr RuleInfo kRIWC6{"RIWC-6", kUpstreamRule, kFieldScope, "",
                                 "a rule's kinds: set, '*' alone, none empty"};
inline constexpr RuleInfo kRIWC7{"RIWC-7", kUpstreamRule, kFieldScope, "",
                                 "timeoutSeconds is between 1 and 30"};
inline constexpr RuleInfo kRIWC8{"RIWC-8", kUpstreamRule, kFieldScope, "",
                                 "clientConfig has exactly one of url or service"};
inline constexpr RuleInfo kRIWC9{"RIWC-9", kUpstreamRule, kFieldScope, "",
                                 "clientConfig.url is an https URL with a host, without user, "
                                 "fragment or query"};
inline constexpr RuleInfo kRIWC10{"RIWC-10", kUpstreamRule, kFieldScope, "",
                                  "clientConfig.service: name, namespace, a valid port, a path of "
                                  "DNS-1123 subdomain segments"};
inline constexpr RuleInfo kRIWC11{"RIWC-11", kUpstreamRule, kFieldScope, "",
                                  "interpreterContextVersions: set, unique DNS-1035 labels, "
                                  "v1alpha1 among them"};
// The CRD's schema, in the webhook too.
inline constexpr RuleInfo kRIWCS1{"RIWC-S1", kStrictRule, kFieldScope, "",
                                  "the CRD's schema: webhooks, a webhook's name, clientConfig and "
                                  "interpreterContextVersions required, every field of its type"};

// Every rule the path reports, for the route table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 12> kResourceInterpreterWebhookConfigurationRules = {
    kRIWC1, kRIWC2, kRIWC3, kRIWC4,  kRIWC5,  kRIWC6,
    kRIWC7, kRIWC8, kRIWC9, kRIWC10, kRIWC11, kRIWCS1};

}  // namespace rules

void validate_resource_interpreter_webhook_configuration(const AdmissionRequest& request,
                                                         AdmissionResult& result);

}  // namespace kpw
