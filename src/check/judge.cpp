#include "check/judge.hpp"

#include <string_view>

#include "admission/judge.hpp"
#include "admission/review.hpp"
#include "api/object.hpp"
#include "check/metadata.hpp"
#include "json/json_patch_apply.hpp"
#include "table/table.hpp"
#include "validators/object_meta.hpp"

namespace kpw::check {
namespace {

std::string_view text_of(const JsonValue* obj, std::string_view key) {
  return string_or_empty(obj, key);
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

// What the API server checks before any webhook (metadata.hpp): nulls pruned, ObjectMeta, unknown
// fields (errors, warnings or nothing, as --unknown-fields says).
void judge_as_api_server(const SourceObject& src, const Kind& kind, JsonValue& obj,
                         const Options& options, Judged& j) {
  prune_nulls(obj);
  ErrorList errors;
  check_object_meta(obj, errors);
  ErrorList unknown;
  if (options.unknown_fields != UnknownFields::kIgnore) {
    check_unknown_fields(obj, kind, unknown);
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
  const Kind* kind = find_kind(group, j.kind);
  if (kind == nullptr) {
    j.verdict = Verdict::kSkipped;
    j.skipped_reason = "kind " + (j.api_version.empty() ? std::string("?") : j.api_version) + " " +
                       (j.kind.empty() ? std::string("?") : j.kind) +
                       " is not served by this webhook";
    return j;
  }
  // The request namespace: a namespaced object's own, else --namespace; cluster-scoped kinds none.
  // Without either (a kustomize base, whose namespace an overlay sets) none is invented: the object
  // is judged in no namespace, as a cluster-scoped one is, so the rules that compare a field with
  // the policy's namespace (V-S1, O-21; the mutators' M-1 and OM-1 fill none) do not apply, and
  // metadata.namespace stays unset (see the K-M5 below).
  bool without_namespace = false;
  if (kind->namespaced) {
    j.ns = text_of(metadata, "namespace");
    if (j.ns.empty()) {
      j.ns = options.default_namespace;
      without_namespace = j.ns.empty();
      JsonValue* md = object_member(&obj, "metadata");
      if (md != nullptr && !without_namespace) {
        default_member(*md, "namespace", std::string_view(j.ns), alloc);
      }
    }
  }
  // A key written twice: the server's JSON reader refuses the body before any rule runs (code 400,
  // json.cpp), so nothing else is judged; each is named at its second occurrence, with the
  // server's message.
  if (!src.duplicate_keys.empty()) {
    for (const DuplicateKey& d : src.duplicate_keys) {
      j.errors.push_back(
          Problem{d.at, d.field, "cannot decode AdmissionReview: duplicate JSON key " + d.key});
    }
    if (src.duplicate_keys_omitted > 0) {
      j.errors.push_back(Problem{
          src.start, "", "and " + std::to_string(src.duplicate_keys_omitted) + " more errors"});
    }
    j.verdict = Verdict::kInvalid;
    return j;
  }
  judge_as_api_server(src, *kind, obj, options, j);
  apply_crd_defaults(*kind, obj, alloc);

  AdmissionRequest request;
  request.operation = Operation::kCreate;
  request.name = j.name;
  request.ns = j.ns;
  request.object = &obj;
  request.settings = &options.settings;
  if (const Route* mutator = route_of(*kind, true)) {
    AdmissionResult mutation;
    judge(mutator->handler, request, mutation);
    if (mutation.refused_code != 0) {  // refused by the webhook too (code 400), e.g. W-2, W-5
      const std::string& why = mutation.refused_message;
      const std::size_t end = why.find(": ");
      j.errors.push_back(Problem{warning_position(src, why),
                                 end == std::string::npos ? "" : why.substr(0, end), why});
      j.verdict = Verdict::kInvalid;
      return j;
    }
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
    apply_crd_defaults(*kind, obj, alloc);
    for (const std::string& w : mutation.warnings.all()) {
      j.warnings.push_back(Problem{warning_position(src, w), "", w});
    }
  }
  // K-S1: the CRD's schema, which the API server validates on the object the mutating webhooks
  // leave, before the validating ones.
  ErrorList schema;
  check_crd_enums(obj, j.api_version, j.kind, schema);
  for (const FieldError& e : schema.errors()) {
    j.errors.push_back(Problem{src.locate(e.field), e.field, e.text(), e.rule});
  }
  // Judged as the server judges (an object being deleted, which an audited dump holds, is never
  // denied by a strict rule).
  AdmissionResult validation;
  if (const Route* validator = route_of(*kind, false)) {
    judge(validator->handler, request, validation);
  }
  for (const FieldError& e : validation.errors.errors()) {
    // The ObjectMeta rules of a review (MultiClusterService, FederatedHPA, …) require the
    // namespace the API server sets from the request: a file without one leaves it to kubectl.
    if (without_namespace && e.rule == Rule(rules::kKM5) && e.type == ErrorType::kRequired) {
      continue;
    }
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
