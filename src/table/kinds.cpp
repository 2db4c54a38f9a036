// The kinds: one row per kind this server serves, as data (docs/architecture.md, "The tables").
#include <array>
#include <cstddef>
#include <string>

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "table/table.hpp"
#include "table/table_kinds.hpp"
#include "util/json_text.hpp"
#include "validators/cluster_taint_policy.hpp"
#include "validators/federated_resource_quota.hpp"
#include "validators/override_policy_schema.hpp"
#include "validators/propagation_policy_schema.hpp"

namespace kpw {
namespace {

// The policy CRDs' defaults (policy.karmada.io_{cluster,}propagationpolicies.yaml).
constexpr auto kPolicyDefaults = std::to_array<CrdDefault>({
    {"spec.priority", std::int64_t{0}},
    {"spec.preemption", std::string_view("Never")},
    {"spec.schedulerName", std::string_view("default-scheduler")},
    {"spec.conflictResolution", std::string_view("Abort")},
    {"spec.placement.replicaScheduling.replicaSchedulingType", std::string_view("Divided")},
    {"spec.failover.application.purgeMode", std::string_view("Gracefully")},
    {"spec.failover.application.decisionConditions.tolerationSeconds", std::int64_t{300}},
    {"spec.failover.cluster.purgeMode", std::string_view("Gracefully")},
});

constexpr std::array<std::string_view, 1> kV1alpha1 = {"v1alpha1"};
// The bindings' CRDs serve both; v1alpha2 is stored (objects of v1alpha1 are converted through
// /convert).
constexpr std::array<std::string_view, 2> kV1alpha2V1alpha1 = {"v1alpha2", "v1alpha1"};

// The binding CRDs' defaults (work.karmada.io_{cluster,}resourcebindings.yaml, v1alpha2; v1alpha1
// has none, and its objects hold none of these parents).
constexpr auto kBindingDefaults = std::to_array<CrdDefault>({
    {"spec.conflictResolution", std::string_view("Abort")},
    {"spec.failover.application.decisionConditions.tolerationSeconds", std::int64_t{300}},
    {"spec.failover.application.purgeMode", std::string_view("Gracefully")},
    {"spec.failover.cluster.purgeMode", std::string_view("Gracefully")},
    {"spec.placement.replicaScheduling.replicaSchedulingType", std::string_view("Divided")},
    {"spec.schedulePriority.priority", std::int64_t{0}},
});

using karmada::kAppsGroup;
using karmada::kPolicyGroup;
using karmada::kWorkGroup;

JsonValue* child_object(JsonValue& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  JsonValue* child = find_member(obj, key);
  return child != nullptr && child->IsObject() ? child : nullptr;
}

void set_if_absent(JsonValue& obj, std::string_view key, const CrdDefault& d,
                   JsonAllocator& allocator) {
  JsonValue value;
  if (const auto* s = std::get_if<std::string_view>(&d.value)) {
    value.SetString(s->data(), static_cast<rapidjson::SizeType>(s->size()), allocator);
  } else {
    value.SetInt64(std::get<std::int64_t>(d.value));
  }
  if (JsonValue* existing = find_member(obj, key)) {
    if (existing->IsNull()) *existing = value;
    return;
  }
  obj.AddMember(JsonValue(key.data(), static_cast<rapidjson::SizeType>(key.size()), allocator),
                value, allocator);
}

}  // namespace

namespace table {

const Kind kPropagationPolicy{.group = kPolicyGroup,
                              .versions = kV1alpha1,
                              .kind = karmada::kPropagationPolicy,
                              .resource = "propagationpolicies",
                              .namespaced = true,
                              .crd_defaults = kPolicyDefaults,
                              .spec_fields = &check_policy_unknown_fields};
const Kind kClusterPropagationPolicy{.group = kPolicyGroup,
                                     .versions = kV1alpha1,
                                     .kind = karmada::kClusterPropagationPolicy,
                                     .resource = "clusterpropagationpolicies",
                                     .namespaced = false,
                                     .crd_defaults = kPolicyDefaults,
                                     .spec_fields = &check_policy_unknown_fields};
const Kind kWorkloadRebalancer{.group = kAppsGroup,
                               .versions = kV1alpha1,
                               .kind = karmada::kWorkloadRebalancer,
                               .resource = "workloadrebalancers",
                               .namespaced = false,
                               .crd_defaults = {},
                               .spec_fields = nullptr};
const Kind kScheduleTrigger{.group = kPolicyGroup,
                            .versions = kV1alpha1,
                            .kind = karmada::kScheduleTrigger,
                            .resource = "scheduletriggers",
                            .namespaced = false,
                            .crd_defaults = {},
                            .spec_fields = nullptr};
const Kind kOverridePolicy{.group = kPolicyGroup,
                           .versions = kV1alpha1,
                           .kind = karmada::kOverridePolicy,
                           .resource = "overridepolicies",
                           .namespaced = true,
                           .crd_defaults = {},
                           .spec_fields = &check_override_policy_unknown_fields};
const Kind kClusterOverridePolicy{.group = kPolicyGroup,
                                  .versions = kV1alpha1,
                                  .kind = karmada::kClusterOverridePolicy,
                                  .resource = "clusteroverridepolicies",
                                  .namespaced = false,
                                  .crd_defaults = {},
                                  .spec_fields = &check_override_policy_unknown_fields};
const Kind kFederatedResourceQuota{.group = kPolicyGroup,
                                   .versions = kV1alpha1,
                                   .kind = karmada::kFederatedResourceQuota,
                                   .resource = "federatedresourcequotas",
                                   .namespaced = true,
                                   .crd_defaults = {},
                                   .spec_fields = &check_federated_resource_quota_unknown_fields};
const Kind kClusterTaintPolicy{.group = kPolicyGroup,
                               .versions = kV1alpha1,
                               .kind = karmada::kClusterTaintPolicy,
                               .resource = "clustertaintpolicies",
                               .namespaced = false,
                               .crd_defaults = {},
                               .spec_fields = &check_cluster_taint_policy_unknown_fields};
const Kind kResourceBinding{.group = kWorkGroup,
                            .versions = kV1alpha2V1alpha1,
                            .kind = karmada::kResourceBinding,
                            .resource = "resourcebindings",
                            .namespaced = true,
                            .crd_defaults = kBindingDefaults,
                            .spec_fields = nullptr};
const Kind kClusterResourceBinding{.group = kWorkGroup,
                                   .versions = kV1alpha2V1alpha1,
                                   .kind = karmada::kClusterResourceBinding,
                                   .resource = "clusterresourcebindings",
                                   .namespaced = false,
                                   .crd_defaults = kBindingDefaults,
                                   .spec_fields = nullptr};

// Upstream's: the manifests are whole objects the webhook prunes (mutators/work.cpp); the CRD
// has no defaults, and `check` reads no spec field.
const Kind kWork{.group = karmada::kWorkGroup,
                 .versions = kV1alpha1,
                 .kind = karmada::kWork,
                 .resource = "works",
                 .namespaced = true,
                 .crd_defaults = {},
                 .spec_fields = nullptr};

constexpr std::array<std::string_view, 1> kWebhooksField = {"webhooks"};

const Kind kResourceInterpreterWebhookConfiguration{
    .group = karmada::kConfigGroup,
    .versions = kV1alpha1,
    .kind = karmada::kResourceInterpreterWebhookConfiguration,
    .resource = "resourceinterpreterwebhookconfigurations",
    .namespaced = false,
    .crd_defaults = {},
    .spec_fields = nullptr,
    .top_level_fields = kWebhooksField};

const Kind kMultiClusterIngress{.group = karmada::kNetworkingGroup,
                                .versions = kV1alpha1,
                                .kind = karmada::kMultiClusterIngress,
                                .resource = "multiclusteringresses",
                                .namespaced = true,
                                .crd_defaults = {},
                                .spec_fields = nullptr};

const Kind kMultiClusterService{.group = karmada::kNetworkingGroup,
                                .versions = kV1alpha1,
                                .kind = karmada::kMultiClusterService,
                                .resource = "multiclusterservices",
                                .namespaced = true,
                                .crd_defaults = {},
                                .spec_fields = nullptr};

const Kind kFederatedHPA{.group = karmada::kAutoscalingGroup,
                         .versions = kV1alpha1,
                         .kind = karmada::kFederatedHPA,
                         .resource = "federatedhpas",
                         .namespaced = true,
                         .crd_defaults = {},
                         .spec_fields = nullptr};

const Kind kCronFederatedHPA{.group = karmada::kAutoscalingGroup,
                             .versions = kV1alpha1,
                             .kind = karmada::kCronFederatedHPA,
                             .resource = "cronfederatedhpas",
                             .namespaced = true,
                             .crd_defaults = {},
                             .spec_fields = nullptr};

const Kind kResourceInterpreterCustomization{.group = karmada::kConfigGroup,
                                             .versions = kV1alpha1,
                                             .kind = karmada::kResourceInterpreterCustomization,
                                             .resource = "resourceinterpretercustomizations",
                                             .namespaced = false,
                                             .crd_defaults = {},
                                             .spec_fields = nullptr};

}  // namespace table

namespace {
// In the order --help, `kinds` and the docs list them.
constexpr auto kKinds = std::to_array<const Kind*>({
    &table::kPropagationPolicy,
    &table::kClusterPropagationPolicy,
    &table::kWorkloadRebalancer,
    &table::kScheduleTrigger,
    &table::kOverridePolicy,
    &table::kClusterOverridePolicy,
    &table::kFederatedResourceQuota,
    &table::kClusterTaintPolicy,
    &table::kResourceBinding,
    &table::kClusterResourceBinding,
    &table::kWork,
    &table::kMultiClusterIngress,
    &table::kMultiClusterService,
    &table::kResourceInterpreterWebhookConfiguration,
    &table::kFederatedHPA,
    &table::kCronFederatedHPA,
    &table::kResourceInterpreterCustomization,
});
}  // namespace

std::span<const Kind* const> kinds() { return kKinds; }

const Kind* find_kind(std::string_view group, std::string_view kind) {
  for (const Kind* k : kKinds) {
    if (k->group == group && k->kind == kind) return k;
  }
  return nullptr;
}

std::string kind_names() {
  std::string out;
  for (const Kind* k : kKinds) {
    if (!out.empty()) out += ", ";
    out += k->kind;
  }
  return out;
}

void apply_crd_defaults(const Kind& kind, JsonValue& object, JsonAllocator& allocator) {
  for (const CrdDefault& d : kind.crd_defaults) {
    JsonValue* parent = &object;
    std::string_view rest = d.path;
    for (std::size_t dot = rest.find('.'); dot != std::string_view::npos && parent != nullptr;
         dot = rest.find('.')) {
      parent = child_object(*parent, rest.substr(0, dot));
      rest.remove_prefix(dot + 1);
    }
    if (parent != nullptr) set_if_absent(*parent, rest, d, allocator);
  }
}

// The kinds as JSON, one object per kind (`karmada-policy-webhook kinds`).
std::string kinds_json() {
  std::string out = "[";
  for (const Kind* k : kKinds) {
    if (out.size() > 1) out += ",";
    out += "\n  {\"group\":";
    append_json_string(out, k->group);
    out += ",\"versions\":[";
    for (std::size_t i = 0; i < k->versions.size(); ++i) {
      if (i > 0) out += ",";
      append_json_string(out, k->versions[i]);
    }
    out += "],\"kind\":";
    append_json_string(out, k->kind);
    out += ",\"resource\":";
    append_json_string(out, k->resource);
    out += ",\"scope\":";
    append_json_string(out, k->namespaced ? "Namespaced" : "Cluster");
    out += "}";
  }
  out += "\n]\n";
  return out;
}

}  // namespace kpw
