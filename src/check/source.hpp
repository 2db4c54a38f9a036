// Policy files for the offline `check` command: YAML (multi-document, anchors, `kind: List`) or
// JSON, turned into JSON documents that remember where each field was written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "check/positions.hpp"
#include "json/json.hpp"

namespace kpw::check {

// A key written twice in one map of an object: the server's JSON reader refuses a body with one
// (json.cpp, "duplicate JSON key"), where YAML readers keep the last value.
struct DuplicateKey {
  Position at;        // of its second occurrence
  std::string field;  // its path in the object: `metadata.labels.app`
  std::string key;    // as the server echoes it: a JSON string, cut at kMaxEchoedBytes
};

// One object of a file, as the API server would receive it.
struct SourceObject {
  // The duplicate keys an object keeps (the others are counted): as many as an ErrorList shows.
  static constexpr std::size_t kMaxDuplicateKeys = 100;

  std::size_t document = 0;  // index of the YAML document in its file (0-based)
  std::unique_ptr<JsonDocument> json;
  Position start;  // where the object begins
  FieldPositions positions;
  std::vector<DuplicateKey> duplicate_keys;  // in the order they are written
  std::size_t duplicate_keys_omitted = 0;

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
  // One per document that does not parse (its objects are not judged; the other documents' are),
  // or per key a `kind: List` writes twice outside its items.
  std::vector<SyntaxError> syntax_errors;
};

// Parses `text` (YAML 1.1 scalars as Kubernetes reads them: yes/no/on/off are booleans, quoted
// scalars are strings). A `kind: List` contributes its `items`. Each document of a stream is
// parsed alone (split at its `---` / `...` markers), so one that does not parse costs only itself.
LoadedFile load(const std::string& text);

}  // namespace kpw::check
