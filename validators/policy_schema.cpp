// The policy CRD schema as a table: one Node per field, the walker below reads it. Rows follow
// `policy.karmada.io_propagationpolicies.yaml` (docs/compatibility.md, schema rules SC-…), plus the design-only
// failover fields that D-F3 checks (seed 003).
#include "validators/policy_schema.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "util/text.hpp"

namespace kpw {
namespace {

enum class Type { kString, kInt32, kInt64, kBool, kObject, kStringMap, kArray };

struct Node {
  std::string_view name;
  Type type = Type::kString;
  bool required = false;
  std::span<const Node> fields{};               // kObject, or kArray of objects: the fields
  Type item = Type::kObject;                    // kArray: the type of each element
  std::span<const std::string_view> allowed{};  // SC-4: enum values of a string
  std::int64_t minimum = std::numeric_limits<std::int64_t>::min();  // SC-6
  std::size_t min_items = 0;                                        // SC-2
  std::size_t min_length = 0;                                       // SC-5
  std::size_t max_length = std::numeric_limits<std::size_t>::max();
};

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

// Selectors (metav1.LabelSelector, FieldSelector).
constexpr std::array kMatchExpression = {
    Node{.name = "key", .required = true},
    Node{.name = "operator", .required = true},
    Node{.name = "values", .type = Type::kArray, .item = Type::kString},
};
constexpr std::array kLabelSelector = {
    Node{.name = "matchLabels", .type = Type::kStringMap},
    Node{.name = "matchExpressions", .type = Type::kArray, .fields = kMatchExpression},
};
constexpr std::array kFieldSelector = {
    Node{.name = "matchExpressions", .type = Type::kArray, .fields = kMatchExpression},
};

// ClusterAffinity, inlined into affinity terms and overflow terms.
constexpr std::array kClusterAffinity = {
    Node{.name = "labelSelector", .type = Type::kObject, .fields = kLabelSelector},
    Node{.name = "fieldSelector", .type = Type::kObject, .fields = kFieldSelector},
    Node{.name = "clusterNames", .type = Type::kArray, .item = Type::kString},
    Node{.name = "exclude", .type = Type::kArray, .item = Type::kString},
};
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

std::string_view type_detail(Type type) {
  switch (type) {
    case Type::kString:
      return "must be of type string";
    case Type::kInt32:
    case Type::kInt64:
      return "must be of type integer";
    case Type::kBool:
      return "must be of type boolean";
    case Type::kObject:
    case Type::kStringMap:
      return "must be of type object";
    case Type::kArray:
      return "must be of type array";
  }
  return "must be of another type";
}

bool has_type(Type type, const JsonValue& v) {
  switch (type) {
    case Type::kString:
      return v.IsString();
    case Type::kInt32:
      return v.IsInt64();  // the int32 range is its own error
    case Type::kInt64:
      return v.IsInt64();
    case Type::kBool:
      return v.IsBool();
    case Type::kObject:
    case Type::kStringMap:
      return v.IsObject();
    case Type::kArray:
      return v.IsArray();
  }
  return false;
}

void check_fields(std::span<const Node> fields, const JsonValue& obj, const FieldPath& path,
                  ErrorList& errors);

// check_fields tracks a table's rows in a 64-bit mask: no table reachable from kSpec is longer.
constexpr bool rows_fit_a_mask(std::span<const Node> fields) {
  if (fields.size() > 64) return false;
  for (const Node& field : fields) {
    if (!rows_fit_a_mask(field.fields)) return false;
  }
  return true;
}
static_assert(rows_fit_a_mask(kSpec));

// `<before><bound><after>` in `buffer`, without a heap allocation (a hostile list may break a
// bound in every one of a million elements).
template <typename Int>
std::string_view bound_detail(std::string_view before, Int bound, std::string_view after,
                              std::array<char, 96>& buffer) {
  char* out = std::copy(before.begin(), before.end(), buffer.data());
  out = std::to_chars(out, out + 24, bound).ptr;
  out = std::copy(after.begin(), after.end(), out);
  return std::string_view(buffer.data(), static_cast<std::size_t>(out - buffer.data()));
}

// SC-1 (type, int32 range), SC-4 (enum), SC-5 (length), SC-6 (minimum), then the children.
void check_value(const Node& node, Type type, std::span<const Node> fields, const JsonValue& v,
                 const FieldPath& path, ErrorList& errors) {
  std::array<char, 96> detail;
  if (!has_type(type, v)) {
    // A whole number beyond int64 (9223372036854775808, 1e19) is out of range, not of a wrong type.
    const bool integral =
        v.IsUint64() || (v.IsDouble() && std::trunc(v.GetDouble()) == v.GetDouble());
    if ((type == Type::kInt32 || type == Type::kInt64) && integral) {
      errors.invalid(Rule::kSC1, 
          path, v,
          type == Type::kInt32 ? "must fit in a 32-bit integer" : "must fit in a 64-bit integer");
    } else {
      errors.invalid(Rule::kSC1, path, v, type_detail(type));
    }
    return;
  }
  switch (type) {
    case Type::kString: {
      const std::string_view s = view(v);
      if (!node.allowed.empty()) {
        bool known = false;
        for (std::string_view a : node.allowed) known = known || a == s;
        if (!known) errors.not_supported(Rule::kSC4, path, s, node.allowed);
      }
      if (s.size() < node.min_length) {
        errors.invalid(Rule::kSC5, 
            path, s,
            bound_detail("must be at least ", node.min_length, " characters long", detail));
      } else if (s.size() > node.max_length) {
        errors.invalid(Rule::kSC5, 
            path, s,
            bound_detail("must be no more than ", node.max_length, " characters long", detail));
      }
      return;
    }
    case Type::kInt32:
    case Type::kInt64: {
      const std::int64_t n = v.GetInt64();
      if (type == Type::kInt32 && (n < std::numeric_limits<std::int32_t>::min() ||
                                   n > std::numeric_limits<std::int32_t>::max())) {
        errors.invalid(Rule::kSC1, path, static_cast<long long>(n), "must fit in a 32-bit integer");
      } else if (n < node.minimum) {
        errors.invalid(Rule::kSC6, path, static_cast<long long>(n),
                       bound_detail("must be greater than or equal to ", node.minimum, "", detail));
      }
      return;
    }
    case Type::kBool:
      return;
    case Type::kStringMap:
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        if (!it->value.IsString()) {
          const FieldPath entry = path.key(view(it->name));
          errors.invalid(Rule::kSC1, entry, it->value, "must be of type string");
        }
      }
      return;
    case Type::kObject:
      check_fields(fields, v, path, errors);
      return;
    case Type::kArray:
      if (v.Size() < node.min_items) {
        errors.required(Rule::kSC2, path, "must have at least 1 item");
        return;
      }
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const FieldPath item = path.index(i);
        check_value(node, node.item, node.fields, v[i], item, errors);
      }
      return;
  }
}

// Known fields in document order, then the required ones that are absent (or null).
void check_fields(std::span<const Node> fields, const JsonValue& obj, const FieldPath& path,
                  ErrorList& errors) {
  std::uint64_t present = 0;  // rows whose field is here and not null
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (it->value.IsNull()) continue;
    const std::string_view name = view(it->name);
    for (std::size_t row = 0; row < fields.size(); ++row) {
      const Node& field = fields[row];
      if (!equal_text(field.name, name)) continue;
      present |= std::uint64_t{1} << row;
      const FieldPath child = path.child(field.name);
      check_value(field, field.type, field.fields, it->value, child, errors);
      break;
    }
  }
  for (std::size_t row = 0; row < fields.size(); ++row) {
    if (fields[row].required && (present & (std::uint64_t{1} << row)) == 0) {
      const FieldPath child = path.child(fields[row].name);
      errors.required(Rule::kSC3, child, "");
    }
  }
}

// K-U1 (`check` only): members no row of `fields` declares, at every depth.
void check_unknown(std::span<const Node> fields, const JsonValue& obj, const FieldPath& path,
                   ErrorList& errors) {
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string_view name = view(it->name);
    const Node* row = nullptr;
    for (const Node& field : fields) {
      if (equal_text(field.name, name)) {
        row = &field;
        break;
      }
    }
    const FieldPath child = path.child(name);
    if (row == nullptr) {
      errors.forbidden(Rule::kKU1, child, "unknown field: the schema does not declare it");
      continue;
    }
    const JsonValue& v = it->value;
    if (row->type == Type::kObject && v.IsObject()) check_unknown(row->fields, v, child, errors);
    if (row->type == Type::kArray && row->item == Type::kObject && v.IsArray()) {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        if (!v[i].IsObject()) continue;
        const FieldPath item = child.index(i);
        check_unknown(row->fields, v[i], item, errors);
      }
    }
  }
}

}  // namespace

void check_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                 ErrorList& errors) {
  if (spec.IsObject()) check_unknown(kSpec, spec, spec_path, errors);
}

void check_policy_schema(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors) {
  check_fields(kSpec, spec, spec_path, errors);
}

}  // namespace kpw
