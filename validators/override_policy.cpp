// OverridePolicy / ClusterOverridePolicy rules (docs/rules.md), one function per rule family,
// called in upstream's order (ValidateOverrideSpec): O-1/O-2, O-3, O-4 (and D-O1), the legacy
// overriders (D-O2), then per override rule its annotations, labels, images, field overriders
// (and D-O3), its target cluster (O-19/O-20), and last the selectors' namespaces (O-21, CO-1).
// The CRD schema (OS-1…OS-5) is walked first, as the API server would. Reads are lenient: a field
// of the wrong type reads as absent here, because the schema walk has already reported it.
#include "validators/override_policy.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "validators/common.hpp"
#include "validators/override_policy_schema.hpp"

namespace kpw {
namespace {

using rapidjson::SizeType;

constexpr std::string_view kValueRequired = "value is required for add or replace operation";
constexpr std::string_view kValueForbidden = "value is not allowed for remove operation";

// The rules an overriders object's content reports: upstream's inside overrideRules, D-O2 for
// every one of them inside the legacy spec.overriders (which upstream does not check, B-2).
struct ContentRules {
  Rule annotation_key;
  Rule annotation_size;
  Rule label_key;
  Rule label_value;
  Rule image_predicate;
  Rule both;
  Rule neither;
  Rule field_path;
  Rule json_sub_path;
  Rule json_required;
  Rule json_forbidden;
  Rule yaml_sub_path;
  Rule yaml_required;
  Rule yaml_forbidden;
  Rule ours;              // D-O3 (plaintext, image values, container names)
  Rule empty_field_path;  // D-O4
};
constexpr ContentRules kRuleContent{.annotation_key = rules::kO5,
                                    .annotation_size = rules::kO6,
                                    .label_key = rules::kO7,
                                    .label_value = rules::kO8,
                                    .image_predicate = rules::kO9,
                                    .both = rules::kO10,
                                    .neither = rules::kO11,
                                    .field_path = rules::kO12,
                                    .json_sub_path = rules::kO13,
                                    .json_required = rules::kO14,
                                    .json_forbidden = rules::kO15,
                                    .yaml_sub_path = rules::kO16,
                                    .yaml_required = rules::kO17,
                                    .yaml_forbidden = rules::kO18,
                                    .ours = rules::kDO3,
                                    .empty_field_path = rules::kDO4};
constexpr ContentRules all_as(Rule r) { return {r, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r}; }
constexpr ContentRules kLegacyContent = all_as(rules::kDO2);

// Paths that rename or retype the resource a member cluster gets (karmada-io/karmada#1215).
bool overrides_identity(std::string_view path) {
  return path == "/metadata/name" || path == "/metadata/namespace" || path == "/kind" ||
         path == "/apiVersion";
}

void warn_identity(std::string_view pointer, const FieldPath& path, AdmissionResult& result) {
  if (!overrides_identity(pointer)) return;
  result.warnings.add_built([&](std::string& w) {
    path.append_to(w);
    w += ": ";
    append_echoed_string(w, pointer);
    w += " overrides the resource's identity; the member cluster's copy would no longer match "
         "the resource template";
  });
}

// Each element of the list `key` of `obj`, objects only (the schema names the others).
template <typename Each>
void for_each_item(const JsonValue& obj, const FieldPath& path, std::string_view key, Each each) {
  const JsonValue* list = array_member(&obj, key);
  if (list == nullptr) return;
  const FieldPath list_path = path.child(key);
  for (SizeType i = 0; i < list->Size(); ++i) {
    if (!(*list)[i].IsObject()) continue;
    const FieldPath item = list_path.index(i);
    each((*list)[i], item);
  }
}

bool non_empty_list(const JsonValue* obj, std::string_view key) { return array_size(obj, key) > 0; }

// O-14/O-15, O-17/O-18 (and D-O3 for plaintext): a value for add and replace, none for remove.
// Other operators are the schema's (OS-4).
void check_op_value(const JsonValue& op, const FieldPath& op_path, Rule required, Rule forbidden,
                    ErrorList& errors) {
  const std::string_view operation = string_or_empty(&op, "operator");
  const JsonValue* value = member(&op, "value");
  const FieldPath path = op_path.child("value");
  if ((operation == "add" || operation == "replace") && value == nullptr) {
    static const JsonValue kNull;
    errors.invalid(required, path, kNull, kValueRequired);
  } else if (operation == "remove" && value != nullptr) {
    std::string rendered;
    append_compact_json(rendered, *value, true);
    errors.invalid_json(forbidden, path, rendered, kValueForbidden);
  }
}

// O-13…O-18: the JSON or YAML operations of one field overrider.
void check_patch_operations(const JsonValue& fo, const FieldPath& fo_path, std::string_view key,
                            Rule sub_path, Rule required, Rule forbidden, ErrorList& errors) {
  for_each_item(fo, fo_path, key, [&](const JsonValue& op, const FieldPath& op_path) {
    if (const std::optional<std::string_view> p = string_member(&op, "subPath")) {
      const FieldPath path = op_path.child("subPath");
      check_json_pointer(sub_path, *p, path, errors);
    }
    check_op_value(op, op_path, required, forbidden, errors);
  });
}

// O-10…O-18 and D-O4: each field overrider.
void check_field_overriders(const JsonValue& ov, const FieldPath& ov_path, const ContentRules& r,
                            AdmissionResult& result) {
  ErrorList& errors = result.errors;
  for_each_item(ov, ov_path, "fieldOverrider", [&](const JsonValue& fo, const FieldPath& fo_path) {
    const bool json = non_empty_list(&fo, "json");
    const bool yaml = non_empty_list(&fo, "yaml");
    if (json && yaml) {  // O-10
      std::string rendered;
      schema::append_struct_json(rendered, field_overrider_fields(), fo);
      errors.invalid_json(r.both, fo_path, rendered,
                          "FieldOverrider has both YAML and JSON set. Only one is allowed");
    } else if (!json && !yaml) {  // O-11
      errors.required(r.neither, fo_path, "FieldOverrider must have either JSON or YAML set");
    }
    if (const std::optional<std::string_view> p = string_member(&fo, "fieldPath")) {
      const FieldPath path = fo_path.child("fieldPath");
      if (p->empty()) {  // D-O4 (B-6: "" is the whole object, never a string field)
        errors.required(r.empty_field_path, path, "a JSON pointer to the string field to override");
      } else {
        check_json_pointer(r.field_path, *p, path, errors);  // O-12
        warn_identity(*p, path, result);
      }
    }
    check_patch_operations(fo, fo_path, "json", r.json_sub_path, r.json_required, r.json_forbidden,
                           errors);
    check_patch_operations(fo, fo_path, "yaml", r.yaml_sub_path, r.yaml_required, r.yaml_forbidden,
                           errors);
  });
}

// O-9 and D-O3: image overriders' predicate paths, and a value for add and replace.
void check_image_overriders(const JsonValue& ov, const FieldPath& ov_path, const ContentRules& r,
                            ErrorList& errors) {
  for_each_item(ov, ov_path, "imageOverrider", [&](const JsonValue& io, const FieldPath& io_path) {
    const std::optional<std::string_view> p =
        string_member(object_member(&io, "predicate"), "path");
    if (p) {
      const FieldPath predicate = io_path.child("predicate");
      const FieldPath path = predicate.child("path");
      check_json_pointer(r.image_predicate, *p, path, errors);
    }
    const std::string_view operation = string_or_empty(&io, "operator");
    const JsonValue* value = member(&io, "value");
    if ((operation == "add" || operation == "replace") &&
        (value == nullptr || (value->IsString() && value->GetStringLength() == 0))) {
      const FieldPath path = io_path.child("value");
      errors.required(r.ours, path, kValueRequired);
    }
  });
}

// D-O3: plaintext paths are JSON pointers to a field (not ""), with a value as the operator says.
void check_plaintext(const JsonValue& ov, const FieldPath& ov_path, const ContentRules& r,
                     AdmissionResult& result) {
  ErrorList& errors = result.errors;
  for_each_item(ov, ov_path, "plaintext", [&](const JsonValue& pt, const FieldPath& pt_path) {
    if (const std::optional<std::string_view> p = string_member(&pt, "path")) {
      const FieldPath path = pt_path.child("path");
      if (p->empty()) {
        errors.required(r.ours, path, "a JSON pointer to the field to override");
      } else if (check_json_pointer(r.ours, *p, path, errors)) {
        warn_identity(*p, path, result);
      }
    }
    check_op_value(pt, pt_path, r.ours, r.ours, errors);
  });
}

// D-O3: command and args overriders name their container.
void check_container_names(const JsonValue& ov, const FieldPath& ov_path, const ContentRules& r,
                           ErrorList& errors) {
  for (std::string_view list : {"commandOverrider", "argsOverrider"}) {
    for_each_item(ov, ov_path, list, [&](const JsonValue& c, const FieldPath& c_path) {
      const std::optional<std::string_view> name = string_member(&c, "containerName");
      if (!name || !name->empty()) return;
      const FieldPath path = c_path.child("containerName");
      errors.required(r.ours, path, "the name of the container to override");
    });
  }
}

// O-5…O-18 (upstream's order: annotations, labels, images, field overriders), then D-O3.
void check_overriders(const JsonValue& ov, const FieldPath& ov_path, const ContentRules& r,
                      AdmissionResult& result) {
  ErrorList& errors = result.errors;
  for_each_item(ov, ov_path, "annotationsOverrider", [&](const JsonValue& a, const FieldPath& p) {
    const JsonValue* map = object_member(&a, "value");
    if (map == nullptr) return;
    const FieldPath path = p.child("value");
    check_annotation_map(r.annotation_key, r.annotation_size, *map, path, errors,
                         MapOrder::kSortedKeys);
  });
  for_each_item(ov, ov_path, "labelsOverrider", [&](const JsonValue& l, const FieldPath& p) {
    const JsonValue* map = object_member(&l, "value");
    if (map == nullptr) return;
    const FieldPath path = p.child("value");
    check_label_map(r.label_key, r.label_value, *map, path, errors, MapOrder::kSortedKeys);
  });
  check_image_overriders(ov, ov_path, r, errors);
  check_field_overriders(ov, ov_path, r, result);
  check_plaintext(ov, ov_path, r, result);
  check_container_names(ov, ov_path, r, errors);
}

// The six lists O-4 counts (B-1: not fieldOverrider).
bool legacy_overriders_set(const JsonValue* ov) {
  for (std::string_view list : {"plaintext", "imageOverrider", "commandOverrider", "argsOverrider",
                                "labelsOverrider", "annotationsOverrider"}) {
    if (non_empty_list(ov, list)) return true;
  }
  return false;
}

// O-3, O-4 and D-O1: the legacy fields and overrideRules exclude each other (`[]` counts as set,
// `null` does not).
void check_legacy_coexistence(const JsonValue& spec, const FieldPath& spec_path,
                              ErrorList& errors) {
  if (array_member(&spec, "overrideRules") == nullptr) return;
  if (const JsonValue* tc = object_member(&spec, "targetCluster")) {
    std::string rendered;
    schema::append_struct_json(rendered, cluster_affinity_fields(), *tc);
    const FieldPath path = spec_path.child("targetCluster");
    errors.invalid_json(rules::kO3, path, rendered,
                        "overrideRules and targetCluster can't co-exist");
  }
  const JsonValue* ov = object_member(&spec, "overriders");
  const FieldPath ov_path = spec_path.child("overriders");
  if (legacy_overriders_set(ov)) {
    std::string rendered;
    schema::append_struct_json(rendered, overriders_fields(), *ov);
    errors.invalid_json(rules::kO4, ov_path, rendered,
                        "overrideRules and overriders can't co-exist");
  } else if (non_empty_list(ov, "fieldOverrider")) {
    const FieldPath path = ov_path.child("fieldOverrider");
    errors.forbidden(rules::kDO1, path,
                     "overrideRules and overriders can't co-exist (with overrideRules set, the "
                     "legacy fieldOverrider is ignored)");
  }
}

// O-21 (CO-1 for a ClusterOverridePolicy): keyed on request.namespace, as upstream; a selector
// without a namespace has "" (the mutating webhook fills it for an OverridePolicy).
void check_selector_namespaces(const JsonValue& spec, const FieldPath& spec_path,
                               const AdmissionRequest& request, bool cluster_scoped,
                               ErrorList& errors) {
  const JsonValue* selectors = array_member(&spec, "resourceSelectors");
  if (selectors == nullptr || request.ns.empty()) return;
  const FieldPath list = spec_path.child("resourceSelectors");
  for (SizeType i = 0; i < selectors->Size(); ++i) {
    const std::string_view ns = string_or_empty(&(*selectors)[i], "namespace");
    if (ns == request.ns) continue;
    const FieldPath item = list.index(i);
    const FieldPath path = item.child("namespace");
    errors.invalid(cluster_scoped ? Rule(rules::kCO1) : Rule(rules::kO21), path, ns,
                   "namespace of resource selector must be the same as the namespace of the "
                   "policy");
  }
}

void validate(const AdmissionRequest& request, bool cluster_scoped, AdmissionResult& result) {
  ErrorList& errors = result.errors;
  const schema::Schema& table = override_policy_schema();
  // OS-1: a spec, an object.
  if (!schema::check_root_field(table.rules, override_policy_spec_row(), request.object, errors)) {
    return;
  }
  const JsonValue& spec = *member(request.object, "spec");
  const FieldPath spec_path = FieldPath::root("spec");
  schema::check_object(table, spec, spec_path, errors);               // OS-1 … OS-5
  if (const JsonValue* tc = object_member(&spec, "targetCluster")) {  // O-1, O-2
    const FieldPath path = spec_path.child("targetCluster");
    check_cluster_field_selector_all(rules::kO1, rules::kO2, *tc, path, errors);
  }
  check_legacy_coexistence(spec, spec_path, errors);               // O-3, O-4, D-O1
  if (const JsonValue* ov = object_member(&spec, "overriders")) {  // D-O2
    const FieldPath path = spec_path.child("overriders");
    check_overriders(*ov, path, kLegacyContent, result);
  }
  for_each_item(spec, spec_path, "overrideRules", [&](const JsonValue& rule, const FieldPath& p) {
    if (const JsonValue* ov = object_member(&rule, "overriders")) {  // O-5 … O-18, D-O3, D-O4
      const FieldPath path = p.child("overriders");
      check_overriders(*ov, path, kRuleContent, result);
    }
    if (const JsonValue* tc = object_member(&rule, "targetCluster")) {  // O-19, O-20
      const FieldPath path = p.child("targetCluster");
      check_cluster_field_selector_all(rules::kO19, rules::kO20, *tc, path, errors);
    }
  });
  check_selector_namespaces(spec, spec_path, request, cluster_scoped, errors);  // O-21, CO-1
}

}  // namespace

void validate_override_policy(const AdmissionRequest& request, AdmissionResult& result) {
  validate(request, false, result);
}

void validate_cluster_override_policy(const AdmissionRequest& request, AdmissionResult& result) {
  validate(request, true, result);
}

}  // namespace kpw
