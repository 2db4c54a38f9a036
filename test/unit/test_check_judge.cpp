// Judging the objects of policy files for `check` (issue 42, "check's rough edges"): a duplicate
// key as the server refuses it, a policy without a namespace, and the CRDs' purgeMode enums
// (K-S1).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "check/check.hpp"
#include "check/judge.hpp"
#include "check/source.hpp"
#include "json_access.hpp"

using kpw::check::Judged;
using kpw::check::LoadedFile;
using kpw::check::Options;
using kpw::check::Problem;
using kpw::check::Verdict;

namespace {

// A file's objects, judged (a Judged points into its file: both are kept).
struct Checked {
  LoadedFile file;
  std::vector<Judged> judged;
};

Checked check_text(const std::string& text, const Options& options = {}) {
  Checked c;
  c.file = kpw::check::load(text);
  REQUIRE(c.file.syntax_errors.empty());
  for (auto& obj : c.file.objects) c.judged.push_back(kpw::check::judge_safely("f", obj, options));
  return c;
}

// `LINE:COL: TEXT [RULE]` for each error, as the text report writes them after the file name.
std::vector<std::string> errors_of(const Judged& j) {
  std::vector<std::string> out;
  for (const Problem& p : j.errors) {
    std::string line =
        std::to_string(p.at.line) + ":" + std::to_string(p.at.column) + ": " + p.text;
    if (p.rule) {
      line += " [";
      line += kpw::rule_id(*p.rule);
      line += ']';
    }
    out.push_back(line);
  }
  return out;
}

// The errors of one rule.
std::vector<std::string> errors_of(const Judged& j, std::string_view rule) {
  std::string suffix = "[";  // (built with +=: GCC 12 warns of `"[" + s + "]"`, -Wrestrict)
  suffix += rule;
  suffix += ']';
  std::vector<std::string> out;
  for (const std::string& e : errors_of(j)) {
    if (e.ends_with(suffix)) out.push_back(e);
  }
  return out;
}

const std::string kPolicyHead =
    "apiVersion: policy.karmada.io/v1alpha1\n"  // 1
    "kind: PropagationPolicy\n"                 // 2
    "metadata:\n"                               // 3
    "  name: web\n";                            // 4

}  // namespace

TEST_CASE("check: a duplicate key is refused as the server refuses the body, at its second place") {
  const Checked c = check_text(kPolicyHead +
                               "  namespace: team-a\n"        // 5
                               "  labels:\n"                  // 6
                               "    app: web\n"               // 7
                               "    app: shop\n"              // 8
                               "spec:\n"                      // 9
                               "  resourceSelectors:\n"       // 10
                               "    - apiVersion: v1\n"       // 11
                               "      kind: ConfigMap\n"      // 12
                               "      namespace: team-b\n");  // 13: V-S1, not judged after all
  REQUIRE(c.judged.size() == 1);
  const Judged& j = c.judged[0];
  CHECK(j.verdict == Verdict::kInvalid);
  // `review` answers such a body with code 400 and this message, before any rule runs.
  CHECK(errors_of(j) ==
        std::vector<std::string>{"8:5: cannot decode AdmissionReview: duplicate JSON key \"app\""});
  CHECK(j.errors[0].field == "metadata.labels.app");
  CHECK(j.upstream_denies());  // no strict rule: refused whatever --strict-rules says
  // A JSON file, read by the same parser.
  const Checked json = check_text(
      "{\"apiVersion\": \"policy.karmada.io/v1alpha1\", \"kind\": \"ClusterPropagationPolicy\",\n"
      " \"metadata\": {\"name\": \"all\"},\n"
      " \"spec\": {\"resourceSelectors\": [{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}],\n"
      "          \"priority\": 1, \"priority\": 2}}\n");
  REQUIRE(json.judged.size() == 1);
  CHECK(errors_of(json.judged[0]) ==
        std::vector<std::string>{
            "4:26: cannot decode AdmissionReview: duplicate JSON key \"priority\""});
}

TEST_CASE("check: a policy without a namespace is judged in none: no V-S1, O-21, M-1 or K-M5") {
  const std::string pp = kPolicyHead +
                         "spec:\n"                    // 5
                         "  resourceSelectors:\n"     // 6
                         "    - apiVersion: v1\n"     // 7
                         "      kind: ConfigMap\n"    // 8
                         "      namespace: team-b\n"  // 9
                         "    - apiVersion: v1\n"     // 10
                         "      kind: Secret\n"       // 11
                         "      name: tls\n";         // 12
  const std::string op =
      "---\n"
      "apiVersion: policy.karmada.io/v1alpha1\n"
      "kind: OverridePolicy\n"
      "metadata:\n"
      "  name: web\n"
      "spec:\n"
      "  resourceSelectors:\n"
      "    - apiVersion: v1\n"
      "      kind: ConfigMap\n"
      "      namespace: team-b\n"
      "  overrideRules: []\n";
  const std::string hpa =
      "---\n"
      "apiVersion: autoscaling.karmada.io/v1alpha1\n"
      "kind: FederatedHPA\n"
      "metadata:\n"
      "  name: web\n"
      "spec:\n"
      "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"
      "  maxReplicas: 10\n";
  Options options;
  options.show_defaults = true;
  const Checked none = check_text(pp + op + hpa, options);
  REQUIRE(none.judged.size() == 3);
  for (const Judged& j : none.judged) {
    INFO(j.kind);
    CHECK(errors_of(j).empty());
    CHECK(j.verdict == Verdict::kValid);
    CHECK(j.ns.empty());
    // Stored as written: no namespace invented, none given to the selectors that name none.
    CHECK_FALSE(kpw::test::object_at(*j.source->json, "/metadata").HasMember("namespace"));
  }
  const auto& selectors =
      kpw::test::array_at(*none.judged[0].source->json, "/spec/resourceSelectors");
  CHECK_FALSE(selectors[1].HasMember("namespace"));
  // --namespace: judged in that one.
  options.default_namespace = "team-a";
  const Checked given = check_text(pp + op + hpa, options);
  REQUIRE(given.judged.size() == 3);
  CHECK(errors_of(given.judged[0]) ==
        std::vector<std::string>{"9:7: spec.resourceSelectors[0].namespace: Invalid value: "
                                 "\"team-b\": must be the policy's namespace \"team-a\" [V-S1]"});
  CHECK(errors_of(given.judged[1], "O-21").size() == 1);
  CHECK(errors_of(given.judged[2]).empty());
  CHECK(kpw::test::string_at(*given.judged[0].source->json,
                             "/spec/resourceSelectors/1/namespace") == "team-a");  // M-1
  CHECK(kpw::test::string_at(*given.judged[2].source->json, "/metadata/namespace") == "team-a");
}

TEST_CASE(
    "check: K-S1 purgeMode Immediately and Graciously are refused as the CRDs' enums refuse") {
  const Checked c =
      check_text(kPolicyHead +
                 "  namespace: team-a\n"                                             // 5
                 "spec:\n"                                                           // 6
                 "  propagateDeps: true\n"                                           // 7
                 "  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n"  // 8
                 "  failover:\n"                                                     // 9
                 "    application:\n"                                                // 10
                 "      decisionConditions: {tolerationSeconds: 60}\n"               // 11
                 "      purgeMode: Immediately\n"                                    // 12
                 "    cluster:\n"                                                    // 13
                 "      purgeMode: Graciously\n"                                     // 14
                 "---\n"                                                             // 15
                 "apiVersion: policy.karmada.io/v1alpha1\n"                          // 16
                 "kind: ClusterPropagationPolicy\n"                                  // 17
                 "metadata: {name: all}\n"                                           // 18
                 "spec:\n"                                                           // 19
                 "  resourceSelectors: [{apiVersion: v1, kind: Namespace}]\n"        // 20
                 "  failover: {cluster: {purgeMode: Immediately}}\n"                 // 21
                 "---\n"                                                             // 22
                 "apiVersion: work.karmada.io/v1alpha2\n"                            // 23
                 "kind: ResourceBinding\n"                                           // 24
                 "metadata: {name: web, namespace: team-a}\n"                        // 25
                 "spec:\n"                                                           // 26
                 "  resource: {apiVersion: apps/v1, kind: Deployment, name: web}\n"  // 27
                 "  gracefulEvictionTasks:\n"                                        // 28
                 "    - {fromCluster: member1, purgeMode: Never}\n"                  // 29
                 "    - {fromCluster: member2, purgeMode: Graciously}\n"             // 30
                 "---\n"                                                             // 31
                 "apiVersion: policy.karmada.io/v1alpha1\n"                          // 32
                 "kind: ClusterPropagationPolicy\n"                                  // 33
                 "metadata: {name: current}\n"                                       // 34
                 "spec:\n"                                                           // 35
                 "  propagateDeps: true\n"                                           // 36
                 "  resourceSelectors: [{apiVersion: v1, kind: Namespace}]\n"        // 37
                 "  failover:\n"                                                     // 38
                 "    application: {decisionConditions: {}, purgeMode: Never}\n"     // 39
                 "    cluster: {purgeMode: Directly}\n");                            // 40
  REQUIRE(c.judged.size() == 4);
  // The API server's message for an enum, the CRD's values in the CRD's order; cluster failover
  // has no Never.
  CHECK(errors_of(c.judged[0], "K-S1") ==
        std::vector<std::string>{
            "12:7: spec.failover.application.purgeMode: Unsupported value: \"Immediately\": "
            "supported values: \"Directly\", \"Gracefully\", \"Never\" [K-S1]",
            "14:7: spec.failover.cluster.purgeMode: Unsupported value: \"Graciously\": supported "
            "values: \"Directly\", \"Gracefully\" [K-S1]"});
  CHECK(c.judged[0].verdict == Verdict::kInvalid);
  CHECK(c.judged[0].upstream_denies());
  CHECK(c.judged[0].warnings.size() == 2);  // the webhook's own: the old names' new spelling
  CHECK(errors_of(c.judged[1], "K-S1") ==
        std::vector<std::string>{
            "21:24: spec.failover.cluster.purgeMode: Unsupported value: \"Immediately\": "
            "supported values: \"Directly\", \"Gracefully\" [K-S1]"});
  CHECK(errors_of(c.judged[2], "K-S1") ==
        std::vector<std::string>{
            "30:30: spec.gracefulEvictionTasks[1].purgeMode: Unsupported value: \"Graciously\": "
            "supported values: \"Directly\", \"Gracefully\", \"Never\" [K-S1]"});
  CHECK(errors_of(c.judged[3], "K-S1").empty());
  // A v1alpha1 binding's schema has no such field: nothing to refuse there.
  const Checked old = check_text(
      "apiVersion: work.karmada.io/v1alpha1\n"
      "kind: ResourceBinding\n"
      "metadata: {name: web, namespace: team-a}\n"
      "spec:\n"
      "  resource: {apiVersion: apps/v1, kind: Deployment, name: web}\n"
      "  gracefulEvictionTasks: [{fromCluster: member1, purgeMode: Immediately}]\n");
  REQUIRE(old.judged.size() == 1);
  CHECK(errors_of(old.judged[0], "K-S1").empty());
}
