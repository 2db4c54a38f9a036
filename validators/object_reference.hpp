// Rules for a reference to one Kubernetes object (apiVersion, kind, name, namespace), shared by
// WorkloadRebalancer workloads (W-2, W-3) and ScheduleTrigger resource targets (S-2).
#pragma once

#include <cstdint>
#include <string_view>

#include "admission/field_error.hpp"
#include "json/json.hpp"

namespace kpw {

// `version` or `group/version`: a DNS-1123 subdomain group, a DNS-1123 label version.
bool is_api_version(std::string_view api_version);

// apiVersion, kind and name required and well-formed; a set namespace is a DNS-1123 label.
// `rule` for the reference, `namespace_rule` for its namespace.
void check_object_reference(Rule rule, Rule namespace_rule, const JsonValue& ref,
                            const FieldPath& path, ErrorList& errors);

// The same object named twice (apiVersion, kind, namespace and name all equal).
bool same_object_reference(const JsonValue& a, const JsonValue& b);
// A hash of those four fields: equal references hash alike (for SeenSet).
std::uint64_t hash_object_reference(const JsonValue& ref);

// The JSON type a field must have (the small kinds have no separate schema pass).
enum class JsonKind { kObject, kArray, kInteger, kString };

// False, with an Invalid error naming the field, when `key` is present in `obj` with another
// JSON type (`null` reads as absent).
bool has_json_kind(Rule rule, const JsonValue* obj, std::string_view key, JsonKind kind,
                   const FieldPath& obj_path, ErrorList& errors);
// The same for one element (an array item).
bool has_json_kind(Rule rule, const JsonValue& value, JsonKind kind, const FieldPath& path,
                   ErrorList& errors);

// A namespace that is set must be a DNS-1123 label.
void check_namespace_field(Rule rule, const JsonValue& obj, const FieldPath& path,
                           ErrorList& errors);

}  // namespace kpw
