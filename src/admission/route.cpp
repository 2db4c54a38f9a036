#include "admission/route.hpp"

namespace kpw {

const Route* find_route(std::string_view path) {
  for (const Route& r : routes()) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

}  // namespace kpw
