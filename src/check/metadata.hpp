// What the API server itself checks in an object before any webhook sees it, for `check`, which
// has no API server (docs/check.md, "Judged as the cluster judges"): ObjectMeta (rules K-M1…K-M8),
// `null` pruning, unknown fields (rule K-U1, kubectl's default --validate=strict) and the CRDs'
// enums (K-S1, checked after the mutating webhooks).
#pragma once

#include <string_view>

#include "admission/field_error.hpp"
#include "admission/route.hpp"
#include "admission/rules.hpp"
#include "json/json.hpp"

namespace kpw {
}  // namespace kpw

namespace kpw::check {

// ObjectMeta (validators/object_meta.hpp, K-M1…K-M8), the namespace optional and a generateName
// enough.
void check_object_meta(const JsonValue& object, ErrorList& errors);

// Members that are `null` are deleted, at every depth (the API server prunes them before
// defaulting: no policy field is nullable); `null` list elements stay, as they do there.
void prune_nulls(JsonValue& value);

// What an unknown field does: an error (kubectl's default, --validate=strict), a warning, or
// nothing (the API server drops it when it stores the object).
enum class UnknownFields { kError, kWarn, kIgnore };

// K-U1: the fields of `object` that its kind's schema does not declare (the top level, metadata,
// and for PropagationPolicy / ClusterPropagationPolicy the whole spec), as errors.
// The kind's top-level fields (Kind::top_level_fields; spec and status when it lists none) and its
// spec walk (Kind::spec_fields, nullptr when its spec is not walked).
void check_unknown_fields(const JsonValue& object, const Kind& kind, ErrorList& errors);

// K-S1: the enums of the CRDs' schemas (Karmada's, at the version we match) where they refuse
// what our webhook admits: `purgeMode`, whose old names Immediately and Graciously our webhook
// accepts with a warning (docs/rules.md, principle 5) and the CRDs no longer list. Judged on the
// object as the mutating webhooks leave it, as the API server validates the schema then.
// `api_version` is the object's (`group/version`).
void check_crd_enums(const JsonValue& object, std::string_view api_version, std::string_view kind,
                     ErrorList& errors);

}  // namespace kpw::check
