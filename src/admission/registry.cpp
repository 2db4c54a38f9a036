#include "admission/registry.hpp"

namespace kpw {

const Webhook* find_webhook(std::string_view path) {
  for (const Webhook& w : webhooks()) {
    if (w.path == path) return &w;
  }
  return nullptr;
}

}  // namespace kpw
