#include "util/go_text.hpp"

namespace kpw {

Rune decode_rune(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return {c, 1, true};
  const auto cont = [&](std::size_t k) { return k < s.size() && (b(k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF && cont(i + 1)) {
    return {static_cast<char32_t>(((c & 0x1F) << 6) | (b(i + 1) & 0x3F)), 2, true};
  }
  if (c >= 0xE0 && c <= 0xEF && cont(i + 1) && cont(i + 2)) {
    const char32_t r = ((c & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F);
    if (r >= 0x800 && (r < 0xD800 || r > 0xDFFF)) return {r, 3, true};
  }
  if (c >= 0xF0 && c <= 0xF4 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
    const char32_t r = ((c & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12) | ((b(i + 2) & 0x3F) << 6) |
                       (b(i + 3) & 0x3F);
    if (r >= 0x10000 && r <= 0x10FFFF) return {r, 4, true};
  }
  return {0xFFFD, 1, false};
}

// Go's unicode.IsPrint for the code points it refuses that a manager name may plausibly hold:
// controls (Cc), format characters (Cf), spaces other than ' ' (Zs), line and paragraph
// separators, private use (Co) and the noncharacters U+FFFE/U+FFFF. Unassigned code points, which
// Go also refuses, are taken as printable (docs/compatibility.md, K-M8).
bool is_print(char32_t r) {
  if (r < 0x20 || (r >= 0x7F && r <= 0xA0) || r == 0xAD) return false;
  if ((r >= 0x600 && r <= 0x605) || r == 0x61C || r == 0x6DD || r == 0x70F || r == 0x890 ||
      r == 0x891 || r == 0x8E2 || r == 0x1680 || r == 0x180E) {
    return false;
  }
  if ((r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) ||
      (r >= 0x205F && r <= 0x2064) || (r >= 0x2066 && r <= 0x206F) || r == 0x3000) {
    return false;
  }
  if ((r >= 0xD800 && r <= 0xF8FF) || r == 0xFEFF || (r >= 0xFFF9 && r <= 0xFFFB) || r == 0xFFFE ||
      r == 0xFFFF) {
    return false;
  }
  if (r == 0x110BD || r == 0x110CD || (r >= 0x13430 && r <= 0x1343F) ||
      (r >= 0x1BCA0 && r <= 0x1BCA3) || (r >= 0x1D173 && r <= 0x1D17A) || r == 0xE0001 ||
      (r >= 0xE0020 && r <= 0xE007F) || r >= 0xF0000) {
    return false;
  }
  return true;
}

void append_hex(std::string& out, std::uint32_t v, int digits, bool upper) {
  const char* hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  for (int d = digits - 1; d >= 0; --d) out += hex[(v >> (4 * d)) & 0xF];
}

// Go's strconv.Quote (what %q and %#v print for a string).
void append_go_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const Rune r = decode_rune(s, i);
    if (!r.valid) {
      out += "\\x";
      append_hex(out, static_cast<unsigned char>(s[i]), 2, false);
    } else if (r.value == '"' || r.value == '\\') {
      out += '\\';
      out += static_cast<char>(r.value);
    } else if (is_print(r.value)) {
      out.append(s.substr(i, r.size));
    } else {
      switch (r.value) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
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
        case '\v':
          out += "\\v";
          break;
        default:
          if (r.value < ' ' || r.value == 0x7F) {
            out += "\\x";
            append_hex(out, r.value, 2, false);
          } else if (r.value < 0x10000) {
            out += "\\u";
            append_hex(out, r.value, 4, false);
          } else {
            out += "\\U";
            append_hex(out, r.value, 8, false);
          }
      }
    }
    i += r.size;
  }
  out += '"';
}

std::optional<bool> parse_go_bool(std::string_view text) {
  for (const std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return true;
  }
  for (const std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) return false;
  }
  return std::nullopt;
}

}  // namespace kpw
