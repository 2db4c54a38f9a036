#include "admission/field_error.hpp"

#include <algorithm>

#include <string>

namespace kpw {

void FieldPath::append_to(std::string& out) const {
  if (parent_ != nullptr) parent_->append_to(out);
  switch (kind_) {
    case Kind::kName:
      if (parent_ != nullptr) out.push_back('.');
      out.append(name_);
      break;
    case Kind::kIndex:
      out.push_back('[');
      out += std::to_string(index_);
      out.push_back(']');
      break;
    case Kind::kKey:
      out.push_back('[');
      out.append(name_);
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

// As k8s.io/apimachinery field.Error.ErrorBody: the value is shown for the types that carry one.
std::string FieldError::body() const {
  std::string out(error_type_text(type));
  const bool has_value =
      type == ErrorType::kInvalid || type == ErrorType::kNotSupported || type == ErrorType::kDuplicate;
  if (has_value) {
    out += ": ";
    out += value;
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

std::string FieldError::text() const { return field + ": " + body(); }

void ErrorList::add(ErrorType type, const FieldPath& path, std::string value,
                    std::string_view detail) {
  errors_.push_back(FieldError{type, path.str(), std::move(value), std::string(detail)});
}

void ErrorList::required(const FieldPath& path, std::string_view detail) {
  add(ErrorType::kRequired, path, {}, detail);
}

void ErrorList::forbidden(const FieldPath& path, std::string_view detail) {
  add(ErrorType::kForbidden, path, {}, detail);
}

void ErrorList::invalid(const FieldPath& path, const JsonValue& value, std::string_view detail) {
  std::string rendered;
  append_json_scalar(rendered, value);
  add(ErrorType::kInvalid, path, std::move(rendered), detail);
}

void ErrorList::invalid(const FieldPath& path, std::string_view string_value,
                        std::string_view detail) {
  std::string rendered;
  append_json_string(rendered, string_value);
  add(ErrorType::kInvalid, path, std::move(rendered), detail);
}

void ErrorList::invalid(const FieldPath& path, long long int_value, std::string_view detail) {
  add(ErrorType::kInvalid, path, std::to_string(int_value), detail);
}

void ErrorList::invalid_bool(const FieldPath& path, bool value, std::string_view detail) {
  add(ErrorType::kInvalid, path, value ? "true" : "false", detail);
}

void ErrorList::invalid_null(const FieldPath& path, std::string_view detail) {
  add(ErrorType::kInvalid, path, "null", detail);
}

namespace {
std::string supported_list(std::span<const std::string_view> supported) {
  std::string out = "supported values: ";
  bool first = true;
  for (std::string_view s : supported) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, s);
  }
  return out;
}
}  // namespace

void ErrorList::not_supported(const FieldPath& path, std::string_view value,
                              std::initializer_list<std::string_view> supported) {
  not_supported(path, value, std::span<const std::string_view>(supported.begin(), supported.size()));
}

void ErrorList::not_supported(const FieldPath& path, std::string_view value,
                              std::span<const std::string_view> supported) {
  std::string rendered;
  append_json_string(rendered, value);
  add(ErrorType::kNotSupported, path, std::move(rendered), supported_list(supported));
}

void ErrorList::not_supported(const FieldPath& path, const JsonValue& value,
                              std::initializer_list<std::string_view> supported) {
  std::string rendered;
  append_json_scalar(rendered, value);
  add(ErrorType::kNotSupported, path, std::move(rendered),
      supported_list(std::span<const std::string_view>(supported.begin(), supported.size())));
}

void ErrorList::duplicate(const FieldPath& path, std::string_view value) {
  std::string rendered;
  append_json_string(rendered, value);
  add(ErrorType::kDuplicate, path, std::move(rendered), {});
}

std::vector<const FieldError*> ErrorList::unique() const {
  std::vector<const FieldError*> out;
  out.reserve(errors_.size());
  for (const FieldError& e : errors_) {
    bool seen = false;
    for (const FieldError* prior : out) {
      if (prior->type == e.type && prior->field == e.field && prior->value == e.value &&
          prior->detail == e.detail) {
        seen = true;
        break;
      }
    }
    if (!seen) out.push_back(&e);
  }
  return out;
}

std::string ErrorList::message() const {
  std::vector<const FieldError*> errors = unique();
  if (errors.size() == 1) return errors.front()->text();
  std::string out = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) out += ", ";
    out += errors[i]->text();
  }
  out += "]";
  return out;
}

}  // namespace kpw
