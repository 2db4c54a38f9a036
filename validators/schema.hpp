// The schema walker: a kind's CRD-level rules as a declarative table of fields (types, required
// keys, enums, bounds, formats, quantities), each error carrying the rule its table names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "admission/field_error.hpp"
#include "json/json.hpp"
#include "util/quantity.hpp"

namespace kpw::schema {

enum class Type : std::uint8_t {
  kString,
  kInt32,    // an integer in int32 range (`must fit in a 32-bit integer` beyond it)
  kInt64,    // an integer in int64 range (`must fit in a 64-bit integer` beyond it)
  kInteger,  // an int64; any other number is `must be of type integer` (no range wording)
  kBool,
  kObject,       // with `fields`
  kStringMap,    // an object of strings
  kQuantityMap,  // an object of quantities, each a string or a number (docs/compatibility.md);
                 // one field at a time (check_value) only its type is checked: the caller checks
                 // each entry as a kQuantity, in the order its rules need
  kQuantity,     // one quantity: a string or a number that parses (docs/compatibility.md)
  kArray,        // of `item`, with `fields` when the items are objects
  kAny,          // any JSON value (x-kubernetes-preserve-unknown-fields)
};

// What a string must spell, beyond its type (util/names.hpp). An empty string is checked too.
enum class Format : std::uint8_t {
  kNone,
  kDns1123Label,
  kDns1123Subdomain,
  kQualifiedName,
  kLabelValue,
};

// The rule each kind of check reports (admission/rules.hpp), for a table or a part of one.
struct Rules {
  Rule type;         // a value of the wrong JSON type; an integer beyond its type's range
  Rule required;     // a required field absent (or null)
  Rule min_items;    // an array shorter than min_items
  Rule enumeration;  // a string not among `allowed`
  Rule length;       // a string shorter than min_length or longer than max_length
  Rule range;        // an integer below minimum or above maximum
  Rule format;       // a string not of its format
  Rule quantity;     // a map value that is not a quantity

  static constexpr Rules all(Rule rule) { return {rule, rule, rule, rule, rule, rule, rule, rule}; }
};

// One field of an object (a row of a table). `null` always reads as absent.
struct Node {
  std::string_view name;
  Type type = Type::kString;
  bool required = false;
  std::span<const Node> fields{};               // kObject, or kArray of objects: the fields
  Type item = Type::kObject;                    // kArray: the type of each element
  std::span<const std::string_view> allowed{};  // a string's enum values (none: any)
  std::int64_t minimum = std::numeric_limits<std::int64_t>::min();
  std::int64_t maximum = std::numeric_limits<std::int64_t>::max();
  std::size_t min_items = 0;
  std::size_t min_length = 0;
  std::size_t max_length = std::numeric_limits<std::size_t>::max();
  Format format = Format::kNone;
  // The detail of this field's Required errors, absent or with fewer than min_items; empty: ""
  // when absent, `must have at least N items` when short.
  std::string_view required_detail{};
  const Rules* rules = nullptr;       // for this field and beneath (nullptr: the enclosing ones)
  const Rules* item_rules = nullptr;  // kArray: for its elements and beneath (nullptr: the field's)
};

// A kind's schema: the fields of its `spec` and the rules its errors carry.
struct Schema {
  std::span<const Node> fields;
  Rules rules;
};

// The walker keeps which rows of a table it saw in a 64-bit mask: every table (static_assert it
// where the table is defined) has at most 64 rows, at every depth.
constexpr bool fits_a_mask(std::span<const Node> fields) {
  if (fields.size() > 64) return false;
  for (const Node& field : fields) {
    if (!fits_a_mask(field.fields)) return false;
  }
  return true;
}

// --- The whole walk, in document order (the API server's order) ---

// The members of `obj` (an object) that `fields` declares, in document order, each against its
// row and beneath, then the required rows that are absent. False when it reported anything.
bool check_object(const Rules& rules, std::span<const Node> fields, const JsonValue& obj,
                  const FieldPath& path, ErrorList& errors);
inline bool check_object(const Schema& schema, const JsonValue& obj, const FieldPath& path,
                         ErrorList& errors) {
  return check_object(schema.rules, schema.fields, obj, path, errors);
}

// --- One field at a time, for a validator that interleaves its own rules with the walk ---
// These check a value's type and its own constraints (enum, length, range, format, min_items,
// a string map's values) but do not descend into an object's fields, an array's elements or a
// quantity map's values.

// `value` (at `path`) against `row`.
bool check_value(const Rules& rules, const Node& row, const JsonValue& value, const FieldPath& path,
                 ErrorList& errors);
// The member `row.name` of `obj` (nullptr, or not an object: absent): a Required error when
// `row.required` and it is absent, else as check_value.
bool check_field(const Rules& rules, const Node& row, const JsonValue* obj,
                 const FieldPath& obj_path, ErrorList& errors);
// The same for a member of the object under review itself (`spec`, whose path is a root).
bool check_root_field(const Rules& rules, const Node& row, const JsonValue* object,
                      ErrorList& errors);
// Every row of `fields` in table order, as check_field (all of them, not stopping at the first
// error). False when it reported anything.
bool check_fields(const Rules& rules, std::span<const Node> fields, const JsonValue& obj,
                  const FieldPath& path, ErrorList& errors);
// One element of the kArray `row` (at `path`): its item type and constraints, with the row's
// element rules.
bool check_element(const Rules& rules, const Node& row, const JsonValue& element,
                   const FieldPath& path, ErrorList& errors);

// A quantity value: a string as Kubernetes parses it, a number as its shortest decimal form
// spells it (docs/compatibility.md, "Quantities"); any other value: kFormat.
ParsedQuantity quantity_of(const JsonValue& value);

// --- Values as upstream's Go structs marshal them (schema_readers.cpp) ---

// `value` as encoding/json marshals the Go struct whose fields `fields` declares, in the table's
// order (the Go field order when the table follows the Go type): compact, `<`, `>`, `&` escaped as
// `\u003c`…; a required row that is absent as its Go zero (`""` for a string, `null` otherwise),
// a kAny row (apiextensionsv1.JSON) absent as `null`; an optional row holding `""` or `[]`
// omitted (`omitempty`); a map's keys sorted; anything the table does not declare left out.
// Numbers are written in their shortest form, not as typed (docs/compatibility.md).
void append_struct_json(std::string& out, std::span<const Node> fields, const JsonValue& value);

// --- Unknown fields (schema_readers.cpp) ---

// The members of `obj` that no row of `fields` declares, at every depth, as Forbidden errors of
// `rule` (`check`'s K-U1: the API server refuses them under kubectl's --validate=strict).
void check_unknown_fields(std::span<const Node> fields, const JsonValue& obj, const FieldPath& path,
                          Rule rule, ErrorList& errors);

}  // namespace kpw::schema
