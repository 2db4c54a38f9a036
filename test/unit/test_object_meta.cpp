// The ObjectMeta library (validators/object_meta.hpp): K-M1…K-M8 and K-MU1…K-MU4. Every expected
// text was first read from upstream's own binary (its /validate-federatedhpa handler runs
// ValidateObjectMeta with NameIsDNSSubdomain and a required namespace,
// /validate-multiclusterservice with NameIsDNS1035Label and ValidateObjectMetaUpdate on UPDATE),
// given the same metadata; where ours differs on purpose the test says so (docs/compatibility.md,
// "ObjectMeta").
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admission/field_error.hpp"
#include "doc_support.hpp"
#include "json/json.hpp"
#include "validators/object_meta.hpp"

using kpw::ErrorList;
using kpw::FieldError;
using kpw::JsonArena;
using kpw::JsonValue;
using kpw::NameFormat;
using kpw::NamespaceRule;
using kpw::ObjectMetaOptions;
namespace rules = kpw::rules;
using kpw::rule_id;

using kpw::test::Doc;
using kpw::test::lines;

namespace {

using Lines = std::vector<std::string>;

// FederatedHPA's options: a DNS-1123 subdomain name, a required namespace.
ObjectMetaOptions fhpa() { return ObjectMetaOptions{}; }

// MultiClusterService's: a DNS-1035 label name, reported as the caller's rule (here K-M1).
ObjectMetaOptions mcs() {
  ObjectMetaOptions o;
  o.name_format = NameFormat::kDns1035Label;
  return o;
}

Lines meta(std::string_view metadata, const ObjectMetaOptions& options = fhpa()) {
  Doc doc(std::string(R"({"metadata":)") + std::string(metadata) + "}");
  ErrorList errors;
  kpw::validate_object_meta(doc.root(), options, errors);
  return lines(errors);
}

Lines update(std::string_view metadata, std::string_view old_metadata) {
  Doc doc(std::string(R"({"metadata":)") + std::string(metadata) + "}");
  Doc old(std::string(R"({"metadata":)") + std::string(old_metadata) + "}");
  ErrorList errors;
  kpw::validate_object_meta_update(doc.root(), old.root(), errors);
  return lines(errors);
}

constexpr std::string_view kSubdomainFormat =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view kLabelFormat =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kDns1035Format =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kNamePartFormat =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr std::string_view kLabelKeyFormat =
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')";

std::string s(std::string_view a, std::string_view b) { return std::string(a) + std::string(b); }

}  // namespace

TEST_CASE("K-M1 K-M5 object meta: a valid metadata passes") {
  CHECK(meta(R"({"name":"ok","namespace":"default"})").empty());
  CHECK(meta(R"({"name":"a.b-c","namespace":"default","generation":0,"labels":{"app":"x"},
                 "annotations":{"Example.COM/Note":"text"},"finalizers":["example.com/f"],
                 "ownerReferences":[{"apiVersion":"apps/v1","kind":"K","name":"n","uid":"u",
                                     "controller":true}],
                 "managedFields":[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1"}]})")
            .empty());
  CHECK(meta(R"({"name":"my-name","namespace":"default"})", mcs()).empty());
}

TEST_CASE("K-M1 object meta: name required, name format") {
  // upstream: `metadata.name: Required value: name or generateName is required`, also when only
  // generateName is set (the API server would have completed the name).
  CHECK(meta(R"({"namespace":"default"})") ==
        Lines{"K-M1 metadata.name: Required value: name or generateName is required"});
  CHECK(meta(R"({"generateName":"gen-","namespace":"default"})") ==
        Lines{"K-M1 metadata.name: Required value: name or generateName is required"});
  CHECK(meta(R"({"name":"Bad_Name","namespace":"default"})") ==
        Lines{s(R"(K-M1 metadata.name: Invalid value: "Bad_Name": )", kSubdomainFormat)});
  const std::string long_name(254, 'a');
  CHECK(meta(R"({"name":")" + long_name + R"(","namespace":"default"})") ==
        Lines{R"(K-M1 metadata.name: Invalid value: ")" + long_name +
              R"(": must be no more than 253 characters)"});
}

TEST_CASE("K-M1 object meta: generateName through the name function, a trailing dash masked") {
  CHECK(meta(R"({"name":"x","generateName":"Bad_","namespace":"default"})") ==
        Lines{s(R"(K-M1 metadata.generateName: Invalid value: "Bad_": )", kSubdomainFormat)});
  // A lone "-" is not masked (maskTrailingDash wants more than one byte).
  CHECK(meta(R"({"name":"x","generateName":"-","namespace":"default"})") ==
        Lines{s(R"(K-M1 metadata.generateName: Invalid value: "-": )", kSubdomainFormat)});
  // maskTrailingDash replaces the last two bytes by "a": `ab.-` is checked as `aba`.
  CHECK(meta(R"({"name":"x","generateName":"ab.-","namespace":"default"})").empty());
  // MultiClusterService: `1x-` (as `1a`) is no DNS-1035 label; generateName before name.
  CHECK(meta(R"({"generateName":"1x-","namespace":"default"})", mcs()) ==
        Lines{s(R"(K-M1 metadata.generateName: Invalid value: "1x-": )", kDns1035Format),
              "K-M1 metadata.name: Required value: name or generateName is required"});
  // 64 bytes and a dash: masked to 64, too long; 63 and a dash: 63, fine.
  const std::string long64 = std::string(64, 'a') + "-";
  CHECK(meta(R"({"name":"x","generateName":")" + long64 + R"(","namespace":"default"})", mcs()) ==
        Lines{R"(K-M1 metadata.generateName: Invalid value: ")" + long64 +
              R"(": must be no more than 63 characters)"});
  const std::string ok63 = std::string(63, 'a') + "-";
  CHECK(meta(R"({"name":"x","generateName":")" + ok63 + R"(","namespace":"default"})", mcs())
            .empty());
  // `check`: a generateName is enough.
  ObjectMetaOptions check;
  check.namespace_rule = NamespaceRule::kOptional;
  check.generate_name_suffices = true;
  CHECK(meta(R"({"generateName":"gen-"})", check).empty());
  CHECK(meta(R"({})", check) ==
        Lines{"K-M1 metadata.name: Required value: name or generateName is required"});
}

TEST_CASE("K-M1 object meta: MultiClusterService names are DNS-1035 labels, as its rule") {
  CHECK(meta(R"({"name":"1mcs","namespace":"default"})", mcs()) ==
        Lines{s(R"(K-M1 metadata.name: Invalid value: "1mcs": )", kDns1035Format)});
  CHECK(meta(R"({"name":"a.b","namespace":"default"})", mcs()) ==
        Lines{s(R"(K-M1 metadata.name: Invalid value: "a.b": )", kDns1035Format)});
  const std::string long_name(64, 'a');
  CHECK(meta(R"({"name":")" + long_name + R"(","namespace":"default"})", mcs()) ==
        Lines{R"(K-M1 metadata.name: Invalid value: ")" + long_name +
              R"(": must be no more than 63 characters)"});
  ObjectMetaOptions other = mcs();
  other.name_rule = rules::kKM6;  // any rule the caller names
  CHECK(meta(R"({"name":"1mcs","namespace":"default"})", other)[0].rfind("K-M6 metadata.name", 0) ==
        0);
}

TEST_CASE("K-M5 object meta: namespace required, a DNS-1123 label, or forbidden") {
  CHECK(meta(R"({"name":"ok"})") == Lines{"K-M5 metadata.namespace: Required value"});
  CHECK(meta(R"({"name":"ok","namespace":"Bad.ns"})") ==
        Lines{s(R"(K-M5 metadata.namespace: Invalid value: "Bad.ns": )", kLabelFormat)});
  const std::string long_ns(64, 'a');
  CHECK(meta(R"({"name":"ok","namespace":")" + long_ns + R"("})") ==
        Lines{R"(K-M5 metadata.namespace: Invalid value: ")" + long_ns +
              R"(": must be no more than 63 characters)"});
  ObjectMetaOptions cluster;
  cluster.namespace_rule = NamespaceRule::kForbidden;
  CHECK(meta(R"({"name":"ok"})", cluster).empty());
  CHECK(meta(R"({"name":"ok","namespace":"default"})", cluster) ==
        Lines{"K-M5 metadata.namespace: Forbidden: not allowed on this type"});
  ObjectMetaOptions optional;
  optional.namespace_rule = NamespaceRule::kOptional;
  CHECK(meta(R"({"name":"ok"})", optional).empty());
  CHECK(meta(R"({"name":"ok","namespace":"Bad.ns"})", optional).size() == 1);
}

TEST_CASE("K-M6 object meta: generation not negative") {
  CHECK(meta(R"({"name":"ok","namespace":"default","generation":-1})") ==
        Lines{"K-M6 metadata.generation: Invalid value: -1: must be greater than or equal to 0"});
  CHECK(meta(R"({"name":"ok","namespace":"default","generation":7})").empty());
}

// upstream reports label and annotation errors at the map (`metadata.labels: Invalid value:
// "Bad Key": …`); ours name the entry (`metadata.labels[Bad Key]`), with the same text.
TEST_CASE("K-M2 K-M3 object meta: labels and annotations, each error at its entry") {
  CHECK(meta(R"({"name":"ok","namespace":"default","labels":{"Bad Key":"v","k":"bad value"}})") ==
        Lines{s(R"(K-M2 metadata.labels[Bad Key]: Invalid value: "Bad Key": )", kNamePartFormat),
              R"(K-M2 metadata.labels[k]: Invalid value: "bad value": a valid label must be an )"
              R"(empty string or consist of alphanumeric characters, '-', '_' or '.', and must )"
              R"(start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  )"
              R"(or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?)"
              R"([A-Za-z0-9])?'))"});
  CHECK(meta(R"({"name":"ok","namespace":"default","labels":{"a/b/c":"v"}})") ==
        Lines{s(R"(K-M2 metadata.labels[a/b/c]: Invalid value: "a/b/c": )", kLabelKeyFormat)});
  CHECK(meta(R"({"name":"ok","namespace":"default","annotations":{"Bad Key":"v"}})") ==
        Lines{s(R"(K-M3 metadata.annotations[Bad Key]: Invalid value: "Bad Key": )",
                kNamePartFormat)});
  const std::string big(262144, 'x');
  CHECK(meta(R"({"name":"ok","namespace":"default","annotations":{"a":")" + big + R"("}})") ==
        Lines{"K-M3 metadata.annotations: Too long: may not be more than 262144 bytes"});
}

// upstream's paths name the list (`metadata.ownerReferences.apiVersion`); ours add the index.
TEST_CASE("K-M7 object meta: owner references name a version, a kind, a name and a uid") {
  CHECK(meta(R"({"name":"ok","namespace":"default","ownerReferences":[
                 {"apiVersion":"apps","kind":"K","name":"n","uid":"u"},
                 {"apiVersion":"events.k8s.io/v1","kind":"Event","name":"n","uid":"u"}]})")
            .empty());  // "apps" parses as a version; Event is banned in the core group only
  CHECK(meta(R"({"name":"ok","namespace":"default","ownerReferences":[
                 {"apiVersion":"v1","kind":"K","name":"n","uid":"u"},
                 {"apiVersion":"","kind":"","name":"","uid":""}]})") ==
        Lines{R"(K-M7 metadata.ownerReferences[1].apiVersion: Invalid value: "": version must )"
              R"(not be empty)",
              R"(K-M7 metadata.ownerReferences[1].kind: Invalid value: "": must not be empty)",
              R"(K-M7 metadata.ownerReferences[1].name: Invalid value: "": must not be empty)",
              R"(K-M7 metadata.ownerReferences[1].uid: Invalid value: "": must not be empty)"});
  for (std::string_view api_version : {"apps/", "a/b/c", "/"}) {
    INFO(api_version);
    CHECK(meta(std::string(R"({"name":"ok","namespace":"default","ownerReferences":[
                 {"apiVersion":")") +
               std::string(api_version) + R"(","kind":"K","name":"n","uid":"u"}]})") ==
          Lines{R"(K-M7 metadata.ownerReferences[0].apiVersion: Invalid value: ")" +
                std::string(api_version) + R"(": version must not be empty)"});
  }
}

// upstream echoes the reference as Go marshals it (its field order, `<&>` escaped); so do we.
TEST_CASE("K-M7 object meta: a core v1 Event is no owner") {
  CHECK(
      meta(R"({"name":"ok","namespace":"default","ownerReferences":[
                 {"apiVersion":"v1","kind":"Event","name":"n","uid":"u"}]})") ==
      Lines{R"(K-M7 metadata.ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":)"
            R"("Event","name":"n","uid":"u"}: /v1, Kind=Event is disallowed from being an owner)"});
  CHECK(meta(R"({"name":"ok","namespace":"default","ownerReferences":[
                 {"uid":"u<&>","apiVersion":"/v1","kind":"Event","name":"n",
                  "blockOwnerDeletion":false,"controller":false}]})") ==
        Lines{R"(K-M7 metadata.ownerReferences[0]: Invalid value: {"apiVersion":"/v1","kind":)"
              R"("Event","name":"n","uid":"u\u003c\u0026\u003e","controller":false,)"
              R"("blockOwnerDeletion":false}: /v1, Kind=Event is disallowed from being an owner)"});
}

// upstream: one error per controller after the first, at the list, the list as value. upstream's
// binary echoes it as Go's JSON of the list (deterministic, no %#v pointers): so do we, cut past
// 256 bytes as every echoed value is (the names in the detail too).
TEST_CASE("K-M7 object meta: at most one controller") {
  const std::string list =
      R"([{"apiVersion":"v1","kind":"K1","name":"N1","uid":"u1","controller":true},)"
      R"({"apiVersion":"v1","kind":"K2","name":"N2","uid":"u2","controller":true},)"
      R"({"apiVersion":"v1","kind":"K3","name":"N3","uid":"u3","controller":true}])";
  REQUIRE(list.size() <= 256);  // shown whole
  const std::string& shown = list;
  CHECK(meta(R"({"name":"ok","namespace":"default","ownerReferences":)" + list + "}") ==
        Lines{"K-M7 metadata.ownerReferences: Invalid value: " + shown +
                  R"(: Only one reference can have Controller set to true. Found "true" in )"
                  R"(references for K1/N1 and K2/N2)",
              "K-M7 metadata.ownerReferences: Invalid value: " + shown +
                  R"(: Only one reference can have Controller set to true. Found "true" in )"
                  R"(references for K1/N1 and K3/N3)"});
  CHECK(meta(R"({"name":"ok","namespace":"default","ownerReferences":[
                 {"apiVersion":"v1","kind":"K1","name":"N1","uid":"u1","controller":true},
                 {"apiVersion":"v1","kind":"K2","name":"N2","uid":"u2","controller":false}]})")
            .empty());
}

// upstream reports a finalizer at `metadata.finalizers`; ours at `metadata.finalizers[i]`.
TEST_CASE("K-M4 object meta: finalizers qualified names, not orphan and foregroundDeletion") {
  CHECK(meta(R"({"name":"ok","namespace":"default","finalizers":["Bad Fin","a/b/c"]})") ==
        Lines{s(R"(K-M4 metadata.finalizers[0]: Invalid value: "Bad Fin": )", kNamePartFormat),
              s(R"(K-M4 metadata.finalizers[1]: Invalid value: "a/b/c": )", kLabelKeyFormat)});
  CHECK(
      meta(R"({"name":"ok","namespace":"default","finalizers":["orphan","foregroundDeletion"]})") ==
      Lines{R"(K-M4 metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: )"
            R"(finalizer orphan and foregroundDeletion cannot be both set)"});
  CHECK(meta(R"({"name":"ok","namespace":"default","finalizers":["orphan","x"]})").empty());
  CHECK(meta(R"({"name":"ok","namespace":"default","finalizers":[1]})") ==
        Lines{"K-M4 metadata.finalizers[0]: Invalid value: 1: must be of type string"});
}

TEST_CASE("K-M8 object meta: managed fields") {
  const std::string manager(129, 'm');
  const std::string subresource(257, 's');
  CHECK(meta(R"({"name":"ok","namespace":"default","managedFields":[{"manager":")" + manager +
             R"(","operation":"Patch","fieldsType":"FieldsV2","subresource":")" + subresource +
             R"("}]})") ==
        Lines{"K-M8 metadata.managedFields[0].operation: Invalid value: \"Patch\": must be "
              "`Apply` or `Update`",
              "K-M8 metadata.managedFields[0].fieldsType: Invalid value: \"FieldsV2\": must be "
              "`FieldsV1`",
              "K-M8 metadata.managedFields[0].manager: Too long: may not be more than 128 bytes",
              "K-M8 metadata.managedFields[0].subresource: Too long: may not be more than 256 "
              "bytes"});
  CHECK(meta(R"({"name":"ok","namespace":"default","managedFields":[{}]})") ==
        Lines{"K-M8 metadata.managedFields[0].operation: Invalid value: \"\": must be `Apply` or "
              "`Update`"});
  CHECK(meta(R"({"name":"ok","namespace":"default","managedFields":[
                 {"manager":"m","operation":"Update","subresource":"status"}]})")
            .empty());
  // Unprintable runes, at their byte positions (upstream echoes the value with Go's %q:
  // "a\tb\u0085c\u00a0d\u200be"; ours as a JSON string).
  const Lines got = meta(
      "{\"name\":\"ok\",\"namespace\":\"default\",\"managedFields\":[{\"operation\":\"Update\","
      "\"manager\":\"a\\tb\\u0085c\\u00a0d\\u200be\"}]}");
  REQUIRE(got.size() == 4);
  CHECK(got[0].ends_with(": invalid character U+0009 (at position 1)"));
  CHECK(got[1].ends_with(": invalid character U+0085 (at position 3)"));
  CHECK(got[2].ends_with(": invalid character U+00A0 (at position 6)"));
  CHECK(got[3].ends_with(": invalid character U+200B (at position 9)"));
}

TEST_CASE("K-M1 K-M5 K-M6 object meta: errors in apimachinery's order") {
  const Lines got = meta(R"({"generation":-2,"labels":{"a b":"c"},"finalizers":["x y"]})");
  REQUIRE(got.size() == 5);
  CHECK(got[0] == "K-M1 metadata.name: Required value: name or generateName is required");
  CHECK(got[1] == "K-M5 metadata.namespace: Required value");
  CHECK(got[2] ==
        "K-M6 metadata.generation: Invalid value: -2: must be greater than or equal to 0");
  CHECK(got[3].rfind("K-M2 metadata.labels[a b]", 0) == 0);
  CHECK(got[4].rfind("K-M4 metadata.finalizers[0]", 0) == 0);
}

TEST_CASE("K-M1 object meta: values of the wrong type are the schema's, skipped") {
  CHECK(meta(R"({"name":1,"namespace":2,"generation":"x","ownerReferences":[1,{"kind":3}],
                 "managedFields":[2],"labels":[],"finalizers":{}})")
            .size() == 4);          // the second reference's four empty fields only
  CHECK(meta(R"(7)").size() == 2);  // no metadata: name and namespace required
}

constexpr std::string_view kOld =
    R"({"name":"ok","namespace":"default","resourceVersion":"1","uid":"u-1","generation":3,
        "creationTimestamp":"2024-01-01T00:00:00Z"})";

TEST_CASE("K-MU1 K-MU2 object meta update: resourceVersion set, generation not decremented") {
  CHECK(update(kOld, kOld).empty());
  CHECK(update(R"({"name":"ok","namespace":"default","uid":"u-1","generation":3,
                   "creationTimestamp":"2024-01-01T00:00:00Z"})",
               kOld) ==
        Lines{R"(K-MU1 metadata.resourceVersion: Invalid value: "": must be specified for an )"
              R"(update)"});
  CHECK(update(R"({"name":"ok","namespace":"default","resourceVersion":"1","uid":"u-1",
                   "generation":2,"creationTimestamp":"2024-01-01T00:00:00Z"})",
               kOld) ==
        Lines{"K-MU2 metadata.generation: Invalid value: 2: must not be decremented"});
  CHECK(update(R"({"name":"ok","namespace":"default","resourceVersion":"1","uid":"u-1",
                   "creationTimestamp":"2024-01-01T00:00:00Z"})",
               kOld) ==
        Lines{"K-MU2 metadata.generation: Invalid value: 0: must not be decremented"});
}

TEST_CASE("K-MU3 object meta update: immutable fields") {
  CHECK(update(R"({"name":"other","namespace":"other","resourceVersion":"1","generation":3,
                   "creationTimestamp":"2024-01-02T00:00:00Z","deletionTimestamp":
                   "2024-01-03T00:00:00Z","deletionGracePeriodSeconds":30})",
               kOld) ==
        Lines{R"(K-MU3 metadata.name: Invalid value: "other": field is immutable)",
              R"(K-MU3 metadata.namespace: Invalid value: "other": field is immutable)",
              R"(K-MU3 metadata.uid: Invalid value: "": field is immutable)",
              R"(K-MU3 metadata.creationTimestamp: Invalid value: "2024-01-02T00:00:00Z": field )"
              R"(is immutable)",
              R"(K-MU3 metadata.deletionTimestamp: Invalid value: "2024-01-03T00:00:00Z": field )"
              R"(is immutable)",
              R"(K-MU3 metadata.deletionGracePeriodSeconds: Invalid value: 30: field is )"
              R"(immutable)"});
  // Removed: echoed as null, as upstream echoes a nil pointer or a zero time.
  CHECK(update(R"({"name":"ok","namespace":"default","resourceVersion":"1","uid":"u-1",
                   "generation":3})",
               R"({"name":"ok","namespace":"default","uid":"u-1","generation":3,
                   "creationTimestamp":"2024-01-01T00:00:00Z","deletionTimestamp":
                   "2024-01-03T00:00:00Z","deletionGracePeriodSeconds":30})") ==
        Lines{"K-MU3 metadata.creationTimestamp: Invalid value: null: field is immutable",
              "K-MU3 metadata.deletionTimestamp: Invalid value: null: field is immutable",
              "K-MU3 metadata.deletionGracePeriodSeconds: Invalid value: null: field is "
              "immutable"});
  // Absent and null alike are unchanged.
  CHECK(update(R"({"resourceVersion":"1","deletionTimestamp":null})", R"({})").empty());
}

TEST_CASE("K-MU4 object meta update: no new finalizer while being deleted") {
  // Sorted and each once (sets.List), printed as Go's %#v of a []string.
  CHECK(update(R"({"name":"ok","namespace":"default","resourceVersion":"1",
                   "deletionTimestamp":"2024-01-03T00:00:00Z",
                   "finalizers":["z","a/b","x","x","keep","q\"\\\t\u00e9"]})",
               R"({"name":"ok","namespace":"default","deletionTimestamp":"2024-01-03T00:00:00Z",
                   "finalizers":["keep"]})")[0] ==
        "K-MU4 metadata.finalizers: Forbidden: no new finalizers can be added if the object is "
        "being deleted, found new finalizers []string{\"a/b\", \"q\\\"\\\\\\t\u00e9\", \"x\", "
        "\"z\"}");
  // Not being deleted: any finalizer may be added.
  CHECK(update(R"({"resourceVersion":"1","finalizers":["new"]})", R"({})").empty());
  // Kept or removed ones are fine.
  CHECK(update(R"({"resourceVersion":"1","deletionTimestamp":"t","finalizers":["a"]})",
               R"({"deletionTimestamp":"t","finalizers":["a","b"]})")
            .empty());
}

TEST_CASE("K-MU1 K-MU2 K-MU3 K-MU4 object meta update: apimachinery's order") {
  CHECK(update(R"({"name":"n2","namespace":"n2","uid":"u2","generation":1,
                   "creationTimestamp":"2025-01-01T00:00:00Z",
                   "deletionTimestamp":"2024-01-04T00:00:00Z","deletionGracePeriodSeconds":5,
                   "finalizers":["new"]})",
               R"({"name":"ok","namespace":"default","resourceVersion":"1","uid":"u-1",
                   "generation":3,"creationTimestamp":"2024-01-01T00:00:00Z",
                   "deletionTimestamp":"2024-01-03T00:00:00Z","deletionGracePeriodSeconds":30})") ==
        Lines{"K-MU4 metadata.finalizers: Forbidden: no new finalizers can be added if the "
              "object is being deleted, found new finalizers []string{\"new\"}",
              R"(K-MU1 metadata.resourceVersion: Invalid value: "": must be specified for an )"
              R"(update)",
              "K-MU2 metadata.generation: Invalid value: 1: must not be decremented",
              R"(K-MU3 metadata.name: Invalid value: "n2": field is immutable)",
              R"(K-MU3 metadata.namespace: Invalid value: "n2": field is immutable)",
              R"(K-MU3 metadata.uid: Invalid value: "u2": field is immutable)",
              R"(K-MU3 metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field )"
              R"(is immutable)",
              R"(K-MU3 metadata.deletionTimestamp: Invalid value: "2024-01-04T00:00:00Z": field )"
              R"(is immutable)",
              "K-MU3 metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable"});
}

TEST_CASE("K-M4 K-M7 K-MU4 object meta: 100 000 owners, controllers and finalizers, linear",
          "[linear]") {
  constexpr int kN = 100000;
  std::string refs = "[";
  std::string finalizers = "[";
  for (int i = 0; i < kN; ++i) {
    if (i > 0) {
      refs += ',';
      finalizers += ',';
    }
    refs += R"({"apiVersion":"v1","kind":"K","name":"n)" + std::to_string(i) +
            R"(","uid":"u","controller":true})";
    finalizers += "\"example.com/f" + std::to_string(i) + "\"";
  }
  refs += ']';
  finalizers += ']';
  const std::string metadata = R"({"name":"ok","namespace":"default","resourceVersion":"1",)"
                               R"("deletionTimestamp":"t","ownerReferences":)" +
                               refs + R"(,"finalizers":)" + finalizers + "}";
  const auto start = std::chrono::steady_clock::now();
  Doc doc(std::string(R"({"metadata":)") + metadata + "}");
  Doc old(R"({"metadata":{"name":"ok","namespace":"default","deletionTimestamp":"t",)"
          R"("finalizers":["example.com/f7"]}})");
  ErrorList errors;
  kpw::validate_object_meta(doc.root(), ObjectMetaOptions{}, errors);
  CHECK(errors.size() == kN - 1);  // every controller after the first
  ErrorList update_errors;
  kpw::validate_object_meta_update(doc.root(), old.root(), update_errors);
  REQUIRE(update_errors.size() == 1);  // one Forbidden, its list cut
  CHECK(update_errors.errors()[0].detail.ends_with(" bytes)"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5.0);
}
