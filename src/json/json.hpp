// JSON documents for admission: bounded, in-situ parsing into a per-thread arena.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "util/json_text.hpp"
#include "util/text.hpp"

namespace kpw {

// The base allocator of the document's pool: chunks come from the thread's block cache
// (util/block_cache.hpp: a review thread reuses the memory of its last large review), and running
// out of memory throws std::bad_alloc (RapidJSON's CrtAllocator returns nullptr, through which
// RapidJSON then writes), which the review's recovery boundary (service.cpp) answers while the
// server goes on.
class ThrowingAllocator {
 public:
  static const bool kNeedFree = true;
  void* Malloc(std::size_t size);
  void* Realloc(void* original, std::size_t original_size, std::size_t new_size);
  static void Free(void* ptr) noexcept;
};

using JsonAllocator = rapidjson::MemoryPoolAllocator<ThrowingAllocator>;

// The document's parse stack: a fixed buffer first (JsonArena's second one: with the default
// CrtAllocator the stack was malloc'd, grown and freed on every parse), then blocks of the
// thread's block cache, doubling. Serves one stack at a time. Every block carries a header saying
// what it is, because RapidJSON frees through a static Free.
class ParseStackAllocator {
 public:
  static const bool kNeedFree = true;
  static constexpr std::size_t kHeader = alignof(std::max_align_t);
  ParseStackAllocator() = default;
  // `buffer` (aligned to max_align_t, `size` > kHeader) serves blocks of up to size - kHeader.
  ParseStackAllocator(char* buffer, std::size_t size);
  void* Malloc(std::size_t size);
  void* Realloc(void* original, std::size_t original_size, std::size_t new_size);
  static void Free(void* ptr) noexcept;

 private:
  char* fixed_ = nullptr;  // the block inside the buffer (after its header)
  std::size_t fixed_size_ = 0;
};

using JsonDocument =
    rapidjson::GenericDocument<rapidjson::UTF8<>, JsonAllocator, ParseStackAllocator>;
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
  // Drops the document and gives back every chunk beyond the first (after a large review, so a
  // thread does not hold its memory until the next one).
  void release();

 private:
  static constexpr std::size_t kChunkBytes = 64 * 1024;
  // Chunks beyond the first: large, so a big document takes few of them (freed chunks stay in the
  // thread's heap for the next large review; the server gives them back after a quiet second).
  static constexpr std::size_t kGrowthChunkBytes = 1024 * 1024 - 256;  // with headers: 1 MiB
  static constexpr std::size_t kStackChunkBytes = 16 * 1024;
  alignas(std::max_align_t) char chunk_[kChunkBytes];
  alignas(std::max_align_t) char stack_chunk_[kStackChunkBytes];
  JsonAllocator allocator_;
  ParseStackAllocator stack_allocator_;
  JsonDocument document_;
};

// The arena of the calling thread.
JsonArena& thread_json_arena();

// Appends a compact rendering of a scalar value (string quoted, numbers and bools bare, null);
// objects and arrays render as `{...}` / `[...]` to keep messages short.
void append_json_scalar(std::string& out, const JsonValue& value);

// Appends `value` as compact JSON, every value in full (objects in document order). `html`: as Go's
// encoding/json writes it, `<`, `>`, `&`, U+2028 and U+2029 as `\u003c`…, and a number that is
// not a whole int64/uint64 as Go writes a float64 (append_go_float). Numbers are written in
// their shortest form (the reader keeps no number's spelling).
void append_compact_json(std::string& out, const JsonValue& value, bool html);
// A float64 as Go's encoding/json writes it: the shortest form that reads back as `value`, in
// fixed notation, or with an exponent below 1e-6 and from 1e21 on (`1e-7`, `1e+21`).
void append_go_float(std::string& out, double value);
// `text` as a JSON string literal as Go's encoding/json writes it (HTML characters escaped).
void append_go_json_string(std::string& out, std::string_view text);

// Whether an object key names the field `name` (ASCII) as Go's encoding/json matches keys (its
// standard decoder, which Kubernetes' own decoder is not): exactly or case-insensitively
// (bytes.EqualFold), where U+212A KELVIN SIGN folds to k and U+017F LONG S to s.
bool go_key_matches(std::string_view key, std::string_view name);

// The longest piece of a request echoed back in a message: a value, a map key, a name.
inline constexpr std::size_t kMaxEchoedBytes = 256;

// The first `limit` bytes of `text` or fewer, never splitting a UTF-8 sequence.
std::string_view cut_utf8(std::string_view text, std::size_t limit);

// Appends `text` as it is, or, when longer than `limit`, its first `limit` bytes and a marker
// saying how long it was: `aaaa... (10000 bytes)`.
void append_echoed_text(std::string& out, std::string_view text,
                        std::size_t limit = kMaxEchoedBytes);
// The same, as a JSON string literal: `"aaaa"... (10000 bytes)`.
void append_echoed_string(std::string& out, std::string_view text,
                          std::size_t limit = kMaxEchoedBytes);
// append_json_scalar, with strings echoed as append_echoed_string does.
void append_echoed_scalar(std::string& out, const JsonValue& value);
// append_echoed_string into a new string (for details and warnings that quote a value).
std::string echoed(std::string_view text);

inline std::string_view view(const JsonValue& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

// The one member lookup: the value of the member of `obj` named `name` (null included), or
// nullptr when `obj` is not an object or has no such member. Names are compared with equal_text
// (RapidJSON's FindMember calls memcmp for every name of the same length).
inline const JsonValue* find_member(const JsonValue& obj, std::string_view name) {
  if (!obj.IsObject()) return nullptr;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (equal_text(view(it->name), name)) return &it->value;
  }
  return nullptr;
}
inline JsonValue* find_member(JsonValue& obj, std::string_view name) {
  return const_cast<JsonValue*>(find_member(static_cast<const JsonValue&>(obj), name));
}

}  // namespace kpw
