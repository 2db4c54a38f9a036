// End-to-end parity for PropagationPolicy / ClusterPropagationPolicy (docs/compatibility.md,
// "End-to-end parity"): upstream's mutator re-marshals the object through Go structs, which drops
// explicit zero values of `omitempty` fields, and the API server then re-applies the CRD
// defaults. This normalises the same explicit empties the same way, with minimal ops, so the
// object stored behind us is the one stored behind upstream.
#pragma once

#include "admission/field_error.hpp"
#include "admission/json_patch.hpp"
#include "json/json.hpp"

namespace kpw {

// `spec` as the mutator received it (after the API server's own defaulting). `cluster_scoped`:
// a ClusterPropagationPolicy (its selectors' empty namespace is dropped, not filled).
void normalise_policy_spec(const JsonValue& spec, const FieldPath& spec_path, bool cluster_scoped,
                           JsonPatch& patch);

}  // namespace kpw
