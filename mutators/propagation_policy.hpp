// Defaulting for PropagationPolicy and ClusterPropagationPolicy (docs/rules.md,
// docs/compatibility.md "Mutation").
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_propagation_policy(const AdmissionRequest& request, AdmissionResult& result);
void mutate_cluster_propagation_policy(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
