#include "json/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "json/json_reader.hpp"
#include "util/block_cache.hpp"

namespace kpw {

namespace {
// Every block starts with a header: what it is (the parse stack's fixed buffer, or a block of the
// cache) and the capacity it was allocated with (block_cache::deallocate needs it back).
constexpr std::size_t kHeader = ParseStackAllocator::kHeader;
enum class BlockTag : unsigned char { kFixed = 1, kHeap = 2 };
struct Header {
  BlockTag tag;
  std::size_t capacity;  // of the whole block, header included
};
static_assert(sizeof(Header) <= kHeader);

Header& header_of(void* block) {
  return *reinterpret_cast<Header*>(static_cast<char*>(block) - kHeader);
}

// A block of at least `size` usable bytes.
void* heap_block(std::size_t size) {
  const std::size_t capacity = block_cache::capacity(size + kHeader);
  char* block = static_cast<char*>(block_cache::allocate(capacity)) + kHeader;
  header_of(block) = Header{BlockTag::kHeap, capacity};
  return block;
}

std::size_t usable(void* block) { return header_of(block).capacity - kHeader; }

void free_block(void* block) noexcept {
  if (block == nullptr || header_of(block).tag != BlockTag::kHeap) return;
  block_cache::deallocate(static_cast<char*>(block) - kHeader, header_of(block).capacity);
}

// The same bytes in a block of at least `new_size`, the original left as it is.
void* moved_block(void* original, std::size_t original_size, std::size_t new_size) {
  void* block = heap_block(new_size);
  std::memcpy(block, original, std::min(original_size, new_size));
  return block;
}
}  // namespace

void* ThrowingAllocator::Malloc(std::size_t size) {
  if (size == 0) return nullptr;  // RapidJSON asks for 0 bytes and expects nullptr
  return heap_block(size);
}

void* ThrowingAllocator::Realloc(void* original, std::size_t original_size, std::size_t new_size) {
  if (original == nullptr) return Malloc(new_size);
  if (new_size == 0) {
    Free(original);
    return nullptr;
  }
  if (new_size <= usable(original)) return original;
  void* block = moved_block(original, original_size, new_size);
  free_block(original);
  return block;
}

void ThrowingAllocator::Free(void* ptr) noexcept { free_block(ptr); }

ParseStackAllocator::ParseStackAllocator(char* buffer, std::size_t size)
    : fixed_(buffer + kHeader), fixed_size_(size - kHeader) {
  header_of(fixed_) = Header{BlockTag::kFixed, size};
}

void* ParseStackAllocator::Malloc(std::size_t size) {
  if (size == 0) return nullptr;
  if (size <= fixed_size_) return fixed_;
  return heap_block(size);
}

// Large blocks are powers of two, so most of the stack's growths (by half) fit the block it has.
void* ParseStackAllocator::Realloc(void* original, std::size_t original_size,
                                   std::size_t new_size) {
  if (original == nullptr) return Malloc(new_size);
  if (new_size == 0) {
    Free(original);
    return nullptr;
  }
  const bool fixed = header_of(original).tag == BlockTag::kFixed;
  if (new_size <= (fixed ? fixed_size_ : usable(original))) return original;
  void* block = moved_block(original, original_size, new_size);
  free_block(original);
  return block;
}

void ParseStackAllocator::Free(void* ptr) noexcept { free_block(ptr); }

JsonArena::JsonArena()
    : allocator_(chunk_, sizeof(chunk_), kGrowthChunkBytes),
      stack_allocator_(stack_chunk_, sizeof(stack_chunk_)),
      document_(&allocator_, kStackChunkBytes / 2, &stack_allocator_) {}

void JsonArena::release() {
  document_.SetNull();
  allocator_.Clear();
}

JsonParseResult JsonArena::parse_in_place(std::string& text) {
  // Drop what the previous request built; the first chunks (our buffers) are kept.
  document_.SetNull();
  allocator_.Clear();

  JsonParseResult result;
  const JsonReadResult read = read_json_in_place(text.data(), text.size(), document_);
  switch (read.error) {
    case JsonReadError::kNone:
      result.ok = true;
      return result;
    case JsonReadError::kTooDeep:
      result.error = "JSON nesting is deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return result;
    case JsonReadError::kDuplicateKey:
      result.error = "duplicate JSON key ";
      append_echoed_string(result.error, read.detail);
      return result;
    case JsonReadError::kInvalidUtf8:
      result.error = "malformed JSON: invalid UTF-8";
      break;
    case JsonReadError::kLoneSurrogate:
      result.error = "malformed JSON: a \\u escape holds an unpaired UTF-16 surrogate";
      break;
    case JsonReadError::kSyntax:
      result.error = "malformed JSON: ";
      result.error += read.detail;
      break;
  }
  result.error += " at offset " + std::to_string(read.offset);
  return result;
}

JsonArena& thread_json_arena() {
  thread_local JsonArena arena;
  return arena;
}

std::string_view cut_utf8(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t n = limit;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

namespace {
void append_cut_marker(std::string& out, std::size_t size) {
  out += "... (";
  out += std::to_string(size);
  out += " bytes)";
}
}  // namespace

void append_echoed_text(std::string& out, std::string_view text, std::size_t limit) {
  out += cut_utf8(text, limit);
  if (text.size() > limit) append_cut_marker(out, text.size());
}

void append_echoed_string(std::string& out, std::string_view text, std::size_t limit) {
  append_json_string(out, cut_utf8(text, limit));
  if (text.size() > limit) append_cut_marker(out, text.size());
}

void append_echoed_scalar(std::string& out, const JsonValue& value) {
  if (value.IsString()) return append_echoed_string(out, view(value));
  append_json_scalar(out, value);
}

std::string echoed(std::string_view text) {
  std::string out;
  append_echoed_string(out, text);
  return out;
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

void append_go_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':  // Go 1.22 on
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    } else if (c == 0xE2 && i + 2 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(text[i + 2]) == 0xA8 ||
                static_cast<unsigned char>(text[i + 2]) == 0xA9)) {
      out += static_cast<unsigned char>(text[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
}

bool go_key_matches(std::string_view key, std::string_view name) {
  const auto lower = [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  };
  std::size_t k = 0;
  for (const char n : name) {
    const char want = lower(n);
    if (k < key.size() && lower(key[k]) == want) {
      ++k;
    } else if (want == 'k' && key.substr(k, 3) == "\xE2\x84\xAA") {
      k += 3;
    } else if (want == 's' && key.substr(k, 2) == "\xC5\xBF") {
      k += 2;
    } else {
      return false;
    }
  }
  return k == key.size();
}

void append_go_float(std::string& out, double value) {
  char buf[40];
  const double size = std::fabs(value);
  if (size != 0 && (size < 1e-6 || size >= 1e21)) {
    const auto [end, ec] =
        std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    auto n = static_cast<std::size_t>(end - buf);
    // Go writes a two-digit negative exponent without its leading zero: 1e-07 as 1e-7.
    if (n >= 4 && buf[n - 4] == 'e' && buf[n - 3] == '-' && buf[n - 2] == '0') {
      buf[n - 2] = buf[n - 1];
      --n;
    }
    out.append(buf, n);
    return;
  }
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  out.append(buf, static_cast<std::size_t>(end - buf));
}

void append_compact_json(std::string& out, const JsonValue& value, bool html) {
  switch (value.GetType()) {
    case rapidjson::kStringType:
      if (html) return append_go_json_string(out, view(value));
      return append_json_string(out, view(value));
    case rapidjson::kObjectType:
      out += '{';
      for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
        if (it != value.MemberBegin()) out += ',';
        if (html) {
          append_go_json_string(out, view(it->name));
        } else {
          append_json_string(out, view(it->name));
        }
        out += ':';
        append_compact_json(out, it->value, html);
      }
      out += '}';
      return;
    case rapidjson::kArrayType:
      out += '[';
      for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
        if (i > 0) out += ',';
        append_compact_json(out, value[i], html);
      }
      out += ']';
      return;
    case rapidjson::kNumberType:
      if (value.IsDouble()) {
        if (html) return append_go_float(out, value.GetDouble());
        char buf[32];
        const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value.GetDouble());
        out.append(buf, static_cast<std::size_t>(end - buf));
        return;
      }
      [[fallthrough]];
    default:
      return append_json_scalar(out, value);
  }
}

}  // namespace kpw
