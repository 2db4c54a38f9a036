// A kind's permanent-id label (RB-M1, CRB-M1, MCS-M1 of docs/rules.md): a fresh UUID v4 when the
// label is absent or "" (upstream's mutators mint one), and, where the kind's row says so, on an
// UPDATE that dropped it the value oldObject holds (D-ID: controllers find objects by it). A
// metadata or labels member of another JSON type, or a label value that is not a string, is left
// as it is (a mutator never denies; the API server refuses those).
#pragma once

#include <string_view>

#include "admission/review.hpp"

namespace kpw {

enum class KeepOldId : bool { kNo, kOnUpdate };

void set_permanent_id(std::string_view label, const AdmissionRequest& request, KeepOldId keep,
                      JsonPatch& patch);

}  // namespace kpw
