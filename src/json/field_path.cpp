#include "json/field_path.hpp"

#include <algorithm>
#include <charconv>
#include <string>

namespace kpw {

void FieldPath::append_to(std::string& out, std::size_t limit) const {
  if (parent_ != nullptr) parent_->append_to(out, limit);
  switch (kind_) {
    case Kind::kName:
      if (parent_ != nullptr) out.push_back('.');
      append_echoed_text(out, name_, limit);
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
      append_echoed_text(out, name_, limit);
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
    case ErrorType::kInvalidOmitted:
      return "Invalid value";
    case ErrorType::kNotSupported:
      return "Unsupported value";
    case ErrorType::kDuplicate:
      return "Duplicate value";
    case ErrorType::kForbidden:
      return "Forbidden";
    case ErrorType::kTooLong:
      return "Too long";
  }
  return "Invalid value";
}

std::string_view error_cause_type(ErrorType type) {
  switch (type) {
    case ErrorType::kRequired:
      return "FieldValueRequired";
    case ErrorType::kInvalid:
    case ErrorType::kInvalidOmitted:
      return "FieldValueInvalid";
    case ErrorType::kNotSupported:
      return "FieldValueNotSupported";
    case ErrorType::kDuplicate:
      return "FieldValueDuplicate";
    case ErrorType::kForbidden:
      return "FieldValueForbidden";
    case ErrorType::kTooLong:
      return "FieldValueTooLong";
  }
  return "FieldValueInvalid";
}

bool error_type_has_value(ErrorType type) {
  return type == ErrorType::kInvalid || type == ErrorType::kNotSupported ||
         type == ErrorType::kDuplicate;
}

void append_error_body(std::string& out, ErrorType type, std::string_view value,
                       std::string_view detail) {
  out += error_type_text(type);
  if (error_type_has_value(type)) {
    out += ": ";
    out += value;
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
}

}  // namespace kpw
