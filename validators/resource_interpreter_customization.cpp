// ResourceInterpreterCustomization rules (docs/rules.md "ResourceInterpreterCustomization"): the
// CRD's schema (RIC-S1), then RIC-1 against the cluster's customizations, then RIC-2 over the
// operations in upstream's order; the first RIC-1 conflict or the first script that does not load
// is the only error (upstream stops there). No ObjectMeta rules, as upstream.
//
// | rule   | what denies                                                  | path                 |
// |--------|--------------------------------------------------------------|----------------------|
// | RIC-S1 | spec, target, target.apiVersion/kind, customizations or a     | spec.…               |
// |        | customization's luaScript absent; a field of the wrong type   |                      |
// | RIC-1  | another customization (another name) of the same target   | spec.customizations. |
// |        | apiVersion and kind scripts an operation this one scripts     | <customization>.     |
// |        | (InterpretDependency excepted): `conflicting with Interpreter | luaScript            |
// |        | Operation(<op>) of existing ResourceInterpreterCustomization(  | | |        |
// <name>)`, the first such customization by name, its first      |                      | | |
// operation in upstream's order; judged against the watch cache  |                      | | RIC-2
// | a non-empty luaScript that Lua 5.2 cannot load (parse and     | spec.customizations. | | |
// compile; never run): `InterpreterOperation(<op>) Lua script   | <customization>.     | |        |
// error: <Lua's message>`, the value omitted (a whole script)   | luaScript            |
//
// A script that loaded before on this thread is not parsed again (lua_script_loads_remembered:
// the same bytes, the same verdict).
#include "validators/resource_interpreter_customization.hpp"

#include <array>
#include <bit>
#include <string>
#include <string_view>

#include "admission/cluster_state.hpp"
#include "api/interpreter_operations.hpp"
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

using karmada::InterpreterOperation;
using karmada::kInterpreterOperations;

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

// The script of one operation, if it is a non-empty string.
const JsonValue* script_of(const JsonValue& customizations, const InterpreterOperation& op) {
  const JsonValue* script = member(object_member(&customizations, op.customization), "luaScript");
  if (script == nullptr || !script->IsString() || script->GetStringLength() == 0) return nullptr;
  return script;
}

// RIC-1's and RIC-2's error: at the operation's script, the script itself omitted.
void script_error(ErrorList& errors, Rule rule, const InterpreterOperation& op,
                  std::string_view detail) {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath all = spec.child("customizations");
  const FieldPath one = all.child(op.customization);
  errors.invalid_omitted(rule, one.child("luaScript"), detail);
}

// --- RIC-1: against the cluster's customizations of the same target ---

// Linear: one hash lookup, then the target's customizations once each.
void check_conflicts(const RicIndex& index, std::string_view name, const JsonValue& spec,
                     const JsonValue& customizations, ErrorList& errors) {
  karmada::OperationMask mine = 0;
  for (std::size_t i = 0; i < karmada::kExclusiveOperations; ++i) {
    if (script_of(customizations, kInterpreterOperations[i]) != nullptr) mine |= 1u << i;
  }
  if (mine == 0) return;
  const JsonValue* target = object_member(&spec, "target");
  thread_local std::string key;
  ric_target_key(string_or_empty(target, "apiVersion"), string_or_empty(target, "kind"), key);
  const auto found = index.by_target.find(key);
  if (found == index.by_target.end()) return;
  for (const RicEntry& other : found->second) {
    const karmada::OperationMask both = other.operations & mine;
    if (both == 0 || other.name == name) continue;  // nothing shared, or itself (an UPDATE)
    const InterpreterOperation& op = kInterpreterOperations[std::countr_zero(both)];
    std::string detail = "conflicting with InterpreterOperation(";
    detail += op.name;
    detail += ") of existing ResourceInterpreterCustomization(";
    detail += other.name;
    detail += ')';
    script_error(errors, rules::kRIC1, op, detail);
    return;
  }
}

// --- RIC-2: LoadString of each script, upstream's order, the first failure only ---

void check_scripts(const JsonValue& customizations, ErrorList& errors) {
  std::string lua_error;
  for (const InterpreterOperation& op : kInterpreterOperations) {
    const JsonValue* script = script_of(customizations, op);
    if (script == nullptr) continue;
    if (lua_script_loads_remembered(view(*script), lua_error)) continue;
    std::string detail = "InterpreterOperation(";
    detail += op.name;
    detail += ") Lua script error: ";
    detail += lua_error;
    script_error(errors, rules::kRIC2, op, detail);
    return;
  }
}

// --- RIC-1 from a cache that is not in yet, or silent (docs/operations.md, "Readiness") ---

std::string ric1_not_listed(const ClusterState& cluster) {
  return "RIC-1 cannot be judged yet: this webhook has not listed the cluster's "
         "ResourceInterpreterCustomizations from " +
         cluster.server() + " since it started" + cluster.failure_note() +
         "; try again once it has (the other webhooks of this server are not affected)";
}

std::string ric1_stale(const ClusterState& cluster) {
  const double silent = cluster.seconds_since_heard();
  return "RIC-1 judged from a cache that has heard nothing from " + cluster.server() + " for " +
         std::to_string(static_cast<long long>(silent)) + "s" + cluster.failure_note() +
         "; a ResourceInterpreterCustomization changed since then was not seen";
}

}  // namespace

void validate_resource_interpreter_customization(const AdmissionRequest& request,
                                                 AdmissionResult& result) {
  const ClusterState* cluster = request.settings->cluster;
  const bool synced = cluster != nullptr && cluster->status() == ClusterState::Status::kSynced;
  // RIC-1 judged from a cache that may miss changes: said whatever the verdict.
  if (cluster == nullptr) result.warnings.add(kRIC1NotChecked);
  if (synced && !cluster->fresh()) result.warnings.add(ric1_stale(*cluster));
  ErrorList& errors = result.errors;
  const JsonValue* object = request.object;
  if (!schema::check_root_field(kS1, kSpec, object, errors)) return;
  const JsonValue* spec = object_member(object, "spec");
  if (spec == nullptr) return;
  schema::check_object(kS1, kSpecFields, *spec, FieldPath::root("spec"), errors);
  const JsonValue* customizations = object_member(spec, "customizations");
  if (customizations == nullptr) return;
  if (synced) {
    const std::size_t before = errors.size();
    const std::string_view name = string_or_empty(object_member(object, "metadata"), "name");
    check_conflicts(*cluster->ric_index(), name, *spec, *customizations, errors);
    if (errors.size() != before) return;  // upstream stops at RIC-1's conflict
  }
  check_scripts(*customizations, errors);
  // Not listed yet: what else the object breaks is said first; otherwise RIC-1 cannot be judged.
  if (cluster != nullptr && !synced && errors.empty()) {
    result.refuse(kRIC1NotListedCode, ric1_not_listed(*cluster));
  }
}

}  // namespace kpw
