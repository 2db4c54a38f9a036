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
#include "api/object.hpp"
#include "util/uuid.hpp"

namespace kpw {
namespace {

void set_permanent_id(std::string_view label, const AdmissionRequest& request, JsonPatch& patch) {
  const JsonValue* metadata = member(request.object, "metadata");
  if (metadata != nullptr && !metadata->IsObject()) return;
  const JsonValue* labels = member(metadata, "labels");
  if (labels != nullptr && !labels->IsObject()) return;
  if (const JsonValue* id = member(labels, label)) {
    if (!id->IsString() || id->GetStringLength() > 0) return;
  }
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath labels_path = metadata_path.child("labels");
  const UuidText id = random_uuid_v4();
  patch.set(labels_path.key(label), std::string_view(id.data(), id.size()));
}

}  // namespace

void mutate_resource_binding(const AdmissionRequest& request, AdmissionResult& result) {
  set_permanent_id(karmada::kRbPermanentIdLabel, request, result.patch);
}

void mutate_cluster_resource_binding(const AdmissionRequest& request, AdmissionResult& result) {
  set_permanent_id(karmada::kCrbPermanentIdLabel, request, result.patch);
}

}  // namespace kpw
