// The one RFC 6902 JSON Patch builder: ops against the object as it arrived.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "json/json.hpp"

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
// Each set, append and remove takes time in the length of its path whatever the patch already
// holds (a hostile object can make a mutator set hundreds of thousands of defaults): beyond a few
// ops, they are found through a hash index of their pointers; a dropped op stays in place, marked,
// so the others keep their order (that of the first set of each target).
class JsonPatch {
 public:
  // `max_bytes`: see kMaxBytes (kUnbounded only for tests that build huge patches on purpose).
  explicit JsonPatch(std::size_t max_bytes = kMaxBytes);
  JsonPatch(const JsonPatch&) = delete;
  JsonPatch& operator=(const JsonPatch&) = delete;

  // Starts a patch against `object` (which must outlive the patch's use).
  void reset(const JsonValue* object);

  void set(const FieldPath& path, std::int64_t value);
  void set(const FieldPath& path, bool value);
  void set(const FieldPath& path, std::string_view value);
  // Sets `{}` (a Go struct's zero value as upstream's round trip writes it).
  void set_empty_object(const FieldPath& path);
  // Sets `null` (a field upstream's mutator sets to Go's nil, e.g. a token Secret's data).
  void set_null(const FieldPath& path);
  // Sets a copy of `value`, whole (a map rewritten as upstream writes it back). Costs its size.
  void set(const FieldPath& path, const JsonValue& value);
  // Appends a string to the array at `path` (`add …/-`), creating the array when absent.
  void append(const FieldPath& path, std::string_view value);
  // Removes the member at `path` (a `remove` op) when the object as it arrived holds it; nothing
  // when it is absent. A value this patch itself set there is dropped instead.
  void remove(const FieldPath& path);

  // A patch stops growing past kMaxBytes (about, as rendered: some 44 000 defaults), and the
  // review is refused instead (service.cpp; the ops made so far are meaningless): building it
  // takes memory in proportion, and a 3 MiB body of a million empty elements asked for 150 MB.
  // No real policy comes near it (an ordinary patch is under 1 KiB).
  static constexpr std::size_t kMaxBytes = 4 * 1024 * 1024;
  static constexpr std::size_t kUnbounded = SIZE_MAX;
  bool too_large() const { return too_large_; }
  // Ops asked for until the patch became too large.
  std::size_t size() const { return used_; }

  bool empty() const { return live_ == 0; }
  // `[{"op":"add","path":"/spec/priority","value":0}, …]`, appended to `out`.
  void render(std::string& out) const;

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  enum class OpKind { kAdd, kReplace, kRemove };
  struct Op {
    OpKind kind;
    // False once `remove` dropped it: dropping in place keeps every other op's index and order.
    bool live;
    std::uint32_t next;  // the next op with the same pointer, or kNone
    std::string pointer;
    JsonValue value;
  };
  // The ops at one pointer, in the index: `head` is the first live one (what a later set or
  // remove of that pointer finds), `tail` the last one made (its pointer is the key). Several ops
  // share a pointer only in odd sequences (an added object overwritten by a scalar, then a set
  // below it again; appends to an existing array), and only the head is ever dropped.
  // 16 bytes: a 1.5 million-op patch (a 3 MiB hostile body) needs a 4 million-slot table.
  struct Slot {
    std::uint32_t hash;        // the pointer's hash folded to 32 bits (where to start, and a check)
    std::uint32_t generation;  // in use in this patch when equal to generation_
    std::uint32_t head;
    std::uint32_t tail;
  };
  // The pointer of the first k path segments ends at `end` in pointer_ and hashes to `hash` (once
  // prefix_hash has reached k).
  struct Prefix {
    std::size_t end;
    std::uint64_t hash;
  };
  std::span<const Op> ops() const { return {ops_.data(), used_}; }
  // A new last op at the pointer of the first k segments of pointer_ (with `/-` after it when
  // `dash`). Ops are kept from patch to patch, so their pointers reuse their capacity.
  void add_op(OpKind kind, std::size_t k, bool dash, JsonValue&& value);
  // Files op `index` in the index under `hash` (of its pointer).
  void index_op(std::uint32_t index, std::uint64_t hash);
  // Drops `op`, the first live op at pointer_.
  void drop(Op& op);
  // The slot of `pointer` in this patch, or nullptr.
  Slot* find_slot(std::string_view pointer, std::uint64_t hash);
  // Where `pointer` is or would go; slots_ must have a free slot.
  std::size_t probe(std::string_view pointer, std::uint32_t hash) const;
  void grow_index();
  // The first live op at pointer_, or nullptr.
  Op* first_op();
  // The hash of the pointer of the first k segments of pointer_ (computed on demand: a patch
  // small enough to be scanned never needs one).
  std::uint64_t prefix_hash(std::size_t k);
  // Segments and pointer of `path` into segments_, pointer_ and prefixes_.
  void prepare(const FieldPath& path);
  // `value_bytes`: its size for kMaxBytes; kStringBytes: a string's length, else nothing.
  static constexpr std::size_t kStringBytes = SIZE_MAX;
  void put(const FieldPath& path, JsonValue&& value, bool append,
           std::size_t value_bytes = kStringBytes);
  // Counts an op at pointer_ with a value of `value_bytes` towards kMaxBytes; false past it.
  bool within_bounds(std::size_t value_bytes);
  // What an op costs beyond its pointer and value: `{"op":"replace","path":"","value":}` and more.
  static constexpr std::size_t kOpBytes = 40;
  // Where the walk of the object as it arrived starts for pointer_: the value at its first
  // `depth` segments, known from the last walk (the object root when none is shared).
  const JsonValue* resume_walk(std::size_t& depth);
  // The walk reached `node` at the first walked_.size() + 1 segments of pointer_ and goes on below
  // it (so neither absent nor null: a set stopping there must still see it).
  void walked_to(const JsonValue* node);
  // The op whose added object holds pointer_ below it, and how many path segments its own
  // pointer has (where the walk inside its value starts); nullptr when there is none.
  Op* added_parent(std::size_t& depth);

  const JsonValue* object_ = nullptr;
  // Owns the values of every op; its first chunk is ours, so a typical patch allocates nothing.
  alignas(std::max_align_t) char chunk_[8 * 1024];
  JsonAllocator allocator_;
  std::vector<Op> ops_;  // [0, used_) are this patch's ops, live_ of them not dropped
  std::size_t used_ = 0;
  std::size_t live_ = 0;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;  // of every op asked for, as rendered, about
  bool too_large_ = false;
  // Whether any op of this patch was made with an object value: until one is, no set can land
  // below an added object and the prefix lookups are skipped.
  bool added_object_ = false;
  // The index from pointer to ops: open addressing over a power-of-two table, at most half full.
  // A slot is in use only when stamped with this patch's generation, so `reset` clears it in
  // O(1) whatever capacity an earlier patch left.
  // Until the patch has more than a few ops it is scanned instead (indexed_ false, slots unused).
  bool indexed_ = false;
  std::vector<Slot> slots_;
  std::size_t slots_used_ = 0;
  std::uint32_t generation_ = 1;
  // The last walk of the object as it arrived: walked_[k - 1] is the value at the first k segments
  // of walked_pointer_ (the pointer up to where that walk went on below a value). A mutator sets
  // fields of one element after another, so consecutive paths share all but their last segment or
  // two; without this, every set looked each segment up again, and a member lookup scans its object
  // (the walk was quadratic in a wide object holding a long array, e.g. many unknown fields beside
  // spreadConstraints).
  struct WalkStep {
    std::size_t end;  // of the first k segments in walked_pointer_
    bool index;       // segment k-1 was an array index (a name `0` does not walk an array)
    const JsonValue* node;
  };
  std::vector<WalkStep> walked_;
  std::string walked_pointer_;
  // Scratch for put/remove: the path's segments, its pointer and where each prefix ends.
  std::vector<FieldPath::Segment> segments_;
  std::string pointer_;
  std::vector<Prefix> prefixes_;
  std::size_t hashed_ = 0;  // prefixes_[0, hashed_] have their hash
};

}  // namespace kpw
