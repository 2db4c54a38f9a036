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

constexpr std::array<std::string_view, 20> kStandardResources = {
    "configmaps",
    "cpu",
    "ephemeral-storage",
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "memory",
    "persistentvolumeclaims",
    "pods",
    "replicationcontrollers",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
    "requests.storage",
    "resourcequotas",
    "secrets",
    "services",
    "services.loadbalancers",
    "services.nodeports",
    "storage",
};
static_assert(std::is_sorted(kStandardResources.begin(), kStandardResources.end()));

constexpr std::array<std::string_view, 9> kIntegerResources = {
    "configmaps",
    "persistentvolumeclaims",
    "pods",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "services",
    "services.loadbalancers",
    "services.nodeports",
};
static_assert(std::is_sorted(kIntegerResources.begin(), kIntegerResources.end()));

bool is_huge_page_quota_resource(std::string_view name) {
  return name.starts_with("hugepages-") || name.starts_with("requests.hugepages-");
}

// IsStandardResourceName.
bool is_standard_resource(std::string_view name) {
  return std::binary_search(kStandardResources.begin(), kStandardResources.end(), name) ||
         is_huge_page_quota_resource(name);
}

// IsStandardQuotaResourceName (the standard set without `storage`).
bool is_standard_quota_resource(std::string_view name) {
  return (name != "storage" && is_standard_resource(name));
}

// IsIntegerResourceName: the integer set, or an extended resource (IsExtendedResourceName: a
// `/`, not a native `kubernetes.io/` name, no `requests.` prefix, and `requests.<name>` a
// qualified name: the name is one and its prefix leaves room for `requests.`).
bool is_integer_resource(std::string_view name) {
  if (std::binary_search(kIntegerResources.begin(), kIntegerResources.end(), name)) return true;
  const std::size_t slash = name.find('/');
  if (slash == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos ||
      name.starts_with("requests.")) {
    return false;
  }
  constexpr std::size_t kRequestsPrefix = std::string_view("requests.").size();
  return check_qualified_name(name).ok() && slash + kRequestsPrefix <= 253;
}

// Q-2…Q-4: the resource name (upstream's ValidateResourceQuotaResourceName). Q-3 only when Q-2
// passes; Q-4 for any name without `/`.
void check_resource_name(const ResourceRules& r, std::string_view name, const FieldPath& path,
                         ErrorList& errors) {
  const NameProblems problems = check_qualified_name(name);
  for (std::string_view problem : problems) errors.invalid(r.name, path, name, problem);
  if (name.find('/') != std::string_view::npos) return;
  if (problems.ok() && !is_standard_resource(name)) {
    errors.invalid(r.standard, path, name, "must be a standard resource type or fully qualified");
  }
  if (!is_standard_quota_resource(name)) {
    errors.invalid(r.quota, path, name, "must be a standard resource for quota");
  }
}

}  // namespace

std::optional<Quantity> check_resource(const ResourceRules& r, std::string_view name,
                                       const JsonValue& value, const FieldPath& path,
                                       ErrorList& errors) {
  check_resource_name(r, name, path, errors);
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
  if (is_integer_resource(name) && !q.is_whole_in_millis()) {
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
