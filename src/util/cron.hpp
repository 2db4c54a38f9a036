// Cron schedules as CronFederatedHPA's two readers read them: the webhook's (adhocore/gronx
// v1.6.3 IsValid, upstream's CFH-5) judged item by item (D-C1), and the controller's (robfig/cron
// v3 ParseStandard through gocron v1: D-C2) (docs/rules.md, "CronFederatedHPA").
#pragma once

#include <string>
#include <string_view>

namespace kpw {

// Go's strconv.Atoi: an optional sign, then one or more ASCII digits, within int64. False
// otherwise (empty, other characters, overflow).
bool go_atoi(std::string_view text, long long& value);

// gronx's grammar, every item of every field checked (D-C1): upstream's IsValid stops at the first
// item of a field that matches the current time, and skips non-numeric items while the current
// second, minute or hour is 0; this judges a schedule as upstream does at an instant where no item
// matches and no field's value is 0, so the verdict never depends on the clock. A plain `0` passes
// in any field but the weekday's (gronx's quirk, kept). `scratch` holds the normalized text (reused
// from call to call: no allocation once it has grown). Linear in the schedule.
//
// Normalizing (gronx's): trim spaces and tabs; a macro (`@yearly @annually @monthly @weekly
// @daily @hourly @always @5minutes @10minutes @15minutes @30minutes @everysecond`, any case)
// expands; runs of [\t\n\f\r ] become one space; upper case (Go's: `ı` and `ſ` too); `SUN`…`SAT`
// become 0…6 and `JAN`…`DEC` 1…12 wherever they appear; fields split at single spaces. 5 to 7
// fields; with 5, or 6 whose sixth holds four digits in a row, a seconds field `0` comes first.
bool gronx_schedule_valid(std::string_view schedule, std::string& scratch);

// Why the CronFederatedHPA controller cannot run `schedule` (robfig/cron v3 ParseStandard, as
// gocron v1 calls it: exactly 5 fields, minute 0-59, hour 0-23, day of month 1-31, month 1-12 or
// JAN-DEC, day of week 0-6 or SUN-SAT, each field a list of `*`, `?`, `n`, `a-b`, with `/step`;
// or one of the descriptors `@yearly @annually @monthly @weekly @daily @midnight @hourly`,
// case-sensitive): "" when it can. Meant for schedules gronx_schedule_valid accepts, which are
// never `@every <duration>` or `TZ=` forms (gronx refuses both), so those are not read here: a
// schedule starting `@every ` is answered "" unread.
std::string standard_cron_problem(std::string_view schedule);

}  // namespace kpw
