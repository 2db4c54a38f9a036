// Helpers for the PropagationPolicy rule tests: a policy as JSON text, its validating handlers.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "support.hpp"
#include "validators/propagation_policy.hpp"

namespace kpw::test {

inline constexpr std::string_view kSelector =
    R"({"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"})";

// `text` with the first `from` replaced by `to` (the case must contain `from`).
inline std::string edit(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

inline constexpr std::string_view kLabel = R"("propagationpolicy.karmada.io/permanent-id":"id-1")";

// A PP in ns1 with the permanent-id label and one selector, plus `extra` spec members.
inline std::string pp(std::string_view extra = "", std::string_view selectors = "") {
  std::string s =
      R"({"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy",)"
      R"("metadata":{"name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"id-1"}},)"
      R"("spec":{"resourceSelectors":[)";
  s += selectors.empty() ? kSelector : selectors;
  s += "]";
  if (!extra.empty()) {
    s += ",";
    s += extra;
  }
  s += "}}";
  return s;
}

inline std::string cpp(std::string_view extra = "", std::string_view selectors = "") {
  return edit(pp(extra, selectors), "\"propagationpolicy.karmada.io",
              "\"clusterpropagationpolicy.karmada.io");
}

inline Verdict validate(const std::string& object, const Call& call = {}) {
  return run(&validate_propagation_policy, object, call);
}
inline Verdict validate_cpp(const std::string& object) {
  return run(&validate_cluster_propagation_policy, object, Call::cluster_scoped());
}

// A PP with `list` as its placement's spreadConstraints.
inline std::string spread(std::string_view list) {
  return pp(R"("placement":{"spreadConstraints":)" + std::string(list) + "}");
}

inline std::string with_failover(std::string_view app, bool propagate_deps = true) {
  std::string s = propagate_deps ? R"("propagateDeps":true,)" : "";
  return pp(s + R"("failover":{"application":)" + std::string(app) + "}");
}

}  // namespace kpw::test
