// /mutate-multiclusterservice, as upstream's handler (pkg/webhook/multiclusterservice/mutating.go)
// and what it stores through the API server:
//
//   MCS-M1 the label multiclusterservice.karmada.io/permanent-id: a UUID v4 when absent or "";
//   D-ID   on UPDATE, the value oldObject holds instead (upstream mints a new one);
//   MCS-M2 upstream's re-marshal through its Go types (docs/compatibility.md, "End-to-end
//          parity"): `spec.range` added as {} when absent (a struct, never omitted), and the
//          explicit zero of every `omitempty` field dropped: `ports`, `range.clusterNames`,
//          `serviceProvisionClusters`, `serviceConsumptionClusters`, `providerClusters`,
//          `consumerClusters` when [], a port's `name` when "". Its meaningless artefacts (`add
//          /status {"loadBalancer":{}}`, which the status subresource drops) are never added;
//          metadata is the API server's to normalise (it does, with or without a webhook).
#include "mutators/multi_cluster_service.hpp"

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "mutators/permanent_id.hpp"
#include "mutators/round_trip.hpp"

namespace kpw {
namespace {

void round_trip_spec(const JsonValue& spec, JsonPatch& patch) {
  const FieldPath spec_path = FieldPath::root("spec");
  drop_zeros(spec, spec_path,
             {{"ports", Zero::kList},
              {"serviceProvisionClusters", Zero::kList},
              {"serviceConsumptionClusters", Zero::kList},
              {"providerClusters", Zero::kList},
              {"consumerClusters", Zero::kList}},
             patch);
  for_each_object(spec, spec_path, "ports", [&](const JsonValue& port, const FieldPath& path) {
    drop_zeros(port, path, {{"name", Zero::kString}}, patch);
  });
  const JsonValue* range = member(&spec, "range");
  const FieldPath range_path = spec_path.child("range");
  if (range == nullptr || range->IsNull()) {
    patch.set_empty_object(range_path);
  } else if (range->IsObject()) {
    drop_zeros(*range, range_path, {{"clusterNames", Zero::kList}}, patch);
  }
}

}  // namespace

void mutate_multi_cluster_service(const AdmissionRequest& request, AdmissionResult& result) {
  set_permanent_id(karmada::kMcsPermanentIdLabel, request, KeepOldId::kOnUpdate, result.patch);
  if (const JsonValue* spec = object_member(request.object, "spec")) {
    round_trip_spec(*spec, result.patch);
  }
}

}  // namespace kpw
