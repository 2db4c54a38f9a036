// The HTTP answers: one HttpAnswer, built by named constructors as controller-runtime builds its
// responses (Allowed, Denied, Patched, Errored; WithWarnings), plus the plain HTTP ones. Each sets
// every field anew, so a reused answer needs no reset and keeps its buffers' capacity: encoding
// allocates nothing for a typical review.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

// The `apiVersion` to echo: empty until the review is known to be an AdmissionReview
// (upstream answers pre-decode errors without apiVersion/kind).
struct Envelope {
  std::string_view api_version;
  std::string_view uid;
};

// What a review decided, for metrics and logs. Views point into the request body and stay valid
// until the next request is read.
struct ReviewOutcome {
  bool reviewed = false;  // a handler ran: operation and allowed are meaningful
  Operation operation = Operation::kCreate;
  bool allowed = false;
  std::string_view uid;
  std::string_view kind;  // request.kind.kind
  std::string_view ns;
  std::string_view name;
  std::string denial;           // status.message of a denial, or what an internal error was
  bool internal_error = false;  // a handler threw: answered with code 500, worth a log line
  std::vector<RuleViolation> violations;  // by rule: denied, warned or ratcheted
};

struct HttpAnswer {
  unsigned status = 200;
  std::string_view content_type = "application/json";
  std::string body;
  bool close = false;               // close the connection after answering
  bool method_not_allowed = false;  // send `Allow: POST`
  bool retry_after = false;         // send `Retry-After: 1` (429)
  ReviewOutcome outcome;

  // A review judged: allowed (with its patch, when a mutator made one) or denied (403, with its
  // causes), and its warnings. The message of a denial is rendered once: into the answer, and
  // kept in outcome.denial for the log line.
  void verdict(const Envelope& env, const AdmissionResult& result);
  // A request that was not judged (it could not be decoded, or the handler refused it): HTTP 200,
  // allowed:false with `code` and `message` (controller-runtime's Errored).
  void errored(const Envelope& env, unsigned code, std::string_view message,
               std::string_view reason = {});
  // Whatever a decoder, a rule or the encoder threw: code 500, the review not judged.
  void internal_error(const Envelope& env, std::string_view what);
  // A body over the limit: HTTP 413 with the review-shaped answer, then the connection closes.
  void too_large(std::size_t limit);
  // A large review that finds `limit` large reviews in flight already: HTTP 429 with Retry-After
  // (the API server's webhook client retries it), code 429 in a review-shaped body.
  void busy(std::size_t limit, std::size_t large_bytes);
  // A review that may wait on the API server finds `limit` of them in flight already: the same
  // HTTP 429 with Retry-After.
  void busy_waiting(std::size_t limit);
  // HTTP 429 + Retry-After: the bodies held at once would pass `limit` bytes
  // (--max-body-bytes-in-flight).
  void busy_memory(std::size_t limit);
  // Not a review at all (404, 400): `text` as text/plain.
  void plain(unsigned status, std::string_view text);
  // Not POST: 405 with `Allow: POST`.
  void method_not_post();
  // GET /healthz or /readyz.
  void probe(bool ok);
  // A ConversionReview (conversion.cpp): HTTP 200, JSON, the body emptied for the caller to write.
  std::string& conversion();
  // A ConversionReview that does not decode: HTTP 400 with an empty body (controller-runtime's).
  void conversion_undecodable();

 private:
  // Every field anew; the body emptied (its capacity kept).
  void start(unsigned status, std::string_view type);
};

// Gives back what the calling thread's answers grew (a cause's message, a rendered patch).
void release_answer_memory();

}  // namespace kpw
