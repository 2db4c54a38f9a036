#include "admission/json.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "admission/json_reader.hpp"

namespace kpw {

void* ThrowingAllocator::Malloc(std::size_t size) {
  if (size == 0) return nullptr;  // RapidJSON asks for 0 bytes and expects nullptr
  void* p = std::malloc(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* ThrowingAllocator::Realloc(void* original, std::size_t, std::size_t new_size) {
  if (new_size == 0) {
    std::free(original);
    return nullptr;
  }
  void* p = std::realloc(original, new_size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void ThrowingAllocator::Free(void* ptr) noexcept { std::free(ptr); }

namespace {
enum class BlockTag : unsigned char { kFixed = 1, kHeap = 2 };
BlockTag& tag_of(void* block) {
  return *reinterpret_cast<BlockTag*>(static_cast<char*>(block) - ParseStackAllocator::kHeader);
}
void* heap_block(std::size_t size) {
  void* raw = std::malloc(size + ParseStackAllocator::kHeader);
  if (raw == nullptr) throw std::bad_alloc();
  char* block = static_cast<char*>(raw) + ParseStackAllocator::kHeader;
  tag_of(block) = BlockTag::kHeap;
  return block;
}
}  // namespace

ParseStackAllocator::ParseStackAllocator(char* buffer, std::size_t size)
    : fixed_(buffer + kHeader), fixed_size_(size - kHeader) {
  tag_of(fixed_) = BlockTag::kFixed;
}

void* ParseStackAllocator::Malloc(std::size_t size) {
  if (size == 0) return nullptr;
  if (size <= fixed_size_) return fixed_;
  return heap_block(size);
}

void* ParseStackAllocator::Realloc(void* original, std::size_t original_size,
                                   std::size_t new_size) {
  if (original == nullptr) return Malloc(new_size);
  if (new_size == 0) {
    Free(original);
    return nullptr;
  }
  if (tag_of(original) == BlockTag::kFixed) {
    if (new_size <= fixed_size_) return original;
    void* block = heap_block(new_size);
    std::memcpy(block, original, original_size);
    return block;
  }
  void* raw = std::realloc(static_cast<char*>(original) - kHeader, new_size + kHeader);
  if (raw == nullptr) throw std::bad_alloc();
  return static_cast<char*>(raw) + kHeader;
}

void ParseStackAllocator::Free(void* ptr) noexcept {
  if (ptr == nullptr || tag_of(ptr) == BlockTag::kFixed) return;
  std::free(static_cast<char*>(ptr) - kHeader);
}

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

void append_echoed_string(std::string& out, std::string_view text) {
  append_json_string(out, cut_utf8(text, kMaxEchoedBytes));
  if (text.size() > kMaxEchoedBytes) append_cut_marker(out, text.size());
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

}  // namespace kpw
