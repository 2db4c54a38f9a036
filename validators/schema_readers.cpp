// schema.hpp's other readers of a table: values as Go marshals them, the unknown-field walk (K-U1).
#include <algorithm>
#include <string>
#include <vector>

#include "api/object.hpp"
#include "util/text.hpp"
#include "validators/schema.hpp"

namespace kpw::schema {
namespace {

void append_row_json(std::string& out, const Node& row, Type type, const JsonValue& v);

void append_sorted_map_json(std::string& out, const JsonValue& map) {
  std::vector<const JsonValue::Member*> sorted;
  sorted.reserve(map.MemberCount());
  for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) sorted.push_back(&*it);
  std::sort(sorted.begin(), sorted.end(),
            [](const JsonValue::Member* a, const JsonValue::Member* b) {
              return view(a->name) < view(b->name);
            });
  out += '{';
  for (const JsonValue::Member* m : sorted) {
    if (out.back() != '{') out += ',';
    append_go_json_string(out, view(m->name));
    out += ':';
    append_compact_json(out, m->value, true);
  }
  out += '}';
}

void append_row_json(std::string& out, const Node& row, Type type, const JsonValue& v) {
  if (type == Type::kObject && !row.fields.empty()) {
    static const JsonValue kEmpty(rapidjson::kObjectType);
    if (v.IsObject() || v.IsNull())
      return append_struct_json(out, row.fields, v.IsObject() ? v : kEmpty);
  }
  if (type == Type::kArray && v.IsArray()) {
    out += '[';
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (i > 0) out += ',';
      append_row_json(out, row, row.item, v[i]);
    }
    out += ']';
    return;
  }
  if (type == Type::kStringMap && v.IsObject()) return append_sorted_map_json(out, v);
  append_compact_json(out, v, true);
}

}  // namespace

void append_struct_json(std::string& out, std::span<const Node> fields, const JsonValue& value) {
  out += '{';
  bool first = true;
  for (const Node& row : fields) {
    const JsonValue* v = member(&value, row.name);
    static const JsonValue kNull;
    static const JsonValue kEmptyString("");
    if (v == nullptr) {
      if (row.type == Type::kAny || (row.required && row.type != Type::kString)) {
        v = &kNull;
      } else if (row.required) {
        v = &kEmptyString;
      } else {
        continue;
      }
    } else if (!row.required &&
               ((v->IsString() && v->GetStringLength() == 0) || (v->IsArray() && v->Empty()) ||
                (row.type == Type::kStringMap && v->IsObject() && v->MemberCount() == 0))) {
      continue;  // omitempty
    }
    if (!first) out += ',';
    first = false;
    append_go_json_string(out, row.name);
    out += ':';
    append_row_json(out, row, row.type, *v);
  }
  out += '}';
}

void check_unknown_fields(std::span<const Node> fields, const JsonValue& obj, const FieldPath& path,
                          Rule rule, ErrorList& errors) {
  if (!obj.IsObject()) return;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string_view name = view(it->name);
    const Node* row = nullptr;
    for (const Node& field : fields) {
      if (equal_text(field.name, name)) {
        row = &field;
        break;
      }
    }
    const FieldPath child = path.child(name);
    if (row == nullptr) {
      errors.forbidden(rule, child, "unknown field: the schema does not declare it");
      continue;
    }
    const JsonValue& v = it->value;
    if (row->type == Type::kObject && v.IsObject()) {
      check_unknown_fields(row->fields, v, child, rule, errors);
    }
    if (row->type == Type::kArray && row->item == Type::kObject && v.IsArray()) {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        if (!v[i].IsObject()) continue;
        const FieldPath item = child.index(i);
        check_unknown_fields(row->fields, v[i], item, rule, errors);
      }
    }
  }
}

}  // namespace kpw::schema
