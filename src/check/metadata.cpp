#include "check/metadata.hpp"

#include <array>
#include <string_view>

#include "api/object.hpp"
#include "util/names.hpp"
#include "validators/common.hpp"

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
constexpr std::array<std::string_view, 5> kTopLevelFields = {"apiVersion", "kind", "metadata",
                                                             "spec", "status"};

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// K-M1: a name, or a generateName the API server completes; either a DNS-1123 subdomain.
void check_name(const JsonValue* metadata, const FieldPath& path, ErrorList& errors) {
  const std::string_view name = string_or_empty(metadata, "name");
  const std::string_view generate = string_or_empty(metadata, "generateName");
  if (name.empty() && generate.empty()) {
    const FieldPath name_path = path.child("name");
    errors.required(rules::kKM1, name_path, "name or generateName is required");
    return;
  }
  if (!name.empty()) {
    const FieldPath name_path = path.child("name");
    for (std::string_view p : check_dns1123_subdomain(name)) {
      errors.invalid(rules::kKM1, name_path, name, p);
    }
  } else if (generate.back() != '-' && !check_dns1123_subdomain(generate).ok()) {
    // The API server appends 5 random characters: a prefix ending in '-' is fine as such.
    const FieldPath generate_path = path.child("generateName");
    for (std::string_view p : check_dns1123_subdomain(generate)) {
      errors.invalid(rules::kKM1, generate_path, generate, p);
    }
  }
}

// K-M4: finalizers are qualified names.
void check_finalizers(const JsonValue* metadata, const FieldPath& path, ErrorList& errors) {
  const JsonValue* finalizers = array_member(metadata, "finalizers");
  if (finalizers == nullptr) return;
  const FieldPath list = path.child("finalizers");
  for (rapidjson::SizeType i = 0; i < finalizers->Size(); ++i) {
    const JsonValue& f = (*finalizers)[i];
    const FieldPath item = list.index(i);
    if (!f.IsString()) {
      errors.invalid(rules::kKM4, item, f, "must be of type string");
      continue;
    }
    for (std::string_view p : check_qualified_name(view(f))) {
      errors.invalid(rules::kKM4, item, view(f), p);
    }
  }
}

}  // namespace

void check_object_meta(const JsonValue& object, ErrorList& errors) {
  const FieldPath path = FieldPath::root("metadata");
  const JsonValue* metadata = object_member(&object, "metadata");
  check_name(metadata, path, errors);
  // K-M2, K-M3: the shared label and annotation map checks (validators/common.hpp), in the
  // order the object lists its entries.
  if (const JsonValue* labels = object_member(metadata, "labels")) {
    check_label_map(rules::kKM2, *labels, path.child("labels"), errors, MapOrder::kDocument);
  }
  if (const JsonValue* annotations = object_member(metadata, "annotations")) {
    check_annotation_map(rules::kKM3, *annotations, path.child("annotations"), errors,
                         MapOrder::kDocument);
  }
  check_finalizers(metadata, path, errors);
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

void check_unknown_fields(const JsonValue& object, UnknownFieldWalk spec_fields,
                          ErrorList& errors) {
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    const std::string_view name = view(it->name);
    if (listed(kTopLevelFields, name)) continue;
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
