// Where the fields of a policy file were written, for `check`'s FILE:LINE:COL output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kpw::check {

struct Position {
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based
};

// Where the fields of one object were written (the key for a member, the element for a list
// item), by their path as FieldPath::str() renders it: `spec.placement.clusterAffinities[1]`,
// `metadata.labels.app` (SourceObject::locate finds `metadata.labels[app]` there too), a key
// longer than kMaxEchoedBytes cut as FieldPath cuts it. A path is kept as a 122-bit fingerprint
// (two polynomial hashes modulo 2^61 - 1 with bases drawn at start-up), not as text, so the
// memory is O(fields) however deep the fields and long the keys.
class FieldPositions {
 public:
  struct Fingerprint {
    std::uint64_t a = 0, b = 0;
  };
  // The fingerprint of a path made of the one of `f` followed by `more` ({} is that of "").
  static Fingerprint extend(Fingerprint f, std::string_view more);

  // Records where `path` was written, unless it already was (a repeated key keeps its first place).
  void add(Fingerprint path, Position at);
  const Position* find(Fingerprint path) const;

 private:
  static constexpr std::uint64_t kUsed = std::uint64_t{1} << 63;  // in Slot::path.a: in use
  struct Slot {
    Fingerprint path;
    Position at;
  };
  std::vector<Slot> slots_;  // open addressing, at most half full
  std::size_t used_ = 0;
};

}  // namespace kpw::check
