// The CRD schema of PropagationPolicy / ClusterPropagationPolicy (docs/compatibility.md) as rules SC-1…SC-6,
// for reviews that never passed an API server (the `check` command, replayed reviews).
#pragma once

#include "admission/field_error.hpp"
#include "json/json.hpp"

namespace kpw {

// Checks `spec` (already known to be an object) against the policy schema, in document order:
// SC-1 types and integer ranges, SC-2 at least one resource selector, SC-3 required keys,
// SC-4 enums, SC-5 affinityName length 1..32, SC-6 static weight >= 1. `null` reads as absent.
void check_policy_schema(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors);

// K-U1, for `check`: a field of `spec` the schema does not declare (the API server refuses it
// under kubectl's default --validate=strict; the webhook never sees it, so it does not check).
void check_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                 ErrorList& errors);

}  // namespace kpw
