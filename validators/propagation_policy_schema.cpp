// The policy CRD schema as data: one row per field, read by the schema walker
// (validators/schema.hpp). Rows follow the PropagationPolicy CRD (docs/compatibility.md, schema
// rules SC-1…SC-6), plus the design-only failover fields that D-F3 checks (seed 003).
#include "validators/propagation_policy_schema.hpp"

#include <array>
#include <cstddef>
#include <string_view>

#include "validators/propagation_policy_rules.hpp"
#include "validators/schema_affinity.hpp"

namespace kpw {
namespace {

using schema::kClusterAffinity;
using schema::kLabelSelector;
using schema::Node;
using schema::Type;

template <std::size_t N, std::size_t M>
constexpr std::array<Node, N + M> join(const std::array<Node, N>& a, const std::array<Node, M>& b) {
  std::array<Node, N + M> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = a[i];
  for (std::size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

// SC-4 enums.
constexpr std::array<std::string_view, 2> kPreemption = {"Always", "Never"};
constexpr std::array<std::string_view, 2> kConflictResolution = {"Abort", "Overwrite"};
constexpr std::array<std::string_view, 1> kActivationPreference = {"Lazy"};
constexpr std::array<std::string_view, 4> kSpreadByField = {"cluster", "region", "zone",
                                                            "provider"};
constexpr std::array<std::string_view, 2> kSchedulingType = {"Duplicated", "Divided"};
constexpr std::array<std::string_view, 2> kDivisionPreference = {"Aggregated", "Weighted"};
constexpr std::array<std::string_view, 1> kDynamicWeight = {"AvailableReplicas"};
// Both generations of purge modes (docs/rules.md principle 5); cluster failover has no Never.
constexpr std::array<std::string_view, 5> kAppPurgeMode = {"Directly", "Gracefully", "Never",
                                                           "Immediately", "Graciously"};
constexpr std::array<std::string_view, 4> kClusterPurgeMode = {"Directly", "Gracefully",
                                                               "Immediately", "Graciously"};
constexpr std::array<std::string_view, 1> kPriorityClassSource = {"KubePriorityClass"};

// Selectors and ClusterAffinity (inlined into affinity terms and overflow terms):
// validators/schema_affinity.hpp.

// SC-3, SC-5: affinityName required, 1..32 characters.
constexpr std::array kAffinityName = {
    Node{.name = "affinityName", .required = true, .min_length = 1, .max_length = 32},
};
constexpr std::array kOverflowAffinity = join(kAffinityName, kClusterAffinity);
constexpr std::array kAffinityTerm =
    join(kOverflowAffinity,
         std::array{Node{
             .name = "overflowAffinities", .type = Type::kArray, .fields = kOverflowAffinity}});

constexpr std::array kToleration = {
    Node{.name = "key"},
    Node{.name = "operator"},
    Node{.name = "value"},
    Node{.name = "effect"},
    Node{.name = "tolerationSeconds", .type = Type::kInt64},
};
constexpr std::array kSpreadConstraint = {
    Node{.name = "spreadByField", .allowed = kSpreadByField},
    Node{.name = "spreadByLabel"},
    Node{.name = "maxGroups", .type = Type::kInt64},
    Node{.name = "minGroups", .type = Type::kInt64},
};
// SC-3, SC-6: a static weight names its target and weighs at least 1.
constexpr std::array kStaticWeight = {
    Node{.name = "targetCluster",
         .type = Type::kObject,
         .required = true,
         .fields = kClusterAffinity},
    Node{.name = "weight", .type = Type::kInt64, .required = true, .minimum = 1},
};
constexpr std::array kWeightPreference = {
    Node{.name = "staticWeightList", .type = Type::kArray, .fields = kStaticWeight},
    Node{.name = "dynamicWeight", .allowed = kDynamicWeight},
};
constexpr std::array kReplicaScheduling = {
    Node{.name = "replicaSchedulingType", .allowed = kSchedulingType},
    Node{.name = "replicaDivisionPreference", .allowed = kDivisionPreference},
    Node{.name = "weightPreference", .type = Type::kObject, .fields = kWeightPreference},
};
constexpr std::array kAffinityGroup = {Node{.name = "groupByLabelKey", .required = true}};
constexpr std::array kWorkloadAffinity = {
    Node{.name = "affinity", .type = Type::kObject, .fields = kAffinityGroup},
    Node{.name = "antiAffinity", .type = Type::kObject, .fields = kAffinityGroup},
};
constexpr std::array kPlacement = {
    Node{.name = "clusterAffinity", .type = Type::kObject, .fields = kClusterAffinity},
    Node{.name = "clusterAffinities", .type = Type::kArray, .fields = kAffinityTerm},
    Node{.name = "clusterTolerations", .type = Type::kArray, .fields = kToleration},
    Node{.name = "spreadConstraints", .type = Type::kArray, .fields = kSpreadConstraint},
    Node{.name = "replicaScheduling", .type = Type::kObject, .fields = kReplicaScheduling},
    Node{.name = "workloadAffinity", .type = Type::kObject, .fields = kWorkloadAffinity},
};

// Failover.
constexpr std::array kStatePreservationRule = {
    Node{.name = "aliasLabelName", .required = true},
    Node{.name = "jsonPath", .required = true},
};
constexpr std::array kStatePreservation = {
    Node{.name = "rules", .type = Type::kArray, .required = true, .fields = kStatePreservationRule},
};
constexpr std::array kDecisionConditions = {
    Node{.name = "tolerationSeconds", .type = Type::kInt32},
};
constexpr std::array kPreConditions = {
    Node{.name = "delaySeconds", .type = Type::kInt32},
    Node{.name = "healthyState"},
};
constexpr std::array kApplicationFailover = {
    Node{.name = "decisionConditions",
         .type = Type::kObject,
         .required = true,
         .fields = kDecisionConditions},
    Node{.name = "purgeMode", .allowed = kAppPurgeMode},
    Node{.name = "gracePeriodSeconds", .type = Type::kInt32},
    Node{.name = "statePreservation", .type = Type::kObject, .fields = kStatePreservation},
    Node{.name = "blockPredecessorSeconds", .type = Type::kInt32},                   // seed 003
    Node{.name = "preConditions", .type = Type::kObject, .fields = kPreConditions},  // seed 003
};
constexpr std::array kClusterFailover = {
    Node{.name = "purgeMode", .allowed = kClusterPurgeMode},
    Node{.name = "statePreservation", .type = Type::kObject, .fields = kStatePreservation},
};
constexpr std::array kFailover = {
    Node{.name = "application", .type = Type::kObject, .fields = kApplicationFailover},
    Node{.name = "cluster", .type = Type::kObject, .fields = kClusterFailover},
};

constexpr std::array kResourceSelector = {
    Node{.name = "apiVersion", .required = true},
    Node{.name = "kind", .required = true},
    Node{.name = "namespace"},
    Node{.name = "name"},
    Node{.name = "labelSelector", .type = Type::kObject, .fields = kLabelSelector},
};
constexpr std::array kDispatchingOnClusters = {
    Node{.name = "clusterNames", .type = Type::kArray, .item = Type::kString},
};
constexpr std::array kSuspension = {
    Node{.name = "dispatching", .type = Type::kBool},
    Node{.name = "dispatchingOnClusters", .type = Type::kObject, .fields = kDispatchingOnClusters},
};
constexpr std::array kSchedulePriority = {
    Node{.name = "priorityClassSource", .required = true, .allowed = kPriorityClassSource},
    Node{.name = "priorityClassName", .required = true},
};

constexpr std::array kSpec = {
    Node{.name = "resourceSelectors",
         .type = Type::kArray,
         .required = true,
         .fields = kResourceSelector,
         .min_items = 1},
    Node{.name = "association", .type = Type::kBool},
    Node{.name = "propagateDeps", .type = Type::kBool},
    Node{.name = "placement", .type = Type::kObject, .fields = kPlacement},
    Node{.name = "priority", .type = Type::kInt32},
    Node{.name = "preemption", .allowed = kPreemption},
    Node{.name = "dependentOverrides", .type = Type::kArray, .item = Type::kString},
    Node{.name = "schedulerName"},
    Node{.name = "failover", .type = Type::kObject, .fields = kFailover},
    Node{.name = "conflictResolution", .allowed = kConflictResolution},
    Node{.name = "activationPreference", .allowed = kActivationPreference},
    Node{.name = "suspension", .type = Type::kObject, .fields = kSuspension},
    Node{.name = "preserveResourcesOnDeletion", .type = Type::kBool},
    Node{.name = "schedulePriority", .type = Type::kObject, .fields = kSchedulePriority},
};

// SC-1 types (and int32/int64 ranges), SC-2 minItems, SC-3 required, SC-4 enums, SC-5 lengths,
// SC-6 minimums; no policy field has a format or quantities.
constexpr schema::Rules kPolicyRules = {
    .type = rules::kSC1,
    .required = rules::kSC3,
    .min_items = rules::kSC2,
    .enumeration = rules::kSC4,
    .length = rules::kSC5,
    .range = rules::kSC6,
    .format = rules::kSC1,
    .quantity = rules::kSC1,
};

static_assert(schema::fits_a_mask(kSpec));
constexpr schema::Schema kPolicySchema{kSpec, kPolicyRules};

}  // namespace

const schema::Schema& propagation_policy_schema() { return kPolicySchema; }

void check_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                 ErrorList& errors) {
  schema::check_unknown_fields(kPolicySchema.fields, spec, spec_path, rules::kKU1, errors);
}

}  // namespace kpw
