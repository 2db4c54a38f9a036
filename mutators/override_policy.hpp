// Mutation of OverridePolicy (docs/rules.md): OM-1, a selector's empty namespace from the
// request's, and upstream's round trip (the explicit empties its re-marshal drops).
#pragma once

#include "admission/review.hpp"

namespace kpw {

void mutate_override_policy(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
