// Which elements of a list were seen before, in expected O(1) per element: the one way "unique"
// rules find duplicates (never by comparing each element with every earlier one).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "util/block_cache.hpp"
#include "util/hash.hpp"

namespace kpw {

// Texts come from the tenant: a keyed hash, so none can be crafted to collide (util/hash.hpp).
inline std::uint64_t hash_text(std::string_view text) { return keyed_hash(text); }

// Folds `next` into `seed` (for keys made of several texts).
inline std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t next) {
  return seed ^ (next + 0x9E3779B97F4A7C15ULL + (seed << 6) + (seed >> 2));
}

// A hash table of list elements by index. Small lists stay in an inline table (no heap); larger
// ones grow a table of the block cache, doubling at half load.
class SeenSet {
 public:
  SeenSet() = default;
  SeenSet(const SeenSet&) = delete;
  SeenSet& operator=(const SeenSet&) = delete;
  ~SeenSet() { free_heap(); }

  struct Seen {
    std::size_t first;   // index of the first element equal to this one (itself when new)
    std::size_t before;  // how many equal elements came before this one
    bool repeated() const { return before > 0; }
  };

  // Records element `index`, whose key is `text` (compared byte for byte).
  Seen record(std::string_view text, std::size_t index) {
    return insert(hash_text(text), index, text, [](std::size_t) { return true; });
  }

  // Records element `index` with a key of the caller's: `hash` of it, and `same(j)` telling
  // whether earlier element j (one with the same hash) has an equal key.
  template <typename Same>
  Seen record(std::uint64_t hash, std::size_t index, Same same) {
    return insert(hash, index, std::string_view{}, same);
  }

  std::size_t size() const { return used_; }

 private:
  struct Entry {
    std::uint64_t hash = 0;
    std::string_view text;
    std::size_t first = 0;
    std::size_t count = 0;  // 0: empty slot
  };
  static constexpr std::size_t kInline = 16;

  template <typename Same>
  Seen insert(std::uint64_t hash, std::size_t index, std::string_view text, Same same) {
    if (2 * (used_ + 1) > capacity()) grow();
    Entry* table = slots();
    const std::size_t mask = capacity() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      Entry& e = table[i];
      if (e.count == 0) {
        e = Entry{hash, text, index, 1};
        ++used_;
        return Seen{index, 0};
      }
      if (e.hash == hash && e.text == text && same(e.first)) return Seen{e.first, e.count++};
    }
  }

  Entry* slots() { return heap_ == nullptr ? inline_.data() : heap_; }
  std::size_t capacity() const { return heap_ == nullptr ? kInline : heap_capacity_; }

  // Twice the slots, from the thread's block cache (a review thread reuses its last table).
  void grow() {
    const std::size_t n = capacity() * 2;
    Entry* bigger = static_cast<Entry*>(block_cache::allocate(n * sizeof(Entry)));
    std::uninitialized_value_construct_n(bigger, n);
    const std::size_t mask = n - 1;
    Entry* old = slots();
    for (std::size_t i = 0, end = capacity(); i < end; ++i) {
      if (old[i].count == 0) continue;
      std::size_t j = old[i].hash & mask;
      while (bigger[j].count != 0) j = (j + 1) & mask;
      bigger[j] = old[i];
    }
    free_heap();
    heap_ = bigger;
    heap_capacity_ = n;
  }

  void free_heap() noexcept {
    block_cache::deallocate(heap_, heap_capacity_ * sizeof(Entry));
    heap_ = nullptr;
  }

  std::array<Entry, kInline> inline_{};
  Entry* heap_ = nullptr;  // heap_capacity_ entries, or nullptr while the inline table serves
  std::size_t heap_capacity_ = 0;
  std::size_t used_ = 0;
};

}  // namespace kpw
