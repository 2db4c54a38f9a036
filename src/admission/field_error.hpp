// The field errors of one review, each naming its rule (rules.hpp), de-duplicated and capped. Which
// of them deny is the caller's policy (an ErrorPolicy: strict_policy.hpp), asked as each comes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admission/rules.hpp"
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

// One error as a rule reports it, before the list keeps it: what a policy judges it by. `value` as
// rendered; `raw` the value it echoes (EchoKind::kString, kText), so that a warning can cut it.
struct ErrorReport {
  Rule rule;
  ErrorType type;
  const FieldPath& path;
  std::string_view value;
  std::string_view detail;
  EchoKind echo;
  std::string_view raw;
};

// Decides, as each error is reported, whether it denies (the list keeps it) or not (the policy told
// it some other way, or dropped it). The list only asks: the policy is its caller's.
class ErrorPolicy {
 public:
  virtual bool denies(const ErrorReport& report) = 0;

 protected:
  ~ErrorPolicy() = default;
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
// Every error names the rule that reported it. With a policy set, each is first offered to it
// (ErrorPolicy::denies): only what it says denies is kept.
class ErrorList {
 public:
  static constexpr std::size_t kMaxShown = 100;
  static constexpr std::size_t kMaxShownBytes = 16 * 1024;
  // A detail longer than this (one that quotes a tenant's text whole, as upstream's Go errors do)
  // is cut like an echoed value, so that any one error fits in kMaxShownBytes and is shown.
  static constexpr std::size_t kMaxDetailBytes = 4 * 1024;
  static constexpr std::size_t kMaxFingerprints = 32 * 1024;

  [[gnu::cold]] void required(Rule rule, const FieldPath& path, std::string_view detail);
  [[gnu::cold]] void forbidden(Rule rule, const FieldPath& path, std::string_view detail);
  // `Too long: <detail>` (field.TooLong: no value shown; the detail says the limit).
  [[gnu::cold]] void too_long(Rule rule, const FieldPath& path, std::string_view detail);
  [[gnu::cold]] void invalid(Rule rule, const FieldPath& path, const JsonValue& value,
                             std::string_view detail);
  [[gnu::cold]] void invalid(Rule rule, const FieldPath& path, std::string_view string_value,
                             std::string_view detail);
  [[gnu::cold]] void invalid(Rule rule, const FieldPath& path, long long int_value,
                             std::string_view detail);
  // A value already rendered as JSON (a whole struct, as upstream marshals it), cut like any
  // echoed value.
  [[gnu::cold]] void invalid_json(Rule rule, const FieldPath& path, std::string_view rendered,
                                  std::string_view detail);
  [[gnu::cold]] void invalid_bool(Rule rule, const FieldPath& path, bool value,
                                  std::string_view detail);
  // `Invalid value: <detail>`: no value echoed (apimachinery's omitted value), for a value too
  // large to show (a script).
  [[gnu::cold]] void invalid_omitted(Rule rule, const FieldPath& path, std::string_view detail);
  [[gnu::cold]] void not_supported(Rule rule, const FieldPath& path, std::string_view value,
                                   std::initializer_list<std::string_view> supported);
  [[gnu::cold]] void not_supported(Rule rule, const FieldPath& path, const JsonValue& value,
                                   std::initializer_list<std::string_view> supported);
  [[gnu::cold]] void not_supported(Rule rule, const FieldPath& path, std::string_view value,
                                   std::span<const std::string_view> supported);
  [[gnu::cold]] void duplicate(Rule rule, const FieldPath& path, std::string_view value);

  // Set for one review by its judge (judge.hpp; nullptr: every error denies). clear() unsets it.
  void set_policy(ErrorPolicy* policy) { policy_ = policy; }

  // Nothing reported (an omitted error counts: a list is never read as empty while it holds one).
  bool empty() const { return shown_.empty() && omitted_ == 0; }
  // Distinct errors reported, shown or not.
  std::size_t size() const { return shown_.size() + omitted_; }
  // The first kMaxShown distinct errors, in order.
  const std::vector<FieldError>& errors() const { return shown_; }
  // Distinct errors beyond those: counted, not kept.
  std::size_t omitted() const { return omitted_; }
  void clear();

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

  ErrorPolicy* policy_ = nullptr;
};

}  // namespace kpw
