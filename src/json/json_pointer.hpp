// JSON Pointers (RFC 6901): escaping a reference token for a pointer, and reading a pointer back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kpw {

// Appends the RFC 6901 escape of one reference token (`~` as `~0`, `/` as `~1`).
void append_pointer_token(std::string& out, std::string_view token);

// The reference tokens of `pointer`, unescaped, into `tokens` (none for "", the whole document);
// false when it is no pointer: text before the first '/', or a '~' not followed by '0' or '1'.
bool split_pointer(std::string_view pointer, std::vector<std::string>& tokens);

}  // namespace kpw
