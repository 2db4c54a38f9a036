// ResourceInterpreterCustomization rules (docs/rules.md "ResourceInterpreterCustomization"): the
// CRD's schema (RIC-S1), then RIC-2 over the operations in upstream's order, the first script
// that does not load the only error (upstream stops there). Every review also carries the RIC-1
// warning. No ObjectMeta rules, as upstream.
//
// | rule   | what denies                                                  | path                 |
// |--------|--------------------------------------------------------------|----------------------|
// | RIC-S1 | spec, target, target.apiVersion/kind, customizations or a     | spec.…               |
// |        | customization's luaScript absent; a field of the wrong type   |                      |
// | RIC-2  | a non-empty luaScript that Lua 5.2 cannot load (parse and     | spec.customizations. |
// |        | compile; never run): `InterpreterOperation(<op>) Lua script   | <customization>.     |
// |        | error: <Lua's message>`, the value omitted (a whole script)   | luaScript            |
//
// A script that loaded before on this thread is not parsed again (lua_script_loads_remembered:
// the same bytes, the same verdict).
#include "validators/resource_interpreter_customization.hpp"

#include <array>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "util/lua_syntax.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// --- The schema (RIC-S1) ---

constexpr schema::Rules kS1 = schema::Rules::all(rules::kRICS1);

constexpr std::array kScriptFields = {Node{.name = "luaScript", .required = true}};
constexpr Node customization(std::string_view name) {
  return Node{.name = name, .type = Type::kObject, .fields = kScriptFields};
}

// An operation, the customization that holds its script, in upstream's order of RIC-2
// (pkg/util/interpreter/rule.go): InterpretDependency last.
struct Operation {
  std::string_view name;
  std::string_view customization;
};
constexpr std::array<Operation, 8> kOperations = {{
    {"Retain", "retention"},
    {"InterpretReplica", "replicaResource"},
    {"InterpretComponent", "componentResource"},
    {"ReviseReplica", "replicaRevision"},
    {"InterpretStatus", "statusReflection"},
    {"AggregateStatus", "statusAggregation"},
    {"InterpretHealth", "healthInterpretation"},
    {"InterpretDependency", "dependencyInterpretation"},
}};

constexpr std::array kCustomizationFields = {
    customization("componentResource"),    customization("dependencyInterpretation"),
    customization("healthInterpretation"), customization("replicaResource"),
    customization("replicaRevision"),      customization("retention"),
    customization("statusAggregation"),    customization("statusReflection")};
constexpr std::array kTargetFields = {Node{.name = "apiVersion", .required = true},
                                      Node{.name = "kind", .required = true}};
constexpr std::array kSpecFields = {
    Node{.name = "customizations",
         .type = Type::kObject,
         .required = true,
         .fields = kCustomizationFields},
    Node{.name = "target", .type = Type::kObject, .required = true, .fields = kTargetFields}};
constexpr Node kSpec{
    .name = "spec", .type = Type::kObject, .required = true, .fields = kSpecFields, .rules = &kS1};
constexpr std::array kRootFields = {kSpec};
static_assert(schema::fits_a_mask(kRootFields));

// --- RIC-2: LoadString of each script, upstream's order, the first failure only ---

void check_scripts(const JsonValue& customizations, ErrorList& errors) {
  std::string lua_error;
  for (const Operation& op : kOperations) {
    const JsonValue* script = member(object_member(&customizations, op.customization), "luaScript");
    if (script == nullptr || !script->IsString() || script->GetStringLength() == 0) continue;
    if (lua_script_loads_remembered(view(*script), lua_error)) continue;
    std::string detail = "InterpreterOperation(";
    detail += op.name;
    detail += ") Lua script error: ";
    detail += lua_error;
    const FieldPath spec = FieldPath::root("spec");
    const FieldPath all = spec.child("customizations");
    const FieldPath one = all.child(op.customization);
    const FieldPath path = one.child("luaScript");
    errors.invalid_omitted(rules::kRIC2, path, detail);
    return;
  }
}

}  // namespace

void validate_resource_interpreter_customization(const AdmissionRequest& request,
                                                 AdmissionResult& result) {
  result.warnings.add(kRIC1NotChecked);
  ErrorList& errors = result.errors;
  const JsonValue* object = request.object;
  if (!schema::check_root_field(kS1, kSpec, object, errors)) return;
  const JsonValue* spec = object_member(object, "spec");
  if (spec == nullptr) return;
  schema::check_object(kS1, kSpecFields, *spec, FieldPath::root("spec"), errors);
  if (const JsonValue* customizations = object_member(spec, "customizations")) {
    check_scripts(*customizations, errors);
  }
}

}  // namespace kpw
