// Structured logs: one line per event on stderr, as text or as one JSON object a line.
#pragma once

#include <initializer_list>
#include <string_view>
#include <utility>

namespace kpw::log {

enum class Format { kText, kJson };
enum class Level { kInfo, kError };

using Field = std::pair<std::string_view, std::string_view>;

// Set once at startup, before any thread logs.
void configure(Format format, int verbosity);
int verbosity();

// Writes one line with one write(2), so lines from several threads never interleave and no lock
// is taken. `fields` are rendered `key=value` (text) or as JSON members.
void write(Level level, std::string_view message, std::initializer_list<Field> fields = {});

inline void info(std::string_view message, std::initializer_list<Field> fields = {}) {
  write(Level::kInfo, message, fields);
}
inline void error(std::string_view message, std::initializer_list<Field> fields = {}) {
  write(Level::kError, message, fields);
}

}  // namespace kpw::log
