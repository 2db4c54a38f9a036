#include "validators/object_reference.hpp"

#include "api/object.hpp"
#include "util/names.hpp"
#include "util/seen_set.hpp"

namespace kpw {

bool is_api_version(std::string_view api_version) {
  std::size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return is_dns1123_label(api_version);
  return is_dns1123_subdomain(api_version.substr(0, slash)) &&
         is_dns1123_label(api_version.substr(slash + 1));
}

void check_namespace_field(Rule rule, const JsonValue& obj, const FieldPath& path,
                           ErrorList& errors) {
  std::string_view ns = string_or_empty(&obj, "namespace");
  if (ns.empty()) return;
  const FieldPath ns_path = path.child("namespace");
  for (std::string_view problem : check_dns1123_label(ns)) errors.invalid(rule, ns_path, ns, problem);
}

void check_object_reference(Rule rule, Rule namespace_rule, const JsonValue& ref,
                            const FieldPath& path, ErrorList& errors) {
  bool typed = true;
  for (std::string_view key : {"apiVersion", "kind", "name", "namespace"}) {
    typed = has_json_kind(rule, &ref, key, JsonKind::kString, path, errors) && typed;
  }
  if (!typed) return;
  const std::string_view api_version = string_or_empty(&ref, "apiVersion");
  const std::string_view kind = string_or_empty(&ref, "kind");
  const FieldPath api_version_path = path.child("apiVersion");
  const FieldPath kind_path = path.child("kind");
  if (api_version.empty()) {
    errors.required(rule, api_version_path, "the target's API version, e.g. \"apps/v1\"");
  } else if (!is_api_version(api_version)) {
    errors.invalid(rule, api_version_path, api_version,
                   "must be \"version\" or \"group/version\", e.g. \"v1\" or \"apps/v1\"");
  }
  if (kind.empty()) {
    errors.required(rule, kind_path, "the target's kind, e.g. \"Deployment\"");
  } else if (!((kind.front() >= 'A' && kind.front() <= 'Z') ||
               (kind.front() >= 'a' && kind.front() <= 'z'))) {
    errors.invalid(rule, kind_path, kind, "must start with a letter");
  }
  if (string_or_empty(&ref, "name").empty()) {
    const FieldPath name_path = path.child("name");
    errors.required(rule, name_path, "the target's name");
  }
  check_namespace_field(namespace_rule, ref, path, errors);
}

bool has_json_kind(Rule rule, const JsonValue& value, JsonKind kind, const FieldPath& path,
                   ErrorList& errors) {
  switch (kind) {
    case JsonKind::kObject:
      if (value.IsObject()) return true;
      errors.invalid(rule, path, value, "must be of type object");
      return false;
    case JsonKind::kArray:
      if (value.IsArray()) return true;
      errors.invalid(rule, path, value, "must be of type array");
      return false;
    case JsonKind::kInteger:
      if (value.IsInt64()) return true;
      errors.invalid(rule, path, value, "must be of type integer");
      return false;
    case JsonKind::kString:
      if (value.IsString()) return true;
      errors.invalid(rule, path, value, "must be of type string");
      return false;
  }
  return false;
}

bool has_json_kind(Rule rule, const JsonValue* obj, std::string_view key, JsonKind kind,
                   const FieldPath& obj_path, ErrorList& errors) {
  const JsonValue* value = member(obj, key);
  if (value == nullptr) return true;
  const FieldPath path = obj_path.child(key);
  return has_json_kind(rule, *value, kind, path, errors);
}

std::uint64_t hash_object_reference(const JsonValue& ref) {
  std::uint64_t h = 0;
  for (std::string_view key : {"apiVersion", "kind", "namespace", "name"}) {
    h = hash_combine(h, hash_text(string_or_empty(&ref, key)));
  }
  return h;
}

bool same_object_reference(const JsonValue& a, const JsonValue& b) {
  for (std::string_view key : {"apiVersion", "kind", "namespace", "name"}) {
    if (string_or_empty(&a, key) != string_or_empty(&b, key)) return false;
  }
  return true;
}

}  // namespace kpw
