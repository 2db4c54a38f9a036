#include "util/log.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "util/json_text.hpp"

namespace kpw::log {
namespace {

Format g_format = Format::kText;
int g_verbosity = 0;

// RFC 3339 UTC with milliseconds.
void append_time(std::string& out) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms.count()));
  out += buf;
}

// A text value is bare when it is a plain word, else quoted like JSON.
void append_text_value(std::string& out, std::string_view v) {
  bool plain = !v.empty();
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      plain = false;
      break;
    }
  }
  if (plain) {
    out += v;
  } else {
    append_json_string(out, v);
  }
}

}  // namespace

void configure(Format format, int verbosity) {
  g_format = format;
  g_verbosity = verbosity;
}

int verbosity() { return g_verbosity; }

void write(Level level, std::string_view message, std::initializer_list<Field> fields) {
  thread_local std::string line;
  line.clear();
  const std::string_view level_name = level == Level::kError ? "error" : "info";
  if (g_format == Format::kJson) {
    line += "{\"ts\":\"";
    append_time(line);
    line += "\",\"level\":\"";
    line += level_name;
    line += "\",\"msg\":";
    append_json_string(line, message);
    for (const Field& f : fields) {
      line += ',';
      append_json_string(line, f.first);
      line += ':';
      append_json_string(line, f.second);
    }
    line += '}';
  } else {
    append_time(line);
    line += ' ';
    line += level_name;
    line += ' ';
    line += message;
    for (const Field& f : fields) {
      line += ' ';
      line += f.first;
      line += '=';
      append_text_value(line, f.second);
    }
  }
  line += '\n';
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace kpw::log
