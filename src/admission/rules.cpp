#include "admission/rules.hpp"

namespace kpw {
namespace {

constexpr RuleClass U = RuleClass::kUpstream;
constexpr RuleClass S = RuleClass::kStrict;
constexpr RatchetScope F = RatchetScope::kField;
constexpr RatchetScope L = RatchetScope::kList;

// In Rule's order (a static_assert below checks it).
constexpr std::array<RuleInfo, kRuleCount> kRules = {{
    {Rule::kVU1, "V-U1", U, F, "", "spec.schedulerName cannot change on UPDATE"},
    {Rule::kVU2, "V-U2", U, F, "", "the permanent-id label cannot change on UPDATE"},
    {Rule::kVL1, "V-L1", U, F, "", "the permanent-id label is present"},
    {Rule::kVP1, "V-P1", U, F, "", "clusterAffinity and clusterAffinities are not both set"},
    {Rule::kVP2, "V-P2", U, F, "", "overflowAffinities need Divided Aggregated or dynamic weights"},
    {Rule::kVP3, "V-P3", U, F, "", "clusterAffinity field selector: keys provider|region|zone, In|NotIn"},
    {Rule::kVP4, "V-P4", U, F, "", "an affinityName is a qualified name"},
    {Rule::kVP5, "V-P5", U, L, "", "affinityNames are unique"},
    {Rule::kVP6, "V-P6", U, F, "", "a term's field selector: keys provider|region|zone, In|NotIn"},
    {Rule::kVP7, "V-P7", U, F, "", "overflowAffinities need a non-empty inline affinity"},
    {Rule::kVP8, "V-P8", U, F, "", "an overflow affinityName is a qualified name"},
    {Rule::kVP9, "V-P9", U, L, "", "overflow affinityNames are unique within their term"},
    {Rule::kVP10, "V-P10", U, F, "", "an overflow's field selector: keys and operators"},
    {Rule::kVS1, "V-S1", U, F, "", "a PropagationPolicy selects in its own namespace"},
    {Rule::kVS2, "V-S2", U, F, "", "spreadByLabel and spreadByField are not both set"},
    {Rule::kVS3, "V-S3", U, F, "", "minGroups is not negative"},
    {Rule::kVS4, "V-S4", U, F, "", "maxGroups is not negative"},
    {Rule::kVS5, "V-S5", U, F, "", "maxGroups is not below minGroups"},
    {Rule::kVS6, "V-S6", U, L, "", "spreadByField values are unique"},
    {Rule::kVS7, "V-S7", U, L, "", "spreading by region/zone/provider needs spreading by cluster"},
    {Rule::kVW1, "V-W1", U, F, "", "workloadAffinity.affinity.groupByLabelKey is a label key"},
    {Rule::kVW2, "V-W2", U, F, "", "workloadAffinity.antiAffinity.groupByLabelKey is a label key"},
    {Rule::kVW3, "V-W3", U, F, "", "affinity and antiAffinity group by different keys"},
    {Rule::kVT1, "V-T1", U, F, "", "a cluster toleration's operator is not Lt or Gt"},
    {Rule::kVF0, "V-F0", U, F, "", "application failover needs propagateDeps: true"},
    {Rule::kVF1, "V-F1", U, F, "", "tolerationSeconds is not negative"},
    {Rule::kVF2, "V-F2", U, F, "", "gracePeriodSeconds only with a graceful purge mode"},
    {Rule::kVF3, "V-F3", U, F, "", "a graceful purge mode needs gracePeriodSeconds"},
    {Rule::kVF4, "V-F4", U, F, "", "gracePeriodSeconds is positive"},
    {Rule::kVF5, "V-F5", U, F, "", "application state preservation aliasLabelName is a label key"},
    {Rule::kVF6, "V-F6", U, F, "", "cluster state preservation aliasLabelName is a label key"},
    {Rule::kVR1, "V-R1", U, F, "", "preemption: Always needs named resource selectors"},
    {Rule::kVX1, "V-X1", U, F, "", "dispatchingOnClusters is empty while dispatching is true"},
    {Rule::kSC1, "SC-1", S, F, "", "a known field has its schema type (and int32/int64 range)"},
    {Rule::kSC2, "SC-2", S, F, "", "spec.resourceSelectors has at least one item"},
    {Rule::kSC3, "SC-3", S, F, "", "a field the schema requires is present"},
    {Rule::kSC4, "SC-4", S, F, "", "an enum field holds one of its values"},
    {Rule::kSC5, "SC-5", S, F, "", "an affinityName is 1 to 32 characters long"},
    {Rule::kSC6, "SC-6", S, F, "", "a static weight is at least 1"},
    {Rule::kDR2, "D-R2", S, L, "spec.preemption",
     "a preempting ClusterPropagationPolicy pins namespaced kinds to a namespace"},
    {Rule::kDF3, "D-F3", S, F, "", "the design's failover fields are in range"},
    {Rule::kW1, "W-1", S, F, "", "a WorkloadRebalancer names at least one workload"},
    {Rule::kW2, "W-2", S, F, "", "a workload reference has apiVersion, kind and name"},
    {Rule::kW3, "W-3", S, F, "", "a workload namespace is a DNS-1123 label"},
    {Rule::kW4, "W-4", S, F, "", "ttlSecondsAfterFinished is not negative"},
    {Rule::kS1, "S-1", S, F, "", "a ScheduleTrigger has a target"},
    {Rule::kS2, "S-2", S, F, "", "a target resource has apiVersion, kind and name"},
    {Rule::kS3, "S-3", S, F, "", "a target policy has a valid name and namespace"},
    {Rule::kS4, "S-4", S, F, "", "retryAfterSeconds and autoCleanAfterMinutes are not negative"},
    {Rule::kS5, "S-5", S, F, "", "status.phase is Running, Failed or Success"},
    {Rule::kKM1, "K-M1", U, F, "", "metadata.name (or generateName) is a DNS-1123 subdomain"},
    {Rule::kKM2, "K-M2", U, F, "", "label keys are qualified names, values label values"},
    {Rule::kKM3, "K-M3", U, F, "", "annotation keys are qualified names, at most 256 KiB in all"},
    {Rule::kKM4, "K-M4", U, F, "", "finalizers are qualified names"},
    {Rule::kKU1, "K-U1", U, F, "", "no field the schema does not declare (kubectl --validate=strict)"},
}};

constexpr bool in_order() {
  for (std::size_t i = 0; i < kRules.size(); ++i) {
    if (static_cast<std::size_t>(kRules[i].rule) != i || kRules[i].id.empty()) return false;
  }
  return true;
}
static_assert(in_order(), "kRules lists every Rule once, in the enum's order");

}  // namespace

const RuleInfo& rule_info(Rule rule) { return kRules[static_cast<std::size_t>(rule)]; }

std::span<const RuleInfo> all_rules() { return kRules; }

std::optional<Rule> find_rule(std::string_view id) {
  for (const RuleInfo& r : kRules) {
    if (r.id == id) return r.rule;
  }
  return std::nullopt;
}

std::string_view rule_class_name(RuleClass c) {
  return c == RuleClass::kUpstream ? "upstream" : "strict";
}

std::optional<StrictRules> parse_strict_rules(std::string_view text) {
  if (text == "deny") return StrictRules::kDeny;
  if (text == "warn") return StrictRules::kWarn;
  if (text == "off") return StrictRules::kOff;
  return std::nullopt;
}

std::string_view rule_action_name(RuleAction action) {
  switch (action) {
    case RuleAction::kDeny:
      return "deny";
    case RuleAction::kWarn:
      return "warn";
    case RuleAction::kRatchet:
      return "ratchet";
    case RuleAction::kCount:
      break;
  }
  return "deny";
}

}  // namespace kpw
