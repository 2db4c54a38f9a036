// RB-M1 / CRB-M1: a binding without its permanent-id label, or with "" (or null) there, gets a
// fresh UUID v4, as upstream's mutators give it. The binding controllers find and delete a
// binding's Works through it, and since Karmada v1.10 nothing else mints it. The routes register
// CREATE only (as upstream's entries): an UPDATE never comes here through the API server, and one
// sent by hand is treated alike. Nothing else changes: never upstream's re-marshal artefact
// `add /status {}`. A metadata or labels member of another JSON type, or a label value that is not
// a string, is left as it is (a mutator never denies; the API server refuses those).
#include "mutators/binding.hpp"

#include <string_view>

#include "api/karmada.hpp"
#include "mutators/permanent_id.hpp"

namespace kpw {

void mutate_resource_binding(const AdmissionRequest& request, AdmissionResult& result) {
  set_permanent_id(karmada::kRbPermanentIdLabel, request, KeepOldId::kNo, result.patch);
}

void mutate_cluster_resource_binding(const AdmissionRequest& request, AdmissionResult& result) {
  set_permanent_id(karmada::kCrbPermanentIdLabel, request, KeepOldId::kNo, result.patch);
}

}  // namespace kpw
