// Policy files for the offline `check` command: YAML (multi-document, anchors, `kind: List`) or
// JSON, turned into JSON documents that remember where each field was written.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "admission/json.hpp"

namespace kpw::check {

struct Position {
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based
};

// One object of a file, as the API server would receive it.
struct SourceObject {
  std::size_t document = 0;  // index of the YAML document in its file (0-based)
  std::unique_ptr<JsonDocument> json;
  Position start;            // where the object begins
  // Field path as FieldPath::str() renders it (`spec.placement.clusterAffinities[1]`) → where it
  // was written (the key for a member, the element for a list item).
  std::unordered_map<std::string, Position> positions;

  // The position of `field`, else of its nearest parent that exists in the source.
  Position locate(const std::string& field) const;
};

struct SyntaxError {
  Position position;
  std::string message;
};

struct LoadedFile {
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
