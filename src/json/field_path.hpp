// Field paths and the Kubernetes field-error format (`<path>: <Type>: <value>: <detail>`):
// general JSON infrastructure, below the admission contract.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.hpp"

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

  // `spec.placement.clusterAffinities[1].affinityName`, `metadata.labels[a/b]`. A name or key
  // longer than `limit` (kMaxEchoedBytes) is cut like an echoed value (`[aaa... (70000 bytes)]`).
  std::string str() const;
  void append_to(std::string& out, std::size_t limit = kMaxEchoedBytes) const;

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

  const FieldPath* parent_;
  Kind kind_;
  std::string_view name_;
  std::size_t index_;
};

// kInvalidOmitted: field.Invalid with apimachinery's omitted value (`Invalid value: <detail>`),
// for a value too large to echo (a whole script).
enum class ErrorType {
  kRequired,
  kInvalid,
  kNotSupported,
  kDuplicate,
  kForbidden,
  kTooLong,
  kInvalidOmitted
};

// `Required value`, `Invalid value`, ...
std::string_view error_type_text(ErrorType type);
// `FieldValueRequired`, `FieldValueInvalid`, ... (status.details.causes[].type)
std::string_view error_cause_type(ErrorType type);

// `<Type>[: <value>][: <detail>]`, as k8s.io/apimachinery field.Error.ErrorBody renders it: the
// value is shown for the types that carry one (Invalid, NotSupported, Duplicate).
void append_error_body(std::string& out, ErrorType type, std::string_view value,
                       std::string_view detail);
bool error_type_has_value(ErrorType type);

}  // namespace kpw
