// /convert (docs/rules.md CV-1…CV-4): Kubernetes' quantity and time forms as upstream writes them
// (tables recorded from upstream's karmada-webhook), Go's JSON details, the conversions of
// ResourceBinding/ClusterResourceBinding and the ConversionReview envelope.
#include <catch2/catch.hpp>
#include <new>
#include <string>
#include <string_view>

#include "admission/conversion.hpp"
#include "admission/route.hpp"
#include "admission/service.hpp"
#include "converters/bindings.hpp"
#include "json/json.hpp"
#include "util/go_time.hpp"
#include "util/quantity.hpp"

namespace {

// What upstream writes for a quantity it read (resource.Quantity's JSON round trip), or its
// error as <format>, <suffix>, <numeric>.
std::string canonical(std::string_view text) {
  std::string out = "[";
  switch (kpw::append_canonical_quantity(out, text)) {
    case kpw::QuantityError::kNone:
      return out.substr(1);
    case kpw::QuantityError::kFormat:
      return out == "[" ? "<format>" : "<appended on error>";
    case kpw::QuantityError::kSuffix:
      return "<suffix>";
    case kpw::QuantityError::kNumeric:
      return "<numeric>";
    case kpw::QuantityError::kRange:
      return "<range>";
  }
  return "<?>";
}

// What upstream writes for a metav1.Time it read: the time, <zero> (written `null`), or its error.
std::string time_of(std::string_view text) {
  kpw::GoTime t;
  std::string error;
  if (!kpw::parse_go_rfc3339(text, t, error)) return error;
  if (t.is_zero()) return "<zero>";
  std::string out;
  kpw::append_go_rfc3339(out, t);
  return out;
}

std::string go_float(double v) {
  std::string out;
  kpw::append_go_float(out, v);
  return out;
}

// One ConversionReview through handle_http as the server answers it.
kpw::HttpAnswer post(std::string body, const kpw::Route* route = kpw::find_route("/convert")) {
  kpw::HttpAnswer answer;
  kpw::handle_http(route, "POST", "application/json", body, kpw::kDefaultSettings, answer);
  return answer;
}

std::string review(std::string_view desired, std::string_view objects) {
  return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u-1","desiredAPIVersion":")" +
         std::string(desired) + R"(","objects":[)" + std::string(objects) + "]}}";
}

// The answer's convertedObjects, or its failure message.
std::string converted(std::string_view desired, std::string_view objects) {
  const kpw::HttpAnswer a = post(review(desired, objects));
  REQUIRE(a.status == 200);
  constexpr std::string_view kHead =
      R"({"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","response":{"uid":"u-1","convertedObjects":)";
  REQUIRE(a.body.substr(0, kHead.size()) == kHead);
  const std::string rest = a.body.substr(kHead.size());
  constexpr std::string_view kSuccess = R"(,"result":{"metadata":{},"status":"Success"}}})"
                                        "\n";
  if (rest.size() > kSuccess.size() && rest.substr(rest.size() - kSuccess.size()) == kSuccess) {
    return rest.substr(0, rest.size() - kSuccess.size());
  }
  constexpr std::string_view kFailure =
      R"(null,"result":{"metadata":{},"status":"Failure","message":)";
  REQUIRE(rest.substr(0, kFailure.size()) == kFailure);
  return "failure: " + rest.substr(kFailure.size());
}

constexpr std::string_view kV1 = "work.karmada.io/v1alpha1";
constexpr std::string_view kV2 = "work.karmada.io/v1alpha2";

}  // namespace

TEST_CASE("CV: quantities are written as upstream writes them (recorded from upstream)") {
  static constexpr std::pair<std::string_view, std::string_view> kRecorded[] = {
      {"0", "0"},
      {"00", "0"},
      {"-0", "0"},
      {"+1", "+1"},
      {"1", "1"},
      {"1.", "1."},
      {"1.0", "1"},
      {"0.1", "100m"},
      {"100m", "100m"},
      {"1000m", "1"},
      {"1500m", "1500m"},
      {"1.5", "1500m"},
      {"1Gi", "1Gi"},
      {"8Gi", "8Gi"},
      {"1024Mi", "1Gi"},
      {"1.5Ki", "1536"},
      {"1.0001Ki", "1024102400u"},
      {"0.5Gi", "512Mi"},
      // upstream writes "1": Kubernetes has no SI suffix past E and drops it
      {"1000E", "1e21"},
      {"1e21", "1e21"},
      {"1e18", "1e18"},
      {"1E", "1E"},
      {"999E", "999E"},
      // upstream writes "1": Kubernetes has no SI suffix past E and drops it
      {"1000000000000000000000", "1e21"},
      {"12345678901234567890", "12345678901234567890"},
      {"1e-9", "1e-9"},
      {"1e-10", "1e-9"},
      {"0.0000000001", "1n"},
      {"1n", "1n"},
      {"1u", "1u"},
      {"1m", "1m"},
      {"1k", "1k"},
      {"1M", "1M"},
      {"1G", "1G"},
      {"1T", "1T"},
      {"1P", "1P"},
      {"1Ki", "1Ki"},
      {"1Mi", "1Mi"},
      {"1Ti", "1Ti"},
      {"1Pi", "1Pi"},
      {"1Ei", "1Ei"},
      {"8Ei", "9223372036854775807"},
      {"9Ei", "9223372036854775807"},
      {"16Ei", "9223372036854775807"},
      {"-1Ki", "-1Ki"},
      {"-1.5Gi", "-1536Mi"},
      {"1023", "1023"},
      {"1024", "1024"},
      {"1e3", "1e3"},
      {"1e0", "1e0"},
      {"1E3", "1E3"},
      {"10e3", "10e3"},
      {"100e3", "100e3"},
      {"1000e3", "1e6"},
      {"0.5e3", "500"},
      {"1.5e-3", "1500e-6"},
      {"123456789012345678901234567890", "123456789012345678901234567890"},
      {"1e100", "10e99"},
      {"1e-100", "1e-9"},
      {"-1e-100", "-1e-9"},
      {".5", "500m"},
      {".5Ki", "512"},
      {"5.", "5."},
      {"1e+3", "1e+3"},
      {"1e-3", "1e-3"},
      {"+.5", "500m"},
      {"2e308", "200e306"},
      {"9223372036854775807", "9223372036854775807"},
      {"9223372036854775808", "9223372036854775808"},
      {"9223372036854775807m", "9223372036854775807m"},
      {"4611686018427387904Ki", "9223372036854775807"},
      {"0.000001Ki", "1024u"},
      {"100Mi", "100Mi"},
      {"0.1Mi", "104857600m"},
      {"1.25Mi", "1280Ki"},
      {"3Gi", "3Gi"},
      {"1536Mi", "1536Mi"},
      {"20000000000Ki", "19531250Mi"},
      {"1e-9Ki", "<format>"},
      {"1Ki5", "<suffix>"},
      {"1e", "<suffix>"},
      {"e3", "0"},
      {"Ki", "0"},
      {"+", "0"},
      {".", "0"},
      {"1.2.3", "<format>"},
      {"1 ", "1"},
      {" 1", "1"},
      {"1e+", "<suffix>"},
      {"0.0", "0"},
      {"0e3", "0"},
      {"0Ki", "0"},
      {"-0.0001n", "-1n"},
      {"0.9999999999", "1"},
      {"1.9999999999Ki", "2047999999898n"},
      {"1023.9999Ki", "1048575897600u"},
      {"12e", "<suffix>"},
      {"1ee3", "<suffix>"},
      {"1E-3", "1E-3"},
      {"1m5", "<suffix>"},
      {"1.5Ei", "1536Pi"},
      {"7.5Ei", "7680Pi"},
      {"0.5Ki", "512"},
      {"01", "01"},
      {"010", "010"},
      {"0010m", "0010m"},
      {"100000m", "100"},
      {"123000", "123k"},
      {"123000m", "123"},
      {"1.230", "1.230"},
      {"12300e1", "123e3"},
      {"1000k", "1M"},
      {"1000000n", "1m"},
      {"1100m", "1100m"},
      {"-1000m", "-1"},
      {"-1.5", "-1500m"},
      {"+1Ki", "+1Ki"},
      {"+100m", "+100m"},
      {"1e-6", "1e-6"},
      {"1000u", "1m"},
      {"1024Ki", "1Mi"},
      {"1048576", "1048576"},
      {"1025Ki", "1025Ki"},
      {"2048Ki", "2Mi"},
      {"1.000Gi", "1Gi"},
      {"0.75Ki", "768"},
      {"1024.5Ki", "1049088"},
      {"1e3Ki", "<format>"},
      {"1Ki1", "<suffix>"},
      {"1e10", "10e9"},
      {"1e11", "100e9"},
      {"100e-3", "100e-3"},
      {"10e-3", "10e-3"},
      {"1e-2", "10e-3"},
      {"12345e-2", "123450e-3"},
      {"-12345e-2", "-123450e-3"},
      {"1.5e3", "1500"},
      {"15e2", "1500"},
      {"3.14159", "3141590u"},
      {"314159e-5", "3141590e-6"},
      {"1000e-3", "1"},
      {"1e+0", "1e+0"},
      {"0.001", "1m"},
      {"0.0001", "100u"},
      {"0.00001", "10u"},
      {"-0.5Ki", "-512"},
      {"-1023", "-1023"},
      {"-1024", "-1024"},
      {"1e19", "10e18"},
      {"10e18", "10e18"},
      {"100e18", "100e18"},
      {"12E", "12E"},
      {"1200P", "1200P"},
      {"0.000000000999", "1n"},
      {"123.456789123456", "123456789124n"},
      {"1.0000000001", "1000000001n"},
      {"0.1e-8", "1e-9"},
      {"9999999999999999999999", "9999999999999999999999"},
      {"18446744073709551616", "18446744073709551616"},
      {"5e-10", "1e-9"},
      {"1.5n", "2n"},
      {"7Ki", "7Ki"},
      {"8Ki", "8Ki"},
      {"9Ki", "9Ki"},
      {"1.5Mi", "1536Ki"},
      {"1.125Ki", "1152"},
      {"1152", "1152"},
      {"1m0", "<suffix>"},
  };
  for (const auto& [text, want] : kRecorded) {
    INFO(text);
    CHECK(canonical(text) == want);
  }
  // Kubernetes trims white space around the text between the quotes.
  CHECK(canonical("  1Gi  ") == "1Gi");
  CHECK(canonical("\xc2\xa0"
                  "2") == "2");
  CHECK(canonical("") == "<format>");
  CHECK(canonical("   ") == "<format>");
  // Any number of digits: no quantity is out of range here.
  CHECK(canonical("1234567890123456789012345678901234567890123") ==
        "1234567890123456789012345678901234567890123");
  CHECK(canonical("0.00000000000000000000000000000000000000000000001") == "1n");
  CHECK(canonical("9999999999.9999999999") == "10G");
  CHECK(canonical("1e2147483647") == "10e2147483646");  // upstream never answers: it hangs
}

TEST_CASE("CV: times are read and written as metav1.Time does (recorded from upstream)") {
  static constexpr std::pair<std::string_view, std::string_view> kRecorded[] = {
      {"2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"},
      {"2024-01-02T03:04:05.123456789Z", "2024-01-02T03:04:05Z"},
      {"2024-01-02T03:04:05.1234567891234Z", "2024-01-02T03:04:05Z"},
      {"2024-01-02T03:04:05,5Z", "2024-01-02T03:04:05Z"},
      {"2024-01-02T3:04:05Z", "2024-01-02T03:04:05Z"},
      {"2024-01-02t03:04:05z",
       "parsing time \"2024-01-02t03:04:05z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"t03:04:05z\" as \"T\""},
      {"2024-01-02T03:04:05z",
       "parsing time \"2024-01-02T03:04:05z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"z\" "
       "as \"Z07:00\""},
      {"2024-01-02T03:04:05+24:00", "2024-01-01T03:04:05Z"},
      {"2024-01-02T03:04:05+23:60", "2024-01-01T03:04:05Z"},
      {"2024-01-02T03:04:05+25:00",
       "parsing time \"2024-01-02T03:04:05+25:00\": time zone offset hour out of range"},
      {"2024-01-02T03:04:05+23:61",
       "parsing time \"2024-01-02T03:04:05+23:61\": time zone offset minute out of range"},
      {"2024-01-02T03:04:60Z", "parsing time \"2024-01-02T03:04:60Z\": second out of range"},
      {"2024-01-02T24:00:00Z", "parsing time \"2024-01-02T24:00:00Z\": hour out of range"},
      {"2024-02-30T00:00:00Z", "parsing time \"2024-02-30T00:00:00Z\": day out of range"},
      {"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
      {"2023-02-29T00:00:00Z", "parsing time \"2023-02-29T00:00:00Z\": day out of range"},
      {"0000-01-01T00:00:00+01:00", "-0001-12-31T23:00:00Z"},
      {"9999-12-31T23:59:59-01:00", "10000-01-01T00:59:59Z"},
      {"2024-01-02T03:04:05",
       "parsing time \"2024-01-02T03:04:05\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" "
       "as \"Z07:00\""},
      {"2024-01-02",
       "parsing time \"2024-01-02\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"T\""},
      {"2024-1-02T03:04:05Z",
       "parsing time \"2024-1-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"1-02T03:04:05Z\" as \"01\""},
      {"20240-01-02T03:04:05Z",
       "parsing time \"20240-01-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"0-01-02T03:04:05Z\" as \"-\""},
      {"2024-01-02T03:04:05Zextra",
       "parsing time \"2024-01-02T03:04:05Zextra\": extra text: \"extra\""},
      {"2024-01-02T03:04:05+0100",
       "parsing time \"2024-01-02T03:04:05+0100\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"+0100\" as \"Z07:00\""},
      {"2024-01-02T03:04:05 +01:00",
       "parsing time \"2024-01-02T03:04:05 +01:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\" +01:00\" as \"Z07:00\""},
      {" 2024-01-02T03:04:05Z",
       "parsing time \" 2024-01-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" "
       "2024-01-02T03:04:05Z\" as \"2006\""},
      {"2024-01-02 03:04:05Z",
       "parsing time \"2024-01-02 03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" "
       "03:04:05Z\" as \"T\""},
      {"2024-00-02T03:04:05Z", "parsing time \"2024-00-02T03:04:05Z\": month out of range"},
      {"2024-01-00T03:04:05Z", "parsing time \"2024-01-00T03:04:05Z\": day out of range"},
      {"2024-01-32T03:04:05Z", "parsing time \"2024-01-32T03:04:05Z\": day out of range"},
      {"2024-01-02T03:4:05Z",
       "parsing time \"2024-01-02T03:4:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"4:05Z\" as \"04\""},
      {"2024-01-02T03:04:5Z",
       "parsing time \"2024-01-02T03:04:5Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"5Z\" "
       "as \"05\""},
      {"2024-01-02T03:04:05.Z",
       "parsing time \"2024-01-02T03:04:05.Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\".Z\" as \"Z07:00\""},
      {"2024-01-02T03:04:05.5",
       "parsing time \"2024-01-02T03:04:05.5\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" "
       "as \"Z07:00\""},
      {"2024-01-02T03:04:05-00:00", "2024-01-02T03:04:05Z"},
      {"+024-01-02T03:04:05Z",
       "parsing time \"+024-01-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"+024-01-02T03:04:05Z\" as \"2006\""},
      {"2024-01-02T03:04:05.123+05:30", "2024-01-01T21:34:05Z"},
      {"", "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\""},
      {"x", "parsing time \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\""},
      {"0001-01-01T00:00:00Z", "<zero>"},
      {"0001-01-01T01:00:00+01:00", "<zero>"},
      {"2024-01-02T03:04:05Z\xc3\xa9",
       "parsing time \"2024-01-02T03:04:05Z\\xc3\\xa9\": extra text: \"\\xc3\\xa9\""},
      {"2024-01-02T03:04:05ZZ", "parsing time \"2024-01-02T03:04:05ZZ\": extra text: \"Z\""},
      {"2024-01-02T03:04:05+01:0x",
       "parsing time \"2024-01-02T03:04:05+01:0x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"+01:0x\" as \"Z07:00\""},
      {"2024-01-02T03:04:05+0x:00",
       "parsing time \"2024-01-02T03:04:05+0x:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"+0x:00\" as \"Z07:00\""},
      {"2024-01-02T03:04:05+01-00",
       "parsing time \"2024-01-02T03:04:05+01-00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"+01-00\" as \"Z07:00\""},
      {"2024-01-02T03:04:05=01:00",
       "parsing time \"2024-01-02T03:04:05=01:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"=01:00\" as \"Z07:00\""},
      {"1999-12-31T23:59:59.999999999Z", "1999-12-31T23:59:59Z"},
      {"2024-01-02T99:04:05Z", "parsing time \"2024-01-02T99:04:05Z\": hour out of range"},
      {"2024-01-02T03:99:05Z", "parsing time \"2024-01-02T03:99:05Z\": minute out of range"},
      {"2024-01-02T03:04:05.12345678900000000000001Z", "2024-01-02T03:04:05Z"},
      {"2024-13-45T99:99:99Z", "parsing time \"2024-13-45T99:99:99Z\": month out of range"},
      {"2024-1x-02T03:04:05Z",
       "parsing time \"2024-1x-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"1x-02T03:04:05Z\" as \"01\""},
      {"2024-01-02T03:04:05+2:00",
       "parsing time \"2024-01-02T03:04:05+2:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
       "\"+2:00\" as \"Z07:00\""},
      {"\"",
       "parsing time \"\\\"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\\"\" as \"2006\""},
      {"2024-01-02T03:04:05Z\t",
       "parsing time \"2024-01-02T03:04:05Z\\x09\": extra text: \"\\x09\""},
  };
  for (const auto& [text, want] : kRecorded) {
    INFO(text);
    CHECK(time_of(text) == want);
  }
  CHECK(time_of("2024-02-29T23:59:59-00:30") == "2024-03-01T00:29:59Z");
  CHECK(time_of("1970-01-01T00:00:00Z") == "1970-01-01T00:00:00Z");
  CHECK(time_of("0001-01-01T00:00:00.000000001Z") == "0001-01-01T00:00:00Z");  // not zero
}

TEST_CASE("CV: numbers and strings as Go's encoding/json writes them") {
  CHECK(go_float(1.5) == "1.5");
  CHECK(go_float(1e20) == "100000000000000000000");
  CHECK(go_float(1e21) == "1e+21");
  CHECK(go_float(0.000001) == "0.000001");
  CHECK(go_float(1e-7) == "1e-7");
  CHECK(go_float(1.5e-10) == "1.5e-10");
  CHECK(go_float(1e-100) == "1e-100");
  CHECK(go_float(-0.0) == "-0");
  std::string s;
  kpw::append_go_json_string(s, "a\b\f\n<&>\xe2\x80\xa8\x7f");
  CHECK(s == "\"a\\b\\f\\n\\u003c\\u0026\\u003e\\u2028\x7f\"");
  CHECK(kpw::go_key_matches("request", "request"));
  CHECK(kpw::go_key_matches("REQUEST", "request"));
  CHECK(kpw::go_key_matches("reque\xc5\xbft", "request"));  // LONG S folds to s
  CHECK(kpw::go_key_matches("\xe2\x84\xaaind", "kind"));    // KELVIN SIGN folds to k
  CHECK_FALSE(kpw::go_key_matches("requests", "request"));
  CHECK_FALSE(kpw::go_key_matches("reques", "request"));
  CHECK_FALSE(kpw::go_key_matches("\xe2\x84\xaaind", "bind"));
}

TEST_CASE("CV-1: v1alpha1 to v1alpha2, field by field") {
  // resourcePerReplicas → replicaRequirements.resourceRequest (canonical, sorted), replicas moves
  // up, clusters keep name and replicas, applied: false and empty strings are left out.
  CHECK(
      converted(
          kV2,
          R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBinding","metadata":{"name":"rb","namespace":"default","unknown":1},"spec":{"resource":{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx","namespace":"default","replicas":2,"resourcePerReplicas":{"memory":"1.5Gi","cpu":"0.1"}},"clusters":[{"name":"m1","replicas":1},{"name":"m2","replicas":0}]},"status":{"aggregatedStatus":[{"clusterName":"m1","applied":false,"appliedMessage":"","status":{"b":1,"a":[true,null]}}]}})") ==
      R"([{"kind":"ResourceBinding","apiVersion":"work.karmada.io/v1alpha2","metadata":{"name":"rb","namespace":"default"},"spec":{"resource":{"apiVersion":"apps/v1","kind":"Deployment","namespace":"default","name":"nginx"},"replicaRequirements":{"resourceRequest":{"cpu":"100m","memory":"1536Mi"}},"replicas":2,"clusters":[{"name":"m1","replicas":1},{"name":"m2"}]},"status":{"aggregatedStatus":[{"clusterName":"m1","status":{"b":1,"a":[true,null]}}]}}])");
  // An empty resourcePerReplicas is set: replicaRequirements is written, empty.
  CHECK(
      converted(
          kV2,
          R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ClusterResourceBinding","spec":{"resource":{"resourcePerReplicas":{}}}})") ==
      R"([{"kind":"ClusterResourceBinding","apiVersion":"work.karmada.io/v1alpha2","metadata":{},"spec":{"resource":{"apiVersion":"","kind":"","name":""},"replicaRequirements":{}},"status":{}}])");
}

TEST_CASE("CV-2: v1alpha2 to v1alpha1 drops what v1alpha1 cannot hold") {
  CHECK(
      converted(
          kV1,
          R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding","metadata":{"name":"rb","creationTimestamp":"2026-01-02T03:04:05.5+01:00","labels":{"b":"2","a":"1"}},"spec":{"resource":{"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"u"},"propagateDeps":true,"replicaRequirements":{"nodeClaim":{"nodeSelector":{"a":"b"}},"resourceRequest":{"cpu":"2"}},"replicas":3,"clusters":[{"name":"m1","replicas":3,"components":[{"name":"x","replicas":1}]}],"placement":{"clusterAffinity":{"clusterNames":["m1"]}},"schedulerName":"s"},"status":{"schedulerObservedGeneration":2,"conditions":[{"type":"Scheduled","status":"True","reason":"Success","message":"ok","lastTransitionTime":"2026-01-02T03:04:05Z"}],"aggregatedStatus":[{"clusterName":"m1","applied":true,"health":"Healthy"}]}})") == R"([{"kind":"ResourceBinding","apiVersion":"work.karmada.io/v1alpha1","metadata":{"name":"rb","creationTimestamp":"2026-01-02T02:04:05Z","labels":{"a":"1","b":"2"}},"spec":{"resource":{"apiVersion":"v1","kind":"ConfigMap","name":"c","resourcePerReplicas":{"cpu":"2"},"replicas":3},"clusters":[{"name":"m1","replicas":3}]},"status":{"conditions":[{"type":"Scheduled","status":"True","lastTransitionTime":"2026-01-02T03:04:05Z","reason":"Success","message":"ok"}],"aggregatedStatus":[{"clusterName":"m1","applied":true}]}}])");
  // Every object of the review, in order.
  CHECK(
      converted(
          kV1,
          R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding"},{"apiVersion":"work.karmada.io/v1alpha2","kind":"ClusterResourceBinding"})") ==
      R"([{"kind":"ResourceBinding","apiVersion":"work.karmada.io/v1alpha1","metadata":{},"spec":{"resource":{"apiVersion":"","kind":"","name":""}},"status":{}},{"kind":"ClusterResourceBinding","apiVersion":"work.karmada.io/v1alpha1","metadata":{},"spec":{"resource":{"apiVersion":"","kind":"","name":""}},"status":{}}])");
}

TEST_CASE("CV-3: upstream's errors") {
  CHECK(converted(kV2, R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding"})") ==
        R"(failure: "conversion is not allowed between same type *v1alpha2.ResourceBinding"}}})"
        "\n");
  CHECK(
      converted(kV2, R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBindingList"})") ==
      R"(failure: "*v1alpha1.ResourceBindingList is not convertible to *v1alpha2.ResourceBindingList"}}})"
      "\n");
  CHECK(
      converted("work.karmada.io/v1",
                R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBinding"})") ==
      R"(failure: "no kind \"ResourceBinding\" is registered for version \"work.karmada.io/v1\" in scheme \"pkg/util/gclient/gclient.go:41\""}}})"
      "\n");
  CHECK(
      converted(kV2, R"({"apiVersion":"apps/v1","kind":"Deployment"})") ==
      R"(failure: "no kind \"Deployment\" is registered for version \"apps/v1\" in scheme \"pkg/util/gclient/gclient.go:41\""}}})"
      "\n");
  CHECK(converted(kV2, R"({"kind":"ResourceBinding"})") ==
        R"(failure: "Object 'apiVersion' is missing in '{\"kind\":\"ResourceBinding\"}'"}}})"
        "\n");
  CHECK(
      converted(
          kV2,
          R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBinding","spec":{"clusters":[{"replicas":"2"}],"resource":{"replicas":3000000000}}})") ==
      R"(failure: "json: cannot unmarshal string into Go struct field TargetCluster.spec.clusters.replicas of type int32"}}})"
      "\n");
  // A value's own decoder failing ends the read: its error wins over an earlier type error.
  CHECK(
      converted(
          kV2,
          R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBinding","spec":{"clusters":"x"},"status":{"conditions":[{"lastTransitionTime":"2024-02-30T00:00:00Z"}]}})") ==
      R"(failure: "parsing time \"2024-02-30T00:00:00Z\": day out of range"}}})"
      "\n");
  // One object that does not convert fails the review: no object is answered.
  CHECK(
      converted(kV1, R"({"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding"},5)") ==
      R"(failure: "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }"}}})"
      "\n");
}

TEST_CASE("CV-3: an object echoed in a message is cut at 256 bytes") {
  const std::string name(1000, 'n');
  const std::string got =
      converted(kV2, R"({"kind":"ResourceBinding","metadata":{"name":")" + name + R"("}})");
  CHECK(got.find(R"(Object 'apiVersion' is missing in '{\"kind\":\"ResourceBinding\",)") !=
        std::string::npos);
  CHECK(got.find("nnn... (1049 bytes)'") != std::string::npos);
  CHECK(got.size() < 400);
}

TEST_CASE("CV-3: a desiredAPIVersion, a kind or a time echoed in a message is cut at 256 bytes") {
  // Each of these came back whole: 1 MiB echoed from a 1 MiB field (a time twice).
  const std::string huge(1 << 20, 'v');
  std::string got = converted("work.karmada.io/" + huge,
                              R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBinding"})");
  CHECK(got.find(R"(is registered for version \"work.karmada.io/vvv)") != std::string::npos);
  CHECK(got.find(R"(vvv\"... (1048592 bytes) in scheme)") != std::string::npos);
  CHECK(got.size() < 600);
  got = converted(kV2, R"({"apiVersion":"work.karmada.io/v1alpha1","kind":")" + huge + R"("})");
  CHECK(got.find(R"(no kind \"vvv)") != std::string::npos);
  CHECK(got.find("(1048576 bytes) is registered") != std::string::npos);
  CHECK(got.size() < 600);
  got = converted(
      kV2, R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBinding","status":{"conditions":[{"lastTransitionTime":"2024-01-01T00:00:00Z)" +
               huge + R"("}]}})");
  CHECK(got.find(R"(parsing time \"2024-01-01T00:00:00Zvvv)") != std::string::npos);
  CHECK(got.find("(1048596 bytes): extra text:") != std::string::npos);
  CHECK(got.size() < 1000);
}

TEST_CASE("CV-4: the envelope") {
  // uid, kind and apiVersion echoed (omitted when empty), no request member, a trailing newline.
  CHECK(
      post(R"({"request":{"uid":"<u>","desiredAPIVersion":"x"}})").body ==
      R"({"response":{"uid":"\u003cu\u003e","convertedObjects":null,"result":{"metadata":{},"status":"Success"}}})"
      "\n");
  // Keys match as Go's encoding/json matches them; the last match wins.
  CHECK(
      post(R"({"KIND":"K","Request":{"UID":"a"},"request":{"uid":"b"}})").body ==
      R"({"kind":"K","response":{"uid":"b","convertedObjects":null,"result":{"metadata":{},"status":"Success"}}})"
      "\n");
  // A request matched twice is decoded into one struct; null leaves a string as it was.
  CHECK(
      post(R"({"request":{"uid":"a"},"Request":{"desiredAPIVersion":"x","UID":null}})").body ==
      R"({"response":{"uid":"a","convertedObjects":null,"result":{"metadata":{},"status":"Success"}}})"
      "\n");
  // HTTP 400 with an empty body: no request, a body that is no ConversionReview, a type error.
  for (const char* body :
       {"", "{}", "null", "[]", "garbage", R"({"request":null})", R"({"request":{"uid":5}})",
        R"({"request":{"objects":{}}})", R"({"request":{},"response":{"result":{"code":1.5}}})",
        R"({"request":{},"kind":{}})", R"({"request":{}} trailing)",
        R"({"request":{"uid":5,"UID":"a"}})", R"({"request":{},"Request":null})",
        R"({"request":{},"response":{"result":{"details":{"causes":[{"field":5}]}}}})"}) {
    INFO(body);
    const kpw::HttpAnswer a = post(body);
    CHECK(a.status == 400);
    CHECK(a.body.empty());
  }
  // The content type is not read.
  kpw::HttpAnswer a;
  std::string body = R"({"request":{"uid":"c"}})";
  kpw::handle_http(kpw::find_route("/convert"), "POST", "text/plain", body, kpw::kDefaultSettings,
                   a);
  CHECK(a.status == 200);
}

TEST_CASE("CV-4: a converter that throws is answered as upstream answers a panic") {
  const kpw::Route* convert = kpw::find_route("/convert");
  REQUIRE(convert != nullptr);
  kpw::Route throwing = *convert;
  throwing.converter = [](const kpw::JsonValue&, std::string_view, std::string& out,
                          std::string&) -> bool {
    out += "{\"partial\":";
    throw std::bad_alloc();
  };
  const kpw::HttpAnswer a =
      post(R"({"kind":"ConversionReview","request":{"uid":"u-9","objects":[{}]}})", &throwing);
  CHECK(a.status == 200);
  CHECK(
      a.body ==
      R"({"kind":"ConversionReview","response":{"uid":"u-9","convertedObjects":null,"result":{"metadata":{},"status":"Failure","message":"internal error occurred during conversion"}}})"
      "\n");
  CHECK(a.outcome.internal_error);
  CHECK(a.outcome.denial.find("internal error: ") == 0);
}

TEST_CASE("CV: a review of 100 000 clusters converts in linear time", "[linear]") {
  std::string clusters;
  for (int i = 0; i < 100'000; ++i) {
    if (i > 0) clusters += ',';
    clusters += R"({"name":"member-)" + std::to_string(i) + R"(","replicas":1})";
  }
  const std::string got = converted(
      kV2,
      R"({"apiVersion":"work.karmada.io/v1alpha1","kind":"ResourceBinding","metadata":{"labels":{)" +
          std::string(R"("b":"1","a":"2")") + R"(}},"spec":{"clusters":[)" + clusters + "]}}");
  CHECK(got.find(R"({"name":"member-99999","replicas":1}]})") != std::string::npos);
  CHECK(got.find(R"("labels":{"a":"2","b":"1"})") != std::string::npos);
}
