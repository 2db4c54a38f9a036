// The manifests generated from the route table (src/table/manifests.*; docs/operations.md,
// "Manifests"): a table of our own shows what any row becomes, the real one what ships.
#include <array>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "admission/route.hpp"
#include "table/manifests.hpp"

namespace {

void no_op(const kpw::AdmissionRequest&, kpw::AdmissionResult&) {}

constexpr std::array<std::string_view, 2> kBindingVersions = {"v1alpha2", "v1alpha1"};
const kpw::Kind kBinding{.group = "work.karmada.io",
                         .versions = kBindingVersions,
                         .kind = "ResourceBinding",
                         .resource = "resourcebindings",
                         .namespaced = true,
                         .crd_defaults = {},
                         .spec_fields = nullptr};
const kpw::Kind kClusterBinding{.group = "work.karmada.io",
                                .versions = kBindingVersions,
                                .kind = "ClusterResourceBinding",
                                .resource = "clusterresourcebindings",
                                .namespaced = false,
                                .crd_defaults = {},
                                .spec_fields = nullptr};
const std::array<const kpw::Kind*, 2> kBoth = {&kBinding, &kClusterBinding};
const std::array<const kpw::Kind*, 1> kOne = {&kBinding};

// A row as a parallel branch writes one: names only, every other entry field its default.
const std::array<kpw::Route, 4> kTable = {{
    {.path = "/mutate-resourcebinding",
     .mutating = true,
     .kinds = kOne,
     .operations = {kpw::Operation::kCreate},
     .reads = kpw::Reads::kObject,
     .handler = &no_op,
     .rules = {},
     .entry = {.name = "resourcebinding.karmada-policy-webhook.karmada.io",
               .upstream_name = "resourcebinding.karmada.io"}},
    {.path = "/validate-bindings",
     .mutating = false,
     .kinds = kBoth,
     .operations = {kpw::Operation::kCreate, kpw::Operation::kUpdate},
     .reads = kpw::Reads::kObjectAndOldOnUpdate,
     .handler = &no_op,
     .rules = {},
     .entry = {.name = "bindings.karmada-policy-webhook.karmada.io", .upstream_name = ""}},
    {.path = "/validate-anything",
     .mutating = false,
     .kinds = {},
     .operations = {kpw::Operation::kDelete},
     .reads = kpw::Reads::kOldObjectOnDelete,
     .handler = &no_op,
     .rules = {},
     .entry = {.name = "anything.karmada-policy-webhook.karmada.io",
               .upstream_name = "",
               .timeout_seconds = 10,
               .object_selector = {.key = "example.com/protected"}}},
    {.path = "/convert",
     .mutating = false,
     .kinds = kBoth,
     .operations = {},
     .reads = kpw::Reads::kObject,
     .handler = &no_op,
     .rules = {},
     .entry = {.name = "convert", .upstream_name = ""},
     .takes = kpw::Takes::kConversionReview},
}};

const std::string& text_of(const std::vector<kpw::GeneratedFile>& files, std::string_view path) {
  for (const kpw::GeneratedFile& f : files) {
    if (f.path == path) return f.text;
  }
  FAIL("not generated: " << path);
  static const std::string none;
  return none;
}

// The text after the generated header (its comment lines; `# [N] path` names an entry).
std::string body(const std::string& text) {
  std::size_t at = 0;
  while (text.compare(at, 1, "#") == 0 && text.compare(at, 3, "# [") != 0) {
    at = text.find('\n', at) + 1;
  }
  return text.substr(at);
}

std::size_t count(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("manifests: an entry per route, its rules from its kinds and operations") {
  const std::vector<kpw::GeneratedFile> files = kpw::generate_manifests(kTable);
  CHECK(body(text_of(files, "base/validatingwebhookconfiguration.yaml")) ==
        R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: karmada-policy-webhook
  labels:
    app.kubernetes.io/name: karmada-policy-webhook
    karmada-policy-webhook.karmada.io/apply-to: karmada-apiserver
webhooks:
  # [0] /validate-bindings
  - name: bindings.karmada-policy-webhook.karmada.io
    rules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: ["work.karmada.io"]
        apiVersions: ["v1alpha2", "v1alpha1"]
        resources: ["resourcebindings"]
        scope: Namespaced
      - operations: ["CREATE", "UPDATE"]
        apiGroups: ["work.karmada.io"]
        apiVersions: ["v1alpha2", "v1alpha1"]
        resources: ["clusterresourcebindings"]
        scope: Cluster
    clientConfig:
      service:
        name: karmada-policy-webhook
        namespace: default
        path: /validate-bindings
        port: 443
    failurePolicy: Fail
    sideEffects: None
    admissionReviewVersions: ["v1", "v1beta1"]
    timeoutSeconds: 3
    matchPolicy: Equivalent
  # [1] /validate-anything
  - name: anything.karmada-policy-webhook.karmada.io
    rules:
      - operations: ["DELETE"]
        apiGroups: ["*"]
        apiVersions: ["*"]
        resources: ["*"]
        scope: "*"
    clientConfig:
      service:
        name: karmada-policy-webhook
        namespace: default
        path: /validate-anything
        port: 443
    objectSelector:
      matchExpressions:
        - key: example.com/protected
          operator: Exists
    failurePolicy: Fail
    sideEffects: None
    admissionReviewVersions: ["v1", "v1beta1"]
    timeoutSeconds: 10
    matchPolicy: Equivalent
)");
  const std::string mutating = text_of(files, "base/mutatingwebhookconfiguration.yaml");
  CHECK(count(mutating, "  - name: ") == 1);
  CHECK(count(mutating, "operations: [\"CREATE\"]\n") == 1);
  // The conversion route is no webhook entry.
  for (const kpw::GeneratedFile& f : files) {
    if (f.path.find("/crd-conversion/") != std::string::npos) continue;
    INFO(f.path);
    CHECK(f.text.find("/convert") == std::string::npos);
  }
}

TEST_CASE("manifests: every overlay patches every entry by index") {
  const std::vector<kpw::GeneratedFile> files = kpw::generate_manifests(kTable);
  CHECK(body(text_of(files, "overlays/url/url-validating.yaml")) ==
        R"(# [0] /validate-bindings
- op: remove
  path: /webhooks/0/clientConfig/service
- op: add
  path: /webhooks/0/clientConfig/url
  value: https://karmada-policy-webhook.karmada-system.svc.cluster.local:443/validate-bindings
# [1] /validate-anything
- op: remove
  path: /webhooks/1/clientConfig/service
- op: add
  path: /webhooks/1/clientConfig/url
  value: https://karmada-policy-webhook.karmada-system.svc.cluster.local:443/validate-anything
)");
  CHECK(body(text_of(files, "overlays/self-signed/ca-bundle-mutating.yaml")) ==
        R"(# [0] /mutate-resourcebinding
- op: add
  path: /webhooks/0/clientConfig/caBundle
  value: "{{caBundle}}"
)");
  for (std::string_view overlay : {"cert-manager", "self-signed"}) {
    const std::string& ns =
        text_of(files, "overlays/" + std::string(overlay) + "/service-namespace-validating.yaml");
    CHECK(count(ns, "- op: replace\n") == 2);
    CHECK(count(ns, "  value: karmada-system\n") == 2);
    CHECK(ns.find("/webhooks/1/clientConfig/service/namespace") != std::string::npos);
  }
}

TEST_CASE("manifests: a conversion route patches its kinds' CRDs in every overlay") {
  const std::vector<kpw::GeneratedFile> files = kpw::generate_manifests(kTable);
  std::set<std::string> crd_patches;
  for (const kpw::GeneratedFile& f : files) {
    if (f.path.find("/crd-conversion/") != std::string::npos) crd_patches.insert(f.path);
  }
  CHECK(crd_patches ==
        std::set<std::string>{
            "overlays/cert-manager/crd-conversion/clusterresourcebindings.work.karmada.io.yaml",
            "overlays/cert-manager/crd-conversion/resourcebindings.work.karmada.io.yaml",
            "overlays/self-signed/crd-conversion/clusterresourcebindings.work.karmada.io.yaml",
            "overlays/self-signed/crd-conversion/resourcebindings.work.karmada.io.yaml",
            "overlays/url/crd-conversion/clusterresourcebindings.work.karmada.io.yaml",
            "overlays/url/crd-conversion/resourcebindings.work.karmada.io.yaml"});
  CHECK(body(text_of(files, "overlays/url/crd-conversion/resourcebindings.work.karmada.io.yaml")) ==
        R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: resourcebindings.work.karmada.io
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        url: https://karmada-policy-webhook.karmada-system.svc.cluster.local:443/convert
        service: null
        caBundle: "{{caBundle}}"
      conversionReviewVersions: ["v1"]
)");
  CHECK(body(text_of(
            files,
            "overlays/cert-manager/crd-conversion/clusterresourcebindings.work.karmada.io.yaml")) ==
        R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterresourcebindings.work.karmada.io
  annotations:
    cert-manager.io/inject-ca-from: karmada-system/karmada-policy-webhook
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          name: karmada-policy-webhook
          namespace: karmada-system
          path: /convert
          port: 443
        url: null
      conversionReviewVersions: ["v1"]
)");
  const std::string& self_signed =
      text_of(files, "overlays/self-signed/crd-conversion/resourcebindings.work.karmada.io.yaml");
  CHECK(self_signed.find("        url: null\n        caBundle: \"{{caBundle}}\"\n") !=
        std::string::npos);
}

TEST_CASE("manifests: every generated file says so and how it is made") {
  for (const kpw::GeneratedFile& f : kpw::generate_manifests(kTable)) {
    INFO(f.path);
    CHECK(f.text.rfind(kpw::kGeneratedMarker, 0) == 0);
    CHECK(f.text.find("make manifests") != std::string::npos);
  }
}

TEST_CASE("manifests: the route table's entries are ours, named once, with operations") {
  std::set<std::string> names[2];
  for (const kpw::Route& r : kpw::routes()) {
    if (r.takes != kpw::Takes::kAdmissionReview) continue;
    INFO(r.path);
    CHECK(names[r.mutating ? 1 : 0].insert(std::string(r.entry.name)).second);
    CHECK(r.entry.name.ends_with(".karmada-policy-webhook.karmada.io"));
    bool any = false;
    for (std::size_t i = 0; i < kpw::kOperationCount; ++i) {
      any = any || r.operations.has(static_cast<kpw::Operation>(i));
    }
    CHECK(any);
  }
}
