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

#include "admission/answer.hpp"
#include "admission/review.hpp"
#include "admission/route.hpp"
#include "admission/rules.hpp"
#include "admission/settings.hpp"

namespace kpw {

inline constexpr std::size_t kDefaultMaxRequestBytes = 7 * 1024 * 1024;

// `route` is the row the request's path names (route.hpp; nullptr: no route, HTTP 404), found
// once when the header arrived. `body` is parsed in place and is garbage afterwards. Every field of
// `answer` is set anew (a reused answer needs no reset).
void handle_http(const Route* route, std::string_view method, std::string_view content_type,
                 std::string& body, const Settings& settings, HttpAnswer& answer);

// Drops the calling thread's last document (after a large review: its chunks go back to the
// allocator, or to the thread's block cache, for the next one).
void release_review_document();
// Gives back everything the calling thread's reviews grew (the document, the JSON reader's key
// index, the result and answer buffers): when it has been quiet, so that it does not hold
// megabytes for good, yet large reviews in a row reuse their memory.
void release_review_memory();

}  // namespace kpw
