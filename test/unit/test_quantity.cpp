// Kubernetes quantities: the grammar, exact values, compare and add (docs/compatibility.md,
// "Quantities").
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "util/quantity.hpp"

using kpw::parse_quantity;
using kpw::ParsedQuantity;
using kpw::Quantity;
using kpw::QuantityError;

namespace {

// The exact value of `text` as decimal text; the error's name when it is not a quantity.
std::string value_of(std::string_view text) {
  const ParsedQuantity q = parse_quantity(text);
  switch (q.error) {
    case QuantityError::kNone:
      return q.value.str();
    case QuantityError::kFormat:
      return "<format>";
    case QuantityError::kSuffix:
      return "<suffix>";
    case QuantityError::kNumeric:
      return "<numeric>";
    case QuantityError::kRange:
      return "<range>";
  }
  return "<?>";
}

Quantity q(std::string_view text) {
  const ParsedQuantity p = parse_quantity(text);
  REQUIRE(p.ok());
  return p.value;
}

}  // namespace

TEST_CASE("quantity: decimal suffixes") {
  CHECK(value_of("1n") == "0.000000001");
  CHECK(value_of("1u") == "0.000001");
  CHECK(value_of("1m") == "0.001");
  CHECK(value_of("1") == "1");
  CHECK(value_of("1k") == "1000");
  CHECK(value_of("1M") == "1000000");
  CHECK(value_of("1G") == "1000000000");
  CHECK(value_of("1T") == "1000000000000");
  CHECK(value_of("1P") == "1000000000000000");
  CHECK(value_of("1E") == "1000000000000000000");
  CHECK(value_of("250m") == "0.25");
  CHECK(value_of("1500m") == "1.5");
  CHECK(value_of("7E") == "7000000000000000000");
  CHECK(value_of("123E") == "123000000000000000000");  // decimal values are not capped
  CHECK(value_of("100E") == "1e+20");
}

TEST_CASE("quantity: binary suffixes") {
  CHECK(value_of("1Ki") == "1024");
  CHECK(value_of("1Mi") == "1048576");
  CHECK(value_of("1Gi") == "1073741824");
  CHECK(value_of("1Ti") == "1099511627776");
  CHECK(value_of("1Pi") == "1125899906842624");
  CHECK(value_of("1Ei") == "1152921504606846976");
  CHECK(value_of("1.5Gi") == "1610612736");
  CHECK(value_of("0.1Ki") == "102.4");
  CHECK(value_of("0.5Ei") == "576460752303423488");
  CHECK(q("1Gi") == q("1024Mi"));
  CHECK(q("1Gi") == q("1073741824"));
  CHECK(q("1024Mi") == q("1073741824"));
  CHECK(q("1Ki") == q("1.024k"));
}

TEST_CASE("quantity: a binary value is capped at 2^63 - 1, a decimal one is not") {
  CHECK(value_of("7Ei") == "8070450532247928832");
  CHECK(value_of("8Ei") == "9223372036854775807");
  CHECK(value_of("-8Ei") == "-9223372036854775807");
  CHECK(value_of("9223372036854775807Ki") == "9223372036854775807");
  CHECK(value_of("1" + std::string(60, '0') + "Ki") == "9223372036854775807");
  CHECK(value_of("9223372036854775808") == "9223372036854775808");
  CHECK(value_of("18446744073709551616") == "18446744073709551616");
}

TEST_CASE("quantity: exponents") {
  CHECK(value_of("1e3") == "1000");
  CHECK(value_of("1E3") == "1000");
  CHECK(value_of("1e+3") == "1000");
  CHECK(value_of("1e-3") == "0.001");
  CHECK(value_of("1.5e3") == "1500");
  CHECK(value_of("15e-1") == "1.5");
  CHECK(value_of("1e0") == "1");
  CHECK(value_of("1e-0") == "1");
  CHECK(value_of("2e0009") == "2000000000");
  CHECK(value_of("1e40") == "1e+40");
  CHECK(value_of("1e-9") == "0.000000001");
  CHECK(q("1e-9") == q("1n"));
  CHECK(q("1e3") == q("1k"));
  // Kubernetes keeps the exponent as an int32: 2^32 wraps to 0.
  CHECK(value_of("1e4294967296") == "1");
  CHECK(value_of("1e4294967299") == "1000");
  CHECK(value_of("1e9223372036854775807") == "0.1");  // 2^63 - 1 wraps to -1
  // The exponent less the fraction digits wraps too: -2^31 - 1 is 2^31 - 1 ...
  CHECK(value_of("1.5e-2147483648") == "15e+2147483647");
  // ... and -2^31 itself, on Kubernetes' exact path, is read back as +2^31.
  CHECK(value_of("0.5e2147483649") == "5e+2147483648");
}

TEST_CASE("quantity: finer than 10^-9 rounds away from zero") {
  CHECK(value_of("0.9n") == "0.000000001");
  CHECK(value_of("-0.9n") == "-0.000000001");
  CHECK(value_of("1.1n") == "0.000000002");
  CHECK(value_of("1e-10") == "0.000000001");
  CHECK(value_of("12e-12") == "0.000000001");
  CHECK(value_of("1.0000000001") == "1.000000001");
  CHECK(value_of("0.9999999999") == "1");
  CHECK(value_of("1.000000000000") == "1");
  CHECK(value_of("0.0000000000000000000000000000000000000000000001") == "0.000000001");
  CHECK(value_of("1.5n") == "0.000000002");
  CHECK(value_of("1n") == "0.000000001");
  CHECK(value_of("1.0000000000000000000000000000000000000001Ki") == "1024.000000001");
  CHECK(value_of("0." + std::string(1 << 20, '0') + "1") == "0.000000001");
}

TEST_CASE("quantity: signs") {
  CHECK(value_of("-1") == "-1");
  CHECK(value_of("+1") == "1");
  CHECK(value_of("-1Ki") == "-1024");
  CHECK(value_of("-1.5") == "-1.5");
  CHECK(value_of("-500m") == "-0.5");
  CHECK(value_of("-0") == "0");
  CHECK(value_of("+0.000") == "0");
  CHECK(parse_quantity("-0").value.sign() == 0);
  CHECK(parse_quantity("-3").value.sign() == -1);
}

TEST_CASE("quantity: number parts Kubernetes reads as zero") {
  CHECK(value_of("0") == "0");
  CHECK(value_of("000") == "0");
  CHECK(value_of("+") == "0");
  CHECK(value_of("-") == "0");
  CHECK(value_of(".") == "0");
  CHECK(value_of(".5") == "0.5");
  CHECK(value_of("5.") == "5");
  CHECK(value_of("1.Gi") == "1073741824");
  CHECK(value_of("k") == "0");
  CHECK(value_of("Ki") == "0");
  CHECK(value_of("Ti") == "0");
  CHECK(value_of("e5") == "0");
  CHECK(value_of("n") == "0");
  // ... except where its exact path needs digits.
  CHECK(value_of("Pi") == "<numeric>");
  CHECK(value_of("Ei") == "<numeric>");
  CHECK(value_of("e-10") == "<numeric>");
  CHECK(value_of("-.e-10") == "<numeric>");
  CHECK(value_of("0Pi") == "0");
  CHECK(value_of("0e-10") == "0");
}

TEST_CASE("quantity: malformed texts") {
  for (const char* text : {"", "abc", "1Q", "1.2.3", " 1", "1 ", "1e1e1", "1e3.5", "1,5", "0x10",
                           "1Mi5k", "\xc2\xb5", "1_000"}) {
    INFO(text);
    CHECK(value_of(text) == "<format>");
  }
  for (const char* text : {"1K", "1i", "1Kii", "1e", "1E+", "1e+", "1ee5", "1em5", "1Mi5", "--1",
                           "1mi", "1kk", "1e99999999999999999999", "1Gi-1", "--"}) {
    INFO(text);
    CHECK(value_of(text) == "<suffix>");
  }
}

TEST_CASE("quantity: a value beyond 2^127 units is refused, never rounded") {
  CHECK(value_of(std::string(38, '9')) == std::string(38, '9'));
  CHECK(value_of("170141183460469231731687303715884105727") ==
        "170141183460469231731687303715884105727");  // 2^127 - 1
  CHECK(value_of("170141183460469231731687303715884105728") == "<range>");
  CHECK(value_of("323456789012345678901234567890.123456789") == "<range>");
  CHECK(value_of("1" + std::string(100, '0')) == "1e+100");  // one significant digit
}

TEST_CASE("quantity: compare") {
  CHECK(q("1Ki") > q("1k"));
  CHECK(q("1k") < q("1Ki"));
  CHECK(q("-1") < q("0"));
  CHECK(q("-2") < q("-1"));
  CHECK(q("-1Ki") < q("-1k"));
  CHECK(q("0") == q("-0"));
  CHECK(q("1e40") > q("9e39"));
  CHECK(q("999m") < q("1"));
  CHECK(q("1.000000001") > q("1"));
  CHECK(q("100") > q("99.999999999"));
  CHECK(q(std::string(38, '9')) > q("9e36"));
  CHECK(q("9e37") < q(std::string(38, '9')));
  CHECK((q("1") <=> q("1000m")) == std::strong_ordering::equal);
}

TEST_CASE("quantity: add") {
  CHECK(q("500m").plus(q("0.5")) == q("1"));
  CHECK(q("500m").plus(q("0.5"))->str() == "1");
  CHECK(q("1Gi").plus(q("-1024Mi"))->is_zero());
  CHECK(q("1.5").plus(q("-2"))->str() == "-0.5");
  CHECK(q("1k").plus(q("1n"))->str() == "1000.000000001");
  CHECK(q("0").plus(q("7"))->str() == "7");
  CHECK(q("7").plus(q("0"))->str() == "7");
  CHECK(q("1e30").plus(q("1e30"))->str() == "2e+30");
}

TEST_CASE("quantity: sums at the int64 edge are exact") {
  const auto max = std::numeric_limits<std::int64_t>::max();
  const auto min = std::numeric_limits<std::int64_t>::min();
  CHECK(Quantity::of_int(max).plus(Quantity::of_int(1))->str() == "9223372036854775808");
  CHECK(Quantity::of_int(min).plus(Quantity::of_int(-1))->str() == "-9223372036854775809");
  CHECK(Quantity::of_int(max).plus(Quantity::of_int(max))->str() == "18446744073709551614");
  CHECK(Quantity::of_int(min).plus(Quantity::of_int(max))->str() == "-1");
  CHECK(q("8Ei").plus(q("1"))->str() == "9223372036854775808");
  CHECK(q("8Ei").plus(q("8Ei"))->str() == "18446744073709551614");  // each capped at 2^63 - 1
  CHECK(q("9223372036854775807").plus(q("1")) == q("9223372036854775808"));
  CHECK(q("-9223372036854775808").plus(q("-1"))->str() == "-9223372036854775809");
  CHECK(q("9223372036854775807").plus(q("1n"))->str() == "9223372036854775807.000000001");
  // Past 2^127 units: refused, never rounded.
  const Quantity top = q("170141183460469231731687303715884105727");
  CHECK_FALSE(top.plus(q("1")).has_value());
  CHECK(top.plus(q("-1"))->str() == "170141183460469231731687303715884105726");
  CHECK(top.plus(top.negated())->is_zero());
  CHECK_FALSE(q("1e50").plus(q("1n")).has_value());
  // A sum that cancels below 2^127 is exact even when one term is scaled past it.
  CHECK(q("17014118346046923173168730371588410573e1")
            .plus(q("-170141183460469231731687303715884105727"))
            ->str() == "3");
}

TEST_CASE("quantity: whole in millis, as Kubernetes' MilliValue() % 1000 (Q-6)") {
  // Rounded away from zero to a multiple of 10^-3 first: 0.9999 is 1000 millis, so whole.
  for (const char* text : {"0", "1", "-1", "1k", "1Ki", "0.5Ki", "1e3", "1000m", "2.000", "0.9999",
                           "-0.9999", "1.9995", "999999u", "8Ei", "1e30", "12345678901234567890"}) {
    INFO(text);
    CHECK(q(text).is_whole_in_millis());
  }
  for (const char* text : {"1.5", "500m", "1m", "-1.5", "1.0001", "1n", "1e-400000", "1.999",
                           "1e-1", "0.1Ki", "-0.1Ki"}) {
    INFO(text);
    CHECK_FALSE(q(text).is_whole_in_millis());
  }
}

TEST_CASE("quantity: an integer with any suffix is exact, fast path or not (up to 19 digits)") {
  // The 64-bit path for integers of at most 18 digits and the digit-by-digit one beyond must
  // give the value an independent computation gives: digits × 10^e, or × 2^b capped at 2^63 - 1.
  struct Suffix {
    std::string text;
    bool binary;
    int exponent;
  };
  const std::vector<Suffix> suffixes = {
      {"", false, 0},      {"n", false, -9}, {"u", false, -6},   {"m", false, -3},
      {"k", false, 3},     {"M", false, 6},  {"G", false, 9},    {"T", false, 12},
      {"P", false, 15},    {"E", false, 18}, {"Ki", true, 10},   {"Mi", true, 20},
      {"Gi", true, 30},    {"Ti", true, 40}, {"Pi", true, 50},   {"Ei", true, 60},
      {"e0", false, 0},    {"e3", false, 3}, {"E-9", false, -9}, {"e+5", false, 5},
      {"e400", false, 400}};
  const std::vector<std::string> numbers = {"0",
                                            "7",
                                            "10",
                                            "64",
                                            "500",
                                            "1024",
                                            "120000",
                                            "999999999",
                                            "123456789012345678",
                                            "999999999999999999",
                                            "1234567890123456789",
                                            "9223372036854775807",
                                            "00042"};
  const auto cap = static_cast<__int128>(std::numeric_limits<std::int64_t>::max());
  for (const std::string& n : numbers) {
    __int128 v = 0;
    for (const char c : n) v = v * 10 + (c - '0');
    for (const Suffix& s : suffixes) {
      for (const bool negative : {false, true}) {
        const std::string text = (negative ? "-" : "") + n + s.text;
        Quantity want;
        if (s.binary) {
          __int128 scaled = v;
          bool capped = false;
          for (int i = 0; i < s.exponent && !capped; ++i) {
            scaled *= 2;
            capped = scaled > cap;
          }
          if (capped || scaled > cap) scaled = cap;
          want = Quantity::of(negative ? -scaled : scaled, 0);
        } else {
          want = Quantity::of(negative ? -v : v, s.exponent);
        }
        const ParsedQuantity got = parse_quantity(text);
        INFO(text);
        REQUIRE(got.ok());
        CHECK(got.value == want);
      }
    }
  }
}
