// Helpers for rule tests: run one handler on an object given as JSON text and read the verdict.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admission/judge.hpp"
#include "admission/review.hpp"
#include "api/object.hpp"
#include "json/json.hpp"
#include "json/json_patch_apply.hpp"
#include "json_access.hpp"
#include "validators/propagation_policy_rules.hpp"

namespace kpw::test {

struct Verdict {
  std::vector<FieldError> errors;  // de-duplicated, in order
  std::vector<std::string> warnings;
  std::string message;  // the errors' message, or a refusal's
  unsigned code = 0;    // AdmissionResult::refuse: a request the handler cannot judge (0: none)

  bool allowed() const { return errors.empty() && code == 0; }
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
  Settings settings;  // the flags: --strict-rules, --allow-no-execute-taint-policy, --default-*

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
    v.errors.push_back(FieldError{rules::kSC1, ErrorType::kInvalid, "<test>", "", v.message});
    return v;
  }
  AdmissionRequest request;
  request.operation = call.operation;
  request.ns = call.ns;
  request.object = &arena->document();
  request.settings = &call.settings;
  if (!old_text.empty()) {
    if (!old_arena->parse_in_place(old_text).ok) {
      v.errors.push_back(
          FieldError{rules::kSC1, ErrorType::kInvalid, "<test>", "", "old object is not JSON"});
      return v;
    }
    request.old_object = &old_arena->document();
  }
  AdmissionResult result;
  // As the service judges: ratcheting against old_object, deletion, --strict-rules.
  judge(handler, request, result);
  v.errors = result.errors.errors();
  v.warnings = result.warnings.all();
  v.message = result.errors.empty() ? std::string() : result.errors.message();
  if (result.refused_code != 0) {
    v.code = result.refused_code;
    v.message = result.refused_message;
  }
  return v;
}

// A value as compact JSON text (to send a mutated object again).
template <typename Value>
std::string text_of(const Value& doc) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return buffer.GetString();
}

// A mutator's answer: the patch text and the object after applying it.
struct Mutation {
  std::string patch;          // "" when the mutator changed nothing
  std::string error;          // why the patch did not apply, or ""
  unsigned refused_code = 0;  // AdmissionResult::refuse: a request the mutator cannot judge
  std::string refused_message;
  JsonDocument doc;  // the object after the patch
  std::vector<std::string> warnings;

  // Checked (json_access.hpp): a missing value or another type fails the test.
  const JsonValue& at(std::string_view pointer) const { return value_at(doc, pointer); }
  bool has(const char* pointer) const {
    return rapidjson::GenericPointer<JsonValue>(pointer).Get(doc) != nullptr;
  }
  std::int64_t integer(std::string_view pointer) const { return int_at(doc, pointer); }
  std::string string(std::string_view pointer) const { return string_at(doc, pointer); }
};

inline Mutation mutate(Handler handler, std::string_view object, const Call& call = {}) {
  auto arena = std::make_unique<JsonArena>();
  auto old_arena = std::make_unique<JsonArena>();
  std::string text(object);
  std::string old_text(call.old_object);
  Mutation m;
  m.doc.Parse(std::string(object).c_str());
  if (!arena->parse_in_place(text).ok || m.doc.HasParseError()) {
    m.error = "test bug: object is not JSON";
    return m;
  }
  AdmissionRequest request;
  request.operation = call.operation;
  request.ns = call.ns;
  request.object = &arena->document();
  request.settings = &call.settings;
  if (!old_text.empty() && old_arena->parse_in_place(old_text).ok) {
    request.old_object = &old_arena->document();
  }
  AdmissionResult result;
  judge(handler, request, result);
  m.warnings = result.warnings.all();
  m.refused_code = result.refused_code;
  m.refused_message = result.refused_message;
  if (!result.errors.empty()) m.error = "a mutator denied: " + result.errors.message();
  if (!result.patch.empty()) {
    result.patch.render(m.patch);
    if (const auto problem = apply_json_patch(m.doc, m.patch, m.doc.GetAllocator())) {
      m.error = "patch does not apply: " + *problem + " in " + m.patch;
    }
  }
  return m;
}

}  // namespace kpw::test
