// /mutate-work, as the steps of upstream's handler (pkg/webhook/work/mutating.go, the pruning of
// pkg/resourceinterpreter/default/native/prune, the managed keys of pkg/util), each step as
// upstream reads the manifest through its unstructured accessors (docs/rules.md, "Work"):
//
//   W-1   the Work's label work.karmada.io/permanent-id: a UUID v4 when absent or "";
//   D-ID  on UPDATE, the value oldObject holds instead (upstream mints a new one);
//   W-2   every manifest an object with a kind (else refused, 400, naming it);
//   W-3   server-set metadata and status removed;
//   W-4…W-9 by kind (exactly `kind`, in any group): Deployment's revision annotations, Job's
//         generated selector labels and TTL (W-5: a Job that does not decode as batch/v1 is
//         refused), a token Secret's data and uid annotation, a ServiceAccount's token secrets
//         (W-7, fixed: every one), a Service's cluster IPs, a PVC's selected node;
//   W-10…W-12 the managed annotations, the Work's ID label, the managed labels;
//   W-13  what upstream's re-marshal changes that the API server would store otherwise:
//         `manifests: []` (or null) removed, a missing spec added as {"workload":{}} (the CRD
//         requires one); its meaningless artefacts (`add /status {}`, `workload: {}` in a spec
//         without it) never added.
//
// The patch holds only real changes; mutating the result again changes nothing. Every step is
// linear in the manifest: one pass over a map per step, the managed key lists sorted, a map
// upstream rewrites whole (nulls as "") copied once, never an op per key of a large map.
#include "mutators/work.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/karmada.hpp"
#include "api/object.hpp"
#include "json/go_unstructured.hpp"
#include "mutators/batch_v1_job_schema.hpp"
#include "util/uuid.hpp"

namespace kpw {
namespace {

using karmada::kManagedAnnotations;
using karmada::kManagedLabels;
using karmada::kWorkPermanentIdLabel;

// What a review reuses so that it allocates nothing in the steady state: the key lists W-10 and
// W-12 sort, and the text they are joined into (copied into the patch at once). Past these sizes
// they are given back after the review (a hostile map of 100 000 keys keeps nothing).
struct Scratch {
  std::vector<std::string_view> keys;
  std::string text;
};
thread_local Scratch t_scratch;
constexpr std::size_t kRetainedKeys = 4096;
constexpr std::size_t kRetainedText = 64 * 1024;

// W-3: what the API server sets, removed from every manifest's metadata (status too).
constexpr std::array<std::string_view, 10> kServerSetMetadata = {"creationTimestamp",
                                                                 "deletionTimestamp",
                                                                 "deletionGracePeriodSeconds",
                                                                 "generation",
                                                                 "managedFields",
                                                                 "resourceVersion",
                                                                 "selfLink",
                                                                 "uid",
                                                                 "ownerReferences",
                                                                 "finalizers"};

bool server_set(std::string_view name) {
  return std::find(kServerSetMetadata.begin(), kServerSetMetadata.end(), name) !=
         kServerSetMetadata.end();
}

// The annotation keys W-4, W-6 and W-9 remove (at most two per manifest).
struct PrunedKeys {
  std::array<std::string_view, 2> keys;
  std::size_t n = 0;
  void add(std::string_view key) {
    if (n < keys.size()) keys[n++] = key;
  }
  bool has(std::string_view key) const {
    return std::find(keys.begin(), keys.begin() + n, key) != keys.begin() + n;
  }
};

// A manifest's labels or annotations as upstream's accessors (GetLabels, GetAnnotations:
// NestedNullCoercingStringMap) read them once the `pruned` keys are gone, whatever their values:
// absent or null is no map; an object of strings and nulls is the map, its nulls read as "";
// anything else is no map either (the accessor's error is dropped), and upstream's write then
// replaces it whole.
enum class MapState { kAbsent, kValid, kInvalid };
struct StringMap {
  const JsonValue* value = nullptr;  // an object when kValid
  MapState state = MapState::kAbsent;
  bool has_null = false;  // a valid map holding nulls: upstream writes them back as ""
};

StringMap read_string_map(const JsonValue* metadata, std::string_view key,
                          const PrunedKeys& pruned) {
  StringMap map;
  const JsonValue* v = metadata != nullptr ? find_member(*metadata, key) : nullptr;
  if (v == nullptr || v->IsNull()) return map;
  map.value = v;
  map.state = MapState::kInvalid;
  if (!v->IsObject()) return map;
  for (auto m = v->MemberBegin(); m != v->MemberEnd(); ++m) {
    if (m->value.IsString() || pruned.has(view(m->name))) continue;
    if (!m->value.IsNull()) return map;
    map.has_null = true;
  }
  map.state = MapState::kValid;
  return map;
}

struct Manifest {
  const JsonValue& object;
  const FieldPath& path;
  std::string_view kind;
  // metadata when it is an object; upstream can write labels and annotations only where metadata
  // is absent (it creates it) or an object.
  const JsonValue* metadata = nullptr;
  bool metadata_writable = false;
  PrunedKeys pruned;
};

// ---- W-1, D-ID: the Work's permanent ID ----

// The ID the Work keeps (W-1: its own when set; D-ID: on an UPDATE that dropped it, oldObject's;
// else a new UUID v4, held in `fresh`), set on the Work when it changes.
std::string_view identify_work(const AdmissionRequest& request, UuidText& fresh, JsonPatch& patch) {
  const JsonValue* labels = object_member(object_member(request.object, "metadata"), "labels");
  if (const auto id = string_member(labels, kWorkPermanentIdLabel); id && !id->empty()) return *id;
  std::string_view id;
  if (request.operation == Operation::kUpdate) {
    const JsonValue* old_labels =
        object_member(object_member(request.old_object, "metadata"), "labels");
    id = string_or_empty(old_labels, kWorkPermanentIdLabel);
  }
  if (id.empty()) {
    fresh = random_uuid_v4();
    id = std::string_view(fresh.data(), fresh.size());
  }
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels_path = metadata.child("labels");
  patch.set(labels_path.key(kWorkPermanentIdLabel), id);
  return id;
}

// ---- W-2: a manifest upstream can decode (json.Unmarshal into unstructured.Unstructured) ----

bool decodable(const JsonValue& object, const FieldPath& path, AdmissionResult& result) {
  std::string why;
  if (!object.IsObject()) {
    path.append_to(why);
    why += ": Invalid value: ";
    append_echoed_scalar(why, object);
    why += ": must be an object (a Kubernetes object with apiVersion and kind)";
  } else if (const JsonValue* kind = member(&object, "kind");
             kind == nullptr || !kind->IsString() || kind->GetStringLength() == 0) {
    const FieldPath kind_path = path.child("kind");
    kind_path.append_to(why);
    if (kind == nullptr || kind->IsString()) {
      why += ": Required value: a manifest must have a kind";
    } else {
      why += ": Invalid value: ";
      append_echoed_scalar(why, *kind);
      why += ": must be a string";
    }
  } else if (const auto api_version = string_member(&object, "apiVersion");
             api_version && std::count(api_version->begin(), api_version->end(), '/') > 1) {
    const FieldPath version_path = path.child("apiVersion");
    version_path.append_to(why);
    why += ": Invalid value: ";
    append_echoed_string(why, *api_version);
    why += ": must be <version> or <group>/<version>";
  } else {
    return true;
  }
  result.refuse(400, std::move(why));
  return false;
}

// ---- W-3: server-set metadata and status ----

void remove_server_set_fields(const Manifest& m, JsonPatch& patch) {
  if (m.metadata != nullptr) {
    const FieldPath metadata = m.path.child("metadata");
    for (auto f = m.metadata->MemberBegin(); f != m.metadata->MemberEnd(); ++f) {
      if (!server_set(view(f->name))) continue;
      const FieldPath field = metadata.child(view(f->name));
      patch.remove(field);
    }
  }
  if (find_member(m.object, "status") != nullptr) {
    const FieldPath status = m.path.child("status");
    patch.remove(status);
  }
}

// ---- W-4: Deployment ----

void prune_deployment(Manifest& m) {
  m.pruned.add("deployment.kubernetes.io/revision");
  m.pruned.add("deployment.kubernetes.io/revision-history");
}

// ---- W-5: Job ----

// The Job as upstream decodes it (helper.ConvertToTypedObject into batch/v1 Job) after W-3: its
// status and the metadata W-3 removes are gone by then.
bool job_decodes(const Manifest& m, std::string& why) {
  const go_unstructured::Schema& schema = go_unstructured::kBatchV1Job;
  const go_unstructured::Type& job = schema.types[schema.root];
  for (auto f = m.object.MemberBegin(); f != m.object.MemberEnd(); ++f) {
    const go_unstructured::Field* field = schema.field(job, view(f->name));
    if (field == nullptr) continue;  // status too: the table leaves it out
    const FieldPath path = m.path.child(field->name);
    if (field->name == "metadata" && f->value.IsObject()) {
      const go_unstructured::Type& meta = schema.types[field->type];
      for (auto g = f->value.MemberBegin(); g != f->value.MemberEnd(); ++g) {
        const go_unstructured::Field* meta_field = schema.field(meta, view(g->name));
        if (meta_field == nullptr || server_set(meta_field->name)) continue;
        const FieldPath meta_path = path.child(meta_field->name);
        if (!go_unstructured::decodes(schema, g->value, meta_field->type, meta_path, why))
          return false;
      }
      continue;
    }
    if (!go_unstructured::decodes(schema, f->value, field->type, path, why)) return false;
  }
  return true;
}

// Upstream reads a Job's generated-selector labels with NestedStringMap, which fails on `null` or
// a null value (a Job that decoded fine); then removes `keys`.
bool prune_job_labels(const JsonValue& parent, const FieldPath& parent_path, std::string_view name,
                      std::initializer_list<std::string_view> keys, AdmissionResult& result) {
  const JsonValue* labels = find_member(parent, name);
  if (labels == nullptr) return true;
  const FieldPath labels_path = parent_path.child(name);
  std::string why;
  if (labels->IsNull()) {
    labels_path.append_to(why);
    why += ": Invalid value: null: must be an object of strings";
  } else {
    for (auto l = labels->MemberBegin(); l != labels->MemberEnd(); ++l) {
      if (!l->value.IsNull()) continue;
      const FieldPath label = labels_path.key(view(l->name));
      label.append_to(why);
      why += ": Invalid value: null: must be a string";
      break;
    }
  }
  if (!why.empty()) {
    why += " (upstream reads a Job's generated selector labels as a map of strings)";
    result.refuse(400, std::move(why));
    return false;
  }
  for (const std::string_view key : keys) {
    if (find_member(*labels, key) == nullptr) continue;
    const FieldPath label = labels_path.key(key);
    result.patch.remove(label);
  }
  return true;
}

bool prune_job(const Manifest& m, AdmissionResult& result) {
  std::string why;
  if (!job_decodes(m, why)) {
    why += " (a manifest of kind Job must decode as a batch/v1 Job)";
    result.refuse(400, std::move(why));
    return false;
  }
  const JsonValue* spec = member(&m.object, "spec");
  if (spec == nullptr) return true;  // (a Job that decodes has an object or null here)
  const FieldPath spec_path = m.path.child("spec");
  // Unless the user manages the selector, the labels the Job controller generated go.
  if (!bool_member(spec, "manualSelector").value_or(false)) {
    if (const JsonValue* selector = object_member(spec, "selector")) {
      const FieldPath selector_path = spec_path.child("selector");
      if (!prune_job_labels(*selector, selector_path, "matchLabels",
                            {"controller-uid", "batch.kubernetes.io/controller-uid"}, result)) {
        return false;
      }
    }
    const JsonValue* tmpl = object_member(spec, "template");
    if (const JsonValue* meta = object_member(tmpl, "metadata")) {
      const FieldPath tmpl_path = spec_path.child("template");
      const FieldPath meta_path = tmpl_path.child("metadata");
      if (!prune_job_labels(*meta, meta_path, "labels",
                            {"controller-uid", "job-name", "batch.kubernetes.io/controller-uid",
                             "batch.kubernetes.io/job-name"},
                            result)) {
        return false;
      }
    }
  }
  // Always: the member cluster's TTL controller would delete what Karmada then re-creates.
  if (find_member(*spec, "ttlSecondsAfterFinished") != nullptr) {
    const FieldPath ttl = spec_path.child("ttlSecondsAfterFinished");
    result.patch.remove(ttl);
  }
  return true;
}

// ---- W-6: a service-account token Secret ----

void prune_secret(Manifest& m, JsonPatch& patch) {
  if (string_or_empty(&m.object, "type") != "kubernetes.io/service-account-token") return;
  m.pruned.add("kubernetes.io/service-account.uid");
  const JsonValue* data = find_member(m.object, "data");
  if (data != nullptr && data->IsNull()) return;
  const FieldPath data_path = m.path.child("data");
  patch.set_null(data_path);
}

// ---- W-7: a ServiceAccount's token secrets (fixed) ----

// Every entry named `<name>-token-…` goes (upstream skips the entry after each one it removes,
// and answers 500 on an entry without a string name, which we keep). Removed last to first, so
// each op's index is the entry's own.
void prune_service_account(const Manifest& m, JsonPatch& patch) {
  const JsonValue* secrets = find_member(m.object, "secrets");
  if (secrets == nullptr || !secrets->IsArray()) return;
  const std::string_view name = string_or_empty(m.metadata, "name");
  constexpr std::string_view kToken = "-token-";
  const FieldPath list = m.path.child("secrets");
  for (rapidjson::SizeType i = secrets->Size(); i-- > 0;) {
    const std::optional<std::string_view> secret = string_member(&(*secrets)[i], "name");
    if (!secret || !secret->starts_with(name) || !secret->substr(name.size()).starts_with(kToken)) {
      continue;
    }
    const FieldPath item = list.index(i);
    patch.remove(item);
  }
}

// ---- W-8: a Service's cluster IPs (a headless Service keeps `None`) ----

void prune_service(const Manifest& m, JsonPatch& patch) {
  const JsonValue* spec = object_member(&m.object, "spec");
  const JsonValue* ip = spec != nullptr ? find_member(*spec, "clusterIP") : nullptr;
  if (ip == nullptr || !ip->IsString() || view(*ip) == "None") return;
  const FieldPath spec_path = m.path.child("spec");
  for (std::string_view field : {"clusterIP", "clusterIPs"}) {
    if (find_member(*spec, field) == nullptr) continue;
    const FieldPath path = spec_path.child(field);
    patch.remove(path);
  }
}

// ---- W-9: a PersistentVolumeClaim's selected node ----

void prune_persistent_volume_claim(Manifest& m) {
  constexpr std::string_view kSelectedNode = "volume.kubernetes.io/selected-node";
  const JsonValue* annotations = object_member(m.metadata, "annotations");
  if (!string_or_empty(annotations, kSelectedNode).empty()) m.pruned.add(kSelectedNode);
}

// W-4…W-9, by kind (exactly, in any group); false when the manifest is refused.
bool prune_by_kind(Manifest& m, AdmissionResult& result) {
  if (m.kind == "Deployment") {
    prune_deployment(m);
  } else if (m.kind == "Job") {
    return prune_job(m, result);
  } else if (m.kind == "Secret") {
    prune_secret(m, result.patch);
  } else if (m.kind == "ServiceAccount") {
    prune_service_account(m, result.patch);
  } else if (m.kind == "Service") {
    prune_service(m, result.patch);
  } else if (m.kind == "PersistentVolumeClaim") {
    prune_persistent_volume_claim(m);
  }
  return true;
}

// ---- W-10…W-12: the managed keys ----

// `keys`, sorted (bytewise, as Go's sort.Strings) and comma-joined into `out`.
void join_sorted(std::vector<std::string_view>& keys, std::string& out) {
  std::sort(keys.begin(), keys.end());
  out.clear();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) out += ',';
    out += keys[i];
  }
}

// The map at `path` as upstream writes it back before its keys are set: an invalid one replaced
// by `{}`; a valid one without the `pruned` keys and with its nulls as "" (copied whole when it
// holds a null: one op, not one per key); an absent one is created by the sets below it.
void rewrite_map(const StringMap& map, const FieldPath& path, const PrunedKeys& pruned,
                 JsonPatch& patch) {
  if (map.state == MapState::kInvalid) {
    patch.set_empty_object(path);
    return;
  }
  if (map.state != MapState::kValid) return;
  if (!map.has_null) {
    for (std::size_t i = 0; i < pruned.n; ++i) {
      if (find_member(*map.value, pruned.keys[i]) == nullptr) continue;
      const FieldPath key = path.key(pruned.keys[i]);
      patch.remove(key);
    }
    return;
  }
  JsonAllocator allocator;  // only for a map holding a null (never in a stored object)
  JsonValue copy(rapidjson::kObjectType);
  for (auto m = map.value->MemberBegin(); m != map.value->MemberEnd(); ++m) {
    if (pruned.has(view(m->name))) continue;
    JsonValue value(rapidjson::kStringType);
    if (m->value.IsString())
      value.SetString(rapidjson::StringRef(m->value.GetString(), m->value.GetStringLength()));
    copy.AddMember(JsonValue(rapidjson::StringRef(m->name.GetString(), m->name.GetStringLength())),
                   value, allocator);
  }
  patch.set(path, copy);
}

// Whether the map as it arrived already holds `value` at `key` (so setting it changes nothing).
bool holds(const StringMap& map, std::string_view key, std::string_view value) {
  if (map.state != MapState::kValid || map.has_null) return false;
  const JsonValue* v = find_member(*map.value, key);
  return v != nullptr && view(*v) == value;
}

void record_managed_keys(const Manifest& m, std::string_view work_id, JsonPatch& patch) {
  if (!m.metadata_writable) return;
  const StringMap labels = read_string_map(m.metadata, "labels", PrunedKeys{});
  const StringMap annotations = read_string_map(m.metadata, "annotations", m.pruned);
  const FieldPath metadata = m.path.child("metadata");
  const FieldPath labels_path = metadata.child("labels");
  const FieldPath annotations_path = metadata.child("annotations");
  std::vector<std::string_view>& keys = t_scratch.keys;
  std::string& text = t_scratch.text;

  // W-10: the annotation keys (after W-4…W-9), the two managed keys among them.
  keys.clear();
  keys.push_back(kManagedAnnotations);
  keys.push_back(kManagedLabels);
  if (annotations.state == MapState::kValid) {
    for (auto a = annotations.value->MemberBegin(); a != annotations.value->MemberEnd(); ++a) {
      const std::string_view key = view(a->name);
      if (key != kManagedAnnotations && key != kManagedLabels && !m.pruned.has(key)) {
        keys.push_back(key);
      }
    }
  }
  rewrite_map(annotations, annotations_path, m.pruned, patch);
  join_sorted(keys, text);
  if (!holds(annotations, kManagedAnnotations, text)) {
    const FieldPath key = annotations_path.key(kManagedAnnotations);
    patch.set(key, std::string_view(text));
  }

  // W-11: the Work's ID on the manifest.
  rewrite_map(labels, labels_path, PrunedKeys{}, patch);
  if (!holds(labels, kWorkPermanentIdLabel, work_id)) {
    const FieldPath key = labels_path.key(kWorkPermanentIdLabel);
    patch.set(key, work_id);
  }

  // W-12: the label keys, the ID's among them.
  keys.clear();
  keys.push_back(kWorkPermanentIdLabel);
  if (labels.state == MapState::kValid) {
    for (auto l = labels.value->MemberBegin(); l != labels.value->MemberEnd(); ++l) {
      if (view(l->name) != kWorkPermanentIdLabel) keys.push_back(view(l->name));
    }
  }
  join_sorted(keys, text);
  if (!holds(annotations, kManagedLabels, text)) {
    const FieldPath key = annotations_path.key(kManagedLabels);
    patch.set(key, std::string_view(text));
  }
}

// One manifest, W-2…W-12; false when it is refused.
bool mutate_manifest(const JsonValue& object, const FieldPath& path, std::string_view work_id,
                     AdmissionResult& result) {
  if (!decodable(object, path, result)) return false;
  const JsonValue* metadata = find_member(object, "metadata");
  Manifest m{.object = object,
             .path = path,
             .kind = view(*find_member(object, "kind")),
             .metadata = metadata != nullptr && metadata->IsObject() ? metadata : nullptr,
             .metadata_writable = metadata == nullptr || metadata->IsObject(),
             .pruned = {}};
  remove_server_set_fields(m, result.patch);
  if (!prune_by_kind(m, result)) return false;
  record_managed_keys(m, work_id, result.patch);
  return true;
}

void release_large_scratch() {
  if (t_scratch.keys.capacity() > kRetainedKeys)
    std::vector<std::string_view>().swap(t_scratch.keys);
  if (t_scratch.text.capacity() > kRetainedText) std::string().swap(t_scratch.text);
}

}  // namespace

void mutate_work(const AdmissionRequest& request, AdmissionResult& result) {
  JsonPatch& patch = result.patch;
  UuidText fresh;
  const std::string_view work_id = identify_work(request, fresh, patch);

  const FieldPath spec = FieldPath::root("spec");
  const FieldPath workload_path = spec.child("workload");
  const FieldPath list = workload_path.child("manifests");
  // W-13: a Work without spec is stored as upstream's re-marshal writes it, {"workload":{}}: the
  // CRD requires spec, so without it the API server would refuse what upstream admits.
  if (member(request.object, "spec") == nullptr) {
    patch.set_empty_object(workload_path);
    return;
  }
  const JsonValue* workload = object_member(object_member(request.object, "spec"), "workload");
  const JsonValue* manifests = workload != nullptr ? find_member(*workload, "manifests") : nullptr;
  if (manifests == nullptr) return;
  // W-13: upstream's re-marshal drops an empty list (omitempty); the API server would keep `[]`.
  if (manifests->IsNull() || (manifests->IsArray() && manifests->Empty())) {
    patch.remove(list);
    return;
  }
  if (!manifests->IsArray()) return;  // the CRD's schema refuses it
  for (rapidjson::SizeType i = 0; i < manifests->Size(); ++i) {
    const FieldPath item = list.index(i);
    if (!mutate_manifest((*manifests)[i], item, work_id, result)) break;
  }
  release_large_scratch();
}

}  // namespace kpw
