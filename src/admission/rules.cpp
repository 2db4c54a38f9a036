#include "admission/rules.hpp"

namespace kpw {

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
