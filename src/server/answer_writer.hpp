// The one way an answer goes out, on every port: head and body in one buffer, sent as one write
// (one TLS record for a typical answer).
#pragma once

#include <string>
#include <string_view>

#include "admission/answer.hpp"

namespace kpw {

// Replaces `out` with `answer` as HTTP/1.1 bytes, the head as Beast would write it: status line,
// Content-Type, `Allow: <allow>` on a 405, Retry-After on a 429, `Connection: close` when not
// `keep_alive`, Content-Length. Allocates nothing once `out` has grown to the answer's size.
void write_answer(const HttpAnswer& answer, std::string_view allow, bool keep_alive,
                  std::string& out);

}  // namespace kpw
