// The round-trip helpers (mutators/round_trip.hpp), moved here unchanged from
// policy_normalise.cpp so that OverridePolicy's mutator shares them.
#include "mutators/round_trip.hpp"

namespace kpw {

bool holds_zero(const JsonValue& v, Zero zero) {
  switch (zero) {
    case Zero::kString:
      return v.IsString() && v.GetStringLength() == 0;
    case Zero::kBool:
      return v.IsBool() && !v.GetBool();
    case Zero::kInt:
      return v.IsInt64() && v.GetInt64() == 0;
    case Zero::kList:
      return v.IsArray() && v.Empty();
    case Zero::kMap:
      return v.IsObject() && v.MemberCount() == 0;
  }
  return false;
}

// RT-1: each listed field holding its Go zero is removed (a value of another JSON type stays,
// for the schema rules to name).
void drop_zeros(const JsonValue& obj, const FieldPath& path,
                std::initializer_list<Droppable> fields, JsonPatch& patch) {
  for (const Droppable& f : fields) {
    const JsonValue* v = member(&obj, f.key);
    if (v == nullptr || !holds_zero(*v, f.zero)) continue;
    const FieldPath field = path.child(f.key);
    patch.remove(field);
  }
}

// RT-1 then the CRD default: an explicit "" becomes the default the API server would put back.
void default_empty_string(const JsonValue& obj, const FieldPath& path, std::string_view key,
                          std::string_view crd_default, JsonPatch& patch) {
  const JsonValue* v = member(&obj, key);
  if (v == nullptr || !holds_zero(*v, Zero::kString)) return;
  const FieldPath field = path.child(key);
  patch.set(field, crd_default);
}

// metav1.LabelSelector (L1-L5) and its requirements; corev1.NodeSelectorRequirement lists too.
void normalise_requirements(const JsonValue& selector, const FieldPath& path, JsonPatch& patch) {
  for_each_object(selector, path, "matchExpressions",
                  [&](const JsonValue& e, const FieldPath& e_path) {
                    drop_zeros(e, e_path, {{"values", Zero::kList}}, patch);
                  });
  drop_zeros(selector, path, {{"matchExpressions", Zero::kList}}, patch);
}

void normalise_label_selector(const JsonValue& obj, const FieldPath& path, JsonPatch& patch) {
  const JsonValue* selector = object_member(&obj, "labelSelector");
  if (selector == nullptr) return;
  const FieldPath selector_path = path.child("labelSelector");
  normalise_requirements(*selector, selector_path, patch);
  drop_zeros(*selector, selector_path, {{"matchLabels", Zero::kMap}}, patch);
}

// ClusterAffinity (C1-C4; inline in affinity and overflow terms).
void normalise_cluster_affinity(const JsonValue& affinity, const FieldPath& path,
                                JsonPatch& patch) {
  normalise_label_selector(affinity, path, patch);
  if (const JsonValue* fields = object_member(&affinity, "fieldSelector")) {
    const FieldPath fields_path = path.child("fieldSelector");
    normalise_requirements(*fields, fields_path, patch);
  }
  drop_zeros(affinity, path, {{"clusterNames", Zero::kList}, {"exclude", Zero::kList}}, patch);
}

}  // namespace kpw
