// Encodes the envelope's answers (answer.hpp) as the API server reads them, without allocating.
#include "admission/answer.hpp"

#include <string>
#include <string_view>

#include "json/json.hpp"
#include "util/base64.hpp"

namespace kpw {
namespace {

// What a thread keeps from answer to answer so that a typical one allocates nothing; a large
// review's growth is given back by release_answer_memory.
struct Scratch {
  std::string cause;  // one cause's message while it is encoded
  std::string patch;  // the patch as rendered, before base64
};
thread_local Scratch t_scratch;

void open_answer(const Envelope& env, std::string& out) {
  out += '{';
  if (!env.api_version.empty()) {
    out += "\"apiVersion\":";
    append_json_string(out, env.api_version);
    out += ",\"kind\":\"AdmissionReview\",";
  }
  out += "\"response\":{\"uid\":";
  append_json_string(out, env.uid);
}

// Warnings as the API server shows them (Warnings caps them as they are added).
void append_warnings(const Warnings& warnings, std::string& out) {
  if (warnings.empty()) return;
  out += ",\"warnings\":[";
  bool first = true;
  for (const std::string& w : warnings.shown()) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, w);
  }
  if (warnings.dropped() > 0) {
    if (!first) out += ',';
    append_json_string(out, warnings.summary());
  }
  out += ']';
}

// allowed:false with a code and, when given, a reason (controller-runtime's Errored has none).
void append_errored(const Envelope& env, unsigned code, std::string_view message,
                    std::string_view reason, std::string& out) {
  open_answer(env, out);
  out += ",\"allowed\":false,\"status\":{\"metadata\":{},\"message\":";
  append_json_string(out, message);
  if (!reason.empty()) {
    out += ",\"reason\":";
    append_json_string(out, reason);
  }
  out += ",\"code\":";
  out += std::to_string(code);
  out += "}}}";
}

}  // namespace

void HttpAnswer::start(unsigned code, std::string_view type) {
  status = code;
  content_type = type;
  body.clear();
  close = false;
  method_not_allowed = false;
  retry_after = false;
  outcome.reviewed = false;
  outcome.internal_error = false;
  outcome.allowed = false;
  outcome.uid = outcome.kind = outcome.ns = outcome.name = {};
  outcome.denial.clear();
  outcome.violations.clear();
}

std::string& HttpAnswer::conversion() {
  start(200, "application/json");
  return body;
}

void HttpAnswer::conversion_undecodable() { start(400, "text/plain; charset=utf-8"); }

void HttpAnswer::errored(const Envelope& env, unsigned code, std::string_view message,
                         std::string_view reason) {
  start(200, "application/json");
  append_errored(env, code, message, reason, body);
}

void HttpAnswer::verdict(const Envelope& env, const AdmissionResult& result) {
  start(200, "application/json");
  std::string& out = body;
  open_answer(env, out);
  if (result.errors.empty()) {
    out += ",\"allowed\":true,\"status\":{\"metadata\":{},\"code\":200}";
  } else {
    std::string& message = outcome.denial;
    result.errors.append_message(message);
    out += ",\"allowed\":false,\"status\":{\"metadata\":{},\"message\":";
    append_json_string(out, message);
    out += ",\"reason\":";
    append_json_string(out, kForbiddenReason);
    out += ",\"details\":{\"causes\":[";
    bool first = true;
    std::string& cause = t_scratch.cause;  // keeps its capacity from error to error
    for (const FieldError& e : result.errors.errors()) {
      if (!first) out += ',';
      first = false;
      out += "{\"type\":";
      append_json_string(out, error_cause_type(e.type));
      out += ",\"message\":";
      cause.clear();
      e.append_body(cause);
      append_json_string(out, cause);
      out += ",\"field\":";
      append_json_string(out, e.field);
      out += '}';
    }
    if (result.errors.omitted() > 0) {  // one cause for the errors not shown, naming no field
      out += ",{\"message\":";
      append_json_string(out, result.errors.omitted_text());
      out += '}';
    }
    out += "]},\"code\":403}";
  }
  if (!result.patch.empty()) {
    // A mutator never denies, so a patch only rides on an allowed answer.
    std::string& ops = t_scratch.patch;  // keeps its capacity from answer to answer
    ops.clear();
    result.patch.render(ops);
    out += ",\"patch\":\"";
    append_base64(out, ops);
    out += "\",\"patchType\":\"JSONPatch\"";
  }
  append_warnings(result.warnings, out);
  out += "}}";
}

void HttpAnswer::internal_error(const Envelope& env, std::string_view what) {
  start(200, "application/json");  // a judged failure, as controller-runtime's Errored answers it
  outcome.internal_error = true;
  outcome.denial.assign("internal error: ");
  outcome.denial += what;
  const std::size_t size = outcome.denial.size();
  outcome.denial += " (the review was not judged; nothing was admitted)";
  append_errored(env, 500, outcome.denial, {}, body);
  outcome.denial.resize(size);
}

void HttpAnswer::too_large(std::size_t limit) {
  start(413, "application/json");
  close = true;
  append_errored(
      Envelope{}, 413,
      "request entity too large: the body exceeds the limit of " + std::to_string(limit) + " bytes",
      {}, body);
}

void HttpAnswer::busy(std::size_t limit, std::size_t large_bytes) {
  start(429, "application/json");
  retry_after = true;
  append_errored(Envelope{}, 429,
                 "too many large reviews: " + std::to_string(limit) + " bodies over " +
                     std::to_string(large_bytes) +
                     " bytes are being judged already; retry in a second",
                 {}, body);
}

void HttpAnswer::busy_waiting(std::size_t limit) {
  start(429, "application/json");
  retry_after = true;
  append_errored(Envelope{}, 429,
                 "too many reviews waiting on the API server: " + std::to_string(limit) +
                     " are in flight already (FederatedResourceQuota status writes); retry in a "
                     "second",
                 {}, body);
}

void HttpAnswer::busy_memory(std::size_t limit) {
  start(429, "application/json");
  retry_after = true;
  append_errored(Envelope{}, 429,
                 "too many request bodies in flight: this one would pass the " +
                     std::to_string(limit) +
                     " bytes the server holds at once (--max-body-bytes-in-flight); retry in a "
                     "second",
                 {}, body);
}

void HttpAnswer::plain(unsigned code, std::string_view text) {
  start(code, "text/plain; charset=utf-8");
  body += text;
}

void HttpAnswer::method_not_post() {
  plain(405, "405 method not allowed: admission reviews are POSTed\n");
  method_not_allowed = true;
}

void HttpAnswer::probe(bool ok) { plain(ok ? 200 : 503, ok ? "ok\n" : "not ready\n"); }

void release_answer_memory() {
  std::string().swap(t_scratch.cause);
  std::string().swap(t_scratch.patch);
}

}  // namespace kpw
