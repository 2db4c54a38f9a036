// The resource interpreter's operations as a ResourceInterpreterCustomization spells them: the
// operation's name and the customization that holds its Lua script, in upstream's order
// (pkg/util/interpreter/rule.go; docs/rules.md "ResourceInterpreterCustomization"). RIC-2 checks
// them in this order; RIC-1 reports the first conflict in it and leaves InterpretDependency out.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace kpw::karmada {

struct InterpreterOperation {
  std::string_view name;           // InterpreterOperation(<name>) in upstream's messages
  std::string_view customization;  // spec.customizations.<customization>.luaScript
};

inline constexpr std::array<InterpreterOperation, 8> kInterpreterOperations = {{
    {"Retain", "retention"},
    {"InterpretReplica", "replicaResource"},
    {"InterpretComponent", "componentResource"},
    {"ReviseReplica", "replicaRevision"},
    {"InterpretStatus", "statusReflection"},
    {"AggregateStatus", "statusAggregation"},
    {"InterpretHealth", "healthInterpretation"},
    {"InterpretDependency", "dependencyInterpretation"},
}};

// RIC-1's operations: bit i of a mask is kInterpreterOperations[i]; InterpretDependency (the last)
// may be defined by several customizations and has no bit.
inline constexpr std::size_t kExclusiveOperations = kInterpreterOperations.size() - 1;
using OperationMask = std::uint8_t;
static_assert(kExclusiveOperations <= 8 * sizeof(OperationMask));

}  // namespace kpw::karmada
