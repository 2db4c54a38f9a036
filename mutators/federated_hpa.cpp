// /mutate-federatedhpa, as upstream's handler (pkg/webhook/federatedhpa/mutating.go and its lifted
// federatedhpa.go, Kubernetes' HPA v2 defaults) and what it stores through the API server:
//
//   FH-M1 spec.minReplicas 1 when absent;
//   FH-M2 spec.metrics [CPU at 80 % utilization] when absent or [];
//   FH-M3 when spec.behavior is set: scaleUp gets stabilizationWindowSeconds 0, selectPolicy Max
//         and policies [Pods 4 per 15 s, Percent 100 per 15 s] where unset (the whole rule set
//         when absent);
//   FH-M4 the same for scaleDown: selectPolicy Max, policies [Percent 100 per 15 s]; its window
//         stays unset;
//   FH-M5 a rule set's tolerance is kept (upstream's overlay copies three fields and drops it);
//   FH-M6 upstream's re-marshal through its Go types (docs/compatibility.md, "End-to-end
//         parity"): every quantity written as Kubernetes writes it ("1000m" is "1", 100 is "100"),
//         an empty apiVersion of a reference dropped, a selector's empty matchLabels, matchExpressions and
//         values dropped, the null of an optional field dropped. Its meaningless artefact (`add
//         /status {...}`, which the status subresource drops) is never added, nor the Go zeros it
//         writes for absent required fields (every such object is denied either way). A
//         `policies: []` is kept where upstream's re-marshal drops it: FH-15 denies both with the
//         same error, and a second pass over upstream's output would add the default policies
//         (ours is idempotent).
#include "mutators/federated_hpa.hpp"

#include <array>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "mutators/round_trip.hpp"
#include "util/quantity.hpp"

namespace kpw {
namespace {

// The defaults as upstream writes them, parsed once.
struct Defaults {
  JsonDocument document;
  const JsonValue* metrics = nullptr;
  const JsonValue* scale_up_policies = nullptr;
  const JsonValue* scale_down_policies = nullptr;
  Defaults() {
    document.Parse(R"({
      "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                   "target": {"type": "Utilization", "averageUtilization": 80}}}],
      "scaleUp": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                  {"type": "Percent", "value": 100, "periodSeconds": 15}],
      "scaleDown": [{"type": "Percent", "value": 100, "periodSeconds": 15}]})");
    metrics = member(&document, "metrics");
    scale_up_policies = member(&document, "scaleUp");
    scale_down_policies = member(&document, "scaleDown");
  }
};

const Defaults& defaults() {
  static const Defaults d;
  return d;
}

bool unset(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  return v == nullptr || v->IsNull();
}

// FH-M6: a member holding null is dropped (Go's nil, omitted).
void drop_null(const JsonValue& obj, const FieldPath& path, std::string_view key,
               JsonPatch& patch) {
  const JsonValue* v = find_member(obj, key);  // member() reads a null as absent
  if (v == nullptr || !v->IsNull()) return;
  const FieldPath field = path.child(key);
  patch.remove(field);
}

// FH-M6: a quantity as resource.Quantity's MarshalJSON writes it back.
void canonical_quantity(const JsonValue& obj, const FieldPath& path, std::string_view key,
                        JsonPatch& patch) {
  drop_null(obj, path, key, patch);
  const JsonValue* v = member(&obj, key);
  if (v == nullptr) return;
  std::string spelled;
  if (v->IsString()) {
    spelled.assign(v->GetString(), v->GetStringLength());
  } else if (v->IsNumber()) {
    append_json_scalar(spelled, *v);
  } else {
    return;  // not a quantity: the validator's (FH-S1)
  }
  std::string text;
  if (append_canonical_quantity(text, spelled) != QuantityError::kNone) return;
  if (v->IsString() && text == spelled) return;
  const FieldPath field = path.child(key);
  patch.set(field, std::string_view(text));
}

// --- FH-M6 over a metric ---

void round_trip_target(const JsonValue& source, const FieldPath& source_path, JsonPatch& patch) {
  const JsonValue* target = object_member(&source, "target");
  if (target == nullptr) return;
  const FieldPath path = source_path.child("target");
  canonical_quantity(*target, path, "value", patch);
  canonical_quantity(*target, path, "averageValue", patch);
  drop_null(*target, path, "averageUtilization", patch);
}

void round_trip_metric_identifier(const JsonValue& source, const FieldPath& source_path,
                                  JsonPatch& patch) {
  const JsonValue* metric = object_member(&source, "metric");
  if (metric == nullptr) return;
  const FieldPath path = source_path.child("metric");
  drop_null(*metric, path, "selector", patch);
  const JsonValue* selector = object_member(metric, "selector");
  if (selector == nullptr) return;
  const FieldPath selector_path = path.child("selector");
  normalise_requirements(*selector, selector_path, patch);
  drop_zeros(*selector, selector_path, {{"matchLabels", Zero::kMap}}, patch);
}

constexpr std::array<std::string_view, 5> kSources = {"object", "pods", "resource",
                                                      "containerResource", "external"};

void round_trip_metric(const JsonValue& metric, const FieldPath& path, JsonPatch& patch) {
  for (std::string_view key : kSources) {
    drop_null(metric, path, key, patch);
    const JsonValue* source = object_member(&metric, key);
    if (source == nullptr) continue;
    const FieldPath source_path = path.child(key);
    if (key == "object") {
      if (const JsonValue* described = object_member(source, "describedObject")) {
        const FieldPath described_path = source_path.child("describedObject");
        drop_zeros(*described, described_path, {{"apiVersion", Zero::kString}}, patch);
      }
    }
    if (key == "object" || key == "pods" || key == "external") {
      round_trip_metric_identifier(*source, source_path, patch);
    }
    round_trip_target(*source, source_path, patch);
  }
}

// --- FH-M3…FH-M5: a behavior's rule sets ---

struct Direction {
  std::string_view key;
  bool default_window;  // scaleUp: stabilizationWindowSeconds 0; scaleDown: left unset
  const JsonValue* Defaults::*policies;
};
constexpr std::array<Direction, 2> kDirections = {{
    {"scaleUp", true, &Defaults::scale_up_policies},
    {"scaleDown", false, &Defaults::scale_down_policies},
}};

void default_scaling_rules(const JsonValue& behavior, const FieldPath& behavior_path,
                           const Direction& d, JsonPatch& patch) {
  const FieldPath path = behavior_path.child(d.key);
  const JsonValue* rules = member(&behavior, d.key);
  if (rules != nullptr && !rules->IsNull() && !rules->IsObject()) return;  // the validator's
  const FieldPath window = path.child("stabilizationWindowSeconds");
  if (unset(rules, "stabilizationWindowSeconds")) {
    if (d.default_window) {
      patch.set(window, std::int64_t{0});
    } else if (rules != nullptr) {
      drop_null(*rules, path, "stabilizationWindowSeconds", patch);
    }
  }
  if (unset(rules, "selectPolicy")) {
    const FieldPath select = path.child("selectPolicy");
    patch.set(select, std::string_view("Max"));
  }
  const FieldPath policies = path.child("policies");
  if (unset(rules, "policies")) patch.set(policies, *(defaults().*d.policies));
  if (rules != nullptr && rules->IsObject()) canonical_quantity(*rules, path, "tolerance", patch);
}

}  // namespace

void mutate_federated_hpa(const AdmissionRequest& request, AdmissionResult& result) {
  const JsonValue* spec = object_member(request.object, "spec");
  if (spec == nullptr) return;
  JsonPatch& patch = result.patch;
  const FieldPath spec_path = FieldPath::root("spec");
  if (unset(spec, "minReplicas")) {  // FH-M1
    const FieldPath path = spec_path.child("minReplicas");
    patch.set(path, std::int64_t{1});
  }
  const JsonValue* metrics = member(spec, "metrics");
  const FieldPath metrics_path = spec_path.child("metrics");
  if (metrics == nullptr || metrics->IsNull() || (metrics->IsArray() && metrics->Empty())) {
    patch.set(metrics_path, *defaults().metrics);  // FH-M2
  } else {
    for_each_object(*spec, spec_path, "metrics", [&](const JsonValue& m, const FieldPath& path) {
      round_trip_metric(m, path, patch);
    });
  }
  drop_null(*spec, spec_path, "behavior", patch);
  if (const JsonValue* behavior = object_member(spec, "behavior")) {  // FH-M3, FH-M4, FH-M5
    const FieldPath behavior_path = spec_path.child("behavior");
    for (const Direction& d : kDirections)
      default_scaling_rules(*behavior, behavior_path, d, patch);
  }
  if (const JsonValue* ref = object_member(spec, "scaleTargetRef")) {  // FH-M6
    const FieldPath ref_path = spec_path.child("scaleTargetRef");
    drop_zeros(*ref, ref_path, {{"apiVersion", Zero::kString}}, patch);
  }
}

}  // namespace kpw
