// Mutation of ResourceBinding and ClusterResourceBinding (work.karmada.io): the permanent-id label
// on CREATE, RB-M1 and CRB-M1 of docs/rules.md.
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_resource_binding(const AdmissionRequest& request, AdmissionResult& result);
void mutate_cluster_resource_binding(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
