// Checked reads of JSON values in tests, by JSON Pointer (`/response/status/code`): a value that
// is missing or of another type fails the test, naming the pointer. RapidJSON's operator[] and
// Get* only assert, and its asserts are off in Release builds: there a missing member was read
// through a null value (undefined behaviour) instead of failing.
#pragma once

#include <rapidjson/pointer.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace kpw::test {

// The value at `pointer` below `root`, a value or a document of any RapidJSON flavour
// (kpw::JsonValue, rapidjson::Value...).
template <typename Root, typename Value = typename Root::ValueType>
const Value& value_at(const Root& root, std::string_view pointer) {
  const rapidjson::GenericPointer<Value> p(pointer.data(), pointer.size());
  if (!p.IsValid()) FAIL("test bug: " << pointer << " is no JSON Pointer");
  const Value* v = p.Get(static_cast<const Value&>(root));
  if (v == nullptr) FAIL("no value at " << pointer);
  return *v;
}

template <typename Root, typename Value = typename Root::ValueType>
const Value& object_at(const Root& root, std::string_view pointer) {
  const Value& v = value_at(root, pointer);
  if (!v.IsObject()) FAIL(pointer << " is not an object");
  return v;
}

template <typename Root, typename Value = typename Root::ValueType>
const Value& array_at(const Root& root, std::string_view pointer) {
  const Value& v = value_at(root, pointer);
  if (!v.IsArray()) FAIL(pointer << " is not an array");
  return v;
}

template <typename Root, typename Value = typename Root::ValueType>
std::string string_at(const Root& root, std::string_view pointer) {
  const Value& v = value_at(root, pointer);
  if (!v.IsString()) FAIL(pointer << " is not a string");
  return std::string(v.GetString(), v.GetStringLength());
}

template <typename Root, typename Value = typename Root::ValueType>
std::int64_t int_at(const Root& root, std::string_view pointer) {
  const Value& v = value_at(root, pointer);
  if (!v.IsInt64()) FAIL(pointer << " is not an integer");
  return v.GetInt64();
}

template <typename Root, typename Value = typename Root::ValueType>
double double_at(const Root& root, std::string_view pointer) {
  const Value& v = value_at(root, pointer);
  if (!v.IsNumber()) FAIL(pointer << " is not a number");
  return v.GetDouble();
}

template <typename Root, typename Value = typename Root::ValueType>
bool bool_at(const Root& root, std::string_view pointer) {
  const Value& v = value_at(root, pointer);
  if (!v.IsBool()) FAIL(pointer << " is not a boolean");
  return v.GetBool();
}

}  // namespace kpw::test
