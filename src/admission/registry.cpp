#include "admission/registry.hpp"

#include <array>

#include "validators/propagation_policy.hpp"

namespace kpw {
namespace {

constexpr std::string_view kPolicyGroup = "policy.karmada.io";

// Path → handler, for every webhook this server answers. Manifests and docs list the same rows.
constexpr std::array kWebhooks = {
    Webhook{"/validate-propagationpolicy", kPolicyGroup, "PropagationPolicy", false,
            &validate_propagation_policy},
    Webhook{"/validate-clusterpropagationpolicy", kPolicyGroup, "ClusterPropagationPolicy", false,
            &validate_cluster_propagation_policy},
};

}  // namespace

std::span<const Webhook> webhooks() { return kWebhooks; }

const Webhook* find_webhook(std::string_view path) {
  for (const Webhook& w : kWebhooks) {
    if (w.path == path) return &w;
  }
  return nullptr;
}

}  // namespace kpw
