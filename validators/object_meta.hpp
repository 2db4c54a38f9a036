// The ObjectMeta rules (docs/rules.md, "ObjectMeta"): what Kubernetes' ValidateObjectMeta and
// ValidateObjectMetaUpdate (k8s.io/apimachinery/pkg/api/validation) check in `metadata`, as one
// library. The webhook paths whose upstream handler runs them (MultiClusterService,
// MultiClusterIngress, FederatedHPA, CronFederatedHPA) call it, and so does `check`, which has no
// API server to run them first.
//
// | rule  | what                                                                         |
// |-------|------------------------------------------------------------------------------|
// | K-M1  | name (or generateName) of the kind's name format; name required              |
// | K-M2  | label keys qualified names, values label values                              |
// | K-M3  | annotation keys qualified names, at most 256 KiB in all                      |
// | K-M4  | finalizers qualified names; orphan and foregroundDeletion not both           |
// | K-M5  | namespace: required and a DNS-1123 label (namespaced), forbidden (cluster)   |
// | K-M6  | generation not negative                                                      |
// | K-M7  | ownerReferences: apiVersion, kind, name, uid set; no Event owner; 1 controller|
// | K-M8  | managedFields: operation, fieldsType, manager and subresource lengths        |
// | K-MU1 | UPDATE: resourceVersion set                                                  |
// | K-MU2 | UPDATE: generation not decremented                                           |
// | K-MU3 | UPDATE: name, namespace, uid, creationTimestamp, deletion fields immutable   |
// | K-MU4 | UPDATE: no new finalizer while the object is being deleted                   |
#pragma once

#include <cstdint>

#include "admission/field_error.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"

namespace kpw {

namespace rules {
// K-M1…K-M4 are declared in admission/rules.hpp (`check` used them first).
inline constexpr RuleInfo kKM5{"K-M5", kUpstreamRule, kFieldScope, "",
                               "metadata.namespace is set and a DNS-1123 label (namespaced kinds), "
                               "absent (cluster-scoped kinds)"};
inline constexpr RuleInfo kKM6{"K-M6", kUpstreamRule, kFieldScope, "",
                               "metadata.generation is not negative"};
inline constexpr RuleInfo kKM7{"K-M7", kUpstreamRule, kFieldScope, "",
                               "owner references name an apiVersion with a version, a kind, a "
                               "name and a uid; no Event owns; at most one controller"};
inline constexpr RuleInfo kKM8{"K-M8", kUpstreamRule, kFieldScope, "",
                               "managed fields: operation Apply or Update, fieldsType FieldsV1, "
                               "manager at most 128 characters, subresource at most 256"};
inline constexpr RuleInfo kKMU1{"K-MU1", kUpstreamRule, kFieldScope, "",
                                "UPDATE: metadata.resourceVersion is set"};
inline constexpr RuleInfo kKMU2{"K-MU2", kUpstreamRule, kFieldScope, "",
                                "UPDATE: metadata.generation is not decremented"};
inline constexpr RuleInfo kKMU3{"K-MU3", kUpstreamRule, kFieldScope, "",
                                "UPDATE: name, namespace, uid, creationTimestamp, "
                                "deletionTimestamp and deletionGracePeriodSeconds are immutable"};
inline constexpr RuleInfo kKMU4{"K-MU4", kUpstreamRule, kFieldScope, "",
                                "UPDATE: no finalizer is added while the object is being deleted"};
}  // namespace rules

// The grammar of a kind's names (apimachinery's NameIsDNSSubdomain, NameIsDNS1035Label).
enum class NameFormat : std::uint8_t { kDns1123Subdomain, kDns1035Label };

// What metadata.namespace must be.
enum class NamespaceRule : std::uint8_t {
  kRequired,   // a namespaced kind in a review: set, a DNS-1123 label
  kForbidden,  // a cluster-scoped kind: `not allowed on this type` when set
  kOptional,   // `check`: a file may leave it to kubectl; when set, a DNS-1123 label
};

struct ObjectMetaOptions {
  NameFormat name_format = NameFormat::kDns1123Subdomain;
  Rule name_rule = rules::kKM1;  // the rule a bad name reports (MultiClusterService: MCS-1)
  NamespaceRule namespace_rule = NamespaceRule::kRequired;
  // `check`: a generateName alone is enough (the API server completes the name before any
  // validation); in a review the name is always set by then, so an empty one is Required.
  bool generate_name_suffices = false;
};

// ValidateObjectMeta: `object`'s `metadata` (absent or not an object reads as empty), errors at
// `metadata.…`, in apimachinery's order.
void validate_object_meta(const JsonValue& object, const ObjectMetaOptions& options,
                          ErrorList& errors);

// ValidateObjectMetaUpdate: `object`'s metadata against `old_object`'s (K-MU1…K-MU4), in
// apimachinery's order.
void validate_object_meta_update(const JsonValue& object, const JsonValue& old_object,
                                 ErrorList& errors);

}  // namespace kpw
