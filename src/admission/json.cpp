#include "admission/json.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace kpw {
namespace {

// UTF-8 is validated once over the whole body (valid_utf8, much faster than RapidJSON's
// per-character check), so the parser itself runs without kParseValidateEncodingFlag.
constexpr unsigned kParseFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag;

// RFC 3629 UTF-8: ASCII eight bytes at a time; multi-byte sequences checked for overlong forms,
// surrogates (ED A0..BF) and the U+10FFFF limit. On failure `offset` is the first bad byte.
bool valid_utf8(std::string_view s, std::size_t& offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, p + i, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
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
      offset = i;
      return false;
    }
    if (i + extra >= n || p[i + 1] < lo || p[i + 1] > hi) {
      offset = i;
      return false;
    }
    for (std::size_t k = 2; k <= extra; ++k) {
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) {
        offset = i;
        return false;
      }
    }
    i += extra + 1;
  }
  return true;
}

// Forwards SAX events to the document while refusing nesting deeper than kMaxJsonDepth:
// the iterative parser keeps the stack flat, this keeps every later walk bounded too.
class DepthLimitedHandler {
 public:
  // `escapes`: the text holds `\u` escapes, whose decoding must be checked for surrogates.
  DepthLimitedHandler(JsonDocument& d, bool escapes) : d_(d), escapes_(escapes) {
    keys_.clear();
    objects_.clear();
  }
  bool Null() { return d_.Null(); }
  bool Bool(bool b) { return d_.Bool(b); }
  bool Int(int i) { return d_.Int(i); }
  bool Uint(unsigned i) { return d_.Uint(i); }
  bool Int64(int64_t i) { return d_.Int64(i); }
  bool Uint64(uint64_t i) { return d_.Uint64(i); }
  bool Double(double x) { return d_.Double(x); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return d_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return valid_text(s, n) && d_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    return valid_text(s, n) && unique_key(s, n) && d_.Key(s, n, copy);
  }
  bool StartObject() {
    objects_.push_back(keys_.size());
    return ++depth_ <= kMaxJsonDepth && d_.StartObject();
  }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    keys_.resize(objects_.back());
    objects_.pop_back();
    return d_.EndObject(n);
  }
  bool StartArray() { return ++depth_ <= kMaxJsonDepth && d_.StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    return d_.EndArray(n);
  }
  bool too_deep() const { return depth_ > kMaxJsonDepth; }
  bool lone_surrogate() const { return lone_surrogate_; }
  // The first key repeated within one object (parsing stops there).
  bool has_duplicate() const { return has_duplicate_; }
  std::string_view duplicate() const { return duplicate_; }

 private:
  struct SeenKey {
    std::uint64_t fingerprint;
    const char* text;  // in the parsed buffer (in situ), valid for the whole parse
    rapidjson::SizeType size;
  };

  // Length and the first and last eight bytes: distinct keys almost never share all three, so
  // the bytes are compared only for a likely repeat.
  static std::uint64_t fingerprint(const char* s, rapidjson::SizeType n) {
    std::uint64_t head = 0, tail = 0;
    std::memcpy(&head, s, n < 8 ? n : 8);
    if (n > 8) std::memcpy(&tail, s + n - 8, 8);
    return (head * 0x9E3779B97F4A7C15ULL) ^ (tail + n);
  }

  // Duplicate keys are refused (README "The envelope"), checked while parsing, per object.
  bool unique_key(const char* s, rapidjson::SizeType n) {
    const std::uint64_t f = fingerprint(s, n);
    for (std::size_t i = objects_.back(); i < keys_.size(); ++i) {
      const SeenKey& k = keys_[i];
      if (k.fingerprint == f && k.size == n && std::memcmp(k.text, s, n) == 0) {
        duplicate_ = std::string_view(s, n);
        has_duplicate_ = true;
        return false;
      }
    }
    keys_.push_back(SeenKey{f, s, n});
    return true;
  }

  // RapidJSON rejects raw surrogate bytes and an unpaired high-surrogate escape, but decodes an
  // unpaired low-surrogate escape (`"\udc00"`) into bytes that are not UTF-8 (ED B0 80). Those
  // would reach our answers, so they are refused here. Such bytes start with 0xED, 0xA0..0xBF.
  bool valid_text(const char* s, rapidjson::SizeType n) {
    if (!escapes_) return true;
    const char* end = s + n;
    for (const char* p = s; (p = static_cast<const char*>(std::memchr(p, '\xED', end - p)));
         ++p) {
      if (p + 1 < end && static_cast<unsigned char>(p[1]) >= 0xA0) {
        lone_surrogate_ = true;
        return false;
      }
    }
    return true;
  }

  JsonDocument& d_;
  bool escapes_;
  // Keys of the objects being parsed; objects_ holds where each open object's keys start.
  // Thread-local so a parse allocates nothing once they have grown.
  static inline thread_local std::vector<SeenKey> keys_;
  static inline thread_local std::vector<std::size_t> objects_;
  std::string_view duplicate_;
  bool has_duplicate_ = false;
  int depth_ = 0;
  bool lone_surrogate_ = false;
};

}  // namespace

JsonArena::JsonArena() : allocator_(chunk_, sizeof(chunk_)), document_(&allocator_) {}

JsonParseResult JsonArena::parse_in_place(std::string& text) {
  // Drop what the previous request built; the first chunk (our buffer) is kept.
  document_.SetNull();
  allocator_.Clear();

  JsonParseResult result;
  rapidjson::ParseResult parsed;
  bool too_deep = false;
  bool lone_surrogate = false;
  bool has_duplicate = false;
  std::string duplicate;
  std::size_t bad_byte = 0;
  if (!valid_utf8(text, bad_byte)) {
    document_.SetNull();
    result.error = "malformed JSON: invalid UTF-8 at offset " + std::to_string(bad_byte);
    return result;
  }
  const bool escapes = text.find("\\u") != std::string::npos;
  auto generate = [&](JsonDocument& d) {
    DepthLimitedHandler handler(d, escapes);
    rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, JsonAllocator> reader(
        &allocator_);
    rapidjson::GenericInsituStringStream<rapidjson::UTF8<>> stream(text.data());
    parsed = reader.Parse<kParseFlags>(stream, handler);
    too_deep = handler.too_deep();
    lone_surrogate = handler.lone_surrogate();
    has_duplicate = handler.has_duplicate();
    duplicate = handler.duplicate();
    return !parsed.IsError();
  };
  document_.Populate(generate);
  if (too_deep) {
    document_.SetNull();
    result.error = "JSON nesting is deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return result;
  }
  if (has_duplicate) {
    document_.SetNull();
    result.error = "duplicate JSON key ";
    append_json_string(result.error, duplicate);
    return result;
  }
  if (lone_surrogate) {
    document_.SetNull();
    result.error = "malformed JSON: a \\u escape holds an unpaired UTF-16 surrogate";
    return result;
  }
  if (parsed.IsError()) {
    document_.SetNull();
    char where[64];
    std::snprintf(where, sizeof(where), " at offset %zu", parsed.Offset());
    result.error = std::string("malformed JSON: ") +
                   rapidjson::GetParseError_En(parsed.Code()) + where;
    return result;
  }

  result.ok = true;
  return result;
}

JsonArena& thread_json_arena() {
  thread_local JsonArena arena;
  return arena;
}

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (unsigned char c : text) {
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
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xf]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

void append_json_scalar(std::string& out, const JsonValue& value) {
  char buf[32];
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      return;
    case rapidjson::kFalseType:
      out += "false";
      return;
    case rapidjson::kTrueType:
      out += "true";
      return;
    case rapidjson::kStringType:
      append_json_string(out, view(value));
      return;
    case rapidjson::kObjectType:
      out += "{...}";
      return;
    case rapidjson::kArrayType:
      out += "[...]";
      return;
    case rapidjson::kNumberType:
      if (value.IsInt64()) {
        std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(value.GetInt64()));
      } else if (value.IsUint64()) {
        std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(value.GetUint64()));
      } else {
        std::snprintf(buf, sizeof(buf), "%.17g", value.GetDouble());
      }
      out += buf;
      return;
  }
}

}  // namespace kpw
