// PropagationPolicy / ClusterPropagationPolicy placement rules (docs/compatibility.md V-P1 … V-P10,
// V-S2 … V-S7, V-W1 … V-W3, V-T1), a part of propagation_policy.cpp's validator.
#pragma once

#include "admission/field_error.hpp"
#include "json/json.hpp"

namespace kpw {

// The rules of `spec.placement`, in upstream's order (nothing when it is absent or not an object).
void check_policy_placement(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors);

}  // namespace kpw
