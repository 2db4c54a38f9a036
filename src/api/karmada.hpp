// Karmada API names: groups, kinds, label keys, finalizers and enum spellings.
#pragma once

#include <string_view>

namespace kpw::karmada {

inline constexpr std::string_view kPolicyGroup = "policy.karmada.io";
inline constexpr std::string_view kAppsGroup = "apps.karmada.io";

inline constexpr std::string_view kPropagationPolicy = "PropagationPolicy";
inline constexpr std::string_view kClusterPropagationPolicy = "ClusterPropagationPolicy";
inline constexpr std::string_view kWorkloadRebalancer = "WorkloadRebalancer";
inline constexpr std::string_view kScheduleTrigger = "ScheduleTrigger";
inline constexpr std::string_view kOverridePolicy = "OverridePolicy";
inline constexpr std::string_view kClusterOverridePolicy = "ClusterOverridePolicy";
inline constexpr std::string_view kFederatedResourceQuota = "FederatedResourceQuota";
inline constexpr std::string_view kClusterTaintPolicy = "ClusterTaintPolicy";

inline constexpr std::string_view kPpPermanentIdLabel = "propagationpolicy.karmada.io/permanent-id";
inline constexpr std::string_view kCppPermanentIdLabel =
    "clusterpropagationpolicy.karmada.io/permanent-id";
inline constexpr std::string_view kPpFinalizer = "karmada.io/propagation-policy-controller";
inline constexpr std::string_view kCppFinalizer =
    "karmada.io/cluster-propagation-policy-controller";
// Deletion protection: a resource template labelled so with exactly "Always" cannot be deleted
// (upstream's /validate-resourcedeletionprotection; any other value protects nothing).
inline constexpr std::string_view kDeletionProtectedLabel =
    "resourcetemplate.karmada.io/deletion-protected";
inline constexpr std::string_view kDeletionProtectedAlways = "Always";
// The CRD's default for spec.schedulerName.
inline constexpr std::string_view kDefaultScheduler = "default-scheduler";

// Purge modes: the current names and the design document's (docs/rules.md, principle 5).
inline constexpr std::string_view kPurgeDirectly = "Directly";
inline constexpr std::string_view kPurgeGracefully = "Gracefully";
inline constexpr std::string_view kPurgeNever = "Never";
inline constexpr std::string_view kPurgeImmediately = "Immediately";  // old name of Directly
inline constexpr std::string_view kPurgeGraciously = "Graciously";    // old name of Gracefully

inline bool is_graceful_purge_mode(std::string_view mode) {
  return mode == kPurgeGracefully || mode == kPurgeGraciously;
}

// work.karmada.io: the bindings and Work.
inline constexpr std::string_view kWorkGroup = "work.karmada.io";
inline constexpr std::string_view kWork = "Work";
// A Work's permanent ID, on the Work and on each of its manifests.
inline constexpr std::string_view kWorkPermanentIdLabel = "work.karmada.io/permanent-id";
// The keys a manifest's annotations and labels had when the Work was written.
inline constexpr std::string_view kManagedAnnotations =
    "resourcetemplate.karmada.io/managed-annotations";
inline constexpr std::string_view kManagedLabels = "resourcetemplate.karmada.io/managed-labels";
inline constexpr std::string_view kResourceBinding = "ResourceBinding";
inline constexpr std::string_view kClusterResourceBinding = "ClusterResourceBinding";
inline constexpr std::string_view kRbPermanentIdLabel = "resourcebinding.karmada.io/permanent-id";
inline constexpr std::string_view kCrbPermanentIdLabel =
    "clusterresourcebinding.karmada.io/permanent-id";
// A binding's dependencies (a JSON list of DependentObjectReference), written by the dependencies
// distributor.
inline constexpr std::string_view kBindingDependenciesAnnotation =
    "resourcebinding.karmada.io/dependencies";
// The Status reason of RB-2's denial (karmada's util.QuotaExceededReason).
inline constexpr std::string_view kQuotaExceededReason = "QuotaExceeded";

// networking.karmada.io
inline constexpr std::string_view kNetworkingGroup = "networking.karmada.io";
inline constexpr std::string_view kMultiClusterService = "MultiClusterService";
inline constexpr std::string_view kMultiClusterIngress = "MultiClusterIngress";

// autoscaling.karmada.io
inline constexpr std::string_view kAutoscalingGroup = "autoscaling.karmada.io";
inline constexpr std::string_view kFederatedHPA = "FederatedHPA";
inline constexpr std::string_view kCronFederatedHPA = "CronFederatedHPA";

// config.karmada.io
inline constexpr std::string_view kConfigGroup = "config.karmada.io";
inline constexpr std::string_view kResourceInterpreterWebhookConfiguration =
    "ResourceInterpreterWebhookConfiguration";
inline constexpr std::string_view kResourceInterpreterCustomization =
    "ResourceInterpreterCustomization";
inline constexpr std::string_view kMcsPermanentIdLabel =
    "multiclusterservice.karmada.io/permanent-id";

}  // namespace kpw::karmada
