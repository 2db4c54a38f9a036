// CronFederatedHPA rules (docs/rules.md "CronFederatedHPA"), in upstream's order: the ObjectMeta
// rules (a DNS-1123 subdomain name: CFH-1), then the spec: the CRD's schema (CFH-S1), the
// reference (CFH-2, which alone ends the spec's checks; CFH-3), then each rule in index order:
// its name (CFH-4), schedule (CFH-5, D-C2), time zone (CFH-6) and replicas (CFH-7…CFH-12). UPDATE
// is judged as CREATE (upstream runs no ObjectMeta update rules here). A value of the wrong JSON
// type is the schema's only (upstream cannot decode the object: 400).
//
// - CFH-2  `spec.scaleTargetRef.kind`: apiVersion autoscaling.karmada.io/v1alpha1, kind not
//          FederatedHPA
// - CFH-3  `….kind`, `….name`: empty (Required), or not a path segment
// - CFH-4  `spec.rules[i].name`: repeating an earlier rule's ("" included)
// - CFH-5  `….schedule`: gronx refuses it, every item checked (D-C1)
// - D-C2   `….schedule`: the controller's parser (robfig ParseStandard) refuses it
// - CFH-6  `….timeZone`: Go's LoadLocation refuses it (the built-in tzdata names)
// - CFH-7…CFH-10  `….targetMinReplicas`, `….targetMaxReplicas`: scaling a FederatedHPA
// - CFH-11, CFH-12  `….targetReplicas`: scaling anything else
#include "validators/cron_federated_hpa.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/object.hpp"
#include "json/json.hpp"
#include "util/cron.hpp"
#include "util/names.hpp"
#include "util/time_zones.hpp"
#include "validators/common.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

constexpr std::string_view kAutoscalingV1alpha1 = "autoscaling.karmada.io/v1alpha1";
constexpr std::string_view kFederatedHPA = "FederatedHPA";
constexpr std::size_t kRetainedSchedule = 64 * 1024;

// --- The schema (CFH-S1) ---

constexpr schema::Rules kS1 = schema::Rules::all(rules::kCFHS1);

constexpr std::array kRefFields = {Node{.name = "apiVersion"},
                                   Node{.name = "kind", .required = true},
                                   Node{.name = "name", .required = true}};
constexpr std::array kRuleFields = {
    Node{.name = "failedHistoryLimit", .type = Type::kInt32, .minimum = 0, .maximum = 32},
    Node{.name = "name", .required = true, .max_length = 32},
    Node{.name = "schedule", .required = true},
    Node{.name = "successfulHistoryLimit", .type = Type::kInt32, .minimum = 1, .maximum = 32},
    Node{.name = "suspend", .type = Type::kBool},
    Node{.name = "targetMaxReplicas", .type = Type::kInt32},
    Node{.name = "targetMinReplicas", .type = Type::kInt32},
    Node{.name = "targetReplicas", .type = Type::kInt32},
    Node{.name = "timeZone"},
};
constexpr std::array kSpecFields = {
    Node{.name = "rules", .type = Type::kArray, .required = true, .fields = kRuleFields},
    Node{.name = "scaleTargetRef", .type = Type::kObject, .required = true, .fields = kRefFields},
};
constexpr Node kSpec{
    .name = "spec", .type = Type::kObject, .required = true, .fields = kSpecFields, .rules = &kS1};
static_assert(schema::fits_a_mask(kSpecFields));

// A string member as Go decodes it: "" when absent or null; nullopt when of another type (the
// schema's).
std::optional<std::string_view> go_string(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr) return std::string_view{};
  if (!v->IsString()) return std::nullopt;
  return view(*v);
}

// An *int32 as Go decodes it: absent or null is nil.
struct Replicas {
  std::optional<std::int64_t> value;
  bool bad = false;  // of another type, or beyond int32 (the schema's)
};
Replicas go_int32(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr) return {};
  if (!v->IsInt64() || v->GetInt64() < INT32_MIN || v->GetInt64() > INT32_MAX) {
    return {.value = std::nullopt, .bad = true};
  }
  return {.value = v->GetInt64(), .bad = false};
}

// --- CFH-3: the reference (lifted ValidateCrossVersionObjectReference, FH-5's rules) ---

void check_reference_field(std::string_view value, const FieldPath& path, ErrorList& errors) {
  if (value.empty()) {
    errors.required(rules::kCFH3, path, "");
    return;
  }
  for (std::string_view p : check_path_segment_name(value)) {
    errors.invalid(rules::kCFH3, path, value, p);
  }
}

// --- CFH-5, D-C2: the schedule ---

void check_schedule(std::string_view schedule, const FieldPath& path, std::string& scratch,
                    ErrorList& errors) {
  if (!gronx_schedule_valid(schedule, scratch)) {
    errors.invalid(rules::kCFH5, path, schedule, "invalid cron format");
    return;
  }
  if (std::string problem = standard_cron_problem(schedule); !problem.empty()) {
    errors.invalid(rules::kDC2, path, schedule,
                   "the CronFederatedHPA controller cannot run this schedule: " + problem);
  }
}

// --- CFH-6: the time zone (Go's LoadLocation errors; a long name cut as an echoed value) ---

void check_time_zone(std::string_view zone, const FieldPath& path, ErrorList& errors) {
  switch (load_location(zone)) {
    case LoadLocation::kLoaded:
      return;
    case LoadLocation::kInvalidName:
      errors.invalid(rules::kCFH6, path, zone, "time: invalid location name");
      return;
    case LoadLocation::kUnknown: {
      std::string detail = "unknown time zone ";
      append_echoed_text(detail, zone);
      errors.invalid(rules::kCFH6, path, zone, detail);
      return;
    }
  }
}

// --- CFH-7…CFH-12: the replicas (upstream renders every value as "") ---

void check_fhpa_replicas(const JsonValue& rule, const FieldPath& path, ErrorList& errors) {
  const Replicas min = go_int32(&rule, "targetMinReplicas");
  const Replicas max = go_int32(&rule, "targetMaxReplicas");
  if (min.bad || max.bad) return;
  const FieldPath min_path = path.child("targetMinReplicas");
  const FieldPath max_path = path.child("targetMaxReplicas");
  if (!min.value && !max.value) {
    errors.invalid(rules::kCFH7, max_path, std::string_view{},
                   "targetMinReplicas and targetMaxReplicas cannot be nil at the same time if you "
                   "want to scale FederatedHPA");
  }
  const std::int64_t min_or_default = min.value.value_or(1);
  const std::int64_t max_or_default = max.value.value_or(INT32_MAX);
  if (min_or_default <= 0) {
    errors.invalid(rules::kCFH8, min_path, std::string_view{},
                   "targetMinReplicas should be larger than 0");
  }
  if (max_or_default <= 0) {
    errors.invalid(rules::kCFH9, max_path, std::string_view{},
                   "targetMaxReplicas should be larger than 0");
  }
  if (min_or_default > max_or_default) {
    errors.invalid(rules::kCFH10, min_path, std::string_view{},
                   "targetMaxReplicas should be larger than or equal to targetMinReplicas");
  }
}

void check_target_replicas(const JsonValue& rule, std::string_view kind, const FieldPath& path,
                           ErrorList& errors) {
  const Replicas replicas = go_int32(&rule, "targetReplicas");
  if (replicas.bad) return;
  const FieldPath replicas_path = path.child("targetReplicas");
  if (!replicas.value) {
    std::string detail = "targetReplicas cannot be nil if you want to scale ";
    append_echoed_text(detail, kind);
    errors.invalid(rules::kCFH11, replicas_path, std::string_view{}, detail);
  } else if (*replicas.value < 0) {
    errors.invalid(rules::kCFH12, replicas_path, std::string_view{},
                   "targetReplicas should be larger than or equal to 0");
  }
}

// --- CFH-4…CFH-12: the rules, each in turn ---

void check_rules(const JsonValue& list, bool scales_fhpa, std::string_view kind,
                 const FieldPath& path, ErrorList& errors) {
  Duplicates names(rules::kCFH4);
  // The normalized schedule (util/cron.hpp): the thread's buffer, so that a review allocates
  // nothing in the steady state; past 64 KiB it is given back after the review (a hostile 3 MiB
  // schedule keeps nothing).
  thread_local std::string t_schedule;
  std::string& scratch = t_schedule;
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const JsonValue& rule = list[i];
    if (!rule.IsObject()) continue;  // the schema's
    const FieldPath item = path.index(i);
    if (const std::optional<std::string_view> name = go_string(&rule, "name")) {
      const FieldPath name_path = item.child("name");
      names.check(*name, i, name_path, errors);
    }
    if (const std::optional<std::string_view> schedule = go_string(&rule, "schedule")) {
      const FieldPath schedule_path = item.child("schedule");
      check_schedule(*schedule, schedule_path, scratch, errors);
    }
    if (const JsonValue* zone = member(&rule, "timeZone"); zone != nullptr && zone->IsString()) {
      const FieldPath zone_path = item.child("timeZone");
      check_time_zone(view(*zone), zone_path, errors);
    }
    if (scales_fhpa) {
      check_fhpa_replicas(rule, item, errors);
    } else {
      check_target_replicas(rule, kind, item, errors);
    }
  }
  if (scratch.capacity() > kRetainedSchedule) std::string().swap(scratch);
}

void check_spec(const JsonValue* object, ErrorList& errors) {
  schema::check_root_field(kS1, kSpec, object, errors);
  const JsonValue* spec = member(object, "spec");    // absent: Go's zero spec, judged as upstream
  if (spec != nullptr && !spec->IsObject()) return;  // the schema's
  const FieldPath spec_path = FieldPath::root("spec");
  if (spec != nullptr) schema::check_object(kS1, kSpecFields, *spec, spec_path, errors);

  const JsonValue* ref = member(spec, "scaleTargetRef");
  if (ref != nullptr && !ref->IsObject()) return;  // the schema's
  const std::optional<std::string_view> api_version = go_string(ref, "apiVersion");
  const std::optional<std::string_view> kind = go_string(ref, "kind");
  const std::optional<std::string_view> name = go_string(ref, "name");
  if (!api_version || !kind || !name) return;  // the schema's
  const FieldPath ref_path = spec_path.child("scaleTargetRef");
  const FieldPath kind_path = ref_path.child("kind");
  // CFH-2: only a FederatedHPA under autoscaling.karmada.io/v1alpha1; ends the spec's checks.
  const bool scales_fhpa = *api_version == kAutoscalingV1alpha1;
  if (scales_fhpa && *kind != kFederatedHPA) {
    std::string detail = "invalid scaleTargetRef kind: ";
    append_echoed_text(detail, *kind);
    detail.append(", only support ").append(kFederatedHPA);
    errors.invalid(rules::kCFH2, kind_path, *kind, detail);
    return;
  }
  // CFH-3
  check_reference_field(*kind, kind_path, errors);
  const FieldPath name_path = ref_path.child("name");
  check_reference_field(*name, name_path, errors);

  const JsonValue* list = member(spec, "rules");
  if (list == nullptr || !list->IsArray()) return;  // nil rules: nothing; else the schema's
  const FieldPath rules_path = spec_path.child("rules");
  check_rules(*list, scales_fhpa, *kind, rules_path, errors);
}

constexpr ObjectMetaOptions kMeta{.name_format = NameFormat::kDns1123Subdomain,
                                  .name_rule = rules::kCFH1,
                                  .namespace_rule = NamespaceRule::kRequired};

}  // namespace

void validate_cron_federated_hpa(const AdmissionRequest& request, AdmissionResult& result) {
  ErrorList& errors = result.errors;
  validate_object_meta(*request.object, kMeta, errors);
  check_spec(request.object, errors);
}

}  // namespace kpw
