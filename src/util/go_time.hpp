// Times as Kubernetes' metav1.Time reads and writes them in JSON: Go's time.Parse(time.RFC3339, s)
// (its general parser, with its messages), and the UTC RFC 3339 form to the second; durations as
// Go's time.ParseDuration reads them (upstream's duration flags).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kpw {

// An instant: seconds since 1970-01-01T00:00:00Z and the nanoseconds within the second.
struct GoTime {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
  // Go's zero Time (0001-01-01T00:00:00Z), which metav1.Time writes as `null`.
  bool is_zero() const;
};

// Reads `text` as time.Parse(time.RFC3339, text) does: two-digit month, day, minute and second,
// a one- or two-digit hour, an optional fraction after `.` or `,` (any number of digits, the first
// nine kept), `Z` or an offset `±hh:mm` (hours up to 24, minutes up to 60). On failure `error`
// holds Go's message (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as
// "2006"`, `parsing time "…": month out of range`). Linear in the text, no heap but the message.
bool parse_go_rfc3339(std::string_view text, GoTime& out, std::string& error);

// Appends `t` in UTC as Go's RFC 3339 layout writes it (no fraction): `2024-01-02T03:04:05Z`;
// a year outside 0…9999 as Go writes it (`-0001-12-31T23:00:00Z`, `10000-01-01T00:59:59Z`).
void append_go_rfc3339(std::string& out, const GoTime& t);

// Reads `text` as Go's time.ParseDuration does: an optional sign, then one or more decimal numbers
// (a fraction allowed) each with a unit `ns`, `us` (`µs`, `μs`), `ms`, `s`, `m` or `h` (`1h30m`,
// `1.5s`, `-2m`), or a bare `0`. `nanos` gets the duration; on failure `error` holds Go's message
// (`time: invalid duration "x"`, `time: missing unit in duration "1"`, `time: unknown unit "d" in
// duration "1d"`). Durations beyond Go's int64 nanoseconds (about 292 years) are invalid, as there.
bool parse_go_duration(std::string_view text, std::int64_t& nanos, std::string& error);

}  // namespace kpw
