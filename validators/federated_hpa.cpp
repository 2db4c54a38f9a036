// FederatedHPA rules (docs/rules.md "FederatedHPA"), in upstream's order, CREATE and UPDATE alike
// (upstream validates an UPDATE as a CREATE): the ObjectMeta rules (FH-1: a DNS-1123 subdomain
// name), the spec's schema (FH-S1), the spec, then the status (FH-16). A value of the wrong JSON
// type is the schema's only (upstream cannot decode the object: 400).
//
// | rule  | what denies                                                   | path |
// |-------|---------------------------------------------------------------|--------------------------|
// | FH-2  | minReplicas set and below 1                                   | spec.minReplicas | |
// FH-3  | maxReplicas below 1 (absent is Go's 0)                        | spec.maxReplicas | | FH-4
// | maxReplicas below a set minReplicas                           | spec.maxReplicas         | |
// FH-5  | scaleTargetRef kind / name empty, or not one path segment     | spec.scaleTargetRef.kind
// | | FH-6  | a metric without a type                                       | spec.metrics[i].type
// | | FH-7  | a type other than ContainerResource, Object, Pods, Resource   | spec.metrics[i].type
// | | FH-8  | the source the type names is absent                           |
// spec.metrics[i].<source> | | FH-9  | another source set too (the first one set is the one judged)
// | spec.metrics[i].<source> | | FH-10…FH-13 | the source: object, pods, resource,
// containerResource   | ….<source>.…             | | FH-14 | a target: type, positive values,
// averageUtilization ≥ 1       | ….target.…               | | FH-15 | behavior.scaleUp / scaleDown:
// window, selectPolicy, policies  | spec.behavior.…          | | D-H1  | a negative tolerance
// (ours)                                   | ….tolerance              | | D-H2  | a metric selector
// that is no label selector (ours)            | ….metric.selector.…      | | FH-16 |
// status.currentReplicas / desiredReplicas negative             | status.…                 |
#include "validators/federated_hpa.hpp"

#include <array>
#include <cstdint>
#include <string_view>

#include "api/object.hpp"
#include "util/names.hpp"
#include "validators/common.hpp"
#include "validators/resource_quantity_rules.hpp"
#include "validators/schema.hpp"
#include "validators/schema_affinity.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// --- The schema (FH-S1) ---

constexpr schema::Rules kS1 = schema::Rules::all(rules::kFHS1);

constexpr std::array kReferenceFields = {Node{.name = "apiVersion"},
                                         Node{.name = "kind", .required = true},
                                         Node{.name = "name", .required = true}};
constexpr std::array kTargetFields = {
    Node{.name = "type", .required = true},
    Node{.name = "value", .type = Type::kQuantity},
    Node{.name = "averageValue", .type = Type::kQuantity},
    Node{.name = "averageUtilization", .type = Type::kInt32},
};
constexpr Node kTarget{
    .name = "target", .type = Type::kObject, .required = true, .fields = kTargetFields};
constexpr std::array kMetricFields = {
    Node{.name = "name", .required = true},
    Node{.name = "selector", .type = Type::kObject, .fields = schema::kLabelSelector},
};
constexpr Node kMetric{
    .name = "metric", .type = Type::kObject, .required = true, .fields = kMetricFields};
constexpr std::array kObjectSourceFields = {
    Node{.name = "describedObject",
         .type = Type::kObject,
         .required = true,
         .fields = kReferenceFields},
    kMetric,
    kTarget,
};
constexpr std::array kMetricTargetFields = {kMetric, kTarget};
constexpr std::array kResourceFields = {Node{.name = "name", .required = true}, kTarget};
constexpr std::array kContainerResourceFields = {
    Node{.name = "name", .required = true}, Node{.name = "container", .required = true}, kTarget};
constexpr std::array kMetricSpecFields = {
    Node{.name = "type", .required = true},
    Node{.name = "object", .type = Type::kObject, .fields = kObjectSourceFields},
    Node{.name = "pods", .type = Type::kObject, .fields = kMetricTargetFields},
    Node{.name = "resource", .type = Type::kObject, .fields = kResourceFields},
    Node{.name = "containerResource", .type = Type::kObject, .fields = kContainerResourceFields},
    Node{.name = "external", .type = Type::kObject, .fields = kMetricTargetFields},
};
constexpr std::array kPolicyFields = {
    Node{.name = "type", .required = true},
    Node{.name = "value", .type = Type::kInt32, .required = true},
    Node{.name = "periodSeconds", .type = Type::kInt32, .required = true},
};
constexpr std::array kScalingRulesFields = {
    Node{.name = "stabilizationWindowSeconds", .type = Type::kInt32},
    Node{.name = "selectPolicy"},
    Node{.name = "policies", .type = Type::kArray, .fields = kPolicyFields},
    Node{.name = "tolerance", .type = Type::kQuantity},
};
constexpr std::array kBehaviorFields = {
    Node{.name = "scaleUp", .type = Type::kObject, .fields = kScalingRulesFields},
    Node{.name = "scaleDown", .type = Type::kObject, .fields = kScalingRulesFields},
};
constexpr std::array kSpecFields = {
    Node{.name = "scaleTargetRef",
         .type = Type::kObject,
         .required = true,
         .fields = kReferenceFields},
    Node{.name = "minReplicas", .type = Type::kInt32},
    Node{.name = "maxReplicas", .type = Type::kInt32, .required = true},
    Node{.name = "metrics", .type = Type::kArray, .fields = kMetricSpecFields},
    Node{.name = "behavior", .type = Type::kObject, .fields = kBehaviorFields},
};
constexpr Node kSpec{
    .name = "spec", .type = Type::kObject, .required = true, .fields = kSpecFields, .rules = &kS1};
constexpr std::array kStatusFields = {
    Node{.name = "currentReplicas", .type = Type::kInt32},
    Node{.name = "desiredReplicas", .type = Type::kInt32},
};
constexpr Node kStatus{
    .name = "status", .type = Type::kObject, .fields = kStatusFields, .rules = &kS1};
static_assert(schema::fits_a_mask(kSpecFields));

// --- Reading the Go fields upstream decodes (a value of another type is the schema's) ---

// An int32 member that is set (a pointer upstream), or nullptr.
const JsonValue* int32_of(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr || !v->IsInt64()) return nullptr;
  return v->GetInt64() >= INT32_MIN && v->GetInt64() <= INT32_MAX ? v : nullptr;
}

// An int32 member as Go decodes it: 0 when absent.
long long int32_or_zero(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = int32_of(obj, key);
  return v != nullptr ? v->GetInt64() : 0;
}

bool is_set(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  return v != nullptr && !v->IsNull();
}

// --- FH-2…FH-4: the replica bounds ---

void check_replicas(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors) {
  const JsonValue* min = int32_of(&spec, "minReplicas");
  const long long max = int32_or_zero(&spec, "maxReplicas");
  if (min != nullptr && min->GetInt64() < 1) {
    const FieldPath path = spec_path.child("minReplicas");
    errors.invalid(rules::kFH2, path, min->GetInt64(), "must be greater than or equal to 1");
  }
  const FieldPath max_path = spec_path.child("maxReplicas");
  if (max < 1) errors.invalid(rules::kFH3, max_path, max, "must be greater than 0");
  if (min != nullptr && max < min->GetInt64()) {
    errors.invalid(rules::kFH4, max_path, max, "must be greater than or equal to `minReplicas`");
  }
}

// --- FH-5: a CrossVersionObjectReference (scaleTargetRef, an object metric's describedObject) ---

void check_path_segment(Rule rule, const JsonValue* obj, std::string_view key,
                        const FieldPath& obj_path, ErrorList& errors) {
  const std::string_view value = string_or_empty(obj, key);
  const FieldPath path = obj_path.child(key);
  if (value.empty()) {
    errors.required(rule, path, "");
    return;
  }
  for (std::string_view problem : check_path_segment_name(value)) {
    errors.invalid(rule, path, value, problem);
  }
}

void check_reference(Rule rule, const JsonValue* ref, const FieldPath& path, ErrorList& errors) {
  check_path_segment(rule, ref, "kind", path, errors);
  check_path_segment(rule, ref, "name", path, errors);
}

// --- FH-14: a metric target ---

// A set quantity that is not positive: `must be positive`, the value as Kubernetes writes it.
void check_positive(const JsonValue* target, std::string_view key, const FieldPath& target_path,
                    ErrorList& errors) {
  const JsonValue* v = member(target, key);
  if (v == nullptr || v->IsNull()) return;
  const ParsedQuantity q = schema::quantity_of(*v);
  if (!q.ok() || q.value.sign() == 1) return;  // not a quantity: the schema's (FH-S1)
  std::string text;
  const std::string_view spelled = v->IsString() ? view(*v) : std::string_view{};
  if (v->IsString()) {
    append_canonical_quantity(text, spelled);
  } else {
    text = q.value.str();
  }
  const FieldPath path = target_path.child(key);
  errors.invalid(rules::kFH14, path, std::string_view(text), "must be positive");
}

void check_target(const JsonValue* target, const FieldPath& path, ErrorList& errors) {
  const std::string_view type = string_or_empty(target, "type");
  const FieldPath type_path = path.child("type");
  if (type.empty()) errors.required(rules::kFH14, type_path, "must specify a metric target type");
  if (type != "Utilization" && type != "Value" && type != "AverageValue") {
    errors.invalid(rules::kFH14, type_path, type,
                   "must be either Utilization, Value, or AverageValue");
  }
  check_positive(target, "value", path, errors);
  check_positive(target, "averageValue", path, errors);
  if (const JsonValue* u = int32_of(target, "averageUtilization");
      u != nullptr && u->GetInt64() < 1) {
    const FieldPath u_path = path.child("averageUtilization");
    errors.invalid(rules::kFH14, u_path, u->GetInt64(), "must be greater than 0");
  }
}

// FH-12, FH-13: a resource target is a utilization or a raw average value, not both.
void check_utilization_xor_value(Rule rule, const JsonValue* target, const FieldPath& target_path,
                                 ErrorList& errors) {
  const bool utilization = is_set(target, "averageUtilization");
  const bool value = is_set(target, "averageValue");
  if (!utilization && !value) {
    const FieldPath path = target_path.child("averageUtilization");
    errors.required(rule, path, "must set either a target raw value or a target utilization");
  }
  if (utilization && value) {
    const FieldPath path = target_path.child("averageValue");
    errors.forbidden(rule, path, "may not set both a target raw value and a target utilization");
  }
}

// --- D-H2: a metric's label selector (Kubernetes' ValidateLabelSelector) ---

void check_selector_requirement(const JsonValue& requirement, const FieldPath& path,
                                ErrorList& errors) {
  const std::string_view op = string_or_empty(&requirement, "operator");
  const JsonValue* values = array_member(&requirement, "values");
  const bool has_values = values != nullptr && !values->Empty();
  const FieldPath values_path = path.child("values");
  if (op == "In" || op == "NotIn") {
    if (!has_values) {
      errors.required(rules::kDH2, values_path,
                      "must be specified when `operator` is 'In' or 'NotIn'");
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (has_values) {
      errors.forbidden(rules::kDH2, values_path,
                       "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
  } else {
    const FieldPath op_path = path.child("operator");
    errors.invalid(rules::kDH2, op_path, op, "not a valid selector operator");
  }
  check_label_key(rules::kDH2, requirement, "key", path, errors);
  if (values == nullptr) return;
  for (rapidjson::SizeType i = 0; i < values->Size(); ++i) {
    if (!(*values)[i].IsString()) continue;  // the schema's
    const std::string_view value = view((*values)[i]);
    const FieldPath value_path = values_path.index(i);
    for (std::string_view problem : check_label_value(value)) {
      errors.invalid(rules::kDH2, value_path, value, problem);
    }
  }
}

void check_selector(const JsonValue* metric, const FieldPath& metric_path, ErrorList& errors) {
  const JsonValue* selector = object_member(metric, "selector");
  if (selector == nullptr) return;
  const FieldPath path = metric_path.child("selector");
  if (const JsonValue* labels = object_member(selector, "matchLabels")) {
    const FieldPath labels_path = path.child("matchLabels");
    check_label_map(rules::kDH2, *labels, labels_path, errors);
  }
  if (const JsonValue* requirements = array_member(selector, "matchExpressions")) {
    const FieldPath list_path = path.child("matchExpressions");
    for (rapidjson::SizeType i = 0; i < requirements->Size(); ++i) {
      if (!(*requirements)[i].IsObject()) continue;  // the schema's
      const FieldPath item = list_path.index(i);
      check_selector_requirement((*requirements)[i], item, errors);
    }
  }
}

// A MetricIdentifier: its name (required, one path segment), then its selector (D-H2).
void check_metric_identifier(Rule rule, const JsonValue* source, const FieldPath& source_path,
                             ErrorList& errors) {
  const JsonValue* metric = object_member(source, "metric");
  const FieldPath path = source_path.child("metric");
  const std::string_view name = string_or_empty(metric, "name");
  const FieldPath name_path = path.child("name");
  if (name.empty()) {
    errors.required(rule, name_path, "must specify a metric name");
  } else {
    for (std::string_view problem : check_path_segment_name(name)) {
      errors.invalid(rule, name_path, name, problem);
    }
  }
  check_selector(metric, path, errors);
}

// --- FH-10…FH-13: the four metric sources ---

void check_object_source(const JsonValue* source, const FieldPath& path, ErrorList& errors) {
  const FieldPath described = path.child("describedObject");
  check_reference(rules::kFH10, object_member(source, "describedObject"), described, errors);
  check_metric_identifier(rules::kFH10, source, path, errors);
  const JsonValue* target = object_member(source, "target");
  const FieldPath target_path = path.child("target");
  check_target(target, target_path, errors);
  if (!is_set(target, "value") && !is_set(target, "averageValue")) {
    const FieldPath average = target_path.child("averageValue");
    errors.required(rules::kFH10, average, "must set either a target value or averageValue");
  }
}

void check_pods_source(const JsonValue* source, const FieldPath& path, ErrorList& errors) {
  check_metric_identifier(rules::kFH11, source, path, errors);
  const JsonValue* target = object_member(source, "target");
  const FieldPath target_path = path.child("target");
  check_target(target, target_path, errors);
  if (!is_set(target, "averageValue")) {
    const FieldPath average = target_path.child("averageValue");
    errors.required(rules::kFH11, average, "must specify a positive target averageValue");
  }
}

void check_resource_source(const JsonValue* source, const FieldPath& path, ErrorList& errors) {
  if (string_or_empty(source, "name").empty()) {
    const FieldPath name_path = path.child("name");
    errors.required(rules::kFH12, name_path, "must specify a resource name");
  }
  const JsonValue* target = object_member(source, "target");
  const FieldPath target_path = path.child("target");
  check_target(target, target_path, errors);
  check_utilization_xor_value(rules::kFH12, target, target_path, errors);
}

// ValidateContainerResourceName: a qualified name; without `/` a standard resource (cpu, memory,
// ephemeral-storage, hugepages-*); with one, native (`kubernetes.io/`) or an extended resource.
void check_container_resource_name(std::string_view name, const FieldPath& path,
                                   ErrorList& errors) {
  const NameProblems problems = check_qualified_name(name);
  for (std::string_view problem : problems) errors.invalid(rules::kFH13, path, name, problem);
  const bool slash = name.find('/') != std::string_view::npos;
  if (problems.ok() && !slash && !is_standard_resource_name(name)) {
    errors.invalid(rules::kFH13, path, name, "must be a standard resource type or fully qualified");
  }
  if (!slash) {
    const bool container = name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
                           name.starts_with("hugepages-");
    if (!container) {
      errors.invalid(rules::kFH13, path, name, "must be a standard resource for containers");
    }
  } else if (name.find("kubernetes.io/") == std::string_view::npos &&
             !is_extended_resource_name(name, problems.ok())) {
    errors.invalid(rules::kFH13, path, name, "doesn't follow extended resource name standard");
  }
}

void check_container_resource_source(const JsonValue* source, const FieldPath& path,
                                     ErrorList& errors) {
  const std::string_view name = string_or_empty(source, "name");
  const FieldPath name_path = path.child("name");
  if (name.empty()) {
    errors.required(rules::kFH13, name_path, "must specify a resource name");
  } else {
    check_container_resource_name(name, name_path, errors);
  }
  const std::string_view container = string_or_empty(source, "container");
  const FieldPath container_path = path.child("container");
  if (container.empty()) {
    errors.required(rules::kFH13, container_path, "must specify a container");
  } else {
    for (std::string_view problem : dns1123_label_problems(container)) {
      errors.invalid(rules::kFH13, container_path, container, problem);
    }
  }
  const JsonValue* target = object_member(source, "target");
  const FieldPath target_path = path.child("target");
  check_target(target, target_path, errors);
  check_utilization_xor_value(rules::kFH13, target, target_path, errors);
}

// --- FH-6…FH-9: a metric's type and sources ---

struct Source {
  std::string_view key;   // the field (`containerResource`)
  std::string_view type;  // the type naming it (`ContainerResource`)
  void (*check)(const JsonValue*, const FieldPath&, ErrorList&);
};
// In the order upstream looks for the first one set (object, pods, resource, containerResource).
constexpr std::array<Source, 4> kSources = {{
    {"object", "Object", &check_object_source},
    {"pods", "Pods", &check_pods_source},
    {"resource", "Resource", &check_resource_source},
    {"containerResource", "ContainerResource", &check_container_resource_source},
}};
constexpr std::array<std::string_view, 4> kMetricTypes = {"ContainerResource", "Object", "Pods",
                                                          "Resource"};
// FH-9's Forbidden errors come in this order (upstream's is Go's random map order).
constexpr std::array<std::size_t, 4> kSortedSources = {3, 0, 1, 2};

void check_metric(const JsonValue& metric, const FieldPath& path, ErrorList& errors) {
  const std::string_view type = string_or_empty(&metric, "type");
  const FieldPath type_path = path.child("type");
  if (type.empty()) errors.required(rules::kFH6, type_path, "must specify a metric source type");
  const Source* expected = nullptr;
  for (const Source& s : kSources) {
    if (s.type == type) expected = &s;
  }
  // Upstream raises it twice (the set check, then the switch's default); one survives.
  if (expected == nullptr) errors.not_supported(rules::kFH7, type_path, type, kMetricTypes);
  std::array<bool, 4> present{};
  std::size_t count = 0;
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    const JsonValue* source = object_member(&metric, kSources[i].key);
    if (source == nullptr) continue;
    present[i] = true;
    if (++count == 1) {  // only the first one set is judged, whatever the type names
      const FieldPath source_path = path.child(kSources[i].key);
      kSources[i].check(source, source_path, errors);
    }
  }
  if (expected != nullptr && object_member(&metric, expected->key) == nullptr) {
    const FieldPath source_path = path.child(expected->key);
    errors.required(rules::kFH8, source_path,
                    "must populate information for the given metric source");
  }
  if (count == 1) return;
  for (std::size_t i : kSortedSources) {
    if (!present[i] || &kSources[i] == expected) continue;
    const FieldPath source_path = path.child(kSources[i].key);
    errors.forbidden(rules::kFH9, source_path, "must populate the given metric source only");
  }
}

// --- FH-15, D-H1: behavior ---

constexpr std::array<std::string_view, 3> kSelectPolicies = {"Disabled", "Max", "Min"};
constexpr std::array<std::string_view, 2> kPolicyTypes = {"Percent", "Pods"};

void check_policy(const JsonValue& policy, const FieldPath& path, ErrorList& errors) {
  const std::string_view type = string_or_empty(&policy, "type");
  if (type != "Pods" && type != "Percent") {
    const FieldPath type_path = path.child("type");
    errors.not_supported(rules::kFH15, type_path, type, kPolicyTypes);
  }
  const long long value = int32_or_zero(&policy, "value");
  const FieldPath value_path = path.child("value");
  if (value <= 0) errors.invalid(rules::kFH15, value_path, value, "must be greater than zero");
  const long long period = int32_or_zero(&policy, "periodSeconds");
  const FieldPath period_path = path.child("periodSeconds");
  if (period <= 0) errors.invalid(rules::kFH15, period_path, period, "must be greater than zero");
  if (period > 1800) {
    errors.invalid(rules::kFH15, period_path, period, "must be less than or equal to 1800");
  }
}

void check_scaling_rules(const JsonValue& rules_obj, const FieldPath& path, ErrorList& errors) {
  if (const JsonValue* window = int32_of(&rules_obj, "stabilizationWindowSeconds")) {
    const FieldPath window_path = path.child("stabilizationWindowSeconds");
    if (window->GetInt64() < 0) {
      errors.invalid(rules::kFH15, window_path, window->GetInt64(),
                     "must be greater than or equal to zero");
    }
    if (window->GetInt64() > 3600) {
      errors.invalid(rules::kFH15, window_path, window->GetInt64(),
                     "must be less than or equal to 3600");
    }
  }
  if (const JsonValue* select = member(&rules_obj, "selectPolicy");
      select != nullptr && select->IsString() && view(*select) != "Disabled" &&
      view(*select) != "Max" && view(*select) != "Min") {
    const FieldPath select_path = path.child("selectPolicy");
    errors.not_supported(rules::kFH15, select_path, view(*select), kSelectPolicies);
  }
  const JsonValue* policies = array_member(&rules_obj, "policies");
  const FieldPath policies_path = path.child("policies");
  if (policies == nullptr || policies->Empty()) {
    errors.required(rules::kFH15, policies_path, "must specify at least one Policy");
  }
  for (rapidjson::SizeType i = 0; policies != nullptr && i < policies->Size(); ++i) {
    if (!(*policies)[i].IsObject()) continue;  // the schema's
    const FieldPath item = policies_path.index(i);
    check_policy((*policies)[i], item, errors);
  }
  // D-H1 (ours): upstream validates no tolerance.
  if (const JsonValue* tolerance = member(&rules_obj, "tolerance")) {
    const ParsedQuantity q = schema::quantity_of(*tolerance);
    if (q.ok() && q.value.sign() < 0) {
      const FieldPath tolerance_path = path.child("tolerance");
      errors.invalid(rules::kDH1, tolerance_path, *tolerance,
                     "must be greater than or equal to zero");
    }
  }
}

void check_behavior(const JsonValue& spec, const FieldPath& spec_path, ErrorList& errors) {
  const JsonValue* behavior = object_member(&spec, "behavior");
  if (behavior == nullptr) return;
  const FieldPath path = spec_path.child("behavior");
  for (std::string_view direction : {std::string_view("scaleUp"), std::string_view("scaleDown")}) {
    if (const JsonValue* rules_obj = object_member(behavior, direction)) {
      const FieldPath rules_path = path.child(direction);
      check_scaling_rules(*rules_obj, rules_path, errors);
    }
  }
}

void check_spec(const JsonValue* object, ErrorList& errors) {
  if (!schema::check_root_field(kS1, kSpec, object, errors)) return;
  const JsonValue* spec = object_member(object, "spec");
  if (spec == nullptr) return;
  const FieldPath spec_path = FieldPath::root("spec");
  schema::check_object(kS1, kSpecFields, *spec, spec_path, errors);
  check_replicas(*spec, spec_path, errors);
  const FieldPath ref_path = spec_path.child("scaleTargetRef");
  check_reference(rules::kFH5, object_member(spec, "scaleTargetRef"), ref_path, errors);
  if (const JsonValue* metrics = array_member(spec, "metrics")) {
    const FieldPath metrics_path = spec_path.child("metrics");
    for (rapidjson::SizeType i = 0; i < metrics->Size(); ++i) {
      if (!(*metrics)[i].IsObject()) continue;  // the schema's
      const FieldPath item = metrics_path.index(i);
      check_metric((*metrics)[i], item, errors);
    }
  }
  check_behavior(*spec, spec_path, errors);
}

// --- FH-16: the status (ValidateNonnegativeField) ---

void check_status(const JsonValue* object, ErrorList& errors) {
  if (!schema::check_root_field(kS1, kStatus, object, errors)) return;
  const JsonValue* status = object_member(object, "status");
  const FieldPath status_path = FieldPath::root("status");
  for (std::string_view key :
       {std::string_view("currentReplicas"), std::string_view("desiredReplicas")}) {
    const long long value = int32_or_zero(status, key);
    if (value < 0) {
      const FieldPath path = status_path.child(key);
      errors.invalid(rules::kFH16, path, value, "must be greater than or equal to 0");
    }
  }
}

constexpr ObjectMetaOptions kMeta{.name_format = NameFormat::kDns1123Subdomain,
                                  .name_rule = rules::kKM1,
                                  .namespace_rule = NamespaceRule::kRequired};

}  // namespace

void validate_federated_hpa(const AdmissionRequest& request, AdmissionResult& result) {
  ErrorList& errors = result.errors;
  validate_object_meta(*request.object, kMeta, errors);
  check_spec(request.object, errors);
  check_status(request.object, errors);
}

}  // namespace kpw
