// RDP-1 (docs/rules.md "Deletion protection"). The verdict is upstream's admission.Denied: its
// message alone, no field causes, code 403 and reason Forbidden; it goes out through
// AdmissionResult::refuse, which the review log and the metrics count as every denial.
#include "validators/deletion_protection.hpp"

#include <string>

#include "api/karmada.hpp"
#include "api/object.hpp"

namespace kpw {

void validate_deletion_protection(const AdmissionRequest& request, AdmissionResult& result) {
  // Upstream decodes oldObject as unstructured and reads the labels leniently: metadata or
  // labels of another type, or a value that is not a string, protect nothing.
  const JsonValue* labels = object_member(object_member(request.old_object, "metadata"), "labels");
  if (string_or_empty(labels, karmada::kDeletionProtectedLabel) ==
      karmada::kDeletionProtectedAlways) {
    result.violations.push_back(RuleViolation{rules::kRDP1, RuleAction::kDeny, 1});
    result.refuse(403, std::string(kDeletionProtectedMessage), kForbiddenReason);
  }
}

}  // namespace kpw
