#include "check/metadata.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <string_view>

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "validators/object_meta.hpp"

namespace kpw::check {
namespace {

// ObjectMeta's fields (k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta, JSON names).
constexpr std::array<std::string_view, 16> kObjectMetaFields = {"name",
                                                                "generateName",
                                                                "namespace",
                                                                "selfLink",
                                                                "uid",
                                                                "resourceVersion",
                                                                "generation",
                                                                "creationTimestamp",
                                                                "deletionTimestamp",
                                                                "deletionGracePeriodSeconds",
                                                                "labels",
                                                                "annotations",
                                                                "ownerReferences",
                                                                "finalizers",
                                                                "managedFields",
                                                                "clusterName"};
constexpr std::array<std::string_view, 3> kObjectFields = {"apiVersion", "kind", "metadata"};
constexpr std::array<std::string_view, 2> kSpecAndStatus = {"spec", "status"};

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// An enum of a CRD's schema: the field (from the object's root; "[]" is each item of the list
// before it) and the values the CRD lists, in its order, which the API server's message keeps.
struct CrdEnum {
  std::string_view api_version;  // the CRD version whose schema has it
  std::string_view kind;
  std::span<const std::string_view> path;
  std::span<const std::string_view> values;
};

// ../shared/envtest/crds/bases: policy.karmada.io_{cluster,}propagationpolicies.yaml (v1alpha1)
// and work.karmada.io_{cluster,}resourcebindings.yaml (v1alpha2; v1alpha1 has no such field).
// Cluster failover has no Never.
constexpr std::array<std::string_view, 3> kPurgeModes = {"Directly", "Gracefully", "Never"};
constexpr std::array<std::string_view, 2> kClusterPurgeModes = {"Directly", "Gracefully"};
constexpr std::array<std::string_view, 4> kApplicationPurgeMode = {"spec", "failover",
                                                                   "application", "purgeMode"};
constexpr std::array<std::string_view, 4> kClusterPurgeMode = {"spec", "failover", "cluster",
                                                               "purgeMode"};
constexpr std::array<std::string_view, 4> kEvictionPurgeMode = {"spec", "gracefulEvictionTasks",
                                                                "[]", "purgeMode"};
constexpr std::string_view kPolicyV1alpha1 = "policy.karmada.io/v1alpha1";
constexpr std::string_view kWorkV1alpha2 = "work.karmada.io/v1alpha2";
constexpr std::array<CrdEnum, 10> kCrdEnums = {{
    {kPolicyV1alpha1, karmada::kPropagationPolicy, kApplicationPurgeMode, kPurgeModes},
    {kPolicyV1alpha1, karmada::kPropagationPolicy, kClusterPurgeMode, kClusterPurgeModes},
    {kPolicyV1alpha1, karmada::kClusterPropagationPolicy, kApplicationPurgeMode, kPurgeModes},
    {kPolicyV1alpha1, karmada::kClusterPropagationPolicy, kClusterPurgeMode, kClusterPurgeModes},
    {kWorkV1alpha2, karmada::kResourceBinding, kApplicationPurgeMode, kPurgeModes},
    {kWorkV1alpha2, karmada::kResourceBinding, kClusterPurgeMode, kClusterPurgeModes},
    {kWorkV1alpha2, karmada::kResourceBinding, kEvictionPurgeMode, kPurgeModes},
    {kWorkV1alpha2, karmada::kClusterResourceBinding, kApplicationPurgeMode, kPurgeModes},
    {kWorkV1alpha2, karmada::kClusterResourceBinding, kClusterPurgeMode, kClusterPurgeModes},
    {kWorkV1alpha2, karmada::kClusterResourceBinding, kEvictionPurgeMode, kPurgeModes},
}};

// The field `path` leads to from `value` (at `at`), every item of a list for "[]". A value of
// another type than the schema's is left to the webhook's own schema rules (SC-1).
void check_enum(const JsonValue& value, std::span<const std::string_view> path, const FieldPath& at,
                std::span<const std::string_view> values, ErrorList& errors) {
  if (path.empty()) {
    if (!value.IsString()) return;
    const std::string_view v = kpw::view(value);
    if (std::find(values.begin(), values.end(), v) == values.end()) {
      errors.not_supported(rules::kKS1, at, v, values);
    }
    return;
  }
  if (path.front() == "[]") {
    if (!value.IsArray()) return;
    for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
      const FieldPath item = at.index(i);
      check_enum(value[i], path.subspan(1), item, values, errors);
    }
    return;
  }
  const JsonValue* child = member(&value, path.front());
  if (child == nullptr) return;
  const FieldPath child_path = at.child(path.front());
  check_enum(*child, path.subspan(1), child_path, values, errors);
}

}  // namespace

void check_object_meta(const JsonValue& object, ErrorList& errors) {
  // The ObjectMeta library (validators/object_meta.hpp), as a file needs it: the namespace may
  // be left to kubectl, and a generateName alone is a name the API server completes.
  ObjectMetaOptions options;
  options.namespace_rule = NamespaceRule::kOptional;
  options.generate_name_suffices = true;
  validate_object_meta(object, options, errors);
}

void prune_nulls(JsonValue& value) {
  if (value.IsArray()) {
    for (JsonValue& item : value.GetArray()) prune_nulls(item);
    return;
  }
  if (!value.IsObject()) return;
  // Compacting in one pass (erasing one by one would move the tail each time).
  auto out = value.MemberBegin();
  for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
    if (it->value.IsNull()) continue;
    prune_nulls(it->value);
    if (out != it) {
      out->name.Swap(it->name);
      out->value.Swap(it->value);
    }
    ++out;
  }
  // (An object without members has no member array: EraseMember of an empty range there would
  // dereference a null pointer.)
  if (out != value.MemberEnd()) value.EraseMember(out, value.MemberEnd());
}

void check_unknown_fields(const JsonValue& object, const Kind& kind, ErrorList& errors) {
  const UnknownFieldWalk spec_fields = kind.spec_fields;
  const std::span<const std::string_view> top =
      kind.top_level_fields.empty() ? std::span<const std::string_view>(kSpecAndStatus)
                                    : kind.top_level_fields;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    const std::string_view name = view(it->name);
    if (listed(kObjectFields, name) || std::find(top.begin(), top.end(), name) != top.end()) {
      continue;
    }
    const FieldPath path = FieldPath::root(name);
    errors.forbidden(rules::kKU1, path, "unknown field: the schema does not declare it");
  }
  if (const JsonValue* metadata = object_member(&object, "metadata")) {
    const FieldPath path = FieldPath::root("metadata");
    for (auto it = metadata->MemberBegin(); it != metadata->MemberEnd(); ++it) {
      const std::string_view name = view(it->name);
      if (listed(kObjectMetaFields, name)) continue;
      const FieldPath field = path.child(name);
      errors.forbidden(rules::kKU1, field, "unknown field: the schema does not declare it");
    }
  }
  if (spec_fields == nullptr) return;
  if (const JsonValue* spec = object_member(&object, "spec")) {
    const FieldPath path = FieldPath::root("spec");
    spec_fields(*spec, path, errors);
  }
}

void check_crd_enums(const JsonValue& object, std::string_view api_version, std::string_view kind,
                     ErrorList& errors) {
  for (const CrdEnum& e : kCrdEnums) {
    if (e.api_version != api_version || e.kind != kind) continue;
    const JsonValue* first = member(&object, e.path.front());
    if (first == nullptr) continue;
    const FieldPath root = FieldPath::root(e.path.front());
    check_enum(*first, e.path.subspan(1), root, e.values, errors);
  }
}

}  // namespace kpw::check
