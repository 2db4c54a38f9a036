#include "check/positions.hpp"

#include <algorithm>

#include "util/hash.hpp"

namespace kpw::check {
namespace {

// Field paths are fingerprinted with a polynomial hash modulo 2^61 - 1, which can be extended a
// character at a time (locate fingerprints every prefix of a field in one pass), with bases drawn
// from the project's keyed hash (util/hash.hpp), so a file cannot be written to make them collide
// and the table stays expected O(1) per lookup on hostile input.
constexpr std::uint64_t kMersenne61 = (std::uint64_t{1} << 61) - 1;

std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  const std::uint64_t r =
      (static_cast<std::uint64_t>(p) & kMersenne61) + static_cast<std::uint64_t>(p >> 61);
  return r >= kMersenne61 ? r - kMersenne61 : r;
}

// Two independent bases, for fingerprints that need more than 61 bits.
struct HashBases {
  std::uint64_t a, b;
};

const HashBases& hash_bases() {
  static const HashBases bases = [] {
    constexpr std::uint64_t kLow = std::uint64_t{1} << 32;
    const std::uint64_t a = kLow + keyed_hash(1, "check: path base") % (kMersenne61 - kLow);
    const std::uint64_t b = kLow + keyed_hash(2, "check: path base") % (kMersenne61 - kLow);
    return HashBases{a, b};
  }();
  return bases;
}

// `h` extended by `text`, with base `base`.
std::uint64_t extend_hash(std::uint64_t h, std::uint64_t base, std::string_view text) {
  for (const char c : text) {
    h = mul_mod(h, base) + static_cast<unsigned char>(c) + 1;
    if (h >= kMersenne61) h -= kMersenne61;
  }
  return h;
}

}  // namespace

FieldPositions::Fingerprint FieldPositions::extend(Fingerprint f, std::string_view more) {
  const HashBases& bases = hash_bases();
  return Fingerprint{extend_hash(f.a, bases.a, more), extend_hash(f.b, bases.b, more)};
}

void FieldPositions::add(Fingerprint path, Position at) {
  if (2 * (used_ + 1) > slots_.size()) {
    std::vector<Slot> old(std::max<std::size_t>(8, 2 * slots_.size()));
    old.swap(slots_);
    used_ = 0;
    for (const Slot& s : old) {
      if (s.path.a != 0) add(Fingerprint{s.path.a & ~kUsed, s.path.b}, s.at);
    }
  }
  const std::uint64_t tag = path.a | kUsed;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = path.a & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.path.a == 0) {
      s = Slot{Fingerprint{tag, path.b}, at};
      ++used_;
      return;
    }
    if (s.path.a == tag && s.path.b == path.b) return;  // written twice: the first place is kept
  }
}

const Position* FieldPositions::find(Fingerprint path) const {
  if (slots_.empty()) return nullptr;
  const std::uint64_t tag = path.a | kUsed;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = path.a & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.path.a == 0) return nullptr;
    if (s.path.a == tag && s.path.b == path.b) return &s.at;
  }
}

}  // namespace kpw::check
