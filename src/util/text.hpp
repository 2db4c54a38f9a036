// Equality of short texts without a library call: object member names and enum values are
// compared many times per request, and below 17 bytes two overlapping loads per side beat memcmp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace kpw {

inline bool equal_text(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n > 16) return std::memcmp(x, y, n) == 0;
  if (n >= 8) {
    std::uint64_t x0, x1, y0, y1;
    std::memcpy(&x0, x, 8);
    std::memcpy(&y0, y, 8);
    std::memcpy(&x1, x + n - 8, 8);
    std::memcpy(&y1, y + n - 8, 8);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  if (n >= 4) {
    std::uint32_t x0, x1, y0, y1;
    std::memcpy(&x0, x, 4);
    std::memcpy(&y0, y, 4);
    std::memcpy(&x1, x + n - 4, 4);
    std::memcpy(&y1, y + n - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

}  // namespace kpw
