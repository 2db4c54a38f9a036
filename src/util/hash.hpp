// The one hash of text a tenant controls, for every hash table indexed by it (duplicate keys,
// "unique" rules, error fingerprints): SipHash-1-3 (what Rust's and Python's tables use) under a
// key drawn from the kernel once per process, so nobody can craft texts that all land in one run
// of slots and make a table as slow as comparing each with every other.
#pragma once

#include <cstdint>
#include <string_view>

namespace kpw {

// The hash of `text`, with `prefix` (an object's identity, a field's number...) hashed in first.
std::uint64_t keyed_hash(std::uint64_t prefix, std::string_view text);
inline std::uint64_t keyed_hash(std::string_view text) { return keyed_hash(0, text); }

}  // namespace kpw
