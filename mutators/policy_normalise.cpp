// The round-trip table (docs/compatibility.md, "End-to-end parity"), one function per Go type.
// Row tags name the round-trip rules: RT-1 (an `omitempty` non-pointer field holding its Go zero
// is dropped; where the CRD has a default, the API server puts the default back, so we write the
// default directly). What upstream's round trip does that harms (H1-H11) is not copied here: the
// strict schema rules deny those objects instead, or the value rules judge them as what they
// become (H1, H7: mutators/propagation_policy.cpp).
#include "mutators/policy_normalise.hpp"

#include <initializer_list>
#include <string_view>

#include "api/object.hpp"
#include "mutators/round_trip.hpp"

namespace kpw {
namespace {

// clusterAffinities[]: the inline affinity, the overflow terms, and `overflowAffinities: []`
// (A2/A3: the empty list upstream drops is no longer "set" for V-P2 and V-P7).
void normalise_affinity_terms(const JsonValue& placement, const FieldPath& placement_path,
                              JsonPatch& patch) {
  for_each_object(placement, placement_path, "clusterAffinities",
                  [&](const JsonValue& term, const FieldPath& term_path) {
                    normalise_cluster_affinity(term, term_path, patch);
                    for_each_object(term, term_path, "overflowAffinities",
                                    [&](const JsonValue& o, const FieldPath& o_path) {
                                      normalise_cluster_affinity(o, o_path, patch);
                                    });
                    drop_zeros(term, term_path, {{"overflowAffinities", Zero::kList}}, patch);
                  });
}

// Spread constraints: `spreadByLabel: ""`, `maxGroups: 0`, and `spreadByField: ""` beside a label
// are dropped (with both empty M-2a fills `cluster`; `minGroups: 0` is M-2b's).
void normalise_spread_constraints(const JsonValue& placement, const FieldPath& placement_path,
                                  JsonPatch& patch) {
  for_each_object(
      placement, placement_path, "spreadConstraints",
      [&](const JsonValue& c, const FieldPath& c_path) {
        if (!string_or_empty(&c, "spreadByLabel").empty()) {
          drop_zeros(c, c_path, {{"spreadByField", Zero::kString}}, patch);
        }
        drop_zeros(c, c_path, {{"spreadByLabel", Zero::kString}, {"maxGroups", Zero::kInt}}, patch);
      });
}

// replicaScheduling: `replicaSchedulingType: ""` becomes the CRD's Divided (M-4 then gives it its
// Weighted, H1); a preference "" under Duplicated and `dynamicWeight: ""` are dropped; static
// weights keep their affinity (C4) normalised.
void normalise_replica_scheduling(const JsonValue& placement, const FieldPath& placement_path,
                                  JsonPatch& patch) {
  const JsonValue* rs = object_member(&placement, "replicaScheduling");
  if (rs == nullptr) return;
  const FieldPath rs_path = placement_path.child("replicaScheduling");
  default_empty_string(*rs, rs_path, "replicaSchedulingType", "Divided", patch);
  if (string_or_empty(rs, "replicaSchedulingType") == "Duplicated") {
    drop_zeros(*rs, rs_path, {{"replicaDivisionPreference", Zero::kString}}, patch);
  }
  const JsonValue* weights = object_member(rs, "weightPreference");
  if (weights == nullptr) return;
  const FieldPath weights_path = rs_path.child("weightPreference");
  for_each_object(*weights, weights_path, "staticWeightList",
                  [&](const JsonValue& w, const FieldPath& w_path) {
                    if (const JsonValue* target = object_member(&w, "targetCluster")) {
                      const FieldPath target_path = w_path.child("targetCluster");
                      normalise_cluster_affinity(*target, target_path, patch);
                    }
                  });
  drop_zeros(*weights, weights_path,
             {{"staticWeightList", Zero::kList}, {"dynamicWeight", Zero::kString}}, patch);
}

// placement: A1 (`clusterAffinities: []` is dropped, so it no longer conflicts with
// clusterAffinity), the affinities, tolerations, spread constraints, replica scheduling.
void normalise_placement(const JsonValue& spec, const FieldPath& spec_path, JsonPatch& patch) {
  const JsonValue* placement = object_member(&spec, "placement");
  if (placement == nullptr) return;
  const FieldPath placement_path = spec_path.child("placement");
  if (const JsonValue* affinity = object_member(placement, "clusterAffinity")) {
    const FieldPath affinity_path = placement_path.child("clusterAffinity");
    normalise_cluster_affinity(*affinity, affinity_path, patch);
  }
  normalise_affinity_terms(*placement, placement_path, patch);
  for_each_object(*placement, placement_path, "clusterTolerations",
                  [&](const JsonValue& t, const FieldPath& t_path) {
                    drop_zeros(t, t_path,
                               {{"key", Zero::kString},
                                {"operator", Zero::kString},
                                {"value", Zero::kString},
                                {"effect", Zero::kString}},
                               patch);
                  });
  normalise_spread_constraints(*placement, placement_path, patch);
  normalise_replica_scheduling(*placement, placement_path, patch);
  drop_zeros(*placement, placement_path,
             {{"clusterAffinities", Zero::kList},
              {"clusterTolerations", Zero::kList},
              {"spreadConstraints", Zero::kList}},
             patch);
}

// failover: a purge mode "" becomes the CRD's Gracefully (H7: judged as what it becomes, so M-5
// gives it its grace period, where upstream answers a misleading 403).
void normalise_failover(const JsonValue& spec, const FieldPath& spec_path, JsonPatch& patch) {
  const JsonValue* failover = object_member(&spec, "failover");
  if (failover == nullptr) return;
  const FieldPath failover_path = spec_path.child("failover");
  for (std::string_view part : {"application", "cluster"}) {
    const JsonValue* p = object_member(failover, part);
    if (p == nullptr) continue;
    const FieldPath part_path = failover_path.child(part);
    default_empty_string(*p, part_path, "purgeMode", "Gracefully", patch);
  }
}

// Resource selectors: `name: ""` is dropped; an empty namespace is the request's in a
// PropagationPolicy (M-1) and dropped in a ClusterPropagationPolicy.
void normalise_resource_selectors(const JsonValue& spec, const FieldPath& spec_path,
                                  bool cluster_scoped, JsonPatch& patch) {
  for_each_object(spec, spec_path, "resourceSelectors",
                  [&](const JsonValue& s, const FieldPath& s_path) {
                    drop_zeros(s, s_path, {{"name", Zero::kString}}, patch);
                    if (cluster_scoped) {
                      drop_zeros(s, s_path, {{"namespace", Zero::kString}}, patch);
                    }
                    normalise_label_selector(s, s_path, patch);
                  });
}

}  // namespace

void normalise_policy_spec(const JsonValue& spec, const FieldPath& spec_path, bool cluster_scoped,
                           JsonPatch& patch) {
  normalise_resource_selectors(spec, spec_path, cluster_scoped, patch);
  normalise_placement(spec, spec_path, patch);
  normalise_failover(spec, spec_path, patch);
  // The top of spec: enums with a CRD default get it back, the others are dropped.
  default_empty_string(spec, spec_path, "preemption", "Never", patch);
  default_empty_string(spec, spec_path, "conflictResolution", "Abort", patch);
  default_empty_string(spec, spec_path, "schedulerName", "default-scheduler", patch);
  drop_zeros(spec, spec_path,
             {{"association", Zero::kBool},
              {"propagateDeps", Zero::kBool},
              {"dependentOverrides", Zero::kList},
              {"activationPreference", Zero::kString}},
             patch);
  if (const JsonValue* suspension = object_member(&spec, "suspension")) {
    const FieldPath suspension_path = spec_path.child("suspension");
    if (const JsonValue* on = object_member(suspension, "dispatchingOnClusters")) {
      const FieldPath on_path = suspension_path.child("dispatchingOnClusters");
      drop_zeros(*on, on_path, {{"clusterNames", Zero::kList}}, patch);
    }
  }
}

}  // namespace kpw
