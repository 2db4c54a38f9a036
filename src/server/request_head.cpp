#include "server/request_head.hpp"

#include <emmintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace kpw {
namespace {

namespace http = boost::beast::http;

// What a byte may be in each part of the head.
enum : std::uint8_t {
  kToken = 1,   // a method's or a field name's byte (RFC 9110 tchar)
  kTarget = 2,  // a request target's byte: visible ASCII
  kValue = 4,   // a field value's byte: visible ASCII, space or tab
};

constexpr std::array<std::uint8_t, 256> make_classes() {
  std::array<std::uint8_t, 256> c{};
  for (int b = 0x21; b <= 0x7e; ++b) c[b] = kTarget | kValue;
  c[' '] = kValue;
  c['\t'] = kValue;
  for (int b = '0'; b <= '9'; ++b) c[b] |= kToken;
  for (int b = 'a'; b <= 'z'; ++b) c[b] |= kToken;
  for (int b = 'A'; b <= 'Z'; ++b) c[b] |= kToken;
  for (const char b : std::string_view("!#$%&'*+-.^_`|~")) {
    c[static_cast<unsigned char>(b)] |= kToken;
  }
  return c;
}
constexpr std::array<std::uint8_t, 256> kClasses = make_classes();

// The length of the run of `cls` bytes at the start of `s` (a method or a field name: short).
std::size_t run_of(std::string_view s, std::uint8_t cls) {
  std::size_t i = 0;
  while (i < s.size() && (kClasses[static_cast<unsigned char>(s[i])] & cls) != 0) ++i;
  return i;
}

// Whether every byte of `s` is above `kLow` and below 0x7f, or a tab when kTab: a value's bytes
// (kLow 0x1f, tabs) or a target's (kLow 0x20), sixteen at a time. `s` lies in a text that goes on
// to `text_end`; a load of sixteen bytes that stays inside the text may read past `s`, and the
// bytes past it are masked off.
template <char kLow, bool kTab>
bool all_between(std::string_view s, const char* text_end) {
  auto good = [](const char* at) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    // Signed compares: a byte from 0x80 up is negative, so never above kLow.
    __m128i in = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(kLow)),
                               _mm_cmplt_epi8(x, _mm_set1_epi8(0x7f)));
    if (kTab) in = _mm_or_si128(in, _mm_cmpeq_epi8(x, _mm_set1_epi8('\t')));
    return static_cast<unsigned>(_mm_movemask_epi8(in));
  };
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 16; p += 16, n -= 16) {
    if (good(p) != 0xffffu) return false;
  }
  if (n == 0) return true;
  if (text_end - p >= 16) return ((good(p) | (0xffffu << n)) & 0xffffu) == 0xffffu;
  return run_of(std::string_view(p, n), kTab ? kValue : kTarget) == n;
}

bool same_lowercase(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    // Setting bit 5 lowercases a letter; of the bytes a name or value may hold (no CR), no other
    // byte becomes a letter or '-' by it.
    if ((name[i] | 0x20) != lower[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// A Content-Length of 1 to 19 digits (no sign, no list), or nothing.
std::optional<std::uint64_t> decimal(std::string_view v) {
  if (v.empty() || v.size() > 19) return std::nullopt;
  std::uint64_t n = 0;
  for (const char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

// The request line: method, target, version. False when it is not of the common shape.
bool request_line(std::string_view line, const char* text_end, RequestHead& head, bool& http11) {
  std::size_t m;
  if (line.substr(0, 5) == "POST ") {
    m = 4;
    head.method = http::verb::post;
  } else {
    m = run_of(line, kToken);
    if (m == 0 || m == line.size() || line[m] != ' ') return false;
    head.method = http::string_to_verb(line.substr(0, m));
    if (head.method == http::verb::unknown) return false;
  }
  head.method_text.assign(line.data(), m);
  line.remove_prefix(m + 1);
  const std::size_t t = line.find(' ');
  if (t == 0 || t == std::string_view::npos) return false;
  if (!all_between<0x20, false>(line.substr(0, t), text_end)) return false;
  head.target.assign(line.data(), t);
  line.remove_prefix(t + 1);
  if (line == "HTTP/1.1") {
    http11 = true;
  } else if (line == "HTTP/1.0") {
    http11 = false;
  } else {
    return false;
  }
  return true;
}

// The fields whose meaning the head's reading needs, or that send a request to Beast's parser.
enum class Field { kOther, kContentLength, kContentType, kConnection, kBeastOnly };

Field field_of(std::string_view name) {
  switch (name.size()) {
    case 6:
      return same_lowercase(name, "expect") ? Field::kBeastOnly : Field::kOther;
    case 7:
      return same_lowercase(name, "upgrade") ? Field::kBeastOnly : Field::kOther;
    case 10:
      return same_lowercase(name, "connection") ? Field::kConnection : Field::kOther;
    case 12:
      return same_lowercase(name, "content-type") ? Field::kContentType : Field::kOther;
    case 14:
      return same_lowercase(name, "content-length") ? Field::kContentLength : Field::kOther;
    case 16:
      return same_lowercase(name, "proxy-connection") ? Field::kBeastOnly : Field::kOther;
    case 17:
      return same_lowercase(name, "transfer-encoding") ? Field::kBeastOnly : Field::kOther;
    default:
      return Field::kOther;
  }
}

}  // namespace

std::size_t read_common_head(std::string_view text, const HeadLimits& limits, RequestHead& head) {
  if (limits.max_header_bytes == 0) return 0;
  const char* const begin = text.data();
  const char* const text_end = begin + text.size();
  // The head must end before the header limit: no line is looked for past it.
  const char* const end = begin + std::min(text.size(), limits.max_header_bytes - 1);
  const char* p = begin;
  // Every line of the head ends at a CRLF: a CR or LF anywhere else is not the common shape.
  auto next_line = [&p, end](std::string_view& line) {
    const auto* cr =
        static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(end - p)));
    if (cr == nullptr || end - cr < 2 || cr[1] != '\n') return false;
    line = std::string_view(p, static_cast<std::size_t>(cr - p));
    p = cr + 2;
    return true;
  };
  std::string_view line;
  bool http11 = false;
  if (!next_line(line) || !request_line(line, text_end, head, http11)) return 0;
  head.content_type.clear();
  head.content_length.reset();
  head.expect_continue = false;
  bool content_type = false;
  bool connection = false;
  bool close = false;
  bool keep_alive = false;
  for (;;) {
    if (!next_line(line)) return 0;
    if (line.empty()) break;
    const std::size_t n = run_of(line, kToken);
    if (n == 0 || n == line.size() || line[n] != ':') return 0;
    const std::string_view value_text = line.substr(n + 1);
    if (!all_between<0x1f, true>(value_text, text_end)) return 0;
    const std::string_view value = trim(value_text);
    switch (field_of(line.substr(0, n))) {
      case Field::kOther:
        break;
      case Field::kBeastOnly:
        return 0;
      case Field::kContentLength:
        if (head.content_length) return 0;
        head.content_length = decimal(value);
        if (!head.content_length || *head.content_length >= limits.max_body_bytes) return 0;
        break;
      case Field::kContentType:
        if (content_type) return 0;
        content_type = true;
        head.content_type.assign(value.data(), value.size());
        break;
      case Field::kConnection:
        if (connection) return 0;
        connection = true;
        close = same_lowercase(value, "close");
        keep_alive = same_lowercase(value, "keep-alive");
        if (!close && !keep_alive) return 0;
        break;
    }
  }
  head.keep_alive = http11 ? !close : keep_alive;
  return static_cast<std::size_t>(p - begin);
}

}  // namespace kpw
