#include "json/json_reader.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <system_error>
#include <vector>

#include "json/json_scan.hpp"
#include "json/key_index.hpp"

namespace kpw {
namespace {

using json_keys::fingerprint;
using json_keys::KeyIndex;
using json_keys::KeyState;
using json_keys::kScanLimit;
using json_keys::SeenKey;
using json_scan::find_special;
using json_scan::hex4;
using json_scan::is_digit;
using json_scan::put_utf8;
using json_scan::utf8_sequence;

// Recursive descent over the text, one function per JSON production. Recursion is bounded by
// kMaxJsonDepth: a container deeper than that is refused before it is descended into.
class Reader {
 public:
  Reader(char* text, std::size_t size, JsonDocument& doc, KeyState& keys)
      : begin_(text),
        p_(text),
        end_(text + size),
        doc_(doc),
        keys_(keys.keys),
        index_(keys.index) {}

  JsonReadResult read() {
    skip_whitespace();
    if (p_ == end_) {
      fail(JsonReadError::kSyntax, "the document is empty");
    } else if (value(0)) {
      skip_whitespace();
      if (p_ != end_) syntax("the document root must not be followed by other values");
    }
    if (index_.size() != 0) forget_open_objects();
    return result_;
  }

 private:
  // A value at p_, after any whitespace (compact JSON, what the API server sends, has none, so
  // callers do not look for it first).
  bool value(int depth) {
    switch (*p_) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"': {
        std::string_view s;
        return string(s) &&
               doc_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()), false);
      }
      case 't':
        return literal("true") && doc_.Bool(true);
      case 'f':
        return literal("false") && doc_.Bool(false);
      case 'n':
        return literal("null") && doc_.Null();
      case ' ':
      case '\n':
      case '\r':
      case '\t':
        skip_whitespace();
        return value(depth);
      default:
        return number();
    }
  }

  bool object(int depth) {
    if (depth > kMaxJsonDepth) return fail(JsonReadError::kTooDeep, {});
    ++p_;
    doc_.StartObject();
    const std::size_t first_key = keys_.size();
    std::uint64_t seen = 0;  // a Bloom filter of this object's keys; all ones once it is indexed
    bool indexed = false;    // its keys have entries in the KeyIndex
    rapidjson::SizeType members = 0;
    skip_whitespace();
    if (*p_ == '}') {
      ++p_;
      return doc_.EndObject(0);
    }
    for (;;) {
      if (*p_ != '"') return syntax("an object member must start with a name in double quotes");
      if (!key(first_key, seen, indexed)) return false;
      if (!at(':')) return syntax("a ':' must follow the name of an object member");
      ++p_;
      if (!value(depth)) return false;
      ++members;
      if (*p_ != ',' && *p_ != '}') skip_whitespace();
      if (*p_ == '}') break;
      if (*p_ != ',') return syntax("a ',' or '}' must follow an object member");
      ++p_;
      skip_whitespace();
    }
    ++p_;
    if (indexed) unindex(first_key);
    keys_.resize(first_key);
    return doc_.EndObject(members);
  }

  bool array(int depth) {
    if (depth > kMaxJsonDepth) return fail(JsonReadError::kTooDeep, {});
    ++p_;
    doc_.StartArray();
    rapidjson::SizeType elements = 0;
    if (at(']')) {
      ++p_;
      return doc_.EndArray(0);
    }
    for (;;) {
      if (!value(depth)) return false;
      ++elements;
      if (*p_ != ',' && *p_ != ']') skip_whitespace();
      if (*p_ == ']') break;
      if (*p_ != ',') return syntax("a ',' or ']' must follow an array element");
      ++p_;
    }
    ++p_;
    return doc_.EndArray(elements);
  }

  // An object member's name, refused when the object already has it. The keys are compared
  // only when the object's Bloom filter says one of them may be this one.
  bool key(std::size_t first_key, std::uint64_t& seen, bool& indexed) {
    char* const at = p_;
    std::string_view k;
    if (!string(k)) return false;
    std::uint64_t f = fingerprint(k);
    const std::uint64_t bit = std::uint64_t{1} << ((f * 0x9E3779B97F4A7C15ULL) >> 58);
    if ((seen & bit) != 0) {
      if (keys_.size() - first_key < kScanLimit) {
        for (std::size_t i = first_key; i < keys_.size(); ++i) {
          if (keys_[i].fingerprint == f && std::memcmp(keys_[i].text, k.data(), k.size()) == 0) {
            p_ = at;
            return fail(JsonReadError::kDuplicateKey, k);
          }
        }
      } else {
        // Past kScanLimit keys, through the KeyIndex, into which the object's earlier keys go
        // first; its filter is then made full, so that every later key comes here too.
        if (!indexed) {
          index_object(first_key);
          indexed = true;
          seen = ~std::uint64_t{0};
        }
        const std::optional<std::uint64_t> entered = index_key(first_key, k);
        if (!entered) {
          p_ = at;
          return fail(JsonReadError::kDuplicateKey, k);
        }
        f = *entered;
      }
    }
    seen |= bit;
    keys_.push_back(SeenKey{f, k.data()});
    return doc_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()), false);
  }

  // Enters the keys read so far of the object whose first key is `first`, all distinct.
  [[gnu::noinline]] void index_object(std::size_t first) {
    index_.reserve(keys_.size() - first);
    for (std::size_t i = first; i < keys_.size(); ++i) {
      const std::string_view k(keys_[i].text, static_cast<std::uint32_t>(keys_[i].fingerprint));
      const std::uint32_t h = index_.hash(first, k);
      index_.insert(h, first, i, k, keys_);
      keys_[i].fingerprint = KeyIndex::indexed_fingerprint(h, k);
    }
  }

  // Enters `k`, the next key of the indexed object whose first key is `first`: its indexed
  // fingerprint, or nothing when the object already has it.
  [[gnu::noinline]] std::optional<std::uint64_t> index_key(std::size_t first, std::string_view k) {
    index_.reserve(1);
    const std::uint32_t h = index_.hash(first, k);
    if (!index_.insert(h, first, keys_.size(), k, keys_)) return std::nullopt;
    return KeyIndex::indexed_fingerprint(h, k);
  }

  // Removes the entries of the object whose first key is `first`, at its end. When they are all
  // the table holds and fill a fair part of it, the table is wiped in one sequential pass: erasing
  // a few hundred thousand keys one by one was a cache miss each.
  [[gnu::noinline]] void unindex(std::size_t first) {
    if (index_.wipe_if_only(keys_.size() - first)) return;
    for (std::size_t i = first; i < keys_.size(); ++i) {
      index_.erase(static_cast<std::uint32_t>(keys_[i].fingerprint >> 32), i);
    }
  }

  // After a refusal, the entries of the indexed objects left open, which the next read must not
  // see. Keys of objects that were not indexed have no entry and are simply not found.
  [[gnu::noinline]] void forget_open_objects() { unindex(0); }

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
  // stores them); every other number as the double nearest to it.
  bool number() {
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
  std::vector<SeenKey>& keys_;  // of the objects being read, innermost last
  KeyIndex& index_;
  JsonReadResult result_;
};

}  // namespace

namespace {
// Per thread, so that a read allocates nothing once it has grown.
thread_local KeyState t_keys;
}  // namespace

void release_json_reader_memory() { t_keys = KeyState{}; }

JsonReadResult read_json_in_place(char* text, std::size_t size, JsonDocument& doc) {
  KeyState& keys = t_keys;
  keys.keys.clear();
  JsonReadResult result;
  auto generate = [&](JsonDocument& d) {
    result = Reader(text, size, d, keys).read();
    return result.error == JsonReadError::kNone;
  };
  doc.Populate(generate);
  if (result.error != JsonReadError::kNone) doc.SetNull();
  return result;
}

}  // namespace kpw
