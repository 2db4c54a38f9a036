#include "util/json_text.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

namespace kpw {
namespace {

bool escaped(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

// The first byte of text[from..] a JSON string literal must escape ('"', '\\', a control
// character), or text.size(); eight bytes at a time.
std::size_t next_escaped(std::string_view text, std::size_t from) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  std::size_t i = from;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    // A zero byte of w ^ c is a byte equal to c; (w - 0x20…) & ~w flags a byte below 0x20. Borrows
    // can flag a byte above a real hit, never below one, so the lowest flagged byte is exact.
    const std::uint64_t quote = w ^ (kOnes * '"');
    const std::uint64_t backslash = w ^ (kOnes * '\\');
    const std::uint64_t hit = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
                               ((w - kOnes * 0x20) & ~w)) &
                              kHighBits;
    if (hit != 0) return i + (std::countr_zero(hit) >> 3);
  }
  for (; i < text.size(); ++i) {
    if (escaped(static_cast<unsigned char>(text[i]))) return i;
  }
  return text.size();
}

}  // namespace

// Runs that need no escape are found eight bytes at a time and copied whole: byte by byte, the
// escaper was a fifth of a mutating review (its patch, in base64, is the longest string an answer
// carries).
void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = next_escaped(text, 0); i < text.size(); i = next_escaped(text, i + 1)) {
    out.append(text.data() + run, i - run);
    run = i + 1;
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
    }
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

}  // namespace kpw
