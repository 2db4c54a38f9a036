#include "admission/json.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "admission/json_reader.hpp"

namespace kpw {

JsonArena::JsonArena()
    : allocator_(chunk_, sizeof(chunk_)),
      stack_allocator_(stack_chunk_, sizeof(stack_chunk_)),
      document_(&allocator_, kStackChunkBytes / 2, &stack_allocator_) {}

JsonParseResult JsonArena::parse_in_place(std::string& text) {
  // Drop what the previous request built; the first chunks (our buffers) are kept.
  document_.SetNull();
  allocator_.Clear();
  stack_allocator_.Clear();

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
      append_json_string(result.error, read.detail);
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
