// The field errors of one review, each naming its rule (rules.hpp), de-duplicated, capped, and
// judged by class: a strict rule may ratchet, warn, or be off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admission/rules.hpp"
#include "admission/warnings.hpp"
#include "json/field_path.hpp"
#include "json/json.hpp"

namespace kpw {

struct FieldError {
  Rule rule;  // the rule that reported it (rules.hpp)
  ErrorType type;
  std::string field;   // rendered path
  std::string value;   // rendered value (Invalid, NotSupported, Duplicate); empty otherwise
  std::string detail;  // may be empty

  // `Invalid value: "x": detail` (what Kubernetes calls the error body).
  std::string body() const;
  void append_body(std::string& out) const;
  // `<field>: <body>`
  std::string text() const;
  void append_text(std::string& out) const;
};

// How an error echoes its value: as rendered (a number, `{...}`), or cut from the value itself, as
// a JSON string literal or as text, so that a warning can cut it shorter (ErrorList).
enum class EchoKind : std::uint8_t { kRendered, kString, kText };

// How one review treats violations of `strict` rules (rules.hpp). Without one (unit tests, the
// validators called directly) every violation denies.
struct StrictContext {
  StrictRules mode = StrictRules::kDeny;
  const JsonValue* object = nullptr;      // the object judged
  const JsonValue* old_object = nullptr;  // UPDATE: a strict violation unchanged from it ratchets
  bool deleting = false;                  // metadata.deletionTimestamp set: strict rules never deny
  Warnings* warnings = nullptr;           // where allowed violations are told
};

// The errors of one review, in the order rules report them, de-duplicated (identical texts are
// reported once, as upstream does) and capped, so a hostile object with millions of errors costs
// a counter per error, not a string, and its answer stays a few KB:
// - the first kMaxShown distinct errors, at most kMaxShownBytes of text, are kept and shown; the
//   others are counted (`and N more errors`);
// - duplicates are found by a 64-bit hash of the text (expected O(1), never by comparing with
//   earlier errors) for the first kMaxFingerprints distinct errors; past those, each report is
//   counted as it comes (the rules never report one error twice: de-duplication is upstream's
//   safety net, and an exact count of millions is not worth a table of millions).
// Every error names the rule that reported it. With a StrictContext, a `strict` rule's violation
// may be allowed instead (--strict-rules=warn, ratcheting on UPDATE, an object being deleted): it
// then becomes a warning (`<error> [<ID>]; allowed because …`) and denies nothing. Such a warning
// fits Warnings::kMaxEachBytes with its ` [<ID>]; <why>` ending whole: its echoed value and the
// keys and names of its path are cut shorter (all to one length that fits, 32 bytes at least, each
// with its length), and only if that is not enough is the rest cut before the ending, with `...`.
// Every violation is counted by rule and action for the metrics.
class ErrorList {
 public:
  static constexpr std::size_t kMaxShown = 100;
  static constexpr std::size_t kMaxShownBytes = 16 * 1024;
  static constexpr std::size_t kMaxFingerprints = 32 * 1024;

  void required(Rule rule, const FieldPath& path, std::string_view detail);
  void forbidden(Rule rule, const FieldPath& path, std::string_view detail);
  // `Too long: <detail>` (field.TooLong: no value shown; the detail says the limit).
  void too_long(Rule rule, const FieldPath& path, std::string_view detail);
  void invalid(Rule rule, const FieldPath& path, const JsonValue& value, std::string_view detail);
  void invalid(Rule rule, const FieldPath& path, std::string_view string_value,
               std::string_view detail);
  void invalid(Rule rule, const FieldPath& path, long long int_value, std::string_view detail);
  // A value already rendered as JSON (a whole struct, as upstream marshals it), cut like any
  // echoed value.
  void invalid_json(Rule rule, const FieldPath& path, std::string_view rendered,
                    std::string_view detail);
  void invalid_bool(Rule rule, const FieldPath& path, bool value, std::string_view detail);
  void not_supported(Rule rule, const FieldPath& path, std::string_view value,
                     std::initializer_list<std::string_view> supported);
  void not_supported(Rule rule, const FieldPath& path, const JsonValue& value,
                     std::initializer_list<std::string_view> supported);
  void not_supported(Rule rule, const FieldPath& path, std::string_view value,
                     std::span<const std::string_view> supported);
  void duplicate(Rule rule, const FieldPath& path, std::string_view value);

  // Set by the service for one review (nullptr: every violation denies). clear() unsets it.
  void set_context(const StrictContext* context) { context_ = context; }

  bool empty() const { return shown_.empty(); }
  // Distinct errors reported, shown or not.
  std::size_t size() const { return shown_.size() + omitted_; }
  // The first kMaxShown distinct errors, in order.
  const std::vector<FieldError>& errors() const { return shown_; }
  // Distinct errors beyond those: counted, not kept.
  std::size_t omitted() const { return omitted_; }
  void clear();

  // Violations of `rule` that ended with `action` in this review (denied ones shown or not).
  std::uint32_t violations(Rule rule, RuleAction action) const;
  // Every (rule, action) met in this review, in the order first met.
  std::span<const RuleViolation> violations() const { return counts_; }
  bool any_violation() const { return !counts_.empty(); }

  // Kubernetes' aggregate of the shown errors: one error is its text, several are
  // `[e1, e2, ...]`; omitted errors add one last entry, `and N more errors`.
  std::string message() const;
  void append_message(std::string& out) const;
  // `and N more errors` ("" when none were omitted).
  std::string omitted_text() const;

 private:
  // `value` as rendered; `raw` the value it echoes (EchoKind::kString, kText), for the warning.
  void add(Rule rule, ErrorType type, const FieldPath& path, std::string_view value,
           std::string_view detail, EchoKind echo = EchoKind::kRendered, std::string_view raw = {});
  void count(Rule rule, RuleAction action);
  // Whether a strict violation at `path` is allowed: the action, and why, for its warning.
  RuleAction judge_strict(Rule rule, const FieldPath& path, std::string_view& why);
  bool unchanged(Rule rule, const FieldPath& path);
  // Inserts a fingerprint; false when it was there already.
  bool first_time(std::uint64_t fingerprint);

  std::vector<FieldError> shown_;
  std::size_t shown_bytes_ = 0;  // of the shown errors' texts
  std::size_t omitted_ = 0;
  bool counting_only_ = false;  // past kMaxFingerprints: count without rendering
  // Fingerprints of every distinct error text so far: open addressing, 0 marks a free slot.
  std::vector<std::uint64_t> seen_;
  std::size_t seen_count_ = 0;
  std::string text_;    // the text of the error being reported
  std::string value_;   // its rendered value
  std::string detail_;  // its detail, when the list builds it

  const StrictContext* context_ = nullptr;
  // One entry per (rule, action) met: a review meets a handful of the kind's rules, so a short
  // list searched from its last entry (a rule reports in runs) beats a table per rule.
  std::vector<RuleViolation> counts_;
  // Ratcheting: the path of the error being judged, and how many paths were looked up in the
  // objects (bounded: a changed spec with thousands of strict violations denies past the bound).
  std::vector<FieldPath::Segment> segments_;
  std::size_t lookups_ = 0;
  int root_unchanged_ = -1;  // the whole of spec (or the root the path starts at): -1 unknown
  std::string_view root_name_;
};

}  // namespace kpw
