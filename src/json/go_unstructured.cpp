// The unstructured converter's rules (k8s.io/apimachinery v0.36.2, runtime/converter.go
// fromUnstructured), per destination shape:
// - `null` becomes the zero value, whatever the type;
// - a string, a bool take only their own JSON type (an integer into a string is "cannot convert",
//   anything else "unrecognized type");
// - an integer takes an integer, or a float with no fractional part (1.5 is "cannot convert");
// - a struct, a map take an object, a slice an array ("cannot restore struct/map/slice from");
//   a struct's unknown members are ignored;
// - a type with its own UnmarshalJSON is given the value re-encoded as JSON: metav1.Time parses a
//   string with time.RFC3339, resource.Quantity a number or a string it can parse, IntOrString a
//   string or a number that unmarshals into an int32, FieldsV1 anything.
#include "json/go_unstructured.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "util/quantity.hpp"

namespace kpw::go_unstructured {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_integral(const JsonValue& v) {
  if (v.IsInt64() || v.IsUint64()) return true;
  if (!v.IsDouble()) return false;
  const double d = v.GetDouble();
  return std::isfinite(d) && std::trunc(d) == d;
}

// Go's json.Marshal writes a whole float64 below 1e21 without a fraction, so IntOrString then
// takes any whole number within int32.
bool is_int32(const JsonValue& v) {
  if (v.IsInt64()) return v.GetInt64() >= INT32_MIN && v.GetInt64() <= INT32_MAX;
  if (!v.IsDouble() || !is_integral(v)) return false;
  return v.GetDouble() >= static_cast<double>(INT32_MIN) &&
         v.GetDouble() <= static_cast<double>(INT32_MAX);
}

std::string_view expected(Shape shape) {
  switch (shape) {
    case Shape::kString:
      return "must be a string";
    case Shape::kBool:
      return "must be a boolean";
    case Shape::kInt:
      return "must be an integer";
    case Shape::kTime:
      return "must be a time in RFC 3339 form (2006-01-02T15:04:05Z)";
    case Shape::kQuantity:
      return "must be a quantity (a number, or a string such as \"500m\" or \"1Gi\")";
    case Shape::kIntOrString:
      return "must be a string or an integer that fits 32 bits";
    case Shape::kAny:
      return "";
    case Shape::kStruct:
    case Shape::kMap:
      return "must be an object";
    case Shape::kSlice:
      return "must be an array";
  }
  return "";
}

bool leaf_decodes(Shape shape, const JsonValue& v) {
  switch (shape) {
    case Shape::kString:
      return v.IsString();
    case Shape::kBool:
      return v.IsBool();
    case Shape::kInt:
      return v.IsNumber() && is_integral(v);
    case Shape::kTime:
      return v.IsString() && go_rfc3339(view(v));
    case Shape::kQuantity:
      return v.IsNumber() || (v.IsString() && go_quantity(view(v)));
    case Shape::kIntOrString:
      return v.IsString() || (v.IsNumber() && is_int32(v));
    case Shape::kAny:
      return true;
    case Shape::kStruct:
    case Shape::kMap:
    case Shape::kSlice:
      break;
  }
  return false;
}

void describe(const FieldPath& path, const JsonValue& value, Shape shape, std::string& why) {
  path.append_to(why);
  why += ": Invalid value: ";
  append_echoed_scalar(why, value);
  why += ": ";
  why += expected(shape);
}

// UTF-8 sequences of the Unicode white space Go's strings.TrimSpace trims beyond ASCII: U+0085,
// U+00A0, U+1680, U+2000…U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. The length of the one
// `text` starts with (ends with, when `at_end`), or 0.
std::size_t unicode_space(std::string_view text, bool at_end) {
  auto is_space = [](std::string_view s) {
    if (s.size() == 1) {
      const char c = s[0];
      return c == ' ' || (c >= '\t' && c <= '\r');
    }
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    if (s.size() == 2) return b(0) == 0xC2 && (b(1) == 0x85 || b(1) == 0xA0);
    if (b(0) == 0xE1) return b(1) == 0x9A && b(2) == 0x80;
    if (b(0) == 0xE3) return b(1) == 0x80 && b(2) == 0x80;
    if (b(0) != 0xE2) return false;
    if (b(1) == 0x80) return b(2) <= 0x8A || b(2) == 0xA8 || b(2) == 0xA9 || b(2) == 0xAF;
    return b(1) == 0x81 && b(2) == 0x9F;
  };
  for (std::size_t n = 1; n <= 3 && n <= text.size(); ++n) {
    const std::string_view s = at_end ? text.substr(text.size() - n) : text.substr(0, n);
    // A whole sequence only: its first byte is not a continuation byte.
    if ((static_cast<unsigned char>(s[0]) & 0xC0) == 0x80) continue;
    if (is_space(s)) return n;
  }
  return 0;
}

bool check(const Schema& schema, const JsonValue& v, std::uint16_t type_id, const FieldPath& path,
           std::string& why) {
  if (v.IsNull()) return true;
  const Type& type = schema.types[type_id];
  switch (type.shape) {
    case Shape::kStruct:
      if (!v.IsObject()) break;
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        const Field* field = schema.field(type, view(m->name));
        if (field == nullptr) continue;
        const FieldPath child = path.child(field->name);
        if (!check(schema, m->value, field->type, child, why)) return false;
      }
      return true;
    case Shape::kMap:
      if (!v.IsObject()) break;
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        const FieldPath child = path.key(view(m->name));
        if (!check(schema, m->value, type.elem, child, why)) return false;
      }
      return true;
    case Shape::kSlice:
      if (!v.IsArray()) break;
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const FieldPath child = path.index(i);
        if (!check(schema, v[i], type.elem, child, why)) return false;
      }
      return true;
    default:
      if (leaf_decodes(type.shape, v)) return true;
      break;
  }
  describe(path, v, type.shape, why);
  return false;
}

}  // namespace

const Field* Schema::field(const Type& t, std::string_view name) const {
  const auto first = fields.begin() + t.first_field;
  const auto last = first + t.fields;
  const auto it = std::lower_bound(first, last, name,
                                   [](const Field& f, std::string_view n) { return f.name < n; });
  return it != last && it->name == name ? &*it : nullptr;
}

bool decodes(const Schema& schema, const JsonValue& value, std::uint16_t type,
             const FieldPath& path, std::string& why) {
  return check(schema, value, type, path, why);
}

bool go_rfc3339(std::string_view s) {
  std::size_t p = 0;
  // `n` digits at p (n fixed), as a number; -1 when they are not there.
  auto digits = [&](std::size_t n) {
    if (s.size() - p < n) return -1;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_digit(s[p + i])) return -1;
      v = v * 10 + (s[p + i] - '0');
    }
    p += n;
    return v;
  };
  auto literal = [&](char c) {
    if (p >= s.size() || s[p] != c) return false;
    ++p;
    return true;
  };
  const int year = digits(4);
  if (year < 0 || !literal('-')) return false;
  const int month = digits(2);
  if (month < 1 || month > 12 || !literal('-')) return false;
  const int day = digits(2);  // checked against the month below, as Go does after parsing
  if (day < 0 || !literal('T')) return false;
  // stdHour: one or two digits.
  int hour = -1;
  if (p < s.size() && is_digit(s[p])) {
    hour = digits(p + 1 < s.size() && is_digit(s[p + 1]) ? 2 : 1);
  }
  if (hour < 0 || hour > 23 || !literal(':')) return false;
  const int minute = digits(2);
  if (minute < 0 || minute > 59 || !literal(':')) return false;
  const int second = digits(2);
  if (second < 0 || second > 59) return false;
  // A fraction the layout does not name: '.' or ',' and at least one digit, all of them taken.
  if (s.size() - p >= 2 && (s[p] == '.' || s[p] == ',') && is_digit(s[p + 1])) {
    p += 2;
    while (p < s.size() && is_digit(s[p])) ++p;
  }
  // Z07:00
  if (!literal('Z')) {
    if (s.size() - p < 6 || s[p + 3] != ':' || (s[p] != '+' && s[p] != '-')) return false;
    ++p;
    const int zone_hour = digits(2);
    ++p;  // the ':'
    const int zone_minute = digits(2);
    if (zone_hour < 0 || zone_minute < 0 || zone_hour > 24 || zone_minute > 60) return false;
  }
  if (p != s.size()) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  const int days = kDays[month - 1] + (month == 2 && leap ? 1 : 0);
  return day >= 1 && day <= days;
}

bool go_quantity(std::string_view text) {
  while (const std::size_t n = text.empty() ? 0 : unicode_space(text, false)) text.remove_prefix(n);
  while (const std::size_t n = text.empty() ? 0 : unicode_space(text, true)) text.remove_suffix(n);
  const QuantityError error = parse_quantity(text).error;
  return error == QuantityError::kNone || error == QuantityError::kRange;
}

}  // namespace kpw::go_unstructured
