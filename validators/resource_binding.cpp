// ResourceBinding rules (docs/rules.md "ResourceBinding"), in upstream's order, each only when the
// one before passes (upstream denies at the first rule that fails). None is ratcheted.
//
// | rule | what denies                                                       | answer            |
// |------|-------------------------------------------------------------------|-------------------|
// | RB-1 | the dependencies annotation does not decode, as Go's encoding/json | 403, path         |
// |      | decodes it, into []DependentObjectReference (`null` does)         | metadata.annota-  |
// |      |                                                                   | tions.<key>       |
// | RB-2 | FederatedQuotaEnforcement on: the change in scheduled usage would | 403 QuotaExceeded |
// |      | exceed a FederatedResourceQuota of the namespace (when none does, |                   |
// |      | the quotas it touches record it: resource_binding_quota.hpp)      |                   |
// | RB-3 | MultiplePodTemplatesScheduling on: a component name empty, or     | 403, path         |
// |      | repeating an earlier one (every repeat)                           | spec.components[i]|
// |      |                                                                   | .name             |
#include "validators/resource_binding.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "json/go_decode.hpp"
#include "util/seen_set.hpp"
#include "validators/resource_binding_quota.hpp"

namespace kpw {
namespace {

using go_json::Field;
using go_json::Kind;
using go_json::Type;

// The Go types RB-1 decodes into: []DependentObjectReference (work/v1alpha2) and the
// metav1.LabelSelector it holds.
constexpr Type kString{.kind = Kind::kString};
constexpr Type kStrings{.kind = Kind::kSlice, .element = &kString};
constexpr Type kStringMap{.kind = Kind::kMap, .element = &kString};
constexpr auto kRequirementFields = std::to_array<Field>({
    {"key", &kString},
    {"operator", &kString},
    {"values", &kStrings},
});
constexpr Type kRequirement{.kind = Kind::kStruct, .fields = kRequirementFields};
constexpr Type kRequirements{.kind = Kind::kSlice, .element = &kRequirement};
constexpr auto kLabelSelectorFields = std::to_array<Field>({
    {"matchLabels", &kStringMap},
    {"matchExpressions", &kRequirements},
});
constexpr Type kLabelSelector{.kind = Kind::kStruct, .fields = kLabelSelectorFields};
constexpr auto kReferenceFields = std::to_array<Field>({
    {"apiVersion", &kString},
    {"kind", &kString},
    {"namespace", &kString},
    {"name", &kString},
    {"labelSelector", &kLabelSelector},
});
constexpr Type kReference{.kind = Kind::kStruct, .fields = kReferenceFields};
constexpr Type kDependencies{.kind = Kind::kSlice, .element = &kReference};
static_assert(go_json::depth(kDependencies) <= go_json::kMaxTypedDepth);

// RB-1. Upstream's path is a dotted child (`metadata.annotations.resourcebinding.karmada.io/
// dependencies`), kept so its message is upstream's byte for byte (docs/compatibility.md). A
// `null` value decodes into the annotation map as "" (which does not decode). False when it
// reported.
bool check_dependencies(const JsonValue& object, ErrorList& errors) {
  const JsonValue* annotations = object_member(object_member(&object, "metadata"), "annotations");
  const JsonValue* value = annotations == nullptr
                               ? nullptr
                               : find_member(*annotations, karmada::kBindingDependenciesAnnotation);
  if (value == nullptr) return true;
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath map = metadata.child("annotations");
  const FieldPath path = map.child(karmada::kBindingDependenciesAnnotation);
  constexpr std::string_view kDetail = "annotation value must be a valid JSON";
  if (value->IsNull()) {
    errors.invalid(rules::kRB1, path, std::string_view(), kDetail);
    return false;
  }
  if (!value->IsString()) {  // upstream cannot decode the object at all (code 400)
    errors.invalid(rules::kRB1, path, *value, "must be of type string");
    return false;
  }
  if (go_json::decodes_into(view(*value), kDependencies)) return true;
  errors.invalid(rules::kRB1, path, view(*value), kDetail);
  return false;
}

// RB-3. A `null` component, or one without a name, has the name "" (Go's zero value). A value of
// another JSON type is Invalid at its path (upstream cannot decode the object: code 400).
void check_component_names(const JsonValue& object, ErrorList& errors) {
  const JsonValue* spec = member(&object, "spec");
  const FieldPath spec_path = FieldPath::root("spec");
  if (spec != nullptr && !spec->IsObject()) {
    errors.invalid(rules::kRB3, spec_path, *spec, "must be of type object");
    return;
  }
  const JsonValue* components = member(spec, "components");
  if (components == nullptr) return;
  const FieldPath list = spec_path.child("components");
  if (!components->IsArray()) {
    errors.invalid(rules::kRB3, list, *components, "must be of type array");
    return;
  }
  SeenSet seen;
  for (rapidjson::SizeType i = 0; i < components->Size(); ++i) {
    const JsonValue& component = (*components)[i];
    const FieldPath item = list.index(i);
    if (!component.IsObject() && !component.IsNull()) {
      errors.invalid(rules::kRB3, item, component, "must be of type object");
      continue;
    }
    const FieldPath name_path = item.child("name");
    const JsonValue* name = member(&component, "name");
    if (name != nullptr && !name->IsString()) {
      errors.invalid(rules::kRB3, name_path, *name, "must be of type string");
      continue;
    }
    const std::string_view text = name == nullptr ? std::string_view() : view(*name);
    if (text.empty()) {
      errors.invalid(rules::kRB3, name_path, text, "component names must be non-empty");
    } else if (seen.record(text, i).repeated()) {
      errors.invalid(rules::kRB3, name_path, text, "component names must be unique");
    }
  }
}

// RB-2, upstream's steps (validators/resource_binding_quota.hpp): skip a CREATE not yet
// scheduled and an UPDATE without a quota-relevant change; charge the change in usage to the
// namespace's quotas. False when it answered (denied or refused).
bool charge_quotas(const AdmissionRequest& request, QuotaEnforcement& quota,
                   AdmissionResult& result) {
  const JsonValue& object = *request.object;
  const JsonValue* metadata = object_member(&object, "metadata");
  const std::string_view ns =
      request.ns.empty() ? string_or_empty(metadata, "namespace") : request.ns;
  const bool update = request.operation == Operation::kUpdate;
  if (!update && array_size(object_member(&object, "spec"), "clusters") == 0) return true;
  if (update && !quota_relevant_change(*request.old_object, object)) return true;
  // No quota in the namespace: allowed whatever the usage (upstream computes it first, to the
  // same end).
  if (!quota.may_charge(ns)) return true;
  // A review thread's lists keep their capacity from review to review.
  thread_local ResourceAmounts now, before, delta;
  before.clear();
  std::optional<std::string> problem = binding_usage(object, now);
  if (!problem && update) problem = binding_usage(*request.old_object, before);
  if (problem) {
    result.refuse(400, "cannot decode the ResourceBinding: " + *problem);
    return false;
  }
  if (!usage_delta(now, before, delta)) {
    result.refuse(500, "the change in usage is beyond the range of a quantity");
    return false;
  }
  if (delta.empty()) return true;
  QuotaCharge charge;
  charge.ns = ns;
  charge.binding = string_or_empty(metadata, "name");
  if (charge.binding.empty()) charge.binding = request.name;
  charge.delta = &delta;
  charge.dry_run = request.dry_run;
  charge.requests_limits = request.settings->strict_rules;
  QuotaOutcome outcome = quota.charge(charge);
  if (!outcome.warning.empty()) result.warnings.add(std::move(outcome.warning));
  switch (outcome.verdict) {
    case QuotaOutcome::Verdict::kAllowed:
      // D-Q2 under --strict-rules=warn: admitted, and said.
      if (!outcome.d_q2_warning.empty()) {
        result.warnings.add("D-Q2: " + outcome.d_q2_warning +
                            " (admitted under --strict-rules=warn; upstream does not enforce "
                            "requests.<name> limits)");
        result.violations.push_back(RuleViolation{rules::kDQ2, RuleAction::kWarn, 1});
      }
      return true;
    case QuotaOutcome::Verdict::kDenied:
      result.violations.push_back(RuleViolation{
          outcome.d_q2_denied ? rules::kDQ2 : rules::kRB2, RuleAction::kDeny, 1});
      result.refuse(outcome.code, std::move(outcome.message), karmada::kQuotaExceededReason);
      return false;
    case QuotaOutcome::Verdict::kFailed:
      result.refuse(outcome.code, std::move(outcome.message));
      return false;
  }
  return true;
}

}  // namespace

void validate_resource_binding(const AdmissionRequest& request, AdmissionResult& result) {
  if (!check_dependencies(*request.object, result.errors)) return;
  if (request.settings->quota != nullptr &&
      !charge_quotas(request, *request.settings->quota, result)) {
    return;
  }
  if (request.settings->multiple_pod_templates_scheduling) {
    check_component_names(*request.object, result.errors);
  }
}

}  // namespace kpw
