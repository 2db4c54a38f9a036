// What a rule is: its ID (the one docs/rules.md, `check` and the metrics print), its class, and
// what "unchanged" means for it on UPDATE. Each kind declares its own rules beside its validator
// (validators/<kind>.hpp) and lists them in its kind table row; only the rules the API server
// itself enforces on every object (K-*) are declared here.
//
// Classes (docs/compatibility.md, "Rule classes"):
// - kUpstream: upstream Karmada's webhook denies this too. Always denied, never ratcheted.
// - kStrict: beyond upstream (the design's D- rules, the CRD schema checked in the webhook, every
//   rule of the kinds upstream does not serve). Governed by --strict-rules, ratcheted on UPDATE
//   when its value is unchanged from oldObject, never denied while the object is being deleted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kpw {

enum class RuleClass : std::uint8_t { kUpstream, kStrict };

// What must be unchanged from oldObject for a strict violation to be ratcheted.
enum class RatchetScope : std::uint8_t {
  kField,  // the field the error names (for a map entry: the whole map)
  kList,   // the list the named field belongs to (duplicates, cross-element rules)
};

struct RuleInfo {
  std::string_view id;  // `V-P1`, `D-R2`, `SC-3`
  RuleClass rule_class;
  RatchetScope scope;
  // Another field the violation depends on (a path from the object's root, dotted), which must be
  // unchanged too; "" when none.
  std::string_view also_unchanged;
  std::string_view summary;  // one line, for docs and `check`
};

// A rule, as validators report it: a handle on its RuleInfo, which lives as an `inline constexpr`
// object in the header that declares it (one object per rule, so the handle is its identity).
class Rule {
 public:
  constexpr Rule(const RuleInfo& info) : info_(&info) {}  // NOLINT: implicit on purpose
  constexpr const RuleInfo& info() const { return *info_; }
  constexpr const RuleInfo* operator->() const { return info_; }
  friend constexpr bool operator==(Rule a, Rule b) { return a.info_ == b.info_; }

 private:
  const RuleInfo* info_;
};

inline std::string_view rule_id(Rule rule) { return rule->id; }
inline bool is_strict(Rule rule) { return rule->rule_class == RuleClass::kStrict; }
std::string_view rule_class_name(RuleClass c);  // "upstream", "strict"

// --strict-rules: what a strict violation does (docs/operations.md, "Switching from
// karmada-webhook").
enum class StrictRules : std::uint8_t { kDeny, kWarn, kOff };
std::optional<StrictRules> parse_strict_rules(std::string_view text);

// What happened to one violation; the label of karmada_policy_webhook_rule_violations_total.
enum class RuleAction : std::uint8_t { kDeny, kWarn, kRatchet, kCount };
inline constexpr std::size_t kRuleActionCount = static_cast<std::size_t>(RuleAction::kCount);
std::string_view rule_action_name(RuleAction action);

// How many violations of one rule a review met, and what became of them.
struct RuleViolation {
  Rule rule;
  RuleAction action;
  std::uint32_t count;
};

namespace rules {

constexpr RuleClass kUpstreamRule = RuleClass::kUpstream;
constexpr RuleClass kStrictRule = RuleClass::kStrict;
constexpr RatchetScope kFieldScope = RatchetScope::kField;
constexpr RatchetScope kListScope = RatchetScope::kList;

// What the API server checks in metadata, and kubectl --validate=strict: `check` only (in a
// cluster the API server does it before any webhook sees the object).
inline constexpr RuleInfo kKM1{"K-M1", kUpstreamRule, kFieldScope, "",
                               "metadata.name (or generateName) is a DNS-1123 subdomain"};
inline constexpr RuleInfo kKM2{"K-M2", kUpstreamRule, kFieldScope, "",
                               "label keys are qualified names, values label values"};
inline constexpr RuleInfo kKM3{"K-M3", kUpstreamRule, kFieldScope, "",
                               "annotation keys are qualified names, at most 256 KiB in all"};
inline constexpr RuleInfo kKM4{"K-M4", kUpstreamRule, kFieldScope, "",
                               "finalizers are qualified names"};
inline constexpr RuleInfo kKU1{"K-U1", kUpstreamRule, kFieldScope, "",
                               "no field the schema does not declare (kubectl --validate=strict)"};
// What the API server checks against a kind's CRD schema beside unknown fields (K-U1) and our
// webhook's own schema (SC-4) does not refuse: `check` only (src/check/metadata.cpp).
inline constexpr RuleInfo kKS1{"K-S1", kUpstreamRule, kFieldScope, "",
                               "an enum field holds one of the values its CRD's schema lists "
                               "(purgeMode: Immediately and Graciously are refused)"};

}  // namespace rules
}  // namespace kpw
