// How one review treats the violations of `strict` rules (rules.hpp; docs/compatibility.md, "Rule
// classes, ratcheting and --strict-rules"): the ErrorPolicy its judge (judge.hpp) gives the
// review's ErrorList. An `upstream` rule's violation always denies. A `strict` one is dropped
// under --strict-rules=off; otherwise it is allowed with a warning when the object is being
// deleted, when it is unchanged from oldObject on UPDATE (ratcheting, as Kubernetes does for CRDs,
// KEP-4008), or under --strict-rules=warn; else it denies. Every violation is counted by rule and
// action, for the metrics.
//
// The warning of an allowed violation, `<error> [<ID>]; <why>`, fits Warnings::kMaxEachBytes with
// its ` [<ID>]; <why>` ending whole: its echoed value and the keys and names of its path are cut
// shorter (all to one length that fits, 32 bytes at least, each with its length), and only if that
// is not enough is the rest cut before the ending, with `...`.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "admission/rules.hpp"
#include "admission/warnings.hpp"
#include "json/field_path.hpp"
#include "json/json.hpp"

namespace kpw {

class StrictPolicy final : public ErrorPolicy {
 public:
  // Starts a review: how strict rules act, the object judged (a strict violation unchanged from
  // `old_object` ratchets; `old_object` is null but on UPDATE), where allowed violations are told
  // and where every violation is counted.
  void start(StrictRules mode, const JsonValue* object, const JsonValue* old_object,
             Warnings& warnings, std::vector<RuleViolation>& counts);

  bool denies(const ErrorReport& report) override;

 private:
  // Whether a strict violation at `path` is allowed: the action, and why, for its warning.
  RuleAction judge_strict(Rule rule, const FieldPath& path, std::string_view& why);
  bool unchanged(Rule rule, const FieldPath& path);
  void count(Rule rule, RuleAction action);

  StrictRules mode_ = StrictRules::kDeny;
  const JsonValue* object_ = nullptr;
  const JsonValue* old_object_ = nullptr;
  bool deleting_ = false;  // metadata.deletionTimestamp set: strict rules never deny
  Warnings* warnings_ = nullptr;
  // One entry per (rule, action) met: a review meets a handful of the kind's rules, so a short
  // list searched from its last entry (a rule reports in runs) beats a table per rule.
  std::vector<RuleViolation>* counts_ = nullptr;
  // Ratcheting: the path of the error being judged, and how many paths were looked up in the
  // objects (bounded: a changed spec with thousands of strict violations denies past the bound).
  std::vector<FieldPath::Segment> segments_;
  std::size_t lookups_ = 0;
  int root_unchanged_ = -1;  // the whole of spec (or the root the path starts at): -1 unknown
  std::string_view root_name_;
};

}  // namespace kpw
