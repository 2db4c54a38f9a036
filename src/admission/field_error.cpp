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

// `<field>: <body>` of a warning, every echoed piece (the value, the keys and names of the path)
// cut to `limit` bytes with its length (`"kkkk"... (300 bytes)`).
void append_warning_head(std::string& out, const FieldPath& path, ErrorType type,
                         std::string_view value, EchoKind echo, std::string_view raw,
                         std::string_view detail, std::size_t limit) {
  path.append_to(out, limit);
  out += ": ";
  out += error_type_text(type);
  if (error_type_has_value(type)) {
    out += ": ";
    switch (echo) {
      case EchoKind::kString:
        append_echoed_string(out, raw, limit);
        break;
      case EchoKind::kText:
        append_echoed_text(out, raw, limit);
        break;
      case EchoKind::kRendered:
        out += value;
        break;
    }
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
}

// A warning's echoed pieces are cut no shorter than this: the names of the schema stay whole, and
// a value keeps enough to be recognised.
constexpr std::size_t kMinWarningEchoBytes = 32;

// `<field>: <body> [<ID>]; <why>` appended to `out` (the warning being built, so its capacity is
// reused), at most Warnings::kMaxEachBytes: the ending is what the user must read (which rule, and
// why it did not deny), so the head gives way. First its echoed pieces are cut, as short as needed
// and no shorter than kMinWarningEchoBytes: a binary search over the limit (a few renders of a
// warning already past 256 bytes; the size grows with the limit except where a cut adds its
// marker, so the limit found may be a little short of the longest, never too long). Where that is
// not enough (a long detail, a deep path), the head is cut at a UTF-8 boundary and ends with `...`.
void append_allowed_warning(std::string& out, const FieldPath& path, ErrorType type,
                            std::string_view value, EchoKind echo, std::string_view raw,
                            std::string_view detail, std::string_view id, std::string_view why) {
  constexpr std::string_view kCut = "...";
  const std::size_t start = out.size();
  const std::size_t tail = 2 + id.size() + 3 + why.size();  // ` [<ID>]; <why>`
  const std::size_t room = Warnings::kMaxEachBytes > tail ? Warnings::kMaxEachBytes - tail : 0;
  const auto fits = [&](std::size_t limit) {
    out.resize(start);
    append_warning_head(out, path, type, value, echo, raw, detail, limit);
    return out.size() - start <= room;
  };
  if (!fits(kMaxEchoedBytes)) {
    if (fits(kMinWarningEchoBytes)) {
      std::size_t lo = kMinWarningEchoBytes;  // fits
      std::size_t hi = kMaxEchoedBytes - 1;
      while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid)) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      fits(lo);
    } else {
      const std::size_t keep =
          room > kCut.size()
              ? cut_utf8(std::string_view(out).substr(start), room - kCut.size()).size()
              : 0;
      out.resize(start + keep);
      if (room >= kCut.size()) out += kCut;
    }
  }
  out += " [";
  out += id;
  out += "]; ";
  out += why;
}

// A JSON value echoed by append_echoed_scalar: a string is cut, anything else shown as rendered.
EchoKind string_echo(const JsonValue& value) {
  return value.IsString() ? EchoKind::kString : EchoKind::kRendered;
}
std::string_view raw_string(const JsonValue& value) {
  return value.IsString() ? view(value) : std::string_view();
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
                    std::string_view detail, EchoKind echo, std::string_view raw) {
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
      append_allowed_warning(w, path, type, value, echo, raw, detail, rule_id(rule), why);
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
  add(rule, ErrorType::kInvalid, path, value_, detail, string_echo(value), raw_string(value));
}

void ErrorList::invalid(Rule rule, const FieldPath& path, std::string_view string_value,
                        std::string_view detail) {
  value_.clear();
  append_echoed_string(value_, string_value);
  add(rule, ErrorType::kInvalid, path, value_, detail, EchoKind::kString, string_value);
}

void ErrorList::invalid_json(Rule rule, const FieldPath& path, std::string_view rendered,
                             std::string_view detail) {
  value_.clear();
  append_echoed_text(value_, rendered);
  add(rule, ErrorType::kInvalid, path, value_, detail, EchoKind::kText, rendered);
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
  add(rule, ErrorType::kNotSupported, path, value_, detail_, EchoKind::kString, value);
}

void ErrorList::not_supported(Rule rule, const FieldPath& path, const JsonValue& value,
                              std::initializer_list<std::string_view> supported) {
  value_.clear();
  append_echoed_scalar(value_, value);
  detail_.clear();
  append_supported(detail_, std::span<const std::string_view>(supported.begin(), supported.size()));
  add(rule, ErrorType::kNotSupported, path, value_, detail_, string_echo(value), raw_string(value));
}

void ErrorList::duplicate(Rule rule, const FieldPath& path, std::string_view value) {
  value_.clear();
  append_echoed_string(value_, value);
  add(rule, ErrorType::kDuplicate, path, value_, {}, EchoKind::kString, value);
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
