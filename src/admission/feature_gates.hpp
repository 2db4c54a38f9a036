// --feature-gates as upstream's karmada-webhook reads it (Kubernetes component-base): the gates it
// knows, `Key=true,Other=false` parsed with its rules and messages, AllAlpha/AllBeta, and which
// gate is on. main turns the result into Settings (settings.hpp); handlers never see this.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpw {

enum class GateStage : std::uint8_t { kAlpha, kBeta };

struct FeatureGate {
  std::string_view name;
  GateStage stage;
  bool default_on;
  // What it changes here (--help, docs/operations.md): "" when nothing.
  std::string_view here;
};

inline constexpr std::string_view kAllAlphaGate = "AllAlpha";
inline constexpr std::string_view kAllBetaGate = "AllBeta";
inline constexpr std::string_view kMultiplePodTemplatesSchedulingGate =
    "MultiplePodTemplatesScheduling";
inline constexpr std::string_view kFederatedQuotaEnforcementGate = "FederatedQuotaEnforcement";

// Every gate upstream's karmada-webhook knows (v1.19: its --help), in its order. A gate it knows
// and we ignore is accepted, so that a Deployment's flags carry over; an unknown one is refused.
inline constexpr std::array<FeatureGate, 19> kFeatureGates = {{
    {kAllAlphaGate, GateStage::kAlpha, false, "turns on every alpha gate not set otherwise"},
    {kAllBetaGate, GateStage::kBeta, false, "turns on every beta gate not set otherwise"},
    {"ContextualLogging", GateStage::kBeta, true, ""},
    {"ControllerPriorityQueue", GateStage::kBeta, true, ""},
    {"CustomizedClusterResourceModeling", GateStage::kBeta, true, ""},
    {"Failover", GateStage::kBeta, false, ""},
    {kFederatedQuotaEnforcementGate, GateStage::kAlpha, false,
     "FederatedResourceQuotas enforced and their usage recorded (RB-2; `serve` with an API "
     "server only)"},
    {"GracefulEviction", GateStage::kBeta, true, ""},
    {"LoggingAlphaOptions", GateStage::kAlpha, false, ""},
    {"LoggingBetaOptions", GateStage::kBeta, true, ""},
    {"MultiClusterService", GateStage::kAlpha, false, ""},
    {kMultiplePodTemplatesSchedulingGate, GateStage::kAlpha, false,
     "ResourceBinding component names are checked (RB-3)"},
    {"PriorityBasedScheduling", GateStage::kBeta, true, ""},
    {"PropagateDeps", GateStage::kBeta, true, ""},
    {"PropagationPolicyPreemption", GateStage::kAlpha, false, ""},
    {"ResourceQuotaEstimate", GateStage::kAlpha, false, ""},
    {"SchedulingOvercommitProtection", GateStage::kAlpha, false, ""},
    {"StatefulFailoverInjection", GateStage::kAlpha, false, ""},
    {"WorkloadAffinity", GateStage::kAlpha, false, ""},
}};

// The gates as given by one or more --feature-gates values, each on top of the ones before.
class FeatureGateSet {
 public:
  // Reads one value, as component-base's featureGate.Set does: pairs split at `,` (empty ones
  // skipped), each `Key=Value` with both sides trimmed, Value one of Go's ParseBool spellings
  // (`1 t T TRUE true True 0 f F FALSE false False`), Key a known gate, exact case. The error is
  // upstream's text (`unrecognized feature gate: Nope`); nothing is set then.
  std::optional<std::string> set(std::string_view text);

  // Whether `name` (a known gate) is on: its own value when given, else AllAlpha's (an alpha gate)
  // or AllBeta's (a beta one) when given, else its default.
  bool enabled(std::string_view name) const;
  // Whether `name` was given a value of its own.
  bool given(std::string_view name) const;

 private:
  std::array<std::optional<bool>, kFeatureGates.size()> values_{};
};

// The gates as --help lists them: `Name=true|false (ALPHA - default=false): what it does here`,
// one a line.
std::string feature_gates_help();

}  // namespace kpw
