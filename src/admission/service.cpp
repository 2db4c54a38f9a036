// The envelope (service.hpp): routing a request, decoding its AdmissionReview, running the handler.
#include "admission/service.hpp"

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admission/answer.hpp"
#include "admission/conversion.hpp"
#include "admission/judge.hpp"
#include "admission/review.hpp"
#include "admission/route.hpp"
#include "api/object.hpp"
#include "json/json.hpp"
#include "json/json_reader.hpp"

namespace kpw {
namespace {

constexpr std::string_view kV1 = "admission.k8s.io/v1";
constexpr std::string_view kV1beta1 = "admission.k8s.io/v1beta1";

// What a thread keeps from review to review so that a typical one allocates nothing (the answer's
// own scratch is answer.cpp's); a large review's growth is given back by release_review_memory.
struct Scratch {
  std::optional<AdmissionResult> result;
};
thread_local Scratch t_scratch;

bool parse_operation(std::string_view text, Operation& op) {
  for (std::size_t i = 0; i < kOperationCount; ++i) {
    const auto candidate = static_cast<Operation>(i);
    if (text == operation_name(candidate)) {
      op = candidate;
      return true;
    }
  }
  return false;
}

std::string qualified_kind(std::string_view group, std::string_view kind) {
  std::string out;
  if (!group.empty()) {
    append_echoed_text(out, group);
    out += '/';
  }
  append_echoed_text(out, kind);
  return out;
}

// "policy.karmada.io/PropagationPolicy" or "a/A or b/B": what `route` serves.
std::string served_kinds(const Route& route) {
  std::string out;
  for (std::size_t i = 0; i < route.kinds.size(); ++i) {
    if (i > 0) out += " or ";
    out += qualified_kind(route.kinds[i]->group, route.kinds[i]->kind);
  }
  return out;
}

// Checks that `request.kind` is a kind `route` serves (any version); fills `problem` when not.
bool kind_matches(const Route& route, const JsonValue* request, std::string& problem) {
  if (route.kinds.empty()) return true;  // any kind
  const JsonValue* kind = object_member(request, "kind");
  if (kind == nullptr) {
    problem =
        "request.kind is required: " + std::string(route.path) + " serves " + served_kinds(route);
    return false;
  }
  std::string_view group = string_or_empty(kind, "group");
  std::string_view name = string_or_empty(kind, "kind");
  for (const Kind* k : route.kinds) {
    if (group == k->group && name == k->kind) return true;  // (no string built on this path)
  }
  problem = "request.kind " + qualified_kind(group, name) + " is not served by " +
            std::string(route.path) + ", which serves " + served_kinds(route);
  return false;
}

// What the review log and the metrics read of a judged review (its denial message aside).
void fill_outcome(const AdmissionRequest& req, const JsonValue* request,
                  const AdmissionResult& result, ReviewOutcome& outcome) {
  outcome.reviewed = true;
  outcome.operation = req.operation;
  outcome.allowed = result.errors.empty() && result.refused_code == 0;
  outcome.uid = req.uid;
  outcome.kind = string_or_empty(object_member(request, "kind"), "kind");
  outcome.ns = req.ns;
  outcome.name = req.name;
  outcome.violations.assign(result.violations.begin(), result.violations.end());
}

// `env` is filled as the review is decoded, so that an exception can still be answered in kind.
void review(const Route& route, std::string_view content_type, std::string& body,
            const Settings& settings, Envelope& env, HttpAnswer& answer) {
  if (content_type != "application/json") {
    std::string message = "contentType=";
    append_echoed_text(message, content_type);
    message += ", expected application/json";
    answer.errored(env, 400, message);
    return;
  }
  if (body.empty()) {
    answer.errored(env, 400, "request body is empty");
    return;
  }
  JsonArena& arena = thread_json_arena();
  JsonParseResult parsed = arena.parse_in_place(body);
  if (!parsed.ok) {
    answer.errored(env, 400, "cannot decode AdmissionReview: " + parsed.error);
    return;
  }
  const JsonValue& root = arena.document();
  if (!root.IsObject()) {
    answer.errored(env, 400, "cannot decode AdmissionReview: not a JSON object");
    return;
  }
  const JsonValue* api_version = member(&root, "apiVersion");
  if (api_version == nullptr) {
    env.api_version = kV1;  // upstream's default
  } else if (api_version->IsString() &&
             (view(*api_version) == kV1 || view(*api_version) == kV1beta1)) {
    env.api_version = view(*api_version);
  } else {
    std::string message = "cannot decode AdmissionReview: unsupported apiVersion ";
    append_echoed_scalar(message, *api_version);
    message += " (expected \"admission.k8s.io/v1\" or \"admission.k8s.io/v1beta1\")";
    answer.errored(env, 400, message);
    return;
  }
  const JsonValue* kind = member(&root, "kind");
  if (kind != nullptr && !(kind->IsString() && view(*kind) == "AdmissionReview")) {
    std::string message = "cannot decode AdmissionReview: unsupported kind ";
    append_echoed_scalar(message, *kind);
    env.api_version = {};
    answer.errored(env, 400, message);
    return;
  }
  const JsonValue* request = object_member(&root, "request");
  if (request == nullptr) {
    answer.errored(env, 400, "AdmissionReview has no request");
    return;
  }
  env.uid = string_or_empty(request, "uid");

  std::string problem;
  if (!kind_matches(route, request, problem)) {
    answer.errored(env, 400, problem);
    return;
  }
  AdmissionRequest req;
  req.uid = env.uid;
  if (!parse_operation(string_or_empty(request, "operation"), req.operation)) {
    answer.errored(env, 400, "request.operation must be one of CREATE, UPDATE, DELETE, CONNECT");
    return;
  }
  req.settings = &settings;
  req.name = string_or_empty(request, "name");
  req.ns = string_or_empty(request, "namespace");
  // One result per thread, reset rather than rebuilt, so its vectors keep their capacity.
  if (!t_scratch.result) t_scratch.result.emplace();
  AdmissionResult& result = *t_scratch.result;
  if (route.reads == Reads::kOldObjectOnDelete) {
    if (req.operation != Operation::kDelete) {  // allowed unjudged
      result.reset(nullptr);
      answer.verdict(env, result);
      return;
    }
    req.old_object = object_member(request, "oldObject");
    if (req.old_object == nullptr) {
      answer.errored(env, 400, "there is no content to decode: request.oldObject is empty");
      return;
    }
  } else if (req.object = member(request, "object"); req.object == nullptr) {
    answer.errored(env, 400, "there is no content to decode: request.object is empty");
    return;
  }
  if (req.object != nullptr && !req.object->IsObject()) {
    answer.errored(env, 400, "cannot decode request.object: not a JSON object");
    return;
  }
  if (req.operation == Operation::kUpdate && route.reads == Reads::kObjectAndOldOnUpdate) {
    req.old_object = object_member(request, "oldObject");
    if (req.old_object == nullptr) {
      answer.errored(env, 400, "cannot decode request.oldObject: an UPDATE needs the old object");
      return;
    }
  }

  const JsonValue* dry_run = member(request, "dryRun");
  req.dry_run = dry_run != nullptr && dry_run->IsBool() && dry_run->GetBool();
  judge(route.handler, req, result);
  if (result.refused_code != 0) {
    // A denial or failure of the handler's own (RDP-1, RB-2, RIC-1): logged and counted as a
    // denied review, like a verdict with field causes.
    answer.errored(env, result.refused_code, result.refused_message, result.refused_reason);
    answer.outcome.denial = std::move(result.refused_message);  // answered: no longer read
    fill_outcome(req, request, result, answer.outcome);
    return;
  }
  if (result.patch.too_large()) {
    answer.errored(env, 413,
                   "the defaults this object needs make a JSON Patch of more than " +
                       std::to_string(JsonPatch::kMaxBytes) + " bytes (" +
                       std::to_string(result.patch.size()) +
                       " changes and more), more than this webhook answers with: split it into "
                       "smaller objects");
    return;
  }
  answer.verdict(env, result);
  fill_outcome(req, request, result, answer.outcome);
}

}  // namespace

void handle_http(const Route* route, std::string_view method, std::string_view content_type,
                 std::string& body, const Settings& settings, HttpAnswer& answer) {
  if (route == nullptr) {
    answer.plain(404, "404 page not found\n");
    return;
  }
  if (method != "POST") {
    answer.method_not_post();
    return;
  }
  if (route->takes == Takes::kConversionReview) return handle_conversion(*route, body, answer);
  // The recovery boundary (controller-runtime's): whatever a decoder, a rule or the encoder
  // throws — std::bad_alloc from a huge but legal body included — becomes a code-500 answer for
  // this request alone; the thread, its connections and the process go on.
  Envelope env;
  try {
    review(*route, content_type, body, settings, env, answer);
  } catch (const std::exception& e) {
    answer.internal_error(env, e.what());
  } catch (...) {
    answer.internal_error(env, "an exception that is not a std::exception");
  }
}

void release_review_document() { thread_json_arena().release(); }

void release_review_memory() {
  thread_json_arena().release();
  release_json_reader_memory();
  t_scratch.result.reset();
  release_answer_memory();
}

}  // namespace kpw
