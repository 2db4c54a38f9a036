#include "admission/field_error.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "util/hash.hpp"

namespace kpw {

void FieldPath::append_to(std::string& out) const {
  if (parent_ != nullptr) parent_->append_to(out);
  switch (kind_) {
    case Kind::kName:
      if (parent_ != nullptr) out.push_back('.');
      append_echoed_text(out, name_);
      break;
    case Kind::kIndex: {
      char digits[20];
      const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, index_);
      out.push_back('[');
      out.append(digits, end);
      out.push_back(']');
      break;
    }
    case Kind::kKey:
      out.push_back('[');
      append_echoed_text(out, name_);
      out.push_back(']');
      break;
  }
}

std::string FieldPath::str() const {
  std::string out;
  append_to(out);
  return out;
}

void FieldPath::segments(std::vector<Segment>& out) const {
  out.clear();
  for (const FieldPath* p = this; p != nullptr; p = p->parent_) {
    out.push_back(Segment{p->kind_, p->name_, p->index_});
  }
  std::reverse(out.begin(), out.end());
}

std::string_view error_type_text(ErrorType type) {
  switch (type) {
    case ErrorType::kRequired:
      return "Required value";
    case ErrorType::kInvalid:
      return "Invalid value";
    case ErrorType::kNotSupported:
      return "Unsupported value";
    case ErrorType::kDuplicate:
      return "Duplicate value";
    case ErrorType::kForbidden:
      return "Forbidden";
  }
  return "Invalid value";
}

std::string_view error_cause_type(ErrorType type) {
  switch (type) {
    case ErrorType::kRequired:
      return "FieldValueRequired";
    case ErrorType::kInvalid:
      return "FieldValueInvalid";
    case ErrorType::kNotSupported:
      return "FieldValueNotSupported";
    case ErrorType::kDuplicate:
      return "FieldValueDuplicate";
    case ErrorType::kForbidden:
      return "FieldValueForbidden";
  }
  return "FieldValueInvalid";
}

namespace {
bool has_value(ErrorType type) {
  return type == ErrorType::kInvalid || type == ErrorType::kNotSupported ||
         type == ErrorType::kDuplicate;
}

// As k8s.io/apimachinery field.Error.ErrorBody: the value is shown for the types that carry one.
void append_error_body(std::string& out, ErrorType type, std::string_view value,
                       std::string_view detail) {
  out += error_type_text(type);
  if (has_value(type)) {
    out += ": ";
    out += value;
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
}

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

void ErrorList::add(ErrorType type, const FieldPath& path, std::string_view value,
                    std::string_view detail) {
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
    shown_.push_back(FieldError{type, text.substr(0, field_size),
                                has_value(type) ? std::string(value) : std::string(),
                                std::string(detail)});
    return;
  }
  ++omitted_;
  counting_only_ = seen_count_ >= kMaxFingerprints;
}

void ErrorList::clear() {
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

void ErrorList::required(const FieldPath& path, std::string_view detail) {
  add(ErrorType::kRequired, path, {}, detail);
}

void ErrorList::forbidden(const FieldPath& path, std::string_view detail) {
  add(ErrorType::kForbidden, path, {}, detail);
}

void ErrorList::invalid(const FieldPath& path, const JsonValue& value, std::string_view detail) {
  value_.clear();
  append_echoed_scalar(value_, value);
  add(ErrorType::kInvalid, path, value_, detail);
}

void ErrorList::invalid(const FieldPath& path, std::string_view string_value,
                        std::string_view detail) {
  value_.clear();
  append_echoed_string(value_, string_value);
  add(ErrorType::kInvalid, path, value_, detail);
}

void ErrorList::invalid(const FieldPath& path, long long int_value, std::string_view detail) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, int_value);
  add(ErrorType::kInvalid, path, std::string_view(digits, static_cast<std::size_t>(end - digits)),
      detail);
}

void ErrorList::invalid_bool(const FieldPath& path, bool value, std::string_view detail) {
  add(ErrorType::kInvalid, path, value ? "true" : "false", detail);
}

void ErrorList::not_supported(const FieldPath& path, std::string_view value,
                              std::initializer_list<std::string_view> supported) {
  not_supported(path, value,
                std::span<const std::string_view>(supported.begin(), supported.size()));
}

void ErrorList::not_supported(const FieldPath& path, std::string_view value,
                              std::span<const std::string_view> supported) {
  value_.clear();
  append_echoed_string(value_, value);
  detail_.clear();
  append_supported(detail_, supported);
  add(ErrorType::kNotSupported, path, value_, detail_);
}

void ErrorList::not_supported(const FieldPath& path, const JsonValue& value,
                              std::initializer_list<std::string_view> supported) {
  value_.clear();
  append_echoed_scalar(value_, value);
  detail_.clear();
  append_supported(detail_, std::span<const std::string_view>(supported.begin(), supported.size()));
  add(ErrorType::kNotSupported, path, value_, detail_);
}

void ErrorList::duplicate(const FieldPath& path, std::string_view value) {
  value_.clear();
  append_echoed_string(value_, value);
  add(ErrorType::kDuplicate, path, value_, {});
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
