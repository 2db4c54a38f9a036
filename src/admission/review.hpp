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
#include "admission/settings.hpp"
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

// One decoded AdmissionReview request. Views point into the parsed request body.
struct AdmissionRequest {
  std::string_view uid;
  Operation operation = Operation::kCreate;
  std::string_view name;
  std::string_view ns;                           // request.namespace ("" for cluster-scoped kinds)
  const JsonValue* object = nullptr;             // always an object when a handler runs
  const JsonValue* old_object = nullptr;         // an object on UPDATE, else nullptr
  bool dry_run = false;                          // request.dryRun: no side effect (RB-2's write)
  const Settings* settings = &kDefaultSettings;  // the server's flags (settings.hpp), never null
};

// What a handler answers: field errors deny (code 403), warnings ride along either way, and a
// mutator's patch (already reset to the request's object) becomes `response.patch`. Errors and
// warnings are capped as they are reported, so a handler's answer is a few KB whatever it meets.
struct AdmissionResult {
  ErrorList errors;
  Warnings warnings;
  JsonPatch patch;
  // Every (rule, action) the review met, in the order first met: denied, warned or ratcheted
  // (strict_policy.hpp counts them; the metrics and the log read them).
  std::vector<RuleViolation> violations;
  // An answer of the handler's own instead of a verdict with field causes: a request it cannot
  // judge (a manifest that does not decode: 400, as upstream's decoder errors are), a denial with
  // a message of its own (RDP-1: 403, kForbiddenReason, upstream's admission.Denied; RB-2: 403,
  // QuotaExceeded) or a failure to judge (RB-2's status write, RIC-1 before its cache: 5xx).
  // 0: judged. `refused_reason`, when set, is the Status reason. The review is logged and
  // counted as denied either way (service.cpp).
  unsigned refused_code = 0;
  std::string refused_message;
  std::string_view refused_reason;
  void refuse(unsigned code, std::string message, std::string_view reason = {}) {
    refused_code = code;
    refused_message = std::move(message);
    refused_reason = reason;
  }
  // Ready for a review of `object` (its vectors keep their capacity).
  void reset(const JsonValue* object) {
    errors.clear();
    warnings.clear();
    patch.reset(object);
    violations.clear();
    refused_code = 0;
    refused_message.clear();
    refused_reason = {};
  }
};

// metav1.StatusReasonForbidden: the reason of every 403 denial (controller-runtime's Denied).
inline constexpr std::string_view kForbiddenReason = "Forbidden";

using Handler = void (*)(const AdmissionRequest&, AdmissionResult&);

}  // namespace kpw
