// The OverridePolicy CRD schema as data (policy.karmada.io_overridepolicies.yaml; COP's is the
// same), one row per field in the Go field order of pkg/apis/policy/v1alpha1/override_types.go:
// `required` rows are the Go fields without `omitempty`, kAny rows apiextensionsv1.JSON.
#include "validators/override_policy_schema.hpp"

#include <array>
#include <string_view>

#include "validators/override_policy.hpp"
#include "validators/schema_affinity.hpp"

namespace kpw {
namespace {

using schema::kClusterAffinity;
using schema::kLabelSelector;
using schema::Node;
using schema::Type;

constexpr schema::Rules kOS1 = schema::Rules::all(rules::kOS1);
constexpr schema::Rules kOS2 = schema::Rules::all(rules::kOS2);
constexpr schema::Rules kOS3 = schema::Rules::all(rules::kOS3);
constexpr schema::Rules kOS4 = schema::Rules::all(rules::kOS4);
constexpr schema::Rules kOS5 = schema::Rules::all(rules::kOS5);

// OS-4 enums.
constexpr std::array<std::string_view, 3> kOperators = {"add", "remove", "replace"};
constexpr std::array<std::string_view, 2> kCommandOperators = {"add", "remove"};
constexpr std::array<std::string_view, 3> kImageComponents = {"Registry", "Repository", "Tag"};

// Selectors and cluster affinities (OS-5: key and operator required):
// validators/schema_affinity.hpp.

// The overriders (OS-4).
constexpr std::array kPlaintext = {
    Node{.name = "path", .required = true},
    Node{.name = "operator", .required = true, .allowed = kOperators},
    Node{.name = "value", .type = Type::kAny},
};
constexpr std::array kImagePredicate = {Node{.name = "path", .required = true}};
constexpr std::array kImageOverrider = {
    Node{.name = "predicate", .type = Type::kObject, .fields = kImagePredicate},
    Node{.name = "component", .required = true, .allowed = kImageComponents},
    Node{.name = "operator", .required = true, .allowed = kOperators},
    Node{.name = "value"},
};
constexpr std::array kCommandArgsOverrider = {
    Node{.name = "containerName", .required = true},
    Node{.name = "operator", .required = true, .allowed = kCommandOperators},
    Node{.name = "value", .type = Type::kArray, .item = Type::kString},
};
constexpr std::array kLabelAnnotationOverrider = {
    Node{.name = "operator", .required = true, .allowed = kOperators},
    Node{.name = "value", .type = Type::kStringMap, .required = true},
};
constexpr std::array kPatchOperation = {
    Node{.name = "subPath", .required = true},
    Node{.name = "operator", .required = true, .allowed = kOperators},
    Node{.name = "value", .type = Type::kAny},
};
constexpr std::array kFieldOverrider = {
    Node{.name = "fieldPath", .required = true},
    Node{.name = "json", .type = Type::kArray, .fields = kPatchOperation},
    Node{.name = "yaml", .type = Type::kArray, .fields = kPatchOperation},
};
constexpr std::array kOverriders = {
    Node{.name = "plaintext", .type = Type::kArray, .fields = kPlaintext},
    Node{.name = "imageOverrider", .type = Type::kArray, .fields = kImageOverrider},
    Node{.name = "commandOverrider", .type = Type::kArray, .fields = kCommandArgsOverrider},
    Node{.name = "argsOverrider", .type = Type::kArray, .fields = kCommandArgsOverrider},
    Node{.name = "labelsOverrider", .type = Type::kArray, .fields = kLabelAnnotationOverrider},
    Node{.name = "annotationsOverrider", .type = Type::kArray, .fields = kLabelAnnotationOverrider},
    Node{.name = "fieldOverrider", .type = Type::kArray, .fields = kFieldOverrider},
};

constexpr std::array kRuleWithCluster = {
    Node{
        .name = "targetCluster", .type = Type::kObject, .fields = kClusterAffinity, .rules = &kOS5},
    Node{.name = "overriders",
         .type = Type::kObject,
         .required = true,
         .fields = kOverriders,
         .rules = &kOS4},
};
constexpr std::array kResourceSelector = {
    Node{.name = "apiVersion", .required = true},
    Node{.name = "kind", .required = true},
    Node{.name = "namespace"},
    Node{.name = "name"},
    Node{.name = "labelSelector", .type = Type::kObject, .fields = kLabelSelector},
};

constexpr std::array kSpecFields = {
    Node{.name = "resourceSelectors",
         .type = Type::kArray,
         .fields = kResourceSelector,
         .rules = &kOS2},
    Node{.name = "overrideRules", .type = Type::kArray, .fields = kRuleWithCluster, .rules = &kOS3},
    Node{
        .name = "targetCluster", .type = Type::kObject, .fields = kClusterAffinity, .rules = &kOS5},
    Node{.name = "overriders", .type = Type::kObject, .fields = kOverriders, .rules = &kOS4},
};
static_assert(schema::fits_a_mask(kSpecFields));

constexpr Node kSpec{
    .name = "spec", .type = Type::kObject, .required = true, .fields = kSpecFields, .rules = &kOS1};
constexpr schema::Schema kSchema{kSpecFields, kOS1};

}  // namespace

const schema::Schema& override_policy_schema() { return kSchema; }
std::span<const schema::Node> cluster_affinity_fields() { return kClusterAffinity; }
std::span<const schema::Node> overriders_fields() { return kOverriders; }
std::span<const schema::Node> field_overrider_fields() { return kFieldOverrider; }
const schema::Node& override_policy_spec_row() { return kSpec; }

void check_override_policy_unknown_fields(const JsonValue& spec, const FieldPath& spec_path,
                                          ErrorList& errors) {
  schema::check_unknown_fields(kSchema.fields, spec, spec_path, rules::kKU1, errors);
}

}  // namespace kpw
