// Every rule we enforce, in one table: its ID (the one docs/compatibility.md, `check` and the
// metrics print), its class, and what "unchanged" means for it on UPDATE.
//
// Classes (docs/compatibility.md, "Rule classes"):
// - kUpstream: upstream Karmada's webhook denies this too. Always denied, never ratcheted.
// - kStrict: beyond upstream (the design's D- rules, the CRD schema checked in the webhook, every
//   rule of the kinds upstream does not serve). Governed by --strict-rules, ratcheted on UPDATE
//   when its value is unchanged from oldObject, never denied while the object is being deleted.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace kpw {

enum class RuleClass : std::uint8_t { kUpstream, kStrict };

// What must be unchanged from oldObject for a strict violation to be ratcheted.
enum class RatchetScope : std::uint8_t {
  kField,  // the field the error names (for a map entry: the whole map)
  kList,   // the list the named field belongs to (duplicates, cross-element rules)
};

enum class Rule : std::uint8_t {
  // PropagationPolicy / ClusterPropagationPolicy, upstream's rules (upstream IDs).
  kVU1, kVU2, kVL1,
  kVP1, kVP2, kVP3, kVP4, kVP5, kVP6, kVP7, kVP8, kVP9, kVP10,
  kVS1, kVS2, kVS3, kVS4, kVS5, kVS6, kVS7,
  kVW1, kVW2, kVW3, kVT1,
  kVF0, kVF1, kVF2, kVF3, kVF4, kVF5, kVF6,
  kVR1, kVX1,
  // The CRD schema, checked in the webhook too.
  kSC1, kSC2, kSC3, kSC4, kSC5, kSC6,
  // The design documents' rules beyond upstream.
  kDR2, kDF3,
  // WorkloadRebalancer and ScheduleTrigger (no upstream webhook).
  kW1, kW2, kW3, kW4,
  kS1, kS2, kS3, kS4, kS5,
  // What the API server checks in metadata (`check` only: in a cluster the API server does).
  kKM1, kKM2, kKM3, kKM4, kKU1,
  kCount
};

inline constexpr std::size_t kRuleCount = static_cast<std::size_t>(Rule::kCount);

struct RuleInfo {
  Rule rule;
  std::string_view id;  // `V-P1`, `D-R2`, `SC-3`
  RuleClass rule_class;
  RatchetScope scope;
  // Another field the violation depends on (a path from the object's root, dotted), which must be
  // unchanged too; "" when none.
  std::string_view also_unchanged;
  std::string_view summary;  // one line, for docs and `check`
};

const RuleInfo& rule_info(Rule rule);
std::span<const RuleInfo> all_rules();
std::optional<Rule> find_rule(std::string_view id);
inline std::string_view rule_id(Rule rule) { return rule_info(rule).id; }
inline bool is_strict(Rule rule) { return rule_info(rule).rule_class == RuleClass::kStrict; }
std::string_view rule_class_name(RuleClass c);  // "upstream", "strict"

// --strict-rules: what a strict violation does (docs/operations.md, "Switching from karmada-webhook").
enum class StrictRules : std::uint8_t { kDeny, kWarn, kOff };
std::optional<StrictRules> parse_strict_rules(std::string_view text);

// What happened to one violation; the label of karmada_policy_webhook_rule_violations_total.
enum class RuleAction : std::uint8_t { kDeny, kWarn, kRatchet, kCount };
inline constexpr std::size_t kRuleActionCount = static_cast<std::size_t>(RuleAction::kCount);
std::string_view rule_action_name(RuleAction action);

}  // namespace kpw
