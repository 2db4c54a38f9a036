// How a review is judged, by whoever judges one (the server, `review`, `check`, the tests): a
// route's handler on the decoded request, its errors offered to the strict policy of the request's
// settings (strict_policy.hpp), its violations counted by rule in the result.
#pragma once

#include "admission/review.hpp"

namespace kpw {

// Resets `result` for `request` (errors, warnings, violations, refusal, a patch against
// request.object), then runs `handler`. The calling thread's policy is reused from review to
// review, so a typical one allocates nothing.
void judge(Handler handler, const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
