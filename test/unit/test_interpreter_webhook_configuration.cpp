// ResourceInterpreterWebhookConfiguration (RIWC-1…RIWC-11): each error carries its own registered
// rule, the one the route table, the metrics and `check` know. The fixtures (compared with
// upstream's binary) hold the texts; here the rule handles.
#include <catch2/catch.hpp>
#include <string>

#include "support.hpp"
#include "validators/resource_interpreter_webhook_configuration.hpp"

using kpw::test::run;

namespace {

std::string configuration(std::string_view rules) {
  return R"({"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterWebhookConfiguration",)"
         R"("metadata":{"name":"c"},"webhooks":[{"name":"w.example.com",)"
         R"("clientConfig":{"url":"https://w.example.com"},"interpreterContextVersions":["v1alpha1"],)"
         R"("rules":[)" +
         std::string(rules) + "]}]}";
}

}  // namespace

// A rule handle that pointed at a copy of its RuleInfo (a tuple holding the RuleInfo, not the
// Rule) was left dangling once the loop ended: over HTTPS the server then rendered garbage and
// closed the connection (std::bad_alloc).
TEST_CASE("RIWC-5 RIWC-6 errors carry the registered rules") {
  const auto v = run(&kpw::validate_resource_interpreter_webhook_configuration,
                     configuration(R"({"operations":["*"],"apiGroups":["*"],)"
                                   R"("apiVersions":["*","v1",""],"kinds":["*","Pod",""]})"),
                     kpw::test::Call::cluster_scoped());
  REQUIRE(v.errors.size() == 4);
  CHECK(v.errors[0].rule == kpw::rules::kRIWC5);
  CHECK(v.errors[1].rule == kpw::rules::kRIWC5);
  CHECK(v.errors[2].rule == kpw::rules::kRIWC6);
  CHECK(v.errors[3].rule == kpw::rules::kRIWC6);
  CHECK(v.errors[3].text() == "webhooks[0].rules[0].kinds[2]: Required value");
  CHECK(v.errors[0].text() ==
        R"(webhooks[0].rules[0].apiVersions: Invalid value: ["*","v1",""]: if '*' is present, )"
        "must not specify other API versions");
}

TEST_CASE("RIWC-9 a URL as Go reads it") {
  const auto with_url = [](std::string_view url) {
    return R"({"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterWebhookConfiguration",)"
           R"("metadata":{"name":"c"},"webhooks":[{"name":"w.example.com","clientConfig":{"url":")" +
           std::string(url) + R"("},"interpreterContextVersions":["v1alpha1"]}]})";
  };
  CHECK(run(&kpw::validate_resource_interpreter_webhook_configuration,
            with_url("https://[2001:db8::1]:8443/x"), {})
            .allowed());
  const auto bad = run(&kpw::validate_resource_interpreter_webhook_configuration,
                       with_url("https://user:pw@h.example.com/p?q=1#f"));
  REQUIRE(bad.errors.size() == 3);
  CHECK(bad.errors[0].text() ==
        R"(webhooks[0].clientConfig.url: Invalid value: "user:pw": user information is not )"
        "permitted in the URL");
  CHECK(bad.errors[1].value == R"("f")");
  CHECK(bad.errors[2].value == R"("q=1")");
}
