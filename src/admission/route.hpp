// The route table's rows: per path, what it takes (the envelope, the kinds it serves or any kind,
// the operations, what of the request it reads) and what judges it (the handler, its rules), plus
// what the webhook configurations need (generated from the rows: docs/operations.md). The rows are
// defined by the wiring above this layer (src/table/routes.cpp); this layer declares them, finds a
// row by path and never includes the layer that knows every validator and mutator.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "admission/field_error.hpp"
#include "admission/review.hpp"
#include "admission/rules.hpp"
#include "json/field_path.hpp"
#include "json/json.hpp"

namespace kpw {

// A default a kind's CRD gives a field: applied by the API server to an absent (or null) field
// inside objects that exist, before and again after every mutating webhook. `check` applies them
// as the API server would.
struct CrdDefault {
  std::string_view path;  // dotted, from the object's root:
                          // "spec.placement.replicaScheduling.replicaSchedulingType"
  std::variant<std::string_view, std::int64_t> value;
};

// The fields of a kind's spec its schema declares, for `check`'s unknown-field rule (K-U1).
using UnknownFieldWalk = void (*)(const JsonValue& spec, const FieldPath& spec_path,
                                  ErrorList& errors);

// A kind: data that routes and `check` refer to.
struct Kind {
  std::string_view group;                      // "policy.karmada.io"
  std::span<const std::string_view> versions;  // served, the first the storage version
  std::string_view kind;                       // "PropagationPolicy"
  std::string_view resource;                   // the plural, "propagationpolicies"
  bool namespaced;
  std::span<const CrdDefault> crd_defaults;
  UnknownFieldWalk spec_fields;  // nullptr: `check` does not walk spec for unknown fields
  // The kind's top-level fields beside apiVersion, kind and metadata, for `check`'s K-U1 (empty:
  // spec and status, as most kinds; ResourceInterpreterWebhookConfiguration has webhooks).
  std::span<const std::string_view> top_level_fields = {};
};

// A set of Operations.
class Operations {
 public:
  constexpr Operations() = default;
  constexpr Operations(std::initializer_list<Operation> ops) {
    for (const Operation op : ops) bits_ |= bit(op);
  }
  constexpr bool has(Operation op) const { return (bits_ & bit(op)) != 0; }

 private:
  static constexpr std::uint8_t bit(Operation op) {
    return static_cast<std::uint8_t>(1u << static_cast<unsigned>(op));
  }
  std::uint8_t bits_ = 0;
};

// What of a request a route's handler reads, which the envelope checks before it runs.
enum class Reads : std::uint8_t {
  kObject,                // request.object (a mutating webhook's view)
  kObjectAndOldOnUpdate,  // request.object, and request.oldObject on UPDATE
  // request.oldObject of a DELETE, and nothing else: any other operation is allowed unjudged,
  // without decoding (upstream's deletion protection).
  kOldObjectOnDelete,
};

// The fields of a webhook entry that the API server reads (admissionregistration.k8s.io/v1).
enum class FailurePolicy : std::uint8_t { kFail, kIgnore };
enum class SideEffects : std::uint8_t { kNone, kNoneOnDryRun };
enum class MatchPolicy : std::uint8_t { kEquivalent, kExact };
enum class SelectorOperator : std::uint8_t { kExists, kDoesNotExist };

// An objectSelector of one requirement on a label's presence; `key` "" is none (every object).
struct ObjectSelector {
  std::string_view key;  // "resourcetemplate.karmada.io/deletion-protected"
  SelectorOperator op = SelectorOperator::kExists;
};

// The AdmissionReview versions every entry accepts (the envelope answers both).
inline constexpr std::array<std::string_view, 2> kAdmissionReviewVersions = {"v1", "v1beta1"};

// The webhook configuration entry a route is registered with (docs/operations.md, "Manifests"):
// its rules come from the route (kinds, operations), the rest from here. A row sets its names
// and what differs from the defaults below.
struct Entry {
  std::string_view name;           // ours: "propagationpolicy.karmada-policy-webhook.karmada.io"
  std::string_view upstream_name;  // upstream's entry for the path, "" when it has none
  std::uint8_t timeout_seconds = 3;
  FailurePolicy failure_policy = FailurePolicy::kFail;
  SideEffects side_effects = SideEffects::kNone;
  ObjectSelector object_selector = {};
  std::span<const std::string_view> admission_review_versions = kAdmissionReviewVersions;
  MatchPolicy match_policy = MatchPolicy::kEquivalent;
};

// What a route takes, and so how it is registered (`karmada-policy-webhook manifests`;
// docs/architecture.md, "The tables").
enum class Takes : std::uint8_t {
  // admission.k8s.io: `handler` judges request.object (service.cpp); an entry of the Mutating- or
  // ValidatingWebhookConfiguration.
  kAdmissionReview,
  // apiextensions.k8s.io/v1: the conversion webhook of its kinds' CRDs, named by their
  // spec.conversion (conversion.cpp).
  kConversionReview,
};

// Converts one object of a ConversionReview's request.objects (any JSON value, as sent) to
// `desired_api_version` and appends it to `out` as JSON; or returns false with `error` set (the
// review's result.message: one object that does not convert fails the whole review), and what it
// appended is dropped.
using Converter = bool (*)(const JsonValue& object, std::string_view desired_api_version,
                           std::string& out, std::string& error);

struct Route {
  std::string_view path;  // "/validate-propagationpolicy"
  bool mutating;          // answers with a patch; its answer can be tens of times its body
  // The kinds request.kind may name (any version); empty: any kind, request.kind not read.
  std::span<const Kind* const> kinds;
  Operations operations;  // what the entry registers
  Reads reads;
  Handler handler;
  std::span<const Rule> rules;  // the rules the handler may report (a mutator's: none)
  Entry entry;
  // A ConversionReview route has no handler, operations, rules or webhook configuration entry
  // (its CRDs' spec.conversion names it); its kinds are those whose conversion it serves.
  Takes takes = Takes::kAdmissionReview;
  Converter converter = nullptr;
  // The server judges a body of more than --large-review-bytes / large_divisor on a review thread,
  // off the I/O threads: 8 for a mutator whose answer can be tens of times its body (a default
  // filled into every element of a list), 2 for one whose answer can be a few times its body (a
  // Work's: three ops a manifest), 1 where the answer is bounded (validators, a label added).
  std::uint8_t large_divisor = 1;
};

// Defined by the route table (src/table/routes.cpp).
std::span<const Route> routes();
// The route serving `path` (without the query), or nullptr.
const Route* find_route(std::string_view path);
// Its row in routes(): metrics keep a series per route.
inline std::size_t route_index(const Route& route) {
  return static_cast<std::size_t>(&route - routes().data());
}

}  // namespace kpw
