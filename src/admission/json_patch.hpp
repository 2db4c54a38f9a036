// The one RFC 6902 JSON Patch builder: ops against the object as it arrived.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "admission/json.hpp"

namespace kpw {

// Collects the changes a mutator wants and renders them as a JSON Patch that applies to the
// object it was given:
// - `set` writes a value: `add` when the key is absent, `replace` when it holds a value (or null);
// - a missing parent object is created by one `add` of the outermost missing one, holding every
//   value set below it (never an `add` below a parent that does not exist);
// - `remove` drops a member that is there;
// - pointer tokens are escaped per RFC 6901 (`~0`, `~1`).
// Paths are FieldPaths from the object root (`FieldPath::root("spec")` is `/spec`); an index
// segment must name an existing array element.
class JsonPatch {
 public:
  JsonPatch();
  JsonPatch(const JsonPatch&) = delete;
  JsonPatch& operator=(const JsonPatch&) = delete;

  // Starts a patch against `object` (which must outlive the patch's use).
  void reset(const JsonValue* object);

  void set(const FieldPath& path, std::int64_t value);
  void set(const FieldPath& path, bool value);
  void set(const FieldPath& path, std::string_view value);
  // Appends a string to the array at `path` (`add …/-`), creating the array when absent.
  void append(const FieldPath& path, std::string_view value);
  // Removes the member at `path` (a `remove` op) when the object as it arrived holds it; nothing
  // when it is absent. A value this patch itself set there is dropped instead.
  void remove(const FieldPath& path);

  bool empty() const { return used_ == 0; }
  // `[{"op":"add","path":"/spec/priority","value":0}, …]`, appended to `out`.
  void render(std::string& out) const;
  // Applies the ops to `object` (the object the patch was reset to, or a copy of it), as the API
  // server would; the offline `check` command stores objects this way.
  void apply_to(JsonValue& object, JsonAllocator& allocator) const;

 private:
  enum class OpKind { kAdd, kReplace, kRemove };
  struct Op {
    OpKind kind;
    std::string pointer;
    JsonValue value;
  };
  std::span<Op> ops() { return {ops_.data(), used_}; }
  std::span<const Op> ops() const { return {ops_.data(), used_}; }
  // A new last op. Ops are kept from patch to patch, so their pointers reuse their capacity.
  Op& add_op(OpKind kind, std::string_view pointer, JsonValue&& value);
  void erase_op(std::size_t i);
  void put(const FieldPath& path, JsonValue&& value, bool append);
  // The op whose added object holds `pointer` below it, and how many path segments its own
  // pointer has (where the walk inside its value starts); nullptr when there is none.
  Op* added_parent(std::string_view pointer, std::size_t& depth);

  const JsonValue* object_ = nullptr;
  // Owns the values of every op; its first chunk is ours, so a typical patch allocates nothing.
  alignas(std::max_align_t) char chunk_[8 * 1024];
  JsonAllocator allocator_;
  std::vector<Op> ops_;  // [0, used_) are this patch's ops
  std::size_t used_ = 0;
  // Scratch for put/remove: the path's segments and its pointer (whole, and a prefix of it).
  std::vector<FieldPath::Segment> segments_;
  std::string pointer_;
  std::string prefix_;
};

// Appends the RFC 6901 escape of one reference token.
void append_pointer_token(std::string& out, std::string_view token);

// Standard base64 (RFC 4648, with padding), as `response.patch` carries it.
void append_base64(std::string& out, std::string_view bytes);

}  // namespace kpw
