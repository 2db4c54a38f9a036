// Validation of WorkloadRebalancer (apps.karmada.io/v1alpha1): rules W-1…W-4 of docs/rules.md.
#pragma once

#include "admission/review.hpp"

namespace kpw {

void validate_workload_rebalancer(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
