// RDP-1 (docs/rules.md "Deletion protection") through the envelope: any kind, DELETE only,
// request.oldObject only, upstream's answer.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "admission/route.hpp"
#include "admission/service.hpp"
#include "validators/deletion_protection.hpp"

namespace {

constexpr std::string_view kPath = "/validate-resourcedeletionprotection";

// The HTTP body answered to a v1 review of `operation` on a ConfigMap; `rest` is the request's
// object members (`"oldObject":{...}`).
std::string answer(
    std::string_view operation, std::string_view rest,
    std::string_view kind = R"("kind":{"group":"","version":"v1","kind":"ConfigMap"},)") {
  std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)";
  body += kind;
  body += R"("operation":")";
  body += operation;
  body += "\"";
  if (!rest.empty()) {
    body += ",";
    body += rest;
  }
  body += "}}";
  kpw::HttpAnswer http;
  kpw::handle_http(kpw::find_route(kPath), "POST", "application/json", body, kpw::kDefaultSettings,
                   http);
  CHECK(http.status == 200);
  return http.body;
}

std::string labelled(std::string_view value) {
  return R"("oldObject":{"metadata":{"name":"c","labels":{"resourcetemplate.karmada.io/deletion-protected":)" +
         std::string(value) + "}}}";
}

constexpr std::string_view kAllowed =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":true,"status":{"metadata":{},"code":200}}})";

}  // namespace

TEST_CASE("RDP-1 a DELETE of an object labelled Always is denied with upstream's message") {
  CHECK(
      answer("DELETE", labelled("\"Always\"")) ==
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":false,"status":{"metadata":{},"message":"This resource is protected, please make sure to remove the label: resourcetemplate.karmada.io/deletion-protected","reason":"Forbidden","code":403}}})");
}

TEST_CASE("RDP-1 any other value, no label, or a label that is not a string protects nothing") {
  for (std::string_view value : {"\"always\"", "\"Always \"", "\"\"", "\"Never\"", "1", "null"}) {
    INFO(value);
    CHECK(answer("DELETE", labelled(value)) == kAllowed);
  }
  CHECK(answer("DELETE", R"("oldObject":{"metadata":{"name":"c"}})") == kAllowed);
  CHECK(answer("DELETE", R"("oldObject":{})") == kAllowed);
  CHECK(answer("DELETE", R"("oldObject":{"metadata":{"labels":[]}})") == kAllowed);
  CHECK(answer("DELETE", R"("oldObject":{"metadata":"x"})") == kAllowed);
}

TEST_CASE("RDP-1 any kind: request.kind is not read") {
  const std::string denied = answer("DELETE", labelled("\"Always\""), "");
  CHECK(denied.find(R"("allowed":false)") != std::string::npos);
  CHECK(
      answer(
          "DELETE", labelled("\"Always\""),
          R"("kind":{"group":"policy.karmada.io","version":"v1alpha1","kind":"PropagationPolicy"},)") ==
      denied);
}

TEST_CASE("RDP-1 every other operation is allowed unjudged, without decoding") {
  for (std::string_view op : {"CREATE", "UPDATE", "CONNECT"}) {
    INFO(op);
    const std::string both =
        R"("object":{"metadata":{"labels":{"resourcetemplate.karmada.io/deletion-protected":"Always"}}},)" +
        labelled("\"Always\"");
    CHECK(answer(op, both) == kAllowed);
    CHECK(answer(op, R"("object":"not an object")") == kAllowed);
  }
}

TEST_CASE("RDP-1 a DELETE without oldObject cannot be judged: code 400") {
  for (std::string_view rest : {"", R"("oldObject":null)", R"("oldObject":"x")"}) {
    INFO(rest);
    const std::string a = answer("DELETE", rest);
    CHECK(a.find(R"("allowed":false)") != std::string::npos);
    CHECK(a.find(R"("message":"there is no content to decode)") != std::string::npos);
    CHECK(a.find(R"("code":400)") != std::string::npos);
  }
}

TEST_CASE("RDP-1 the route: DELETE of any kind, oldObject only, the rule declared") {
  const kpw::Route* r = kpw::find_route(kPath);
  REQUIRE(r != nullptr);
  CHECK(r->kinds.empty());
  CHECK(r->reads == kpw::Reads::kOldObjectOnDelete);
  CHECK(r->operations.has(kpw::Operation::kDelete));
  CHECK_FALSE(r->operations.has(kpw::Operation::kCreate));
  CHECK_FALSE(r->operations.has(kpw::Operation::kUpdate));
  CHECK(r->entry.object_selector.key == "resourcetemplate.karmada.io/deletion-protected");
  CHECK(r->entry.object_selector.op == kpw::SelectorOperator::kExists);
  REQUIRE(r->rules.size() == 1);
  CHECK(r->rules[0] == kpw::Rule(kpw::rules::kRDP1));
  CHECK(r->rules[0]->rule_class == kpw::RuleClass::kUpstream);
}

TEST_CASE("RDP-1 a refused DELETE reaches the review log and the metrics as a denial") {
  std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"ConfigMap"},"namespace":"ns","name":"c","operation":"DELETE",)" +
      labelled("\"Always\"") + "}}";
  kpw::HttpAnswer http;
  kpw::handle_http(kpw::find_route(kPath), "POST", "application/json", body, kpw::kDefaultSettings,
                   http);
  const kpw::ReviewOutcome& o = http.outcome;
  CHECK(o.reviewed);
  CHECK_FALSE(o.allowed);
  CHECK(o.operation == kpw::Operation::kDelete);
  CHECK(o.kind == "ConfigMap");
  CHECK(o.ns == "ns");
  CHECK(o.name == "c");
  CHECK(o.denial == kpw::kDeletionProtectedMessage);
  REQUIRE(o.violations.size() == 1);
  CHECK(o.violations[0].rule == kpw::rules::kRDP1);
  CHECK(o.violations[0].action == kpw::RuleAction::kDeny);
}
