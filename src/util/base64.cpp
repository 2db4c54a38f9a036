#include "util/base64.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstddef>

namespace kpw {

void append_base64(std::string& out, std::string_view bytes) {
  // OpenSSL's encoder (linked anyway for TLS). It takes an int length, so a huge input would go
  // in pieces of a multiple of 3 bytes (a patch is at most a few MiB); it writes a NUL after the
  // text, room for which is made and then dropped.
  constexpr std::size_t kPiece = std::size_t{3} << 28;
  const std::size_t start = out.size();
  out.resize(start + 4 * ((bytes.size() + 2) / 3) + 1);
  auto* w = reinterpret_cast<unsigned char*>(out.data() + start);
  for (std::size_t i = 0; i < bytes.size(); i += kPiece) {
    const std::size_t n = std::min(kPiece, bytes.size() - i);
    w += EVP_EncodeBlock(w, reinterpret_cast<const unsigned char*>(bytes.data() + i),
                         static_cast<int>(n));
  }
  out.pop_back();
}

}  // namespace kpw
