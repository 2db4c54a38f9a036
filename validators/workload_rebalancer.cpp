// WorkloadRebalancer rules (docs/rules.md "WorkloadRebalancer", seed 000). Upstream has no webhook for
// this kind: every rule here is ours.
#include "validators/workload_rebalancer.hpp"

#include <string>

#include "api/object.hpp"
#include "util/seen_set.hpp"
#include "validators/object_reference.hpp"

namespace kpw {
namespace {

// W-1: at least one workload; W-2 / W-3 for each; duplicates are a warning (the controller
// collapses them).
void check_workloads(const JsonValue* spec, const FieldPath& spec_path, AdmissionResult& result) {
  const FieldPath list = spec_path.child("workloads");
  if (!has_json_kind(Rule::kW1, spec, "workloads", JsonKind::kArray, spec_path, result.errors)) return;
  const JsonValue* workloads = array_member(spec, "workloads");
  if (workloads == nullptr || workloads->Empty()) {
    result.errors.required(Rule::kW1, list, "at least one workload to rebalance");
    return;
  }
  SeenSet seen;
  for (rapidjson::SizeType i = 0; i < workloads->Size(); ++i) {
    const JsonValue& w = (*workloads)[i];
    const FieldPath item = list.index(i);
    if (!has_json_kind(Rule::kW2, w, JsonKind::kObject, item, result.errors)) continue;
    check_object_reference(Rule::kW2, Rule::kW3, w, item, result.errors);
    const SeenSet::Seen s = seen.record(hash_object_reference(w), i, [&](std::size_t j) {
      return same_object_reference((*workloads)[static_cast<rapidjson::SizeType>(j)], w);
    });
    if (!s.repeated()) continue;
    result.warnings.add_built([&](std::string& text) {
      item.append_to(text);
      text += " repeats spec.workloads[" + std::to_string(s.first) +
              "]; the rebalancer treats them as one workload";
    });
  }
}

// W-4: a TTL cannot be negative (0 deletes at once when finished; absent keeps it forever).
void check_ttl(const JsonValue* spec, const FieldPath& spec_path, ErrorList& errors) {
  if (!has_json_kind(Rule::kW4, spec, "ttlSecondsAfterFinished", JsonKind::kInteger, spec_path, errors))
    return;
  std::optional<std::int64_t> ttl = int_member(spec, "ttlSecondsAfterFinished");
  if (ttl && *ttl < 0) {
    errors.invalid(Rule::kW4, spec_path.child("ttlSecondsAfterFinished"), static_cast<long long>(*ttl),
                   "must be greater than or equal to 0");
  }
}

}  // namespace

void validate_workload_rebalancer(const AdmissionRequest& request, AdmissionResult& result) {
  const FieldPath spec_path = FieldPath::root("spec");
  const JsonValue* spec = member(request.object, "spec");
  if (spec != nullptr && !has_json_kind(Rule::kW1, *spec, JsonKind::kObject, spec_path, result.errors)) return;
  if (spec == nullptr) {
    result.errors.required(Rule::kW1, spec_path, "a WorkloadRebalancer needs spec.workloads");
    return;
  }
  check_workloads(spec, spec_path, result);
  check_ttl(spec, spec_path, result.errors);
}

}  // namespace kpw
