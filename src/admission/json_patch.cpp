#include "admission/json_patch.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace kpw {
namespace {

using Segment = FieldPath::Segment;

// Beyond these, `reset` releases the ops and the index: a thread that once built a huge patch
// does not keep hundreds of MB for the small patches that follow (typical patches have a handful
// of ops and keep theirs, so the steady state allocates nothing).
constexpr std::size_t kRetainedOps = 4096;
constexpr std::size_t kRetainedSlots = 2 * kRetainedOps;

// About the size of `value` as rendered (for kMaxBytes); recursion bounded by the reader's depth.
std::size_t rendered_bytes(const JsonValue& value) {
  if (value.IsString()) return value.GetStringLength() + 2;
  if (value.IsObject()) {
    std::size_t n = 2;
    for (auto m = value.MemberBegin(); m != value.MemberEnd(); ++m) {
      n += m->name.GetStringLength() + 4 + rendered_bytes(m->value);
    }
    return n;
  }
  if (value.IsArray()) {
    std::size_t n = 2;
    for (const JsonValue& e : value.GetArray()) n += 1 + rendered_bytes(e);
    return n;
  }
  return 8;
}

// A deep copy of `value` whose strings are the patch's own (RapidJSON's copy keeps references to
// the request's strings).
JsonValue copy_of(const JsonValue& value, JsonAllocator& allocator) {
  if (value.IsString()) return JsonValue(value.GetString(), value.GetStringLength(), allocator);
  if (value.IsObject()) {
    JsonValue out(rapidjson::kObjectType);
    for (auto m = value.MemberBegin(); m != value.MemberEnd(); ++m) {
      out.AddMember(copy_of(m->name, allocator), copy_of(m->value, allocator), allocator);
    }
    return out;
  }
  if (value.IsArray()) {
    JsonValue out(rapidjson::kArrayType);
    out.Reserve(value.Size(), allocator);
    for (const JsonValue& e : value.GetArray()) out.PushBack(copy_of(e, allocator), allocator);
    return out;
  }
  return JsonValue(value, allocator);
}

}  // namespace

JsonPatch::JsonPatch(std::size_t max_bytes)
    : allocator_(chunk_, sizeof(chunk_)), max_bytes_(max_bytes) {}

void JsonPatch::reset(const JsonValue* object) {
  object_ = object;
  used_ = 0;
  live_ = 0;
  added_object_ = false;
  bytes_ = 0;
  too_large_ = false;
  allocator_.Clear();
  if (ops_.capacity() > kRetainedOps) std::vector<Op>().swap(ops_);
  if (slots_.size() > kRetainedSlots) std::vector<Slot>().swap(slots_);
  indexed_ = false;
  slots_used_ = 0;
  walked_.clear();
  walked_pointer_.clear();
  if (++generation_ == 0) {
    // Once in 2^32 patches the stamps wrap: clear them for real.
    for (Slot& slot : slots_) slot.generation = 0;
    generation_ = 1;
  }
}

void JsonPatch::set(const FieldPath& path, std::int64_t value) {
  put(path, JsonValue(static_cast<int64_t>(value)), false);
}

void JsonPatch::set(const FieldPath& path, bool value) { put(path, JsonValue(value), false); }

void JsonPatch::set(const FieldPath& path, std::string_view value) {
  JsonValue v(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator_);
  put(path, std::move(v), false);
}

void JsonPatch::set_empty_object(const FieldPath& path) {
  put(path, JsonValue(rapidjson::kObjectType), false);
}

void JsonPatch::set_null(const FieldPath& path) { put(path, JsonValue(), false); }

void JsonPatch::set(const FieldPath& path, const JsonValue& value) {
  if (too_large_) return;
  put(path, copy_of(value, allocator_), false, rendered_bytes(value));
}

void JsonPatch::append(const FieldPath& path, std::string_view value) {
  JsonValue v(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator_);
  put(path, std::move(v), true);
}

const JsonValue* JsonPatch::resume_walk(std::size_t& depth) {
  const std::size_t segments = prefixes_.size() - 1;
  const std::size_t limit = std::min(pointer_.size(), walked_pointer_.size());
  std::size_t same = 0;
  while (same < limit && pointer_[same] == walked_pointer_[same]) ++same;
  // Whole segments in common, of the same kind; the last segment is always looked up afresh.
  std::size_t k = 0;
  while (k < walked_.size() && k + 1 < segments && walked_[k].end <= same &&
         walked_[k].end == prefixes_[k + 1].end &&
         walked_[k].index == (segments_[k].kind == FieldPath::Kind::kIndex)) {
    ++k;
  }
  walked_.resize(k);
  walked_pointer_.resize(k == 0 ? 0 : walked_[k - 1].end);
  depth = k;
  return k == 0 ? object_ : walked_[k - 1].node;
}

void JsonPatch::walked_to(const JsonValue* node) {
  const std::size_t k = walked_.size() + 1;
  const std::size_t end = prefixes_[k].end;
  walked_pointer_.append(pointer_, walked_pointer_.size(), end - walked_pointer_.size());
  walked_.push_back(WalkStep{end, segments_[k - 1].kind == FieldPath::Kind::kIndex, node});
}

bool JsonPatch::within_bounds(std::size_t value_bytes) {
  if (too_large_) return false;
  bytes_ += pointer_.size() + value_bytes + kOpBytes;
  too_large_ = bytes_ > max_bytes_;
  return !too_large_;
}

void JsonPatch::put(const FieldPath& path, JsonValue&& value, bool append,
                    std::size_t value_bytes) {
  auto& alloc = allocator_;
  if (too_large_) return;
  prepare(path);
  if (value_bytes == kStringBytes) value_bytes = value.IsString() ? value.GetStringLength() : 0;
  if (!within_bounds(value_bytes)) return;
  const std::vector<Segment>& segs = segments_;

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
  if (Op* op = first_op()) {
    if (op->kind == OpKind::kRemove) {
      // Removed, then set again: the member was there (remove drops only what is), so the set
      // replaces it (an append to a removed array replaces it with the one element).
      op->kind = OpKind::kReplace;
      op->value = append ? nest(segs.size()) : std::move(value);
    } else if (append && op->value.IsArray()) {
      op->value.PushBack(value, alloc);
    } else if (!append) {
      op->value = std::move(value);
    }
    return;
  }

  // Below an object this patch already adds: write into that op's value.
  std::size_t depth = 0;
  if (Op* parent = added_parent(depth)) {
    JsonValue* cur = &parent->value;
    for (std::size_t i = depth; i < segs.size(); ++i) {
      if (segs[i].kind == FieldPath::Kind::kIndex || !cur->IsObject()) return;
      JsonValue* next = find_member(*cur, segs[i].name);
      if (next == nullptr) {
        JsonValue nested = nest(i + 1);
        cur->AddMember(JsonValue(segs[i].name.data(),
                                 static_cast<rapidjson::SizeType>(segs[i].name.size()), alloc),
                       nested, alloc);
        return;
      }
      if (i + 1 == segs.size()) {
        if (append && next->IsArray()) {
          next->PushBack(value, alloc);
        } else {
          *next = nest(i + 1);
        }
        return;
      }
      cur = next;
    }
    return;
  }

  // Walk the object as it arrived to find the outermost missing parent.
  std::size_t from = 0;
  const JsonValue* cur = resume_walk(from);
  for (std::size_t i = from; i < segs.size(); ++i) {
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
      add_op(kind, i + 1, false, nest(i + 1));
      return;
    }
    if (last) {
      if (append) {
        if (!next->IsArray()) return;
        add_op(OpKind::kAdd, segs.size(), true, std::move(value));
      } else {
        add_op(OpKind::kReplace, segs.size(), false, std::move(value));
      }
      return;
    }
    cur = next;
    walked_to(cur);
  }
}

void JsonPatch::remove(const FieldPath& path) {
  if (too_large_) return;
  prepare(path);
  if (!within_bounds(0)) return;
  const std::vector<Segment>& segs = segments_;
  if (Op* op = first_op()) {
    if (op->kind == OpKind::kAdd) {
      drop(*op);  // it was absent: nothing to remove
    } else {
      op->kind = OpKind::kRemove;
    }
    return;
  }
  // Below an object this patch adds: drop the member from that value.
  std::size_t depth = 0;
  if (Op* parent = added_parent(depth)) {
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
  std::size_t from = 0;
  const JsonValue* cur = resume_walk(from);
  for (std::size_t i = from; i < segs.size(); ++i) {
    const Segment& seg = segs[i];
    if (cur == nullptr) return;
    if (seg.kind == FieldPath::Kind::kIndex) {
      if (!cur->IsArray() || seg.index >= cur->Size()) return;
      cur = &(*cur)[static_cast<rapidjson::SizeType>(seg.index)];
    } else {
      if (!cur->IsObject()) return;
      cur = find_member(*cur, seg.name);
    }
    // Only what a set walks through: a set reaching a null there replaces it.
    if (cur != nullptr && !cur->IsNull() && i + 1 < segs.size()) walked_to(cur);
  }
  if (cur != nullptr) add_op(OpKind::kRemove, segs.size(), false, JsonValue());
}

void JsonPatch::render(std::string& out) const {
  // Written directly, strings by the one escaper (a run without escapes copied whole): through
  // RapidJSON's Writer, one character at a time, rendering was a quarter of a Work's mutation.
  out += '[';
  bool first = true;
  for (const Op& op : ops()) {
    if (!op.live) continue;
    if (!first) out += ',';
    first = false;
    out += op.kind == OpKind::kAdd       ? R"({"op":"add","path":)"
           : op.kind == OpKind::kReplace ? R"({"op":"replace","path":)"
                                         : R"({"op":"remove","path":)";
    append_json_string(out, op.pointer);
    if (op.kind != OpKind::kRemove) {
      out += R"(,"value":)";
      append_compact_json(out, op.value, false);
    }
    out += '}';
  }
  out += ']';
}

}  // namespace kpw
