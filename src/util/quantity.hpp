// Kubernetes resource quantities ("500m", "1.5Gi", "2e3"): parsed with Kubernetes' grammar and
// values (docs/compatibility.md, "Quantities"), held exactly (never as a double), compared, added.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpw {

// An exact value: mantissa × 10^exponent. The mantissa has no trailing zero digit (zero is
// 0 × 10^0), so equal values have equal representations. Any magnitude below 2^127 in mantissa
// units fits (38 significant digits at least); an operation whose exact result does not fit says
// so instead of rounding.
class Quantity {
 public:
  using Mantissa = __int128;
  // The largest mantissa magnitude kept: 2^127 - 1.
  static constexpr unsigned __int128 kMaxMagnitude = (static_cast<unsigned __int128>(1) << 127) - 1;

  constexpr Quantity() = default;
  // `mantissa` × 10^`exponent`, normalised.
  static Quantity of(Mantissa mantissa, std::int64_t exponent);
  static Quantity of_int(std::int64_t value) { return of(value, 0); }

  Mantissa mantissa() const { return mantissa_; }
  std::int64_t exponent() const { return exponent_; }
  int sign() const { return mantissa_ > 0 ? 1 : (mantissa_ < 0 ? -1 : 0); }
  bool is_zero() const { return mantissa_ == 0; }
  // Whether Kubernetes counts the value as a whole number where a resource must be one (its
  // `MilliValue() % 1000 == 0`): the value rounded away from zero to a multiple of 10^-3 is whole.
  // So `1.5` and `1.0001` are not, `0.9999` is (it rounds to 1); exact for every value (for one
  // whose milli value is beyond int64 Kubernetes' answer depends on its overflow handling).
  bool is_whole_in_millis() const;

  // The exact sum, or nullopt when it does not fit (1e50 + 1e-9 needs 60 digits).
  std::optional<Quantity> plus(const Quantity& other) const;
  Quantity negated() const { return of(-mantissa_, exponent_); }

  // Decimal text: "1073741824", "0.5", "-0.000000001"; "1e+40" past 18 trailing zeros.
  std::string str() const;

  friend bool operator==(const Quantity& a, const Quantity& b) = default;
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b);

 private:
  Mantissa mantissa_ = 0;
  std::int64_t exponent_ = 0;
};

// Why a text is not a quantity. The first three are Kubernetes' own errors (the messages are
// theirs); kRange is ours: a well-formed quantity whose exact value is beyond Quantity (more
// significant digits than 2^127 holds, e.g. a 40-digit integer), which we refuse rather than round.
enum class QuantityError : std::uint8_t { kNone, kFormat, kSuffix, kNumeric, kRange };
std::string_view quantity_error_message(QuantityError error);

struct ParsedQuantity {
  Quantity value;
  QuantityError error = QuantityError::kNone;
  bool ok() const { return error == QuantityError::kNone; }
};

// `<sign>?<digits>[.<digits>]<suffix>`, suffix one of n u m "" k M G T P E (powers of 1000),
// Ki Mi Gi Ti Pi Ei (powers of 1024), or e/E and a signed integer (a power of ten). As Kubernetes
// parses it: the value is rounded away from zero to a multiple of 10^-9 ("0.1n" is 1n), a
// binary-suffixed value is capped at ±(2^63 - 1) ("8Ei"), a decimal one is not; the exponent
// after `e` wraps as a 32-bit integer; a number part without digits is zero ("+", ".", "Ki"),
// except where Kubernetes' exact path refuses it ("Pi", "e-10": kNumeric). Linear in the text, no
// heap.
ParsedQuantity parse_quantity(std::string_view text);

// Appends the text Kubernetes writes for a quantity it read from JSON (resource.Quantity's
// UnmarshalJSON, then MarshalJSON): the text itself when Kubernetes keeps it ("100m", "1Gi", "+1",
// "1.230", "01": short, its exponent a multiple of three, not ending in 000), else the canonical
// form ("0.1" is 100m, "1.5Gi" 1536Mi, "1000e3" 1e6, "0.5Ki" 512, "8Ei" 9223372036854775807).
// `text` is a JSON string's content or a number's spelling; white space around it is ignored, as
// there. Any number of digits (kRange never happens). One difference: a decimal value from 10^21
// on written with an SI suffix ("1000E") is written with an exponent ("1e21"), where Kubernetes
// drops the suffix and writes "1". On error nothing is appended. Linear in the text.
QuantityError append_canonical_quantity(std::string& out, std::string_view text);

// The formats a Kubernetes quantity is written in (resource.Format).
enum class QuantityFormat : std::uint8_t { kDecimalSI, kBinarySI, kDecimalExponent };

// Appends a value Kubernetes computed (resource.NewQuantity, NewMilliQuantity, Add, Mul) as its
// Quantity.String() writes it in `format`: a BinarySI value within ±1024 or not whole is written
// as DecimalSI ("1k", "1500m"), else with the largest power-of-1024 suffix that divides it
// ("3Gi", "1536Mi", "1500"); decimal values are rounded away from zero to a multiple of 10^-9,
// their exponent a multiple of three ("1500m", "2", "5k", or "1e3" as DecimalExponent).
void append_quantity(std::string& out, const Quantity& value, QuantityFormat format);

// `value` × 10^`scale` rounded away from zero to an integer, as Go's Quantity.ScaledValue
// (Value() is scale 0, MilliValue() scale 3); saturated at the int64 range, where Go's wraps.
std::int64_t scaled_value(const Quantity& value, int scale);

}  // namespace kpw
