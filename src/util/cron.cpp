// Cron schedules: gronx's grammar item by item, robfig's standard parser (util/cron.hpp).
#include "util/cron.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace kpw {
namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The text before the first `sep` and the text between the first and the second (Go's
// strings.Split(s, sep)[0] and [1]); `second` is empty and `has_second` false without a `sep`.
struct TwoParts {
  std::string_view first;
  std::string_view second;
  bool has_second = false;
};
TwoParts two_parts(std::string_view s, char sep) {
  const std::size_t a = s.find(sep);
  if (a == npos) return {s, {}, false};
  std::string_view rest = s.substr(a + 1);
  const std::size_t b = rest.find(sep);
  return {s.substr(0, a), b == npos ? rest : rest.substr(0, b), true};
}

// --- gronx ---

struct Bounds {
  long long min;
  long long max;
};
// Second, minute, hour, day of month, month, day of week, year (after the seconds field).
constexpr std::array<Bounds, 7> kGronxBounds = {
    {{0, 59}, {0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}, {1, 9999}}};
constexpr std::size_t kDayOfMonth = 3;
constexpr std::size_t kDayOfWeek = 5;

struct Macro {
  std::string_view name;
  std::string_view expansion;
};
constexpr std::array<Macro, 12> kGronxMacros = {{
    {"@yearly", "0 0 1 1 *"},
    {"@annually", "0 0 1 1 *"},
    {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
    {"@always", "* * * * *"},
    {"@5minutes", "*/5 * * * *"},
    {"@10minutes", "*/10 * * * *"},
    {"@15minutes", "*/15 * * * *"},
    {"@30minutes", "0,30 * * * *"},
    {"@everysecond", "* * * * * *"},
}};

// strings.ToLower(s) == name for an ASCII name: besides ASCII letters, `K` (U+212A, Kelvin) lowers
// to `k` and `İ` (U+0130) to `i` in Go.
bool lower_equals(std::string_view s, std::string_view name) {
  std::size_t i = 0;
  for (char want : name) {
    if (i >= s.size()) return false;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : s[i];
      if (lower != want) return false;
      ++i;
    } else if (want == 'k' && s.substr(i, 3) == "\xE2\x84\xAA") {
      i += 3;
    } else if (want == 'i' && s.substr(i, 2) == "\xC4\xB0") {
      i += 2;
    } else {
      return false;
    }
  }
  return i == s.size();
}

bool is_go_regexp_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

// The 19 names gronx replaces, each with its digits.
constexpr std::array<std::string_view, 19> kNames = {
    "SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "JAN", "FEB", "MAR",
    "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::array<std::string_view, 19> kDigits = {"0", "1", "2",  "3",  "4", "5", "6",
                                                      "1", "2", "3",  "4",  "5", "6", "7",
                                                      "8", "9", "10", "11", "12"};

// gronx's normalize, into `out`.
void normalize(std::string_view expr, std::string& out) {
  std::size_t b = 0;
  std::size_t e = expr.size();
  while (b < e && (expr[b] == ' ' || expr[b] == '\t')) ++b;
  while (e > b && (expr[e - 1] == ' ' || expr[e - 1] == '\t')) --e;
  expr = expr.substr(b, e - b);
  for (const Macro& m : kGronxMacros) {
    if (lower_equals(expr, m.name)) {
      expr = m.expansion;
      break;
    }
  }
  // Whitespace runs to one space, and upper case (Go's ToUpper: `ı` and `ſ` become ASCII).
  out.clear();
  out.reserve(expr.size());
  for (std::size_t i = 0; i < expr.size(); ++i) {
    const char c = expr[i];
    if (is_go_regexp_space(c)) {
      out.push_back(' ');
      while (i + 1 < expr.size() && is_go_regexp_space(expr[i + 1])) ++i;
    } else if (c >= 'a' && c <= 'z') {
      out.push_back(static_cast<char>(c - 'a' + 'A'));
    } else if (expr.substr(i, 2) == "\xC4\xB1") {
      out.push_back('I');
      ++i;
    } else if (expr.substr(i, 2) == "\xC5\xBF") {
      out.push_back('S');
      ++i;
    } else {
      out.push_back(c);
    }
  }
  // The names, left to right, in place (the text only shrinks).
  std::size_t w = 0;
  for (std::size_t r = 0; r < out.size();) {
    bool replaced = false;
    if (r + 3 <= out.size() && out[r] >= 'A' && out[r] <= 'Z') {  // names start with a letter
      const std::string_view three(out.data() + r, 3);
      for (std::size_t k = 0; k < kNames.size(); ++k) {
        if (three == kNames[k]) {
          for (char d : kDigits[k]) out[w++] = d;
          r += 3;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out[w++] = out[r++];
  }
  out.resize(w);
}

bool atoi_ok(std::string_view s) {
  long long v = 0;
  return go_atoi(s, v);
}

// inStep: `a/b`, `a-b/c`, `*/b`, `0/b`.
bool step_valid(std::string_view item, Bounds bounds) {
  const TwoParts slash = two_parts(item, '/');
  long long step = 0;
  if (!go_atoi(slash.second, step) || step == 0) return false;
  if (item.starts_with("*/") || item.starts_with("0/")) return true;
  const TwoParts dash = two_parts(slash.first, '-');
  long long start = 0;
  if (!go_atoi(dash.first, start)) return false;
  if (!dash.has_second) return start >= bounds.min;  // the end is the current value: in bounds
  long long end = 0;
  if (!go_atoi(dash.second, end)) return false;
  return end >= start && start >= bounds.min && end <= bounds.max;
}

// inRange: `a-b` (what follows a second `-` is not read).
bool range_valid(std::string_view item, Bounds bounds) {
  const TwoParts dash = two_parts(item, '-');
  long long start = 0;
  long long end = 0;
  if (!go_atoi(dash.first, start) || !go_atoi(dash.second, end)) return false;
  return end >= start && start >= bounds.min && end <= bounds.max;
}

// isOffsetDue's errors for one item, held in `item` (the normalized text, which this may change:
// a weekday range's first `7-` reads `0-`, in place).
bool offset_valid(char* item_data, std::size_t item_size, std::size_t pos) {
  const std::string_view item(item_data, item_size);
  const Bounds bounds = kGronxBounds[pos];
  if (item.find('/') != npos) return step_valid(item, bounds);
  if (item.find('-') != npos) {
    if (const std::size_t seven = item.find("7-"); pos == kDayOfWeek && seven != npos) {
      item_data[seven] = '0';
    }
    return range_valid(item, bounds);
  }
  if (pos != kDayOfWeek && item == "0") return true;  // gronx's quirk: a plain 0 passes
  long long value = 0;
  return go_atoi(item, value) && value >= bounds.min && value <= bounds.max;
}

// isValidMonthDay: `L`, or an integer then `W` (anything after it unread).
bool month_day_valid(std::string_view item) {
  if (item == "L") return true;
  const std::size_t w = item.find('W');
  return w != npos && w >= 1 && atoi_ok(item.substr(0, w));
}

// isValidWeekDay: an integer then `L`, or `a#b` (integers; what follows a second `#` unread).
bool week_day_valid(std::string_view item) {
  const std::size_t l = item.find('L');
  if (l != npos && l > 0) return atoi_ok(item.substr(0, l));
  const std::size_t hash = item.find('#');
  if (hash == npos || hash < 1) return false;
  const TwoParts parts = two_parts(item, '#');
  return atoi_ok(parts.first) && atoi_ok(parts.second);
}

bool item_valid(char* item_data, std::size_t item_size, std::size_t pos) {
  const std::string_view item(item_data, item_size);
  if (item == "*" || item == "?") return true;
  const bool special =
      (pos == kDayOfMonth || pos == kDayOfWeek) && item.find_first_of("LW#") != npos;
  if (!special) return offset_valid(item_data, item_size, pos);
  // Upstream reads the item as a number first, and as L/W/# when that does not match now.
  return pos == kDayOfMonth ? month_day_valid(item) : week_day_valid(item);
}

bool has_four_digits(std::string_view s) {
  int run = 0;
  for (char c : s) {
    run = is_digit(c) ? run + 1 : 0;
    if (run == 4) return true;
  }
  return false;
}

// --- robfig ---

struct StandardField {
  std::string_view name;
  unsigned min;
  unsigned max;
  const std::array<std::string_view, 12>* names;  // lower case; index + first is the value
  unsigned first;
};
constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kDayNames = {"sun", "mon", "tue", "wed",
                                                        "thu", "fri", "sat"};
constexpr std::array<StandardField, 5> kStandardFields = {{
    {"minute", 0, 59, nullptr, 0},
    {"hour", 0, 23, nullptr, 0},
    {"day-of-month", 1, 31, nullptr, 0},
    {"month", 1, 12, &kMonthNames, 1},
    {"day-of-week", 0, 6, &kDayNames, 0},
}};

constexpr std::array<std::string_view, 7> kDescriptors = {
    "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"};

bool is_go_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// `s` in quotes; past 64 bytes its first 64 (a UTF-8 sequence never split) and its length.
std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 64;
  std::size_t n = s.size();
  if (n > kShown) {
    n = kShown;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  }
  std::string out = "\"";
  out.append(s.substr(0, n));
  out.push_back('"');
  if (n < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

// parseIntOrName / mustParseInt: "" when `text` is a number (or name) robfig reads.
std::string read_number(std::string_view text, const StandardField& field, long long& value) {
  if (field.names != nullptr) {
    for (std::size_t k = 0; k < field.names->size(); ++k) {
      const std::string_view name = (*field.names)[k];
      if (!name.empty() && lower_equals(text, name)) {
        value = static_cast<long long>(k + field.first);
        return "";
      }
    }
  }
  if (!go_atoi(text, value)) return quoted(text) + " is not a number";
  if (value < 0) return quoted(text) + " is negative";
  return "";  // robfig's bounds are checked on the whole range
}

// getRange: "" when robfig reads `expr` in `field`.
std::string range_problem(std::string_view expr, const StandardField& field) {
  const std::size_t slashes = static_cast<std::size_t>(std::count(expr.begin(), expr.end(), '/'));
  if (slashes > 1) return "too many slashes";
  const std::string_view range = expr.substr(0, expr.find('/'));
  const std::size_t hyphens = static_cast<std::size_t>(std::count(range.begin(), range.end(), '-'));
  long long start = field.min;
  long long end = field.max;
  if (range != "*" && range != "?" &&
      !(hyphens > 0 && (range.starts_with("*-") || range.starts_with("?-")))) {
    if (hyphens > 1) return "too many hyphens";
    const TwoParts dash = two_parts(range, '-');
    if (std::string p = read_number(dash.first, field, start); !p.empty()) return p;
    end = start;
    if (dash.has_second) {
      if (std::string p = read_number(dash.second, field, end); !p.empty()) return p;
    }
  }  // `*-…`: robfig reads nothing after a star's hyphen
  long long step = 1;
  if (slashes == 1) {
    const std::string_view text = expr.substr(expr.find('/') + 1);
    if (!go_atoi(text, step)) return quoted(text) + " is not a number";
    if (step < 0) return quoted(text) + " is negative";
    if (hyphens == 0 && range != "*" && range != "?") end = field.max;  // `n/step`: n to the max
  }
  if (start < field.min) {
    return "below the minimum " + std::to_string(field.min);
  }
  if (end > field.max) return "above the maximum " + std::to_string(field.max);
  if (start > end) return "a range that begins after its end";
  if (step == 0) return "a step of 0";
  return "";
}

}  // namespace

bool go_atoi(std::string_view text, long long& value) {
  std::size_t i = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return false;
  // Accumulated as a negative number, so that the int64 minimum fits.
  long long v = 0;
  constexpr long long kMin = std::numeric_limits<long long>::min();
  for (; i < text.size(); ++i) {
    if (!is_digit(text[i])) return false;
    const int d = text[i] - '0';
    if (v < kMin / 10 || v * 10 < kMin + d) return false;
    v = v * 10 - d;
  }
  if (!negative) {
    if (v == kMin) return false;
    v = -v;
  }
  value = v;
  return true;
}

bool gronx_schedule_valid(std::string_view schedule, std::string& scratch) {
  normalize(schedule, scratch);
  std::array<std::string_view, 8> fields{};
  std::size_t count = 1;  // fields[0]: room for a prepended second
  std::string_view rest = scratch;
  for (;;) {
    const std::size_t space = rest.find(' ');
    if (count == fields.size()) return false;  // 8 or more
    fields[count++] = rest.substr(0, space);
    if (space == npos) break;
    rest = rest.substr(space + 1);
  }
  const std::size_t n = count - 1;
  if (n < 5 || n > 7) return false;
  // With a seconds field `0` prepended (always valid), fields[1] is the minute's.
  const std::size_t first = (n == 5 || (n == 6 && has_four_digits(fields[6]))) ? 0 : 1;
  for (std::size_t i = 1; i < count; ++i) {
    const std::size_t pos = i - first;
    std::string_view field = fields[i];
    for (;;) {
      const std::size_t comma = field.find(',');
      const std::size_t size = std::min(comma, field.size());
      char* item = scratch.data() + (field.data() - scratch.data());  // the text is ours to change
      if (!item_valid(item, size, pos)) return false;
      if (comma == npos) break;
      field = field.substr(comma + 1);
    }
  }
  return true;
}

std::string standard_cron_problem(std::string_view schedule) {
  std::size_t b = 0;
  std::size_t e = schedule.size();
  while (b < e && is_go_space(schedule[b])) ++b;
  while (e > b && is_go_space(schedule[e - 1])) --e;
  const std::string_view spec = schedule.substr(b, e - b);
  if (spec.starts_with("@")) {
    if (spec.starts_with("@every ")) return "";
    for (std::string_view d : kDescriptors) {
      if (spec == d) return "";
    }
    for (std::string_view d : kDescriptors) {
      if (lower_equals(spec, d))
        return quoted(spec) + ": descriptors are lower case (" + std::string(d) + ")";
    }
    return quoted(spec) +
           " is not a descriptor it knows (@yearly, @annually, @monthly, @weekly, @daily, "
           "@midnight, @hourly, @every <duration>)";
  }
  std::array<std::string_view, 5> fields{};
  std::size_t count = 0;
  for (std::size_t i = 0; i < spec.size();) {
    while (i < spec.size() && is_go_space(spec[i])) ++i;
    if (i == spec.size()) break;
    const std::size_t start = i;
    while (i < spec.size() && !is_go_space(spec[i])) ++i;
    if (count < fields.size()) fields[count] = spec.substr(start, i - start);
    ++count;
  }
  if (count != fields.size()) {
    return "it reads exactly 5 fields (minute, hour, day-of-month, month, day-of-week), found " +
           std::to_string(count);
  }
  for (std::size_t k = 0; k < fields.size(); ++k) {
    std::string_view field = fields[k];
    for (;;) {
      const std::size_t comma = field.find(',');
      const std::string_view item = field.substr(0, comma);
      if (!item.empty()) {  // robfig skips empty items
        if (std::string p = range_problem(item, kStandardFields[k]); !p.empty()) {
          return std::string(kStandardFields[k].name) + " " + quoted(item) + ": " + p;
        }
      }
      if (comma == npos) break;
      field = field.substr(comma + 1);
    }
  }
  return "";
}

}  // namespace kpw
