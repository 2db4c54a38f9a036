// JsonPatch's lookup of ops by pointer: a patch's path as a pointer with the hash of each of its
// prefixes, the scan of a small patch and the hash index of a larger one.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>

#include "admission/json_patch.hpp"
#include "json/json_pointer.hpp"

namespace kpw {
namespace {

using Segment = FieldPath::Segment;

// Extends the hash of a pointer by one more reference token (as escaped in the pointer). A
// pointer hashes token by token, so every prefix of it ending before a '/' has its hash on the
// way, and a prefix lookup costs no rehashing.
std::uint64_t extend_hash(std::uint64_t h, std::string_view token) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  auto mix = [&](std::uint64_t word) {
    h = (h ^ word) * kMul;
    h ^= h >> 32;
  };
  mix(token.size());  // the token boundary: "/ab" and "/a/b" differ
  std::size_t i = 0;
  for (; i + 8 <= token.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, token.data() + i, 8);
    mix(word);
  }
  if (i < token.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, token.data() + i, token.size() - i);
    mix(word);
  }
  return h;
}

constexpr std::uint64_t kRootHash = 0x243F6A8885A308D3ULL;

// What the index keeps of a hash.
std::uint32_t fold(std::uint64_t hash) { return static_cast<std::uint32_t>(hash ^ (hash >> 32)); }

constexpr std::size_t kMinSlots = 64;

// Up to this many ops (every ordinary review: a mutator sets a handful), a lookup compares the
// pointer with each op's: hashing it would cost more (the hash's multiplies are a dependent chain,
// ~50 ns a pointer). The index is built when the patch grows past it.
constexpr std::size_t kScanOps = 8;

// The hash of a whole pointer, token by token as prefix_hash makes it.
std::uint64_t hash_pointer(std::string_view pointer) {
  std::uint64_t hash = kRootHash;
  for (std::size_t at = 0; at < pointer.size();) {
    const std::size_t from = at + 1;  // past the '/'
    std::size_t to = pointer.find('/', from);
    if (to == std::string_view::npos) to = pointer.size();
    hash = extend_hash(hash, pointer.substr(from, to - from));
    at = to;
  }
  return hash;
}

}  // namespace

std::size_t JsonPatch::probe(std::string_view pointer, std::uint32_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = (hash ^ (hash >> 15)) & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.generation != generation_) return i;
    if (slot.hash == hash && ops_[slot.tail].pointer == pointer) return i;
  }
}

JsonPatch::Slot* JsonPatch::find_slot(std::string_view pointer, std::uint64_t hash) {
  if (slots_used_ == 0) return nullptr;
  Slot& slot = slots_[probe(pointer, fold(hash))];
  return slot.generation == generation_ ? &slot : nullptr;
}

void JsonPatch::grow_index() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(std::max(kMinSlots, 2 * old.size()), Slot{0, 0, kNone, kNone});
  for (const Slot& slot : old) {
    if (slot.generation != generation_) continue;
    slots_[probe(ops_[slot.tail].pointer, slot.hash)] = slot;
  }
}

JsonPatch::Op* JsonPatch::first_op() {
  const std::string_view full = pointer_;
  if (!indexed_) {
    for (std::size_t i = 0; i < used_; ++i) {
      if (ops_[i].live && ops_[i].pointer == full) return &ops_[i];
    }
    return nullptr;
  }
  Slot* slot = find_slot(full, prefix_hash(prefixes_.size() - 1));
  return slot == nullptr || slot->head == kNone ? nullptr : &ops_[slot->head];
}

void JsonPatch::drop(Op& op) {
  op.live = false;
  --live_;
  if (!indexed_) return;
  // `op` is the first live op at pointer_ (first_op found it): the head of its slot.
  Slot& slot = *find_slot(pointer_, prefix_hash(prefixes_.size() - 1));
  slot.head = slot.head == slot.tail ? kNone : op.next;
}

void JsonPatch::add_op(OpKind kind, std::size_t k, bool dash, JsonValue&& value) {
  if (used_ == ops_.size()) ops_.push_back(Op{kind, false, kNone, {}, JsonValue()});
  const auto index = static_cast<std::uint32_t>(used_++);
  Op& op = ops_[index];
  op.kind = kind;
  op.live = true;
  op.next = kNone;
  op.pointer.assign(pointer_, 0, prefixes_[k].end);
  if (dash) op.pointer.append("/-");
  op.value = std::move(value);
  ++live_;
  added_object_ = added_object_ || op.value.IsObject();
  if (indexed_) {
    const std::uint64_t hash = prefix_hash(k);
    index_op(index, dash ? extend_hash(hash, "-") : hash);
  } else if (used_ > kScanOps) {
    indexed_ = true;
    for (std::size_t i = 0; i < used_; ++i) {
      if (ops_[i].live) index_op(static_cast<std::uint32_t>(i), hash_pointer(ops_[i].pointer));
    }
  }
}

void JsonPatch::index_op(std::uint32_t index, std::uint64_t hash) {
  if (2 * (slots_used_ + 1) > slots_.size()) grow_index();
  Slot& slot = slots_[probe(ops_[index].pointer, fold(hash))];
  if (slot.generation != generation_) {
    slot = Slot{fold(hash), generation_, index, index};
    ++slots_used_;
  } else if (slot.head == kNone) {
    slot.head = slot.tail = index;
  } else {
    ops_[slot.tail].next = index;
    slot.tail = index;
  }
}

void JsonPatch::prepare(const FieldPath& path) {
  path.segments(segments_);
  pointer_.clear();
  prefixes_.clear();
  prefixes_.push_back(Prefix{0, kRootHash});
  for (const Segment& seg : segments_) {
    pointer_.push_back('/');
    if (seg.kind == FieldPath::Kind::kIndex) {
      char digits[20];
      const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, seg.index);
      pointer_.append(digits, end);
    } else {
      append_pointer_token(pointer_, seg.name);
    }
    prefixes_.push_back(Prefix{pointer_.size(), 0});
  }
  hashed_ = 0;
}

std::uint64_t JsonPatch::prefix_hash(std::size_t k) {
  for (; hashed_ < k; ++hashed_) {
    const std::size_t from = prefixes_[hashed_].end + 1;  // past the '/'
    prefixes_[hashed_ + 1].hash =
        extend_hash(prefixes_[hashed_].hash,
                    std::string_view(pointer_).substr(from, prefixes_[hashed_ + 1].end - from));
  }
  return prefixes_[k].hash;
}

JsonPatch::Op* JsonPatch::added_parent(std::size_t& depth) {
  if (!added_object_) return nullptr;
  if (!indexed_) {
    for (std::size_t i = 0; i < used_; ++i) {
      Op& op = ops_[i];
      const std::size_t n = op.pointer.size();
      if (!op.live || !op.value.IsObject() || pointer_.size() <= n ||
          pointer_.compare(0, n, op.pointer) != 0 || pointer_[n] != '/') {
        continue;
      }
      depth = static_cast<std::size_t>(std::count(op.pointer.begin(), op.pointer.end(), '/'));
      return &op;
    }
    return nullptr;
  }
  // Each proper prefix of the pointer that ends before a '/', shortest first. The ops holding an
  // object are never below one another (a set below one writes into it), and at one pointer only
  // the last op made can hold one (a new op there needs the earlier ones not to), so the first
  // hit is the op the scan above finds.
  for (std::size_t k = 1; k + 1 < prefixes_.size(); ++k) {
    Slot* slot = find_slot(std::string_view(pointer_).substr(0, prefixes_[k].end), prefix_hash(k));
    if (slot == nullptr || slot->head == kNone) continue;
    Op& op = ops_[slot->tail];
    if (!op.value.IsObject()) continue;
    depth = k;
    return &op;
  }
  return nullptr;
}

}  // namespace kpw
