// The reports of `check`: text (FILE:LINE:COL: lines, then a summary), JSON, and YAML (the JSON
// report, or the objects as they would be stored).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "check/check.hpp"
#include "check/judge.hpp"
#include "check/source.hpp"

namespace kpw::check {

struct FileSyntaxError {
  std::string file;
  SyntaxError error;
};

struct Summary {
  std::size_t objects = 0, valid = 0, invalid = 0, skipped = 0, warnings = 0;
  std::size_t invalid_upstream = 0;     // invalid, and upstream (or the API server) denies it too
  std::size_t invalid_strict_only = 0;  // invalid only by our strict rules
};

void write_report(const std::vector<Judged>& judged, const std::vector<FileSyntaxError>& syntax,
                  const Summary& summary, const Options& options, std::ostream& out);

}  // namespace kpw::check
