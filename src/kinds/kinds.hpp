// The kind table: one entry per kind this server serves, and nothing else lists kinds. The
// server's routing (admission/registry.hpp's rows are derived from it), `check`, the metrics
// rows, `karmada-policy-webhook kinds` (which the manifests test reads) and `--help` all read it.
// Adding a kind is one entry here plus its rule files (docs/architecture.md, "Adding a kind").
//
// This is wiring, beside main: it knows every validator and mutator, and nothing below it
// includes it (the admission layer declares `webhooks()`, this file defines it).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "admission/field_error.hpp"
#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"

namespace kpw {

// A default the kind's CRD gives a field: applied by the API server to an absent (or null) field
// inside objects that exist, before and again after every mutating webhook. `check` applies them
// as the API server would.
struct CrdDefault {
  std::string_view path;  // dotted, from the object's root:
                          // "spec.placement.replicaScheduling.replicaSchedulingType"
  std::variant<std::string_view, std::int64_t> value;
};

// The fields of a kind's spec a schema declares, for `check`'s unknown-field rule (K-U1).
using UnknownFieldWalk = void (*)(const JsonValue& spec, const FieldPath& spec_path,
                                  ErrorList& errors);

struct Kind {
  std::string_view group;     // "policy.karmada.io"
  std::string_view version;   // the served version, "v1alpha1"
  std::string_view kind;      // "PropagationPolicy"
  std::string_view resource;  // the plural, "propagationpolicies"
  bool namespaced;
  // Upstream's webhook entry names (manifests and docs use them), "" when upstream has none.
  std::string_view validating_name;
  std::string_view mutating_name;
  std::string_view validate_path;  // "/validate-propagationpolicy"
  std::string_view mutate_path;    // "" when the kind has no mutating webhook
  Handler validate;
  Handler mutate;  // nullptr when mutate_path is ""
  std::span<const CrdDefault> crd_defaults;
  UnknownFieldWalk spec_fields;  // nullptr: spec is not walked for unknown fields
  std::span<const Rule> rules;   // the rules its validator reports (rules.hpp: IDs and classes)
};

std::span<const Kind> kinds();
// The table as JSON, one object per kind (`karmada-policy-webhook kinds`; the manifests test).
std::string kinds_json();
// "PropagationPolicy, ClusterPropagationPolicy, …" (--help).
std::string kind_names();
const Kind* find_kind(std::string_view group, std::string_view kind);

// Every rule of every kind (each once, in the table's order), then the API server's own (K-*):
// what docs/rules.md documents and `check` may report.
std::span<const Rule> all_rules();
std::optional<Rule> find_rule(std::string_view id);

// Applies `kind`'s CRD defaults to `object` as the API server does (absent or null fields inside
// objects that exist).
void apply_crd_defaults(const Kind& kind, JsonValue& object, JsonAllocator& allocator);

}  // namespace kpw
