// Whole files read at once: a review for `review`, policy files for `check`, bodies for benchmarks.
#pragma once

#include <string>

namespace kpw {

// Replaces `out` with all of `path` ("-": standard input); false when the file cannot be opened
// or a read fails.
bool read_file(const std::string& path, std::string& out);

}  // namespace kpw
