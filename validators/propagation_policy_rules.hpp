// The rules of PropagationPolicy and ClusterPropagationPolicy (docs/rules.md): upstream's V-…,
// the CRD schema's SC-…, and the design documents' D-…; their IDs, classes and summaries.
#pragma once

#include <array>

#include "admission/rules.hpp"

namespace kpw::rules {

inline constexpr RuleInfo kVU1{"V-U1", kUpstreamRule, kFieldScope, "",
                               "spec.schedulerName cannot change on UPDATE"};
inline constexpr RuleInfo kVU2{"V-U2", kUpstreamRule, kFieldScope, "",
                               "the permanent-id label cannot change on UPDATE"};
inline constexpr RuleInfo kVL1{"V-L1", kUpstreamRule, kFieldScope, "",
                               "the permanent-id label is present"};
inline constexpr RuleInfo kVP1{"V-P1", kUpstreamRule, kFieldScope, "",
                               "clusterAffinity and clusterAffinities are not both set"};
inline constexpr RuleInfo kVP2{"V-P2", kUpstreamRule, kFieldScope, "",
                               "overflowAffinities need Divided Aggregated or dynamic weights"};
inline constexpr RuleInfo kVP3{
    "V-P3", kUpstreamRule, kFieldScope, "",
    "clusterAffinity field selector: keys provider|region|zone, In|NotIn"};
inline constexpr RuleInfo kVP4{"V-P4", kUpstreamRule, kFieldScope, "",
                               "an affinityName is a qualified name"};
inline constexpr RuleInfo kVP5{"V-P5", kUpstreamRule, kListScope, "", "affinityNames are unique"};
inline constexpr RuleInfo kVP6{"V-P6", kUpstreamRule, kFieldScope, "",
                               "a term's field selector: keys provider|region|zone, In|NotIn"};
inline constexpr RuleInfo kVP7{"V-P7", kUpstreamRule, kFieldScope, "",
                               "overflowAffinities need a non-empty inline affinity"};
inline constexpr RuleInfo kVP8{"V-P8", kUpstreamRule, kFieldScope, "",
                               "an overflow affinityName is a qualified name"};
inline constexpr RuleInfo kVP9{"V-P9", kUpstreamRule, kListScope, "",
                               "overflow affinityNames are unique within their term"};
inline constexpr RuleInfo kVP10{"V-P10", kUpstreamRule, kFieldScope, "",
                                "an overflow's field selector: keys and operators"};
inline constexpr RuleInfo kVS1{"V-S1", kUpstreamRule, kFieldScope, "",
                               "a PropagationPolicy selects in its own namespace"};
inline constexpr RuleInfo kVS2{"V-S2", kUpstreamRule, kFieldScope, "",
                               "spreadByLabel and spreadByField are not both set"};
inline constexpr RuleInfo kVS3{"V-S3", kUpstreamRule, kFieldScope, "", "minGroups is not negative"};
inline constexpr RuleInfo kVS4{"V-S4", kUpstreamRule, kFieldScope, "", "maxGroups is not negative"};
inline constexpr RuleInfo kVS5{"V-S5", kUpstreamRule, kFieldScope, "",
                               "maxGroups is not below minGroups"};
inline constexpr RuleInfo kVS6{"V-S6", kUpstreamRule, kListScope, "",
                               "spreadByField values are unique"};
inline constexpr RuleInfo kVS7{"V-S7", kUpstreamRule, kListScope, "",
                               "spreading by region/zone/provider needs spreading by cluster"};
inline constexpr RuleInfo kVW1{"V-W1", kUpstreamRule, kFieldScope, "",
                               "workloadAffinity.affinity.groupByLabelKey is a label key"};
inline constexpr RuleInfo kVW2{"V-W2", kUpstreamRule, kFieldScope, "",
                               "workloadAffinity.antiAffinity.groupByLabelKey is a label key"};
inline constexpr RuleInfo kVW3{"V-W3", kUpstreamRule, kFieldScope, "",
                               "affinity and antiAffinity group by different keys"};
inline constexpr RuleInfo kVT1{"V-T1", kUpstreamRule, kFieldScope, "",
                               "a cluster toleration's operator is not Lt or Gt"};
inline constexpr RuleInfo kVF0{"V-F0", kUpstreamRule, kFieldScope, "",
                               "application failover needs propagateDeps: true"};
inline constexpr RuleInfo kVF1{"V-F1", kUpstreamRule, kFieldScope, "",
                               "tolerationSeconds is not negative"};
inline constexpr RuleInfo kVF2{"V-F2", kUpstreamRule, kFieldScope, "",
                               "gracePeriodSeconds only with a graceful purge mode"};
inline constexpr RuleInfo kVF3{"V-F3", kUpstreamRule, kFieldScope, "",
                               "a graceful purge mode needs gracePeriodSeconds"};
inline constexpr RuleInfo kVF4{"V-F4", kUpstreamRule, kFieldScope, "",
                               "gracePeriodSeconds is positive"};
inline constexpr RuleInfo kVF5{"V-F5", kUpstreamRule, kFieldScope, "",
                               "application state preservation aliasLabelName is a label key"};
inline constexpr RuleInfo kVF6{"V-F6", kUpstreamRule, kFieldScope, "",
                               "cluster state preservation aliasLabelName is a label key"};
inline constexpr RuleInfo kVR1{"V-R1", kUpstreamRule, kFieldScope, "",
                               "preemption: Always needs named resource selectors"};
inline constexpr RuleInfo kVX1{"V-X1", kUpstreamRule, kFieldScope, "",
                               "dispatchingOnClusters is empty while dispatching is true"};
inline constexpr RuleInfo kSC1{"SC-1", kStrictRule, kFieldScope, "",
                               "a known field has its schema type (and int32/int64 range)"};
inline constexpr RuleInfo kSC2{"SC-2", kStrictRule, kFieldScope, "",
                               "spec.resourceSelectors has at least one item"};
inline constexpr RuleInfo kSC3{"SC-3", kStrictRule, kFieldScope, "",
                               "a field the schema requires is present"};
inline constexpr RuleInfo kSC4{"SC-4", kStrictRule, kFieldScope, "",
                               "an enum field holds one of its values"};
inline constexpr RuleInfo kSC5{"SC-5", kStrictRule, kFieldScope, "",
                               "an affinityName is 1 to 32 characters long"};
inline constexpr RuleInfo kSC6{"SC-6", kStrictRule, kFieldScope, "",
                               "a static weight is at least 1"};
inline constexpr RuleInfo kDR2{
    "D-R2", kStrictRule, kListScope, "spec.preemption",
    "a preempting ClusterPropagationPolicy pins namespaced kinds to a namespace"};
inline constexpr RuleInfo kDF3{"D-F3", kStrictRule, kFieldScope, "",
                               "the design's failover fields are in range"};

// Every rule above, for the kind table (metrics rows, docs test, `check`).
inline constexpr std::array<Rule, 41> kPropagationPolicyRules = {
    kVU1, kVU2, kVL1, kVP1, kVP2, kVP3, kVP4, kVP5, kVP6, kVP7, kVP8, kVP9, kVP10, kVS1,
    kVS2, kVS3, kVS4, kVS5, kVS6, kVS7, kVW1, kVW2, kVW3, kVT1, kVF0, kVF1, kVF2,  kVF3,
    kVF4, kVF5, kVF6, kVR1, kVX1, kSC1, kSC2, kSC3, kSC4, kSC5, kSC6, kDR2, kDF3};

}  // namespace kpw::rules
