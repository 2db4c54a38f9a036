// The walker over a schema table: one pass over the object, a table row looked up per member
// (tables are small), every error carrying the rule its table names (docs/compatibility.md, schema
// rules). Linear in the object: each member and element is visited once.
#include "validators/schema.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "api/object.hpp"
#include "util/names.hpp"
#include "util/text.hpp"

namespace kpw::schema {
namespace {

// One walk: where errors go, and whether it descends into objects and arrays.
struct Walk {
  ErrorList& errors;
  bool deep;
};

const Rules& own_rules(const Node& node, const Rules& enclosing) {
  return node.rules != nullptr ? *node.rules : enclosing;
}

const Rules& element_rules(const Node& node, const Rules& own) {
  return node.item_rules != nullptr ? *node.item_rules : own;
}

std::string_view type_detail(Type type) {
  switch (type) {
    case Type::kString:
      return "must be of type string";
    case Type::kInt32:
    case Type::kInt64:
    case Type::kInteger:
      return "must be of type integer";
    case Type::kBool:
      return "must be of type boolean";
    case Type::kObject:
    case Type::kStringMap:
    case Type::kQuantityMap:
      return "must be of type object";
    case Type::kArray:
      return "must be of type array";
    case Type::kAny:
      break;
    case Type::kQuantity:
      return "must be of type string or number";
  }
  return "must be of another type";
}

bool has_type(Type type, const JsonValue& v) {
  switch (type) {
    case Type::kString:
      return v.IsString();
    case Type::kInt32:  // the int32 range is its own error
    case Type::kInt64:
    case Type::kInteger:
      return v.IsInt64();
    case Type::kBool:
      return v.IsBool();
    case Type::kObject:
    case Type::kStringMap:
    case Type::kQuantityMap:
      return v.IsObject();
    case Type::kArray:
      return v.IsArray();
    case Type::kAny:
      return true;
    case Type::kQuantity:
      return v.IsString() || v.IsNumber();
  }
  return false;
}

// `<before><bound><after>` in `buffer`, without a heap allocation (a hostile list may break a
// bound in every one of a million elements).
template <typename Int>
std::string_view bound_detail(std::string_view before, Int bound, std::string_view after,
                              std::array<char, 96>& buffer) {
  char* out = std::copy(before.begin(), before.end(), buffer.data());
  out = std::to_chars(out, out + 24, bound).ptr;
  out = std::copy(after.begin(), after.end(), out);
  return std::string_view(buffer.data(), static_cast<std::size_t>(out - buffer.data()));
}

NameProblems format_problems(Format format, std::string_view s) {
  switch (format) {
    case Format::kNone:
      break;
    case Format::kDns1123Label:
      return check_dns1123_label(s);
    case Format::kDns1123Subdomain:
      return check_dns1123_subdomain(s);
    case Format::kQualifiedName:
      return check_qualified_name(s);
    case Format::kLabelValue:
      return check_label_value(s);
  }
  return NameProblems{};
}

bool check_string(ErrorList& errors, const Rules& rules, const Node& node, std::string_view s,
                  const FieldPath& path) {
  std::array<char, 96> detail;
  bool ok = true;
  if (!node.allowed.empty() &&
      std::find(node.allowed.begin(), node.allowed.end(), s) == node.allowed.end()) {
    errors.not_supported(rules.enumeration, path, s, node.allowed);
    ok = false;
  }
  if (s.size() < node.min_length) {
    errors.invalid(rules.length, path, s,
                   bound_detail("must be at least ", node.min_length, " characters long", detail));
    ok = false;
  } else if (s.size() > node.max_length) {
    errors.invalid(
        rules.length, path, s,
        bound_detail("must be no more than ", node.max_length, " characters long", detail));
    ok = false;
  }
  for (std::string_view problem : format_problems(node.format, s)) {
    errors.invalid(rules.format, path, s, problem);
    ok = false;
  }
  return ok;
}

bool check_integer(ErrorList& errors, const Rules& rules, const Node& node, Type type,
                   std::int64_t n, const FieldPath& path) {
  std::array<char, 96> detail;
  if (type == Type::kInt32 && (n < std::numeric_limits<std::int32_t>::min() ||
                               n > std::numeric_limits<std::int32_t>::max())) {
    errors.invalid(rules.type, path, static_cast<long long>(n), "must fit in a 32-bit integer");
  } else if (n < node.minimum) {
    errors.invalid(rules.range, path, static_cast<long long>(n),
                   bound_detail("must be greater than or equal to ", node.minimum, "", detail));
  } else if (n > node.maximum) {
    errors.invalid(rules.range, path, static_cast<long long>(n),
                   bound_detail("must be less than or equal to ", node.maximum, "", detail));
  } else {
    return true;
  }
  return false;
}

bool check_quantity(ErrorList& errors, const Rules& rules, const JsonValue& v,
                    const FieldPath& path) {
  if (!v.IsString() && !v.IsNumber()) {
    errors.invalid(rules.type, path, v, "must be of type string or number");
    return false;
  }
  const ParsedQuantity q = quantity_of(v);
  if (q.ok()) return true;
  errors.invalid(rules.quantity, path, v, quantity_error_message(q.error));
  return false;
}

bool check_members(const Walk& walk, const Rules& rules, std::span<const Node> fields,
                   const JsonValue& obj, const FieldPath& path);

// `v` as a `type` value of `node` (its own type, or its item type for an element), with `rules`:
// the type (and int32 range), then enum, length, format, integer range, min_items, map values,
// then (a deep walk) the fields or elements.
bool check_typed(const Walk& walk, const Rules& rules, const Node& node, Type type,
                 const JsonValue& v, const FieldPath& path) {
  ErrorList& errors = walk.errors;
  if (!has_type(type, v)) {
    // A whole number beyond int64 (9223372036854775808, 1e19) is out of range, not of a wrong type.
    const bool integral =
        v.IsUint64() || (v.IsDouble() && std::trunc(v.GetDouble()) == v.GetDouble());
    if ((type == Type::kInt32 || type == Type::kInt64) && integral) {
      errors.invalid(
          rules.type, path, v,
          type == Type::kInt32 ? "must fit in a 32-bit integer" : "must fit in a 64-bit integer");
    } else {
      errors.invalid(rules.type, path, v, type_detail(type));
    }
    return false;
  }
  switch (type) {
    case Type::kString:
      return check_string(errors, rules, node, view(v), path);
    case Type::kInt32:
    case Type::kInt64:
    case Type::kInteger:
      return check_integer(errors, rules, node, type, v.GetInt64(), path);
    case Type::kBool:
    case Type::kAny:
      return true;
    case Type::kStringMap: {
      bool ok = true;
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        if (it->value.IsString()) continue;
        const FieldPath entry = path.key(view(it->name));
        errors.invalid(rules.type, entry, it->value, "must be of type string");
        ok = false;
      }
      return ok;
    }
    case Type::kQuantity:
      return check_quantity(errors, rules, v, path);
    case Type::kQuantityMap: {
      if (!walk.deep) return true;
      bool ok = true;
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const FieldPath entry = path.key(view(it->name));
        ok = check_quantity(errors, rules, it->value, entry) && ok;
      }
      return ok;
    }
    case Type::kObject:
      return !walk.deep || check_members(walk, rules, node.fields, v, path);
    case Type::kArray: {
      if (v.Size() < node.min_items) {
        std::array<char, 96> detail;
        std::string_view text = node.required_detail;
        if (text.empty()) {
          text = bound_detail("must have at least ", node.min_items,
                              node.min_items == 1 ? " item" : " items", detail);
        }
        errors.required(rules.min_items, path, text);
        return false;
      }
      if (!walk.deep) return true;
      const Rules& items = element_rules(node, rules);
      bool ok = true;
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const FieldPath item = path.index(i);
        ok = check_typed(walk, items, node, node.item, v[i], item) && ok;
      }
      return ok;
    }
  }
  return false;
}

bool check_node(const Walk& walk, const Rules& enclosing, const Node& node, const JsonValue& v,
                const FieldPath& path) {
  return check_typed(walk, own_rules(node, enclosing), node, node.type, v, path);
}

void report_absent(ErrorList& errors, const Rules& enclosing, const Node& node,
                   const FieldPath& obj_path) {
  const FieldPath child = obj_path.child(node.name);
  errors.required(own_rules(node, enclosing).required, child, node.required_detail);
}

// Known members in document order, then the required rows that are absent (or null).
bool check_members(const Walk& walk, const Rules& rules, std::span<const Node> fields,
                   const JsonValue& obj, const FieldPath& path) {
  bool ok = true;
  std::uint64_t present = 0;  // rows whose field is here and not null (fits_a_mask)
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (it->value.IsNull()) continue;
    const std::string_view name = view(it->name);
    for (std::size_t row = 0; row < fields.size(); ++row) {
      const Node& field = fields[row];
      if (!equal_text(field.name, name)) continue;
      present |= std::uint64_t{1} << row;
      const FieldPath child = path.child(field.name);
      ok = check_node(walk, rules, field, it->value, child) && ok;
      break;
    }
  }
  for (std::size_t row = 0; row < fields.size(); ++row) {
    if (fields[row].required && (present & (std::uint64_t{1} << row)) == 0) {
      report_absent(walk.errors, rules, fields[row], path);
      ok = false;
    }
  }
  return ok;
}

}  // namespace

ParsedQuantity quantity_of(const JsonValue& value) {
  if (value.IsString()) return parse_quantity(view(value));
  if (value.IsInt64()) return ParsedQuantity{Quantity::of_int(value.GetInt64())};
  if (value.IsUint64()) {
    return ParsedQuantity{Quantity::of(static_cast<Quantity::Mantissa>(value.GetUint64()), 0)};
  }
  if (value.IsDouble()) {
    std::array<char, 64> text;
    const auto [end, ec] = std::to_chars(text.data(), text.data() + text.size(), value.GetDouble());
    if (ec == std::errc{}) {
      return parse_quantity(
          std::string_view(text.data(), static_cast<std::size_t>(end - text.data())));
    }
  }
  return ParsedQuantity{Quantity{}, QuantityError::kFormat};
}

bool check_object(const Rules& rules, std::span<const Node> fields, const JsonValue& obj,
                  const FieldPath& path, ErrorList& errors) {
  return check_members(Walk{errors, true}, rules, fields, obj, path);
}

bool check_value(const Rules& rules, const Node& row, const JsonValue& value, const FieldPath& path,
                 ErrorList& errors) {
  return check_node(Walk{errors, false}, rules, row, value, path);
}

bool check_field(const Rules& rules, const Node& row, const JsonValue* obj,
                 const FieldPath& obj_path, ErrorList& errors) {
  const JsonValue* value = member(obj, row.name);
  if (value == nullptr) {
    if (!row.required) return true;
    report_absent(errors, rules, row, obj_path);
    return false;
  }
  const FieldPath path = obj_path.child(row.name);
  return check_value(rules, row, *value, path, errors);
}

bool check_root_field(const Rules& rules, const Node& row, const JsonValue* object,
                      ErrorList& errors) {
  const FieldPath path = FieldPath::root(row.name);
  const JsonValue* value = member(object, row.name);
  if (value == nullptr) {
    if (!row.required) return true;
    errors.required(own_rules(row, rules).required, path, row.required_detail);
    return false;
  }
  return check_value(rules, row, *value, path, errors);
}

bool check_fields(const Rules& rules, std::span<const Node> fields, const JsonValue& obj,
                  const FieldPath& path, ErrorList& errors) {
  bool ok = true;
  for (const Node& row : fields) ok = check_field(rules, row, &obj, path, errors) && ok;
  return ok;
}

bool check_element(const Rules& rules, const Node& row, const JsonValue& element,
                   const FieldPath& path, ErrorList& errors) {
  const Rules& items = element_rules(row, own_rules(row, rules));
  return check_typed(Walk{errors, false}, items, row, row.item, element, path);
}

}  // namespace kpw::schema
