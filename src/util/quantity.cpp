#include "util/quantity.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>

namespace kpw {
namespace {

using U128 = unsigned __int128;

constexpr std::array<U128, 39> kPow10 = [] {
  std::array<U128, 39> p{};
  p[0] = 1;
  for (std::size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}();

// Kubernetes rounds every parsed value away from zero to a multiple of 10^kNanoExponent.
constexpr std::int64_t kNanoExponent = -9;

U128 magnitude(Quantity::Mantissa m) {
  return m < 0 ? U128{0} - static_cast<U128>(m) : static_cast<U128>(m);
}

int digit_count(U128 v) {
  int n = 0;
  while (n < static_cast<int>(kPow10.size()) && v >= kPow10[static_cast<std::size_t>(n)]) ++n;
  return n;  // v < 2^128 < 10^39: at most 39
}

template <typename T>
std::strong_ordering order(T a, T b) {
  if (a < b) return std::strong_ordering::less;
  if (a > b) return std::strong_ordering::greater;
  return std::strong_ordering::equal;
}

Quantity::Mantissa signed_mantissa(U128 magnitude, bool negative) {
  const auto m = static_cast<Quantity::Mantissa>(magnitude);  // magnitude <= kMaxMagnitude
  return negative ? -m : m;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The characters a suffix starts with (what Kubernetes' scanner accepts before an exponent).
bool is_suffix_char(char c) {
  switch (c) {
    case 'e':
    case 'E':
    case 'i':
    case 'n':
    case 'u':
    case 'm':
    case 'k':
    case 'K':
    case 'M':
    case 'G':
    case 'T':
    case 'P':
      return true;
    default:
      return false;
  }
}

// A decimal integer as Go's strconv.ParseInt(text, 10, 64) reads it: a sign, then at least one
// digit, within int64.
std::optional<std::int64_t> parse_int64(std::string_view text) {
  std::size_t i = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t v = 0;
  for (; i < text.size(); ++i) {
    if (!is_digit(text[i])) return std::nullopt;
    const auto d = static_cast<std::uint64_t>(text[i] - '0');
    if (v > (limit - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return static_cast<std::int64_t>(negative ? std::uint64_t{0} - v : v);
}

struct Suffix {
  bool ok = false;
  bool binary = false;        // a power of two, else of ten
  std::int64_t exponent = 0;  // of 2 or of 10
  bool si = false;            // a decimal SI suffix ("", m, k, …), not an exponent (e3)
};

Suffix interpret(std::string_view text) {
  struct Row {
    std::string_view text;
    bool binary;
    int exponent;
  };
  static constexpr std::array<Row, 16> kRows = {{
      {"", false, 0},
      {"n", false, -9},
      {"u", false, -6},
      {"m", false, -3},
      {"k", false, 3},
      {"M", false, 6},
      {"G", false, 9},
      {"T", false, 12},
      {"P", false, 15},
      {"E", false, 18},
      {"Ki", true, 10},
      {"Mi", true, 20},
      {"Gi", true, 30},
      {"Ti", true, 40},
      {"Pi", true, 50},
      {"Ei", true, 60},
  }};
  for (const Row& row : kRows) {
    if (row.text == text) return Suffix{true, row.binary, row.exponent, !row.binary};
  }
  if (text.size() > 1 && (text[0] == 'e' || text[0] == 'E')) {
    const std::optional<std::int64_t> exponent = parse_int64(text.substr(1));
    if (!exponent) return Suffix{};
    // Kubernetes keeps the exponent as an int32: a larger one wraps.
    return Suffix{true, false, static_cast<std::int32_t>(*exponent), false};
  }
  return Suffix{};
}

// The decimal digits of a value, least significant first, each at its power of ten: those at or
// above 10^-9 make the magnitude, a non-zero one below makes it round up.
struct Digits {
  U128 magnitude = 0;
  std::int64_t low = 0;  // the power of ten of magnitude's last digit
  bool started = false;  // a non-zero digit was kept
  bool sticky = false;   // a non-zero digit below 10^-9 was dropped
  bool overflow = false;

  void add(std::uint64_t digit, std::int64_t power) {
    if (power < kNanoExponent) {
      sticky = sticky || digit != 0;
      return;
    }
    if (digit == 0) return;
    if (!started) {
      started = true;
      low = power;
      magnitude = digit;
      return;
    }
    const std::int64_t shift = power - low;
    U128 scaled = 0;
    if (shift >= static_cast<std::int64_t>(kPow10.size()) ||
        __builtin_mul_overflow(U128{digit}, kPow10[static_cast<std::size_t>(shift)], &scaled) ||
        __builtin_add_overflow(magnitude, scaled, &magnitude) ||
        magnitude > Quantity::kMaxMagnitude) {
      overflow = true;
    }
  }

  // Away from zero, to a multiple of 10^-9, when something non-zero was dropped.
  void round_up() {
    if (!sticky || overflow) return;
    if (!started) {
      started = true;
      low = kNanoExponent;
      magnitude = 1;
      return;
    }
    const std::int64_t shift = low - kNanoExponent;
    U128 scaled = 0;
    if (shift >= static_cast<std::int64_t>(kPow10.size()) ||
        __builtin_mul_overflow(magnitude, kPow10[static_cast<std::size_t>(shift)], &scaled) ||
        scaled >= Quantity::kMaxMagnitude) {
      overflow = true;
      return;
    }
    magnitude = scaled + 1;
    low = kNanoExponent;
  }
};

ParsedQuantity failure(QuantityError error) { return ParsedQuantity{Quantity{}, error}; }

// The power of ten of the last digit of a decimal quantity: the exponent less the fraction digits,
// in int32 arithmetic as Kubernetes does it; the one value whose negation wraps (-2^31) is read
// back as +2^31 by its exact path.
std::int64_t decimal_scale(std::int64_t exponent, std::int64_t frac_digits) {
  const auto scale = static_cast<std::int32_t>(exponent - frac_digits);
  return scale == std::numeric_limits<std::int32_t>::min() ? std::int64_t{1} << 31 : scale;
}

}  // namespace

Quantity Quantity::of(Mantissa mantissa, std::int64_t exponent) {
  Quantity q;
  if (mantissa == 0) return q;
  // Most mantissas fit 64 bits: their trailing zeros found without 128-bit divisions.
  if (mantissa >= std::numeric_limits<std::int64_t>::min() &&
      mantissa <= std::numeric_limits<std::int64_t>::max()) {
    auto m = static_cast<std::int64_t>(mantissa);
    while (m % 10 == 0) {
      m /= 10;
      ++exponent;
    }
    q.mantissa_ = m;
    q.exponent_ = exponent;
    return q;
  }
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  q.mantissa_ = mantissa;
  q.exponent_ = exponent;
  return q;
}

std::optional<Quantity> Quantity::plus(const Quantity& other) const {
  if (is_zero()) return other;
  if (other.is_zero()) return *this;
  // `high` (the larger exponent) is scaled to `low`'s exponent.
  const Quantity& high = exponent_ >= other.exponent_ ? *this : other;
  const Quantity& low = &high == this ? other : *this;
  const __int128 shift = static_cast<__int128>(high.exponent_) - low.exponent_;
  // A non-zero mantissa times 10^39 is past 2^128: no sum with a mantissa below 2^127 fits.
  if (shift >= static_cast<__int128>(kPow10.size())) return std::nullopt;
  U128 a = 0;
  if (__builtin_mul_overflow(magnitude(high.mantissa_), kPow10[static_cast<std::size_t>(shift)],
                             &a)) {
    return std::nullopt;
  }
  const U128 b = magnitude(low.mantissa_);
  const bool a_negative = high.mantissa_ < 0;
  const bool b_negative = low.mantissa_ < 0;
  U128 sum = 0;
  bool negative = a_negative;
  if (a_negative == b_negative) {
    if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  } else if (a >= b) {
    sum = a - b;
  } else {
    sum = b - a;
    negative = b_negative;
  }
  if (sum > kMaxMagnitude) return std::nullopt;
  return of(signed_mantissa(sum, negative), low.exponent_);
}

bool Quantity::is_whole_in_millis() const {
  // Normalised: a negative exponent means a fractional value (the mantissa has no trailing zero).
  if (exponent_ >= 0) return true;
  if (exponent_ >= -3) return false;  // whole millis, not a multiple of 1000 of them
  // Finer than a milli: |mantissa| / 10^(-exponent - 3) millis, plus one for the dropped part
  // (never zero: the mantissa's last digit is not 0), away from zero.
  const std::int64_t shift = -exponent_ - 3;
  if (shift >= static_cast<std::int64_t>(kPow10.size())) return false;  // rounds to 1 milli
  const U128 millis = magnitude(mantissa_) / kPow10[static_cast<std::size_t>(shift)] + 1;
  return millis % 1000 == 0;
}

std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
  if (a.sign() != b.sign() || a.sign() == 0) return order(a.sign(), b.sign());
  if (a.exponent_ == b.exponent_) return order(a.mantissa_, b.mantissa_);  // the common case
  U128 ma = magnitude(a.mantissa_);
  U128 mb = magnitude(b.mantissa_);
  // Orders of magnitude first (digits + exponent), then the mantissas at one exponent.
  const __int128 oa = static_cast<__int128>(digit_count(ma)) + a.exponent_;
  const __int128 ob = static_cast<__int128>(digit_count(mb)) + b.exponent_;
  std::strong_ordering by_magnitude = order(oa, ob);
  if (by_magnitude == std::strong_ordering::equal) {
    // Same order: the exponents differ by less than 39, and a product past 2^128 is the larger.
    U128& scaled = a.exponent_ >= b.exponent_ ? ma : mb;
    const auto shift = static_cast<std::size_t>(
        a.exponent_ >= b.exponent_ ? a.exponent_ - b.exponent_ : b.exponent_ - a.exponent_);
    if (__builtin_mul_overflow(scaled, kPow10[shift], &scaled)) {
      by_magnitude = &scaled == &ma ? std::strong_ordering::greater : std::strong_ordering::less;
    } else {
      by_magnitude = order(ma, mb);
    }
  }
  return a.sign() > 0 ? by_magnitude : 0 <=> by_magnitude;
}

std::string Quantity::str() const {
  if (mantissa_ == 0) return "0";
  std::string digits;
  for (U128 v = magnitude(mantissa_); v != 0; v /= 10) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
  }
  std::reverse(digits.begin(), digits.end());
  std::string out = mantissa_ < 0 ? "-" : "";
  const auto n = static_cast<std::int64_t>(digits.size());
  if (exponent_ >= 0 && exponent_ <= 18) {
    out += digits;
    out.append(static_cast<std::size_t>(exponent_), '0');
  } else if (exponent_ > 18 || exponent_ < -40) {
    out += digits;
    out += exponent_ > 0 ? "e+" : "e";
    out += std::to_string(exponent_);
  } else if (-exponent_ < n) {
    out.append(digits, 0, static_cast<std::size_t>(n + exponent_));
    out += '.';
    out.append(digits, static_cast<std::size_t>(n + exponent_));
  } else {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent_ - n), '0');
    out += digits;
  }
  return out;
}

std::string_view quantity_error_message(QuantityError error) {
  switch (error) {
    case QuantityError::kNone:
      return "";
    case QuantityError::kFormat:
      return "quantities must match the regular expression "
             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    case QuantityError::kSuffix:
      return "unable to parse quantity's suffix";
    case QuantityError::kNumeric:
      return "unable to parse numeric part of quantity";
    case QuantityError::kRange:
      return "has more significant digits than can be compared exactly (38)";
  }
  return "";
}

namespace {

// The integer `v` × 10^`exponent`, its trailing zeros moved into the exponent in 64-bit
// arithmetic (Quantity::of then has none left to find with 128-bit divisions).
Quantity exact_integer(std::uint64_t v, std::int64_t exponent, bool negative) {
  if (v == 0) return Quantity{};
  while (v % 10 == 0) {
    v /= 10;
    ++exponent;
  }
  const auto m = static_cast<Quantity::Mantissa>(v);
  return Quantity::of(negative ? -m : m, exponent);
}

ParsedQuantity parse_exact(std::string_view s, bool negative, std::size_t int_begin,
                           std::size_t int_end, std::size_t frac_begin, std::size_t frac_end,
                           bool binary, int binary_exponent, std::int64_t last);

// Kubernetes' scanner (parseQuantityString): sign, leading zeros, integer digits, `.` and fraction
// digits, then the suffix: suffix characters, a sign, digits, and nothing else.
struct Scan {
  bool ok = false;    // the text has that shape
  bool zero = false;  // nothing but a sign and zeros: "0", "-000", "+"
  bool negative = false;
  std::size_t number_begin = 0;  // after the sign
  std::size_t int_begin = 0;     // after the leading zeros
  std::size_t int_end = 0;
  std::size_t frac_begin = 0;
  std::size_t frac_end = 0;
  std::size_t suffix_begin = 0;
};

Scan scan(std::string_view s) {
  Scan r;
  const std::size_t n = s.size();
  std::size_t pos = 0;
  r.negative = n > 0 && s[0] == '-';
  if (n > 0 && (s[0] == '-' || s[0] == '+')) pos = 1;
  r.number_begin = pos;
  while (pos < n && s[pos] == '0') ++pos;
  if (pos == n) {
    r.ok = r.zero = true;
    return r;
  }
  r.int_begin = pos;
  while (pos < n && is_digit(s[pos])) ++pos;
  r.int_end = pos;
  r.frac_begin = pos;
  if (pos < n && s[pos] == '.') {
    r.frac_begin = ++pos;
    while (pos < n && is_digit(s[pos])) ++pos;
  }
  r.frac_end = pos;
  r.suffix_begin = pos;
  while (pos < n && is_suffix_char(s[pos])) ++pos;
  if (pos < n && (s[pos] == '+' || s[pos] == '-')) ++pos;
  while (pos < n && is_digit(s[pos])) ++pos;
  r.ok = pos == n;
  return r;
}

}  // namespace

ParsedQuantity parse_quantity(std::string_view s) {
  const std::size_t n = s.size();
  if (n == 0) return failure(QuantityError::kFormat);
  const Scan sc = scan(s);
  if (!sc.ok) return failure(QuantityError::kFormat);
  if (sc.zero) return ParsedQuantity{};  // "0", "-000", and also "+" and "-": zero
  const bool negative = sc.negative;
  const std::size_t number_begin = sc.number_begin;
  const std::size_t int_begin = sc.int_begin;
  const std::size_t int_end = sc.int_end;
  const std::size_t frac_begin = sc.frac_begin;
  const std::size_t frac_end = sc.frac_end;
  const std::size_t suffix_begin = sc.suffix_begin;

  const Suffix suffix = interpret(s.substr(suffix_begin));
  if (!suffix.ok) return failure(QuantityError::kSuffix);

  // Kubernetes takes a fast path for short numbers and an exact one otherwise; only the exact one
  // refuses a number part without digits ("." or ""): past 2^49 for a binary suffix, or with a
  // last digit below 10^-9 for a decimal one.
  const bool has_digit = int_begin > number_begin || int_end > int_begin || frac_end > frac_begin;
  const auto frac_digits = static_cast<std::int64_t>(frac_end - frac_begin);
  std::int64_t last = 0;  // the power of ten of the last digit written
  int binary_exponent = 0;
  if (suffix.binary) {
    binary_exponent = static_cast<int>(suffix.exponent);
    last = -frac_digits;
    if (!has_digit && binary_exponent >= 50) return failure(QuantityError::kNumeric);
  } else {
    // The exponent less the fraction digits, in int32 arithmetic as Kubernetes does it; the
    // one value whose negation wraps (-2^31) is read back as +2^31 by its exact path.
    last = decimal_scale(suffix.exponent, frac_digits);
    if (!has_digit && last < kNanoExponent) return failure(QuantityError::kNumeric);
  }

  // The common case, an integer of at most 18 digits ("64", "256Gi", "500m"): exact in 64 bits,
  // nothing to round, nothing to cap. The digit-by-digit path below gives the same value for it
  // (test_quantity compares the two on every such form); it costs ~5x as much.
  const std::size_t int_digits = int_end - int_begin;
  if (frac_digits == 0 && int_digits <= 18 && has_digit &&
      (suffix.binary ? binary_exponent < 63 : last >= kNanoExponent)) {
    std::uint64_t v = 0;
    for (std::size_t i = int_begin; i < int_end; ++i)
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (suffix.binary) {
      if (v <= (std::uint64_t{std::numeric_limits<std::int64_t>::max()} >> binary_exponent)) {
        return ParsedQuantity{exact_integer(v << binary_exponent, 0, negative)};
      }
    } else {
      return ParsedQuantity{exact_integer(v, last, negative)};
    }
  }
  return parse_exact(s, negative, int_begin, int_end, frac_begin, frac_end, suffix.binary,
                     binary_exponent, last);
}

namespace {

ParsedQuantity parse_exact(std::string_view s, bool negative, std::size_t int_begin,
                           std::size_t int_end, std::size_t frac_begin, std::size_t frac_end,
                           bool binary, int binary_exponent, std::int64_t last) {
  // The digits times 2^binary_exponent, least significant first: each digit times the power plus
  // the carry (below 2^60, so below 10 * 2^60 < 2^64 in all).
  Digits digits;
  const std::uint64_t multiplier = std::uint64_t{1} << binary_exponent;
  std::uint64_t carry = 0;
  std::int64_t power = last;
  const auto feed = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = end; i > begin && !digits.overflow; --i) {
      const std::uint64_t x = static_cast<std::uint64_t>(s[i - 1] - '0') * multiplier + carry;
      digits.add(x % 10, power++);
      carry = x / 10;
    }
  };
  feed(frac_begin, frac_end);
  feed(int_begin, int_end);
  for (; carry != 0 && !digits.overflow; carry /= 10) digits.add(carry % 10, power++);
  digits.round_up();

  if (binary) {
    // Capped at 2^63 - 1 in magnitude.
    const Quantity cap = Quantity::of_int(std::numeric_limits<std::int64_t>::max());
    Quantity value =
        digits.overflow ? cap : Quantity::of(signed_mantissa(digits.magnitude, false), digits.low);
    if (value > cap) value = cap;
    return ParsedQuantity{negative ? value.negated() : value};
  }
  if (digits.overflow) return failure(QuantityError::kRange);
  return ParsedQuantity{Quantity::of(signed_mantissa(digits.magnitude, negative), digits.low)};
}

}  // namespace

namespace {

// Go's strings.TrimSpace: ASCII white space, U+0085, U+00A0 and the other Unicode spaces.
std::size_t space_at(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
  const auto byte = [&](std::size_t k) {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
  };
  if (c == 0xC2 && (byte(1) == 0x85 || byte(1) == 0xA0)) return 2;
  if (c == 0xE1 && byte(1) == 0x9A && byte(2) == 0x80) return 3;  // U+1680
  if (c == 0xE2 && byte(1) == 0x80 &&
      (byte(2) <= 0x8A || byte(2) == 0xA8 || byte(2) == 0xA9 || byte(2) == 0xAF)) {
    return 3;  // U+2000…U+200A, U+2028, U+2029, U+202F
  }
  if (c == 0xE2 && byte(1) == 0x81 && byte(2) == 0x9F) return 3;  // U+205F
  if (c == 0xE3 && byte(1) == 0x80 && byte(2) == 0x80) return 3;  // U+3000
  return 0;
}

std::string_view trim_go_space(std::string_view s) {
  while (!s.empty()) {
    const std::size_t n = space_at(s, 0);
    if (n == 0) break;
    s.remove_prefix(n);
  }
  // A space's last byte is 0x20, 0x09…0x0D, 0x85, 0xA0, 0x80…0x8A, 0xA8, 0xA9, 0xAF or 0x9F: try
  // each length that ends there.
  while (!s.empty()) {
    std::size_t cut = 0;
    for (std::size_t n = 1; n <= 3 && n <= s.size() && cut == 0; ++n) {
      if (space_at(s, s.size() - n) == n) cut = n;
    }
    if (cut == 0) break;
    s.remove_suffix(cut);
  }
  return s;
}

// Appends the decimal canonical form of (negative) digits × 10^scale, whose digits are already in
// `out` from `start` on, leading zeros stripped: rounded away from zero to a multiple of 10^-9,
// trailing zeros moved into the exponent, the exponent lowered to a multiple of three, then the
// suffix: SI (`m`, `k`, … `E`) or an exponent (`e6`).
void finish_decimal(std::string& out, std::size_t start, bool negative, std::int64_t scale,
                    bool si) {
  if (scale < kNanoExponent) {
    const std::int64_t drop = kNanoExponent - scale;
    const std::size_t digits = out.size() - start;
    bool sticky = false;
    const std::size_t keep =
        drop >= static_cast<std::int64_t>(digits) ? 0 : digits - static_cast<std::size_t>(drop);
    for (std::size_t i = start + keep; i < out.size() && !sticky; ++i) sticky = out[i] != '0';
    out.resize(start + keep);
    scale = kNanoExponent;
    if (sticky) {  // + 1 at 10^-9
      std::size_t i = out.size();
      while (i > start && out[i - 1] == '9') out[--i] = '0';
      if (i > start) {
        ++out[i - 1];
      } else {
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(start), '1');
      }
    }
  }
  while (out.size() > start && out.back() == '0') {
    out.pop_back();
    ++scale;
  }
  if (out.size() == start) {  // zero
    out.resize(start - (negative ? 1 : 0));
    out += '0';
    return;
  }
  const std::int64_t lower = ((scale % 3) + 3) % 3;
  out.append(static_cast<std::size_t>(lower), '0');
  scale -= lower;
  static constexpr std::array<std::string_view, 10> kSi = {"n", "u", "m", "",  "k",
                                                           "M", "G", "T", "P", "E"};
  if (si && scale <= 18) {
    out += kSi[static_cast<std::size_t>((scale + 9) / 3)];
  } else if (scale != 0) {
    // Past `E` (10^18) Kubernetes has no SI suffix and writes none, a value 10^21 times smaller
    // for "1000E": an exponent keeps the value (docs/compatibility.md, "/convert").
    out += 'e';
    out += std::to_string(scale);
  }
}

void append_u128(std::string& out, U128 v) {
  char digits[40];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  while (n > 0) out += digits[--n];
}

// A BinarySI value as Kubernetes writes it: within ±1024 or not whole as a decimal (DecimalSI),
// else the largest power of 1024 that divides it as its suffix.
void append_binary(std::string& out, const Quantity& q) {
  if (q.is_zero()) {
    out += '0';
    return;
  }
  const bool negative = q.sign() < 0;
  if (negative) out += '-';
  const Quantity size = negative ? q.negated() : q;
  const std::size_t start = out.size();
  U128 v = 0;
  if (size < Quantity::of_int(1024) || q.exponent() < 0 ||
      q.exponent() >= static_cast<std::int64_t>(kPow10.size()) ||
      __builtin_mul_overflow(magnitude(q.mantissa()),
                             kPow10[static_cast<std::size_t>(q.exponent())], &v)) {
    append_u128(out, magnitude(q.mantissa()));
    finish_decimal(out, start, negative, q.exponent(), true);
    return;
  }
  std::size_t times = 0;
  while (v >= 1024 && v % 1024 == 0 && times < 6) {
    v /= 1024;
    ++times;
  }
  static constexpr std::array<std::string_view, 7> kBinary = {"",   "Ki", "Mi", "Gi",
                                                              "Ti", "Pi", "Ei"};
  append_u128(out, v);
  out += kBinary[times];
}

}  // namespace

void append_quantity(std::string& out, const Quantity& value, QuantityFormat format) {
  if (format == QuantityFormat::kBinarySI) return append_binary(out, value);
  if (value.is_zero()) {
    out += '0';
    return;
  }
  const bool negative = value.sign() < 0;
  if (negative) out += '-';
  const std::size_t start = out.size();
  append_u128(out, magnitude(value.mantissa()));
  finish_decimal(out, start, negative, value.exponent(), format == QuantityFormat::kDecimalSI);
}

std::int64_t scaled_value(const Quantity& value, int scale) {
  constexpr auto kMax = static_cast<U128>(std::numeric_limits<std::int64_t>::max());
  const bool negative = value.sign() < 0;
  U128 m = magnitude(value.mantissa());
  const std::int64_t shift = value.exponent() + scale;
  if (shift >= 0) {
    if (m != 0 && (shift >= static_cast<std::int64_t>(kPow10.size()) ||
                   __builtin_mul_overflow(m, kPow10[static_cast<std::size_t>(shift)], &m))) {
      m = kMax + 1;
    }
  } else if (-shift >= static_cast<std::int64_t>(kPow10.size())) {
    m = m == 0 ? 0 : 1;  // a fraction: away from zero
  } else {
    const U128 divisor = kPow10[static_cast<std::size_t>(-shift)];
    m = m / divisor + (m % divisor != 0 ? 1 : 0);
  }
  if (negative) {
    return m > kMax ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(m);
  }
  return m > kMax ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(m);
}

QuantityError append_canonical_quantity(std::string& out, std::string_view text) {
  const std::string_view s = trim_go_space(text);
  if (s.empty()) return QuantityError::kFormat;
  if (s == "0") {
    out += '0';
    return QuantityError::kNone;
  }
  const ParsedQuantity parsed = parse_quantity(s);
  if (!parsed.ok() && parsed.error != QuantityError::kRange) return parsed.error;
  const Scan sc = scan(s);
  if (sc.zero) {
    out += '0';
    return QuantityError::kNone;
  }
  const Suffix suffix = interpret(s.substr(sc.suffix_begin));
  // Kubernetes' num (the integer digits without leading zeros, "0" when none) and denom.
  const std::string_view num =
      sc.int_end > sc.int_begin ? s.substr(sc.int_begin, sc.int_end - sc.int_begin) : "0";
  const std::string_view denom = s.substr(sc.frac_begin, sc.frac_end - sc.frac_begin);
  const auto denom_digits = static_cast<std::int64_t>(denom.size());

  // Kubernetes keeps the text it parsed when it is already canonical (its fast path, short
  // numbers only).
  if (suffix.binary) {
    const std::int64_t precision =
        15 - static_cast<std::int64_t>(num.size()) - suffix.exponent * 3 / 10 - 1;
    const std::optional<std::int64_t> value =
        denom.empty() && precision >= 0 ? parse_int64(num) : std::nullopt;
    std::int64_t product = 0;
    if (value && !__builtin_mul_overflow(*value, std::int64_t{1} << suffix.exponent, &product) &&
        (*value & 7) != 0) {
      out += s;
      return QuantityError::kNone;
    }
  } else if (num.size() + denom.size() <= 18 &&
             decimal_scale(suffix.exponent, denom_digits) >= kNanoExponent &&
             decimal_scale(suffix.exponent, denom_digits) % 3 == 0 && num[0] != '0') {
    // The digits num + denom must not end in "000".
    char shifted[20];
    const std::size_t n = num.copy(shifted, num.size());
    const std::size_t m = n + denom.copy(shifted + n, denom.size());
    if (std::string_view(shifted, m).substr(m - std::min<std::size_t>(m, 3)) != "000") {
      out += s;
      return QuantityError::kNone;
    }
  }

  if (suffix.binary) {
    append_binary(out, parsed.value);  // exact, rounded and capped as Kubernetes does
    return QuantityError::kNone;
  }
  if (sc.negative) out += '-';
  const std::size_t start = out.size();
  if (num != "0") out += num;
  std::size_t lead = 0;
  if (out.size() == start) {
    while (lead < denom.size() && denom[lead] == '0') ++lead;
  }
  out += denom.substr(lead);
  finish_decimal(out, start, sc.negative, decimal_scale(suffix.exponent, denom_digits), suffix.si);
  return QuantityError::kNone;
}

}  // namespace kpw
