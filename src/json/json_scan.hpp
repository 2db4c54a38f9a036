// The JSON reader's byte-level work on strings: finding the end of a run of plain text (SSE2 or
// 64-bit words), UTF-8 sequences, \u escapes. Inline: the reader's inner loop calls them.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kpw::json_scan {

// ---- scanning strings for the byte that ends a run of plain ASCII text ----
// '"', '\\', a control character, or a byte >= 0x80 (the start of a UTF-8 sequence, checked
// where it is found: outside strings such a byte is a syntax error anyway, so the text needs no
// separate UTF-8 pass). Sixteen bytes at a time with SSE2 (every x86-64), eight with 64-bit words
// (SWAR) elsewhere or when built with KPW_JSON_SWAR. Both scans are compiled wherever SSE2 is,
// so every build's unit tests hold them against each other ("json scan: ..." in
// test/unit/test_json.cpp), under the sanitizers too. Loads are unaligned and made only while that
// many bytes are readable (before `limit`), so they never pass the buffer; the byte-wise tail
// stops at the text's NUL.

inline constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

// The high bit of every byte of `w` that is '"', '\\', a control character (< 0x20) or >= 0x80.
// Borrows can flag a byte above a real match, never below one, so the lowest flagged byte is
// exact.
constexpr std::uint64_t special_bytes(std::uint64_t w) {
  const std::uint64_t quote = w ^ (kOnes * '"');
  const std::uint64_t backslash = w ^ (kOnes * '\\');
  return (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
          ((w - kOnes * 0x20) & ~w) | w) &
         kHighBits;
}

inline char* find_special_tail(char* p) {
  for (;; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
  }
}

inline char* find_special_words(char* p, const char* limit) {
  while (limit - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    if (const std::uint64_t m = special_bytes(w)) return p + (std::countr_zero(m) >> 3);
    p += 8;
  }
  return find_special_tail(p);
}

#if defined(__SSE2__)
inline char* find_special_sse2(char* p, const char* limit) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (limit - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // A byte is below 0x20 when the unsigned minimum of it and 0x1F is the byte itself.
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), control);
    if (const int m = _mm_movemask_epi8(hit) | _mm_movemask_epi8(v)) {
      return p + std::countr_zero(static_cast<unsigned>(m));
    }
    p += 16;
  }
  return find_special_tail(p);
}
#endif

// The reader's scan.
inline char* find_special(char* p, const char* limit) {
#if defined(__SSE2__) && !defined(KPW_JSON_SWAR)
  return find_special_sse2(p, limit);
#else
  return find_special_words(p, limit);
#endif
}

// The length of the UTF-8 sequence starting at `p` (RFC 3629: no overlong form, no surrogate,
// nothing past U+10FFFF), or 0 when the bytes are not one. Continuation bytes are read one by
// one, so a truncated sequence stops at the text's NUL.
inline std::size_t utf8_sequence(const char* text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text);
  const unsigned c = p[0];
  std::size_t extra = 0;
  unsigned lo = 0x80, hi = 0xBF;  // bounds of the first continuation byte
  if (c >= 0xC2 && c <= 0xDF) {
    extra = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    extra = 2;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    extra = 3;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (p[1] < lo || p[1] > hi) return 0;
  for (std::size_t k = 2; k <= extra; ++k) {
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
  }
  return extra + 1;
}

inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// Four hexadecimal digits at `p`, read one by one so that a short text stops at its NUL.
inline bool hex4(const char* p, unsigned& out) {
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    } else {
      return false;
    }
    out = out << 4 | d;
  }
  return true;
}

// Writes code point `cp` (not a surrogate, at most U+10FFFF) as UTF-8 at `w`.
inline char* put_utf8(char* w, unsigned cp) {
  if (cp < 0x80) {
    *w++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *w++ = static_cast<char>(0xC0 | cp >> 6);
    *w++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *w++ = static_cast<char>(0xE0 | cp >> 12);
    *w++ = static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    *w++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *w++ = static_cast<char>(0xF0 | cp >> 18);
    *w++ = static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    *w++ = static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    *w++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return w;
}

}  // namespace kpw::json_scan
