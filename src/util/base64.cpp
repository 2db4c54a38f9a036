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

namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

bool decode_base64(std::string_view in, std::string& out) {
  out.clear();
  std::uint32_t bits = 0;
  int count = 0;    // characters in the current quantum
  int padding = 0;  // '=' seen; nothing but more '=' may follow
  for (const char c : in) {
    if (c == '\r' || c == '\n') continue;
    if (c == '=') {
      if (++padding > 2) return false;
      continue;
    }
    const int v = base64_value(c);
    if (v < 0 || padding > 0) return false;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<char>((bits >> 16) & 0xff));
      out.push_back(static_cast<char>((bits >> 8) & 0xff));
      out.push_back(static_cast<char>(bits & 0xff));
      bits = 0;
      count = 0;
    }
  }
  if (padding == 0) return count == 0;
  if (count + padding != 4) return false;
  if (count == 2) {
    out.push_back(static_cast<char>((bits >> 4) & 0xff));
  } else {
    out.push_back(static_cast<char>((bits >> 10) & 0xff));
    out.push_back(static_cast<char>((bits >> 2) & 0xff));
  }
  return true;
}

}  // namespace kpw
