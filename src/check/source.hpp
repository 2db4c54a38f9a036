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

#include "check/positions.hpp"
#include "json/json.hpp"

namespace kpw::check {

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

}  // namespace kpw::check
