// Typed, lenient reads of Karmada objects: a member of the wrong type reads as absent
// (the schema pass reports the type error), and `null` always reads as absent. Inline: the key is
// nearly always a literal, and the name comparison folds to its length (a review makes hundreds
// of these reads; out of line they were ~4 800 of a PropagationPolicy review's 37 300
// instructions, inline 2 100 fewer: docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "json/json.hpp"

namespace kpw {

// The member `key` of `obj`, or nullptr when `obj` is null / not an object, or the member is
// absent or null.
inline const JsonValue* member(const JsonValue* obj, std::string_view key) {
  if (obj == nullptr) return nullptr;
  const JsonValue* v = find_member(*obj, key);
  return v == nullptr || v->IsNull() ? nullptr : v;
}

// Present and an object / an array (an empty `[]` is present).
inline const JsonValue* object_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  return v != nullptr && v->IsObject() ? v : nullptr;
}
// The same, to change it in place (the `check` command applies CRD defaults).
JsonValue* object_member(JsonValue* obj, std::string_view key);

inline const JsonValue* array_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

inline std::optional<std::string_view> string_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return view(*v);
}

// "" when absent or not a string (Go's zero value, as upstream reads it).
inline std::string_view string_or_empty(const JsonValue* obj, std::string_view key) {
  return string_member(obj, key).value_or(std::string_view{});
}

// An integer that fits int64 (1.0 and 1e3 are not integers).
inline std::optional<std::int64_t> int_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr || !v->IsInt64()) return std::nullopt;
  return v->GetInt64();
}

inline std::optional<bool> bool_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

// Whether two values are the same JSON, `null` members counting as absent. Objects compare
// member by member in order (linear: an object sent back unchanged keeps its order; one whose
// members were reordered reads as changed).
bool same_json(const JsonValue* a, const JsonValue* b);

// Number of elements of an array member (0 when absent or not an array).
inline std::size_t array_size(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = array_member(obj, key);
  return v == nullptr ? 0 : v->Size();
}

}  // namespace kpw
