// CV-1…CV-3 (docs/rules.md): the types of both versions as tables for go_json's walker, the
// scheme upstream decodes objects with (its work.karmada.io part), and the two mappings of
// upstream's pkg/apis/work/v1alpha1/binding_types_conversion.go.
#include "converters/bindings.hpp"

#include <array>
#include <optional>

#include "api/object.hpp"
#include "converters/go_json.hpp"

namespace kpw {
namespace {

using go::Field;
using go::Omit;
using go::Struct;
using go::Type;

// --- the types (field order as Go declares them: the encoder writes them so) -------------------

constexpr auto kOwnerReferenceFields = std::to_array<Field>({
    {"apiVersion", Type::kString, "string", Omit::kNever},
    {"kind", Type::kString, "string", Omit::kNever},
    {"name", Type::kString, "string", Omit::kNever},
    {"uid", Type::kString, "types.UID", Omit::kNever},
    {"controller", Type::kBoolPointer, "bool"},
    {"blockOwnerDeletion", Type::kBoolPointer, "bool"},
});
constexpr Struct kOwnerReference{"OwnerReference", kOwnerReferenceFields};

constexpr auto kManagedFieldsEntryFields = std::to_array<Field>({
    {"manager", Type::kString, "string"},
    {"operation", Type::kString, "v1.ManagedFieldsOperationType"},
    {"apiVersion", Type::kString, "string"},
    {"time", Type::kTimePointer, "v1.Time"},
    {"fieldsType", Type::kString, "string"},
    {"fieldsV1", Type::kRaw, "v1.FieldsV1"},
    {"subresource", Type::kString, "string"},
});
constexpr Struct kManagedFieldsEntry{"ManagedFieldsEntry", kManagedFieldsEntryFields};

constexpr auto kObjectMetaFields = std::to_array<Field>({
    {"name", Type::kString, "string"},
    {"generateName", Type::kString, "string"},
    {"namespace", Type::kString, "string"},
    {"selfLink", Type::kString, "string"},
    {"uid", Type::kString, "types.UID"},
    {"resourceVersion", Type::kString, "string"},
    {"generation", Type::kInt64, "int64"},
    {"creationTimestamp", Type::kTime, "v1.Time", Omit::kZero},
    {"deletionTimestamp", Type::kTimePointer, "v1.Time"},
    {"deletionGracePeriodSeconds", Type::kInt64Pointer, "int64"},
    {"labels", Type::kStringMap, "map[string]string"},
    {"annotations", Type::kStringMap, "map[string]string"},
    {"ownerReferences", Type::kStructList, "[]v1.OwnerReference", Omit::kEmpty, &kOwnerReference,
     "v1.OwnerReference"},
    {"finalizers", Type::kStringList, "[]string"},
    {"managedFields", Type::kStructList, "[]v1.ManagedFieldsEntry", Omit::kEmpty,
     &kManagedFieldsEntry, "v1.ManagedFieldsEntry"},
});
constexpr Struct kObjectMeta{"ObjectMeta", kObjectMetaFields};

constexpr auto kConditionFields = std::to_array<Field>({
    {"type", Type::kString, "string", Omit::kNever},
    {"status", Type::kString, "v1.ConditionStatus", Omit::kNever},
    {"observedGeneration", Type::kInt64, "int64"},
    {"lastTransitionTime", Type::kTime, "v1.Time", Omit::kNever},
    {"reason", Type::kString, "string", Omit::kNever},
    {"message", Type::kString, "string", Omit::kNever},
});
constexpr Struct kCondition{"Condition", kConditionFields};

// v1alpha1.

constexpr auto kTargetCluster1Fields = std::to_array<Field>({
    {"name", Type::kString, "string", Omit::kNever},
    {"replicas", Type::kInt32, "int32"},
});
constexpr Struct kTargetCluster1{"TargetCluster", kTargetCluster1Fields};

constexpr auto kAggregatedStatusItem1Fields = std::to_array<Field>({
    {"clusterName", Type::kString, "string", Omit::kNever},
    {"status", Type::kRaw, "runtime.RawExtension"},
    {"applied", Type::kBool, "bool"},
    {"appliedMessage", Type::kString, "string"},
});
constexpr Struct kAggregatedStatusItem1{"AggregatedStatusItem", kAggregatedStatusItem1Fields};

constexpr auto kObjectReference1Fields = std::to_array<Field>({
    {"apiVersion", Type::kString, "string", Omit::kNever},
    {"kind", Type::kString, "string", Omit::kNever},
    {"namespace", Type::kString, "string"},
    {"name", Type::kString, "string", Omit::kNever},
    {"resourceVersion", Type::kString, "string"},
    {"resourcePerReplicas", Type::kQuantityMap, "v1.ResourceList"},
    {"replicas", Type::kInt32, "int32"},
});
constexpr Struct kObjectReference1{"ObjectReference", kObjectReference1Fields};

constexpr auto kSpec1Fields = std::to_array<Field>({
    {"resource", Type::kStruct, "v1alpha1.ObjectReference", Omit::kNever, &kObjectReference1},
    {"clusters", Type::kStructList, "[]v1alpha1.TargetCluster", Omit::kEmpty, &kTargetCluster1,
     "v1alpha1.TargetCluster"},
});
constexpr Struct kSpec1{"ResourceBindingSpec", kSpec1Fields};

constexpr auto kStatus1Fields = std::to_array<Field>({
    {"conditions", Type::kStructList, "[]v1.Condition", Omit::kEmpty, &kCondition, "v1.Condition"},
    {"aggregatedStatus", Type::kStructList, "[]v1alpha1.AggregatedStatusItem", Omit::kEmpty,
     &kAggregatedStatusItem1, "v1alpha1.AggregatedStatusItem"},
});
constexpr Struct kStatus1{"ResourceBindingStatus", kStatus1Fields};

constexpr auto kBinding1Fields = std::to_array<Field>({
    {"apiVersion", Type::kString, "string"},
    {"kind", Type::kString, "string"},
    {"metadata", Type::kStruct, "v1.ObjectMeta", Omit::kNever, &kObjectMeta},
    {"spec", Type::kStruct, "v1alpha1.ResourceBindingSpec", Omit::kNever, &kSpec1},
    {"status", Type::kStruct, "v1alpha1.ResourceBindingStatus", Omit::kNever, &kStatus1},
});
constexpr Struct kResourceBinding1{"ResourceBinding", kBinding1Fields};
constexpr Struct kClusterResourceBinding1{"ClusterResourceBinding", kBinding1Fields};

// v1alpha2 (the hub): what it has beyond v1alpha1 is dropped, read only as far as its JSON type.

constexpr auto kTargetCluster2Fields = std::to_array<Field>({
    {"name", Type::kString, "string", Omit::kNever},
    {"replicas", Type::kInt32, "int32"},
    {"components", Type::kDroppedList, "[]v1alpha2.TargetComponent"},
});
constexpr Struct kTargetCluster2{"TargetCluster", kTargetCluster2Fields};

constexpr auto kAggregatedStatusItem2Fields = std::to_array<Field>({
    {"clusterName", Type::kString, "string", Omit::kNever},
    {"status", Type::kRaw, "runtime.RawExtension"},
    {"applied", Type::kBool, "bool"},
    {"appliedMessage", Type::kString, "string"},
    {"health", Type::kString, "v1alpha2.ResourceHealth"},
});
constexpr Struct kAggregatedStatusItem2{"AggregatedStatusItem", kAggregatedStatusItem2Fields};

constexpr auto kObjectReference2Fields = std::to_array<Field>({
    {"apiVersion", Type::kString, "string", Omit::kNever},
    {"kind", Type::kString, "string", Omit::kNever},
    {"namespace", Type::kString, "string"},
    {"name", Type::kString, "string", Omit::kNever},
    {"uid", Type::kString, "types.UID"},
    {"resourceVersion", Type::kString, "string"},
});
constexpr Struct kObjectReference2{"ObjectReference", kObjectReference2Fields};

constexpr auto kReplicaRequirements2Fields = std::to_array<Field>({
    {"nodeClaim", Type::kDroppedStruct, "v1alpha2.NodeClaim"},
    {"resourceRequest", Type::kQuantityMap, "v1.ResourceList"},
    {"namespace", Type::kString, "string"},
    {"priorityClassName", Type::kString, "string"},
});
constexpr Struct kReplicaRequirements2{"ReplicaRequirements", kReplicaRequirements2Fields};

constexpr auto kSpec2Fields = std::to_array<Field>({
    {"resource", Type::kStruct, "v1alpha2.ObjectReference", Omit::kNever, &kObjectReference2},
    {"propagateDeps", Type::kBool, "bool"},
    {"replicaRequirements", Type::kStruct, "v1alpha2.ReplicaRequirements", Omit::kEmpty,
     &kReplicaRequirements2},
    {"replicas", Type::kInt32, "int32"},
    {"clusters", Type::kStructList, "[]v1alpha2.TargetCluster", Omit::kEmpty, &kTargetCluster2,
     "v1alpha2.TargetCluster"},
    {"placement", Type::kDroppedStruct, "v1alpha1.Placement"},
    {"gracefulEvictionTasks", Type::kDroppedList, "[]v1alpha2.GracefulEvictionTask"},
    {"requiredBy", Type::kDroppedList, "[]v1alpha2.BindingSnapshot"},
    {"schedulerName", Type::kString, "string"},
    {"failover", Type::kDroppedStruct, "v1alpha1.FailoverBehavior"},
    {"conflictResolution", Type::kString, "v1alpha1.ConflictResolution"},
    {"rescheduleTriggeredAt", Type::kTimePointer, "v1.Time"},
    {"components", Type::kDroppedList, "[]v1alpha2.Component"},
    {"schedulePriority", Type::kDroppedStruct, "v1alpha2.SchedulePriority"},
    {"suspension", Type::kDroppedStruct, "v1alpha2.Suspension"},
    {"preserveResourcesOnDeletion", Type::kBoolPointer, "bool"},
    {"workloadAffinityGroups", Type::kDroppedStruct, "v1alpha2.WorkloadAffinityGroups"},
});
constexpr Struct kSpec2{"ResourceBindingSpec", kSpec2Fields};

constexpr auto kStatus2Fields = std::to_array<Field>({
    {"schedulerObservedGeneration", Type::kInt64, "int64"},
    {"schedulerObservingAffinityName", Type::kString, "string"},
    {"conditions", Type::kStructList, "[]v1.Condition", Omit::kEmpty, &kCondition, "v1.Condition"},
    {"aggregatedStatus", Type::kStructList, "[]v1alpha2.AggregatedStatusItem", Omit::kEmpty,
     &kAggregatedStatusItem2, "v1alpha2.AggregatedStatusItem"},
    {"lastScheduledTime", Type::kTimePointer, "v1.Time"},
});
constexpr Struct kStatus2{"ResourceBindingStatus", kStatus2Fields};

constexpr auto kBinding2Fields = std::to_array<Field>({
    {"apiVersion", Type::kString, "string"},
    {"kind", Type::kString, "string"},
    {"metadata", Type::kStruct, "v1.ObjectMeta", Omit::kNever, &kObjectMeta},
    {"spec", Type::kStruct, "v1alpha2.ResourceBindingSpec", Omit::kNever, &kSpec2},
    {"status", Type::kStruct, "v1alpha2.ResourceBindingStatus", Omit::kNever, &kStatus2},
});
constexpr Struct kResourceBinding2{"ResourceBinding", kBinding2Fields};
constexpr Struct kClusterResourceBinding2{"ClusterResourceBinding", kBinding2Fields};

// Work converts to nothing; it decodes as far as the JSON types of its spec and status.
constexpr auto kWorkFields = std::to_array<Field>({
    {"apiVersion", Type::kString, "string"},
    {"kind", Type::kString, "string"},
    {"metadata", Type::kStruct, "v1.ObjectMeta", Omit::kNever, &kObjectMeta},
    {"spec", Type::kDroppedStruct, "v1alpha1.WorkSpec"},
    {"status", Type::kDroppedStruct, "v1alpha1.WorkStatus"},
});
constexpr Struct kWork{"Work", kWorkFields};

// The lists: their items decode as the objects they hold; their metadata (ListMeta) as far as its
// JSON type.
#define KPW_LIST_FIELDS(name, item, go_item)                                    \
  constexpr auto name = std::to_array<Field>({                                  \
      {"apiVersion", Type::kString, "string"},                                  \
      {"kind", Type::kString, "string"},                                        \
      {"metadata", Type::kDroppedStruct, "v1.ListMeta"},                        \
      {"items", Type::kStructList, "[]" go_item, Omit::kEmpty, &item, go_item}, \
  })
KPW_LIST_FIELDS(kRBList1Fields, kResourceBinding1, "v1alpha1.ResourceBinding");
KPW_LIST_FIELDS(kCRBList1Fields, kClusterResourceBinding1, "v1alpha1.ClusterResourceBinding");
KPW_LIST_FIELDS(kRBList2Fields, kResourceBinding2, "v1alpha2.ResourceBinding");
KPW_LIST_FIELDS(kCRBList2Fields, kClusterResourceBinding2, "v1alpha2.ClusterResourceBinding");
KPW_LIST_FIELDS(kWorkListFields, kWork, "v1alpha1.Work");
#undef KPW_LIST_FIELDS
constexpr Struct kRBList1{"ResourceBindingList", kRBList1Fields};
constexpr Struct kCRBList1{"ClusterResourceBindingList", kCRBList1Fields};
constexpr Struct kRBList2{"ResourceBindingList", kRBList2Fields};
constexpr Struct kCRBList2{"ClusterResourceBindingList", kCRBList2Fields};
constexpr Struct kWorkList{"WorkList", kWorkListFields};

// What the converted objects are written with (the fields the mappings keep, in Go's order).
constexpr auto kResourceOutFields = std::to_array<Field>({
    {"apiVersion", Type::kString, "string", Omit::kNever},
    {"kind", Type::kString, "string", Omit::kNever},
    {"namespace", Type::kString, "string"},
    {"name", Type::kString, "string", Omit::kNever},
    {"resourceVersion", Type::kString, "string"},
});
constexpr Field kResourceRequestOut{"resourceRequest", Type::kQuantityMap, "v1.ResourceList"};
constexpr Field kResourcePerReplicasOut{"resourcePerReplicas", Type::kQuantityMap,
                                        "v1.ResourceList"};
constexpr Field kReplicasOut{"replicas", Type::kInt32, "int32"};
constexpr Field kClustersOut{"clusters", Type::kStructList, "", Omit::kEmpty, &kTargetCluster1};
constexpr Field kConditionsOut{"conditions", Type::kStructList, "", Omit::kEmpty, &kCondition};
constexpr Field kAggregatedStatusOut{"aggregatedStatus", Type::kStructList, "", Omit::kEmpty,
                                     &kAggregatedStatusItem1};

// --- the scheme -------------------------------------------------------------------------------

constexpr std::string_view kGroup = "work.karmada.io";
// Upstream's scheme (pkg/util/gclient), named in its "no kind is registered" errors.
constexpr std::string_view kSchemeName = "pkg/util/gclient/gclient.go:41";

enum class Role : std::uint8_t { kHub, kSpoke, kNone };

struct SchemeKind {
  std::string_view version;
  std::string_view kind;
  std::string_view go_type;  // as %T writes it
  Role role;
  const Struct* type;  // how it decodes
};

// The kinds of work.karmada.io upstream registers: v1alpha2 bindings are the hub (conversion.Hub),
// v1alpha1 bindings convert to and from it (conversion.Convertible), the rest convert to nothing.
constexpr auto kScheme = std::to_array<SchemeKind>({
    {"v1alpha1", "ResourceBinding", "*v1alpha1.ResourceBinding", Role::kSpoke, &kResourceBinding1},
    {"v1alpha1", "ClusterResourceBinding", "*v1alpha1.ClusterResourceBinding", Role::kSpoke,
     &kClusterResourceBinding1},
    {"v1alpha1", "ResourceBindingList", "*v1alpha1.ResourceBindingList", Role::kNone, &kRBList1},
    {"v1alpha1", "ClusterResourceBindingList", "*v1alpha1.ClusterResourceBindingList", Role::kNone,
     &kCRBList1},
    {"v1alpha1", "Work", "*v1alpha1.Work", Role::kNone, &kWork},
    {"v1alpha1", "WorkList", "*v1alpha1.WorkList", Role::kNone, &kWorkList},
    {"v1alpha2", "ResourceBinding", "*v1alpha2.ResourceBinding", Role::kHub, &kResourceBinding2},
    {"v1alpha2", "ClusterResourceBinding", "*v1alpha2.ClusterResourceBinding", Role::kHub,
     &kClusterResourceBinding2},
    {"v1alpha2", "ResourceBindingList", "*v1alpha2.ResourceBindingList", Role::kNone, &kRBList2},
    {"v1alpha2", "ClusterResourceBindingList", "*v1alpha2.ClusterResourceBindingList", Role::kNone,
     &kCRBList2},
});

struct GroupVersion {
  std::string_view group;
  std::string_view version;
};

// schema.ParseGroupVersion: "" and "/" are empty, "v1" has no group, more than one "/" fails.
std::optional<GroupVersion> parse_group_version(std::string_view gv) {
  if (gv.empty() || gv == "/") return GroupVersion{};
  const std::size_t slash = gv.find('/');
  if (slash == std::string_view::npos) return GroupVersion{{}, gv};
  if (gv.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  return GroupVersion{gv.substr(0, slash), gv.substr(slash + 1)};
}

// GroupVersion.String().
void append_group_version(std::string& out, const GroupVersion& gv) {
  if (!gv.group.empty()) {
    out += gv.group;
    out += '/';
  }
  out += gv.version;
}

const SchemeKind* find_kind(const GroupVersion& gv, std::string_view kind) {
  if (gv.group != kGroup) return nullptr;
  for (const SchemeKind& k : kScheme) {
    if (k.version == gv.version && k.kind == kind) return &k;
  }
  return nullptr;
}

// `text` as Go's %q writes it, cut at kMaxEchoedBytes as every echoed value is (`"aaa"... (70000
// bytes)`): the kind and the desiredAPIVersion of a review come from its sender, whole.
void append_quoted_echo(std::string& out, std::string_view text) {
  go::append_go_quoted(out, cut_utf8(text, kMaxEchoedBytes));
  if (text.size() > kMaxEchoedBytes) {
    out += "... (";
    out += std::to_string(text.size());
    out += " bytes)";
  }
}

bool not_registered(std::string_view kind, const GroupVersion& gv, std::string& error) {
  error = "no kind ";
  append_quoted_echo(error, kind);
  error += " is registered for version ";
  std::string version;
  append_group_version(version, gv);
  append_quoted_echo(error, version);
  error += " in scheme ";
  go::append_go_quoted(error, kSchemeName);
  return false;
}

// `Object 'Kind' is missing in '<object>'`: the object as the API server writes it (compact), cut
// at kMaxEchoedBytes (upstream echoes the bytes it was sent, whole).
bool missing(std::string_view what, const JsonValue& object, std::string& error) {
  std::string rendered;
  if (!object.IsNull()) append_compact_json(rendered, object, true);
  error = "Object '";
  error += what;
  error += "' is missing in '";
  append_echoed_text(error, rendered);
  error += '\'';
  return false;
}

// --- the mappings -----------------------------------------------------------------------------

// The fields the mappings read, from either version.
struct Binding {
  const JsonValue* metadata = nullptr;
  const JsonValue* resource = nullptr;  // spec.resource
  const JsonValue* replicas = nullptr;  // v1alpha1 spec.resource.replicas, v1alpha2 spec.replicas
  const JsonValue* resource_request =
      nullptr;  // non-nil: v1alpha1 spec.resource.resourcePerReplicas,
                // v1alpha2 spec.replicaRequirements.resourceRequest
  const JsonValue* clusters = nullptr;
  const JsonValue* conditions = nullptr;
  const JsonValue* aggregated_status = nullptr;
};

Binding read_binding(const JsonValue& object, bool hub) {
  Binding b;
  b.metadata = member(&object, "metadata");
  const JsonValue* spec = member(&object, "spec");
  b.resource = member(spec, "resource");
  if (hub) {
    b.replicas = member(spec, "replicas");
    b.resource_request = member(member(spec, "replicaRequirements"), "resourceRequest");
  } else {
    b.replicas = member(b.resource, "replicas");
    b.resource_request = member(b.resource, "resourcePerReplicas");
  }
  b.clusters = member(spec, "clusters");
  const JsonValue* status = member(&object, "status");
  b.conditions = member(status, "conditions");
  b.aggregated_status = member(status, "aggregatedStatus");
  return b;
}

void append_resource_fields(std::string& out, const Binding& b) {
  bool first = true;
  for (const Field& f : kResourceOutFields) {
    if (go::append_field(out, f, member(b.resource, f.name), first)) first = false;
  }
}

void append_status(std::string& out, const Binding& b) {
  out += ",\"status\":{";
  const bool first = !go::append_field(out, kConditionsOut, b.conditions, true);
  go::append_field(out, kAggregatedStatusOut, b.aggregated_status, first);
  out += '}';
}

// CV-1: ConvertTo (v1alpha1 → the hub). resourcePerReplicas, when set (an empty map counts), is
// replicaRequirements.resourceRequest; clusters keep name and replicas; status keeps conditions
// and each aggregatedStatus item's clusterName, status, applied, appliedMessage.
void append_hub(std::string& out, const Binding& b) {
  out += ",\"spec\":{\"resource\":{";
  append_resource_fields(out, b);
  out += '}';
  if (b.resource_request != nullptr) {
    out += ",\"replicaRequirements\":{";
    go::append_field(out, kResourceRequestOut, b.resource_request, true);
    out += '}';
  }
  go::append_field(out, kReplicasOut, b.replicas, false);
  go::append_field(out, kClustersOut, b.clusters, false);
  out += '}';
  append_status(out, b);
}

// CV-2: ConvertFrom (the hub → v1alpha1): the reverse; everything else the hub holds is dropped.
void append_spoke(std::string& out, const Binding& b) {
  out += ",\"spec\":{\"resource\":{";
  append_resource_fields(out, b);
  go::append_field(out, kResourcePerReplicasOut, b.resource_request, false);
  go::append_field(out, kReplicasOut, b.replicas, false);
  out += '}';
  go::append_field(out, kClustersOut, b.clusters, false);
  out += '}';
  append_status(out, b);
}

}  // namespace

bool convert_binding(const JsonValue& object, std::string_view desired_api_version,
                     std::string& out, std::string& error) {
  // The decoder's first look (json.SimpleMetaFactory.Interpret): apiVersion and kind, matched as
  // Go's encoding/json matches keys.
  if (!object.IsObject()) {
    if (object.IsNull()) return missing("Kind", object, error);
    error = "couldn't get version/kind; json parse error: json: cannot unmarshal ";
    error += go::json_kind(object);
    error +=
        " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
        "Kind string \"json:\\\"kind,omitempty\\\"\" }";
    return false;
  }
  std::string_view api_version;
  std::string_view kind;
  std::string type_error;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    const std::string_view key = view(it->name);
    const bool is_version = go_key_matches(key, "apiVersion");
    if (!is_version && !go_key_matches(key, "kind")) continue;
    if (it->value.IsString()) {
      (is_version ? api_version : kind) = view(it->value);
    } else if (!it->value.IsNull() && type_error.empty()) {
      type_error = "couldn't get version/kind; json parse error: json: cannot unmarshal ";
      type_error += go::json_kind(it->value);
      type_error += is_version ? " into Go struct field .apiVersion of type string"
                               : " into Go struct field .kind of type string";
    }
  }
  if (!type_error.empty()) {
    error = std::move(type_error);
    return false;
  }
  const std::optional<GroupVersion> gv = parse_group_version(api_version);
  if (!gv) {
    error = "unexpected GroupVersion string: ";
    error += api_version;
    return false;
  }
  if (kind.empty()) return missing("Kind", object, error);
  if (gv->version.empty()) return missing("apiVersion", object, error);
  const SchemeKind* src = find_kind(*gv, kind);
  if (src == nullptr) return not_registered(kind, *gv, error);
  error = go::decode_errors(*src->type, object);
  if (!error.empty()) return false;
  // The destination (controller-runtime's allocateDstObject): the desired version, the same kind.
  const GroupVersion desired = parse_group_version(desired_api_version).value_or(GroupVersion{});
  const SchemeKind* dst = find_kind(desired, kind);
  if (dst == nullptr) return not_registered(kind, desired, error);
  // The source's own apiVersion and kind (its TypeMeta, exact keys) against the destination's.
  const GroupVersion typed =
      parse_group_version(string_or_empty(&object, "apiVersion")).value_or(GroupVersion{});
  const std::string_view typed_kind = string_or_empty(&object, "kind");
  if (typed.group != desired.group || typed_kind != kind) {
    error = "src ";
    error += src->go_type;
    error += " and dst ";
    error += dst->go_type;
    error += " does not belong to same API Group";
    return false;
  }
  if (typed.version == desired.version) {
    error = "conversion is not allowed between same type ";
    error += src->go_type;
    return false;
  }
  const bool converts = (src->role == Role::kHub && dst->role == Role::kSpoke) ||
                        (src->role == Role::kSpoke && dst->role != Role::kNone);
  if (!converts) {
    error = src->go_type;
    error += " is not convertible to ";
    error += dst->go_type;
    return false;
  }
  // Spoke to spoke goes through the hub, which loses nothing v1alpha1 holds.
  const Binding b = read_binding(object, src->role == Role::kHub);
  out += "{\"kind\":";
  append_go_json_string(out, kind);
  out += ",\"apiVersion\":";
  append_go_json_string(out, desired_api_version);
  out += ",\"metadata\":";
  go::append_struct(out, kObjectMeta, b.metadata);
  if (dst->role == Role::kHub) {
    append_hub(out, b);
  } else {
    append_spoke(out, b);
  }
  out += '}';
  return true;
}

}  // namespace kpw
