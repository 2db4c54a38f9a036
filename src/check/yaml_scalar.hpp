// YAML scalars typed as Kubernetes' YAML reader (go-yaml v2, YAML 1.1) types them.
#pragma once

#include <string>

#include "json/json.hpp"

namespace kpw::check {

// `s` as a JSON value: a plain scalar (tag "?" or "", as yaml-cpp reports it) may be null, a
// boolean (yes/no/on/off too) or a number; a quoted one ("!") or one tagged str is a string.
void convert_scalar(const std::string& s, const std::string& tag, JsonValue& out,
                    JsonAllocator& alloc);

// True when `text` written as a plain YAML scalar reads back as this string (not as null, a
// boolean or a number), so an emitter may leave it unquoted.
bool plain_scalar_is_string(const std::string& text);

}  // namespace kpw::check
