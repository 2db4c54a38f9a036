// ResourceBinding rules (docs/rules.md "ResourceBinding"), in upstream's order: RB-1, and when it
// passes, RB-3 under its gate (upstream denies at the first rule that fails). Both judge the new
// object only, on CREATE and UPDATE alike, and are never ratcheted.
//
// | rule | what denies                                                        | path |
// |------|--------------------------------------------------------------------|------------------------|
// | RB-1 | the dependencies annotation does not decode, as Go's encoding/json |
// metadata.annotations.  | |      | decodes it, into []DependentObjectReference (`null` does) |
// <key> (upstream's)     | | RB-3 | MultiplePodTemplatesScheduling on: a component name empty, or
// | spec.components[i].name| |      | repeating an earlier one (every repeat) | |
#include "validators/resource_binding.hpp"

#include <array>
#include <string_view>

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "json/go_decode.hpp"
#include "util/seen_set.hpp"

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

}  // namespace

void validate_resource_binding(const AdmissionRequest& request, AdmissionResult& result) {
  if (!check_dependencies(*request.object, result.errors)) return;
  if (request.settings->multiple_pod_templates_scheduling) {
    check_component_names(*request.object, result.errors);
  }
}

}  // namespace kpw
