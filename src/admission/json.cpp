#include "admission/json.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace kpw {
namespace {

constexpr unsigned kParseFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag |
                                 rapidjson::kParseValidateEncodingFlag;

// Forwards SAX events to the document while refusing nesting deeper than kMaxJsonDepth:
// the iterative parser keeps the stack flat, this keeps every later walk bounded too.
class DepthLimitedHandler {
 public:
  explicit DepthLimitedHandler(JsonDocument& d) : d_(d) {}
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
    return valid_text(s, n) && d_.Key(s, n, copy);
  }
  bool StartObject() { return ++depth_ <= kMaxJsonDepth && d_.StartObject(); }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    return d_.EndObject(n);
  }
  bool StartArray() { return ++depth_ <= kMaxJsonDepth && d_.StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    return d_.EndArray(n);
  }
  bool too_deep() const { return depth_ > kMaxJsonDepth; }
  bool lone_surrogate() const { return lone_surrogate_; }

 private:
  // RapidJSON rejects raw surrogate bytes and an unpaired high-surrogate escape, but decodes an
  // unpaired low-surrogate escape (`"\udc00"`) into bytes that are not UTF-8 (ED B0 80). Those
  // would reach our answers, so they are refused here. Such bytes start with 0xED, 0xA0..0xBF.
  bool valid_text(const char* s, rapidjson::SizeType n) {
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
  int depth_ = 0;
  bool lone_surrogate_ = false;
};

bool same_name(const JsonValue& a, const JsonValue& b) { return view(a) == view(b); }

// The first duplicated key, found with an explicit stack (no recursion).
const JsonValue* find_duplicate_key(const JsonValue& root) {
  thread_local std::vector<const JsonValue*> stack;
  stack.clear();
  stack.push_back(&root);
  while (!stack.empty()) {
    const JsonValue* v = stack.back();
    stack.pop_back();
    if (v->IsObject()) {
      for (auto m = v->MemberBegin(); m != v->MemberEnd(); ++m) {
        for (auto prior = v->MemberBegin(); prior != m; ++prior) {
          if (same_name(prior->name, m->name)) return &m->name;
        }
        if (m->value.IsObject() || m->value.IsArray()) stack.push_back(&m->value);
      }
    } else if (v->IsArray()) {
      for (const auto& e : v->GetArray()) {
        if (e.IsObject() || e.IsArray()) stack.push_back(&e);
      }
    }
  }
  return nullptr;
}

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
  auto generate = [&](JsonDocument& d) {
    DepthLimitedHandler handler(d);
    rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, JsonAllocator> reader(
        &allocator_);
    rapidjson::GenericInsituStringStream<rapidjson::UTF8<>> stream(text.data());
    parsed = reader.Parse<kParseFlags>(stream, handler);
    too_deep = handler.too_deep();
    lone_surrogate = handler.lone_surrogate();
    return !parsed.IsError();
  };
  document_.Populate(generate);
  if (too_deep) {
    document_.SetNull();
    result.error = "JSON nesting is deeper than " + std::to_string(kMaxJsonDepth) + " levels";
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
  if (const JsonValue* dup = find_duplicate_key(document_)) {
    result.error = "duplicate JSON key ";
    append_json_string(result.error, view(*dup));
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
