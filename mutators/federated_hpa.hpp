// Mutation of FederatedHPA (autoscaling.karmada.io/v1alpha1): FH-M1…FH-M4 (Kubernetes' HPA v2
// defaults as upstream lifts them), FH-M5 (a behavior's tolerance kept, where upstream drops it)
// and FH-M6 (what upstream's re-marshal changes that the API server stores) of docs/rules.md,
// "FederatedHPA".
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_federated_hpa(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
