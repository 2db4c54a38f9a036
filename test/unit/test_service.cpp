// The envelope: docs/compatibility.md "Envelope", without TLS.
#include <catch2/catch.hpp>
#include <string>

#include "admission/route.hpp"
#include "admission/service.hpp"
#include "json/json.hpp"
#include "json_access.hpp"

using kpw::test::array_at;
using kpw::test::bool_at;
using kpw::test::int_at;
using kpw::test::object_at;
using kpw::test::string_at;

namespace {

struct Answer {
  kpw::HttpAnswer http;
  std::string text;  // the parsed copy: the document's strings point into it
  kpw::JsonArena arena;
  const kpw::JsonValue& json() { return arena.document(); }
};

// Posts `body` to `target` and parses the JSON answer.
void post(Answer& a, std::string body, std::string_view target = "/validate-propagationpolicy",
          std::string_view content_type = "application/json", std::string_view method = "POST") {
  kpw::handle_http(kpw::find_route(target.substr(0, target.find('?'))), method, content_type, body,
                   kpw::kDefaultSettings, a.http);
  if (a.http.content_type == "application/json") {
    a.text = a.http.body;
    REQUIRE(a.arena.parse_in_place(a.text).ok);
  }
}

std::string review(std::string_view api_version, std::string_view kind_group, std::string_view kind,
                   std::string_view object, std::string_view op = "CREATE") {
  std::string s = "{";
  if (!api_version.empty()) {
    s += R"("apiVersion":")" + std::string(api_version) + R"(","kind":"AdmissionReview",)";
  }
  s += R"("request":{"uid":"u-1","kind":{"group":")" + std::string(kind_group) +
       R"(","version":"v1alpha1","kind":")" + std::string(kind) +
       R"("},"namespace":"ns1","operation":")" + std::string(op) + R"(","object":)" +
       std::string(object) + "}}";
  return s;
}

const char* kBase = R"({"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy",
  "metadata":{"name":"p","namespace":"ns1","labels":{"propagationpolicy.karmada.io/permanent-id":"id-1"}},
  "spec":{"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns1","name":"d"}],
  "priority":0,"preemption":"Never","schedulerName":"default-scheduler","conflictResolution":"Abort"}})";

}  // namespace

TEST_CASE("envelope: allowed v1 review echoes apiVersion and uid") {
  Answer a;
  post(a, review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", kBase));
  CHECK(a.http.status == 200);
  CHECK(
      a.http.body ==
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":true,"status":{"metadata":{},"code":200}}})");
}

TEST_CASE("envelope: v1beta1 is echoed / missing apiVersion defaults to v1") {
  Answer a;
  post(a, review("admission.k8s.io/v1beta1", "policy.karmada.io", "PropagationPolicy", kBase));
  CHECK(string_at(a.json(), "/apiVersion") == "admission.k8s.io/v1beta1");
  Answer b;
  post(b, review("", "policy.karmada.io", "PropagationPolicy", kBase));
  CHECK(string_at(b.json(), "/apiVersion") == "admission.k8s.io/v1");
  CHECK(bool_at(b.json(), "/response/allowed"));
}

TEST_CASE("envelope: unknown path is 404 / non-POST is 405 / ?timeout is ignored") {
  Answer a;
  post(a, "{}", "/nope");
  CHECK(a.http.status == 404);
  Answer b;
  post(b, "{}", "/validate-propagationpolicy/");
  CHECK(b.http.status == 404);
  Answer c;
  post(c, "", "/validate-propagationpolicy", "application/json", "GET");
  CHECK(c.http.status == 405);
  CHECK(c.http.method_not_allowed);
  Answer d;
  post(d, review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", kBase),
       "/validate-propagationpolicy?timeout=3s");
  CHECK(bool_at(d.json(), "/response/allowed"));
}

TEST_CASE("envelope: pre-decode errors answer code 400 without apiVersion") {
  SECTION("content type must be exactly application/json") {
    Answer a;
    post(a, review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", kBase),
         "/validate-propagationpolicy", "application/json; charset=utf-8");
    CHECK(a.http.status == 200);
    CHECK_FALSE(a.json().HasMember("apiVersion"));
    CHECK(int_at(a.json(), "/response/status/code") == 400);
    CHECK(string_at(a.json(), "/response/status/message").find("application/json; charset=utf-8") !=
          std::string::npos);
  }
  SECTION("empty body") {
    Answer a;
    post(a, "");
    CHECK(int_at(a.json(), "/response/status/code") == 400);
    CHECK(string_at(a.json(), "/response/uid").empty());
  }
  SECTION("malformed, too deep, duplicate keys, wrong apiVersion") {
    for (std::string body :
         {std::string("{\"request\":"), std::string(5000, '[') + std::string(5000, ']'),
          std::string(R"({"request":{"uid":"a","uid":"b"}})"),
          std::string(R"({"apiVersion":"admission.k8s.io/v2","request":{}})")}) {
      Answer a;
      post(a, body);
      CHECK(a.http.status == 200);
      CHECK_FALSE(bool_at(a.json(), "/response/allowed"));
      CHECK(int_at(a.json(), "/response/status/code") == 400);
    }
  }
}

TEST_CASE("envelope: request.kind must be the kind the path serves") {
  Answer a;
  post(a, review("admission.k8s.io/v1", "apps", "Deployment", kBase));
  CHECK(int_at(a.json(), "/response/status/code") == 400);
  std::string msg = string_at(a.json(), "/response/status/message");
  CHECK(msg.find("apps/Deployment") != std::string::npos);
  CHECK(msg.find("policy.karmada.io/PropagationPolicy") != std::string::npos);
  CHECK(string_at(a.json(), "/response/uid") == "u-1");

  Answer b;
  post(b, review("admission.k8s.io/v1", "policy.karmada.io", "ClusterPropagationPolicy", kBase));
  CHECK(int_at(b.json(), "/response/status/code") == 400);
}

TEST_CASE("envelope: V-D object absent / null or not an object is code 400 (C58)") {
  for (const char* object : {"null", "\"x\"", "[]"}) {
    Answer a;
    post(a,
         review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", object, "DELETE"));
    CHECK(int_at(a.json(), "/response/status/code") == 400);
    CHECK(string_at(a.json(), "/apiVersion") == "admission.k8s.io/v1");
  }
}

TEST_CASE("envelope: UPDATE without oldObject is code 400 on a validating path") {
  Answer a;
  post(a, review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", kBase, "UPDATE"));
  CHECK(int_at(a.json(), "/response/status/code") == 400);
}

TEST_CASE("envelope: a denial is HTTP 200 / code 403 / reason Forbidden / one cause per error") {
  Answer a;
  std::string obj = kBase;
  obj.replace(obj.find(R"("namespace":"ns1","name":"d")"), 28, R"("namespace":"ns2","name":"d")");
  post(a, review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", obj));
  CHECK(a.http.status == 200);
  const auto& st = object_at(a.json(), "/response/status");
  CHECK_FALSE(bool_at(a.json(), "/response/allowed"));
  CHECK(int_at(st, "/code") == 403);
  CHECK(string_at(st, "/reason") == "Forbidden");
  REQUIRE(array_at(st, "/details/causes").Size() == 1);
  CHECK(string_at(st, "/details/causes/0/field") == "spec.resourceSelectors[0].namespace");
  CHECK(string_at(st, "/details/causes/0/type") == "FieldValueInvalid");
}

TEST_CASE("envelope: too large answers HTTP 413 and closes") {
  kpw::HttpAnswer a;
  a.too_large(100);
  CHECK(a.status == 413);
  CHECK(a.close);
  CHECK(a.body.find("\"code\":413") != std::string::npos);
}

TEST_CASE("routes: paths are unique and every row has a handler and a kind, or reads any kind") {
  for (const kpw::Route& r : kpw::routes()) {
    INFO(r.path);
    CHECK(kpw::find_route(r.path) == &r);
    if (r.takes == kpw::Takes::kConversionReview) {
      CHECK(r.converter != nullptr);
      CHECK(r.handler == nullptr);
    } else {
      CHECK(r.handler != nullptr);
      CHECK(r.converter == nullptr);
    }
    CHECK(r.path.front() == '/');
    // Any kind (request.kind not read) only for a path that reads nothing of the object's kind.
    if (r.kinds.empty()) CHECK(r.reads == kpw::Reads::kOldObjectOnDelete);
    CHECK(kpw::route_index(r) < kpw::routes().size());
  }
  CHECK(kpw::find_route("/no-such-path") == nullptr);
}

TEST_CASE("answers: each named answer sets every field, whatever the answer held before") {
  kpw::HttpAnswer a;
  a.busy(8, 65536);  // 429, Retry-After
  CHECK(a.status == 429);
  CHECK(a.retry_after);
  a.too_large(100);  // 413, close, no Retry-After any more
  CHECK(a.status == 413);
  CHECK(a.close);
  CHECK_FALSE(a.retry_after);
  a.method_not_post();
  CHECK(a.status == 405);
  CHECK(a.method_not_allowed);
  CHECK_FALSE(a.close);
  std::string body = review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", kBase);
  kpw::handle_http(kpw::find_route("/validate-propagationpolicy"), "POST", "application/json", body,
                   kpw::kDefaultSettings, a);
  CHECK(a.status == 200);
  CHECK(a.content_type == "application/json");
  CHECK_FALSE(a.method_not_allowed);
  CHECK_FALSE(a.retry_after);
  CHECK_FALSE(a.close);
  CHECK(a.outcome.reviewed);
  CHECK(a.outcome.allowed);
  a.probe(false);
  CHECK(a.status == 503);
  CHECK(a.body == "not ready\n");
  CHECK_FALSE(a.outcome.reviewed);
  CHECK(a.outcome.violations.empty());
}

// The answer of a connection's earlier review must not stay in front of a ConversionReview's
// (found by test_hostile_bodies: a keep-alive connection answered both, one after the other).
TEST_CASE("answers: a ConversionReview after an AdmissionReview on one connection") {
  kpw::HttpAnswer a;
  std::string body = review("admission.k8s.io/v1", "policy.karmada.io", "PropagationPolicy", kBase);
  kpw::handle_http(kpw::find_route("/validate-propagationpolicy"), "POST", "application/json", body,
                   kpw::kDefaultSettings, a);
  REQUIRE(a.outcome.reviewed);
  std::string conversion =
      R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u",)"
      R"("desiredAPIVersion":"work.karmada.io/v1alpha2","objects":[]}})";
  kpw::handle_http(kpw::find_route("/convert"), "POST", "application/json", conversion,
                   kpw::kDefaultSettings, a);
  CHECK(a.status == 200);
  CHECK(a.body.rfind(R"({"kind":"ConversionReview")", 0) == 0);
  CHECK_FALSE(a.outcome.reviewed);
  std::string garbage = "{";
  kpw::handle_http(kpw::find_route("/convert"), "POST", "application/json", garbage,
                   kpw::kDefaultSettings, a);
  CHECK(a.status == 400);
  CHECK(a.body.empty());
  CHECK(a.content_type == "text/plain; charset=utf-8");
}
