#include "check/judge.hpp"

#include <string_view>

#include "admission/registry.hpp"
#include "admission/review.hpp"
#include "api/karmada.hpp"
#include "api/object.hpp"
#include "json/json_patch_apply.hpp"

namespace kpw::check {
namespace {

std::string_view text_of(const JsonValue* obj, std::string_view key) {
  return string_or_empty(obj, key);
}

// The webhook row serving (group, kind), validating or mutating.
const Webhook* row_for(std::string_view group, std::string_view kind, bool mutating) {
  for (const Webhook& w : webhooks()) {
    if (w.group == group && w.kind == kind && w.mutating == mutating) return &w;
  }
  return nullptr;
}

// Sets obj[key] = value when the key is absent or null (structural defaulting).
template <typename T>
void default_member(JsonValue& obj, std::string_view key, T value, JsonAllocator& alloc) {
  if (!obj.IsObject()) return;
  JsonValue* existing = find_member(obj, key);
  JsonValue v;
  if constexpr (std::is_same_v<T, std::string_view>) {
    v.SetString(value.data(), static_cast<rapidjson::SizeType>(value.size()), alloc);
  } else {
    v = JsonValue(value);
  }
  if (existing == nullptr) {
    obj.AddMember(JsonValue(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc), v,
                  alloc);
  } else if (existing->IsNull()) {
    *existing = v;
  }
}

// The defaults of the policy CRDs (docs/check.md, "What is judged"), applied inside objects that
// exist, as the API server's structural defaulting does before any webhook runs.
void apply_policy_crd_defaults(JsonValue& object, JsonAllocator& alloc) {
  JsonValue* spec = object_member(&object, "spec");
  if (spec == nullptr) return;
  default_member(*spec, "priority", std::int64_t{0}, alloc);
  default_member(*spec, "preemption", std::string_view("Never"), alloc);
  default_member(*spec, "schedulerName", std::string_view("default-scheduler"), alloc);
  default_member(*spec, "conflictResolution", std::string_view("Abort"), alloc);
  if (JsonValue* placement = object_member(spec, "placement")) {
    if (JsonValue* rs = object_member(placement, "replicaScheduling")) {
      default_member(*rs, "replicaSchedulingType", std::string_view("Divided"), alloc);
    }
  }
  if (JsonValue* failover = object_member(spec, "failover")) {
    if (JsonValue* app = object_member(failover, "application")) {
      default_member(*app, "purgeMode", std::string_view("Gracefully"), alloc);
      if (JsonValue* dc = object_member(app, "decisionConditions")) {
        default_member(*dc, "tolerationSeconds", std::int64_t{300}, alloc);
      }
    }
    if (JsonValue* cluster = object_member(failover, "cluster")) {
      default_member(*cluster, "purgeMode", std::string_view("Gracefully"), alloc);
    }
  }
}

// What the API server checks before any webhook (metadata.hpp): nulls pruned, ObjectMeta, unknown
// fields (errors, warnings or nothing, as --unknown-fields says).
void judge_as_api_server(const SourceObject& src, JsonValue& obj, const Options& options,
                         Judged& j) {
  prune_nulls(obj);
  ErrorList errors;
  check_object_meta(obj, errors);
  ErrorList unknown;
  if (options.unknown_fields != UnknownFields::kIgnore) {
    const bool policy =
        j.kind == karmada::kPropagationPolicy || j.kind == karmada::kClusterPropagationPolicy;
    check_unknown_fields(obj, policy, unknown);
  }
  for (const ErrorList* list : {&errors, &unknown}) {
    const bool as_warning = list == &unknown && options.unknown_fields == UnknownFields::kWarn;
    for (const FieldError& e : list->errors()) {
      Problem p{src.locate(e.field), e.field, e.text(), e.rule};
      if (as_warning) {
        p.field.clear();
        p.text += " [" + std::string(rule_id(e.rule)) + "]";
        p.rule.reset();
      }
      (as_warning ? j.warnings : j.errors).push_back(std::move(p));
    }
    if (list->omitted() > 0) {
      (as_warning ? j.warnings : j.errors).push_back(Problem{src.start, "", list->omitted_text()});
    }
  }
}

// A warning that starts with a field path is placed at that field.
Position warning_position(const SourceObject& src, const std::string& warning) {
  const std::size_t end = warning.find_first_of(": ");
  if (end == std::string::npos || end == 0) return src.start;
  return src.locate(warning.substr(0, end));
}

Judged judge(const std::string& file, SourceObject& src, const Options& options) {
  Judged j;
  j.file = file;
  j.source = &src;
  JsonDocument& obj = *src.json;
  auto& alloc = obj.GetAllocator();
  if (!obj.IsObject()) {
    j.verdict = Verdict::kSkipped;
    j.skipped_reason = "not an object";
    return j;
  }
  const JsonValue* metadata = object_member(&obj, "metadata");
  j.api_version = text_of(&obj, "apiVersion");
  j.kind = text_of(&obj, "kind");
  j.name = text_of(metadata, "name");
  if (j.name.empty()) j.name = text_of(metadata, "generateName");
  const std::size_t slash = j.api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : j.api_version.substr(0, slash);
  const Webhook* validating = row_for(group, j.kind, false);
  const Webhook* mutating = row_for(group, j.kind, true);
  if (validating == nullptr) {
    j.verdict = Verdict::kSkipped;
    j.skipped_reason = "kind " + (j.api_version.empty() ? std::string("?") : j.api_version) + " " +
                       (j.kind.empty() ? std::string("?") : j.kind) +
                       " is not served by this webhook";
    return j;
  }
  // The request namespace: a PropagationPolicy's own, else --namespace; cluster-scoped kinds none.
  if (j.kind == karmada::kPropagationPolicy) {
    j.ns = text_of(metadata, "namespace");
    if (j.ns.empty()) {
      j.ns = options.default_namespace;
      if (JsonValue* md = object_member(&obj, "metadata")) {
        default_member(*md, "namespace", std::string_view(j.ns), alloc);
      }
    }
  }
  judge_as_api_server(src, obj, options, j);
  if (j.kind == karmada::kPropagationPolicy || j.kind == karmada::kClusterPropagationPolicy) {
    apply_policy_crd_defaults(obj, alloc);
  }

  AdmissionRequest request;
  request.operation = Operation::kCreate;
  request.name = j.name;
  request.ns = j.ns;
  request.object = &obj;
  if (mutating != nullptr) {
    AdmissionResult mutation;
    mutation.patch.reset(&obj);
    mutating->handler(request, mutation);
    if (mutation.patch.too_large()) {  // refused by the webhook too (service.cpp)
      j.errors.push_back(Problem{src.start, "",
                                 "the defaults this object needs make a JSON Patch of more than " +
                                     std::to_string(JsonPatch::kMaxBytes) +
                                     " bytes, more than the webhook answers with: split it "
                                     "into smaller objects"});
      j.verdict = Verdict::kInvalid;
      return j;
    }
    // Stored as the API server stores it: the patch as the webhook answers it, applied strictly.
    std::string ops;
    mutation.patch.render(ops);
    if (const auto problem = apply_json_patch(obj, ops, alloc)) {
      j.errors.push_back(Problem{
          src.start, "", "internal error: the webhook's JSON Patch does not apply: " + *problem});
      j.verdict = Verdict::kInvalid;
      return j;
    }
    // The API server defaults again after every mutating webhook.
    if (j.kind == karmada::kPropagationPolicy || j.kind == karmada::kClusterPropagationPolicy) {
      apply_policy_crd_defaults(obj, alloc);
    }
    for (const std::string& w : mutation.warnings.all()) {
      j.warnings.push_back(Problem{warning_position(src, w), "", w});
    }
  }
  AdmissionResult validation;
  validation.patch.reset(&obj);
  StrictContext strict;
  strict.mode = strict_rules();
  strict.object = &obj;
  // An object being deleted (an audited dump holds them) is never denied by a strict rule.
  strict.deleting = member(object_member(&obj, "metadata"), "deletionTimestamp") != nullptr;
  strict.warnings = &validation.warnings;
  validation.errors.set_context(&strict);
  validating->handler(request, validation);
  validation.errors.set_context(nullptr);
  for (const FieldError& e : validation.errors.errors()) {
    j.errors.push_back(Problem{src.locate(e.field), e.field, e.text(), e.rule});
  }
  if (validation.errors.omitted() > 0) {
    j.errors.push_back(Problem{src.start, "", validation.errors.omitted_text()});
  }
  for (const std::string& w : validation.warnings.all()) {
    j.warnings.push_back(Problem{warning_position(src, w), "", w});
  }
  j.verdict = j.errors.empty() ? Verdict::kValid : Verdict::kInvalid;
  return j;
}

}  // namespace

Judged judge_safely(const std::string& file, SourceObject& src, const Options& options) {
  std::string what;
  try {
    return judge(file, src, options);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  Judged j;
  j.file = file;
  j.source = &src;
  j.verdict = Verdict::kInvalid;
  j.errors.push_back(Problem{src.start, "", "internal error while judging this object: " + what});
  return j;
}

}  // namespace kpw::check
