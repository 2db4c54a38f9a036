// Random (version 4) UUIDs from the kernel's CSPRNG.
#pragma once

#include <array>

namespace kpw {

// 36 characters, lowercase, e.g. "0b0c7e4e-5f3a-4b8e-9d7e-2f1a3c4d5e6f".
using UuidText = std::array<char, 36>;
UuidText random_uuid_v4();

}  // namespace kpw
