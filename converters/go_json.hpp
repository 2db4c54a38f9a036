// Go's encoding/json over a typed Go struct, as a conversion needs it: the errors Go's decoder
// reports for an object read into a struct (`json: cannot unmarshal string into Go struct field
// ObjectReference.spec.resource.replicas of type int32`), and the object written back as Go's
// encoder writes that struct (its fields in declaration order, omitempty, maps sorted by key,
// times and quantities in Kubernetes' form). A struct is a table of fields (data, like the
// validators' schemas), so one walker serves every type.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "json/json.hpp"

namespace kpw::go {

enum class Type : std::uint8_t {
  kString,        // string or a named string type (types.UID)
  kBool,          // bool
  kInt32,         // int32
  kInt64,         // int64
  kTime,          // metav1.Time: RFC 3339, `null` when zero
  kTimePointer,   // *metav1.Time
  kInt64Pointer,  // *int64
  kBoolPointer,   // *bool
  kStringMap,     // map[string]string
  kQuantityMap,   // corev1.ResourceList: map[ResourceName]resource.Quantity
  kStringList,    // []string
  kRaw,           // *runtime.RawExtension, *metav1.FieldsV1: any JSON, kept as it is
  kStruct,        // a struct (`of`)
  kStructList,    // []struct (`of`)
  // A field no conversion keeps: its JSON type is read (an object or null, an array or null), not
  // what it holds.
  kDroppedStruct,
  kDroppedList,
};

// When the encoder leaves a field out.
enum class Omit : std::uint8_t {
  kNever,  // no omitempty (and a value struct, which omitempty never omits)
  kEmpty,  // omitempty: "", 0, false, a nil pointer, an empty map or slice
  kZero,   // omitzero: a zero Time
};

struct Struct;

struct Field {
  constexpr Field(std::string_view name, Type type, std::string_view go_type,
                  Omit omit = Omit::kEmpty, const Struct* of = nullptr,
                  std::string_view item_go_type = {})
      : name(name), type(type), go_type(go_type), omit(omit), of(of), item_go_type(item_go_type) {}

  std::string_view name;  // its JSON name
  Type type;
  std::string_view go_type;  // as Go's errors name it: "int32", "v1.ObjectMeta", "[]v1.Condition"
  Omit omit;
  const Struct* of;               // kStruct, kStructList
  std::string_view item_go_type;  // a list's element type as errors name it: "v1.Condition"
};

struct Struct {
  std::string_view name;  // Go's name without its package: "ObjectMeta"
  std::span<const Field> fields;
};

// The kind of a JSON value as Go's errors name it: "string", "number", "bool", "array", "object".
std::string_view json_kind(const JsonValue& value);

// Reads `object` (a JSON object) as Go's json.Unmarshal reads it into a `type` (case-sensitive
// keys, as Kubernetes' decoder matches them; unknown keys skipped). Returns "" when it decodes,
// else Go's error: the first type error in document order, unless a value's own decoder fails (a
// time, a quantity), which ends the read and is the error. Depth: the tables'.
std::string decode_errors(const Struct& type, const JsonValue& object);

// Appends the struct Go's encoder writes for the `type` decoded from `object` (an object, or
// nullptr / null for the zero struct): `{...}`. `object` decodes (decode_errors is "").
void append_struct(std::string& out, const Struct& type, const JsonValue* object);
// One field of it, as append_struct writes it (`"name":value`, preceded by a comma unless
// `first`); nothing when the field is left out. Returns whether it wrote anything.
bool append_field(std::string& out, const Field& field, const JsonValue* value, bool first);

// strconv.Quote (Go's %q): `"` and `\` escaped, control characters as \n, \t, \x01…, and the
// non-printable characters Go escapes most often (C1 controls, U+00A0, U+00AD, the Unicode
// spaces, U+200B…U+200F, U+2028…U+202F, U+2060…U+206F, U+FEFF) as \uXXXX; others as they are.
void append_go_quoted(std::string& out, std::string_view text);

}  // namespace kpw::go
