// Schema tables several kinds' CRDs share: metav1.LabelSelector, Karmada's FieldSelector and
// ClusterAffinity (PropagationPolicy's placement, OverridePolicy's targetCluster,
// ClusterTaintPolicy's targetClusters), for the schema walker (validators/schema.hpp).
#pragma once

#include <array>

#include "validators/schema.hpp"

namespace kpw::schema {

// matchExpressions[]: key and operator required (no operator enum in the CRDs).
inline constexpr std::array kMatchExpression = {
    Node{.name = "key", .required = true},
    Node{.name = "operator", .required = true},
    Node{.name = "values", .type = Type::kArray, .item = Type::kString},
};
inline constexpr std::array kLabelSelector = {
    Node{.name = "matchLabels", .type = Type::kStringMap},
    Node{.name = "matchExpressions", .type = Type::kArray, .fields = kMatchExpression},
};
inline constexpr std::array kFieldSelector = {
    Node{.name = "matchExpressions", .type = Type::kArray, .fields = kMatchExpression},
};
inline constexpr std::array kClusterAffinity = {
    Node{.name = "labelSelector", .type = Type::kObject, .fields = kLabelSelector},
    Node{.name = "fieldSelector", .type = Type::kObject, .fields = kFieldSelector},
    Node{.name = "clusterNames", .type = Type::kArray, .item = Type::kString},
    Node{.name = "exclude", .type = Type::kArray, .item = Type::kString},
};

}  // namespace kpw::schema
