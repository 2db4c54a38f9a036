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

}  // namespace

// A request we could not judge: allowed:false with a code and no reason (controller-runtime's
// Errored).
void answer_error(const Envelope& env, unsigned code, std::string_view message,
                  HttpAnswer& answer) {
  std::string& out = answer.body;
  open_answer(env, out);
  out += ",\"allowed\":false,\"status\":{\"metadata\":{},\"message\":";
  append_json_string(out, message);
  out += ",\"code\":";
  out += std::to_string(code);
  out += "}}}";
}

// The message of a denial is rendered once: into the answer, and kept for the log line.
void answer_verdict(const Envelope& env, const AdmissionResult& result, HttpAnswer& answer) {
  std::string& out = answer.body;
  open_answer(env, out);
  if (result.errors.empty()) {
    out += ",\"allowed\":true,\"status\":{\"metadata\":{},\"code\":200}";
  } else {
    std::string& message = answer.outcome.denial;
    result.errors.append_message(message);
    out += ",\"allowed\":false,\"status\":{\"metadata\":{},\"message\":";
    append_json_string(out, message);
    out += ",\"reason\":\"Forbidden\",\"details\":{\"causes\":[";
    bool first = true;
    std::string& body = t_scratch.cause;  // keeps its capacity from error to error
    for (const FieldError& e : result.errors.errors()) {
      if (!first) out += ',';
      first = false;
      out += "{\"type\":";
      append_json_string(out, error_cause_type(e.type));
      out += ",\"message\":";
      body.clear();
      e.append_body(body);
      append_json_string(out, body);
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

void answer_plain(unsigned status, std::string_view text, HttpAnswer& answer) {
  answer.status = status;
  answer.content_type = "text/plain; charset=utf-8";
  answer.body += text;
}

void answer_internal_error(const Envelope& env, std::string_view what, HttpAnswer& answer) {
  answer.status = 200;  // a judged failure, as controller-runtime's Errored answers it
  answer.content_type = "application/json";
  answer.body.clear();
  answer.close = false;
  ReviewOutcome& outcome = answer.outcome;
  outcome.reviewed = false;
  outcome.internal_error = true;
  outcome.denial.assign("internal error: ");
  outcome.denial += what;
  answer_error(env, 500, outcome.denial + " (the review was not judged; nothing was admitted)",
               answer);
}

void release_answer_memory() {
  std::string().swap(t_scratch.cause);
  std::string().swap(t_scratch.patch);
}

}  // namespace kpw
