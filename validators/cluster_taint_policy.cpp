// ClusterTaintPolicy rules (docs/rules.md "ClusterTaintPolicy"). Upstream validates spec.taints
// only: T-1 (NoExecute behind a flag) and T-2 (unique key and effect), reported per taint in list
// order. Ours follow: the CRD schema TS-1…TS-4 and D-T1's values, one walk of the spec in document
// order, then D-T1 on every field-selector expression.
#include "validators/cluster_taint_policy.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "util/seen_set.hpp"
#include "validators/common.hpp"
#include "validators/schema.hpp"
#include "validators/schema_affinity.hpp"

namespace kpw {
namespace {

using schema::Format;
using schema::kClusterAffinity;
using schema::Node;
using schema::Type;

// D-T1's values: what Cluster objects accept as a taint effect, what the taint controller
// evaluates as a condition operator, and the condition statuses a cluster reports.
constexpr std::array<std::string_view, 2> kEffects = {"NoSchedule", "NoExecute"};
constexpr std::array<std::string_view, 2> kOperators = {"In", "NotIn"};
constexpr std::array<std::string_view, 3> kStatusValues = {"True", "False", "Unknown"};

// A part of the schema whose shape (types, required keys, minItems) is the TS- rule `shape` and
// whose values (enums, formats) are D-T1.
constexpr schema::Rules shape_and_values(Rule shape) {
  return {.type = shape,
          .required = shape,
          .min_items = shape,
          .enumeration = rules::kDT1,
          .length = shape,
          .range = shape,
          .format = rules::kDT1,
          .quantity = shape};
}

constexpr schema::Rules kTS1 = schema::Rules::all(rules::kTS1);
constexpr schema::Rules kTaintRules = shape_and_values(rules::kTS2);
constexpr schema::Rules kConditionRules = shape_and_values(rules::kTS3);
constexpr schema::Rules kTS4 = schema::Rules::all(rules::kTS4);

// TS-2, D-T1: a taint as a Cluster object takes it (key a label key, value a label value).
constexpr std::array kTaint = {
    Node{.name = "key", .required = true, .format = Format::kQualifiedName},
    Node{.name = "value", .format = Format::kLabelValue},
    Node{.name = "effect", .required = true, .allowed = kEffects},
};
// TS-3, D-T1: a MatchCondition.
constexpr std::array kCondition = {
    Node{.name = "conditionType", .required = true},
    Node{.name = "operator", .required = true, .allowed = kOperators},
    Node{.name = "statusValues",
         .type = Type::kArray,
         .required = true,
         .item = Type::kString,
         .allowed = kStatusValues},
};
// TS-4: targetClusters, a ClusterAffinity (validators/schema_affinity.hpp).
constexpr std::array kSpecFields = {
    Node{.name = "targetClusters",
         .type = Type::kObject,
         .fields = kClusterAffinity,
         .rules = &kTS4},
    Node{.name = "addOnConditions",
         .type = Type::kArray,
         .fields = kCondition,
         .rules = &kConditionRules},
    Node{.name = "removeOnConditions",
         .type = Type::kArray,
         .fields = kCondition,
         .rules = &kConditionRules},
    Node{.name = "taints",
         .type = Type::kArray,
         .required = true,
         .fields = kTaint,
         .min_items = 1,
         .rules = &kTaintRules},
};
// TS-1: the CRD requires spec.
constexpr Node kSpec{
    .name = "spec", .type = Type::kObject, .required = true, .fields = kSpecFields, .rules = &kTS1};
static_assert(schema::fits_a_mask(kSpecFields));

constexpr std::string_view kNoExecuteForbidden =
    "Configuring taint with NoExecute effect is not allowed, this capability must be explicitly "
    "enabled by administrators through command-line flags";

// T-2's identity of a taint: its key and effect, byte for byte (value ignored). A null taint, or
// one whose key or effect is absent or not a string, has "" there: upstream decodes a null item
// to the zero Taint (two nulls are duplicates, `key() and effect()`).
bool same_taint(const JsonValue& a, const JsonValue& b) {
  return string_or_empty(&a, "key") == string_or_empty(&b, "key") &&
         string_or_empty(&a, "effect") == string_or_empty(&b, "effect");
}

std::uint64_t hash_taint(const JsonValue& t) {
  return hash_combine(hash_text(string_or_empty(&t, "key")),
                      hash_text(string_or_empty(&t, "effect")));
}

// Records taint `i` in `seen`; the result's `first` is the first taint recorded with its key and
// effect.
SeenSet::Seen record_taint(const JsonValue& taints, rapidjson::SizeType i, SeenSet& seen) {
  return seen.record(hash_taint(taints[i]), i, [&taints, i](std::size_t j) {
    return same_taint(taints[static_cast<rapidjson::SizeType>(j)], taints[i]);
  });
}

// T-1 then T-2 for each taint, in list order, as upstream reports them. T-2 names every taint
// that a later one repeats (all but the last of each key and effect; three copies give i=0 and
// i=1). Linear: a first pass from the end records each pair, so that the first index SeenSet
// keeps for a pair is its last occurrence; the forward pass reads that index back.
void check_taints(const JsonValue& taints, const FieldPath& list, bool allow_no_execute,
                  ErrorList& errors) {
  SeenSet last;
  for (rapidjson::SizeType i = taints.Size(); i-- > 0;) record_taint(taints, i, last);
  std::string duplicate;  // T-2's sentence, built only when a taint repeats
  for (rapidjson::SizeType i = 0; i < taints.Size(); ++i) {
    const JsonValue& t = taints[i];
    const FieldPath item = list.index(i);
    if (!allow_no_execute && string_or_empty(&t, "effect") == "NoExecute") {
      errors.forbidden(rules::kT1, item, kNoExecuteForbidden);
    }
    if (record_taint(taints, i, last).first == i) continue;
    // Key and effect inserted raw (`%s`), the whole sentence then quoted as the Duplicate value.
    duplicate.assign("Duplicate taint with the same key(");
    duplicate.append(string_or_empty(&t, "key"));
    duplicate.append(") and effect(");
    duplicate.append(string_or_empty(&t, "effect"));
    duplicate.append(") is not allowed");
    errors.duplicate(rules::kT2, item, duplicate);
  }
}

}  // namespace

void validate_cluster_taint_policy(const AdmissionRequest& request, AdmissionResult& result) {
  ErrorList& errors = result.errors;
  const FieldPath spec_path = FieldPath::root("spec");
  const JsonValue* spec = object_member(request.object, "spec");
  // Upstream: T-1, T-2.
  if (const JsonValue* taints = array_member(spec, "taints")) {
    const FieldPath list = spec_path.child("taints");
    check_taints(*taints, list, request.settings->allow_no_execute_taint_policy, errors);
  }
  // Ours: TS-1 (spec present, an object), then the spec in document order: TS-2…TS-4 shapes and
  // D-T1 values at the field they name.
  if (!schema::check_root_field(kTS1, kSpec, request.object, errors)) return;
  schema::check_object(kTS1, kSpecFields, *spec, spec_path, errors);
  // D-T1: every field-selector expression with a key other than provider, region or zone, or an
  // operator other than In or NotIn (the taint controller matches clusters as PP does).
  if (const JsonValue* target = object_member(spec, "targetClusters")) {
    const FieldPath target_path = spec_path.child("targetClusters");
    check_cluster_field_selector_all(rules::kDT1, rules::kDT1, *target, target_path, errors);
  }
}

void check_cluster_taint_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                               ErrorList& errors) {
  schema::check_unknown_fields(kSpecFields, spec, spec_path, rules::kKU1, errors);
}

}  // namespace kpw
