#include "api/object.hpp"

namespace kpw {
namespace {
// The next member at or after `it` whose value is not null.
JsonValue::ConstMemberIterator skip_nulls(JsonValue::ConstMemberIterator it,
                                          JsonValue::ConstMemberIterator end) {
  while (it != end && it->value.IsNull()) ++it;
  return it;
}
}  // namespace

bool same_json(const JsonValue* a, const JsonValue* b) {
  if (a != nullptr && a->IsNull()) a = nullptr;
  if (b != nullptr && b->IsNull()) b = nullptr;
  if (a == nullptr || b == nullptr) return a == b;
  if (a->GetType() != b->GetType()) return false;
  if (a->IsObject()) {
    auto ia = skip_nulls(a->MemberBegin(), a->MemberEnd());
    auto ib = skip_nulls(b->MemberBegin(), b->MemberEnd());
    for (; ia != a->MemberEnd() && ib != b->MemberEnd();
         ia = skip_nulls(ia + 1, a->MemberEnd()), ib = skip_nulls(ib + 1, b->MemberEnd())) {
      if (view(ia->name) != view(ib->name) || !same_json(&ia->value, &ib->value)) return false;
    }
    return ia == a->MemberEnd() && ib == b->MemberEnd();
  }
  if (a->IsArray()) {
    if (a->Size() != b->Size()) return false;
    for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
      const JsonValue& ea = (*a)[i];
      const JsonValue& eb = (*b)[i];
      if (ea.IsNull() != eb.IsNull() || !same_json(&ea, &eb)) return false;
    }
    return true;
  }
  if (a->IsString()) return view(*a) == view(*b);
  return *a == *b;  // numbers and booleans
}

JsonValue* object_member(JsonValue* obj, std::string_view key) {
  return const_cast<JsonValue*>(object_member(static_cast<const JsonValue*>(obj), key));
}

}  // namespace kpw
