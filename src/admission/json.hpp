// JSON documents for admission: bounded, in-situ parsing into a per-thread arena.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace kpw {

using JsonAllocator = rapidjson::MemoryPoolAllocator<rapidjson::CrtAllocator>;
// The document's parse stack also lives in a pool (JsonArena's second buffer): with the default
// CrtAllocator it was malloc'd, grown and freed on every parse.
using JsonDocument = rapidjson::GenericDocument<rapidjson::UTF8<>, JsonAllocator, JsonAllocator>;
using JsonValue = JsonDocument::ValueType;

// Deeper documents are refused before any rule runs, so that every later walk
// (duplicate keys, rendering, patch building) has a bounded depth.
inline constexpr int kMaxJsonDepth = 128;

struct JsonParseResult {
  bool ok = false;
  std::string error;  // empty when ok
};

// Owns the memory of one parsed document. One per thread: the first chunks are reused
// across requests, so a typical review allocates nothing.
class JsonArena {
 public:
  JsonArena();
  JsonArena(const JsonArena&) = delete;
  JsonArena& operator=(const JsonArena&) = delete;

  // Parses `text` in place (the buffer is modified and must outlive the document).
  // Refuses invalid UTF-8, nesting deeper than kMaxJsonDepth and duplicate object keys.
  JsonParseResult parse_in_place(std::string& text);

  JsonDocument& document() { return document_; }
  JsonAllocator& allocator() { return allocator_; }

 private:
  static constexpr std::size_t kChunkBytes = 64 * 1024;
  static constexpr std::size_t kStackChunkBytes = 16 * 1024;
  alignas(std::max_align_t) char chunk_[kChunkBytes];
  alignas(std::max_align_t) char stack_chunk_[kStackChunkBytes];
  JsonAllocator allocator_;
  JsonAllocator stack_allocator_;  // the parse stack: only one block, grown in place
  JsonDocument document_;
};

// The arena of the calling thread.
JsonArena& thread_json_arena();

// Appends `text` to `out` as a JSON string literal (quotes included).
void append_json_string(std::string& out, std::string_view text);

// Appends a compact rendering of a scalar value (string quoted, numbers and bools bare, null);
// objects and arrays render as `{...}` / `[...]` to keep messages short.
void append_json_scalar(std::string& out, const JsonValue& value);

inline std::string_view view(const JsonValue& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

}  // namespace kpw
