// One HTTP request in, one HTTP answer out: the envelope (docs/compatibility.md "Envelope",
// docs/rules.md "The envelope"). Shared by the TLS server and the `review` subcommand, so both
// answer byte for byte the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admission/review.hpp"
#include "admission/route.hpp"
#include "admission/rules.hpp"
#include "admission/settings.hpp"

namespace kpw {

inline constexpr std::size_t kDefaultMaxRequestBytes = 7 * 1024 * 1024;

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
};

// `route` is the row the request's path names (route.hpp; nullptr: no route, HTTP 404), found
// once when the header arrived. `body` is parsed in place and is garbage afterwards. Every field of
// `answer` is set anew (a reused answer needs no reset).
void handle_http(const Route* route, std::string_view method, std::string_view content_type,
                 std::string& body, const Settings& settings, HttpAnswer& answer);

// The answer to a request whose body exceeds the limit (HTTP 413; the body is not read).
void answer_too_large(std::size_t limit, HttpAnswer& answer);

// The answer to a large review that finds `limit` large reviews in flight already: HTTP 429 with
// Retry-After (the API server's webhook client retries it), code 429 in a review-shaped body.
void answer_busy(std::size_t limit, std::size_t large_bytes, HttpAnswer& answer);

// Drops the calling thread's last document (after a large review: its chunks go back to the
// allocator, or to the thread's block cache, for the next one).
void release_review_document();
// Gives back everything the calling thread's reviews grew (the document, the JSON reader's key
// index, the result and answer buffers): when it has been quiet, so that it does not hold
// megabytes for good, yet large reviews in a row reuse their memory.
void release_review_memory();

}  // namespace kpw
