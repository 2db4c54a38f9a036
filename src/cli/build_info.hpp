// What this binary is: the project's version (CMakeLists.txt's project version, the one place it
// is written), the git commit it was built from, and the Karmada version whose karmada-webhook it
// matches (docs/compatibility.md). Printed by `version` and `--version`, logged at start-up and
// exported as karmada_policy_webhook_build_info (docs/operations.md). The definitions are
// generated at build time (cmake/build_info.cmake) and linked into the binary only, so a new
// commit relinks one program, not every test.
#pragma once

#include <string>
#include <string_view>

namespace kpw::build {

std::string_view version();          // "0.1.0"
std::string_view commit();           // "f3ee309a1b2c", "…-dirty", or "unknown"
std::string_view karmada_version();  // "v1.19 development head"
std::string_view karmada_commit();   // "f8fdd02df"

// `karmada-policy-webhook 0.1.0 (commit …)\nmatches Karmada v1.19 … (commit f8fdd02df)\n`
inline std::string version_text() {
  std::string out = "karmada-policy-webhook ";
  out += version();
  out += " (commit ";
  out += commit();
  out += ")\nmatches Karmada's karmada-webhook at ";
  out += karmada_version();
  out += " (commit ";
  out += karmada_commit();
  out += ")\n";
  return out;
}

}  // namespace kpw::build
