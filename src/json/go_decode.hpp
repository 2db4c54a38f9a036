// Whether a JSON text decodes, as Go's encoding/json Unmarshal decodes it, into a value of a given
// Go type: JSON that upstream's Go code reads from a string (an annotation) is judged by the
// verdict Go's decoder would give, not by our reader's stricter one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace kpw::go_json {

// The Go types a shape is made of. `null` decodes into every one of them.
enum class Kind : std::uint8_t {
  kString,  // string: a JSON string
  kStruct,  // a struct: a JSON object; members matched to `fields` as Go matches them, the others
            // skipped whatever they hold
  kSlice,   // []element: a JSON array
  kMap,     // map[string]element: a JSON object
};

struct Type;

// A struct field by its JSON name (ASCII, as every Kubernetes API field is).
struct Field {
  std::string_view name;
  const Type* type;
};

struct Type {
  Kind kind;
  std::span<const Field> fields{};  // kStruct
  const Type* element = nullptr;    // kSlice, kMap
};

// Go's scanner refuses nesting deeper than this (encoding/json's maxNestingDepth).
inline constexpr std::size_t kMaxDepth = 10000;
// How deeply typed values (those `type` describes, not skipped members) may nest: the shape's own
// depth, checked where a shape is declared (static_assert(go_json::depth(t) <= kMaxTypedDepth)).
inline constexpr std::size_t kMaxTypedDepth = 32;

constexpr std::size_t depth(const Type& type) {
  std::size_t deepest = 0;
  if (type.kind == Kind::kStruct) {
    for (const Field& f : type.fields) {
      const std::size_t d = depth(*f.type);
      if (d > deepest) deepest = d;
    }
  } else if (type.element != nullptr) {
    deepest = depth(*type.element);
  }
  return type.kind == Kind::kString ? 0 : deepest + 1;
}

// True when `json.Unmarshal([]byte(text), &v)` succeeds for a `v` of `type`: the whole text is one
// JSON value (Go's grammar: surrounding whitespace allowed, any byte from 0x20 up inside strings,
// `\u` escapes unpaired or not, duplicate keys, nesting to kMaxDepth), and every value the type
// reads has a JSON type it accepts (`null` anywhere). Struct members are matched to fields as Go
// does, case-insensitively under Unicode simple folding (`NAME`, and `"\u212aind"` with the Kelvin
// sign, are `kind`). One pass, linear in the text, no allocation.
bool decodes_into(std::string_view text, const Type& type);

}  // namespace kpw::go_json
