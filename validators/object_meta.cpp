#include "validators/object_meta.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object.hpp"
#include "util/go_text.hpp"
#include "util/names.hpp"
#include "util/seen_set.hpp"
#include "validators/common.hpp"

namespace kpw {
namespace {

// The members of `metadata` read as apimachinery reads them; a member of the wrong JSON type is
// the schema's concern (upstream's decoder would refuse the object): such a member is skipped.
bool wrong_type_string(const JsonValue* metadata, std::string_view key) {
  const JsonValue* v = member(metadata, key);
  return v != nullptr && !v->IsString();
}

NameProblems check_name(NameFormat format, std::string_view name) {
  return format == NameFormat::kDns1035Label ? check_dns1035_label(name)
                                             : check_dns1123_subdomain(name);
}

// apimachinery's maskTrailingDash: a generateName ending in '-' (and longer than one byte) is
// checked with its last two bytes replaced by "a" (`gen-` as `gea`, `ab.-` as `aba`), as upstream
// does: the random suffix stands in for the dash.
std::string masked_prefix(std::string_view generate_name) {
  if (generate_name.size() > 1 && generate_name.back() == '-') {
    std::string masked(generate_name.substr(0, generate_name.size() - 2));
    masked += 'a';
    return masked;
  }
  return std::string(generate_name);
}

// K-M1, K-M5.
void check_names(const JsonValue* metadata, const ObjectMetaOptions& options, const FieldPath& path,
                 ErrorList& errors) {
  const std::string_view generate = string_or_empty(metadata, "generateName");
  if (!generate.empty()) {
    const FieldPath generate_path = path.child("generateName");
    for (std::string_view p : check_name(options.name_format, masked_prefix(generate))) {
      errors.invalid(options.name_rule, generate_path, generate, p);
    }
  }
  if (!wrong_type_string(metadata, "name")) {
    const std::string_view name = string_or_empty(metadata, "name");
    const FieldPath name_path = path.child("name");
    if (name.empty()) {
      if (!(options.generate_name_suffices && !generate.empty())) {
        errors.required(options.name_rule, name_path, "name or generateName is required");
      }
    } else {
      for (std::string_view p : check_name(options.name_format, name)) {
        errors.invalid(options.name_rule, name_path, name, p);
      }
    }
  }
  if (wrong_type_string(metadata, "namespace")) return;
  const std::string_view ns = string_or_empty(metadata, "namespace");
  const FieldPath ns_path = path.child("namespace");
  switch (options.namespace_rule) {
    case NamespaceRule::kRequired:
      if (ns.empty()) {
        errors.required(rules::kKM5, ns_path, "");
        return;
      }
      break;
    case NamespaceRule::kOptional:
      if (ns.empty()) return;
      break;
    case NamespaceRule::kForbidden:
      if (!ns.empty()) errors.forbidden(rules::kKM5, ns_path, "not allowed on this type");
      return;
  }
  for (std::string_view p : check_dns1123_label(ns)) errors.invalid(rules::kKM5, ns_path, ns, p);
}

// An owner reference as Go's encoding/json writes a metav1.OwnerReference (field order, Go's
// HTML escaping, the two optional booleans only when set): what upstream echoes as the value.
void append_owner_reference(std::string& out, const JsonValue& ref) {
  out += "{\"apiVersion\":";
  append_go_json_string(out, string_or_empty(&ref, "apiVersion"));
  out += ",\"kind\":";
  append_go_json_string(out, string_or_empty(&ref, "kind"));
  out += ",\"name\":";
  append_go_json_string(out, string_or_empty(&ref, "name"));
  out += ",\"uid\":";
  append_go_json_string(out, string_or_empty(&ref, "uid"));
  if (const std::optional<bool> c = bool_member(&ref, "controller")) {
    out += *c ? ",\"controller\":true" : ",\"controller\":false";
  }
  if (const std::optional<bool> b = bool_member(&ref, "blockOwnerDeletion")) {
    out += *b ? ",\"blockOwnerDeletion\":true" : ",\"blockOwnerDeletion\":false";
  }
  out += '}';
}

void append_owner_references(std::string& out, const JsonValue& refs) {
  out += '[';
  for (rapidjson::SizeType i = 0; i < refs.Size(); ++i) {
    if (i > 0) out += ',';
    if (refs[i].IsObject()) {
      append_owner_reference(out, refs[i]);
    } else {
      out += "{\"apiVersion\":\"\",\"kind\":\"\",\"name\":\"\",\"uid\":\"\"}";
    }
  }
  out += ']';
}

// schema.ParseGroupVersion's version: "" for "", "/", "group/" and anything with two slashes
// (a parse error, which FromAPIVersionAndKind reads as an empty GroupVersion).
struct GroupVersion {
  std::string_view group;
  std::string_view version;
};
GroupVersion parse_group_version(std::string_view api_version) {
  const std::size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return {{}, api_version};
  if (api_version.find('/', slash + 1) != std::string_view::npos) return {};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

// K-M7 (apimachinery ValidateOwnerReferences): one pass; the controllers' error names the first
// controller and each later one, as upstream does.
void check_owner_references(const JsonValue* metadata, const FieldPath& path, ErrorList& errors) {
  const JsonValue* refs = array_member(metadata, "ownerReferences");
  if (refs == nullptr) return;
  const FieldPath list = path.child("ownerReferences");
  std::string first_controller;  // "Kind/Name", each cut as an echoed text
  bool have_controller = false;
  std::string rendered_list;  // the list as upstream echoes it, rendered once when needed
  std::string text;
  for (rapidjson::SizeType i = 0; i < refs->Size(); ++i) {
    const JsonValue& ref = (*refs)[i];
    if (!ref.IsObject()) continue;
    const FieldPath item = list.index(i);
    const std::string_view api_version = string_or_empty(&ref, "apiVersion");
    const std::string_view kind = string_or_empty(&ref, "kind");
    const GroupVersion gv = parse_group_version(api_version);
    if (gv.version.empty()) {
      const FieldPath p = item.child("apiVersion");
      errors.invalid(rules::kKM7, p, api_version, "version must not be empty");
    }
    if (kind.empty()) errors.invalid(rules::kKM7, item.child("kind"), kind, "must not be empty");
    const std::string_view name = string_or_empty(&ref, "name");
    if (name.empty()) errors.invalid(rules::kKM7, item.child("name"), name, "must not be empty");
    const std::string_view uid = string_or_empty(&ref, "uid");
    if (uid.empty()) errors.invalid(rules::kKM7, item.child("uid"), uid, "must not be empty");
    // BannedOwners: the core group's v1 Event (`/v1` is the core group too).
    if (gv.group.empty() && gv.version == "v1" && kind == "Event") {
      text.clear();
      append_owner_reference(text, ref);
      errors.invalid_json(rules::kKM7, item, text,
                          "/v1, Kind=Event is disallowed from being an owner");
    }
    if (bool_member(&ref, "controller").value_or(false)) {
      std::string current;
      append_echoed_text(current, kind);
      current += '/';
      append_echoed_text(current, name);
      if (!have_controller) {
        have_controller = true;
        first_controller = std::move(current);
        continue;
      }
      if (rendered_list.empty()) append_owner_references(rendered_list, *refs);
      text.assign(
          "Only one reference can have Controller set to true. Found \"true\" in references for ");
      text += first_controller;
      text += " and ";
      text += current;
      errors.invalid_json(rules::kKM7, list, rendered_list, text);
    }
  }
}

// K-M4 (apimachinery ValidateFinalizers): each a qualified name, worded as upstream's binary
// words it (IsLabelKey's text for more than one '/'); orphan and foregroundDeletion not both.
void check_finalizers(const JsonValue* metadata, const FieldPath& path, ErrorList& errors) {
  const JsonValue* finalizers = array_member(metadata, "finalizers");
  if (finalizers == nullptr) return;
  const FieldPath list = path.child("finalizers");
  bool orphan = false;
  bool foreground = false;
  for (rapidjson::SizeType i = 0; i < finalizers->Size(); ++i) {
    const JsonValue& f = (*finalizers)[i];
    const FieldPath item = list.index(i);
    if (!f.IsString()) {
      errors.invalid(rules::kKM4, item, f, "must be of type string");
      continue;
    }
    const std::string_view name = view(f);
    for (std::string_view p : check_qualified_name(name)) errors.invalid(rules::kKM4, item, name, p);
    orphan = orphan || name == "orphan";
    foreground = foreground || name == "foregroundDeletion";
  }
  if (orphan && foreground) {
    std::string rendered;
    append_compact_json(rendered, *finalizers, true);
    errors.invalid_json(rules::kKM4, list, rendered,
                        "finalizer orphan and foregroundDeletion cannot be both set");
  }
}

// K-M8, the manager (apimachinery ValidateFieldManager): at most 128 bytes, every rune printable;
// Go's %#U (`U+0009`, the rune itself after it only when printable: never here) and the byte
// position.
void check_manager(std::string_view manager, const FieldPath& path, ErrorList& errors) {
  if (manager.size() > 128) errors.too_long(rules::kKM8, path, "may not be more than 128 bytes");
  std::string detail;
  for (std::size_t i = 0; i < manager.size();) {
    const Rune r = decode_rune(manager, i);
    if (!is_print(r.value)) {
      detail.assign("invalid character U+");
      append_hex(detail, r.value, r.value > 0xFFFF ? (r.value > 0xFFFFF ? 6 : 5) : 4, true);
      detail += " (at position ";
      char digits[24];
      const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, i);
      detail.append(digits, end);
      detail += ')';
      errors.invalid(rules::kKM8, path, manager, detail);
    }
    i += r.size;
  }
}

// K-M8 (apimachinery ValidateManagedFields).
void check_managed_fields(const JsonValue* metadata, const FieldPath& path, ErrorList& errors) {
  const JsonValue* entries = array_member(metadata, "managedFields");
  if (entries == nullptr) return;
  const FieldPath list = path.child("managedFields");
  for (rapidjson::SizeType i = 0; i < entries->Size(); ++i) {
    const JsonValue& entry = (*entries)[i];
    if (!entry.IsObject()) continue;
    const FieldPath item = list.index(i);
    if (!wrong_type_string(&entry, "operation")) {
      const std::string_view operation = string_or_empty(&entry, "operation");
      if (operation != "Apply" && operation != "Update") {
        errors.invalid(rules::kKM8, item.child("operation"), operation,
                       "must be `Apply` or `Update`");
      }
    }
    const std::string_view fields_type = string_or_empty(&entry, "fieldsType");
    if (!fields_type.empty() && fields_type != "FieldsV1") {
      errors.invalid(rules::kKM8, item.child("fieldsType"), fields_type, "must be `FieldsV1`");
    }
    check_manager(string_or_empty(&entry, "manager"), item.child("manager"), errors);
    if (string_or_empty(&entry, "subresource").size() > 256) {
      errors.too_long(rules::kKM8, item.child("subresource"), "may not be more than 256 bytes");
    }
  }
}

}  // namespace

void validate_object_meta(const JsonValue& object, const ObjectMetaOptions& options,
                          ErrorList& errors) {
  const FieldPath path = FieldPath::root("metadata");
  const JsonValue* metadata = object_member(&object, "metadata");
  check_names(metadata, options, path, errors);
  // K-M6 (ValidateNonnegativeField).
  if (const std::optional<std::int64_t> generation = int_member(metadata, "generation")) {
    if (*generation < 0) {
      errors.invalid(rules::kKM6, path.child("generation"), static_cast<long long>(*generation),
                     "must be greater than or equal to 0");
    }
  }
  // K-M2, K-M3: the shared map checks (validators/common.hpp), which name the entry
  // (`metadata.labels[Bad Key]`) where upstream names the map (docs/rules.md, "ObjectMeta").
  if (const JsonValue* labels = object_member(metadata, "labels")) {
    check_label_map(rules::kKM2, *labels, path.child("labels"), errors, MapOrder::kDocument);
  }
  if (const JsonValue* annotations = object_member(metadata, "annotations")) {
    check_annotation_map(rules::kKM3, *annotations, path.child("annotations"), errors,
                         MapOrder::kDocument);
  }
  check_owner_references(metadata, path, errors);
  check_finalizers(metadata, path, errors);
  check_managed_fields(metadata, path, errors);
}

namespace {

// K-MU4 (ValidateNoNewFinalizers): the new finalizers the old list lacks, sorted and each once
// (sets.List), as Go's %#v prints a []string; cut as an echoed text when long.
void check_no_new_finalizers(const JsonValue* metadata, const JsonValue* old_metadata,
                             const FieldPath& path, ErrorList& errors) {
  const JsonValue* finalizers = array_member(metadata, "finalizers");
  if (finalizers == nullptr || finalizers->Empty()) return;
  SeenSet seen;
  std::size_t n = 0;
  if (const JsonValue* old = array_member(old_metadata, "finalizers")) {
    for (const JsonValue& f : old->GetArray()) {
      if (f.IsString()) seen.record(view(f), n++);
    }
  }
  const std::size_t old_count = n;
  std::vector<std::string_view> extra;
  for (const JsonValue& f : finalizers->GetArray()) {
    if (!f.IsString()) continue;
    const SeenSet::Seen s = seen.record(view(f), n++);
    if (s.first >= old_count && !s.repeated()) extra.push_back(view(f));
  }
  if (extra.empty()) return;
  std::sort(extra.begin(), extra.end());
  std::string list = "[]string{";
  for (std::size_t i = 0; i < extra.size(); ++i) {
    if (i > 0) list += ", ";
    append_go_quoted(list, extra[i]);
  }
  list += '}';
  std::string detail =
      "no new finalizers can be added if the object is being deleted, found new finalizers ";
  append_echoed_text(detail, list);
  errors.forbidden(rules::kKMU4, path.child("finalizers"), detail);
}

// K-MU3 (ValidateImmutableField) for a string field: Go's zero value "" when absent.
void check_immutable_string(const JsonValue* metadata, const JsonValue* old_metadata,
                            std::string_view key, const FieldPath& path, ErrorList& errors) {
  if (wrong_type_string(metadata, key) || wrong_type_string(old_metadata, key)) return;
  const std::string_view now = string_or_empty(metadata, key);
  if (now == string_or_empty(old_metadata, key)) return;
  errors.invalid(rules::kKMU3, path.child(key), now, "field is immutable");
}

// The same for a timestamp or a number: compared as JSON (null as absent); an absent new value
// is echoed as `null`, as upstream echoes a nil pointer or a zero time.
void check_immutable_value(const JsonValue* metadata, const JsonValue* old_metadata,
                           std::string_view key, const FieldPath& path, ErrorList& errors) {
  const JsonValue* now = member(metadata, key);
  const JsonValue* before = member(old_metadata, key);
  if (same_json(now, before)) return;
  static const JsonValue kNull;
  errors.invalid(rules::kKMU3, path.child(key), now != nullptr ? *now : kNull,
                 "field is immutable");
}

}  // namespace

void validate_object_meta_update(const JsonValue& object, const JsonValue& old_object,
                                 ErrorList& errors) {
  const FieldPath path = FieldPath::root("metadata");
  const JsonValue* metadata = object_member(&object, "metadata");
  const JsonValue* old_metadata = object_member(&old_object, "metadata");
  // apimachinery's order: finalizers (K-MU4), resourceVersion (K-MU1), generation (K-MU2), then
  // the immutable fields (K-MU3).
  if (member(old_metadata, "deletionTimestamp") != nullptr) {
    check_no_new_finalizers(metadata, old_metadata, path, errors);
  }
  if (!wrong_type_string(metadata, "resourceVersion")) {
    const std::string_view rv = string_or_empty(metadata, "resourceVersion");
    if (rv.empty()) {
      errors.invalid(rules::kKMU1, path.child("resourceVersion"), rv,
                     "must be specified for an update");
    }
  }
  // Absent is Go's 0; a generation that is not an int64 is the schema's concern.
  const std::optional<std::int64_t> generation = int_member(metadata, "generation");
  const std::optional<std::int64_t> old_generation = int_member(old_metadata, "generation");
  if ((generation || member(metadata, "generation") == nullptr) &&
      (old_generation || member(old_metadata, "generation") == nullptr) &&
      generation.value_or(0) < old_generation.value_or(0)) {
    errors.invalid(rules::kKMU2, path.child("generation"),
                   static_cast<long long>(generation.value_or(0)), "must not be decremented");
  }
  check_immutable_string(metadata, old_metadata, "name", path, errors);
  check_immutable_string(metadata, old_metadata, "namespace", path, errors);
  check_immutable_string(metadata, old_metadata, "uid", path, errors);
  check_immutable_value(metadata, old_metadata, "creationTimestamp", path, errors);
  check_immutable_value(metadata, old_metadata, "deletionTimestamp", path, errors);
  check_immutable_value(metadata, old_metadata, "deletionGracePeriodSeconds", path, errors);
}

}  // namespace kpw
