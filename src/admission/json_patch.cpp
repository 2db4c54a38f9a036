#include "admission/json_patch.hpp"

#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <utility>

namespace kpw {
namespace {

using Segment = FieldPath::Segment;

std::string pointer_of(const std::vector<Segment>& segs, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back('/');
    if (segs[i].kind == FieldPath::Kind::kIndex) {
      out += std::to_string(segs[i].index);
    } else {
      append_pointer_token(out, segs[i].name);
    }
  }
  return out;
}

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

JsonPatch::JsonPatch() = default;

void JsonPatch::reset(const JsonValue* object) {
  object_ = object;
  ops_.clear();
  values_.SetNull();
  values_.GetAllocator().Clear();
}

void JsonPatch::set(const FieldPath& path, std::int64_t value) {
  put(path, JsonValue(static_cast<int64_t>(value)), false);
}

void JsonPatch::set(const FieldPath& path, bool value) { put(path, JsonValue(value), false); }

void JsonPatch::set(const FieldPath& path, std::string_view value) {
  JsonValue v(value.data(), static_cast<rapidjson::SizeType>(value.size()),
              values_.GetAllocator());
  put(path, std::move(v), false);
}

void JsonPatch::append(const FieldPath& path, std::string_view value) {
  JsonValue v(value.data(), static_cast<rapidjson::SizeType>(value.size()),
              values_.GetAllocator());
  put(path, std::move(v), true);
}

void JsonPatch::put(const FieldPath& path, JsonValue&& value, bool append) {
  auto& alloc = values_.GetAllocator();
  const std::vector<Segment> segs = path.segments();
  const std::string full = pointer_of(segs, segs.size());

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
  for (Op& op : ops_) {
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
      ops_.push_back(Op{kind, pointer_of(segs, i + 1), nest(i + 1)});
      return;
    }
    if (last) {
      if (append) {
        if (!next->IsArray()) return;
        ops_.push_back(Op{OpKind::kAdd, full + "/-", std::move(value)});
      } else {
        ops_.push_back(Op{OpKind::kReplace, full, std::move(value)});
      }
      return;
    }
    cur = next;
  }
}

JsonPatch::Op* JsonPatch::added_parent(const std::string& pointer, std::size_t& depth) {
  for (Op& op : ops_) {
    if (!op.value.IsObject() || pointer.size() <= op.pointer.size() ||
        pointer.compare(0, op.pointer.size(), op.pointer) != 0 ||
        pointer[op.pointer.size()] != '/') {
      continue;
    }
    depth = 0;
    for (char c : op.pointer) depth += c == '/';
    return &op;
  }
  return nullptr;
}

void JsonPatch::remove(const FieldPath& path) {
  const std::vector<Segment> segs = path.segments();
  const std::string full = pointer_of(segs, segs.size());
  for (auto op = ops_.begin(); op != ops_.end(); ++op) {
    if (op->pointer != full) continue;
    if (op->kind == OpKind::kAdd) {
      ops_.erase(op);  // it was absent: nothing to remove
    } else {
      op->kind = OpKind::kRemove;
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
  if (cur != nullptr) ops_.push_back(Op{OpKind::kRemove, full, JsonValue()});
}

void JsonPatch::apply_to(JsonValue& object, JsonAllocator& allocator) const {
  for (const Op& op : ops_) {
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
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  for (const Op& op : ops_) {
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
  out.append(buffer.GetString(), buffer.GetSize());
}

}  // namespace kpw
