// MultiClusterService rules (docs/rules.md "MultiClusterService"), in upstream's order:
//   CREATE: the ObjectMeta rules (a DNS-1035 name: MCS-1), then the spec;
//   UPDATE: the ObjectMeta update rules, MCS-7, then as CREATE, then MCS-8 on the status.
// The spec: the CRD's schema (MCS-S1), then per port MCS-2 and MCS-3, per type MCS-4, then MCS-5,
// then MCS-6 over providerClusters and consumerClusters. A value of the wrong JSON type is the
// schema's only (upstream cannot decode the object: 400).
//
// | rule  | what denies                                               | path |
// |-------|-----------------------------------------------------------|------------------------------|
// | MCS-2 | a set port name that is not a DNS-1123 label; a repeat    | spec.ports[i].name | |
// MCS-3 | a port outside 1…65535 (absent is Go's 0)                 | spec.ports[i].port | | MCS-4
// | a type other than CrossCluster or LoadBalancer            | spec.types[i]                | |
// MCS-5 | two distinct types                                        | spec.types | | MCS-6 | a
// cluster name empty, over 48, not a DNS-1123 label       | spec.range.providerClusters[i]
// (upstream's path, sic) | | MCS-7 | UPDATE: types differ from oldObject's (nil vs [] too)     |
// spec.types (old value)       |
#include "validators/multi_cluster_service.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "validators/common.hpp"
#include "validators/multi_cluster_ingress.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// --- The schema (MCS-S1) ---

constexpr schema::Rules kS1 = schema::Rules::all(rules::kMCSS1);

constexpr Node kTypes{
    .name = "types", .type = Type::kArray, .required = true, .item = Type::kString};
constexpr std::array kPortFields = {Node{.name = "name"},
                                    Node{.name = "port", .type = Type::kInt32, .required = true}};
constexpr Node kPorts{.name = "ports", .type = Type::kArray, .fields = kPortFields};
constexpr std::array kRangeFields = {
    Node{.name = "clusterNames", .type = Type::kArray, .item = Type::kString}};
constexpr std::array kClusterFields = {Node{.name = "name", .required = true}};
constexpr std::array kSpecFields = {
    kTypes,
    kPorts,
    Node{.name = "range", .type = Type::kObject, .fields = kRangeFields},
    Node{.name = "serviceProvisionClusters", .type = Type::kArray, .item = Type::kString},
    Node{.name = "serviceConsumptionClusters", .type = Type::kArray, .item = Type::kString},
    Node{.name = "providerClusters", .type = Type::kArray, .fields = kClusterFields},
    Node{.name = "consumerClusters", .type = Type::kArray, .fields = kClusterFields},
};
constexpr Node kSpec{
    .name = "spec", .type = Type::kObject, .required = true, .fields = kSpecFields, .rules = &kS1};
static_assert(schema::fits_a_mask(kSpecFields));

constexpr std::string_view kCrossCluster = "CrossCluster";
constexpr std::string_view kLoadBalancer = "LoadBalancer";

// --- MCS-2, MCS-3: the ports ---

void check_ports(const JsonValue& ports, const FieldPath& path, ErrorList& errors) {
  Duplicates names(rules::kMCS2);
  for (rapidjson::SizeType i = 0; i < ports.Size(); ++i) {
    const JsonValue& port = ports[i];
    if (!port.IsObject()) continue;
    const FieldPath item = path.index(i);
    const JsonValue* name = member(&port, "name");
    if (name != nullptr && name->IsString() && name->GetStringLength() > 0) {
      const FieldPath name_path = item.child("name");
      for (std::string_view p : dns1123_label_problems(view(*name))) {
        errors.invalid(rules::kMCS2, name_path, view(*name), p);
      }
      names.check(view(*name), i, name_path, errors);
    }
    const JsonValue* number = member(&port, "port");
    long long value = 0;  // absent: Go's zero
    if (number != nullptr) {
      if (!number->IsInt64() || number->GetInt64() < INT32_MIN || number->GetInt64() > INT32_MAX)
        continue;  // the schema's (MCS-S1)
      value = number->GetInt64();
    }
    if (value < 1 || value > 65535) {
      const FieldPath port_path = item.child("port");
      errors.invalid(rules::kMCS3, port_path, value, "must be between 1 and 65535, inclusive");
    }
  }
}

// --- MCS-4, MCS-5: the types ---

void check_types(const JsonValue& types, const FieldPath& path, ErrorList& errors) {
  const JsonValue* first = nullptr;
  bool distinct = false;
  for (rapidjson::SizeType i = 0; i < types.Size(); ++i) {
    const JsonValue& t = types[i];
    if (!t.IsString()) continue;  // the schema's (MCS-S1)
    if (view(t) != kCrossCluster && view(t) != kLoadBalancer) {
      const FieldPath item = path.index(i);
      errors.invalid(rules::kMCS4, item, view(t), "ExposureType Error");
    }
    if (first == nullptr) {
      first = &t;
    } else if (view(*first) != view(t)) {
      distinct = true;
    }
  }
  if (distinct) {
    errors.invalid_json(rules::kMCS5, path, go_json_list(&types),
                        "MultiClusterService types should not contain more than one type");
  }
}

// --- MCS-6: the provider and consumer clusters, at upstream's path `spec.range.<list>[i]` ---

void check_clusters(const JsonValue& spec, std::string_view list_name, ErrorList& errors) {
  const JsonValue* list = array_member(&spec, list_name);
  if (list == nullptr) return;
  const FieldPath spec_path = FieldPath::root("spec");
  const FieldPath range = spec_path.child("range");
  const FieldPath path = range.child(list_name);
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const JsonValue& cluster = (*list)[i];
    if (!cluster.IsObject()) continue;
    const JsonValue* name = member(&cluster, "name");
    if (name != nullptr && !name->IsString()) continue;  // the schema's
    const FieldPath item = path.index(i);
    check_cluster_name(rules::kMCS6, name != nullptr ? view(*name) : std::string_view{}, item,
                       errors);
  }
}

void check_spec(const JsonValue* object, ErrorList& errors) {
  if (!schema::check_root_field(kS1, kSpec, object, errors)) return;
  const JsonValue* spec = object_member(object, "spec");
  if (spec == nullptr) return;
  const FieldPath spec_path = FieldPath::root("spec");
  schema::check_object(kS1, kSpecFields, *spec, spec_path, errors);
  if (const JsonValue* ports = array_member(spec, "ports")) {
    const FieldPath ports_path = spec_path.child("ports");
    check_ports(*ports, ports_path, errors);
  }
  if (const JsonValue* types = array_member(spec, "types")) {
    const FieldPath types_path = spec_path.child("types");
    check_types(*types, types_path, errors);
  }
  check_clusters(*spec, "providerClusters", errors);
  check_clusters(*spec, "consumerClusters", errors);
}

// --- MCS-7: the types are immutable (reflect.DeepEqual of the two lists) ---

const JsonValue* types_of(const JsonValue* object) {
  const JsonValue* types = member(object_member(object, "spec"), "types");
  return types != nullptr && !types->IsNull() ? types : nullptr;
}

void check_types_unchanged(const JsonValue* object, const JsonValue* old_object,
                           ErrorList& errors) {
  const JsonValue* types = types_of(object);
  const JsonValue* old_types = types_of(old_object);
  if (types == nullptr && old_types == nullptr) return;
  if (types != nullptr && old_types != nullptr && *types == *old_types) return;
  const FieldPath spec_path = FieldPath::root("spec");
  const FieldPath path = spec_path.child("types");
  errors.invalid_json(rules::kMCS7, path, go_json_list(old_types),
                      "MultiClusterService types are immutable");
}

constexpr ObjectMetaOptions kMeta{.name_format = NameFormat::kDns1035Label,
                                  .name_rule = rules::kMCS1,
                                  .namespace_rule = NamespaceRule::kRequired};

}  // namespace

void validate_multi_cluster_service(const AdmissionRequest& request, AdmissionResult& result) {
  ErrorList& errors = result.errors;
  if (request.operation == Operation::kUpdate && request.old_object != nullptr) {
    validate_object_meta_update(*request.object, *request.old_object, errors);
    check_types_unchanged(request.object, request.old_object, errors);
  }
  validate_object_meta(*request.object, kMeta, errors);
  check_spec(request.object, errors);
  if (request.operation == Operation::kUpdate && request.old_object != nullptr) {
    check_load_balancer_status(rules::kMCS8, *request.object, errors);
  }
}

}  // namespace kpw
