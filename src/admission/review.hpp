// The admission contract every handler sees: the decoded request and what it answers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "admission/json_patch.hpp"
#include "admission/warnings.hpp"
#include "json/json.hpp"

namespace kpw {

enum class Operation { kCreate, kUpdate, kDelete, kConnect };
inline constexpr std::size_t kOperationCount = 4;

// As request.operation spells it (and the metrics label it).
constexpr std::string_view operation_name(Operation op) {
  switch (op) {
    case Operation::kCreate:
      return "CREATE";
    case Operation::kUpdate:
      return "UPDATE";
    case Operation::kDelete:
      return "DELETE";
    case Operation::kConnect:
      return "CONNECT";
  }
  return "";
}
static_assert(operation_name(static_cast<Operation>(kOperationCount - 1)) == "CONNECT",
              "kOperationCount counts every Operation");

// What the validators take from the server's flags (docs/operations.md, "Flags"). Set once
// before serving; the service copies it into every request, so a validator reads its request only.
struct ValidationSettings {
  bool allow_no_execute_taint_policy = false;  // --allow-no-execute-taint-policy (T-1)
};
const ValidationSettings& validation_settings();
void set_validation_settings(ValidationSettings settings);

// One decoded AdmissionReview request. Views point into the parsed request body.
struct AdmissionRequest {
  std::string_view uid;
  Operation operation = Operation::kCreate;
  std::string_view name;
  std::string_view ns;                    // request.namespace ("" for cluster-scoped kinds)
  const JsonValue* object = nullptr;      // always an object when a handler runs
  const JsonValue* old_object = nullptr;  // an object on UPDATE, else nullptr
  ValidationSettings settings;            // the server's, from validation_settings()
  // --strict-rules, from strict_rules(). Validators meet it through the ErrorList's StrictContext;
  // a mutator reads it here: under `off` it stores what upstream's round trip stores where that
  // decides the verdict (docs/compatibility.md, "End-to-end parity").
  StrictRules strict_rules = StrictRules::kDeny;
};

// What a handler answers: field errors deny (code 403), warnings ride along either way, and a
// mutator's patch (already reset to the request's object) becomes `response.patch`. Errors and
// warnings are capped as they are reported, so a handler's answer is a few KB whatever it meets.
struct AdmissionResult {
  ErrorList errors;
  Warnings warnings;
  JsonPatch patch;
};

// The defaults mutators fill, from the server's flags. Set once before serving; read-only after.
struct MutationDefaults {
  std::string purge_mode = "Gracefully";               // --default-purge-mode (the CRD's)
  std::int64_t toleration_seconds = 300;               // --default-toleration-seconds (the CRD's)
  std::optional<std::int64_t> rebalancer_ttl_seconds;  // --default-rebalancer-ttl-seconds
};
const MutationDefaults& mutation_defaults();
void set_mutation_defaults(MutationDefaults defaults);

// --strict-rules: what a violation of a `strict` rule does. Set once before serving.
StrictRules strict_rules();
void set_strict_rules(StrictRules mode);

using Handler = void (*)(const AdmissionRequest&, AdmissionResult&);

}  // namespace kpw
