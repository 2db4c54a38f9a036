// JSON string literals: the one escaper (answers, logs, patches).
#pragma once

#include <string>
#include <string_view>

namespace kpw {

// `text` as a JSON string literal (quotes included), appended to `out`.
void append_json_string(std::string& out, std::string_view text);

}  // namespace kpw
