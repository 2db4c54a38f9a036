#include "admission/registry.hpp"

#include <array>

#include "api/karmada.hpp"
#include "mutators/propagation_policy.hpp"
#include "mutators/schedule_trigger.hpp"
#include "mutators/workload_rebalancer.hpp"
#include "validators/propagation_policy.hpp"
#include "validators/schedule_trigger.hpp"
#include "validators/workload_rebalancer.hpp"

namespace kpw {
namespace {

using karmada::kAppsGroup;
using karmada::kPolicyGroup;

// Path → handler, for every webhook this server answers. Manifests and docs list the same rows.
constexpr std::array kWebhooks = {
    Webhook{"/validate-propagationpolicy", kPolicyGroup, karmada::kPropagationPolicy, false,
            &validate_propagation_policy},
    Webhook{"/mutate-propagationpolicy", kPolicyGroup, karmada::kPropagationPolicy, true,
            &mutate_propagation_policy},
    Webhook{"/validate-clusterpropagationpolicy", kPolicyGroup,
            karmada::kClusterPropagationPolicy, false, &validate_cluster_propagation_policy},
    Webhook{"/mutate-clusterpropagationpolicy", kPolicyGroup, karmada::kClusterPropagationPolicy,
            true, &mutate_cluster_propagation_policy},
    Webhook{"/validate-workloadrebalancer", kAppsGroup, karmada::kWorkloadRebalancer, false,
            &validate_workload_rebalancer},
    Webhook{"/mutate-workloadrebalancer", kAppsGroup, karmada::kWorkloadRebalancer, true,
            &mutate_workload_rebalancer},
    Webhook{"/validate-scheduletrigger", kPolicyGroup, karmada::kScheduleTrigger, false,
            &validate_schedule_trigger},
    Webhook{"/mutate-scheduletrigger", kPolicyGroup, karmada::kScheduleTrigger, true,
            &mutate_schedule_trigger},
};

}  // namespace

std::span<const Webhook> webhooks() { return kWebhooks; }

const Webhook* find_webhook(std::string_view path) {
  for (const Webhook& w : kWebhooks) {
    if (w.path == path) return &w;
  }
  return nullptr;
}

int webhook_index(std::string_view path) {
  const Webhook* w = find_webhook(path);
  return w == nullptr ? -1 : static_cast<int>(w - kWebhooks.data());
}

}  // namespace kpw
