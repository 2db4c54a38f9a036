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
  for (std::string_view problem : check_dns1123_label(ns))
    errors.invalid(rule, ns_path, ns, problem);
}

void check_object_reference(Rule rule, Rule namespace_rule, const JsonValue& ref,
                            const FieldPath& path, ErrorList& errors) {
  if (!schema::check_fields(schema::Rules::all(rule), kObjectReferenceFields, ref, path, errors)) {
    return;
  }
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
