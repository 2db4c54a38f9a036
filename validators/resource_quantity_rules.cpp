// Q-2…Q-6 over a resource map (resource_quantity_rules.hpp): the names, then each quantity.
#include "validators/resource_quantity_rules.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "util/names.hpp"

namespace kpw {
namespace {

// One value of a resource map (checked per entry, in the map's sorted order; its rules are
// ResourceRules::value).
constexpr schema::Node kQuantity{.name = "", .type = schema::Type::kQuantity};

// --- Resource names (Kubernetes' quota helpers, as upstream lifts them) ---

// The standard resource names (IsStandardResourceName), those of them that are integers
// (IsIntegerResourceName's set), and `storage`, the one that is not a quota resource
// (IsStandardQuotaResourceName).
struct StandardResource {
  std::string_view name;
  bool integer;
};
constexpr auto kStandardResources = std::to_array<StandardResource>({
    {"configmaps", true},
    {"cpu", false},
    {"ephemeral-storage", false},
    {"limits.cpu", false},
    {"limits.ephemeral-storage", false},
    {"limits.memory", false},
    {"memory", false},
    {"persistentvolumeclaims", true},
    {"pods", true},
    {"replicationcontrollers", true},
    {"requests.cpu", false},
    {"requests.ephemeral-storage", false},
    {"requests.memory", false},
    {"requests.storage", false},
    {"resourcequotas", true},
    {"secrets", true},
    {"services", true},
    {"services.loadbalancers", true},
    {"services.nodeports", true},
    {"storage", false},
});

bool is_huge_page_quota_resource(std::string_view name) {
  return name.starts_with("hugepages-") || name.starts_with("requests.hugepages-");
}

// IsExtendedResourceName (for Q-6): a `/`, not a native `kubernetes.io/` name, no `requests.`
// prefix, and `requests.<name>` a qualified name: the name is one (`qualified`) and its prefix
// leaves room for `requests.`.
bool is_extended_resource(std::string_view name, bool qualified) {
  const std::size_t slash = name.find('/');
  if (slash == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos ||
      name.starts_with("requests.")) {
    return false;
  }
  constexpr std::size_t kRequestsPrefix = std::string_view("requests.").size();
  return qualified && slash + kRequestsPrefix <= 253;
}

ResourceKind classify(std::string_view name, bool qualified) {
  ResourceKind k;
  for (const StandardResource& r : kStandardResources) {
    if (r.name.size() == name.size() && r.name == name) {
      k.standard = true;
      k.integer = r.integer;
      break;
    }
  }
  k.standard = k.standard || is_huge_page_quota_resource(name);
  k.quota = k.standard && name != "storage";
  k.integer = k.integer || is_extended_resource(name, qualified);
  return k;
}

}  // namespace

bool is_standard_resource_name(std::string_view name) {
  return classify(name, /*qualified=*/false).standard;
}

bool is_extended_resource_name(std::string_view name, bool qualified) {
  return is_extended_resource(name, qualified);
}

// Q-3 only when Q-2 passes; Q-4 for any name without `/`.
CheckedResourceName check_resource_name(const ResourceRules& r, std::string_view name,
                                        const FieldPath& path, ErrorList& errors) {
  const NameProblems problems = check_qualified_name(name);
  for (std::string_view problem : problems) errors.invalid(r.name, path, name, problem);
  const ResourceKind kind = classify(name, problems.ok());
  if (name.find('/') != std::string_view::npos) return {kind, problems.ok()};
  const bool standard = !problems.ok() || kind.standard;
  if (!standard) {
    errors.invalid(r.standard, path, name, "must be a standard resource type or fully qualified");
  }
  if (!kind.quota) errors.invalid(r.quota, path, name, "must be a standard resource for quota");
  return {kind, problems.ok() && standard && kind.quota};
}

std::optional<Quantity> check_resource(const ResourceRules& r, std::string_view name,
                                       const JsonValue& value, const FieldPath& path,
                                       ErrorList& errors) {
  return check_resource_value(r, check_resource_name(r, name, path, errors).kind, value, path,
                              errors);
}

std::optional<Quantity> check_resource_value(const ResourceRules& r, ResourceKind kind,
                                             const JsonValue& value, const FieldPath& path,
                                             ErrorList& errors) {
  // Parsed once: the schema's check (QS-2) runs only to report a value that is not a quantity.
  const ParsedQuantity parsed = (value.IsString() || value.IsNumber())
                                    ? schema::quantity_of(value)
                                    : ParsedQuantity{Quantity{}, QuantityError::kFormat};
  if (!parsed.ok()) {
    schema::check_value(*r.value, kQuantity, value, path, errors);
    return std::nullopt;
  }
  const Quantity q = parsed.value;
  if (q.sign() < 0) errors.invalid(r.negative, path, value, "must be greater than or equal to 0");
  if (kind.integer && !q.is_whole_in_millis()) {
    errors.invalid(r.integer, path, value, "must be an integer");
  }
  return q;
}

void check_resource_map(const ResourceRules& r, const JsonValue& map, const FieldPath& path,
                        ErrorList& errors) {
  for (const auto* m : SortedMembers(map)) {
    const FieldPath entry = path.key(view(m->name));
    check_resource(r, view(m->name), m->value, entry, errors);
  }
}

}  // namespace kpw
