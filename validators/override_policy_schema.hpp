// The CRD schema of OverridePolicy / ClusterOverridePolicy (docs/rules.md, schema rules OS-1…OS-5)
// as tables for the schema walker, in upstream's Go field order, so the same tables render a
// value as upstream's messages show it (schema::append_struct_json).
#pragma once

#include <span>

#include "validators/schema.hpp"

namespace kpw {

// The fields of `spec`: OS-1 spec itself, OS-2 resource selectors, OS-3 override rules, OS-4
// overriders (required keys, enums), OS-5 cluster affinities.
const schema::Schema& override_policy_schema();
// Rows of the Go types upstream's messages marshal (O-3, O-4, O-10).
std::span<const schema::Node> cluster_affinity_fields();
std::span<const schema::Node> overriders_fields();
std::span<const schema::Node> field_overrider_fields();
// The `spec` row (OS-1: required), for the root check.
const schema::Node& override_policy_spec_row();

// K-U1 for `check`: the fields of `spec` the table does not declare, at every depth.
void check_override_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                          ErrorList& errors);

}  // namespace kpw
