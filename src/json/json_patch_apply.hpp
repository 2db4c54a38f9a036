// Applying a JSON Patch (RFC 6902) strictly, as the API server applies a webhook's answer: the
// offline `check` command stores objects this way, and the tests hold every patch to it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "json/json.hpp"

namespace kpw {

// Applies the ops of `patch` (a JSON array) to `doc` in order, copying their values with
// `allocator` (`doc`'s). Ops are `add`, `remove` and `replace`, refused where RFC 6902 says they
// fail: a path that is no JSON Pointer, a missing parent, a `remove` or `replace` of a member or
// element that is not there, an array index out of range or not written as RFC 6901 says (`-`
// only for an `add`, which appends), an op without its `op`, `path` or `value`. `move`, `copy`
// and `test` are refused too: the webhook never sends them. Each op costs the length of its path
// and what it changes in its parent: consecutive ops that share a parent do not look it up again.
// Returns why the patch does not apply (which op, and what is wrong), or nothing; after a
// failure `doc` holds what the ops before the failing one made of it.
std::optional<std::string> apply_json_patch(JsonValue& doc, const JsonValue& patch,
                                            JsonAllocator& allocator);
// The same for a patch as text (as an answer carries it, before base64).
std::optional<std::string> apply_json_patch(JsonValue& doc, std::string_view patch,
                                            JsonAllocator& allocator);

}  // namespace kpw
