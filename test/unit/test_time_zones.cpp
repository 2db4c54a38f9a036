// util/time_zones: the built-in IANA names and Go's LoadLocation edge cases (CFH-6).
#include <catch2/catch.hpp>

#include "util/time_zones.hpp"

TEST_CASE("CFH-6 time zones: the built-in set, case-sensitive") {
  CHECK(kpw::is_known_time_zone("Europe/Berlin"));
  CHECK(kpw::is_known_time_zone("America/Argentina/Buenos_Aires"));
  CHECK(kpw::is_known_time_zone("US/Pacific"));  // a backward link
  CHECK(kpw::is_known_time_zone("posixrules"));
  CHECK(kpw::is_known_time_zone("Etc/GMT+5"));
  CHECK_FALSE(kpw::is_known_time_zone("europe/berlin"));
  CHECK_FALSE(kpw::is_known_time_zone("Europe"));
  CHECK_FALSE(kpw::is_known_time_zone("zone.tab"));
  CHECK_FALSE(kpw::is_known_time_zone("localtime"));
  CHECK(kpw::time_zone_count() > 598);  // Go's embedded list is a subset
  CHECK_FALSE(kpw::time_zone_data_version().empty());
}

TEST_CASE("CFH-6 time zones: LoadLocation's errors") {
  using kpw::LoadLocation;
  CHECK(kpw::load_location("") == LoadLocation::kLoaded);
  CHECK(kpw::load_location("UTC") == LoadLocation::kLoaded);
  CHECK(kpw::load_location("Local") == LoadLocation::kLoaded);
  CHECK(kpw::load_location("Asia/Shanghai") == LoadLocation::kLoaded);
  CHECK(kpw::load_location("utc") == LoadLocation::kUnknown);
  CHECK(kpw::load_location("Foo/Bar") == LoadLocation::kUnknown);
  CHECK(kpw::load_location("../etc/passwd") == LoadLocation::kInvalidName);
  CHECK(kpw::load_location("Europe/..") == LoadLocation::kInvalidName);
  CHECK(kpw::load_location("/etc/localtime") == LoadLocation::kInvalidName);
  CHECK(kpw::load_location("\\x") == LoadLocation::kInvalidName);
}
