#include "server/request_head.hpp"

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

// The length of the run of `cls` bytes at the start of `s`.
std::size_t run_of(std::string_view s, std::uint8_t cls) {
  std::size_t i = 0;
  while (i < s.size() && (kClasses[static_cast<unsigned char>(s[i])] & cls) != 0) ++i;
  return i;
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
bool request_line(std::string_view line, RequestHead& head, bool& http11) {
  const std::size_t m = run_of(line, kToken);
  if (m == 0 || m == line.size() || line[m] != ' ') return false;
  head.method = http::string_to_verb(line.substr(0, m));
  if (head.method == http::verb::unknown) return false;
  head.method_text.assign(line.data(), m);
  line.remove_prefix(m + 1);
  const std::size_t t = run_of(line, kTarget);
  if (t == 0 || t == line.size() || line[t] != ' ') return false;
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
  const std::size_t end = text.find("\r\n\r\n");
  if (end == std::string_view::npos) return 0;
  const std::size_t head_bytes = end + 4;
  if (head_bytes >= limits.max_header_bytes) return 0;
  // Every line of the head ends at a CRLF: a CR or LF anywhere else is not the common shape.
  std::string_view rest = text.substr(0, end + 2);
  auto next_line = [&rest](std::string_view& line) {
    const std::size_t cr = rest.find('\r');
    if (cr == std::string_view::npos || cr + 1 >= rest.size() || rest[cr + 1] != '\n') {
      return false;
    }
    line = rest.substr(0, cr);
    rest.remove_prefix(cr + 2);
    return true;
  };
  std::string_view line;
  bool http11 = false;
  if (!next_line(line) || !request_line(line, head, http11)) return 0;
  head.content_type.clear();
  head.content_length.reset();
  head.expect_continue = false;
  bool content_type = false;
  bool connection = false;
  bool close = false;
  bool keep_alive = false;
  while (!rest.empty()) {
    if (!next_line(line)) return 0;
    const std::size_t n = run_of(line, kToken);
    if (n == 0 || n == line.size() || line[n] != ':') return 0;
    const std::string_view value_text = line.substr(n + 1);
    if (run_of(value_text, kValue) != value_text.size()) return 0;
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
  return head_bytes;
}

}  // namespace kpw
