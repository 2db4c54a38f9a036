// Which path runs which handler for which kind. The rows come from the kind table
// (src/kinds/kinds.cpp defines webhooks()): this layer declares them and never includes the
// layer that knows every validator and mutator.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "admission/review.hpp"
#include "admission/rules.hpp"

namespace kpw {

struct Webhook {
  std::string_view path;   // "/validate-propagationpolicy"
  std::string_view group;  // request.kind.group the path serves
  std::string_view kind;   // request.kind.kind the path serves
  bool mutating;
  Handler handler;
  std::span<const Rule> rules;  // the rules the handler may report (a mutator's: none)
};

// Defined by the kind table (src/kinds/kinds.cpp).
std::span<const Webhook> webhooks();
const Webhook* find_webhook(std::string_view path);

}  // namespace kpw
