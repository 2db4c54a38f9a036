// Validation of ScheduleTrigger (policy.karmada.io/v1alpha1): rules S-1…S-5 of docs/rules.md.
#pragma once

#include "admission/review.hpp"

namespace kpw {

void validate_schedule_trigger(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
