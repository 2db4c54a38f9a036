#include "admission/json_patch.hpp"

#include <rapidjson/pointer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include <charconv>
#include <string>
#include <utility>

namespace kpw {
namespace {

using Segment = FieldPath::Segment;

// The JSON pointer of segs[0, count), into `out`.
void pointer_of(const std::vector<Segment>& segs, std::size_t count, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back('/');
    if (segs[i].kind == FieldPath::Kind::kIndex) {
      char digits[20];
      const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, segs[i].index);
      out.append(digits, end);
    } else {
      append_pointer_token(out, segs[i].name);
    }
  }
}

// A RapidJSON output stream appending to a std::string (no intermediate buffer).
struct StringOutput {
  using Ch = char;
  std::string& out;
  void Put(char c) { out.push_back(c); }
  void Flush() {}
};

// The member named by `seg` in `obj` (any value, null included), or nullptr.
const JsonValue* find_member(const JsonValue& obj, std::string_view name) {
  const JsonValue key(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size())));
  auto it = obj.FindMember(key);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

}  // namespace

void append_pointer_token(std::string& out, std::string_view token) {
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
}

void append_base64(std::string& out, std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  std::size_t rest = bytes.size() - i;
  if (rest == 0) return;
  unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
  if (rest == 2) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
  out.push_back(kAlphabet[(n >> 18) & 63]);
  out.push_back(kAlphabet[(n >> 12) & 63]);
  out.push_back(rest == 2 ? kAlphabet[(n >> 6) & 63] : '=');
  out.push_back('=');
}

JsonPatch::JsonPatch() : allocator_(chunk_, sizeof(chunk_)) {}

void JsonPatch::reset(const JsonValue* object) {
  object_ = object;
  used_ = 0;
  allocator_.Clear();
}

JsonPatch::Op& JsonPatch::add_op(OpKind kind, std::string_view pointer, JsonValue&& value) {
  if (used_ == ops_.size()) ops_.push_back(Op{kind, {}, JsonValue()});
  Op& op = ops_[used_++];
  op.kind = kind;
  op.pointer.assign(pointer);
  op.value = std::move(value);
  return op;
}

void JsonPatch::erase_op(std::size_t i) {
  std::rotate(ops_.begin() + static_cast<std::ptrdiff_t>(i),
              ops_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
              ops_.begin() + static_cast<std::ptrdiff_t>(used_));
  --used_;
}

void JsonPatch::set(const FieldPath& path, std::int64_t value) {
  put(path, JsonValue(static_cast<int64_t>(value)), false);
}

void JsonPatch::set(const FieldPath& path, bool value) { put(path, JsonValue(value), false); }

void JsonPatch::set(const FieldPath& path, std::string_view value) {
  JsonValue v(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator_);
  put(path, std::move(v), false);
}

void JsonPatch::append(const FieldPath& path, std::string_view value) {
  JsonValue v(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator_);
  put(path, std::move(v), true);
}

void JsonPatch::put(const FieldPath& path, JsonValue&& value, bool append) {
  auto& alloc = allocator_;
  std::vector<Segment>& segs = segments_;
  path.segments(segs);
  pointer_of(segs, segs.size(), pointer_);
  const std::string& full = pointer_;

  // Wraps `value` into the objects named by segs[from..] (the array for an append).
  auto nest = [&](std::size_t from) {
    JsonValue inner(std::move(value));
    if (append) {
      JsonValue array(rapidjson::kArrayType);
      array.PushBack(inner, alloc);
      inner = std::move(array);
    }
    for (std::size_t i = segs.size(); i-- > from;) {
      JsonValue obj(rapidjson::kObjectType);
      obj.AddMember(JsonValue(segs[i].name.data(),
                              static_cast<rapidjson::SizeType>(segs[i].name.size()), alloc),
                    inner, alloc);
      inner = std::move(obj);
    }
    return inner;
  };

  // The same target again: the later value wins; an append joins the array it added.
  for (Op& op : ops()) {
    if (op.pointer != full) continue;
    if (append && op.value.IsArray()) {
      op.value.PushBack(value, alloc);
    } else if (!append) {
      op.value = std::move(value);
    }
    return;
  }

  // Below an object this patch already adds: write into that op's value.
  std::size_t depth = 0;
  if (Op* parent = added_parent(full, depth)) {
    JsonValue* cur = &parent->value;
    for (std::size_t i = depth; i < segs.size(); ++i) {
      if (segs[i].kind == FieldPath::Kind::kIndex || !cur->IsObject()) return;
      const JsonValue key(rapidjson::StringRef(
          segs[i].name.data(), static_cast<rapidjson::SizeType>(segs[i].name.size())));
      auto it = cur->FindMember(key);
      if (it == cur->MemberEnd()) {
        JsonValue nested = nest(i + 1);
        cur->AddMember(JsonValue(segs[i].name.data(),
                                 static_cast<rapidjson::SizeType>(segs[i].name.size()), alloc),
                       nested, alloc);
        return;
      }
      if (i + 1 == segs.size()) {
        if (append && it->value.IsArray()) {
          it->value.PushBack(value, alloc);
        } else {
          it->value = nest(i + 1);
        }
        return;
      }
      cur = &it->value;
    }
    return;
  }

  // Walk the object as it arrived to find the outermost missing parent.
  const JsonValue* cur = object_;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const bool last = i + 1 == segs.size();
    if (cur == nullptr) return;
    const JsonValue* next = nullptr;
    if (segs[i].kind == FieldPath::Kind::kIndex) {
      if (!cur->IsArray() || segs[i].index >= cur->Size()) return;  // indexes must exist
      next = &(*cur)[static_cast<rapidjson::SizeType>(segs[i].index)];
    } else {
      if (!cur->IsObject()) return;  // not ours to fix: the validator reports the type
      next = find_member(*cur, segs[i].name);
    }
    if (next == nullptr || next->IsNull()) {
      // Absent (add) or null (replace): one op holding everything below.
      const OpKind kind = next == nullptr ? OpKind::kAdd : OpKind::kReplace;
      pointer_of(segs, i + 1, prefix_);
      add_op(kind, prefix_, nest(i + 1));
      return;
    }
    if (last) {
      if (append) {
        if (!next->IsArray()) return;
        add_op(OpKind::kAdd, full, std::move(value)).pointer += "/-";
      } else {
        add_op(OpKind::kReplace, full, std::move(value));
      }
      return;
    }
    cur = next;
  }
}

JsonPatch::Op* JsonPatch::added_parent(std::string_view pointer, std::size_t& depth) {
  for (Op& op : ops()) {
    if (!op.value.IsObject() || pointer.size() <= op.pointer.size() ||
        pointer.substr(0, op.pointer.size()) != op.pointer || pointer[op.pointer.size()] != '/') {
      continue;
    }
    depth = 0;
    for (char c : op.pointer) depth += c == '/';
    return &op;
  }
  return nullptr;
}

void JsonPatch::remove(const FieldPath& path) {
  std::vector<Segment>& segs = segments_;
  path.segments(segs);
  pointer_of(segs, segs.size(), pointer_);
  const std::string& full = pointer_;
  for (std::size_t i = 0; i < used_; ++i) {
    Op& op = ops_[i];
    if (op.pointer != full) continue;
    if (op.kind == OpKind::kAdd) {
      erase_op(i);  // it was absent: nothing to remove
    } else {
      op.kind = OpKind::kRemove;
    }
    return;
  }
  // Below an object this patch adds: drop the member from that value.
  std::size_t depth = 0;
  if (Op* parent = added_parent(full, depth)) {
    JsonValue* cur = &parent->value;
    for (std::size_t i = depth; i < segs.size() && cur->IsObject(); ++i) {
      auto it = cur->FindMember(JsonValue(rapidjson::StringRef(
          segs[i].name.data(), static_cast<rapidjson::SizeType>(segs[i].name.size()))));
      if (it == cur->MemberEnd()) return;
      if (i + 1 == segs.size()) {
        cur->EraseMember(it);
        return;
      }
      cur = &it->value;
    }
    return;
  }
  // In the object as it arrived: only what is there can be removed.
  const JsonValue* cur = object_;
  for (const Segment& seg : segs) {
    if (cur == nullptr) return;
    if (seg.kind == FieldPath::Kind::kIndex) {
      if (!cur->IsArray() || seg.index >= cur->Size()) return;
      cur = &(*cur)[static_cast<rapidjson::SizeType>(seg.index)];
    } else {
      if (!cur->IsObject()) return;
      cur = find_member(*cur, seg.name);
    }
  }
  if (cur != nullptr) add_op(OpKind::kRemove, full, JsonValue());
}

void JsonPatch::apply_to(JsonValue& object, JsonAllocator& allocator) const {
  for (const Op& op : ops()) {
    const rapidjson::GenericPointer<JsonValue> pointer(op.pointer.data(), op.pointer.size());
    if (!pointer.IsValid()) continue;
    if (op.kind == OpKind::kRemove) {
      pointer.Erase(object);
      continue;
    }
    JsonValue copy(op.value, allocator);
    pointer.Set(object, copy, allocator);  // "-" appends, as `add …/-` does
  }
}

void JsonPatch::render(std::string& out) const {
  StringOutput stream{out};
  // The writer's nesting stack in a pool on our stack (RapidJSON would malloc it).
  alignas(std::max_align_t) char levels[1024];
  JsonAllocator level_allocator(levels, sizeof levels);
  rapidjson::Writer<StringOutput, rapidjson::UTF8<>, rapidjson::UTF8<>, JsonAllocator> writer(
      stream, &level_allocator);
  writer.StartArray();
  for (const Op& op : ops()) {
    writer.StartObject();
    writer.Key("op");
    writer.String(op.kind == OpKind::kAdd       ? "add"
                  : op.kind == OpKind::kReplace ? "replace"
                                                : "remove");
    writer.Key("path");
    writer.String(op.pointer.data(), static_cast<rapidjson::SizeType>(op.pointer.size()));
    if (op.kind != OpKind::kRemove) {
      writer.Key("value");
      op.value.Accept(writer);
    }
    writer.EndObject();
  }
  writer.EndArray();
}

}  // namespace kpw
