#include "check/metadata.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <string_view>

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

}  // namespace kpw::check
