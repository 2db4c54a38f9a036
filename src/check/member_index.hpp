// The members of a map being read from YAML, by name, for `check`'s loader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "json/json.hpp"
#include "util/hash.hpp"

namespace kpw::check {

// The members of a map being read, by name, so that a repeated key or a `<<` merge finds an
// existing member in expected O(1) (RapidJSON's FindMember compares with every member: a map of n
// keys cost O(n²)). A small map is scanned; past kScanned members a hash table of member indices
// is kept beside it, under the project's keyed hash (util/hash.hpp), which a file cannot be
// written to make collide.
class MemberIndex {
 public:
  static constexpr rapidjson::SizeType kNone = ~rapidjson::SizeType{0};

  // The index of the member of `map` named `name`, else kNone.
  rapidjson::SizeType find(const JsonValue& map, std::string_view name) const {
    if (slots_.empty()) {
      for (rapidjson::SizeType i = 0; i < map.MemberCount(); ++i) {
        if (view((map.MemberBegin() + i)->name) == name) return i;
      }
      return kNone;
    }
    const std::uint64_t hash = hash_of(name);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask; slots_[i].member != kNone; i = (i + 1) & mask) {
      if (slots_[i].hash == hash && view((map.MemberBegin() + slots_[i].member)->name) == name) {
        return slots_[i].member;
      }
    }
    return kNone;
  }

  // The last member of `map` was just added.
  void added(const JsonValue& map) {
    const rapidjson::SizeType count = map.MemberCount();
    if (slots_.empty() && count <= kScanned) return;
    if (2 * count > slots_.size()) {
      // Grown (or built, past kScanned members) from the map itself: O(1) amortized per member.
      std::size_t size = 64;
      while (size < 4 * static_cast<std::size_t>(count)) size *= 2;
      slots_.assign(size, Slot{});
      for (rapidjson::SizeType i = 0; i < count; ++i) insert(map, i);
      return;
    }
    insert(map, count - 1);
  }

 private:
  static constexpr rapidjson::SizeType kScanned = 8;
  struct Slot {
    std::uint64_t hash = 0;
    rapidjson::SizeType member = kNone;  // kNone: a free slot
  };

  static std::uint64_t hash_of(std::string_view name) { return keyed_hash(name); }

  void insert(const JsonValue& map, rapidjson::SizeType member) {
    const std::uint64_t hash = hash_of(view((map.MemberBegin() + member)->name));
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i].member != kNone) i = (i + 1) & mask;
    slots_[i] = Slot{hash, member};
  }

  std::vector<Slot> slots_;
};

}  // namespace kpw::check
