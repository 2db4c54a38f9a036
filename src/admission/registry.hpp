// The one table that says which path runs which handler for which kind.
#pragma once

#include <span>
#include <string_view>

#include "admission/review.hpp"

namespace kpw {

struct Webhook {
  std::string_view path;   // "/validate-propagationpolicy"
  std::string_view group;  // request.kind.group the path serves
  std::string_view kind;   // request.kind.kind the path serves
  bool mutating;
  Handler handler;
};

std::span<const Webhook> webhooks();
const Webhook* find_webhook(std::string_view path);
// The row's position in webhooks(), or -1 (metrics are kept per row).
int webhook_index(std::string_view path);

}  // namespace kpw
