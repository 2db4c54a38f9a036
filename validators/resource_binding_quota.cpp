// RB-2 (docs/rules.md "ResourceBinding"; upstream: pkg/webhook/resourcebinding/validating.go and
// karmada's util.Resource). Where we differ on purpose (docs/compatibility.md "RB-2"): quotas in
// name order and resources in name order (upstream: Go's map order), and D-Q2.
#include "validators/resource_binding_quota.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_set>

#include "api/object.hpp"
#include "util/json_text.hpp"
#include "util/names.hpp"

namespace kpw {
namespace {

constexpr std::string_view kRequestsPrefix = "requests.";

// How karmada's util.Resource counts a resource (NewResource, Add, ResourceList).
enum class Counted : std::uint8_t {
  kMillis,   // cpu: MilliValue(), written DecimalSI
  kBytes,    // memory, ephemeral-storage, hugepages-*: Value(), written BinarySI
  kUnits,    // pods and the other scalar resources: Value(), written DecimalSI
  kDropped,  // any other name: not kept
};

// Kubernetes' IsScalarResourceName: an extended resource (not native, `requests.<name>` a
// qualified name), hugepages-*, a prefixed native one (kubernetes.io/), attachable-volumes-*.
bool is_scalar(std::string_view name) {
  if (name.starts_with("hugepages-") || name.starts_with("attachable-volumes-")) return true;
  if (name.find("kubernetes.io/") != std::string_view::npos) return true;
  if (name.find('/') == std::string_view::npos) return false;  // native
  if (name.starts_with(kRequestsPrefix)) return false;
  std::string quota_name(kRequestsPrefix);
  quota_name += name;
  return check_qualified_name(quota_name).ok();
}

Counted counted(std::string_view name, bool requests_limits = true) {
  if (name == "cpu") return Counted::kMillis;
  if (name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-")) {
    return Counted::kBytes;
  }
  if (name == "pods" || is_scalar(name)) return Counted::kUnits;
  // D-Q2: a `requests.<name>` key counts as <name> does (Kubernetes' ResourceQuota reads them
  // as one; karmada-io/karmada#7864).
  if (requests_limits && name.starts_with(kRequestsPrefix)) {
    const std::string_view base = name.substr(kRequestsPrefix.size());
    if (!base.starts_with(kRequestsPrefix)) return counted(base);
  }
  return Counted::kDropped;
}

// An amount as util.Resource keeps it: millis for cpu, units for the rest, rounded up.
std::int64_t units(const Quantity& value, Counted how) {
  return scaled_value(value, how == Counted::kMillis ? 3 : 0);
}

Quantity from_units(std::int64_t n, Counted how) {
  return Quantity::of(n, how == Counted::kMillis ? -3 : 0);
}

QuantityFormat format_of(Counted how) {
  return how == Counted::kBytes ? QuantityFormat::kBinarySI : QuantityFormat::kDecimalSI;
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}

// A quantity from a JSON value: a string in Kubernetes' grammar, or an integer.
std::optional<Quantity> quantity_of(const JsonValue& value) {
  if (value.IsString()) {
    const ParsedQuantity parsed = parse_quantity(view(value));
    if (parsed.ok()) return parsed.value;
    return std::nullopt;
  }
  if (value.IsInt64()) return Quantity::of_int(value.GetInt64());
  return std::nullopt;
}

bool by_name(const ResourceAmount& a, const ResourceAmount& b) { return a.name < b.name; }

// A resource list (a JSON object of quantities) read into `out`, sorted; the name of the first
// value that is not a quantity, if any.
std::optional<std::string_view> read_resources(const JsonValue* list, ResourceAmounts& out) {
  out.clear();
  if (list == nullptr || !list->IsObject()) return std::nullopt;
  out.reserve(list->MemberCount());
  for (auto it = list->MemberBegin(); it != list->MemberEnd(); ++it) {
    const std::optional<Quantity> q = quantity_of(it->value);
    if (!q) return view(it->name);
    out.push_back(ResourceAmount{std::string(view(it->name)), *q});
  }
  std::sort(out.begin(), out.end(), by_name);
  // A repeated key (our reader refuses them; kept here for any caller): the last one wins.
  out.erase(std::unique(
                out.begin(), out.end(),
                [](const ResourceAmount& a, const ResourceAmount& b) { return a.name == b.name; }),
            out.end());
  return std::nullopt;
}

std::optional<Quantity> times(const Quantity& q, std::int64_t n) {
  Quantity::Mantissa product = 0;
  if (__builtin_mul_overflow(q.mantissa(), static_cast<Quantity::Mantissa>(n), &product)) {
    return std::nullopt;
  }
  return Quantity::of(product, q.exponent());
}

// Adds `amount` × n into `into` (unsorted, merged later); false when out of range.
bool add_scaled(const ResourceAmounts& list, std::int64_t n, ResourceAmounts& into) {
  for (const ResourceAmount& a : list) {
    if (a.value.is_zero()) continue;
    const std::optional<Quantity> product = times(a.value, n);
    if (!product) return false;
    into.push_back(ResourceAmount{a.name, *product});
  }
  return true;
}

// Sorts and sums equal names; zero sums left out. False when a sum is out of range.
bool merge(ResourceAmounts& list) {
  std::stable_sort(list.begin(), list.end(), by_name);
  std::size_t out = 0;
  for (std::size_t i = 0; i < list.size();) {
    Quantity sum = list[i].value;
    std::size_t j = i + 1;
    for (; j < list.size() && list[j].name == list[i].name; ++j) {
      const std::optional<Quantity> next = sum.plus(list[j].value);
      if (!next) return false;
      sum = *next;
    }
    if (!sum.is_zero()) {
      if (out != i) list[out].name = std::move(list[i].name);
      list[out].value = sum;
      ++out;
    }
    i = j;
  }
  list.resize(out);
  return true;
}

std::int64_t scheduled_replicas(const JsonValue& spec) {
  std::int64_t total = 0;
  const JsonValue* clusters = array_member(&spec, "clusters");
  if (clusters == nullptr) return 0;
  for (const JsonValue& c : clusters->GetArray()) {
    total += int_member(&c, "replicas").value_or(0);
  }
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(total));  // Go's int32 sum
}

const JsonValue* resource_request(const JsonValue* owner) {
  return object_member(object_member(owner, "replicaRequirements"), "resourceRequest");
}

// Upstream's areResourceListsEqual: the same names, each value equal (Cmp). A list with a value
// that is not a quantity (the API server's schema refuses one) counts as changed.
bool same_resources(const JsonValue* a, const JsonValue* b) {
  const std::size_t na = a != nullptr && a->IsObject() ? a->MemberCount() : 0;
  const std::size_t nb = b != nullptr && b->IsObject() ? b->MemberCount() : 0;
  if (na != nb) return false;
  if (na == 0) return true;
  ResourceAmounts ra;
  ResourceAmounts rb;
  if (read_resources(a, ra) || read_resources(b, rb)) return false;  // not quantities
  if (ra.size() != rb.size()) return false;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    if (ra[i].name != rb[i].name || ra[i].value != rb[i].value) return false;
  }
  return true;
}

// Upstream's isScheduledClusterChanged: a different count, or a cluster of the new binding that
// the old one does not schedule to.
bool clusters_changed(const JsonValue* old_spec, const JsonValue* spec) {
  const JsonValue* before = array_member(old_spec, "clusters");
  const JsonValue* now = array_member(spec, "clusters");
  const std::size_t nb = before == nullptr ? 0 : before->Size();
  const std::size_t nn = now == nullptr ? 0 : now->Size();
  if (nb != nn) return true;
  if (nn == 0) return false;
  std::unordered_set<std::string_view> names;
  names.reserve(nb);
  for (const JsonValue& c : before->GetArray()) names.insert(string_or_empty(&c, "name"));
  for (const JsonValue& c : now->GetArray()) {
    if (names.count(string_or_empty(&c, "name")) == 0) return true;
  }
  return false;
}

// Upstream's isComponentsChanged: count, then by index: replicas, whether requirements are set,
// and their requests.
bool components_changed(const JsonValue* before, const JsonValue* now) {
  const std::size_t nb = before == nullptr ? 0 : before->Size();
  const std::size_t nn = now == nullptr ? 0 : now->Size();
  if (nb != nn) return true;
  for (std::size_t i = 0; i < nn; ++i) {
    const JsonValue& b = (*before)[static_cast<rapidjson::SizeType>(i)];
    const JsonValue& n = (*now)[static_cast<rapidjson::SizeType>(i)];
    if (int_member(&b, "replicas").value_or(0) != int_member(&n, "replicas").value_or(0)) {
      return true;
    }
    const JsonValue* rb = object_member(&b, "replicaRequirements");
    const JsonValue* rn = object_member(&n, "replicaRequirements");
    if ((rb == nullptr) != (rn == nullptr)) return true;
    if (rb != nullptr &&
        !same_resources(member(rb, "resourceRequest"), member(rn, "resourceRequest"))) {
      return true;
    }
  }
  return false;
}

void append_used_value(std::string& out, const ResourceAmount& a) {
  out += '"';
  append_quantity(out, a.value, format_of(counted(a.name)));
  out += '"';
}

}  // namespace

bool quota_relevant_change(const JsonValue& old_object, const JsonValue& object) {
  const JsonValue* old_spec = object_member(&old_object, "spec");
  const JsonValue* spec = object_member(&object, "spec");
  if (!same_resources(resource_request(old_spec), resource_request(spec))) return true;
  const JsonValue empty_object(rapidjson::kObjectType);
  if (scheduled_replicas(old_spec != nullptr ? *old_spec : empty_object) !=
      scheduled_replicas(spec != nullptr ? *spec : empty_object)) {
    return true;
  }
  const JsonValue* old_components = array_member(old_spec, "components");
  const JsonValue* components = array_member(spec, "components");
  const bool any = (old_components != nullptr && !old_components->Empty()) ||
                   (components != nullptr && !components->Empty());
  if (any && clusters_changed(old_spec, spec)) return true;
  return components_changed(old_components, components);
}

std::optional<std::string> binding_usage(const JsonValue& object, ResourceAmounts& out) {
  out.clear();
  const JsonValue* spec = object_member(&object, "spec");
  if (spec == nullptr) return std::nullopt;
  const JsonValue* clusters = array_member(spec, "clusters");
  if (clusters == nullptr || clusters->Empty()) return std::nullopt;
  const JsonValue* components = array_member(spec, "components");
  ResourceAmounts list;
  constexpr std::string_view kOutOfRange = "the usage is beyond the range of a quantity";
  if (components != nullptr && !components->Empty()) {
    for (rapidjson::SizeType i = 0; i < components->Size(); ++i) {
      const JsonValue& c = (*components)[i];
      const std::int64_t replicas = int_member(&c, "replicas").value_or(0);
      if (replicas == 0) continue;
      if (auto bad = read_resources(resource_request(&c), out)) {
        return "spec.components[" + std::to_string(i) + "].replicaRequirements.resourceRequest." +
               std::string(*bad) + ": not a quantity";
      }
      if (!add_scaled(out, replicas, list)) return std::string(kOutOfRange);
    }
    if (!merge(list)) return std::string(kOutOfRange);
    out.clear();
    if (!add_scaled(list, static_cast<std::int64_t>(clusters->Size()), out) || !merge(out)) {
      return std::string(kOutOfRange);
    }
    return std::nullopt;
  }
  const std::int64_t replicas = scheduled_replicas(*spec);
  if (replicas <= 0) return std::nullopt;
  if (auto bad = read_resources(resource_request(spec), list)) {
    return "spec.replicaRequirements.resourceRequest." + std::string(*bad) + ": not a quantity";
  }
  if (!add_scaled(list, replicas, out) || !merge(out)) return std::string(kOutOfRange);
  return std::nullopt;
}

bool usage_delta(const ResourceAmounts& now, const ResourceAmounts& before, ResourceAmounts& out) {
  out.clear();
  out.reserve(now.size() + before.size());
  out.insert(out.end(), now.begin(), now.end());
  for (const ResourceAmount& a : before) out.push_back(ResourceAmount{a.name, a.value.negated()});
  return merge(out);
}

QuotaCheck check_quota(std::string_view ns, const QuotaEntry& quota, const ResourceAmounts& delta,
                       StrictRules requests_limits, ResourceAmounts& used, QuotaJudgment& out) {
  used.clear();
  out.message.clear();
  out.d_q2 = false;
  out.d_q2_warning.clear();
  const bool d_q2 = requests_limits != StrictRules::kOff;
  // The charge, filtered to the quota's limits (D-Q2: `requests.<name>` takes <name>'s).
  const auto find = [](const ResourceAmounts& list, std::string_view name) -> const Quantity* {
    const auto it =
        std::lower_bound(list.begin(), list.end(), name,
                         [](const ResourceAmount& a, std::string_view n) { return a.name < n; });
    return it != list.end() && it->name == name ? &it->value : nullptr;
  };
  bool touched = false;
  for (const ResourceLimit& limit : quota.overall) {
    const Quantity* amount = find(delta, limit.name);
    if (amount == nullptr && d_q2 && limit.name.starts_with(kRequestsPrefix)) {
      amount = find(delta, std::string_view(limit.name).substr(kRequestsPrefix.size()));
    }
    if (amount == nullptr || counted(limit.name, d_q2) == Counted::kDropped) continue;
    touched = true;
    used.push_back(ResourceAmount{limit.name, *amount});
  }
  if (!touched) return out.check = QuotaCheck::kUntouched;
  // D-Q2's limits this charge adds to: the only ones of them that may hold it back (copied: the
  // list is sorted and merged below).
  std::vector<std::string> added;
  for (const ResourceAmount& a : used) {
    if (d_q2 && a.value.sign() > 0 && a.name.starts_with(kRequestsPrefix)) added.push_back(a.name);
  }
  // util.Resource: the stored usage and the charge, each rounded up to its unit, then summed;
  // only what is above zero is written (ResourceList()).
  for (const ResourceAmount& a : quota.used) used.push_back(a);
  std::stable_sort(used.begin(), used.end(), by_name);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < used.size();) {
    const Counted how = counted(used[i].name, d_q2);
    std::int64_t sum = 0;
    std::size_t j = i;
    for (; j < used.size() && used[j].name == used[i].name; ++j) {
      sum = saturating_add(sum, units(used[j].value, how));
    }
    if (how != Counted::kDropped && sum > 0) {
      if (kept != i) used[kept].name = std::move(used[i].name);
      used[kept].value = from_units(sum, how);
      ++kept;
    }
    i = j;
  }
  used.resize(kept);
  // The first resource in name order over its limit denies (upstream: Go's map order).
  std::size_t l = 0;
  for (const ResourceAmount& a : used) {
    while (l < quota.overall.size() && quota.overall[l].name < a.name) ++l;
    if (l == quota.overall.size()) break;
    if (quota.overall[l].name != a.name || a.value <= quota.overall[l].value) continue;
    const bool is_d_q2 = d_q2 && a.name.starts_with(kRequestsPrefix);
    if (is_d_q2 && std::find(added.begin(), added.end(), a.name) == added.end()) continue;
    std::string& text =
        is_d_q2 && requests_limits == StrictRules::kWarn ? out.d_q2_warning : out.message;
    if (!text.empty()) continue;  // the first one warned is said
    text = "FederatedResourceQuota(";
    text += ns;
    text += '/';
    text += quota.name;
    text += ") exceeded for resource ";
    text += a.name;
    text += ": requested sum ";
    append_quantity(text, a.value, format_of(counted(a.name)));
    text += ", limit ";
    text += quota.overall[l].text;
    text += '.';
    if (&text == &out.message) {
      out.d_q2 = is_d_q2;
      return out.check = QuotaCheck::kExceeded;
    }
  }
  return out.check = QuotaCheck::kCharged;
}

void append_overall_used_patch(const QuotaEntry& quota, const ResourceAmounts& used,
                               std::string& out) {
  out += R"({"metadata":{"resourceVersion":)";
  append_json_string(out, quota.resource_version);
  // Nothing used: upstream's write leaves overallUsed out (empty, omitted), and so does this one.
  if (used.empty()) {
    out += R"(},"status":{"overallUsed":null}})";
    return;
  }
  out += R"(},"status":{"overallUsed":{)";
  bool first = true;
  const auto key = [&](std::string_view name) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, name);
    out += ':';
  };
  for (const ResourceAmount& a : used) {
    key(a.name);
    append_used_value(out, a);
  }
  // Keys written before and not now: removed (a merge patch merges maps key by key).
  std::size_t u = 0;
  for (const ResourceAmount& a : quota.used) {
    while (u < used.size() && used[u].name < a.name) ++u;
    if (u < used.size() && used[u].name == a.name) continue;
    key(a.name);
    out += "null";
  }
  for (const std::string& name : quota.unreadable_used) {
    key(name);
    out += "null";
  }
  out += "}}}";
}

std::optional<std::string> read_quota(const JsonValue& object, QuotaEntry& out) {
  out.name.clear();
  out.resource_version.clear();
  out.overall.clear();
  out.used.clear();
  out.unreadable_used.clear();
  if (!object.IsObject()) return "the object is not a JSON object";
  const JsonValue* metadata = object_member(&object, "metadata");
  const std::string_view name = string_or_empty(metadata, "name");
  if (name.empty()) return "the object has no metadata.name";
  out.name.assign(name);
  out.resource_version.assign(string_or_empty(metadata, "resourceVersion"));
  const JsonValue* overall = object_member(object_member(&object, "spec"), "overall");
  if (overall != nullptr) {
    for (auto it = overall->MemberBegin(); it != overall->MemberEnd(); ++it) {
      const std::optional<Quantity> q = quantity_of(it->value);
      if (!q) continue;
      ResourceLimit limit{std::string(view(it->name)), *q, {}};
      if (it->value.IsString()) {
        append_canonical_quantity(limit.text, view(it->value));
      } else {
        append_canonical_quantity(limit.text, std::to_string(it->value.GetInt64()));
      }
      out.overall.push_back(std::move(limit));
    }
    std::sort(out.overall.begin(), out.overall.end(),
              [](const ResourceLimit& a, const ResourceLimit& b) { return a.name < b.name; });
  }
  const JsonValue* used = object_member(object_member(&object, "status"), "overallUsed");
  if (used != nullptr) {
    for (auto it = used->MemberBegin(); it != used->MemberEnd(); ++it) {
      const std::optional<Quantity> q = quantity_of(it->value);
      if (q) {
        out.used.push_back(ResourceAmount{std::string(view(it->name)), *q});
      } else {
        out.unreadable_used.emplace_back(view(it->name));
      }
    }
    std::sort(out.used.begin(), out.used.end(), by_name);
  }
  return std::nullopt;
}

}  // namespace kpw
