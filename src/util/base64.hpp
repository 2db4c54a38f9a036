// Standard base64 (RFC 4648, with padding), as an AdmissionReview's `response.patch` carries it.
#pragma once

#include <string>
#include <string_view>

namespace kpw {

// Appends the base64 of `bytes` to `out`.
void append_base64(std::string& out, std::string_view bytes);

}  // namespace kpw
