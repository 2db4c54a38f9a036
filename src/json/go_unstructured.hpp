// Whether a parsed JSON value decodes into a Go API type as apimachinery's unstructured converter
// decodes it (`runtime.DefaultUnstructuredConverter.FromUnstructured`, v0.36.2: what upstream's
// Go code does with an object it holds as a map), over a type given as data (a Schema). Beside
// go_decode.hpp, which judges a JSON *text* as encoding/json decodes it: the two differ (the
// converter matches names exactly, takes a whole float as an integer, decodes Time, Quantity and
// IntOrString through their UnmarshalJSON). W-5 (docs/rules.md, "Work") judges Job manifests so.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "json/field_path.hpp"
#include "json/json.hpp"

namespace kpw::go_unstructured {

// A field's Go shape, as the converter treats it.
enum class Shape : std::uint8_t {
  kString,       // any string type
  kBool,         //
  kInt,          // any integer type: an integer, or a number with no fractional part
  kTime,         // metav1.Time: a string time.Parse(time.RFC3339, …) takes
  kQuantity,     // resource.Quantity: a number, or a string ParseQuantity takes once trimmed
  kIntOrString,  // intstr.IntOrString: a string, or an integer that fits int32
  kAny,          // metav1.FieldsV1: any value
  kStruct,       // an object; members that name no field are ignored
  kSlice,        // an array of `elem`
  kMap,          // an object of `elem` values
};

struct Field {
  std::string_view name;  // the JSON name
  std::uint16_t type;     // into Schema::types
};

struct Type {
  Shape shape;
  std::string_view name;      // a struct's Go name
  std::uint16_t elem;         // a slice's or map's element type
  std::uint16_t first_field;  // a struct's fields: Schema::fields[first_field, + fields),
  std::uint16_t fields;       // sorted by name
};

struct Schema {
  std::span<const Type> types;
  std::span<const Field> fields;
  std::uint16_t root;

  // The field of struct `t` named `name` (exactly: the converter's lookup is case-sensitive), or
  // nullptr. A binary search: O(log fields).
  const Field* field(const Type& t, std::string_view name) const;
};

// Whether `value` decodes into `type` of `schema`. When it does not, the first value found that
// does not (members in document order) is described in `why`:
// `<path>: Invalid value: <value>: must be <what the type takes>`. A `null` decodes into anything.
// Linear in the value (a member's field is found by binary search); recursion is bounded by the
// reader's nesting limit.
bool decodes(const Schema& schema, const JsonValue& value, std::uint16_t type,
             const FieldPath& path, std::string& why);

// Whether Go's time.Parse(time.RFC3339, text) takes `text`: its general parser, leniencies
// included (a one-digit hour, a fraction of any length after '.' or ',', a zone hour up to 24).
bool go_rfc3339(std::string_view text);

// Whether resource.Quantity's UnmarshalJSON takes the string `text`: ParseQuantity of the text
// with Unicode white space trimmed (a value too precise for our exact Quantity is still one).
bool go_quantity(std::string_view text);

}  // namespace kpw::go_unstructured
