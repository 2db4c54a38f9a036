#include "json/json_patch_apply.hpp"

#include <cstdint>
#include <limits>
#include <vector>

#include "json/json_pointer.hpp"
#include "json/json_reader.hpp"

namespace kpw {
namespace {

// An array index as RFC 6901 writes it: "0", or digits without a leading zero.
bool array_index(std::string_view token, rapidjson::SizeType& out) {
  if (token.empty() || token.size() > 10 || (token.size() > 1 && token[0] == '0')) return false;
  std::uint64_t v = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v >= std::numeric_limits<rapidjson::SizeType>::max()) return false;
  out = static_cast<rapidjson::SizeType>(v);
  return true;
}

// The member or element of `container` that `token` names, or nullptr.
JsonValue* child(JsonValue& container, const std::string& token) {
  if (container.IsObject()) return find_member(container, token);
  rapidjson::SizeType i = 0;
  if (container.IsArray() && array_index(token, i) && i < container.Size()) return &container[i];
  return nullptr;
}

enum class OpKind { kAdd, kRemove, kReplace };

// A deep copy of `v` made with `allocator`, strings and names included: RapidJSON 1.1's copy keeps
// a string it did not allocate as a reference to where it lies, and those of a patch read from text
// point into that text, which is gone once the patch has been applied.
JsonValue copy_of(const JsonValue& v, JsonAllocator& allocator) {
  if (v.IsString()) return JsonValue(v.GetString(), v.GetStringLength(), allocator);
  if (v.IsArray()) {
    JsonValue out(rapidjson::kArrayType);
    out.Reserve(v.Size(), allocator);
    for (const JsonValue& item : v.GetArray()) {
      JsonValue copy = copy_of(item, allocator);
      out.PushBack(copy, allocator);
    }
    return out;
  }
  if (v.IsObject()) {
    JsonValue out(rapidjson::kObjectType);
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      JsonValue name(it->name.GetString(), it->name.GetStringLength(), allocator);
      JsonValue copy = copy_of(it->value, allocator);
      out.AddMember(name, copy, allocator);
    }
    return out;
  }
  return JsonValue(v, allocator);  // a number, a boolean or null
}

class Applier {
 public:
  Applier(JsonValue& doc, JsonAllocator& allocator) : doc_(doc), allocator_(allocator) {}

  std::optional<std::string> apply(const JsonValue& op, std::size_t index) {
    index_ = index;
    name_ = {};
    path_ = {};
    if (!op.IsObject()) return fail("an op must be an object");
    const JsonValue* name = find_member(op, "op");
    const JsonValue* path = find_member(op, "path");
    if (name == nullptr || !name->IsString()) return fail("no \"op\" string");
    name_ = view(*name);
    if (path == nullptr || !path->IsString()) return fail("no \"path\" string");
    path_ = view(*path);
    OpKind kind;
    if (name_ == "add") {
      kind = OpKind::kAdd;
    } else if (name_ == "remove") {
      kind = OpKind::kRemove;
    } else if (name_ == "replace") {
      kind = OpKind::kReplace;
    } else if (name_ == "move" || name_ == "copy" || name_ == "test") {
      return fail("not applied here (a webhook's patch holds add, remove and replace)");
    } else {
      return fail("no such op");
    }
    const JsonValue* value = nullptr;
    if (kind != OpKind::kRemove) {
      value = find_member(op, "value");
      if (value == nullptr) return fail("no \"value\"");
    }
    if (!split_pointer(path_, tokens_)) return fail("the path is no JSON Pointer");
    if (tokens_.empty()) {  // the whole document
      if (kind == OpKind::kRemove) return fail("the whole document cannot be removed");
      doc_ = copy_of(*value, allocator_);
      walked_.clear();
      return std::nullopt;
    }
    JsonValue* parent = walk_to_parent();
    if (parent == nullptr) return fail("its parent does not exist");
    // Only the parent's contents change below: the walk up to it stays valid for the next op.
    const std::string& last = tokens_.back();
    if (parent->IsObject()) {
      JsonValue* target = find_member(*parent, last);
      if (kind == OpKind::kAdd && target == nullptr) {
        JsonValue key(last.data(), static_cast<rapidjson::SizeType>(last.size()), allocator_);
        JsonValue copy = copy_of(*value, allocator_);
        parent->AddMember(key, copy, allocator_);
        return std::nullopt;
      }
      if (target == nullptr) return fail("no such member");
      if (kind == OpKind::kRemove) {
        auto it = parent->MemberBegin();
        while (&it->value != target) ++it;
        parent->EraseMember(it);
      } else {
        *target = copy_of(*value, allocator_);
      }
      return std::nullopt;
    }
    if (!parent->IsArray()) return fail("its parent is neither an object nor an array");
    if (kind == OpKind::kAdd && last == "-") {
      JsonValue copy = copy_of(*value, allocator_);
      parent->PushBack(copy, allocator_);
      return std::nullopt;
    }
    rapidjson::SizeType i = 0;
    if (!array_index(last, i)) return fail("not an array index");
    const rapidjson::SizeType size = parent->Size();
    if (kind == OpKind::kAdd) {
      if (i > size) return fail("index past the end of the array");
      JsonValue null;
      parent->PushBack(null, allocator_);
      for (rapidjson::SizeType k = size; k > i; --k) (*parent)[k].Swap((*parent)[k - 1]);
      (*parent)[i] = copy_of(*value, allocator_);
      return std::nullopt;
    }
    if (i >= size) return fail("no such element");
    if (kind == OpKind::kRemove) {
      parent->Erase(parent->Begin() + i);
    } else {
      (*parent)[i] = copy_of(*value, allocator_);
    }
    return std::nullopt;
  }

 private:
  // The container the path's last token is looked up in, or nullptr. The walk resumes from the
  // last op's where their tokens agree (a patch sets field after field of one element after
  // another; looking the shared parents up again made a wide object cost quadratic time).
  JsonValue* walk_to_parent() {
    const std::size_t depth = tokens_.size() - 1;
    std::size_t k = 0;
    while (k < walked_.size() && k < depth && walked_[k].token == tokens_[k]) ++k;
    walked_.resize(k);
    JsonValue* cur = k == 0 ? &doc_ : walked_[k - 1].value;
    for (; k < depth; ++k) {
      cur = child(*cur, tokens_[k]);
      if (cur == nullptr) return nullptr;
      walked_.push_back(Step{tokens_[k], cur});
    }
    return cur;
  }

  std::optional<std::string> fail(std::string_view why) const {
    std::string out = "op " + std::to_string(index_);
    if (!name_.empty()) {
      out += " (";
      out += name_;
      if (!path_.empty()) {
        out += ' ';
        append_echoed_text(out, path_);
      }
      out += ')';
    }
    out += ": ";
    out += why;
    return out;
  }

  JsonValue& doc_;
  JsonAllocator& allocator_;
  std::size_t index_ = 0;
  std::string_view name_, path_;
  std::vector<std::string> tokens_;
  // The last walk: walked_[k] is the value at the first k + 1 tokens of the last op's path.
  struct Step {
    std::string token;
    JsonValue* value;
  };
  std::vector<Step> walked_;
};

}  // namespace

std::optional<std::string> apply_json_patch(JsonValue& doc, const JsonValue& patch,
                                            JsonAllocator& allocator) {
  if (!patch.IsArray()) return "a JSON Patch must be an array";
  Applier applier(doc, allocator);
  for (rapidjson::SizeType i = 0; i < patch.Size(); ++i) {
    if (auto error = applier.apply(patch[i], i)) return error;
  }
  return std::nullopt;
}

std::optional<std::string> apply_json_patch(JsonValue& doc, std::string_view patch,
                                            JsonAllocator& allocator) {
  std::string text(patch);  // read in place, and the reader needs the NUL after it
  JsonDocument ops;
  const JsonReadResult read = read_json_in_place(text.data(), text.size(), ops);
  if (read.error != JsonReadError::kNone) {
    return "the patch is not JSON (at byte " + std::to_string(read.offset) + ")";
  }
  return apply_json_patch(doc, ops, allocator);
}

}  // namespace kpw
