// A parsed JSON document for a test, and the errors of an ErrorList as lines: what the rule tests
// of the shared library (test_common, test_schema, test_object_meta) compare.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "json/json.hpp"

namespace kpw::test {

// A parsed document that lives as long as the test needs it.
struct Doc {
  std::unique_ptr<JsonArena> arena = std::make_unique<JsonArena>();
  std::string text;
  explicit Doc(std::string_view json) : text(json) { REQUIRE(arena->parse_in_place(text).ok); }
  const JsonValue& root() { return arena->document(); }
};

// `<rule> <field>: <body>` for each error, in order.
inline std::vector<std::string> lines(const ErrorList& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors.errors()) {
    out.push_back(std::string(rule_id(e.rule)) + " " + e.text());
  }
  return out;
}

}  // namespace kpw::test
