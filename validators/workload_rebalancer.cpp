// WorkloadRebalancer rules (docs/rules.md "WorkloadRebalancer", seed 000). Upstream has no webhook
// for this kind: every rule here is ours.
#include "validators/workload_rebalancer.hpp"

#include <array>
#include <string>

#include "api/object.hpp"
#include "util/seen_set.hpp"
#include "validators/object_reference.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// The schema, each part with its rule: spec and its workloads list W-1, a workload W-2 (its
// namespace's format W-3, checked by check_object_reference), ttlSecondsAfterFinished W-4. The
// validator walks it one field at a time, interleaving its own rules (docs/rules.md).
constexpr schema::Rules kW1 = schema::Rules::all(rules::kW1);
constexpr schema::Rules kW2 = schema::Rules::all(rules::kW2);
constexpr schema::Rules kW4 = schema::Rules::all(rules::kW4);

constexpr Node kWorkloads{.name = "workloads",
                          .type = Type::kArray,
                          .required = true,
                          .fields = kObjectReferenceFields,
                          .min_items = 1,
                          .required_detail = "at least one workload to rebalance",
                          .rules = &kW1,
                          .item_rules = &kW2};
constexpr Node kTtl{
    .name = "ttlSecondsAfterFinished", .type = Type::kInteger, .minimum = 0, .rules = &kW4};
constexpr std::array kSpecFields = {kWorkloads, kTtl};
constexpr Node kSpec{.name = "spec",
                     .type = Type::kObject,
                     .required = true,
                     .fields = kSpecFields,
                     .required_detail = "a WorkloadRebalancer needs spec.workloads",
                     .rules = &kW1};
static_assert(schema::fits_a_mask(kSpecFields));

// W-1: at least one workload; W-2 / W-3 for each; duplicates are a warning (the controller
// collapses them).
void check_workloads(const JsonValue* spec, const FieldPath& spec_path, AdmissionResult& result) {
  // W-1: an array, present, not empty.
  if (!schema::check_field(kW1, kWorkloads, spec, spec_path, result.errors)) return;
  const JsonValue* workloads = array_member(spec, "workloads");
  const FieldPath list = spec_path.child("workloads");
  SeenSet seen;
  for (rapidjson::SizeType i = 0; i < workloads->Size(); ++i) {
    const JsonValue& w = (*workloads)[i];
    const FieldPath item = list.index(i);
    if (!schema::check_element(kW1, kWorkloads, w, item, result.errors)) continue;
    check_object_reference(rules::kW2, rules::kW3, w, item, result.errors);
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

}  // namespace

void validate_workload_rebalancer(const AdmissionRequest& request, AdmissionResult& result) {
  // W-1: spec is an object.
  if (!schema::check_root_field(kW1, kSpec, request.object, result.errors)) return;
  const FieldPath spec_path = FieldPath::root("spec");
  const JsonValue* spec = member(request.object, "spec");
  check_workloads(spec, spec_path, result);
  // W-4: an integer, not negative (0 deletes at once when finished; absent keeps it forever).
  schema::check_field(kW1, kTtl, spec, spec_path, result.errors);
}

}  // namespace kpw
