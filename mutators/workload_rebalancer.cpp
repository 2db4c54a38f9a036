// An unset ttlSecondsAfterFinished means "keep forever" (seed 000), so without
// --default-rebalancer-ttl-seconds this mutator never changes anything.
#include "mutators/workload_rebalancer.hpp"

#include "api/object.hpp"

namespace kpw {

void mutate_workload_rebalancer(const AdmissionRequest& request, AdmissionResult& result) {
  const std::optional<std::int64_t>& ttl = request.settings->rebalancer_ttl_seconds;
  const JsonValue* spec = object_member(request.object, "spec");
  if (!ttl || spec == nullptr || member(spec, "ttlSecondsAfterFinished") != nullptr) return;
  const FieldPath spec_path = FieldPath::root("spec");
  result.patch.set(spec_path.child("ttlSecondsAfterFinished"), *ttl);
}

}  // namespace kpw
