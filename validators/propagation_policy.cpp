// PropagationPolicy / ClusterPropagationPolicy rules, one function per rule family, called in the
// upstream's order (docs/compatibility.md "Order of errors"). Reads are lenient: a field of
// the wrong type reads as absent here, because the schema pass has already reported it.
#include "validators/propagation_policy.hpp"

#include <array>
#include <string>
#include <string_view>

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "validators/common.hpp"
#include "validators/propagation_policy_placement.hpp"
#include "validators/propagation_policy_rules.hpp"
#include "validators/propagation_policy_schema.hpp"

namespace kpw {
namespace {

using rapidjson::SizeType;

struct PolicyKind {
  std::string_view permanent_id_label;
  bool cluster_scoped;
};
constexpr PolicyKind kPp{karmada::kPpPermanentIdLabel, false};
constexpr PolicyKind kCpp{karmada::kCppPermanentIdLabel, true};

// ---- metadata and immutability (short-circuiting, as upstream's handler) ----

// V-U1 then V-U2 on UPDATE; true when one fired.
bool check_immutable_fields(const AdmissionRequest& request, const PolicyKind& kind,
                            ErrorList& errors) {
  if (request.operation != Operation::kUpdate || request.old_object == nullptr) return false;
  // V-U1: an exact compare, except that "" (or absent) and "default-scheduler" are one name: the
  // CRD stores "" as the default, and an object stored with "" must not freeze (H8).
  const std::string_view scheduler =
      string_or_empty(object_member(request.object, "spec"), "schedulerName");
  const std::string_view old_scheduler =
      string_or_empty(object_member(request.old_object, "spec"), "schedulerName");
  const auto canonical = [](std::string_view name) {
    return name.empty() ? std::string_view(karmada::kDefaultScheduler) : name;
  };
  if (canonical(scheduler) != canonical(old_scheduler)) {
    const FieldPath spec = FieldPath::root("spec");
    const FieldPath path = spec.child("schedulerName");
    errors.invalid(rules::kVU1, path, scheduler,
                   "the scheduler name cannot be changed (it was " + echoed(old_scheduler) + ")");
    return true;
  }
  // V-U2: the permanent-id label value (missing reads as "").
  const std::string_view id = string_or_empty(
      object_member(object_member(request.object, "metadata"), "labels"), kind.permanent_id_label);
  const std::string_view old_id =
      string_or_empty(object_member(object_member(request.old_object, "metadata"), "labels"),
                      kind.permanent_id_label);
  if (id != old_id) {
    const FieldPath metadata = FieldPath::root("metadata");
    const FieldPath labels = metadata.child("labels");
    const FieldPath path = labels.key(kind.permanent_id_label);
    errors.invalid(rules::kVU2, path, id,
                   "the label is immutable: it is set by the system when the policy is created "
                   "(it was " +
                       echoed(old_id) + ")");
    return true;
  }
  return false;
}

// V-L1: the permanent-id label key must be present (any value); true when missing.
bool check_permanent_id_present(const JsonValue& object, const PolicyKind& kind,
                                ErrorList& errors) {
  const JsonValue* labels = object_member(object_member(&object, "metadata"), "labels");
  if (member(labels, kind.permanent_id_label) != nullptr) return false;
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels_path = metadata.child("labels");
  const FieldPath path = labels_path.key(kind.permanent_id_label);
  errors.required(rules::kVL1, path, "set by the mutating webhook when the policy is created");
  return true;
}

// ---- failover ----

// docs/rules.md principle 5: the design's names still work, with a warning naming the new spelling.
void warn_old_purge_mode(const JsonValue& failover_part, const FieldPath& part_path,
                         AdmissionResult& result) {
  const std::string_view mode = string_or_empty(&failover_part, "purgeMode");
  std::string_view renamed;
  if (mode == karmada::kPurgeGraciously) renamed = karmada::kPurgeGracefully;
  if (mode == karmada::kPurgeImmediately) renamed = karmada::kPurgeDirectly;
  if (renamed.empty()) return;
  const FieldPath path = part_path.child("purgeMode");
  result.warnings.add(path.str() + ": " + echoed(mode) + " is the old name of " + echoed(renamed) +
                      " (removed in Karmada v1.19); use " + echoed(renamed));
}

// V-F5 / V-F6: state preservation alias names are label keys.
void check_state_preservation(Rule rule, const JsonValue& failover_part, const FieldPath& part_path,
                              ErrorList& errors) {
  const JsonValue* rules =
      array_member(object_member(&failover_part, "statePreservation"), "rules");
  if (rules == nullptr) return;
  const FieldPath sp = part_path.child("statePreservation");
  const FieldPath rules_path = sp.child("rules");
  for (SizeType k = 0; k < rules->Size(); ++k) {
    if (!(*rules)[k].IsObject()) continue;
    const FieldPath item = rules_path.index(k);
    check_label_key(rule, (*rules)[k], "aliasLabelName", item, errors);
  }
}

// V-F0 / D-F4: application failover moves dependencies too, so it needs propagateDeps.
void check_propagate_deps(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors) {
  if (object_member(object_member(&spec, "failover"), "application") == nullptr) return;
  if (bool_member(&spec, "propagateDeps").value_or(false)) return;
  const FieldPath path = spec_path.child("propagateDeps");
  errors.invalid_bool(rules::kVF0, path, false, "must be true when application failover is set");
}

// V-F1 … V-F5 and D-F1 … D-F3.
void check_application_failover(const JsonValue& app, const FieldPath& app_path,
                                AdmissionResult& result) {
  ErrorList& errors = result.errors;
  // V-F1 / D-F2: absent is "not set" (upstream panics, code 500).
  const JsonValue* conditions = object_member(&app, "decisionConditions");
  if (const std::optional<std::int64_t> t = int_member(conditions, "tolerationSeconds");
      t && *t < 0) {
    const FieldPath dc = app_path.child("decisionConditions");
    const FieldPath path = dc.child("tolerationSeconds");
    errors.invalid(rules::kVF1, path, static_cast<long long>(*t),
                   "must be greater than or equal to 0");
  }
  // V-F2, V-F3, V-F4 / D-F1: a grace period belongs to graceful purging, and is positive.
  const std::string_view mode = string_or_empty(&app, "purgeMode");
  const std::optional<std::int64_t> grace = int_member(&app, "gracePeriodSeconds");
  const FieldPath grace_path = app_path.child("gracePeriodSeconds");
  const bool graceful = karmada::is_graceful_purge_mode(mode);
  if (grace && !graceful) {
    errors.invalid(rules::kVF2, grace_path, static_cast<long long>(*grace),
                   "only allowed when purgeMode is Gracefully");
  }
  if (!grace && graceful) {
    errors.required(rules::kVF3, grace_path, "must be set when purgeMode is " + std::string(mode));
  }
  if (grace && *grace <= 0) {
    errors.invalid(rules::kVF4, grace_path, static_cast<long long>(*grace),
                   "must be greater than 0");
  }
  check_state_preservation(rules::kVF5, app, app_path, errors);
  // D-F3: the design's fields, checked when present.
  if (const std::optional<std::int64_t> block = int_member(&app, "blockPredecessorSeconds");
      block && *block < 0) {
    const FieldPath path = app_path.child("blockPredecessorSeconds");
    errors.invalid(rules::kDF3, path, static_cast<long long>(*block),
                   "must be greater than or equal to 0");
  }
  if (const JsonValue* pre = object_member(&app, "preConditions")) {
    const FieldPath pre_path = app_path.child("preConditions");
    if (const std::optional<std::int64_t> delay = int_member(pre, "delaySeconds");
        delay && *delay < 0) {
      const FieldPath path = pre_path.child("delaySeconds");
      errors.invalid(rules::kDF3, path, static_cast<long long>(*delay),
                     "must be greater than or equal to 0");
    }
    if (const std::optional<std::string_view> state = string_member(pre, "healthyState");
        state && *state != "Healthy") {
      const FieldPath path = pre_path.child("healthyState");
      errors.not_supported(rules::kDF3, path, *state, {"Healthy"});
    }
  }
  warn_old_purge_mode(app, app_path, result);
}

void check_failover(const JsonValue& spec, const FieldPath& spec_path, AdmissionResult& result) {
  const JsonValue* failover = object_member(&spec, "failover");
  if (failover == nullptr) return;
  const FieldPath failover_path = spec_path.child("failover");
  if (const JsonValue* app = object_member(failover, "application")) {
    const FieldPath app_path = failover_path.child("application");
    check_application_failover(*app, app_path, result);
  }
  if (const JsonValue* cluster = object_member(failover, "cluster")) {
    const FieldPath cluster_path = failover_path.child("cluster");
    check_state_preservation(rules::kVF6, *cluster, cluster_path, result.errors);
    warn_old_purge_mode(*cluster, cluster_path, result);
  }
}

// ---- resource selectors ----

struct KnownKind {
  std::string_view group;
  std::string_view kind;
};
// D-R2: namespaced kinds a cluster-wide preempting policy must pin to a namespace (docs/rules.md
// D-R2, seed 004).
constexpr std::array<KnownKind, 18> kNamespacedKinds = {{
    {"apps", "Deployment"},
    {"apps", "StatefulSet"},
    {"apps", "DaemonSet"},
    {"apps", "ReplicaSet"},
    {"batch", "Job"},
    {"batch", "CronJob"},
    {"", "Pod"},
    {"", "Service"},
    {"", "ConfigMap"},
    {"", "Secret"},
    {"", "ServiceAccount"},
    {"networking.k8s.io", "Ingress"},
    {"", "PersistentVolumeClaim"},
    {"rbac.authorization.k8s.io", "Role"},
    {"rbac.authorization.k8s.io", "RoleBinding"},
    {"autoscaling", "HorizontalPodAutoscaler"},
    {"networking.k8s.io", "NetworkPolicy"},
    {"policy", "PodDisruptionBudget"},
}};
// Cluster-scoped kinds: no namespace is right for them, so no warning either.
constexpr std::array<KnownKind, 12> kClusterScopedKinds = {{
    {"", "Namespace"},
    {"", "Node"},
    {"", "PersistentVolume"},
    {"rbac.authorization.k8s.io", "ClusterRole"},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
    {"apiextensions.k8s.io", "CustomResourceDefinition"},
    {"storage.k8s.io", "StorageClass"},
    {"scheduling.k8s.io", "PriorityClass"},
    {"networking.k8s.io", "IngressClass"},
    {"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
    {"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
    {"apiregistration.k8s.io", "APIService"},
}};

template <std::size_t N>
bool is_listed(const std::array<KnownKind, N>& kinds, std::string_view group,
               std::string_view kind) {
  for (const KnownKind& k : kinds) {
    if (k.group == group && k.kind == kind) return true;
  }
  return false;
}

// The group of `group/version`; "" for the core group (`v1`).
std::string_view api_group(std::string_view api_version) {
  const std::size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

// V-S1 for every selector, then V-R1 / D-R1, then D-R2 (each family over the whole list, as
// upstream loops).
void check_resource_selectors(const JsonValue& spec, const FieldPath& spec_path,
                              const AdmissionRequest& request, const PolicyKind& kind,
                              AdmissionResult& result) {
  const JsonValue* selectors = array_member(&spec, "resourceSelectors");
  if (selectors == nullptr) return;
  const FieldPath list = spec_path.child("resourceSelectors");
  // V-S1: a PP selects only in its own namespace (a CPP's request namespace is "").
  if (!request.ns.empty()) {
    std::string detail;  // built at the first error: an allowed review allocates nothing
    for (SizeType i = 0; i < selectors->Size(); ++i) {
      const std::string_view ns = string_or_empty(&(*selectors)[i], "namespace");
      if (ns == request.ns) continue;
      if (detail.empty()) detail = "must be the policy's namespace " + echoed(request.ns);
      const FieldPath item = list.index(i);
      const FieldPath path = item.child("namespace");
      result.errors.invalid(rules::kVS1, path, ns, detail);
    }
  }
  if (string_or_empty(&spec, "preemption") != "Always") return;  // exact, as upstream
  // V-R1 / D-R1: preemption takes over named resources only.
  for (SizeType i = 0; i < selectors->Size(); ++i) {
    if (!string_or_empty(&(*selectors)[i], "name").empty()) continue;
    const FieldPath item = list.index(i);
    const FieldPath path = item.child("name");
    result.errors.required(rules::kVR1, path,
                           "a selector must name its resource when preemption is Always");
  }
  if (!kind.cluster_scoped) return;
  // D-R2: a CPP that preempts must pin namespaced resources to a namespace.
  std::string detail;  // reused: one allocation for the list, not one per selector
  for (SizeType i = 0; i < selectors->Size(); ++i) {
    const JsonValue& s = (*selectors)[i];
    if (!string_or_empty(&s, "namespace").empty()) continue;
    const std::string_view group = api_group(string_or_empty(&s, "apiVersion"));
    const std::string_view k = string_or_empty(&s, "kind");
    const FieldPath item = list.index(i);
    if (is_listed(kNamespacedKinds, group, k)) {
      const FieldPath path = item.child("namespace");
      detail.assign(k);
      detail +=
          " is namespaced: a ClusterPropagationPolicy with preemption Always must name its "
          "namespace";
      result.errors.required(rules::kDR2, path, detail);
    } else if (!k.empty() && !is_listed(kClusterScopedKinds, group, k)) {
      result.warnings.add_built([&](std::string& w) {
        item.append_to(w);
        w += ": kind ";
        append_echoed_string(w, k);
        w += " has no namespace; if it is namespaced, preemption Always in a "
             "ClusterPropagationPolicy should name the namespace";
      });
    }
  }
}

// V-X1: `dispatching: true` already suspends every cluster.
void check_suspension(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors) {
  const JsonValue* suspension = object_member(&spec, "suspension");
  if (!bool_member(suspension, "dispatching").value_or(false)) return;
  if (array_size(object_member(suspension, "dispatchingOnClusters"), "clusterNames") == 0) return;
  const FieldPath suspension_path = spec_path.child("suspension");
  const FieldPath path = suspension_path.child("dispatchingOnClusters");
  errors.forbidden(rules::kVX1, path,
                   "may not name clusters while dispatching is true (which suspends all)");
}

void validate_policy(const AdmissionRequest& request, const PolicyKind& kind,
                     AdmissionResult& result) {
  ErrorList& errors = result.errors;
  if (check_immutable_fields(request, kind, errors)) return;              // V-U1, V-U2
  if (check_permanent_id_present(*request.object, kind, errors)) return;  // V-L1
  const FieldPath spec_path = FieldPath::root("spec");
  const JsonValue* spec_member = member(request.object, "spec");
  if (spec_member == nullptr || !spec_member->IsObject()) {
    if (spec_member == nullptr) {
      errors.required(rules::kSC3, spec_path, "a policy needs spec.resourceSelectors");
    } else {
      errors.invalid(rules::kSC1, spec_path, *spec_member, "must be of type object");
    }
    return;
  }
  const JsonValue& spec = *spec_member;
  schema::check_object(propagation_policy_schema(), spec, spec_path, errors);  // SC-1 … SC-6
  check_policy_placement(spec, spec_path, errors);
  check_propagate_deps(spec, spec_path, errors);  // V-F0 / D-F4
  check_failover(spec, spec_path, result);
  check_resource_selectors(spec, spec_path, request, kind, result);  // V-S1, V-R1, D-R2
  check_suspension(spec, spec_path, errors);                         // V-X1
  if (bool_member(&spec, "association").value_or(false)) {
    result.warnings.add("spec.association is deprecated; use spec.propagateDeps");
  }
}

}  // namespace

void validate_propagation_policy(const AdmissionRequest& request, AdmissionResult& result) {
  validate_policy(request, kPp, result);
}

void validate_cluster_propagation_policy(const AdmissionRequest& request, AdmissionResult& result) {
  validate_policy(request, kCpp, result);
}

}  // namespace kpw