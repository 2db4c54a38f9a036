// The tables: the kinds this server knows (data: group, versions, scope, CRD defaults, schema) and
// the route table (one row per path: what it takes and what judges it), and nothing else lists
// either. The server's routing (admission/route.hpp's rows are these), `check`, the metrics
// series, `karmada-policy-webhook kinds` and `routes` (which the tests and the manifests read) and
// `--help` all read them. Adding a path is one row here plus its rule files
// (docs/architecture.md, "Adding a path").
//
// This is wiring, beside main: it knows every validator and mutator, and nothing below it
// includes it (the admission layer declares `routes()`, routes.cpp defines it).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "admission/route.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"

namespace kpw {

std::span<const Kind* const> kinds();
const Kind* find_kind(std::string_view group, std::string_view kind);
// "PropagationPolicy, ClusterPropagationPolicy, …" (--help).
std::string kind_names();

// The route that mutates (or validates) `kind`, or nullptr.
const Route* route_of(const Kind& kind, bool mutating);

// The tables as JSON (`karmada-policy-webhook kinds`, `routes`), one object per row.
std::string kinds_json();
std::string routes_json();

// Every rule of every route (each once, in the table's order), then the API server's own (K-*):
// what docs/rules.md documents and `check` may report.
std::span<const Rule> all_rules();
std::optional<Rule> find_rule(std::string_view id);

// Applies `kind`'s CRD defaults to `object` as the API server does (absent or null fields inside
// objects that exist).
void apply_crd_defaults(const Kind& kind, JsonValue& object, JsonAllocator& allocator);

}  // namespace kpw
