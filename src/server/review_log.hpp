// What a judged request leaves besides its answer: a log line for a denial or an internal error
// (for an allowed review only at -v 2), and its per-rule and failure counters.
#pragma once

#include "admission/service.hpp"

namespace kpw {

void report_review(const Route* route, const ReviewOutcome& outcome);

}  // namespace kpw
