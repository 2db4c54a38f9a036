#include "api/object.hpp"

namespace kpw {

const JsonValue* member(const JsonValue* obj, std::string_view key) {
  if (obj == nullptr || !obj->IsObject()) return nullptr;
  // (RapidJSON's FindMember calls memcmp for every name of the same length.)
  for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it) {
    if (same_name(it->name, key)) return it->value.IsNull() ? nullptr : &it->value;
  }
  return nullptr;
}

const JsonValue* object_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  return v != nullptr && v->IsObject() ? v : nullptr;
}

const JsonValue* array_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

std::optional<std::string_view> string_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return view(*v);
}

std::string_view string_or_empty(const JsonValue* obj, std::string_view key) {
  return string_member(obj, key).value_or(std::string_view{});
}

std::optional<std::int64_t> int_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr || !v->IsInt64()) return std::nullopt;
  return v->GetInt64();
}

std::optional<bool> bool_member(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = member(obj, key);
  if (v == nullptr || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

std::size_t array_size(const JsonValue* obj, std::string_view key) {
  const JsonValue* v = array_member(obj, key);
  return v == nullptr ? 0 : v->Size();
}

}  // namespace kpw
