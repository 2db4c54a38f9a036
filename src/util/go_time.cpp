#include "util/go_time.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace kpw {
namespace {

constexpr std::string_view kLayout = "2006-01-02T15:04:05Z07:00";
constexpr std::int64_t kSecondsPerDay = 86400;
// 0001-01-01T00:00:00Z, Go's zero Time, in seconds since the Unix epoch.
constexpr std::int64_t kZeroTimeSeconds = -62135596800;

bool is_digit(std::string_view s, std::size_t i) {
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

// Go's time.getnum: one or two digits (two when `fixed`).
bool get_num(std::string_view& s, bool fixed, int& out) {
  if (!is_digit(s, 0)) return false;
  if (!is_digit(s, 1)) {
    if (fixed) return false;
    out = s[0] - '0';
    s.remove_prefix(1);
    return true;
  }
  out = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return true;
}

// The longest piece of a time echoed in a message, as every echoed value (json/json.hpp's
// kMaxEchoedBytes; util sits below json): Go echoes a 1 MiB string whole, twice.
constexpr std::size_t kMaxQuotedBytes = 256;

// Go's time.quote: `"` and `\` escaped, every byte of a non-ASCII or control character as \xNN
// (so a cut byte sequence stays readable); past kMaxQuotedBytes, cut: `"aaa"... (70000 bytes)`.
void append_go_time_quote(std::string& out, std::string_view whole) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string_view s = whole.substr(0, kMaxQuotedBytes);
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || c < ' ') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += ch;
  }
  out += '"';
  if (whole.size() > s.size()) {
    out += "... (";
    out += std::to_string(whole.size());
    out += " bytes)";
  }
}

// `parsing time "<value>" as "<layout>": cannot parse "<rest>" as "<element>"`.
bool cannot_parse(std::string_view value, std::string_view rest, std::string_view element,
                  std::string& error) {
  error = "parsing time ";
  append_go_time_quote(error, value);
  error += " as ";
  append_go_time_quote(error, kLayout);
  error += ": cannot parse ";
  append_go_time_quote(error, rest);
  error += " as ";
  append_go_time_quote(error, element);
  return false;
}

// `parsing time "<value>": <what>`.
bool out_of_range(std::string_view value, std::string_view what, std::string& error) {
  error = "parsing time ";
  append_go_time_quote(error, value);
  error += ": ";
  error += what;
  return false;
}

bool is_leap(std::int64_t year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

int days_in(int month, std::int64_t year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && is_leap(year)) return 29;
  return kDays[month - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, int& m, int& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  y = yoe + era * 400 + (m <= 2 ? 1 : 0);
}

void append_padded(std::string& out, std::int64_t value, int width) {
  if (value < 0) {
    out += '-';
    value = -value;
  }
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (int i = n; i < width; ++i) out += '0';
  while (n > 0) out += digits[--n];
}

}  // namespace

bool GoTime::is_zero() const { return seconds == kZeroTimeSeconds && nanos == 0; }

// Go's general parser (time.parse) walking the RFC 3339 layout chunk by chunk: each chunk's
// errors, then the range errors, in Go's order.
bool parse_go_rfc3339(std::string_view text, GoTime& out, std::string& error) {
  std::string_view v = text;
  // "2006": four characters, the first a digit, all digits.
  if (v.size() < 4 || !is_digit(v, 0)) return cannot_parse(text, v, "2006", error);
  std::int64_t year = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    if (!is_digit(v, i)) return cannot_parse(text, v, "2006", error);
    year = year * 10 + (v[i] - '0');
  }
  v.remove_prefix(4);
  // A literal the layout holds between two fields.
  const auto skip = [&](char c) {
    if (v.empty() || v[0] != c) return false;
    v.remove_prefix(1);
    return true;
  };
  if (!skip('-')) return cannot_parse(text, v, "-", error);
  int month = 0;
  std::string_view hold = v;
  if (!get_num(v, true, month)) return cannot_parse(text, hold, "01", error);
  if (month <= 0 || month > 12) return out_of_range(text, "month out of range", error);
  if (!skip('-')) return cannot_parse(text, v, "-", error);
  int day = 0;
  hold = v;
  if (!get_num(v, true, day)) return cannot_parse(text, hold, "02", error);
  if (!skip('T')) return cannot_parse(text, v, "T", error);
  int hour = 0;
  hold = v;
  const bool hour_ok = get_num(v, false, hour);
  if (hour >= 24) return out_of_range(text, "hour out of range", error);
  if (!hour_ok) return cannot_parse(text, hold, "15", error);
  if (!skip(':')) return cannot_parse(text, v, ":", error);
  int minute = 0;
  hold = v;
  const bool minute_ok = get_num(v, true, minute);
  if (minute >= 60) return out_of_range(text, "minute out of range", error);
  if (!minute_ok) return cannot_parse(text, hold, "04", error);
  if (!skip(':')) return cannot_parse(text, v, ":", error);
  int second = 0;
  hold = v;
  if (!get_num(v, true, second)) return cannot_parse(text, hold, "05", error);
  if (second >= 60) return out_of_range(text, "second out of range", error);
  // A fraction the layout does not hold: its digits are read all the same, the first nine kept.
  std::int32_t nanos = 0;
  if (v.size() >= 2 && (v[0] == '.' || v[0] == ',') && is_digit(v, 1)) {
    std::size_t n = 2;
    while (is_digit(v, n)) ++n;
    const std::size_t kept = n > 10 ? 10 : n;
    for (std::size_t i = 1; i < kept; ++i) nanos = nanos * 10 + (v[i] - '0');
    for (std::size_t i = kept; i < 10; ++i) nanos *= 10;
    v.remove_prefix(n);
  }
  // "Z07:00": `Z`, or a sign, two digits, `:` and two digits.
  std::int64_t offset = 0;
  if (!v.empty() && v[0] == 'Z') {
    v.remove_prefix(1);
  } else {
    hold = v;
    if (v.size() < 6 || v[3] != ':') return cannot_parse(text, hold, "Z07:00", error);
    std::string_view hh = v.substr(1, 2);
    std::string_view mm = v.substr(4, 2);
    const char sign = v[0];
    v.remove_prefix(6);
    int hours = 0;
    int minutes = 0;
    bool ok = get_num(hh, true, hours);
    if (ok) ok = get_num(mm, true, minutes);
    // Go sets the hour's range error, then the minute's over it.
    if (minutes > 60) return out_of_range(text, "time zone offset minute out of range", error);
    if (hours > 24) return out_of_range(text, "time zone offset hour out of range", error);
    if (!ok || (sign != '+' && sign != '-')) return cannot_parse(text, hold, "Z07:00", error);
    offset = (hours * 60 + minutes) * 60;
    if (sign == '-') offset = -offset;
  }
  if (!v.empty()) {
    error = "parsing time ";
    append_go_time_quote(error, text);
    error += ": extra text: ";
    append_go_time_quote(error, v);
    return false;
  }
  if (day < 1 || day > days_in(month, year)) return out_of_range(text, "day out of range", error);
  out.seconds = days_from_civil(year, month, day) * kSecondsPerDay + hour * 3600 + minute * 60 +
                second - offset;
  out.nanos = nanos;
  return true;
}

void append_go_rfc3339(std::string& out, const GoTime& t) {
  std::int64_t days = t.seconds / kSecondsPerDay;
  std::int64_t rest = t.seconds % kSecondsPerDay;
  if (rest < 0) {
    rest += kSecondsPerDay;
    --days;
  }
  std::int64_t year = 0;
  int month = 0;
  int day = 0;
  civil_from_days(days, year, month, day);
  append_padded(out, year, 4);
  out += '-';
  append_padded(out, month, 2);
  out += '-';
  append_padded(out, day, 2);
  out += 'T';
  append_padded(out, rest / 3600, 2);
  out += ':';
  append_padded(out, rest / 60 % 60, 2);
  out += ':';
  append_padded(out, rest % 60, 2);
  out += 'Z';
}

namespace {

constexpr std::uint64_t kDurationLimit = std::uint64_t{1} << 63;

// Go's time.leadingInt: the leading digits of `s`, consumed; false on overflow.
bool leading_int(std::string_view& s, std::uint64_t& x) {
  x = 0;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (x > kDurationLimit / 10) return false;
    x = x * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (x > kDurationLimit) return false;
  }
  s.remove_prefix(i);
  return true;
}

// Go's time.leadingFraction: the digits after a '.', consumed; the digits beyond what an int64
// holds are read and dropped (`scale` counts only those kept).
void leading_fraction(std::string_view& s, std::uint64_t& x, double& scale) {
  x = 0;
  scale = 1;
  bool overflow = false;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (overflow) continue;
    if (x > (kDurationLimit - 1) / 10) {
      overflow = true;
      continue;
    }
    const std::uint64_t y = x * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (y > kDurationLimit) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  s.remove_prefix(i);
}

std::uint64_t duration_unit(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1000;  // U+00B5, U+03BC
  if (u == "ms") return 1000 * 1000;
  if (u == "s") return 1000 * 1000 * 1000;
  if (u == "m") return std::uint64_t{60} * 1000 * 1000 * 1000;
  if (u == "h") return std::uint64_t{3600} * 1000 * 1000 * 1000;
  return 0;
}

bool duration_error(std::string& error, std::string_view what, std::string_view text) {
  error = "time: ";
  error += what;
  append_go_time_quote(error, text);
  return false;
}

}  // namespace

bool parse_go_duration(std::string_view text, std::int64_t& nanos, std::string& error) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    nanos = 0;
    return true;
  }
  if (s.empty()) return duration_error(error, "invalid duration ", text);
  std::uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))) {
      return duration_error(error, "invalid duration ", text);
    }
    const std::size_t before = s.size();
    std::uint64_t whole = 0;
    if (!leading_int(s, whole)) return duration_error(error, "invalid duration ", text);
    const bool pre = s.size() != before;
    std::uint64_t fraction = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const std::size_t at = s.size();
      leading_fraction(s, fraction, scale);
      post = s.size() != at;
    }
    if (!pre && !post) return duration_error(error, "invalid duration ", text);
    std::size_t i = 0;
    while (i < s.size() && s[i] != '.' && !(s[i] >= '0' && s[i] <= '9')) ++i;
    if (i == 0) return duration_error(error, "missing unit in duration ", text);
    const std::string_view unit_text = s.substr(0, i);
    s.remove_prefix(i);
    const std::uint64_t unit = duration_unit(unit_text);
    if (unit == 0) {
      error = "time: unknown unit ";
      append_go_time_quote(error, unit_text);
      error += " in duration ";
      append_go_time_quote(error, text);
      return false;
    }
    if (whole > kDurationLimit / unit) return duration_error(error, "invalid duration ", text);
    whole *= unit;
    if (fraction > 0) {
      // As Go: float64 keeps a fraction of an hour exact to the nanosecond.
      whole += static_cast<std::uint64_t>(static_cast<double>(fraction) *
                                          (static_cast<double>(unit) / scale));
      if (whole > kDurationLimit) return duration_error(error, "invalid duration ", text);
    }
    total += whole;
    if (total > kDurationLimit) return duration_error(error, "invalid duration ", text);
  }
  if (negative) {
    nanos = total == kDurationLimit ? INT64_MIN : -static_cast<std::int64_t>(total);
    return true;
  }
  if (total > kDurationLimit - 1) return duration_error(error, "invalid duration ", text);
  nanos = static_cast<std::int64_t>(total);
  return true;
}

}  // namespace kpw
