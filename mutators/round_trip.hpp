// Upstream's round trip, shared by the policy mutators (docs/compatibility.md, "End-to-end
// parity"): upstream re-marshals the object through Go structs, which drops the explicit zero of
// every `omitempty` field; these helpers drop the same zeros with minimal patch ops (RT-1), and
// normalise the selector and affinity types several kinds embed.
#pragma once

#include <initializer_list>
#include <string_view>

#include "admission/json_patch.hpp"
#include "api/object.hpp"
#include "json/json.hpp"

namespace kpw {

// The Go zero value a field is dropped at, by its type.
enum class Zero { kString, kBool, kInt, kList, kMap };

struct Droppable {
  std::string_view key;
  Zero zero;
};

bool holds_zero(const JsonValue& v, Zero zero);

// RT-1: each listed field holding its Go zero is removed (a value of another JSON type stays,
// for the schema rules to name).
void drop_zeros(const JsonValue& obj, const FieldPath& path,
                std::initializer_list<Droppable> fields, JsonPatch& patch);

// RT-1 then the CRD default: an explicit "" becomes the default the API server would put back.
void default_empty_string(const JsonValue& obj, const FieldPath& path, std::string_view key,
                          std::string_view crd_default, JsonPatch& patch);

// Each element of the list `key` that is an object, with its path.
template <typename Each>
void for_each_object(const JsonValue& obj, const FieldPath& path, std::string_view key, Each each) {
  const JsonValue* list = array_member(&obj, key);
  if (list == nullptr) return;
  const FieldPath list_path = path.child(key);
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    if (!(*list)[i].IsObject()) continue;
    const FieldPath item = list_path.index(i);
    each((*list)[i], item);
  }
}

// metav1.LabelSelector's requirements (or a FieldSelector's): `values: []`, `matchExpressions: []`.
void normalise_requirements(const JsonValue& selector, const FieldPath& path, JsonPatch& patch);
// The `labelSelector` member of `obj` (L1-L5).
void normalise_label_selector(const JsonValue& obj, const FieldPath& path, JsonPatch& patch);
// ClusterAffinity (C1-C4).
void normalise_cluster_affinity(const JsonValue& affinity, const FieldPath& path, JsonPatch& patch);

}  // namespace kpw
