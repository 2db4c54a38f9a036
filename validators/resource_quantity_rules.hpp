// Resource maps of quantities, as Kubernetes' quota helpers check them: Q-2…Q-6 per entry, sorted.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"
#include "util/quantity.hpp"
#include "validators/schema.hpp"

namespace kpw {

// Which rules an entry's errors carry (FederatedResourceQuota: Q-2…Q-6 in spec.overall, Q-8 / Q-11
// / Q-13 elsewhere), and the schema rules of a value that is not a quantity (its QS-2).
struct ResourceRules {
  Rule name;
  Rule standard;
  Rule quota;
  Rule negative;
  Rule integer;
  const schema::Rules* value;  // QS-2: the value's type and quantity
  static constexpr ResourceRules all(Rule r, const schema::Rules* value) {
    return {r, r, r, r, r, value};
  }
};

// `n` values of T (value-initialised), inline when they fit: a usual map needs no heap.
template <typename T, std::size_t N>
class InlineBuffer {
 public:
  explicit InlineBuffer(std::size_t n) {
    T* data = inline_.data();
    if (n > N) {
      heap_.resize(n);
      data = heap_.data();
    }
    items_ = std::span<T>(data, n);
  }
  InlineBuffer(const InlineBuffer&) = delete;
  InlineBuffer& operator=(const InlineBuffer&) = delete;

  std::span<T> items() const { return items_; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  std::span<T> items_;
};

// The members of a resource map sorted by name, bytewise: the order its errors come in (upstream's
// is Go's random map order, B-10).
class SortedMembers {
 public:
  using Member = rapidjson::GenericMember<JsonValue::EncodingType, JsonValue::AllocatorType>;

  explicit SortedMembers(const JsonValue& map) : members_(map.MemberCount()) {
    const std::span<const Member*> out = members_.items();
    std::size_t i = 0;
    for (auto it = map.MemberBegin(); it != map.MemberEnd(); ++it) out[i++] = &*it;
    std::sort(out.begin(), out.end(), [](const Member* a, const Member* b) {
      const std::string_view x = view(a->name);
      const std::string_view y = view(b->name);
      // Most resource names differ in their first byte: decided without a memcmp call.
      if (!x.empty() && !y.empty() && x[0] != y[0]) {
        return static_cast<unsigned char>(x[0]) < static_cast<unsigned char>(y[0]);
      }
      return x < y;
    });
  }

  auto begin() const { return members_.items().begin(); }
  auto end() const { return members_.items().end(); }
  std::size_t size() const { return members_.items().size(); }
  const Member& operator[](std::size_t i) const { return *members_.items()[i]; }

 private:
  InlineBuffer<const Member*, 64> members_;
};

// What a resource name is, looked up once per name (a name is compared as text only with the
// standard names of its length: at most three).
struct ResourceKind {
  bool standard = false;  // IsStandardResourceName
  bool quota = false;     // IsStandardQuotaResourceName (the standard set without `storage`)
  bool integer = false;   // IsIntegerResourceName
};

// Kubernetes' IsStandardResourceName (hugepages included).
bool is_standard_resource_name(std::string_view name);
// IsExtendedResourceName for a name already checked as a qualified name (`qualified`: it is one).
bool is_extended_resource_name(std::string_view name, bool qualified);

// A resource name checked: what it is, and whether it broke none of Q-2…Q-4 (then it breaks none
// wherever it appears again: those rules read the name alone).
struct CheckedResourceName {
  ResourceKind kind;
  bool clean = false;
};

// Q-2…Q-4: the resource name (upstream's ValidateResourceQuotaResourceName).
CheckedResourceName check_resource_name(const ResourceRules& r, std::string_view name,
                                        const FieldPath& path, ErrorList& errors);

// QS-2 on a value, then on the quantity (ValidateResourceQuantityValue), for a
// resource of `kind`. The quantity, when the value is one.
std::optional<Quantity> check_resource_value(const ResourceRules& r, ResourceKind kind,
                                             const JsonValue& value, const FieldPath& path,
                                             ErrorList& errors);

// One entry of a resource map: check_resource_name, then check_resource_value.
std::optional<Quantity> check_resource(const ResourceRules& r, std::string_view name,
                                       const JsonValue& value, const FieldPath& path,
                                       ErrorList& errors);

// Q-2…Q-6 (or their reuse) over a whole resource map, in sorted name order (validateResourceList).
void check_resource_map(const ResourceRules& r, const JsonValue& map, const FieldPath& path,
                        ErrorList& errors);

}  // namespace kpw
