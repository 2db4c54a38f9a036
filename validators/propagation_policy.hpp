// Validation of PropagationPolicy and ClusterPropagationPolicy (policy.karmada.io/v1alpha1):
// upstream rules V-… (docs/compatibility.md), schema rules SC-… and the design rules D-…
// of docs/rules.md. docs/compatibility.md lists the path and type we report for each.
#pragma once

#include "admission/review.hpp"

namespace kpw {

void validate_propagation_policy(const AdmissionRequest& request, AdmissionResult& result);
void validate_cluster_propagation_policy(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
