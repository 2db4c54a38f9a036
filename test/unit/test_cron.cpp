// util/cron: gronx's grammar item by item (CFH-5, D-C1) and the controller's standard parser
// (D-C2); every verdict of gronx_schedule_valid here was asked of upstream's binary too
// (test/fixtures/validate-cronfederatedhpa and the replay in docs/compatibility.md).
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "util/cron.hpp"

namespace {

bool gronx(std::string_view schedule) {
  std::string scratch;
  return kpw::gronx_schedule_valid(schedule, scratch);
}

}  // namespace

TEST_CASE("cron: go_atoi reads as strconv.Atoi") {
  long long v = 0;
  CHECK((kpw::go_atoi("+5", v) && v == 5));
  CHECK((kpw::go_atoi("-5", v) && v == -5));
  CHECK((kpw::go_atoi("007", v) && v == 7));
  CHECK((kpw::go_atoi("9223372036854775807", v) && v == 9223372036854775807LL));
  CHECK((kpw::go_atoi("-9223372036854775808", v) && v == INT64_MIN));
  CHECK_FALSE(kpw::go_atoi("9223372036854775808", v));
  CHECK_FALSE(kpw::go_atoi("", v));
  CHECK_FALSE(kpw::go_atoi("+", v));
  CHECK_FALSE(kpw::go_atoi("1_000", v));
  CHECK_FALSE(kpw::go_atoi(" 1", v));
}

TEST_CASE("CFH-5 gronx: fields, bounds and forms") {
  CHECK(gronx("0 8 * * 1-5"));
  CHECK(gronx("*/15 * * * *"));
  CHECK(gronx("? ? ? ? ?"));
  CHECK(gronx("0 0 * JAN MON"));
  CHECK(gronx("0 0 * jan-mar mon-fri"));
  CHECK(gronx("0\t0  * * *\t"));
  CHECK_FALSE(gronx("0 0 1 13 *"));
  CHECK_FALSE(gronx("0 0 32 * *"));
  CHECK_FALSE(gronx("0 0 * * 8"));
  CHECK_FALSE(gronx("0 0 00 * *"));  // only a plain 0 passes out of range
  CHECK_FALSE(gronx("5-3 * * * *"));
  CHECK_FALSE(gronx("1-70/2 * * * *"));
  CHECK_FALSE(gronx("*/0 * * * *"));
  CHECK_FALSE(gronx("0 0 * JANUARY *"));
  CHECK_FALSE(gronx("0 0 * * SUNDAY"));
  CHECK_FALSE(gronx(""));
  CHECK_FALSE(gronx("* * * *"));
  CHECK_FALSE(gronx("* * * * * * * *"));
  CHECK_FALSE(gronx("99999999999999999999 * * * *"));
}

TEST_CASE("CFH-5 gronx quirks kept: a plain 0, steps, weekday 7, seconds and years") {
  CHECK(gronx("0 0 0 0 0"));
  CHECK(gronx("0 0 0 0 0 0 0"));
  CHECK(gronx("70/5 * * * *"));  // a lone start above the maximum is not checked
  CHECK(gronx("0 0 1/2/3 * *"));
  CHECK(gronx("0 0 1-2-x * *"));
  CHECK(gronx("0 0 * * 7-3"));  // 7- reads 0-
  CHECK(gronx("* * * * * *"));
  CHECK(gronx("* * * * * 2026"));
  CHECK(gronx("* * * * * * 9999"));
  CHECK_FALSE(gronx("* * * * * * 10000"));
  CHECK(gronx("@DAILY"));
  CHECK(gronx("@5minutes"));
  CHECK(gronx(" @hourly"));
  CHECK_FALSE(gronx("@midnight"));
  CHECK_FALSE(gronx("@every 1h"));
  CHECK(gronx("0 0 * * \xC5\xBFun"));  // Go's ToUpper: U+017F is S
  CHECK(gronx("@wee\xE2\x84\xAAly"));  // Go's ToLower: U+212A is k
}

TEST_CASE("CFH-5 gronx: L, W and #") {
  CHECK(gronx("0 0 L * *"));
  CHECK(gronx("0 0 15W * *"));
  CHECK(gronx("0 0 15Wxyz * *"));
  CHECK(gronx("0 0 -3W * *"));
  CHECK(gronx("0 0 * * 5L"));
  CHECK(gronx("0 0 * * 1#2"));
  CHECK(gronx("0 0 * * 1#2#3"));
  CHECK_FALSE(gronx("0 0 LW * *"));
  CHECK_FALSE(gronx("0 0 W * *"));
  CHECK_FALSE(gronx("0 0 1-L * *"));
  CHECK_FALSE(gronx("0 0 * * L"));
  CHECK_FALSE(gronx("0 0 * * #2"));
  CHECK_FALSE(gronx("0 0 * * 1#"));
  CHECK_FALSE(gronx("0 0 * * 1/2/L"));
}

TEST_CASE("D-C1 every item of a field is checked, whatever the clock") {
  // Upstream stops at the item that matches now: in November `11,13` passes, in December not.
  CHECK_FALSE(gronx("0 0 1 11,13 *"));
  CHECK_FALSE(gronx("0 0 1 1,2,3,4,5,6,7,8,9,10,11,12,13 *"));
  CHECK_FALSE(gronx("0 0 1,,15 * *"));
  // Upstream skips non-numeric items while the minute is 0.
  CHECK_FALSE(gronx("x * * * *"));
  CHECK_FALSE(gronx("60 * * * *"));
}

TEST_CASE("D-C2 the controller's standard parser") {
  CHECK(kpw::standard_cron_problem("0 8 * * 1-5").empty());
  CHECK(kpw::standard_cron_problem("@daily").empty());
  CHECK(kpw::standard_cron_problem("@midnight").empty());
  CHECK(kpw::standard_cron_problem("0 0 * jan-mar MON-fri").empty());
  CHECK(kpw::standard_cron_problem("*/5 * * * ?").empty());
  CHECK(kpw::standard_cron_problem("0 0 1,,15 * *").empty());  // robfig skips empty items
  CHECK(kpw::standard_cron_problem("0 0 * * 7") == R"(day-of-week "7": above the maximum 6)");
  CHECK(kpw::standard_cron_problem("0 0 L * *") == R"(day-of-month "L": "L" is not a number)");
  CHECK(kpw::standard_cron_problem("0 0 0 * *") == R"(day-of-month "0": below the minimum 1)");
  CHECK(kpw::standard_cron_problem("0 0 0/5 * *") == R"(day-of-month "0/5": below the minimum 1)");
  CHECK(kpw::standard_cron_problem("1/-1 * * * *") == R"(minute "1/-1": "-1" is negative)");
  CHECK(kpw::standard_cron_problem("70/5 * * * *") ==
        R"(minute "70/5": a range that begins after its end)");
  CHECK(kpw::standard_cron_problem("0 0 1-2-3 * *") == R"(day-of-month "1-2-3": too many hyphens)");
  CHECK(kpw::standard_cron_problem("0 0 1/2/3 * *") == R"(day-of-month "1/2/3": too many slashes)");
  CHECK(kpw::standard_cron_problem("0 0 0 * * *") ==
        "it reads exactly 5 fields (minute, hour, day-of-month, month, day-of-week), found 6");
  CHECK(kpw::standard_cron_problem("@DAILY") == R"("@DAILY": descriptors are lower case (@daily))");
  CHECK(kpw::standard_cron_problem("@5minutes").starts_with(R"("@5minutes" is not a descriptor)"));
}

TEST_CASE("D-C2 a reason quotes at most 64 bytes of an item") {
  const std::string item = std::string(1000, '1') + "L";
  const std::string problem = kpw::standard_cron_problem("0 0 * * " + item);
  CHECK(problem.size() < 200);
  CHECK(problem.starts_with("day-of-week \"1111"));
  CHECK(problem.find("... (1001 bytes)") != std::string::npos);
}
