// Standard base64 (RFC 4648, with padding), as an AdmissionReview's `response.patch` carries it
// and a kubeconfig's *-data fields hold it.
#pragma once

#include <string>
#include <string_view>

namespace kpw {

// Appends the base64 of `bytes` to `out`.
void append_base64(std::string& out, std::string_view bytes);

// `in` decoded into `out` as Go's encoding/json decodes a []byte (base64.StdEncoding): padding
// required, '\r' and '\n' skipped, unused trailing bits ignored; false when malformed.
bool decode_base64(std::string_view in, std::string& out);

}  // namespace kpw
