#include "util/ip.hpp"

#include <cstddef>

namespace kpw {
namespace {

constexpr unsigned kBig = 0xFFFFFF;  // Go's `big`: a number past it stops the parse

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// dtoi / xtoi: the digits at the start of `s` (base 10 or 16): their count, 0 when none or when
// the number reaches kBig.
std::size_t number(std::string_view s, unsigned base, unsigned& n) {
  n = 0;
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    const int d = base == 10 ? (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1) : hex_digit(s[i]);
    if (d < 0) break;
    n = n * base + static_cast<unsigned>(d);
    if (n >= kBig) return 0;
  }
  return i;
}

bool ipv4(std::string_view s) {
  for (int part = 0; part < 4; ++part) {
    if (s.empty()) return false;
    if (part > 0) {
      if (s.front() != '.') return false;
      s.remove_prefix(1);
    }
    unsigned n = 0;
    const std::size_t c = number(s, 10, n);
    if (c == 0 || n > 0xFF) return false;
    s.remove_prefix(c);
  }
  return s.empty();
}

bool ipv6(std::string_view s) {
  constexpr int kLen = 16;
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return true;
  }
  int i = 0;
  while (i < kLen) {
    unsigned n = 0;
    const std::size_t c = number(s, 16, n);
    if (c == 0 || n > 0xFFFF) return false;
    if (c < s.size() && s[c] == '.') {  // a trailing IPv4
      if (ellipsis < 0 && i != kLen - 4) return false;
      if (i + 4 > kLen) return false;
      if (!ipv4(s)) return false;
      i += 4;
      s = {};
      break;
    }
    i += 2;
    s.remove_prefix(c);
    if (s.empty()) break;
    if (s.front() != ':' || s.size() == 1) return false;
    s.remove_prefix(1);
    if (s.front() == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return false;
  if (i < kLen) return ellipsis >= 0;
  return ellipsis < 0;  // an ellipsis must stand for at least one group
}

}  // namespace

bool is_ip_sloppy(std::string_view text) {
  for (const char c : text) {
    if (c == '.') return ipv4(text);
    if (c == ':') return ipv6(text);
  }
  return false;
}

}  // namespace kpw
