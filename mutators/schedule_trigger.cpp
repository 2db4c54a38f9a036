// Defaults only where the key is absent or null: an explicit 0 means "retry at once" /
// "never clean up" and stays (docs/rules.md principle 6).
#include "mutators/schedule_trigger.hpp"

#include "api/object.hpp"

namespace kpw {

inline constexpr std::int64_t kDefaultRetryAfterSeconds = 3;
inline constexpr std::int64_t kDefaultAutoCleanAfterMinutes = 60;

void mutate_schedule_trigger(const AdmissionRequest& request, AdmissionResult& result) {
  const JsonValue* spec = member(request.object, "spec");
  if (spec != nullptr && !spec->IsObject()) return;  // the validator reports the type
  const FieldPath spec_path = FieldPath::root("spec");
  if (member(spec, "retryAfterSeconds") == nullptr) {
    result.patch.set(spec_path.child("retryAfterSeconds"), kDefaultRetryAfterSeconds);
  }
  if (member(spec, "autoCleanAfterMinutes") == nullptr) {
    result.patch.set(spec_path.child("autoCleanAfterMinutes"), kDefaultAutoCleanAfterMinutes);
  }
}

}  // namespace kpw
