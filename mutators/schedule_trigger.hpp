// Defaulting for ScheduleTrigger: retryAfterSeconds 3, autoCleanAfterMinutes 60 (seed 001).
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_schedule_trigger(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
