#include "util/base64.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kpw {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The two characters of every 12-bit value: three input bytes are two lookups (8 KiB, built at
// compile time). OpenSSL's EVP_EncodeBlock, used before, took ~10 instructions a byte.
constexpr std::array<char, 2 * 4096> make_pairs() {
  std::array<char, 2 * 4096> t{};
  for (std::size_t v = 0; v < 4096; ++v) {
    t[2 * v] = kAlphabet[v >> 6];
    t[2 * v + 1] = kAlphabet[v & 63];
  }
  return t;
}
constexpr std::array<char, 2 * 4096> kPairs = make_pairs();

}  // namespace

void append_base64(std::string& out, std::string_view bytes) {
  const std::size_t start = out.size();
  out.resize(start + 4 * ((bytes.size() + 2) / 3));
  char* w = out.data() + start;
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  for (; n >= 3; n -= 3, in += 3, w += 4) {
    const std::uint32_t v = (std::uint32_t{in[0]} << 16) | (std::uint32_t{in[1]} << 8) | in[2];
    std::memcpy(w, &kPairs[2 * (v >> 12)], 2);
    std::memcpy(w + 2, &kPairs[2 * (v & 0xfff)], 2);
  }
  if (n == 0) return;
  const std::uint32_t v = (std::uint32_t{in[0]} << 16) | (n == 2 ? std::uint32_t{in[1]} << 8 : 0);
  w[0] = kAlphabet[v >> 18];
  w[1] = kAlphabet[(v >> 12) & 63];
  w[2] = n == 2 ? kAlphabet[(v >> 6) & 63] : '=';
  w[3] = '=';
}

}  // namespace kpw
