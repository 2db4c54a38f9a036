// ResourceBinding and ClusterResourceBinding (work.karmada.io) between v1alpha1 and v1alpha2, the
// conversion upstream's /convert serves (docs/rules.md, CV-1…CV-4): v1alpha2 is the hub,
// v1alpha1 converts to and from it; every other object gets upstream's error.
#pragma once

#include <string>
#include <string_view>

#include "json/json.hpp"

namespace kpw {

// A Converter (admission/route.hpp): `object` to `desired_api_version`, appended to `out` as
// upstream writes it (Go's encoding of the destination type: its field order, omitempty, sorted
// maps, quantities and times in Kubernetes' form), or false with upstream's message in `error`.
// Linear in the object (maps are sorted: n log n in their size).
bool convert_binding(const JsonValue& object, std::string_view desired_api_version,
                     std::string& out, std::string& error);

}  // namespace kpw
