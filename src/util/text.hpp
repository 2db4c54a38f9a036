// Equality of short texts without a library call: object member names and enum values are
// compared many times per request, and below 17 bytes two overlapping loads per side beat memcmp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace kpw {

namespace detail {
// The first and the last sizeof(Word) bytes of two texts of length n (sizeof(Word) <= n), which
// between them cover every byte when n <= 2 * sizeof(Word).
template <typename Word>
bool same_ends(const char* x, const char* y, std::size_t n) {
  Word x0, x1, y0, y1;
  std::memcpy(&x0, x, sizeof(Word));
  std::memcpy(&y0, y, sizeof(Word));
  std::memcpy(&x1, x + n - sizeof(Word), sizeof(Word));
  std::memcpy(&y1, y + n - sizeof(Word), sizeof(Word));
  return ((x0 ^ y0) | (x1 ^ y1)) == 0;
}
}  // namespace detail

inline bool equal_text(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n > 16) return std::memcmp(x, y, n) == 0;
  if (n >= 8) return detail::same_ends<std::uint64_t>(x, y, n);
  if (n >= 4) return detail::same_ends<std::uint32_t>(x, y, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

}  // namespace kpw
