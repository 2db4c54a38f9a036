#include "mutators/permanent_id.hpp"

#include "api/object.hpp"
#include "util/uuid.hpp"

namespace kpw {

void set_permanent_id(std::string_view label, const AdmissionRequest& request, KeepOldId keep,
                      JsonPatch& patch) {
  const JsonValue* metadata = member(request.object, "metadata");
  if (metadata != nullptr && !metadata->IsObject()) return;
  const JsonValue* labels = member(metadata, "labels");
  if (labels != nullptr && !labels->IsObject()) return;
  if (const JsonValue* id = member(labels, label)) {
    if (!id->IsString() || id->GetStringLength() > 0) return;
  }
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath labels_path = metadata_path.child("labels");
  if (keep == KeepOldId::kOnUpdate && request.operation == Operation::kUpdate) {
    const JsonValue* old_labels =
        object_member(object_member(request.old_object, "metadata"), "labels");
    if (const std::string_view old_id = string_or_empty(old_labels, label); !old_id.empty()) {
      patch.set(labels_path.key(label), old_id);
      return;
    }
  }
  const UuidText id = random_uuid_v4();
  patch.set(labels_path.key(label), std::string_view(id.data(), id.size()));
}

}  // namespace kpw
