// ScheduleTrigger rules (docs/rules.md "ScheduleTrigger", seed 001). The kind exists only in the
// design document; the project ships its CRD (manifests/).
#include "validators/schedule_trigger.hpp"

#include <array>
#include <string>

#include "api/object.hpp"
#include "util/names.hpp"
#include "util/seen_set.hpp"
#include "validators/object_reference.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// The schema, each part with its rule: spec and its two target lists S-1, a resource target S-2,
// a policy target S-3, the intervals S-4. The validator walks it one field at a time,
// interleaving its own rules (docs/rules.md).
constexpr schema::Rules kS1 = schema::Rules::all(rules::kS1);
constexpr schema::Rules kS2 = schema::Rules::all(rules::kS2);
constexpr schema::Rules kS3 = schema::Rules::all(rules::kS3);
constexpr schema::Rules kS4 = schema::Rules::all(rules::kS4);

constexpr Node kPolicyName{.name = "name"};
constexpr Node kPolicyNamespace{.name = "namespace"};
constexpr std::array kPolicyTargetFields = {kPolicyName, kPolicyNamespace};
constexpr Node kTargetRefPolicy{.name = "targetRefPolicy",
                                .type = Type::kArray,
                                .fields = kPolicyTargetFields,
                                .rules = &kS1,
                                .item_rules = &kS3};
constexpr Node kTargetRefResource{.name = "targetRefResource",
                                  .type = Type::kArray,
                                  .fields = kObjectReferenceFields,
                                  .rules = &kS1,
                                  .item_rules = &kS2};
constexpr Node kRetryAfterSeconds{
    .name = "retryAfterSeconds", .type = Type::kInteger, .minimum = 0, .rules = &kS4};
constexpr Node kAutoCleanAfterMinutes{
    .name = "autoCleanAfterMinutes", .type = Type::kInteger, .minimum = 0, .rules = &kS4};
constexpr std::array kSpecFields = {kTargetRefPolicy, kTargetRefResource, kRetryAfterSeconds,
                                    kAutoCleanAfterMinutes};
constexpr Node kSpec{.name = "spec", .type = Type::kObject, .fields = kSpecFields, .rules = &kS1};
static_assert(schema::fits_a_mask(kSpecFields));

bool same_policy_reference(const JsonValue& a, const JsonValue& b) {
  return string_or_empty(&a, "name") == string_or_empty(&b, "name") &&
         string_or_empty(&a, "namespace") == string_or_empty(&b, "namespace");
}

std::uint64_t hash_policy_reference(const JsonValue& ref) {
  return hash_combine(hash_text(string_or_empty(&ref, "name")),
                      hash_text(string_or_empty(&ref, "namespace")));
}

// Warns about an entry equal to an earlier one of the same list (recorded in `seen`).
template <typename Hash, typename Same>
void warn_duplicate(const JsonValue& list, rapidjson::SizeType i, const FieldPath& item,
                    std::string_view list_name, Hash hash, Same same, SeenSet& seen,
                    AdmissionResult& result) {
  const SeenSet::Seen s = seen.record(hash(list[i]), i, [&](std::size_t j) {
    return same(list[static_cast<rapidjson::SizeType>(j)], list[i]);
  });
  if (!s.repeated()) return;
  result.warnings.add_built([&](std::string& text) {
    item.append_to(text);
    text += " repeats spec." + std::string(list_name) + "[" + std::to_string(s.first) +
            "]; the trigger treats them as one target";
  });
}

// S-2: resources are object references.
void check_resource_targets(const JsonValue* targets, const FieldPath& list,
                            AdmissionResult& result) {
  SeenSet seen;
  for (rapidjson::SizeType i = 0; i < targets->Size(); ++i) {
    const JsonValue& t = (*targets)[i];
    const FieldPath item = list.index(i);
    if (!schema::check_element(kS1, kTargetRefResource, t, item, result.errors)) continue;
    check_object_reference(rules::kS2, rules::kS2, t, item, result.errors);
    warn_duplicate(*targets, i, item, "targetRefResource", hash_object_reference,
                   same_object_reference, seen, result);
  }
}

// S-3: policies are named by a DNS-1123 subdomain, in a namespace (PP) or none (CPP).
void check_policy_targets(const JsonValue* targets, const FieldPath& list,
                          AdmissionResult& result) {
  SeenSet seen;
  for (rapidjson::SizeType i = 0; i < targets->Size(); ++i) {
    const JsonValue& t = (*targets)[i];
    const FieldPath item = list.index(i);
    if (!schema::check_element(kS1, kTargetRefPolicy, t, item, result.errors)) continue;
    // Strings, the name first: a wrong name type is the one error.
    if (!schema::check_field(kS3, kPolicyName, &t, item, result.errors) ||
        !schema::check_field(kS3, kPolicyNamespace, &t, item, result.errors)) {
      continue;
    }
    const FieldPath name_path = item.child("name");
    const std::string_view name = string_or_empty(&t, "name");
    if (name.empty()) {
      result.errors.required(rules::kS3, name_path,
                             "the name of a PropagationPolicy or ClusterPropagationPolicy");
    } else {
      for (std::string_view problem : check_dns1123_subdomain(name)) {
        result.errors.invalid(rules::kS3, name_path, name, problem);
      }
    }
    check_namespace_field(rules::kS3, t, item, result.errors);
    warn_duplicate(*targets, i, item, "targetRefPolicy", hash_policy_reference,
                   same_policy_reference, seen, result);
  }
}

// S-4: intervals are integers and cannot be negative (0 means "retry at once" / "never clean up").
void check_intervals(const JsonValue* spec, const FieldPath& spec_path, ErrorList& errors) {
  schema::check_field(kS1, kRetryAfterSeconds, spec, spec_path, errors);
  schema::check_field(kS1, kAutoCleanAfterMinutes, spec, spec_path, errors);
}

// S-5: the phase, when present, is one the controller writes.
void check_phase(const JsonValue* object, ErrorList& errors) {
  const JsonValue* phase = member(object_member(object, "status"), "phase");
  if (phase == nullptr) return;
  if (phase->IsString() &&
      (view(*phase) == "Running" || view(*phase) == "Failed" || view(*phase) == "Success")) {
    return;
  }
  const FieldPath status = FieldPath::root("status");
  errors.not_supported(rules::kS5, status.child("phase"), *phase, {"Running", "Failed", "Success"});
}

}  // namespace

void validate_schedule_trigger(const AdmissionRequest& request, AdmissionResult& result) {
  // S-1: spec (when present) is an object, and its target lists arrays.
  if (!schema::check_root_field(kS1, kSpec, request.object, result.errors)) return;
  const FieldPath spec_path = FieldPath::root("spec");
  const JsonValue* spec = member(request.object, "spec");
  if (!schema::check_field(kS1, kTargetRefResource, spec, spec_path, result.errors) ||
      !schema::check_field(kS1, kTargetRefPolicy, spec, spec_path, result.errors)) {
    return;
  }
  const JsonValue* resources = array_member(spec, "targetRefResource");
  const JsonValue* policies = array_member(spec, "targetRefPolicy");
  // S-1: something to trigger.
  if ((resources == nullptr || resources->Empty()) && (policies == nullptr || policies->Empty())) {
    result.errors.required(rules::kS1, spec_path,
                           "at least one entry in targetRefPolicy or targetRefResource");
  }
  if (policies != nullptr) {
    const FieldPath list = spec_path.child("targetRefPolicy");
    check_policy_targets(policies, list, result);
  }
  if (resources != nullptr) {
    const FieldPath list = spec_path.child("targetRefResource");
    check_resource_targets(resources, list, result);
  }
  check_intervals(spec, spec_path, result.errors);
  check_phase(request.object, result.errors);
}

}  // namespace kpw
