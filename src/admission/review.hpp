// The admission contract every handler sees: the decoded request and what it answers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "admission/json.hpp"

namespace kpw {

enum class Operation { kCreate, kUpdate, kDelete, kConnect };

// One decoded AdmissionReview request. Views point into the parsed request body.
struct AdmissionRequest {
  std::string_view uid;
  Operation operation = Operation::kCreate;
  std::string_view name;
  std::string_view ns;                  // request.namespace ("" for cluster-scoped kinds)
  const JsonValue* object = nullptr;    // always an object when a handler runs
  const JsonValue* old_object = nullptr;  // an object on UPDATE, else nullptr
};

// What a handler answers: field errors deny (code 403), warnings ride along either way.
struct AdmissionResult {
  ErrorList errors;
  std::vector<std::string> warnings;

  void warn(std::string text) { warnings.push_back(std::move(text)); }
};

using Handler = void (*)(const AdmissionRequest&, AdmissionResult&);

}  // namespace kpw
