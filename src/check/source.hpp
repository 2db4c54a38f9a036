// Policy files for the offline `check` command: YAML (multi-document, anchors, `kind: List`) or
// JSON, turned into JSON documents that remember where each field was written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.hpp"

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
  std::size_t size() const { return used_; }

 private:
  static constexpr std::uint64_t kUsed = std::uint64_t{1} << 63;  // in Slot::path.a: in use
  struct Slot {
    Fingerprint path;
    Position at;
  };
  std::vector<Slot> slots_;  // open addressing, at most half full
  std::size_t used_ = 0;
};

// One object of a file, as the API server would receive it.
struct SourceObject {
  std::size_t document = 0;  // index of the YAML document in its file (0-based)
  std::unique_ptr<JsonDocument> json;
  Position start;  // where the object begins
  FieldPositions positions;

  // The position of `field`, else of its nearest parent that exists in the source.
  Position locate(const std::string& field) const;
};

struct SyntaxError {
  Position position;
  std::string message;
};

struct LoadedFile {
  // The memory of all the objects of the file: one pool, as a pool per object took a page or more
  // for any object (a 64 KiB chunk each), hundreds of times the size of a file of small objects.
  std::unique_ptr<JsonAllocator> pool;
  std::vector<SourceObject> objects;
  std::optional<SyntaxError> syntax_error;  // nothing is judged in a file that does not parse
};

// Parses `text` (YAML 1.1 scalars as Kubernetes reads them: yes/no/on/off are booleans, quoted
// scalars are strings). A `kind: List` contributes its `items`.
LoadedFile load(const std::string& text);

// True when `text` written as a plain YAML scalar reads back as this string (not as null, a
// boolean or a number), so an emitter may leave it unquoted.
bool plain_scalar_is_string(const std::string& text);

}  // namespace kpw::check
