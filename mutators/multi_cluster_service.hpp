// Mutation of MultiClusterService (networking.karmada.io/v1alpha1): MCS-M1 (the permanent-id
// label, D-ID on UPDATE) and MCS-M2 (what upstream's re-marshal changes that the API server
// stores) of docs/rules.md, "MultiClusterService".
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_multi_cluster_service(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
