// Helpers for the JSON Patch builder tests: build a patch against an object, check it applies.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <catch2/catch.hpp>
#include <string>

#include "admission/json_patch.hpp"
#include "json/json_patch_apply.hpp"
#include "support.hpp"

namespace kpw::test {

// Builds a patch against `object` with `mutate`, checks it applies, returns the patched object.
template <typename F>
std::string patched(const std::string& object, F mutate, std::string* ops = nullptr) {
  JsonArena arena;
  std::string text = object;
  REQUIRE(arena.parse_in_place(text).ok);
  JsonPatch patch;
  patch.reset(&arena.document());
  mutate(patch);
  std::string rendered;
  patch.render(rendered);
  if (ops != nullptr) *ops = rendered;
  kpw::JsonDocument doc;
  doc.Parse(object.c_str());
  const auto problem = kpw::apply_json_patch(doc, rendered, doc.GetAllocator());
  INFO(rendered << "\n" << problem.value_or(""));
  REQUIRE_FALSE(problem.has_value());
  return text_of(doc);
}

}  // namespace kpw::test
