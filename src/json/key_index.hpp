// The JSON reader's duplicate-key detection: the keys of the objects being read, and a keyed hash
// table of those of large objects.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "util/hash.hpp"

namespace kpw::json_keys {

// ---- duplicate keys ----
// Each object keeps a 64-bit Bloom filter of its keys and, when it may hold the key being read,
// scans its keys. Past kScanLimit keys nearly every key hits the filter, and an object of k keys
// would cost O(k^2) (a 3 MiB body holds ~500 000 keys), so from there the object's keys are found
// through the thread's KeyIndex instead.

inline constexpr std::size_t kScanLimit = 16;

// A key of an object being read. Its fingerprint packs the key's length (low 32 bits) with its
// first and last bytes, or, once the object is indexed, with its hash (high 32 bits), so the bytes
// are compared only for a likely repeat.
struct SeenKey {
  std::uint64_t fingerprint;
  const char* text;
};

inline std::uint64_t fingerprint(std::string_view key) {
  if (key.empty()) return 0;
  return std::uint64_t{key.size()} | std::uint64_t{static_cast<unsigned char>(key.front())} << 32 |
         std::uint64_t{static_cast<unsigned char>(key.back())} << 40;
}

// An open-addressing hash table (linear probing, at most half full) of the keys of the indexed
// objects being read: an outer object and the objects it holds can be indexed at once, and their
// entries share the table. An entry names its key by index in the reader's key stack, so the
// current object's entries are those at or past its first key; an object's entries leave the
// table when it ends. One per thread, kept across reads: once grown it allocates nothing, and it
// is as large as the most keys indexed at once, which is linear in the text.
class KeyIndex {
 public:
  // The keys come from the tenant: keyed_hash (util/hash.hpp) leaves them no collisions to aim
  // at. The object (its first key's index) is hashed too, so that the same keys in objects nested
  // in one another do not share slots.
  static std::uint32_t hash(std::size_t object, std::string_view key) {
    return static_cast<std::uint32_t>(keyed_hash(object, key));
  }

  static std::uint64_t indexed_fingerprint(std::uint32_t h, std::string_view key) {
    return std::uint64_t{h} << 32 | static_cast<std::uint32_t>(key.size());
  }

  std::size_t size() const { return used_; }

  // Makes room for `more` entries.
  void reserve(std::size_t more) {
    while ((used_ + more) * 2 > slots_.size()) grow();
  }

  // Enters `key`, the key `index` of the current object (whose first key is `first`), unless
  // `keys` holds an earlier key of that object with the same bytes: then false. `h` is its hash
  // for that object; reserve() must have been called.
  bool insert(std::uint32_t h, std::size_t first, std::size_t index, std::string_view key,
              const std::vector<SeenKey>& keys) {
    const std::uint64_t f = indexed_fingerprint(h, key);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = h & mask;; s = (s + 1) & mask) {
      const Slot slot = slots_[s];
      if (slot.key == 0) {
        slots_[s] = Slot{h, static_cast<std::uint32_t>(index + 1)};
        ++used_;
        return true;
      }
      if (slot.hash == h && slot.key - 1 >= first) {
        const SeenKey& seen = keys[slot.key - 1];
        if (seen.fingerprint == f && std::memcmp(seen.text, key.data(), key.size()) == 0) {
          return false;
        }
      }
    }
  }

  // Empties the table when it holds exactly `entries` entries that fill an eighth of it or more
  // (clearing it costs its size, erasing them one by one a random access each); false otherwise.
  bool wipe_if_only(std::size_t entries) {
    if (entries != used_ || entries * 8 < slots_.size()) return false;
    std::fill(slots_.begin(), slots_.end(), Slot{});
    used_ = 0;
    return true;
  }

  // Removes the entry of key `index`, whose hash is `h`, if there is one. Later entries of its run
  // move back (Knuth's algorithm R), so no probe ever crosses a hole: no tombstones pile up.
  void erase(std::uint32_t h, std::size_t index) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t hole = h & mask;
    for (;; hole = (hole + 1) & mask) {
      if (slots_[hole].key == 0) return;
      if (slots_[hole].key == index + 1) break;
    }
    for (std::size_t s = (hole + 1) & mask; slots_[s].key != 0; s = (s + 1) & mask) {
      // The entry at s stays unless its home is cyclically outside (hole, s].
      const std::size_t home = slots_[s].hash & mask;
      if (((s - home) & mask) >= ((s - hole) & mask)) {
        slots_[hole] = slots_[s];
        hole = s;
      }
    }
    slots_[hole] = Slot{};
    --used_;
  }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    // The key's index plus one, 0 for an empty slot: 32 bits, as the document's sizes are.
    std::uint32_t key = 0;
  };

  [[gnu::noinline]] void grow() {
    const std::vector<Slot> old =
        std::exchange(slots_, std::vector<Slot>(std::max<std::size_t>(64, slots_.size() * 2)));
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.key == 0) continue;
      std::size_t s = slot.hash & mask;
      while (slots_[s].key != 0) s = (s + 1) & mask;
      slots_[s] = slot;
    }
  }

  std::vector<Slot> slots_;  // a power of two in size, or empty
  std::size_t used_ = 0;
};

// What the reader keeps of one thread's reads.
struct KeyState {
  std::vector<SeenKey> keys;  // of the objects being read, innermost last
  KeyIndex index;
};

}  // namespace kpw::json_keys
