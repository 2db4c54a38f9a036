#include "admission/registry.hpp"

namespace kpw {

const Webhook* find_webhook(std::string_view path) {
  for (const Webhook& w : webhooks()) {
    if (w.path == path) return &w;
  }
  return nullptr;
}

int webhook_index(std::string_view path) {
  const Webhook* w = find_webhook(path);
  return w == nullptr ? -1 : static_cast<int>(w - webhooks().data());
}

}  // namespace kpw
