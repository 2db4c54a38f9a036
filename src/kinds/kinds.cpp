#include "kinds/kinds.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "admission/registry.hpp"
#include "api/karmada.hpp"
#include "api/object.hpp"
#include "mutators/override_policy.hpp"
#include "mutators/propagation_policy.hpp"
#include "mutators/schedule_trigger.hpp"
#include "mutators/workload_rebalancer.hpp"
#include "util/json_text.hpp"
#include "validators/cluster_taint_policy.hpp"
#include "validators/federated_resource_quota.hpp"
#include "validators/override_policy.hpp"
#include "validators/override_policy_schema.hpp"
#include "validators/propagation_policy.hpp"
#include "validators/propagation_policy_rules.hpp"
#include "validators/propagation_policy_schema.hpp"
#include "validators/schedule_trigger.hpp"
#include "validators/workload_rebalancer.hpp"

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

using karmada::kAppsGroup;
using karmada::kPolicyGroup;

// One row per kind; designated members so a row reads as what it says.
constexpr auto kKinds = std::to_array<Kind>({
    {.group = kPolicyGroup,
     .version = "v1alpha1",
     .kind = karmada::kPropagationPolicy,
     .resource = "propagationpolicies",
     .namespaced = true,
     .validating_name = "propagationpolicy.karmada.io",
     .mutating_name = "propagationpolicy.karmada.io",
     .validate_path = "/validate-propagationpolicy",
     .mutate_path = "/mutate-propagationpolicy",
     .validate = &validate_propagation_policy,
     .mutate = &mutate_propagation_policy,
     .crd_defaults = kPolicyDefaults,
     .spec_fields = &check_policy_unknown_fields,
     .rules = rules::kPropagationPolicyRules},
    {.group = kPolicyGroup,
     .version = "v1alpha1",
     .kind = karmada::kClusterPropagationPolicy,
     .resource = "clusterpropagationpolicies",
     .namespaced = false,
     .validating_name = "clusterpropagationpolicy.karmada.io",
     .mutating_name = "clusterpropagationpolicy.karmada.io",
     .validate_path = "/validate-clusterpropagationpolicy",
     .mutate_path = "/mutate-clusterpropagationpolicy",
     .validate = &validate_cluster_propagation_policy,
     .mutate = &mutate_cluster_propagation_policy,
     .crd_defaults = kPolicyDefaults,
     .spec_fields = &check_policy_unknown_fields,
     .rules = rules::kPropagationPolicyRules},
    {.group = kAppsGroup,
     .version = "v1alpha1",
     .kind = karmada::kWorkloadRebalancer,
     .resource = "workloadrebalancers",
     .namespaced = false,
     .validating_name = "",
     .mutating_name = "",
     .validate_path = "/validate-workloadrebalancer",
     .mutate_path = "/mutate-workloadrebalancer",
     .validate = &validate_workload_rebalancer,
     .mutate = &mutate_workload_rebalancer,
     .crd_defaults = {},
     .spec_fields = nullptr,
     .rules = rules::kWorkloadRebalancerRules},
    {.group = kPolicyGroup,
     .version = "v1alpha1",
     .kind = karmada::kScheduleTrigger,
     .resource = "scheduletriggers",
     .namespaced = false,
     .validating_name = "",
     .mutating_name = "",
     .validate_path = "/validate-scheduletrigger",
     .mutate_path = "/mutate-scheduletrigger",
     .validate = &validate_schedule_trigger,
     .mutate = &mutate_schedule_trigger,
     .crd_defaults = {},
     .spec_fields = nullptr,
     .rules = rules::kScheduleTriggerRules},
    {.group = kPolicyGroup,
     .version = "v1alpha1",
     .kind = karmada::kOverridePolicy,
     .resource = "overridepolicies",
     .namespaced = true,
     .validating_name = "overridepolicy.karmada.io",
     .mutating_name = "overridepolicy.karmada.io",
     .validate_path = "/validate-overridepolicy",
     .mutate_path = "/mutate-overridepolicy",
     .validate = &validate_override_policy,
     .mutate = &mutate_override_policy,
     .crd_defaults = {},
     .spec_fields = &check_override_policy_unknown_fields,
     .rules = rules::kOverridePolicyRules},
    {.group = kPolicyGroup,
     .version = "v1alpha1",
     .kind = karmada::kClusterOverridePolicy,
     .resource = "clusteroverridepolicies",
     .namespaced = false,
     .validating_name = "clusteroverridepolicy.karmada.io",
     .mutating_name = "",
     .validate_path = "/validate-clusteroverridepolicy",
     .mutate_path = "",
     .validate = &validate_cluster_override_policy,
     .mutate = nullptr,
     .crd_defaults = {},
     .spec_fields = &check_override_policy_unknown_fields,
     .rules = rules::kOverridePolicyRules},
    {.group = kPolicyGroup,
     .version = "v1alpha1",
     .kind = karmada::kFederatedResourceQuota,
     .resource = "federatedresourcequotas",
     .namespaced = true,
     .validating_name = "federatedresourcequota.karmada.io",
     .mutating_name = "",
     .validate_path = "/validate-federatedresourcequota",
     .mutate_path = "",
     .validate = &validate_federated_resource_quota,
     .mutate = nullptr,
     .crd_defaults = {},
     .spec_fields = &check_federated_resource_quota_unknown_fields,
     .rules = rules::kFederatedResourceQuotaRules},
    // No mutating webhook upstream, and none needed (the CRD has no defaults).
    {.group = kPolicyGroup,
     .version = "v1alpha1",
     .kind = karmada::kClusterTaintPolicy,
     .resource = "clustertaintpolicies",
     .namespaced = false,
     .validating_name = "clustertaintpolicy.karmada.io",
     .mutating_name = "",
     .validate_path = "/validate-clustertaintpolicy",
     .mutate_path = "",
     .validate = &validate_cluster_taint_policy,
     .mutate = nullptr,
     .crd_defaults = {},
     .spec_fields = &check_cluster_taint_policy_unknown_fields,
     .rules = rules::kClusterTaintPolicyRules},
});

// The webhook rows, validating then mutating for each kind, in the table's order.
constexpr std::size_t webhook_count() {
  std::size_t n = 0;
  for (const Kind& k : kKinds) n += k.mutate_path.empty() ? 1 : 2;
  return n;
}

constexpr std::array<Webhook, webhook_count()> make_webhooks() {
  std::array<Webhook, webhook_count()> rows{};
  std::size_t i = 0;
  for (const Kind& k : kKinds) {
    rows[i++] = Webhook{k.validate_path, k.group, k.kind, false, k.validate, k.rules};
    if (!k.mutate_path.empty())
      rows[i++] = Webhook{k.mutate_path, k.group, k.kind, true, k.mutate, {}};
  }
  return rows;
}
constexpr std::array kWebhooks = make_webhooks();

constexpr bool paths_unique() {
  for (std::size_t i = 0; i < kWebhooks.size(); ++i) {
    for (std::size_t j = i + 1; j < kWebhooks.size(); ++j) {
      if (kWebhooks[i].path == kWebhooks[j].path) return false;
    }
  }
  return true;
}
static_assert(paths_unique(), "two kinds serve the same path");

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

std::span<const Kind> kinds() { return kKinds; }

const Kind* find_kind(std::string_view group, std::string_view kind) {
  for (const Kind& k : kKinds) {
    if (k.group == group && k.kind == kind) return &k;
  }
  return nullptr;
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

std::span<const Rule> all_rules() {
  static const std::vector<Rule> all = [] {
    std::vector<Rule> out;
    auto add = [&out](Rule r) {
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    };
    for (const Kind& k : kKinds) {
      for (const Rule r : k.rules) add(r);
    }
    for (const Rule r : {Rule(rules::kKM1), Rule(rules::kKM2), Rule(rules::kKM3), Rule(rules::kKM4),
                         Rule(rules::kKU1)}) {
      add(r);
    }
    return out;
  }();
  return all;
}

std::optional<Rule> find_rule(std::string_view id) {
  for (const Rule r : all_rules()) {
    if (r->id == id) return r;
  }
  return std::nullopt;
}

// admission/registry.hpp's rows, from the kind table.
std::span<const Webhook> webhooks() { return kWebhooks; }

// The kind table as JSON, one object per kind (`karmada-policy-webhook kinds`).
std::string kinds_json() {
  std::string out = "[";
  for (const Kind& k : kinds()) {
    if (out.size() > 1) out += ",";
    out += "\n  {\"group\":";
    append_json_string(out, k.group);
    out += ",\"version\":";
    append_json_string(out, k.version);
    out += ",\"kind\":";
    append_json_string(out, k.kind);
    out += ",\"resource\":";
    append_json_string(out, k.resource);
    out += ",\"scope\":";
    append_json_string(out, k.namespaced ? "Namespaced" : "Cluster");
    out += ",\"validatingWebhook\":";
    append_json_string(out, k.validating_name);
    out += ",\"mutatingWebhook\":";
    append_json_string(out, k.mutating_name);
    out += ",\"validatePath\":";
    append_json_string(out, k.validate_path);
    out += ",\"mutatePath\":";
    append_json_string(out, k.mutate_path);
    out += ",\"rules\":[";
    for (std::size_t i = 0; i < k.rules.size(); ++i) {
      if (i > 0) out += ",";
      append_json_string(out, rule_id(k.rules[i]));
    }
    out += "]}";
  }
  out += "\n]\n";
  return out;
}

// "PropagationPolicy, ClusterPropagationPolicy, …" for --help.
std::string kind_names() {
  std::string out;
  for (const Kind& k : kinds()) {
    if (!out.empty()) out += ", ";
    out += k.kind;
  }
  return out;
}

}  // namespace kpw
