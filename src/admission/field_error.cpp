#include "admission/field_error.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "api/object.hpp"
#include "util/hash.hpp"

namespace kpw {

namespace {
void append_supported(std::string& out, std::span<const std::string_view> supported) {
  out += "supported values: ";
  bool first = true;
  for (std::string_view s : supported) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, s);
  }
}

constexpr std::size_t kFirstFingerprintSlots = 256;
// Past this many slots the table is let go after the review, so a thread that once judged a
// hostile object does not keep (and clear) its table for every later one.
constexpr std::size_t kKeptFingerprintSlots = 4096;

// Ratcheting looks each strict violation's value up in both objects; past this many lookups in a
// review (an object whose spec changed and that breaks strict rules thousands of times) the rest
// count as changed, so the cost stays linear in the object.
constexpr std::size_t kMaxRatchetLookups = 256;

// Ends the warning of an allowed strict violation, `<error> [<ID>]; <why>`, within the bytes a
// warning is shown: a long error text (a qualified-name message is ~240 bytes) is cut, followed
// by "...", rather than the rule ID and the reason the user must see, which always fit.
void append_warning_tail(std::string& w, std::string_view id, std::string_view why) {
  constexpr std::string_view kCut = "...";
  const std::size_t tail = 2 + id.size() + 3 + why.size();  // " [" id "]; " why
  const std::size_t limit = Warnings::kMaxEachBytes;
  if (w.size() + tail > limit && tail + kCut.size() < limit) {
    w.resize(cut_utf8(w, limit - tail - kCut.size()).size());
    w += kCut;
  }
  w += " [";
  w += id;
  w += "]; ";
  w += why;
}

// The value at `segments` (from the object's root), or nullptr when absent.
const JsonValue* value_at(const JsonValue* root, std::span<const FieldPath::Segment> segments) {
  const JsonValue* v = root;
  for (const FieldPath::Segment& s : segments) {
    if (v == nullptr) return nullptr;
    if (s.kind == FieldPath::Kind::kIndex) {
      if (!v->IsArray() || s.index >= v->Size()) return nullptr;
      v = &(*v)[static_cast<rapidjson::SizeType>(s.index)];
    } else {
      v = member(v, s.name);
    }
  }
  return v;
}

// The value at a dotted path such as `spec.preemption`.
const JsonValue* value_at_dotted(const JsonValue* root, std::string_view dotted) {
  const JsonValue* v = root;
  while (v != nullptr && !dotted.empty()) {
    const std::size_t dot = dotted.find('.');
    v = member(v, dotted.substr(0, dot));
    dotted = dot == std::string_view::npos ? std::string_view() : dotted.substr(dot + 1);
  }
  return v;
}
}  // namespace

void FieldError::append_body(std::string& out) const {
  append_error_body(out, type, value, detail);
}

std::string FieldError::body() const {
  std::string out;
  append_body(out);
  return out;
}

void FieldError::append_text(std::string& out) const {
  out += field;
  out += ": ";
  append_body(out);
}

std::string FieldError::text() const {
  std::string out;
  append_text(out);
  return out;
}

bool ErrorList::first_time(std::uint64_t fingerprint) {
  if (fingerprint == 0) fingerprint = 1;  // 0 marks a free slot
  if (2 * (seen_count_ + 1) > seen_.size()) {
    std::vector<std::uint64_t> bigger(std::max(kFirstFingerprintSlots, seen_.size() * 2), 0);
    const std::size_t mask = bigger.size() - 1;
    for (std::uint64_t f : seen_) {
      if (f == 0) continue;
      std::size_t i = f & mask;
      while (bigger[i] != 0) i = (i + 1) & mask;
      bigger[i] = f;
    }
    seen_.swap(bigger);
  }
  const std::size_t mask = seen_.size() - 1;
  for (std::size_t i = fingerprint & mask;; i = (i + 1) & mask) {
    if (seen_[i] == fingerprint) return false;
    if (seen_[i] == 0) {
      seen_[i] = fingerprint;
      ++seen_count_;
      return true;
    }
  }
}

void ErrorList::count(Rule rule, RuleAction action) {
  for (auto it = counts_.rbegin(); it != counts_.rend(); ++it) {
    if (it->rule == rule && it->action == action) {
      ++it->count;
      return;
    }
  }
  counts_.push_back(RuleViolation{rule, action, 1});
}

std::uint32_t ErrorList::violations(Rule rule, RuleAction action) const {
  for (const RuleViolation& v : counts_) {
    if (v.rule == rule && v.action == action) return v.count;
  }
  return 0;
}

bool ErrorList::unchanged(Rule rule, const FieldPath& path) {
  const RuleInfo& info = rule.info();
  path.segments(segments_);
  std::size_t n = segments_.size();
  // A map entry is judged with its map (its key may be the very thing that is wrong); a list
  // rule with its whole list.
  for (std::size_t i = 0; i < n; ++i) {
    if (segments_[i].kind == FieldPath::Kind::kKey) {
      n = i;
      break;
    }
  }
  if (info.scope == RatchetScope::kList) {
    for (std::size_t i = n; i-- > 0;) {
      if (segments_[i].kind == FieldPath::Kind::kIndex) {
        n = i;
        break;
      }
    }
  }
  const JsonValue* object = context_->object;
  const JsonValue* old_object = context_->old_object;
  // A field the object lacks (Required) is judged with the object that should hold it, as
  // Kubernetes ratchets `required` (KEP-4008): absent from both is unchanged only when its parent
  // is, so a new list element missing a required field is denied.
  if (n == segments_.size() && n > 1) {
    const JsonValue* v = value_at(object, std::span<const FieldPath::Segment>(segments_.data(), n));
    if (v == nullptr || v->IsNull()) --n;
  }
  const std::span<const FieldPath::Segment> subject(segments_.data(), n);
  if (!info.also_unchanged.empty() &&
      !same_json(value_at_dotted(object, info.also_unchanged),
                 value_at_dotted(old_object, info.also_unchanged))) {
    return false;
  }
  // The whole root part (spec, metadata) unchanged: every value in it is. One comparison a review.
  if (!subject.empty()) {
    const std::span<const FieldPath::Segment> root = subject.first(1);
    if (root_unchanged_ < 0 || root_name_ != root[0].name) {
      root_name_ = root[0].name;
      root_unchanged_ = same_json(value_at(object, root), value_at(old_object, root)) ? 1 : 0;
    }
    if (root_unchanged_ == 1) return true;
  }
  if (++lookups_ > kMaxRatchetLookups) return false;
  return same_json(value_at(object, subject), value_at(old_object, subject));
}

RuleAction ErrorList::judge_strict(Rule rule, const FieldPath& path, std::string_view& why) {
  if (context_->deleting) {
    why = "allowed because the object is being deleted";
    return RuleAction::kRatchet;
  }
  if (context_->old_object != nullptr && unchanged(rule, path)) {
    why = "allowed because it is unchanged: fix it at its next change";
    return RuleAction::kRatchet;
  }
  if (context_->mode == StrictRules::kWarn) {
    why = "allowed by --strict-rules=warn";
    return RuleAction::kWarn;
  }
  return RuleAction::kDeny;
}

void ErrorList::add(Rule rule, ErrorType type, const FieldPath& path, std::string_view value,
                    std::string_view detail) {
  RuleAction action = RuleAction::kDeny;
  std::string_view why;
  if (context_ != nullptr && is_strict(rule)) {
    if (context_->mode == StrictRules::kOff) return;  // upstream's verdicts exactly
    action = judge_strict(rule, path, why);
  }
  count(rule, action);
  if (action != RuleAction::kDeny) {
    if (context_->warnings == nullptr) return;
    context_->warnings->add_built([&](std::string& w) {
      path.append_to(w);
      w += ": ";
      append_error_body(w, type, value, detail);
      append_warning_tail(w, rule_id(rule), why);
    });
    return;
  }
  if (counting_only_) {
    ++omitted_;
    return;
  }
  std::string& text = text_;
  text.clear();
  path.append_to(text);
  const std::size_t field_size = text.size();
  text += ": ";
  append_error_body(text, type, value, detail);
  if (!first_time(keyed_hash(text))) return;  // texts hold tenant data: a keyed hash
  if (omitted_ == 0 && shown_.size() < kMaxShown && shown_bytes_ + text.size() <= kMaxShownBytes) {
    shown_bytes_ += text.size();
    shown_.push_back(FieldError{rule, type, text.substr(0, field_size),
                                error_type_has_value(type) ? std::string(value) : std::string(),
                                std::string(detail)});
    return;
  }
  ++omitted_;
  counting_only_ = seen_count_ >= kMaxFingerprints;
}

void ErrorList::clear() {
  context_ = nullptr;
  lookups_ = 0;
  root_unchanged_ = -1;
  counts_.clear();
  shown_.clear();
  shown_bytes_ = 0;
  omitted_ = 0;
  counting_only_ = false;
  if (seen_count_ == 0) return;
  seen_count_ = 0;
  if (seen_.size() > kKeptFingerprintSlots) {
    std::vector<std::uint64_t>().swap(seen_);
    std::string().swap(text_);
  } else {
    std::fill(seen_.begin(), seen_.end(), 0);
  }
}

void ErrorList::required(Rule rule, const FieldPath& path, std::string_view detail) {
  add(rule, ErrorType::kRequired, path, {}, detail);
}

void ErrorList::forbidden(Rule rule, const FieldPath& path, std::string_view detail) {
  add(rule, ErrorType::kForbidden, path, {}, detail);
}

void ErrorList::too_long(Rule rule, const FieldPath& path, std::string_view detail) {
  add(rule, ErrorType::kTooLong, path, {}, detail);
}

void ErrorList::invalid(Rule rule, const FieldPath& path, const JsonValue& value,
                        std::string_view detail) {
  value_.clear();
  append_echoed_scalar(value_, value);
  add(rule, ErrorType::kInvalid, path, value_, detail);
}

void ErrorList::invalid(Rule rule, const FieldPath& path, std::string_view string_value,
                        std::string_view detail) {
  value_.clear();
  append_echoed_string(value_, string_value);
  add(rule, ErrorType::kInvalid, path, value_, detail);
}

void ErrorList::invalid_json(Rule rule, const FieldPath& path, std::string_view rendered,
                             std::string_view detail) {
  value_.clear();
  append_echoed_text(value_, rendered);
  add(rule, ErrorType::kInvalid, path, value_, detail);
}

void ErrorList::invalid(Rule rule, const FieldPath& path, long long int_value,
                        std::string_view detail) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, int_value);
  add(rule, ErrorType::kInvalid, path,
      std::string_view(digits, static_cast<std::size_t>(end - digits)), detail);
}

void ErrorList::invalid_bool(Rule rule, const FieldPath& path, bool value,
                             std::string_view detail) {
  add(rule, ErrorType::kInvalid, path, value ? "true" : "false", detail);
}

void ErrorList::not_supported(Rule rule, const FieldPath& path, std::string_view value,
                              std::initializer_list<std::string_view> supported) {
  not_supported(rule, path, value,
                std::span<const std::string_view>(supported.begin(), supported.size()));
}

void ErrorList::not_supported(Rule rule, const FieldPath& path, std::string_view value,
                              std::span<const std::string_view> supported) {
  value_.clear();
  append_echoed_string(value_, value);
  detail_.clear();
  append_supported(detail_, supported);
  add(rule, ErrorType::kNotSupported, path, value_, detail_);
}

void ErrorList::not_supported(Rule rule, const FieldPath& path, const JsonValue& value,
                              std::initializer_list<std::string_view> supported) {
  value_.clear();
  append_echoed_scalar(value_, value);
  detail_.clear();
  append_supported(detail_, std::span<const std::string_view>(supported.begin(), supported.size()));
  add(rule, ErrorType::kNotSupported, path, value_, detail_);
}

void ErrorList::duplicate(Rule rule, const FieldPath& path, std::string_view value) {
  value_.clear();
  append_echoed_string(value_, value);
  add(rule, ErrorType::kDuplicate, path, value_, {});
}

std::string ErrorList::omitted_text() const {
  if (omitted_ == 0) return {};
  return "and " + std::to_string(omitted_) + " more error" + (omitted_ == 1 ? "" : "s");
}

void ErrorList::append_message(std::string& out) const {
  if (shown_.size() == 1 && omitted_ == 0) return shown_.front().append_text(out);
  out += '[';
  for (std::size_t i = 0; i < shown_.size(); ++i) {
    if (i > 0) out += ", ";
    shown_[i].append_text(out);
  }
  if (omitted_ > 0) {
    out += ", ";
    out += omitted_text();
  }
  out += ']';
}

std::string ErrorList::message() const {
  std::string out;
  append_message(out);
  return out;
}

}  // namespace kpw
