// ResourceBinding rules RB-1 and RB-3, and the bindings' permanent-id mutators RB-M1 / CRB-M1, as
// upstream's live karmada-webhook answers them (docs/compatibility.md, "ResourceBinding").
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "mutators/binding.hpp"
#include "support.hpp"
#include "validators/resource_binding.hpp"

using kpw::test::Call;
using kpw::test::mutate;
using kpw::test::Mutation;
using kpw::test::run;
using kpw::test::Verdict;
using Fields = std::vector<std::string>;

namespace {

constexpr const char* kDependenciesPath =
    "metadata.annotations.resourcebinding.karmada.io/dependencies";

std::string binding(std::string_view metadata, std::string_view spec = "{}") {
  return R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding","metadata":{"name":"rb","namespace":"ns1")" +
         std::string(metadata) + R"(},"spec":)" + std::string(spec) + "}";
}

std::string with_dependencies(std::string_view json_string) {
  return binding(R"(,"annotations":{"resourcebinding.karmada.io/dependencies":)" +
                 std::string(json_string) + "}");
}

Verdict validate(const std::string& object, bool gate = false) {
  Call call;
  call.settings.multiple_pod_templates_scheduling = gate;
  return run(&kpw::validate_resource_binding, object, call);
}

std::string components(std::string_view items) {
  return binding("", R"({"components":[)" + std::string(items) + "]}");
}

}  // namespace

TEST_CASE("RB-1 a dependencies annotation that decodes is allowed") {
  CHECK(validate(binding("")).allowed());
  CHECK(validate(with_dependencies(R"("null")")).allowed());
  CHECK(validate(with_dependencies(R"("[]")")).allowed());
  CHECK(
      validate(
          with_dependencies(
              R"("[{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"namespace\":\"ns1\",\"name\":\"s\"}]")"))
          .allowed());
  CHECK(validate(binding(R"(,"annotations":null)")).allowed());
}

TEST_CASE("RB-1 one that does not decode is denied with upstream's message") {
  const Verdict v = validate(with_dependencies(R"("{bad")"));
  REQUIRE(v.fields() == Fields{kDependenciesPath});
  CHECK(v.message == std::string(kDependenciesPath) +
                         ": Invalid value: \"{bad\": annotation value must be a valid JSON");
  CHECK(validate(with_dependencies(R"("{}")")).fields() == Fields{kDependenciesPath});
  CHECK(validate(with_dependencies(R"("")")).fields() == Fields{kDependenciesPath});
  // null is the "" Go's map decoding leaves; a value of another type: upstream cannot decode.
  CHECK(validate(with_dependencies("null")).message ==
        std::string(kDependenciesPath) +
            ": Invalid value: \"\": annotation value must be a valid JSON");
  CHECK(validate(with_dependencies("5")).message ==
        std::string(kDependenciesPath) + ": Invalid value: 5: must be of type string");
}

TEST_CASE("RB-1 denies first: RB-3 is not judged then") {
  const std::string object =
      binding(R"(,"annotations":{"resourcebinding.karmada.io/dependencies":"{"})",
              R"({"components":[{"name":""}]})");
  CHECK(validate(object, true).fields() == Fields{kDependenciesPath});
}

TEST_CASE("RB-3 off by default: component names are not judged") {
  CHECK(validate(components(R"({"name":""},{"name":"a"},{"name":"a"})")).allowed());
}

TEST_CASE("RB-3 component names are non-empty and unique (every repeat)") {
  CHECK(validate(components(R"({"name":"a"},{"name":"b"})"), true).allowed());
  CHECK(validate(components(""), true).allowed());
  const Verdict v =
      validate(components(R"({"name":"a"},{"name":"a"},{"name":"a"},{},null,{"name":null})"), true);
  CHECK(v.fields() == Fields{"spec.components[1].name", "spec.components[2].name",
                             "spec.components[3].name", "spec.components[4].name",
                             "spec.components[5].name"});
  CHECK(v.message ==
        "[spec.components[1].name: Invalid value: \"a\": component names must be unique, "
        "spec.components[2].name: Invalid value: \"a\": component names must be unique, "
        "spec.components[3].name: Invalid value: \"\": component names must be non-empty, "
        "spec.components[4].name: Invalid value: \"\": component names must be non-empty, "
        "spec.components[5].name: Invalid value: \"\": component names must be non-empty]");
  CHECK(validate(components(R"({"name":"b"},{"name":"a"},{"name":"b"},{"name":"a"})"), true)
            .fields() == Fields{"spec.components[2].name", "spec.components[3].name"});
  // Names are matched exactly (Kubernetes decodes objects case-sensitively).
  CHECK(validate(components(R"({"NAME":"x"})"), true).fields() ==
        Fields{"spec.components[0].name"});
}

TEST_CASE("RB-3 on UPDATE the new object is judged, unchanged or not (never ratcheted)") {
  const std::string object = components(R"({"name":"a"},{"name":"a"})");
  Call call = Call::update_of(object);
  call.settings.multiple_pod_templates_scheduling = true;
  CHECK(run(&kpw::validate_resource_binding, object, call).fields() ==
        Fields{"spec.components[1].name"});
}

TEST_CASE("RB-3 wrong JSON types name the field") {
  CHECK(validate(binding("", R"({"components":"x"})"), true).fields() == Fields{"spec.components"});
  CHECK(validate(components(R"(5)"), true).fields() == Fields{"spec.components[0]"});
  CHECK(validate(components(R"({"name":5})"), true).fields() == Fields{"spec.components[0].name"});
  CHECK(validate(binding("", "[]"), true).fields() == Fields{"spec"});
}

TEST_CASE("RB-3 10 000 components, all the same name", "[linear]") {
  std::string items;
  for (int i = 0; i < 10000; ++i) items += std::string(i ? "," : "") + R"({"name":"c"})";
  const Verdict v = validate(components(items), true);
  CHECK(v.errors.size() == 100);  // shown; the rest counted
}

TEST_CASE("RB-M1 a fresh permanent id when absent, empty or null") {
  const char* id = "/metadata/labels/resourcebinding.karmada.io~1permanent-id";
  for (const char* metadata : {"", R"(,"labels":null)", R"(,"labels":{"app":"x"})",
                               R"(,"labels":{"resourcebinding.karmada.io/permanent-id":""})",
                               R"(,"labels":{"resourcebinding.karmada.io/permanent-id":null})"}) {
    INFO(metadata);
    const Mutation m = mutate(&kpw::mutate_resource_binding, binding(metadata));
    REQUIRE(m.error.empty());
    CHECK(m.string(id).size() == 36);
    CHECK(m.patch.find("/status") == std::string::npos);  // never upstream's artefact
  }
  const Mutation m = mutate(&kpw::mutate_resource_binding, binding(R"(,"labels":{"app":"x"})"));
  CHECK(m.string("/metadata/labels/app") == "x");
}

TEST_CASE("RB-M1 a permanent id already there is kept (no patch)") {
  const Mutation m =
      mutate(&kpw::mutate_resource_binding,
             binding(R"(,"labels":{"resourcebinding.karmada.io/permanent-id":"abc"})"));
  CHECK(m.error.empty());
  CHECK(m.patch.empty());
  // A label value of another type is left for the API server to refuse.
  CHECK(mutate(&kpw::mutate_resource_binding,
               binding(R"(,"labels":{"resourcebinding.karmada.io/permanent-id":5})"))
            .patch.empty());
}

TEST_CASE("CRB-M1 a ClusterResourceBinding gets its own label") {
  const std::string crb =
      R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ClusterResourceBinding","metadata":{"name":"crb"},"spec":{}})";
  const Mutation m = mutate(&kpw::mutate_cluster_resource_binding, crb, Call::cluster_scoped());
  REQUIRE(m.error.empty());
  CHECK(m.string("/metadata/labels/clusterresourcebinding.karmada.io~1permanent-id").size() == 36);
  CHECK_FALSE(m.has("/metadata/labels/resourcebinding.karmada.io~1permanent-id"));
}
