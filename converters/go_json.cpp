#include "converters/go_json.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <vector>

#include "util/go_time.hpp"
#include "util/quantity.hpp"

namespace kpw::go {
namespace {

// The deepest field path a table holds (ResourceBindingList.items.status.aggregatedStatus.…).
constexpr std::size_t kMaxPath = 12;

// A number as Go's decoder quotes it in an error: its spelling, here the shortest one that reads
// back as it (the reader keeps no spelling: `1.0` is quoted as 1).
void append_number(std::string& out, const JsonValue& v) {
  if (v.IsInt64()) {
    out += std::to_string(v.GetInt64());
  } else if (v.IsUint64()) {
    out += std::to_string(v.GetUint64());
  } else {
    append_go_float(out, v.GetDouble());
  }
}

// Whether Go's encoder escapes a character of `text` (`"`, `\`, a control character, <, >, &,
// U+2028, U+2029): written by the API server, such a string holds a backslash.
bool go_escapes(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&') return true;
    if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(text[i + 2]) == 0xA8 ||
         static_cast<unsigned char>(text[i + 2]) == 0xA9)) {
      return true;
    }
  }
  return false;
}

// A quantity as resource.Quantity's decoder reads it and its encoder writes it. The decoder reads
// the JSON text between the quotes, escapes and all; we see the string decoded, so a string
// holding what the API server writes escaped is refused as the backslash makes Kubernetes refuse
// it (a string escaped where the API server would not escape it reads as its characters).
QuantityError append_quantity(std::string& out, const JsonValue& v) {
  if (v.IsString()) {
    if (go_escapes(view(v))) return QuantityError::kFormat;
    return append_canonical_quantity(out, view(v));
  }
  if (v.IsNumber()) {
    std::string spelling;
    append_number(spelling, v);
    return append_canonical_quantity(out, spelling);
  }
  if (v.IsNull()) {  // the zero Quantity
    out += '0';
    return QuantityError::kNone;
  }
  return QuantityError::kFormat;  // a bool, an object, an array
}

bool fits(const JsonValue& v, Type type) {
  if (!v.IsInt64()) return false;  // past int64, or not a whole number
  if (type != Type::kInt32) return true;
  const std::int64_t n = v.GetInt64();
  return n >= std::numeric_limits<std::int32_t>::min() &&
         n <= std::numeric_limits<std::int32_t>::max();
}

// One object read against a table, as Go's decodeState reads it: the first type error is kept
// and reading goes on; a value's own decoder (metav1.Time, resource.Quantity) failing ends it.
class Reader {
 public:
  // False when the read ended.
  bool read_struct(const Struct& type, const JsonValue& object) {
    for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
      const std::string_view name = view(it->name);
      const auto field = std::find_if(type.fields.begin(), type.fields.end(),
                                      [&](const Field& f) { return f.name == name; });
      if (field == type.fields.end()) continue;  // unknown: skipped
      path_[depth_++] = field->name;
      const bool go_on = read_field(type, *field, it->value);
      --depth_;
      if (!go_on) return false;
    }
    return true;
  }

  std::string error() const { return fatal_.empty() ? saved_ : fatal_; }

 private:
  // `json: cannot unmarshal <what> into Go struct field <Struct>.<path> of type <go_type>`.
  std::string type_error(const JsonValue& v, bool with_number, std::string_view struct_name,
                         std::string_view go_type) const {
    std::string e = "json: cannot unmarshal ";
    e += json_kind(v);
    if (with_number) {
      e += ' ';
      append_number(e, v);
    }
    e += " into Go struct field ";
    e += struct_name;
    for (std::size_t i = 0; i < depth_; ++i) {
      e += '.';
      e += path_[i];
    }
    e += " of type ";
    e += go_type;
    return e;
  }

  void save(std::string error) {
    if (saved_.empty()) saved_ = std::move(error);
  }

  bool fail(std::string error) {
    fatal_ = std::move(error);
    return false;
  }

  bool read_quantity(const JsonValue& v) {
    scratch_.clear();
    const QuantityError error = append_quantity(scratch_, v);
    if (error == QuantityError::kNone) return true;
    return fail(std::string(quantity_error_message(error)));
  }

  bool read_field(const Struct& type, const Field& f, const JsonValue& v) {
    if (v.IsNull()) return true;  // every Go type takes null (a no-op, or nil)
    switch (f.type) {
      case Type::kString:
        if (!v.IsString()) save(type_error(v, false, type.name, f.go_type));
        return true;
      case Type::kBool:
      case Type::kBoolPointer:
        if (!v.IsBool()) save(type_error(v, false, type.name, f.go_type));
        return true;
      case Type::kInt32:
      case Type::kInt64:
      case Type::kInt64Pointer:
        if (!v.IsNumber()) {
          save(type_error(v, false, type.name, f.go_type));
        } else if (!fits(v, f.type)) {
          save(type_error(v, true, type.name, f.go_type));
        }
        return true;
      case Type::kTime:
      case Type::kTimePointer: {
        // metav1.Time's own decoder: a string (its inner json.Unmarshal's type error, with the
        // field named), then time.Parse; either error ends the read.
        if (!v.IsString()) return fail(type_error(v, false, type.name, "string"));
        GoTime t;
        std::string error;
        if (!parse_go_rfc3339(view(v), t, error)) return fail(std::move(error));
        return true;
      }
      case Type::kStringMap:
      case Type::kStringList: {
        const bool map = f.type == Type::kStringMap;
        if (map ? !v.IsObject() : !v.IsArray()) {
          save(type_error(v, false, type.name, f.go_type));
          return true;
        }
        const auto check = [&](const JsonValue& item) {
          if (!item.IsNull() && !item.IsString())
            save(type_error(item, false, type.name, "string"));
        };
        if (map) {
          for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) check(it->value);
        } else {
          for (const JsonValue& item : v.GetArray()) check(item);
        }
        return true;
      }
      case Type::kQuantityMap:
        if (!v.IsObject()) {
          save(type_error(v, false, type.name, f.go_type));
          return true;
        }
        for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
          if (!it->value.IsNull() && !read_quantity(it->value)) return false;
        }
        return true;
      case Type::kRaw:
        return true;
      case Type::kStruct:
        if (!v.IsObject()) {
          save(type_error(v, false, type.name, f.go_type));
          return true;
        }
        return read_struct(*f.of, v);
      case Type::kStructList:
        if (!v.IsArray()) {
          save(type_error(v, false, type.name, f.go_type));
          return true;
        }
        for (const JsonValue& item : v.GetArray()) {
          if (item.IsNull()) continue;
          if (!item.IsObject()) {
            save(type_error(item, false, type.name, f.item_go_type));
          } else if (!read_struct(*f.of, item)) {
            return false;
          }
        }
        return true;
      case Type::kDroppedStruct:
        if (!v.IsObject()) save(type_error(v, false, type.name, f.go_type));
        return true;
      case Type::kDroppedList:
        if (!v.IsArray()) save(type_error(v, false, type.name, f.go_type));
        return true;
    }
    return true;
  }

  std::array<std::string_view, kMaxPath> path_{};
  std::size_t depth_ = 0;
  std::string saved_;
  std::string fatal_;
  std::string scratch_;  // a quantity's canonical form, which the read does not keep
};

void append_int(std::string& out, const JsonValue* v) {
  out += std::to_string(v != nullptr && v->IsInt64() ? v->GetInt64() : 0);
}

void append_time(std::string& out, const JsonValue* v) {
  GoTime t{};
  std::string error;
  if (v == nullptr || !parse_go_rfc3339(view(*v), t, error) || t.is_zero()) {
    out += "null";
    return;
  }
  out += '"';
  append_go_rfc3339(out, t);
  out += '"';
}

bool zero_time(const JsonValue* v) {
  GoTime t{};
  std::string error;
  return v == nullptr || !parse_go_rfc3339(view(*v), t, error) || t.is_zero();
}

// A map's members in Go's order (sorted by key, byte by byte); small maps on the stack.
template <typename Fn>
void for_each_sorted(const JsonValue& map, Fn&& fn) {
  using Member = const JsonValue::Member*;
  constexpr std::size_t kInline = 64;
  std::array<Member, kInline> inline_members;
  std::vector<Member> heap_members;
  Member* begin = inline_members.data();
  const std::size_t n = map.MemberCount();
  if (n > kInline) {
    heap_members.resize(n);
    begin = heap_members.data();
  }
  std::size_t i = 0;
  for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) begin[i++] = &*it;
  std::sort(begin, begin + n, [](Member a, Member b) { return view(a->name) < view(b->name); });
  for (std::size_t k = 0; k < n; ++k) fn(*begin[k]);
}

}  // namespace

std::string_view json_kind(const JsonValue& value) {
  switch (value.GetType()) {
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
    case rapidjson::kTrueType:
    case rapidjson::kFalseType:
      return "bool";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kNullType:
      break;
  }
  return "null";
}

std::string decode_errors(const Struct& type, const JsonValue& object) {
  Reader reader;
  reader.read_struct(type, object);
  return reader.error();
}

bool append_field(std::string& out, const Field& f, const JsonValue* v, bool first) {
  if (v != nullptr && v->IsNull()) v = nullptr;
  const bool omit_empty = f.omit == Omit::kEmpty;
  const auto key = [&] {
    if (!first) out += ',';
    append_go_json_string(out, f.name);
    out += ':';
  };
  switch (f.type) {
    case Type::kString: {
      const std::string_view s = v != nullptr ? view(*v) : std::string_view();
      if (s.empty() && omit_empty) return false;
      key();
      append_go_json_string(out, s);
      return true;
    }
    case Type::kBool: {
      const bool b = v != nullptr && v->IsTrue();
      if (!b && omit_empty) return false;
      key();
      out += b ? "true" : "false";
      return true;
    }
    case Type::kInt32:
    case Type::kInt64:
      if ((v == nullptr || (v->IsInt64() && v->GetInt64() == 0)) && omit_empty) return false;
      key();
      append_int(out, v);
      return true;
    case Type::kInt64Pointer:
      if (v == nullptr) return false;
      key();
      append_int(out, v);
      return true;
    case Type::kBoolPointer:
      if (v == nullptr) return false;
      key();
      out += v->IsTrue() ? "true" : "false";
      return true;
    case Type::kTime:
      if (f.omit == Omit::kZero && zero_time(v)) return false;
      key();
      append_time(out, v);
      return true;
    case Type::kTimePointer:
      if (v == nullptr) return false;
      key();
      append_time(out, v);
      return true;
    case Type::kStringMap:
    case Type::kQuantityMap:
      if (v == nullptr || !v->IsObject() || v->MemberCount() == 0) return false;
      key();
      out += '{';
      for_each_sorted(*v, [&, first_member = true](const JsonValue::Member& m) mutable {
        if (!first_member) out += ',';
        first_member = false;
        append_go_json_string(out, view(m.name));
        out += ':';
        if (f.type == Type::kStringMap) {
          append_go_json_string(out, m.value.IsString() ? view(m.value) : std::string_view());
          return;
        }
        out += '"';
        append_quantity(out, m.value);
        out += '"';
      });
      out += '}';
      return true;
    case Type::kStringList:
      if (v == nullptr || !v->IsArray() || v->Empty()) return false;
      key();
      out += '[';
      for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
        if (i > 0) out += ',';
        const JsonValue& item = (*v)[i];
        append_go_json_string(out, item.IsString() ? view(item) : std::string_view());
      }
      out += ']';
      return true;
    case Type::kRaw:
      if (v == nullptr) return false;
      key();
      append_compact_json(out, *v, true);
      return true;
    case Type::kStruct:
      key();
      append_struct(out, *f.of, v);
      return true;
    case Type::kStructList:
      if (v == nullptr || !v->IsArray() || v->Empty()) return false;
      key();
      out += '[';
      for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
        if (i > 0) out += ',';
        append_struct(out, *f.of, &(*v)[i]);
      }
      out += ']';
      return true;
    case Type::kDroppedStruct:
    case Type::kDroppedList:
      return false;
  }
  return false;
}

void append_struct(std::string& out, const Struct& type, const JsonValue* object) {
  if (object != nullptr && !object->IsObject()) object = nullptr;
  out += '{';
  bool first = true;
  for (const Field& f : type.fields) {
    const JsonValue* v = object != nullptr ? find_member(*object, f.name) : nullptr;
    if (append_field(out, f, v, first)) first = false;
  }
  out += '}';
}

void append_go_quoted(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto hex = [&](std::uint32_t value, int digits) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xF];
  };
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"':
          out += "\\\"";
          continue;
        case '\\':
          out += "\\\\";
          continue;
        case '\a':
          out += "\\a";
          continue;
        case '\b':
          out += "\\b";
          continue;
        case '\f':
          out += "\\f";
          continue;
        case '\n':
          out += "\\n";
          continue;
        case '\r':
          out += "\\r";
          continue;
        case '\t':
          out += "\\t";
          continue;
        case '\v':
          out += "\\v";
          continue;
        default:
          break;
      }
      if (c < ' ' || c == 0x7F) {
        out += "\\x";
        hex(c, 2);
      } else {
        out += static_cast<char>(c);
      }
      continue;
    }
    // Valid UTF-8 (the reader refuses anything else): the code point and its length.
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    std::uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n && i + k < text.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    const bool escaped = (cp >= 0x80 && cp <= 0xA0) || cp == 0xAD || cp == 0x1680 ||
                         (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
                         (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF;
    if (escaped) {
      out += "\\u";
      hex(cp, 4);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

}  // namespace kpw::go
