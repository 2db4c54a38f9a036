#include "validators/common.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "api/object.hpp"
#include "util/names.hpp"

namespace kpw {
namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// A map entry's value that must be a string: true when it is one; an Invalid error when it is
// neither a string nor null (a null entry is dropped by the API server).
bool string_entry(Rule rule, const JsonValue& value, const FieldPath& entry, bool& ok,
                  ErrorList& errors) {
  if (value.IsString()) return true;
  if (!value.IsNull()) {
    errors.invalid(rule, entry, value, "must be of type string");
    ok = false;
  }
  return false;
}

}  // namespace

namespace {

// One expression of a field selector: its key, then its operator. False when it reported.
bool check_field_selector_expression(Rule rule, Rule operator_rule, const JsonValue& e,
                                     const FieldPath& expr, bool both, ErrorList& errors) {
  bool ok = true;
  const std::optional<std::string_view> key = string_member(&e, "key");
  if (key && *key != "provider" && *key != "region" && *key != "zone") {
    const FieldPath path = expr.child("key");
    errors.not_supported(rule, path, *key, {"provider", "region", "zone"});
    if (!both) return false;
    ok = false;
  }
  const std::optional<std::string_view> op = string_member(&e, "operator");
  if (op && *op != "In" && *op != "NotIn") {
    const FieldPath path = expr.child("operator");
    errors.not_supported(operator_rule, path, *op, {"In", "NotIn"});
    ok = false;
  }
  return ok;
}

void check_field_selector(Rule rule, Rule operator_rule, const JsonValue& affinity,
                          const FieldPath& affinity_path, bool all, ErrorList& errors) {
  const JsonValue* exprs =
      array_member(object_member(&affinity, "fieldSelector"), "matchExpressions");
  if (exprs == nullptr) return;
  const FieldPath selector = affinity_path.child("fieldSelector");
  const FieldPath list = selector.child("matchExpressions");
  for (rapidjson::SizeType k = 0; k < exprs->Size(); ++k) {
    const FieldPath expr = list.index(k);
    if (!check_field_selector_expression(rule, operator_rule, (*exprs)[k], expr, all, errors) &&
        !all) {
      return;
    }
  }
}

// The members of `map` in `order`: a sorted view is built in a per-thread buffer (reused, so a
// review allocates nothing once the thread has met its largest map), O(n log n).
template <typename Each>
void for_each_entry(const JsonValue& map, MapOrder order, Each each) {
  if (order == MapOrder::kDocument) {
    for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) each(*it);
    return;
  }
  thread_local std::vector<const JsonValue::Member*> sorted;
  sorted.clear();
  for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) sorted.push_back(&*it);
  std::sort(sorted.begin(), sorted.end(),
            [](const JsonValue::Member* a, const JsonValue::Member* b) {
              return view(a->name) < view(b->name);
            });
  // `each` must not visit another map in sorted order (the buffer is the thread's one).
  for (const JsonValue::Member* m : sorted) each(*m);
}

}  // namespace

void check_cluster_field_selector(Rule rule, const JsonValue& affinity,
                                  const FieldPath& affinity_path, ErrorList& errors) {
  check_field_selector(rule, rule, affinity, affinity_path, false, errors);
}

void check_cluster_field_selector_all(Rule key_rule, Rule operator_rule, const JsonValue& affinity,
                                      const FieldPath& affinity_path, ErrorList& errors) {
  check_field_selector(key_rule, operator_rule, affinity, affinity_path, true, errors);
}

void check_label_key(Rule rule, const JsonValue& obj, std::string_view key,
                     const FieldPath& obj_path, ErrorList& errors) {
  const std::optional<std::string_view> value = string_member(&obj, key);
  if (!value) return;
  const NameProblems problems = check_qualified_name(*value);
  if (problems.ok()) return;
  const FieldPath path = obj_path.child(key);
  for (std::string_view problem : problems) errors.invalid(rule, path, *value, problem);
}

bool check_label_map(Rule rule, const JsonValue& labels, const FieldPath& path, ErrorList& errors,
                     MapOrder order) {
  return check_label_map(rule, rule, labels, path, errors, order);
}

bool check_label_map(Rule key_rule, Rule value_rule, const JsonValue& labels, const FieldPath& path,
                     ErrorList& errors, MapOrder order) {
  const Rule rule = key_rule;
  bool ok = true;
  for_each_entry(labels, order, [&](const JsonValue::Member& m) {
    const std::string_view key = view(m.name);
    const FieldPath entry = path.key(key);
    for (std::string_view problem : check_qualified_name(key)) {
      errors.invalid(rule, entry, key, problem);
      ok = false;
    }
    if (!string_entry(rule, m.value, entry, ok, errors)) return;
    const std::string_view value = view(m.value);
    for (std::string_view problem : check_label_value(value)) {
      errors.invalid(value_rule, entry, value, problem);
      ok = false;
    }
  });
  return ok;
}

bool check_annotation_map(Rule rule, const JsonValue& annotations, const FieldPath& path,
                          ErrorList& errors, MapOrder order) {
  return check_annotation_map(rule, rule, annotations, path, errors, order);
}

bool check_annotation_map(Rule key_rule, Rule size_rule, const JsonValue& annotations,
                          const FieldPath& path, ErrorList& errors, MapOrder order) {
  const Rule rule = key_rule;
  bool ok = true;
  std::size_t total = 0;
  std::string lowered;  // reused; only for keys with an upper-case letter
  for_each_entry(annotations, order, [&](const JsonValue::Member& m) {
    const std::string_view key = view(m.name);
    total += key.size();
    std::string_view checked = key;
    if (std::any_of(key.begin(), key.end(), is_upper)) {
      lowered.assign(key);
      for (char& c : lowered) c = is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
      checked = lowered;
    }
    const FieldPath entry = path.key(key);
    for (std::string_view problem : check_qualified_name(checked)) {
      errors.invalid(rule, entry, key, problem);
      ok = false;
    }
    if (string_entry(rule, m.value, entry, ok, errors)) total += m.value.GetStringLength();
  });
  if (total > kMaxAnnotationBytes) {
    errors.too_long(size_rule, path, "may not be more than 262144 bytes");
    ok = false;
  }
  return ok;
}

NameProblems dns1123_label_problems(std::string_view value) {
  NameProblems label = check_dns1123_label(value);
  const bool too_long = value.size() > 63;
  if (label.count == (too_long ? 1u : 0u)) return label;  // the format holds
  // The subdomain format holds (its own length aside): only dots can break the label's.
  const NameProblems subdomain = check_dns1123_subdomain(value);
  if (subdomain.count == (value.size() > 253 ? 1u : 0u)) {
    label.messages[label.count - 1] = "must not contain dots";
  }
  return label;
}

void check_cluster_name(Rule rule, std::string_view name, const FieldPath& path,
                        ErrorList& errors) {
  constexpr std::size_t kMaxClusterName = 48;
  if (name.empty()) {
    errors.invalid(rule, path, name, "must be not empty");
    return;
  }
  if (name.size() > kMaxClusterName) {
    errors.invalid(rule, path, name, "must be no more than 48 characters");
    return;
  }
  const NameProblems problems = dns1123_label_problems(name);
  if (problems.ok()) return;
  std::string joined;
  for (std::string_view p : problems) {
    if (!joined.empty()) joined += ',';
    joined += p;
  }
  errors.invalid(rule, path, name, joined);
}

std::string go_json_list(const JsonValue* list) {
  std::string out;
  if (list == nullptr || !list->IsArray()) {
    out = "null";
    return out;
  }
  out += '[';
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    if (i > 0) out += ',';
    const JsonValue& item = (*list)[i];
    if (item.IsString()) {
      append_go_json_string(out, view(item));
    } else {
      append_compact_json(out, item, false);
    }
  }
  out += ']';
  return out;
}

bool check_json_pointer(Rule rule, std::string_view pointer, const FieldPath& path,
                        ErrorList& errors) {
  if (pointer.empty() || pointer.front() == '/') return true;
  errors.invalid(rule, path, pointer, "JSON pointer must be empty or start with a \"/\"");
  return false;
}

bool Duplicates::check(std::string_view value, std::size_t index, const FieldPath& path,
                       ErrorList& errors) {
  const SeenSet::Seen seen = seen_.record(value, index);
  if (!seen.repeated()) return false;
  if (report_ == Report::kEveryRepeat || seen.before == 1) errors.duplicate(rule_, path, value);
  return true;
}

void check_unique_member(Rule rule, const JsonValue& list, std::string_view key,
                         const FieldPath& list_path, ErrorList& errors) {
  if (!list.IsArray()) return;
  Duplicates duplicates(rule);
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const std::optional<std::string_view> value = string_member(&list[i], key);
    if (!value) continue;
    const FieldPath item = list_path.index(i);
    const FieldPath path = item.child(key);
    duplicates.check(*value, i, path, errors);
  }
}

}  // namespace kpw
