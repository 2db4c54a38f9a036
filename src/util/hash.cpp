#include "util/hash.hpp"

#include <sys/random.h>

#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace kpw {
namespace {

struct SipKey {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
};

SipKey draw_key() {
  SipKey key;
  std::size_t got = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&key);
  while (got < sizeof key) {
    const ssize_t n = getrandom(bytes + got, sizeof key - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      // No kernel randomness (it cannot fail on Linux 3.17+): a key nobody can read off the text
      // is still better than none.
      key.k0 ^=
          static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
      key.k1 ^= reinterpret_cast<std::uintptr_t>(&key);
      break;
    }
  }
  return key;
}

const SipKey& process_key() {
  static const SipKey key = draw_key();
  return key;
}

}  // namespace

std::uint64_t keyed_hash(std::uint64_t prefix, std::string_view text) {
  const SipKey& key = process_key();
  std::uint64_t v0 = key.k0 ^ 0x736f6d6570736575ULL, v1 = key.k1 ^ 0x646f72616e646f6dULL,
                v2 = key.k0 ^ 0x6c7967656e657261ULL, v3 = key.k1 ^ 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1;
    v1 = std::rotl(v1, 13) ^ v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16) ^ v2;
    v0 += v3;
    v3 = std::rotl(v3, 21) ^ v0;
    v2 += v1;
    v1 = std::rotl(v1, 17) ^ v2;
    v2 = std::rotl(v2, 32);
  };
  auto compress = [&](std::uint64_t m) {  // one round per block: SipHash-1-3
    v3 ^= m;
    round();
    v0 ^= m;
  };
  compress(prefix);
  const char* p = text.data();
  std::size_t left = text.size();
  for (; left >= 8; left -= 8, p += 8) {
    std::uint64_t m;
    std::memcpy(&m, p, 8);
    if constexpr (std::endian::native == std::endian::big) m = __builtin_bswap64(m);
    compress(m);
  }
  // The last block: the tail bytes, and the length of the whole message in the top byte.
  std::uint64_t last = std::uint64_t{text.size() + 8} << 56;
  for (std::size_t i = 0; i < left; ++i) {
    last |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  }
  compress(last);
  v2 ^= 0xFF;
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace kpw
