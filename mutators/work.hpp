// /mutate-work: the Work's permanent ID and upstream's pruning of every manifest, step by step
// W-1…W-13 and D-ID (docs/rules.md, "Work").
#pragma once

#include "admission/review.hpp"

namespace kpw {

// Never denies: a manifest upstream cannot decode (W-2, W-5) is refused with code 400 and its
// path (AdmissionResult::refuse), as upstream's decoder errors are answered (upstream: 500).
void mutate_work(const AdmissionRequest& request, AdmissionResult& result);

}  // namespace kpw
