// Helpers for rule tests: run one handler on an object given as JSON text and read the verdict.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admission/json.hpp"
#include "admission/review.hpp"

namespace kpw::test {

struct Verdict {
  std::vector<FieldError> errors;  // de-duplicated, in order
  std::vector<std::string> warnings;
  std::string message;

  bool allowed() const { return errors.empty(); }
  // The reported field paths, in order ("spec.priority", ...).
  std::vector<std::string> fields() const {
    std::vector<std::string> out;
    for (const FieldError& e : errors) out.push_back(e.field);
    return out;
  }
  bool warned(std::string_view needle) const {
    for (const std::string& w : warnings) {
      if (w.find(needle) != std::string::npos) return true;
    }
    return false;
  }
};

struct Call {
  std::string_view ns = "ns1";
  Operation operation = Operation::kCreate;
  std::string_view old_object;  // JSON, UPDATE only

  static Call cluster_scoped() {
    Call c;
    c.ns = "";
    return c;
  }
  static Call update_of(std::string_view old_object, std::string_view ns = "ns1") {
    Call c;
    c.ns = ns;
    c.operation = Operation::kUpdate;
    c.old_object = old_object;
    return c;
  }
};

// Runs `handler` on `object` (JSON text). Both documents live only for this call.
inline Verdict run(Handler handler, std::string_view object, const Call& call = {}) {
  auto arena = std::make_unique<JsonArena>();
  auto old_arena = std::make_unique<JsonArena>();
  std::string text(object);
  std::string old_text(call.old_object);
  Verdict v;
  if (!arena->parse_in_place(text).ok) {
    v.message = "test bug: object is not JSON";
    v.errors.push_back(FieldError{ErrorType::kInvalid, "<test>", "", v.message});
    return v;
  }
  AdmissionRequest request;
  request.operation = call.operation;
  request.ns = call.ns;
  request.object = &arena->document();
  if (!old_text.empty()) {
    if (!old_arena->parse_in_place(old_text).ok) {
      v.errors.push_back(FieldError{ErrorType::kInvalid, "<test>", "", "old object is not JSON"});
      return v;
    }
    request.old_object = &old_arena->document();
  }
  AdmissionResult result;
  handler(request, result);
  for (const FieldError* e : result.errors.unique()) v.errors.push_back(*e);
  v.warnings = result.warnings;
  v.message = result.errors.empty() ? std::string() : result.errors.message();
  return v;
}

}  // namespace kpw::test
