#include "util/uuid.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace kpw {

UuidText random_uuid_v4() {
  std::uint8_t b[16];
  std::size_t got = 0;
  while (got < sizeof(b)) {
    ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::abort();  // no entropy source at all: nothing safe to hand out as an identity
    }
    got += static_cast<std::size_t>(n);
  }
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  UuidText out{};
  std::size_t o = 0;
  for (std::size_t i = 0; i < sizeof(b); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
    out[o++] = kHex[b[i] >> 4];
    out[o++] = kHex[b[i] & 0x0F];
  }
  return out;
}

}  // namespace kpw
