// Defaulting for WorkloadRebalancer: the TTL, only when the server is told one.
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_workload_rebalancer(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
