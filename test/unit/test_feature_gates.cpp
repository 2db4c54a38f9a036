// --feature-gates as upstream's karmada-webhook parses it (component-base), checked against what
// its live binary answers: exit status 2 and these messages for a bad value, AllAlpha turning on
// MultiplePodTemplatesScheduling (RB-3) and FederatedQuotaEnforcement (RB-2, refused by main).
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "admission/feature_gates.hpp"

using kpw::FeatureGateSet;
using kpw::kFederatedQuotaEnforcementGate;
using kpw::kMultiplePodTemplatesSchedulingGate;

namespace {

std::string error_of(std::string_view text) {
  FeatureGateSet gates;
  return gates.set(text).value_or("");
}

}  // namespace

TEST_CASE("RB-3 feature gates: defaults are off; Go's boolean spellings; trimmed pairs") {
  FeatureGateSet gates;
  CHECK_FALSE(gates.enabled(kMultiplePodTemplatesSchedulingGate));
  CHECK_FALSE(gates.enabled(kFederatedQuotaEnforcementGate));
  CHECK(gates.enabled("PropagateDeps"));  // a beta gate on by default
  for (const char* on : {"1", "t", "T", "TRUE", "true", "True"}) {
    FeatureGateSet g;
    REQUIRE_FALSE(g.set(std::string("MultiplePodTemplatesScheduling=") + on));
    CHECK(g.enabled(kMultiplePodTemplatesSchedulingGate));
  }
  FeatureGateSet g;
  REQUIRE_FALSE(g.set(" MultiplePodTemplatesScheduling = true ,,Failover=false,"));
  CHECK(g.enabled(kMultiplePodTemplatesSchedulingGate));
  CHECK_FALSE(g.given(kFederatedQuotaEnforcementGate));
  REQUIRE_FALSE(g.set(""));                                      // nothing, as upstream
  REQUIRE_FALSE(g.set("MultiplePodTemplatesScheduling=False"));  // a later value wins
  CHECK_FALSE(g.enabled(kMultiplePodTemplatesSchedulingGate));
}

TEST_CASE("RB-3 feature gates: upstream's messages for what it refuses") {
  CHECK(error_of("Nope=true") == "unrecognized feature gate: Nope");
  CHECK(error_of("multiplepodtemplatesscheduling=true") ==
        "unrecognized feature gate: multiplepodtemplatesscheduling");
  CHECK(error_of("MultiplePodTemplatesScheduling") ==
        "missing bool value for MultiplePodTemplatesScheduling");
  CHECK(error_of("MultiplePodTemplatesScheduling=maybe") ==
        "invalid value of MultiplePodTemplatesScheduling=maybe, err: strconv.ParseBool: parsing "
        "\"maybe\": invalid syntax");
  CHECK(error_of("MultiplePodTemplatesScheduling=yes") != "");
  // Every pair is parsed before names are looked up.
  CHECK(error_of("Nope=true,X") == "missing bool value for X");
  // A refused value sets nothing.
  FeatureGateSet g;
  REQUIRE(g.set("MultiplePodTemplatesScheduling=true,Nope=true"));
  CHECK_FALSE(g.enabled(kMultiplePodTemplatesSchedulingGate));
}

TEST_CASE("RB-2 AllAlpha turns on every alpha gate not set otherwise") {
  FeatureGateSet g;
  REQUIRE_FALSE(g.set("AllAlpha=true"));
  CHECK(g.enabled(kMultiplePodTemplatesSchedulingGate));
  CHECK(g.enabled(kFederatedQuotaEnforcementGate));
  CHECK_FALSE(g.given(kFederatedQuotaEnforcementGate));
  CHECK_FALSE(g.enabled("Failover"));  // beta, off by default
  REQUIRE_FALSE(g.set("FederatedQuotaEnforcement=false"));
  CHECK_FALSE(g.enabled(kFederatedQuotaEnforcementGate));
  CHECK(g.enabled(kMultiplePodTemplatesSchedulingGate));

  FeatureGateSet beta;
  REQUIRE_FALSE(beta.set("AllBeta=false"));
  CHECK_FALSE(beta.enabled("PropagateDeps"));
  CHECK_FALSE(beta.enabled(kMultiplePodTemplatesSchedulingGate));
}

TEST_CASE("RB-2 the known gates are upstream's, each once") {
  CHECK(kpw::kFeatureGates.size() == 19);
  for (std::size_t i = 0; i < kpw::kFeatureGates.size(); ++i) {
    for (std::size_t j = i + 1; j < kpw::kFeatureGates.size(); ++j) {
      CHECK(kpw::kFeatureGates[i].name != kpw::kFeatureGates[j].name);
    }
  }
  const std::string help = kpw::feature_gates_help();
  CHECK(help.find("MultiplePodTemplatesScheduling=true|false (ALPHA - default=false)") !=
        std::string::npos);
}
