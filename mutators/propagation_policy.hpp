// Defaulting for PropagationPolicy and ClusterPropagationPolicy (upstream §3.1 + design defaults).
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_propagation_policy(const AdmissionRequest& request, AdmissionResult& result);
void mutate_cluster_propagation_policy(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
