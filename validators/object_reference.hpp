// Rules for a reference to one Kubernetes object (apiVersion, kind, name, namespace), shared by
// WorkloadRebalancer workloads (W-2, W-3) and ScheduleTrigger resource targets (S-2).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "admission/field_error.hpp"
#include "json/json.hpp"
#include "validators/schema.hpp"

namespace kpw {

// `version` or `group/version`: a DNS-1123 subdomain group, a DNS-1123 label version.
bool is_api_version(std::string_view api_version);

// The fields of a reference, all strings (their types are checked in this order, every one).
inline constexpr std::array<schema::Node, 4> kObjectReferenceFields = {
    schema::Node{.name = "apiVersion"},
    schema::Node{.name = "kind"},
    schema::Node{.name = "name"},
    schema::Node{.name = "namespace"},
};

// The four fields' types (kObjectReferenceFields); when they are right, apiVersion, kind and name
// required and well-formed, and a set namespace a DNS-1123 label. `rule` for the reference,
// `namespace_rule` for its namespace.
void check_object_reference(Rule rule, Rule namespace_rule, const JsonValue& ref,
                            const FieldPath& path, ErrorList& errors);

// The same object named twice (apiVersion, kind, namespace and name all equal).
bool same_object_reference(const JsonValue& a, const JsonValue& b);
// A hash of those four fields: equal references hash alike (for SeenSet).
std::uint64_t hash_object_reference(const JsonValue& ref);

// A namespace that is set must be a DNS-1123 label.
void check_namespace_field(Rule rule, const JsonValue& obj, const FieldPath& path,
                           ErrorList& errors);

}  // namespace kpw
