// Typed, lenient reads of Karmada objects: a member of the wrong type reads as absent
// (the schema pass reports the type error), and `null` always reads as absent.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "json/json.hpp"

namespace kpw {

// The member `key` of `obj`, or nullptr when `obj` is null / not an object, or the member is
// absent or null.
const JsonValue* member(const JsonValue* obj, std::string_view key);

// Present and an object / an array (an empty `[]` is present).
const JsonValue* object_member(const JsonValue* obj, std::string_view key);
// The same, to change it in place (the `check` command applies CRD defaults).
JsonValue* object_member(JsonValue* obj, std::string_view key);
const JsonValue* array_member(const JsonValue* obj, std::string_view key);

std::optional<std::string_view> string_member(const JsonValue* obj, std::string_view key);
// "" when absent or not a string (Go's zero value, as upstream reads it).
std::string_view string_or_empty(const JsonValue* obj, std::string_view key);
// An integer that fits int64 (1.0 and 1e3 are not integers).
std::optional<std::int64_t> int_member(const JsonValue* obj, std::string_view key);
std::optional<bool> bool_member(const JsonValue* obj, std::string_view key);

// Whether two values are the same JSON, `null` members counting as absent. Objects compare
// member by member in order (linear: an object sent back unchanged keeps its order; one whose
// members were reordered reads as changed).
bool same_json(const JsonValue* a, const JsonValue* b);

// Number of elements of an array member (0 when absent or not an array).
std::size_t array_size(const JsonValue* obj, std::string_view key);

}  // namespace kpw
