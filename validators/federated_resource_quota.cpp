// FederatedResourceQuota rules (docs/rules.md "FederatedResourceQuota"): upstream's Q-1…Q-13 in
// upstream's order, each loop over a resource map in sorted resource-name order (upstream's is Go's
// random map order), D-Q1 beside Q-7, and the CRD schema rows QS-1…QS-4 checked one field at a time
// as the rules reach them. Quantities are exact (util/quantity.hpp) and shown as the user wrote
// them. Each resource map's entries (Q-2…Q-6, reused as) are checked by
// validators/resource_quantity_rules.*.
#include "validators/federated_resource_quota.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "api/object.hpp"
#include "util/names.hpp"
#include "util/quantity.hpp"
#include "validators/common.hpp"
#include "validators/resource_quantity_rules.hpp"
#include "validators/schema.hpp"

namespace kpw {
namespace {

using schema::Node;
using schema::Type;

// --- The schema (QS-1…QS-4), each part with its rule ---

constexpr schema::Rules kQS1 = schema::Rules::all(rules::kQS1);
constexpr schema::Rules kQS2 = schema::Rules::all(rules::kQS2);
constexpr schema::Rules kQS3 = schema::Rules::all(rules::kQS3);
constexpr schema::Rules kQS4 = schema::Rules::all(rules::kQS4);
// A resource map is QS-2's; when the CRD requires it, its absence is the requiring part's.
constexpr schema::Rules kOverallRules{rules::kQS2, rules::kQS1, rules::kQS2, rules::kQS2,
                                      rules::kQS2, rules::kQS2, rules::kQS2, rules::kQS2};
constexpr schema::Rules kHardRules{rules::kQS2, rules::kQS3, rules::kQS2, rules::kQS2,
                                   rules::kQS2, rules::kQS2, rules::kQS2, rules::kQS2};

// Required in both lists; its rule is the list's (QS-3, QS-4).
constexpr Node kClusterName{.name = "clusterName", .required = true};
constexpr Node kOverall{
    .name = "overall", .type = Type::kQuantityMap, .required = true, .rules = &kOverallRules};
constexpr Node kHard{
    .name = "hard", .type = Type::kQuantityMap, .required = true, .rules = &kHardRules};
constexpr std::array kAssignmentFields = {kClusterName, kHard};
constexpr Node kStaticAssignments{
    .name = "staticAssignments", .type = Type::kArray, .fields = kAssignmentFields, .rules = &kQS3};
constexpr std::array kSpecFields = {kOverall, kStaticAssignments};
constexpr Node kSpec{
    .name = "spec", .type = Type::kObject, .required = true, .fields = kSpecFields, .rules = &kQS1};
static_assert(schema::fits_a_mask(kSpecFields));

constexpr Node kStatusOverall{.name = "overall", .type = Type::kQuantityMap, .rules = &kQS2};
constexpr Node kOverallUsed{.name = "overallUsed", .type = Type::kQuantityMap, .rules = &kQS2};
constexpr Node kClusterHard{.name = "hard", .type = Type::kQuantityMap, .rules = &kQS2};
constexpr Node kClusterUsed{.name = "used", .type = Type::kQuantityMap, .rules = &kQS2};
constexpr std::array kClusterStatusFields = {kClusterName, kClusterHard, kClusterUsed};
constexpr Node kAggregatedStatus{.name = "aggregatedStatus",
                                 .type = Type::kArray,
                                 .fields = kClusterStatusFields,
                                 .rules = &kQS4};
constexpr std::array kStatusFields = {kStatusOverall, kOverallUsed, kAggregatedStatus};
constexpr Node kStatus{
    .name = "status", .type = Type::kObject, .fields = kStatusFields, .rules = &kQS4};
static_assert(schema::fits_a_mask(kStatusFields));

// The rules a resource map's entries carry (resource_quantity_rules.hpp): Q-2…Q-6 in spec.overall,
// elsewhere; QS-2 on a value that is not a quantity.
constexpr ResourceRules kOverallResourceRules{rules::kQ2, rules::kQ3, rules::kQ4,
                                              rules::kQ5, rules::kQ6, &kQS2};
constexpr ResourceRules kAssignedResourceRules = ResourceRules::all(rules::kQ8, &kQS2);
constexpr ResourceRules kStatusResourceRules = ResourceRules::all(rules::kQ11, &kQS2);
constexpr ResourceRules kClusterStatusResourceRules = ResourceRules::all(rules::kQ13, &kQS2);

// a cluster name (upstream's ValidateClusterName): not empty, at most 48 characters,
// a DNS-1123 label (`must not contain dots` for an otherwise valid subdomain). An absent or null
// name is Go's "" (its QS-3 / QS-4 Required error comes from the schema); one of another type is
// the schema's only.
void check_cluster_name_member(Rule rule, const JsonValue& item, const FieldPath& item_path,
                               ErrorList& errors) {
  const JsonValue* value = member(&item, "clusterName");
  if (value != nullptr && !value->IsString()) return;
  const std::string_view name = value != nullptr ? view(*value) : std::string_view{};
  const FieldPath path = item_path.child("clusterName");
  check_cluster_name(rule, name, path, errors);
}

// the name is used as a label value upstream, so at most 63 characters.
void check_name(const JsonValue* object, ErrorList& errors) {
  const std::string_view name = string_or_empty(object_member(object, "metadata"), "name");
  constexpr std::size_t kMaxName = 63;
  if (name.size() <= kMaxName) return;
  const FieldPath metadata = FieldPath::root("metadata");
  errors.invalid(rules::kQ1, metadata.child("name"), name, "must be no more than 63 characters");
}

// spec.overall, sorted, with where each resource's assigned sum stands.
struct Overall {
  struct Entry {
    std::string_view name;
    const JsonValue* value = nullptr;
    CheckedResourceName checked;       // its name: an assignment's same name is not checked again
    std::optional<Quantity> quantity;  // nullopt: not a quantity (QS-2), no Q-9
    Quantity assigned;                 // the sum of the assignments' quantities so far
    bool beyond = false;  // the exact sum does not fit Quantity (docs/compatibility.md)
  };

  explicit Overall(std::size_t n) : buffer(n) {}

  std::span<Entry> entries() const { return buffer.items(); }
  // The entry for `name`, or nullptr when spec.overall has no such resource: a binary search,
  // the entries being in name order (O(log n) a lookup; object keys are unique).
  Entry* find(std::string_view name) {
    const std::span<Entry> all = entries();
    const auto it = std::lower_bound(all.begin(), all.end(), name,
                                     [](const Entry& e, std::string_view n) { return e.name < n; });
    return it != all.end() && it->name == name ? &*it : nullptr;
  }

  // A quota names a few dozen resources at most: those stay on the stack.
  InlineBuffer<Entry, 32> buffer;
};

// Q-2…Q-6 over spec.overall, sorted, recording each resource for.
void check_overall(const JsonValue& map, const FieldPath& path, Overall& overall,
                   ErrorList& errors) {
  const SortedMembers members(map);
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::string_view name = view(members[i].name);
    const FieldPath entry = path.key(name);
    Overall::Entry& e = overall.entries()[i];
    e.name = name;
    e.value = &members[i].value;
    e.checked = check_resource_name(kOverallResourceRules, name, entry, errors);
    e.quantity = check_resource_value(kOverallResourceRules, e.checked.kind, members[i].value,
                                      entry, errors);
  }
}

// Per assignment, in order: QS-3 (an object with clusterName and hard), Q-7, D-Q1, then Q-8 over
// its hard resources, sorted; each quantity joins its resource's sum. Returns how many
// assigned resources spec.overall lacks (Q-10 reports them after Q-9: none, no second pass).
std::size_t check_assignments(const JsonValue& list, const FieldPath& list_path, Overall& overall,
                              ErrorList& errors) {
  std::size_t not_in_overall = 0;
  Duplicates clusters(rules::kDQ1);
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const JsonValue& a = list[i];
    const FieldPath item = list_path.index(i);
    if (!schema::check_element(kQS3, kStaticAssignments, a, item, errors)) continue;
    schema::check_field(kQS3, kClusterName, &a, item, errors);
    check_cluster_name_member(rules::kQ7, a, item, errors);
    if (const auto name = string_member(&a, "clusterName"); name && !name->empty()) {
      const FieldPath path = item.child("clusterName");
      clusters.check(*name, i, path, errors);
    }
    if (!schema::check_field(kQS3, kHard, &a, item, errors)) continue;
    const JsonValue* hard = object_member(&a, "hard");
    if (hard == nullptr) continue;
    const FieldPath hard_path = item.child("hard");
    for (const auto* m : SortedMembers(*hard)) {
      const std::string_view name = view(m->name);
      const FieldPath entry = hard_path.key(name);
      Overall::Entry* e = overall.find(name);
      if (e == nullptr) ++not_in_overall;
      // A name spec.overall holds without error is not checked again (most are: cpu, memory).
      const ResourceKind kind =
          e != nullptr && e->checked.clean
              ? e->checked.kind
              : check_resource_name(kAssignedResourceRules, name, entry, errors).kind;
      const std::optional<Quantity> q =
          check_resource_value(kAssignedResourceRules, kind, m->value, entry, errors);
      if (!q || e == nullptr || e->beyond) continue;
      if (const std::optional<Quantity> sum = e->assigned.plus(*q)) {
        e->assigned = *sum;
      } else {
        e->beyond = true;
      }
    }
  }
  return not_in_overall;
}

// no overall quantity below its assignments' exact sum (equal passes). A sum too wide for
// Quantity (its terms span more than 38 digits) is taken as above: denied, never wrongly admitted.
void check_overall_covers_assignments(const Overall& overall, const FieldPath& path,
                                      ErrorList& errors) {
  for (const Overall::Entry& e : overall.entries()) {
    if (!e.quantity || (!e.beyond && *e.quantity >= e.assigned)) continue;
    const FieldPath entry = path.key(e.name);
    errors.invalid(rules::kQ9, entry, *e.value, "overall is less than assignments");
  }
}

// every assigned resource is one of spec.overall; per assignment, sorted.
void check_assigned_in_overall(const JsonValue& list, const FieldPath& list_path, Overall& overall,
                               ErrorList& errors) {
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const JsonValue* hard = object_member(&list[i], "hard");
    if (hard == nullptr) continue;
    const FieldPath item = list_path.index(i);
    const FieldPath hard_path = item.child("hard");
    for (const auto* m : SortedMembers(*hard)) {
      const std::string_view name = view(m->name);
      if (overall.find(name) != nullptr) continue;
      const FieldPath entry = hard_path.key(name);
      errors.invalid(rules::kQ10, entry, name, "assignment resourceName is not exist in overall");
    }
  }
}

// The status (B-11: the API server strips it on CREATE and restores the stored one on UPDATE, so
// this sees what it is sent): Q-11 over overall and overallUsed, then per aggregated entry QS-4,
// over hard and used.
void check_status(const JsonValue* object, ErrorList& errors) {
  if (!schema::check_root_field(kQS4, kStatus, object, errors)) return;
  const JsonValue* status = object_member(object, "status");
  if (status == nullptr) return;
  const FieldPath status_path = FieldPath::root("status");
  for (const Node* row : {&kStatusOverall, &kOverallUsed}) {
    if (!schema::check_field(kQS4, *row, status, status_path, errors)) continue;
    if (const JsonValue* map = object_member(status, row->name)) {
      const FieldPath path = status_path.child(row->name);
      check_resource_map(kStatusResourceRules, *map, path, errors);
    }
  }
  if (!schema::check_field(kQS4, kAggregatedStatus, status, status_path, errors)) return;
  const JsonValue* list = array_member(status, "aggregatedStatus");
  if (list == nullptr) return;
  const FieldPath list_path = status_path.child("aggregatedStatus");
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const JsonValue& c = (*list)[i];
    const FieldPath item = list_path.index(i);
    if (!schema::check_element(kQS4, kAggregatedStatus, c, item, errors)) continue;
    schema::check_field(kQS4, kClusterName, &c, item, errors);
    check_cluster_name_member(rules::kQ12, c, item, errors);
    for (const Node* row : {&kClusterHard, &kClusterUsed}) {
      if (!schema::check_field(kQS4, *row, &c, item, errors)) continue;
      if (const JsonValue* map = object_member(&c, row->name)) {
        const FieldPath path = item.child(row->name);
        check_resource_map(kClusterStatusResourceRules, *map, path, errors);
      }
    }
  }
}

// The spec: QS-1, Q-2…Q-6 over overall, per assignment QS-3 / Q-7 / D-Q1 / Q-8, then.
void check_spec(const JsonValue* object, ErrorList& errors) {
  if (!schema::check_root_field(kQS1, kSpec, object, errors)) return;
  const JsonValue* spec = object_member(object, "spec");
  if (spec == nullptr) return;
  const FieldPath spec_path = FieldPath::root("spec");
  const JsonValue* map = nullptr;
  if (schema::check_field(kQS1, kOverall, spec, spec_path, errors)) {
    map = object_member(spec, "overall");
  }
  Overall overall(map != nullptr ? map->MemberCount() : 0);
  const FieldPath overall_path = spec_path.child("overall");
  if (map != nullptr) check_overall(*map, overall_path, overall, errors);
  const JsonValue* list = nullptr;
  const FieldPath list_path = spec_path.child("staticAssignments");
  if (schema::check_field(kQS1, kStaticAssignments, spec, spec_path, errors)) {
    list = array_member(spec, "staticAssignments");
  }
  const std::size_t not_in_overall =
      list != nullptr ? check_assignments(*list, list_path, overall, errors) : 0;
  check_overall_covers_assignments(overall, overall_path, errors);
  if (not_in_overall > 0) check_assigned_in_overall(*list, list_path, overall, errors);
}

}  // namespace

void validate_federated_resource_quota(const AdmissionRequest& request, AdmissionResult& result) {
  check_name(request.object, result.errors);
  check_spec(request.object, result.errors);
  check_status(request.object, result.errors);
}

void check_federated_resource_quota_unknown_fields(const JsonValue& spec,
                                                   const FieldPath& spec_path, ErrorList& errors) {
  schema::check_unknown_fields(kSpecFields, spec, spec_path, rules::kKU1, errors);
}

}  // namespace kpw
