// Field paths and field errors in the Kubernetes format (`<path>: <Type>: <value>: <detail>`).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admission/json.hpp"

namespace kpw {

// A path to a field, built as a chain of stack nodes and rendered to text only when an
// error is reported, so the allowed path builds no strings.
// Children must hang off a named node: `auto p = a.child("x").child("y")` would dangle,
// so child/index/key are only callable on lvalues.
class FieldPath {
 public:
  static FieldPath root(std::string_view name) { return FieldPath(nullptr, Kind::kName, name, 0); }

  FieldPath child(std::string_view name) const& { return FieldPath(this, Kind::kName, name, 0); }
  FieldPath index(std::size_t i) const& { return FieldPath(this, Kind::kIndex, {}, i); }
  FieldPath key(std::string_view k) const& { return FieldPath(this, Kind::kKey, k, 0); }
  FieldPath child(std::string_view) && = delete;
  FieldPath index(std::size_t) && = delete;
  FieldPath key(std::string_view) && = delete;

  // `spec.placement.clusterAffinities[1].affinityName`, `metadata.labels[a/b]`.
  std::string str() const;

  enum class Kind { kName, kIndex, kKey };
  struct Segment {
    Kind kind;
    std::string_view name;  // kName, kKey
    std::size_t index;      // kIndex
  };
  // The segments from the root down, into `out` (reused: the patch builder walks paths this way
  // without allocating).
  void segments(std::vector<Segment>& out) const;

 private:
  FieldPath(const FieldPath* parent, Kind kind, std::string_view name, std::size_t index)
      : parent_(parent), kind_(kind), name_(name), index_(index) {}
  void append_to(std::string& out) const;

  const FieldPath* parent_;
  Kind kind_;
  std::string_view name_;
  std::size_t index_;
};

enum class ErrorType { kRequired, kInvalid, kNotSupported, kDuplicate, kForbidden };

// `Required value`, `Invalid value`, ...
std::string_view error_type_text(ErrorType type);
// `FieldValueRequired`, `FieldValueInvalid`, ... (status.details.causes[].type)
std::string_view error_cause_type(ErrorType type);

struct FieldError {
  ErrorType type;
  std::string field;   // rendered path
  std::string value;   // rendered value (Invalid, NotSupported, Duplicate); empty otherwise
  std::string detail;  // may be empty

  // `Invalid value: "x": detail` (what Kubernetes calls the error body).
  std::string body() const;
  // `<field>: <body>`
  std::string text() const;
};

// The errors of one review, in the order rules report them.
class ErrorList {
 public:
  void required(const FieldPath& path, std::string_view detail);
  void forbidden(const FieldPath& path, std::string_view detail);
  void invalid(const FieldPath& path, const JsonValue& value, std::string_view detail);
  void invalid(const FieldPath& path, std::string_view string_value, std::string_view detail);
  void invalid(const FieldPath& path, long long int_value, std::string_view detail);
  void invalid_bool(const FieldPath& path, bool value, std::string_view detail);
  void invalid_null(const FieldPath& path, std::string_view detail);
  void not_supported(const FieldPath& path, std::string_view value,
                     std::initializer_list<std::string_view> supported);
  void not_supported(const FieldPath& path, const JsonValue& value,
                     std::initializer_list<std::string_view> supported);
  void not_supported(const FieldPath& path, std::string_view value,
                     std::span<const std::string_view> supported);
  void duplicate(const FieldPath& path, std::string_view value);

  bool empty() const { return errors_.empty(); }
  std::size_t size() const { return errors_.size(); }
  const std::vector<FieldError>& errors() const { return errors_; }
  void clear() { errors_.clear(); }

  // Errors with identical text are reported once (as upstream does); then one error is its
  // text and several are `[e1, e2, ...]`.
  std::string message() const;
  // The de-duplicated errors, in order.
  std::vector<const FieldError*> unique() const;

 private:
  void add(ErrorType type, const FieldPath& path, std::string value, std::string_view detail);
  std::vector<FieldError> errors_;
};

}  // namespace kpw
