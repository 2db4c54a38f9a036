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

// A JSON value echoed by append_echoed_scalar: a string is cut, anything else shown as rendered.
EchoKind string_echo(const JsonValue& value) {
  return value.IsString() ? EchoKind::kString : EchoKind::kRendered;
}
std::string_view raw_string(const JsonValue& value) {
  return value.IsString() ? view(value) : std::string_view();
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

void ErrorList::add(Rule rule, ErrorType type, const FieldPath& path, std::string_view value,
                    std::string_view detail, EchoKind echo, std::string_view raw) {
  if (policy_ != nullptr &&
      !policy_->denies(ErrorReport{rule, type, path, value, detail, echo, raw})) {
    return;
  }
  if (counting_only_) {
    ++omitted_;
    return;
  }
  std::string cut_detail;  // only for a detail past kMaxDetailBytes (rare: no allocation else)
  if (detail.size() > kMaxDetailBytes) {
    append_echoed_text(cut_detail, detail, kMaxDetailBytes);
    detail = cut_detail;
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
  policy_ = nullptr;
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

void ErrorList::invalid_omitted(Rule rule, const FieldPath& path, std::string_view detail) {
  add(rule, ErrorType::kInvalidOmitted, path, {}, detail);
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
