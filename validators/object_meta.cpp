// The ObjectMeta rules (validators/object_meta.hpp), in apimachinery's order
// (k8s.io/apimachinery/pkg/api/validation/objectmeta.go, ValidateObjectMetaAccessor and
// ValidateObjectMetaAccessorUpdate). Paths are precise where upstream names a list or a map
// (`metadata.ownerReferences[1].kind`, `metadata.finalizers[0]`, `metadata.labels[k]`), and a whole
// struct upstream prints with Go's %#v (pointer addresses and all) is shown as JSON
// (docs/compatibility.md, "MultiClusterService"). A value of the wrong JSON type is the schema's:
// skipped here. Every check is one pass over its list or map.
#include "validators/object_meta.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.hpp"
#include "util/names.hpp"
#include "util/seen_set.hpp"
#include "validators/common.hpp"

namespace kpw {
namespace {

// The kind's name function (NameIsDNSSubdomain, NameIsDNS1035Label); a prefix (generateName) with
// its trailing '-' masked, as maskTrailingDash does.
NameProblems name_problems(NameFormat format, std::string_view value, bool prefix,
                           std::string& masked) {
  if (prefix && value.size() > 1 && value.back() == '-') {
    masked.assign(value.substr(0, value.size() - 1));
    masked += 'a';
    value = masked;
  }
  return format == NameFormat::kDns1035Label ? check_dns1035_label(value)
                                             : check_dns1123_subdomain(value);
}

// --- K-M1: name and generateName ---

void check_names(const JsonValue* metadata, const ObjectMetaOptions& o, ErrorList& errors) {
  const FieldPath path = FieldPath::root("metadata");
  const std::string_view generate = string_or_empty(metadata, "generateName");
  const std::string_view name = string_or_empty(metadata, "name");
  std::string masked;
  if (!generate.empty()) {
    const FieldPath generate_path = path.child("generateName");
    for (std::string_view p : name_problems(o.name_format, generate, true, masked)) {
      errors.invalid(o.name_rule, generate_path, generate, p);
    }
  }
  const FieldPath name_path = path.child("name");
  if (name.empty()) {
    if (!(o.generate_name_suffices && !generate.empty())) {
      errors.required(rules::kKM1, name_path, "name or generateName is required");
    }
    return;
  }
  for (std::string_view p : name_problems(o.name_format, name, false, masked)) {
    errors.invalid(o.name_rule, name_path, name, p);
  }
}

// --- K-M5: namespace ---

void check_namespace(const JsonValue* metadata, NamespaceRule rule, ErrorList& errors) {
  const std::string_view ns = string_or_empty(metadata, "namespace");
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath path = metadata_path.child("namespace");
  if (rule == NamespaceRule::kForbidden) {
    if (!ns.empty()) errors.forbidden(rules::kKM5, path, "not allowed on this type");
    return;
  }
  if (ns.empty()) {
    if (rule == NamespaceRule::kRequired) errors.required(rules::kKM5, path, "");
    return;
  }
  for (std::string_view p : dns1123_label_problems(ns)) {
    errors.invalid(rules::kKM5, path, ns, p);
  }
}

// --- K-M6: generation ---

void check_generation(const JsonValue* metadata, ErrorList& errors) {
  const JsonValue* generation = member(metadata, "generation");
  if (generation == nullptr || !generation->IsInt64() || generation->GetInt64() >= 0) return;
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath path = metadata_path.child("generation");
  errors.invalid(rules::kKM6, path, static_cast<long long>(generation->GetInt64()),
                 "must be greater than or equal to 0");
}

// --- K-M7: ownerReferences ---

// schema.FromAPIVersionAndKind(apiVersion, kind).Version: "v1", "group/v1"; "" when the
// apiVersion has none or does not parse (more than one '/').
std::string_view version_of(std::string_view api_version) {
  const std::size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return api_version;
  if (api_version.find('/', slash + 1) != std::string_view::npos) return {};
  return api_version.substr(slash + 1);
}

void check_owner_references(const JsonValue* metadata, ErrorList& errors) {
  const JsonValue* refs = array_member(metadata, "ownerReferences");
  if (refs == nullptr) return;
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath list = metadata_path.child("ownerReferences");
  std::string first_controller;
  for (rapidjson::SizeType i = 0; i < refs->Size(); ++i) {
    const JsonValue& ref = (*refs)[i];
    if (!ref.IsObject()) continue;
    const FieldPath item = list.index(i);
    const std::string_view api_version = string_or_empty(&ref, "apiVersion");
    const std::string_view kind = string_or_empty(&ref, "kind");
    const std::string_view name = string_or_empty(&ref, "name");
    if (version_of(api_version).empty()) {
      const FieldPath path = item.child("apiVersion");
      errors.invalid(rules::kKM7, path, api_version, "version must not be empty");
    }
    for (std::string_view field : {"kind", "name", "uid"}) {
      const std::string_view value = string_or_empty(&ref, field);
      if (!value.empty()) continue;
      const FieldPath path = item.child(field);
      errors.invalid(rules::kKM7, path, value, "must not be empty");
    }
    if (api_version == "v1" && kind == "Event") {
      errors.invalid(rules::kKM7, item, ref, "/v1, Kind=Event is disallowed from being an owner");
    }
    if (!bool_member(&ref, "controller").value_or(false)) continue;
    std::string current(kind);
    current += '/';
    current += name;
    if (first_controller.empty()) {
      first_controller = std::move(current);
      continue;
    }
    std::string detail =
        "Only one reference can have Controller set to true. Found \"true\" in references for ";
    detail += first_controller;
    detail += " and ";
    detail += current;
    errors.invalid(rules::kKM7, list, *refs, detail);
  }
}

// --- K-M4: finalizers ---

void check_finalizers(const JsonValue* metadata, ErrorList& errors) {
  const JsonValue* finalizers = array_member(metadata, "finalizers");
  if (finalizers == nullptr) return;
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath list = metadata_path.child("finalizers");
  bool orphan = false;
  bool foreground = false;
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
    orphan = orphan || view(f) == "orphan";
    foreground = foreground || view(f) == "foregroundDeletion";
  }
  if (orphan && foreground) {
    errors.invalid(rules::kKM4, list, *finalizers,
                   "finalizer orphan and foregroundDeletion cannot be both set");
  }
}

// --- K-M8: managedFields ---

void check_managed_fields(const JsonValue* metadata, ErrorList& errors) {
  const JsonValue* entries = array_member(metadata, "managedFields");
  if (entries == nullptr) return;
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath list = metadata_path.child("managedFields");
  for (rapidjson::SizeType i = 0; i < entries->Size(); ++i) {
    const JsonValue& entry = (*entries)[i];
    if (!entry.IsObject()) continue;
    const FieldPath item = list.index(i);
    const std::string_view operation = string_or_empty(&entry, "operation");
    if (operation != "Apply" && operation != "Update") {
      const FieldPath path = item.child("operation");
      errors.invalid(rules::kKM8, path, operation, "must be `Apply` or `Update`");
    }
    const std::string_view fields_type = string_or_empty(&entry, "fieldsType");
    if (!fields_type.empty() && fields_type != "FieldsV1") {
      const FieldPath path = item.child("fieldsType");
      errors.invalid(rules::kKM8, path, fields_type, "must be `FieldsV1`");
    }
    if (string_or_empty(&entry, "manager").size() > 128) {
      const FieldPath path = item.child("manager");
      errors.too_long(rules::kKM8, path, "may not be more than 128 bytes");
    }
    if (string_or_empty(&entry, "subresource").size() > 256) {
      const FieldPath path = item.child("subresource");
      errors.too_long(rules::kKM8, path, "may not be more than 256 bytes");
    }
  }
}

// --- K-MU: the update rules ---

bool same(const JsonValue* a, const JsonValue* b) {
  const bool a_set = a != nullptr && !a->IsNull();
  const bool b_set = b != nullptr && !b->IsNull();
  if (!a_set || !b_set) return a_set == b_set;
  return *a == *b;
}

long long int_or_zero(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  return v != nullptr && v->IsInt64() ? v->GetInt64() : 0;
}

// ValidateNoNewFinalizers: the finalizers `now` holds that `before` does not, as Go's sorted
// set difference, in one Forbidden error (`[]string{"a", "b"}`, as Go's %#v prints it).
void check_no_new_finalizers(const JsonValue* now, const JsonValue* before, const FieldPath& path,
                             ErrorList& errors) {
  if (now == nullptr) return;
  SeenSet seen;
  std::size_t index = 0;
  if (before != nullptr) {
    for (const JsonValue& f : before->GetArray()) {
      if (f.IsString()) seen.record(view(f), index++);
    }
  }
  std::vector<std::string_view> added;
  for (const JsonValue& f : now->GetArray()) {
    if (f.IsString() && !seen.record(view(f), index++).repeated()) added.push_back(view(f));
  }
  if (added.empty()) return;
  std::sort(added.begin(), added.end());
  std::string detail =
      "no new finalizers can be added if the object is being deleted, found new finalizers "
      "[]string{";
  for (std::size_t i = 0; i < added.size(); ++i) {
    if (i > 0) detail += ", ";
    detail += '"';
    detail += added[i];
    detail += '"';
  }
  detail += '}';
  const FieldPath finalizers_path = path.child("finalizers");
  errors.forbidden(rules::kKMU4, finalizers_path, detail);
}

}  // namespace

void validate_object_meta(const JsonValue& object, const ObjectMetaOptions& options,
                          ErrorList& errors) {
  const JsonValue* metadata = object_member(&object, "metadata");
  const FieldPath path = FieldPath::root("metadata");
  check_names(metadata, options, errors);
  check_namespace(metadata, options.namespace_rule, errors);
  check_generation(metadata, errors);
  if (const JsonValue* labels = object_member(metadata, "labels")) {
    const FieldPath labels_path = path.child("labels");
    check_label_map(rules::kKM2, *labels, labels_path, errors, MapOrder::kDocument);
  }
  if (const JsonValue* annotations = object_member(metadata, "annotations")) {
    const FieldPath annotations_path = path.child("annotations");
    check_annotation_map(rules::kKM3, *annotations, annotations_path, errors, MapOrder::kDocument);
  }
  check_owner_references(metadata, errors);
  check_finalizers(metadata, errors);
  check_managed_fields(metadata, errors);
}

void validate_object_meta_update(const JsonValue& object, const JsonValue& old_object,
                                 ErrorList& errors) {
  const JsonValue* meta = object_member(&object, "metadata");
  const JsonValue* old = object_member(&old_object, "metadata");
  const FieldPath path = FieldPath::root("metadata");
  // K-MU4: while the object is being deleted, no new finalizer (the new ones, sorted).
  if (const JsonValue* deleting = member(old, "deletionTimestamp");
      deleting != nullptr && !deleting->IsNull()) {
    check_no_new_finalizers(array_member(meta, "finalizers"), array_member(old, "finalizers"), path,
                            errors);
  }
  // K-MU1
  if (string_or_empty(meta, "resourceVersion").empty()) {
    const FieldPath rv = path.child("resourceVersion");
    errors.invalid(rules::kKMU1, rv, std::string_view{}, "must be specified for an update");
  }
  // K-MU2
  const long long generation = int_or_zero(meta, "generation");
  if (generation < int_or_zero(old, "generation")) {
    const FieldPath generation_path = path.child("generation");
    errors.invalid(rules::kKMU2, generation_path, generation, "must not be decremented");
  }
  // K-MU3, in apimachinery's order; the new value shown as JSON (`null` when absent).
  for (std::string_view field : {"name", "namespace", "uid", "creationTimestamp",
                                 "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    const JsonValue* now = member(meta, field);
    if (same(now, member(old, field))) continue;
    const FieldPath field_path = path.child(field);
    if (now == nullptr || now->IsNull()) {
      errors.invalid_json(rules::kKMU3, field_path, "null", "field is immutable");
    } else {
      errors.invalid(rules::kKMU3, field_path, *now, "field is immutable");
    }
  }
}

}  // namespace kpw
