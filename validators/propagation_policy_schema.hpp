// The CRD schema of PropagationPolicy / ClusterPropagationPolicy (docs/compatibility.md, schema
// rules SC-1…SC-6) as a table for the schema walker: for reviews that never passed an API server
// (the `check` command, replayed reviews), and for `check`'s unknown fields (K-U1).
#pragma once

#include "validators/schema.hpp"

namespace kpw {

// The fields of a policy's `spec`, its errors carrying SC-1 types and integer ranges, SC-2 at
// least one resource selector, SC-3 required keys, SC-4 enums, SC-5 affinityName length 1..32,
// SC-6 static weight >= 1.
const schema::Schema& propagation_policy_schema();

// K-U1 for `check`: the fields of `spec` the policy table does not declare, at every depth (the
// kind table's unknown-field walk for PropagationPolicy and ClusterPropagationPolicy).
void check_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                 ErrorList& errors);

}  // namespace kpw
