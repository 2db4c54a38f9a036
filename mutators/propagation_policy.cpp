// Steps M-1…M-7 of upstream's mutator and the design defaults (docs/compatibility.md,
// "Mutation"), on the object normalised as upstream's round trip stores it (policy_normalise.cpp:
// explicit empties upstream drops are dropped, or given the CRD default they come back as). A
// default fills an absent (or null) key; explicit values stay, except the zeros upstream's own
// rules rewrite (`minGroups: 0`). A mutator never denies: a field of the wrong type is left for the
// validator.
#include "mutators/propagation_policy.hpp"

#include <string_view>

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "mutators/policy_normalise.hpp"
#include "util/uuid.hpp"

namespace kpw {
namespace {

struct PolicyKind {
  std::string_view permanent_id_label;
  std::string_view finalizer;
  bool namespaced;
};

constexpr PolicyKind kPp{karmada::kPpPermanentIdLabel, karmada::kPpFinalizer, true};
constexpr PolicyKind kCpp{karmada::kCppPermanentIdLabel, karmada::kCppFinalizer, false};

bool absent(const JsonValue* obj, std::string_view key) { return member(obj, key) == nullptr; }

// M-1 (PP only): a selector without namespace gets the request's namespace.
void default_selector_namespaces(const AdmissionRequest& req, const JsonValue* spec,
                                 const FieldPath& spec_path, JsonPatch& patch) {
  const JsonValue* selectors = array_member(spec, "resourceSelectors");
  if (selectors == nullptr || req.ns.empty()) return;
  const FieldPath list = spec_path.child("resourceSelectors");
  for (rapidjson::SizeType i = 0; i < selectors->Size(); ++i) {
    const JsonValue& sel = (*selectors)[i];
    if (!sel.IsObject() || !string_or_empty(&sel, "namespace").empty()) continue;
    if (member(&sel, "namespace") != nullptr && !member(&sel, "namespace")->IsString()) continue;
    const FieldPath item = list.index(i);
    patch.set(item.child("namespace"), req.ns);
  }
}

// M-2: spread constraints by cluster with at least one group, unless said otherwise; M-2b rewrites
// an explicit `minGroups: 0` too (the scheduler divides by it).
void default_spread_constraints(const JsonValue* placement, const FieldPath& placement_path,
                                JsonPatch& patch) {
  const JsonValue* constraints = array_member(placement, "spreadConstraints");
  if (constraints == nullptr) return;
  const FieldPath list = placement_path.child("spreadConstraints");
  for (rapidjson::SizeType i = 0; i < constraints->Size(); ++i) {
    const JsonValue& c = (*constraints)[i];
    if (!c.IsObject()) continue;
    const FieldPath item = list.index(i);
    if (string_or_empty(&c, "spreadByField").empty() &&
        string_or_empty(&c, "spreadByLabel").empty() &&
        (absent(&c, "spreadByField") || member(&c, "spreadByField")->IsString())) {
      patch.set(item.child("spreadByField"), std::string_view("cluster"));
    }
    const JsonValue* min_groups = member(&c, "minGroups");
    if (min_groups == nullptr || (min_groups->IsInt64() && min_groups->GetInt64() == 0)) {
      patch.set(item.child("minGroups"), std::int64_t{1});
    }
  }
}

// M-3: a ServiceImport selector needs its dependencies propagated.
void default_propagate_deps(const JsonValue* spec, const FieldPath& spec_path, JsonPatch& patch) {
  const JsonValue* selectors = array_member(spec, "resourceSelectors");
  if (selectors == nullptr || bool_member(spec, "propagateDeps").value_or(false)) return;
  for (const JsonValue& sel : selectors->GetArray()) {
    if (string_or_empty(&sel, "kind") == "ServiceImport" &&
        string_or_empty(&sel, "apiVersion") == "multicluster.x-k8s.io/v1alpha1") {
      if (const JsonValue* v = member(spec, "propagateDeps"); v != nullptr && !v->IsBool()) return;
      patch.set(spec_path.child("propagateDeps"), true);
      return;
    }
  }
}

// M-4: divided replicas are weighted unless a preference is given. An explicit
// `replicaSchedulingType: ""` is the Divided it is stored as, so it gets its Weighted too (H1:
// upstream stores Divided without a preference, which the scheduler refuses).
void default_division_preference(const JsonValue* placement, const FieldPath& placement_path,
                                 JsonPatch& patch) {
  const JsonValue* rs = object_member(placement, "replicaScheduling");
  // Upstream's condition is the empty string, so an explicit "" is filled as well.
  const JsonValue* preference = member(rs, "replicaDivisionPreference");
  const JsonValue* type = member(rs, "replicaSchedulingType");
  const bool divided = type != nullptr && type->IsString() &&
                       (view(*type) == "Divided" || type->GetStringLength() == 0);
  if (rs == nullptr || !divided ||
      (preference != nullptr && !(preference->IsString() && preference->GetStringLength() == 0))) {
    return;
  }
  const FieldPath rs_path = placement_path.child("replicaScheduling");
  patch.set(rs_path.child("replicaDivisionPreference"), std::string_view("Weighted"));
}

// M-5 and the design defaults of application failover: purge mode, grace period, toleration.
// `purgeMode: ""` is the Gracefully it is stored as and gets its grace period too (H7), except
// under --strict-rules=off: there, as upstream's M-5 reads the raw "", it gets none, and the
// validator then gives upstream's verdict (V-F3 on the stored Gracefully).
void default_application_failover(const JsonValue* spec, const FieldPath& spec_path,
                                  const Settings& settings, JsonPatch& patch) {
  const JsonValue* app = object_member(object_member(spec, "failover"), "application");
  if (app == nullptr) return;
  const FieldPath failover_path = spec_path.child("failover");
  const FieldPath app_path = failover_path.child("application");

  std::string_view purge_mode = string_or_empty(app, "purgeMode");
  if (const JsonValue* value = member(app, "purgeMode");
      value != nullptr && value->IsString() && value->GetStringLength() == 0 &&
      settings.strict_rules != StrictRules::kOff) {
    purge_mode = "Gracefully";  // H7: what "" is stored as (policy_normalise.cpp)
  }
  if (absent(app, "purgeMode")) {
    purge_mode = settings.purge_mode;
    patch.set(app_path.child("purgeMode"), purge_mode);
  }
  if (karmada::is_graceful_purge_mode(purge_mode) && absent(app, "gracePeriodSeconds")) {
    patch.set(app_path.child("gracePeriodSeconds"), std::int64_t{600});
  }
  const JsonValue* decision = member(app, "decisionConditions");
  if (decision != nullptr && !decision->IsObject()) return;
  if (absent(decision, "tolerationSeconds")) {
    const FieldPath decision_path = app_path.child("decisionConditions");
    patch.set(decision_path.child("tolerationSeconds"), settings.toleration_seconds);
  }
}

// Design defaults at the top of spec: priority 0, preemption Never.
void default_priority_and_preemption(const JsonValue* spec, const FieldPath& spec_path,
                                     JsonPatch& patch) {
  if (absent(spec, "priority")) patch.set(spec_path.child("priority"), std::int64_t{0});
  if (absent(spec, "preemption"))
    patch.set(spec_path.child("preemption"), std::string_view("Never"));
}

// M-6 and M-7 (CREATE only): a fresh permanent id, always (upstream overwrites a user's value),
// and the controller's finalizer at the end of the list unless present.
void identify_on_create(const PolicyKind& kind, const JsonValue* object, JsonPatch& patch) {
  const JsonValue* metadata = member(object, "metadata");
  if (metadata != nullptr && !metadata->IsObject()) return;
  const FieldPath metadata_path = FieldPath::root("metadata");
  const FieldPath labels_path = metadata_path.child("labels");
  const JsonValue* labels = member(metadata, "labels");
  if (labels == nullptr || labels->IsObject()) {
    const UuidText id = random_uuid_v4();
    patch.set(labels_path.key(kind.permanent_id_label), std::string_view(id.data(), id.size()));
  }
  const JsonValue* finalizers = member(metadata, "finalizers");
  if (finalizers != nullptr && !finalizers->IsArray()) return;
  if (finalizers != nullptr) {
    for (const JsonValue& f : finalizers->GetArray()) {
      if (f.IsString() && view(f) == kind.finalizer) return;
    }
  }
  patch.append(metadata_path.child("finalizers"), kind.finalizer);
}

void mutate(const PolicyKind& kind, const AdmissionRequest& req, AdmissionResult& result) {
  JsonPatch& patch = result.patch;
  const JsonValue* spec = member(req.object, "spec");
  if (spec != nullptr && spec->IsObject()) {
    const FieldPath spec_path = FieldPath::root("spec");
    const FieldPath placement_path = spec_path.child("placement");
    const JsonValue* placement = object_member(spec, "placement");
    normalise_policy_spec(*spec, spec_path, !kind.namespaced, patch);
    if (kind.namespaced) default_selector_namespaces(req, spec, spec_path, patch);
    default_spread_constraints(placement, placement_path, patch);
    default_propagate_deps(spec, spec_path, patch);
    default_division_preference(placement, placement_path, patch);
    default_application_failover(spec, spec_path, *req.settings, patch);
    default_priority_and_preemption(spec, spec_path, patch);
  }
  if (req.operation == Operation::kCreate) identify_on_create(kind, req.object, patch);
}

}  // namespace

void mutate_propagation_policy(const AdmissionRequest& request, AdmissionResult& result) {
  mutate(kPp, request, result);
}

void mutate_cluster_propagation_policy(const AdmissionRequest& request, AdmissionResult& result) {
  mutate(kCpp, request, result);
}

}  // namespace kpw
