// PropagationPolicy / ClusterPropagationPolicy placement rules, in upstream's order
// (docs/compatibility.md "Order of errors"): V-P1 … V-P10, V-S2 … V-S7, V-W1 … V-W3, V-T1. Reads
// are lenient: a field of the wrong type reads as absent, the schema pass has reported it.
#include "validators/propagation_policy_placement.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

#include "api/object.hpp"
#include "validators/common.hpp"
#include "validators/propagation_policy_rules.hpp"

namespace kpw {
namespace {

using rapidjson::SizeType;

// Overflow affinities need Divided replicas with Aggregated, or Weighted with a dynamic weight.
bool overflow_allowed(const JsonValue& placement) {
  const JsonValue* rs = object_member(&placement, "replicaScheduling");
  if (rs == nullptr || string_or_empty(rs, "replicaSchedulingType") != "Divided") return false;
  const std::string_view preference = string_or_empty(rs, "replicaDivisionPreference");
  if (preference == "Aggregated") return true;
  return preference == "Weighted" &&
         !string_or_empty(object_member(rs, "weightPreference"), "dynamicWeight").empty();
}

// V-P2, for every term, before any other term rule (upstream's order).
void check_overflow_support(const JsonValue& placement, const JsonValue* terms,
                            const FieldPath& terms_path, ErrorList& errors) {
  if (terms == nullptr || overflow_allowed(placement)) return;
  for (SizeType i = 0; i < terms->Size(); ++i) {
    if (array_member(&(*terms)[i], "overflowAffinities") == nullptr) continue;
    const FieldPath term = terms_path.index(i);
    const FieldPath path = term.child("overflowAffinities");
    errors.forbidden(rules::kVP2, path,
                     "needs replicaScheduling Divided with replicaDivisionPreference Aggregated, "
                     "or Weighted with a weightPreference.dynamicWeight");
  }
}

// V-P7: an overflow list needs a non-empty inline affinity (`labelSelector: {}` counts as set,
// `clusterNames: []` does not).
bool affinity_is_empty(const JsonValue& term) {
  return object_member(&term, "labelSelector") == nullptr &&
         object_member(&term, "fieldSelector") == nullptr &&
         array_size(&term, "clusterNames") == 0 && array_size(&term, "exclude") == 0;
}

// V-P7 … V-P10 for the overflow list of term i.
void check_overflow_affinities(const JsonValue& term, const FieldPath& term_path,
                               ErrorList& errors) {
  const JsonValue* overflows = array_member(&term, "overflowAffinities");
  if (overflows == nullptr) return;
  const FieldPath list = term_path.child("overflowAffinities");
  if (affinity_is_empty(term)) {
    errors.forbidden(rules::kVP7, list,
                     "needs the term's own cluster affinity (labelSelector, fieldSelector, "
                     "clusterNames or exclude) to overflow from");
  }
  // V-P9: names are unique within the term, the term's own name included.
  Duplicates names(rules::kVP9);
  if (const std::optional<std::string_view> primary = string_member(&term, "affinityName")) {
    names.seed(*primary);
  }
  for (SizeType j = 0; j < overflows->Size(); ++j) {
    const JsonValue& o = (*overflows)[j];
    if (!o.IsObject()) continue;
    const FieldPath item = list.index(j);
    check_label_key(rules::kVP8, o, "affinityName", item, errors);
    if (const std::optional<std::string_view> name = string_member(&o, "affinityName")) {
      const FieldPath path = item.child("affinityName");
      names.check(*name, j, path, errors);
    }
    check_cluster_field_selector(rules::kVP10, o, item, errors);
  }
}

// V-P4, V-P5, V-P6, then the overflow rules, term by term.
void check_affinity_terms(const JsonValue* terms, const FieldPath& terms_path, ErrorList& errors) {
  if (terms == nullptr) return;
  Duplicates names(rules::kVP5);
  for (SizeType i = 0; i < terms->Size(); ++i) {
    const JsonValue& term = (*terms)[i];
    if (!term.IsObject()) continue;
    const FieldPath item = terms_path.index(i);
    check_label_key(rules::kVP4, term, "affinityName", item, errors);
    // V-P5 / D-P2: each repeat of an earlier name, exact and case-sensitive.
    if (const std::optional<std::string_view> name = string_member(&term, "affinityName")) {
      const FieldPath path = item.child("affinityName");
      names.check(*name, i, path, errors);
    }
    check_cluster_field_selector(rules::kVP6, term, item, errors);
    check_overflow_affinities(term, item, errors);
  }
}

// V-S2 … V-S7.
void check_spread_constraints(const JsonValue& placement, const FieldPath& placement_path,
                              ErrorList& errors) {
  const JsonValue* list = array_member(&placement, "spreadConstraints");
  if (list == nullptr) return;
  const FieldPath list_path = placement_path.child("spreadConstraints");
  bool by_field = false;
  bool by_cluster = false;
  Duplicates fields(rules::kVS6, Duplicates::Report::kOncePerValue);
  for (SizeType i = 0; i < list->Size(); ++i) {
    const JsonValue& c = (*list)[i];
    if (!c.IsObject()) continue;
    const FieldPath item = list_path.index(i);
    const std::string_view field = string_or_empty(&c, "spreadByField");
    const std::int64_t min_groups = int_member(&c, "minGroups").value_or(0);
    const std::int64_t max_groups = int_member(&c, "maxGroups").value_or(0);
    if (!field.empty() && !string_or_empty(&c, "spreadByLabel").empty()) {  // V-S2
      const FieldPath path = item.child("spreadByLabel");
      errors.forbidden(rules::kVS2, path, "may not be set together with spreadByField");
    }
    const FieldPath min_path = item.child("minGroups");
    const FieldPath max_path = item.child("maxGroups");
    if (min_groups < 0) {  // V-S3
      errors.invalid(rules::kVS3, min_path, static_cast<long long>(min_groups),
                     "must be greater than or equal to 0");
    }
    if (max_groups < 0) {  // V-S4
      errors.invalid(rules::kVS4, max_path, static_cast<long long>(max_groups),
                     "must be greater than or equal to 0");
    }
    if (max_groups > 0 && max_groups < min_groups) {  // V-S5 (maxGroups 0 means unset)
      errors.invalid(rules::kVS5, max_path, static_cast<long long>(max_groups),
                     "must be greater than or equal to minGroups");
    }
    if (!field.empty()) {  // V-S6: once per value, at its second occurrence
      by_field = true;
      by_cluster = by_cluster || field == "cluster";
      const FieldPath path = item.child("spreadByField");
      fields.check(field, i, path, errors);
    }
  }
  if (by_field && !by_cluster) {  // V-S7
    errors.required(rules::kVS7, list_path,
                    "a constraint with spreadByField \"cluster\" is required when spreading by "
                    "field");
  }
}

// V-W1, V-W2, V-W3.
void check_workload_affinity(const JsonValue& placement, const FieldPath& placement_path,
                             ErrorList& errors) {
  const JsonValue* wa = object_member(&placement, "workloadAffinity");
  if (wa == nullptr) return;
  const FieldPath wa_path = placement_path.child("workloadAffinity");
  const FieldPath affinity_path = wa_path.child("affinity");
  const FieldPath anti_path = wa_path.child("antiAffinity");
  const JsonValue* affinity = object_member(wa, "affinity");
  const JsonValue* anti = object_member(wa, "antiAffinity");
  if (affinity != nullptr) {
    check_label_key(rules::kVW1, *affinity, "groupByLabelKey", affinity_path, errors);
  }
  if (anti != nullptr) check_label_key(rules::kVW2, *anti, "groupByLabelKey", anti_path, errors);
  if (affinity == nullptr || anti == nullptr) return;
  const std::optional<std::string_view> key = string_member(affinity, "groupByLabelKey");
  const std::optional<std::string_view> anti_key = string_member(anti, "groupByLabelKey");
  if (key && anti_key && *key == *anti_key) {
    const FieldPath path = anti_path.child("groupByLabelKey");
    errors.invalid(rules::kVW3, path, *anti_key, "must differ from affinity.groupByLabelKey");
  }
}

// V-T1: only Lt and Gt are refused; nothing else about tolerations is checked.
void check_cluster_tolerations(const JsonValue& placement, const FieldPath& placement_path,
                               ErrorList& errors) {
  const JsonValue* list = array_member(&placement, "clusterTolerations");
  if (list == nullptr) return;
  const FieldPath list_path = placement_path.child("clusterTolerations");
  for (SizeType i = 0; i < list->Size(); ++i) {
    const std::string_view op = string_or_empty(&(*list)[i], "operator");
    if (op != "Lt" && op != "Gt") continue;
    const FieldPath item = list_path.index(i);
    const FieldPath path = item.child("operator");
    errors.not_supported(rules::kVT1, path, op, {"", "Exists", "Equal"});
  }
}

}  // namespace

void check_policy_placement(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors) {
  const JsonValue* placement = object_member(&spec, "placement");
  if (placement == nullptr) return;
  const FieldPath placement_path = spec_path.child("placement");
  const FieldPath terms_path = placement_path.child("clusterAffinities");
  const JsonValue* affinity = object_member(placement, "clusterAffinity");
  const JsonValue* terms = array_member(placement, "clusterAffinities");
  if (affinity != nullptr && terms != nullptr) {  // V-P1 / D-P1: `[]` counts as set
    errors.forbidden(rules::kVP1, terms_path,
                     "may not be set together with spec.placement.clusterAffinity");
  }
  check_overflow_support(*placement, terms, terms_path, errors);  // V-P2
  if (affinity != nullptr) {                                      // V-P3
    const FieldPath affinity_path = placement_path.child("clusterAffinity");
    check_cluster_field_selector(rules::kVP3, *affinity, affinity_path, errors);
  }
  check_affinity_terms(terms, terms_path, errors);
  check_spread_constraints(*placement, placement_path, errors);
  check_workload_affinity(*placement, placement_path, errors);
  check_cluster_tolerations(*placement, placement_path, errors);
}

}  // namespace kpw
