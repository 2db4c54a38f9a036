// The JSON reader's tokens: its place in the text, whitespace, literals, numbers, strings decoded
// in place, and how a read fails. Inline: the reader's descent calls them for every value.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <system_error>

#include "json/json.hpp"
#include "json/json_reader.hpp"
#include "json/json_scan.hpp"

namespace kpw::json_tokens {

using json_scan::find_special;
using json_scan::hex4;
using json_scan::is_digit;
using json_scan::put_utf8;
using json_scan::utf8_sequence;

// The base of the reader (json_reader.cpp), which adds the structure: values, objects, arrays, keys
// and their duplicates. One class in two files: the descent still inlines every token.
class Tokens {
 protected:
  Tokens(char* text, std::size_t size, JsonDocument& doc)
      : begin_(text), p_(text), end_(text + size), doc_(doc) {}

  // A string at p_ (its opening quote), decoded in place: escapes shrink it, so the decoded bytes
  // are written behind the read position; a NUL ends the decoded string.
  [[gnu::always_inline]] bool string(std::string_view& out) {
    char* const start = p_ + 1;
    const char* const limit = end_ + 1;
    char* q = find_special(start, limit);
    char* w = q;  // where decoded bytes go; behind q once an escape has shrunk the string
    for (;;) {
      const auto c = static_cast<unsigned char>(*q);
      if (c == '"') {
        *w = '\0';
        out = std::string_view(start, static_cast<std::size_t>(w - start));
        p_ = q + 1;
        return true;
      }
      char* from;  // the bytes from here to the next special one are kept as they are
      if (c == '\\') {
        if (!unescape(q, w)) return false;
        from = q;
      } else if (c >= 0x80) {
        const std::size_t n = utf8_sequence(q);
        if (n == 0) {
          p_ = q;
          return fail(JsonReadError::kInvalidUtf8, {});
        }
        from = q;
        q += n;
      } else {  // a control character, or the NUL after the text
        p_ = q;
        return syntax("a string holds a control character that is not escaped");
      }
      char* next = find_special(q, limit);
      if (w != from) std::memmove(w, from, static_cast<std::size_t>(next - from));
      w += next - from;
      q = next;
    }
  }

  // The escape at `q` (a backslash): its bytes are written at `w`, and both move past it.
  bool unescape(char*& q, char*& w) {
    char c;
    switch (q[1]) {
      case '"':
        c = '"';
        break;
      case '\\':
        c = '\\';
        break;
      case '/':
        c = '/';
        break;
      case 'b':
        c = '\b';
        break;
      case 'f':
        c = '\f';
        break;
      case 'n':
        c = '\n';
        break;
      case 'r':
        c = '\r';
        break;
      case 't':
        c = '\t';
        break;
      case 'u':
        return unicode(q, w);
      default:
        p_ = q;
        return syntax("a string holds an invalid escape sequence");
    }
    *w++ = c;
    q += 2;
    return true;
  }

  // \uXXXX, or a surrogate pair \uD8xx\uDCxx. An unpaired surrogate has no UTF-8 form: refused.
  bool unicode(char*& q, char*& w) {
    unsigned cp;
    if (!hex4(q + 2, cp)) {
      p_ = q;
      return syntax("a \\u escape must be followed by four hexadecimal digits");
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) {
      unsigned low;
      if (cp >= 0xDC00 || q[6] != '\\' || q[7] != 'u' || !hex4(q + 8, low) || low < 0xDC00 ||
          low > 0xDFFF) {
        p_ = q;
        return fail(JsonReadError::kLoneSurrogate, {});
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      q += 6;
    }
    q += 6;
    w = put_utf8(w, cp);
    return true;
  }

  // RFC 8259 §6. Whole numbers within int64 or uint64 are stored as such (as RapidJSON itself
  // stores them); every other number as the double nearest to it. Forced inline: value() is its one
  // caller, and GCC, which inlined it there while it was local to json_reader.cpp, stops at an
  // inline function of a header.
  [[gnu::always_inline]] bool number() {
    char* const start = p_;
    char* q = p_;
    const bool negative = *q == '-';
    if (negative) ++q;
    std::uint64_t whole = 0;
    bool overflow = false;
    if (*q == '0') {
      ++q;
    } else if (is_digit(*q)) {
      do {
        const auto d = static_cast<unsigned>(*q - '0');
        if (whole > (std::numeric_limits<std::uint64_t>::max() - d) / 10) {
          overflow = true;
        } else if (!overflow) {
          whole = whole * 10 + d;
        }
        ++q;
      } while (is_digit(*q));
    } else {
      p_ = q;
      return syntax(negative ? "a '-' must be followed by digits" : "a value is expected here");
    }
    bool integral = true;
    if (*q == '.') {
      ++q;
      if (!is_digit(*q)) {
        p_ = q;
        return syntax("a number's '.' must be followed by digits");
      }
      while (is_digit(*q)) ++q;
      integral = false;
    }
    if (*q == 'e' || *q == 'E') {
      ++q;
      if (*q == '+' || *q == '-') ++q;
      if (!is_digit(*q)) {
        p_ = q;
        return syntax("a number's exponent must have digits");
      }
      while (is_digit(*q)) ++q;
      integral = false;
    }
    p_ = q;
    constexpr std::uint64_t kInt64MinMagnitude = std::uint64_t{1} << 63;
    if (integral && !overflow) {
      if (!negative) return doc_.Uint64(whole);
      if (whole < kInt64MinMagnitude) return doc_.Int64(-static_cast<std::int64_t>(whole));
      if (whole == kInt64MinMagnitude) return doc_.Int64(std::numeric_limits<std::int64_t>::min());
    }
    double d = 0;
    const auto [end, ec] = std::from_chars(start, q, d);
    if (ec == std::errc::result_out_of_range) {
      // from_chars does not say which way: strtod gives ±HUGE_VAL past the largest double and
      // 0 or a subnormal below the smallest (Go's decoder also refuses only the former).
      d = std::strtod(start, nullptr);
      if (std::isinf(d)) {
        p_ = start;
        return syntax("a number is too large for a 64-bit floating point value");
      }
    } else if (ec != std::errc() || end != q) {
      p_ = start;
      return syntax("a number is malformed");
    }
    return doc_.Double(d);
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return syntax("a value is expected here");
    }
    p_ += word.size();
    return true;
  }

  // Whether `c` is next, after any whitespace.
  bool at(char c) {
    if (*p_ != c) skip_whitespace();
    return *p_ == c;
  }

  void skip_whitespace() {
    // Compact JSON (what the API server sends) has none: one comparison decides.
    if (static_cast<unsigned char>(*p_) > ' ') return;
    while (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t') ++p_;
  }

  // A syntax error at p_; at the end of the text the real problem is that it stops too soon.
  bool syntax(std::string_view what) {
    return fail(JsonReadError::kSyntax, p_ == end_ ? "the document ends too soon" : what);
  }

  bool fail(JsonReadError error, std::string_view detail) {
    result_.error = error;
    result_.offset = static_cast<std::size_t>(p_ - begin_);
    result_.detail = detail;
    return false;
  }

  char* const begin_;
  char* p_;
  char* const end_;  // the NUL after the text
  JsonDocument& doc_;
  JsonReadResult result_;
};

}  // namespace kpw::json_tokens
