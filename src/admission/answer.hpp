// The AdmissionReview answers the envelope (service.cpp) writes: verdicts, errors, plain text.
#pragma once

#include <string_view>

#include "admission/review.hpp"
#include "admission/service.hpp"

namespace kpw {

// The `apiVersion` to echo: empty until the review is known to be an AdmissionReview
// (upstream answers pre-decode errors without apiVersion/kind).
struct Envelope {
  std::string_view api_version;
  std::string_view uid;
};

// A request we could not judge: allowed:false with a code and no reason (controller-runtime's
// Errored).
void answer_error(const Envelope& env, unsigned code, std::string_view message, HttpAnswer& answer);

// A review judged: allowed, or denied with its causes; its patch and warnings.
// The message of a denial is rendered once: into the answer, and kept for the log line.
void answer_verdict(const Envelope& env, const AdmissionResult& result, HttpAnswer& answer);

// Not a review at all (404, 405): `text` as text/plain.
void answer_plain(unsigned status, std::string_view text, HttpAnswer& answer);

// Whatever a decoder, a rule or the encoder threw: code 500, the review not judged.
void answer_internal_error(const Envelope& env, std::string_view what, HttpAnswer& answer);

// Gives back what the calling thread's answers grew (a cause's message, a rendered patch).
void release_answer_memory();

}  // namespace kpw
