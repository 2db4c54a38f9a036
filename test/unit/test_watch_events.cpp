// What the RIC watch cache reads of the API server (src/kube/watch_events.hpp): LIST pages, watch
// events, Status bodies, and the framing of the watch stream. The bodies are as kube-apiserver
// writes them for a CRD (items carry kind and apiVersion; every event ends with "\n").
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json/json.hpp"
#include "kube/watch_events.hpp"

using kpw::kube::ApiStatus;
using kpw::kube::EventFramer;
using kpw::kube::EventType;
using kpw::kube::ListPage;
using kpw::kube::RicSummary;
using kpw::kube::WatchEvent;

namespace {

// retention (bit 0), replicaResource (1) and healthInterpretation (6) scripted; statusAggregation
// with an empty script and dependencyInterpretation (no bit) leave no bit.
constexpr kpw::karmada::OperationMask kDeploymentMask = 0b1000011;

// A RIC as the API server writes it. The retention script holds `}`, `{`, `"` and `\` inside a
// Lua string, which the framer must read as string bytes.
std::string ric(std::string_view name, std::string_view resource_version,
                std::string_view kind = "Deployment") {
  std::string out =
      R"({"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterCustomization",)"
      R"("metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":)"
      R"("{\"apiVersion\":\"config.karmada.io/v1alpha1\",\"kind\":\"ResourceInterpreterCustomization\"}\n"},)"
      R"("creationTimestamp":"2024-05-01T10:00:00Z","generation":1,"managedFields":[)"
      R"({"apiVersion":"config.karmada.io/v1alpha1","fieldsType":"FieldsV1","fieldsV1":)"
      R"({"f:spec":{".":{},"f:customizations":{".":{},"f:replicaResource":{".":{},)"
      R"("f:luaScript":{}}},"f:target":{".":{},"f:apiVersion":{},"f:kind":{}}}},)"
      R"("manager":"kubectl-client-side-apply","operation":"Update",)"
      R"("time":"2024-05-01T10:00:00Z"}],"name":")";
  out += name;
  out += R"(","resourceVersion":")";
  out += resource_version;
  out += R"(","uid":"5f1c2a9e-8d3b-4c7a-9e61-2b0d4f8a7c13"},)"
         R"("spec":{"target":{"apiVersion":"apps/v1","kind":")";
  out += kind;
  out += R"("},"customizations":{)"
         R"("retention":{"luaScript":"function Retain(desiredObj, observedObj)\n)"
         R"(  local marks = \"}{\\\"\" -- a brace, a quote and a backslash\n)"
         R"(  desiredObj.spec.paused = observedObj.spec.paused\n  return desiredObj\nend"},)"
         R"("replicaResource":{"luaScript":"function GetReplicas(obj)\n)"
         R"(  return obj.spec.replicas, {}\nend"},)"
         R"("statusAggregation":{"luaScript":""},)"
         R"("healthInterpretation":{"luaScript":"function InterpretHealth(observedObj)\n)"
         R"(  return observedObj.status.readyReplicas == observedObj.spec.replicas\nend"},)"
         R"("dependencyInterpretation":{"luaScript":"function GetDependencies(desiredObj)\n)"
         R"(  return {}\nend"}}}})";
  return out;
}

RicSummary summary(std::string name, std::string resource_version,
                   std::string target_api_version = "", std::string target_kind = "",
                   kpw::karmada::OperationMask operations = 0) {
  RicSummary out;
  out.name = std::move(name);
  out.resource_version = std::move(resource_version);
  out.target_api_version = std::move(target_api_version);
  out.target_kind = std::move(target_kind);
  out.operations = operations;
  return out;
}

ApiStatus status(int code, std::string reason, std::string message) {
  ApiStatus out;
  out.code = code;
  out.reason = std::move(reason);
  out.message = std::move(message);
  return out;
}

std::string event(std::string_view type, std::string_view object) {
  return R"({"type":")" + std::string(type) + R"(","object":)" + std::string(object) + "}";
}

const std::string kBookmark = event(
    "BOOKMARK",
    R"({"kind":"ResourceInterpreterCustomization","apiVersion":"config.karmada.io/v1alpha1",)"
    R"("metadata":{"resourceVersion":"12345","annotations":{"k8s.io/initial-events-end":"true"}}})");

const std::string kExpired =
    R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},)"
    R"j("status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired",)j"
    R"("code":410}})";

// A parsed document that lives as long as the test needs it.
struct Doc {
  std::unique_ptr<kpw::JsonArena> arena = std::make_unique<kpw::JsonArena>();
  std::string text;
  explicit Doc(std::string_view json) : text(json) { REQUIRE(arena->parse_in_place(text).ok); }
  const kpw::JsonValue& root() { return arena->document(); }
};

WatchEvent read_event(std::string text) {
  WatchEvent out;
  const auto error = kpw::kube::read_watch_event(text, out);
  INFO(error.value_or(""));
  REQUIRE_FALSE(error);
  return out;
}

std::string event_error(std::string text) {
  WatchEvent out;
  const auto error = kpw::kube::read_watch_event(text, out);
  REQUIRE(error);
  return *error;
}

// Every event framed from `pieces` fed in order, taking events after each feed; `error` gets the
// first error of feed().
std::vector<std::string> frame(const std::vector<std::string_view>& pieces, std::string* error,
                               std::size_t max_event_bytes = 16u << 20) {
  EventFramer framer(max_event_bytes);
  std::vector<std::string> out;
  std::string text;
  for (const std::string_view piece : pieces) {
    const auto failed = framer.feed(piece);
    while (framer.next(text)) out.push_back(text);
    if (failed) {
      if (error != nullptr) *error = *failed;
      return out;
    }
  }
  return out;
}

std::vector<std::string> frame_bytewise(std::string_view stream) {
  std::vector<std::string_view> pieces;
  for (std::size_t i = 0; i < stream.size(); ++i) pieces.push_back(stream.substr(i, 1));
  return frame(pieces, nullptr);
}

}  // namespace

TEST_CASE("watch: a RIC reads as its name, version, target and scripted operations", "[watch]") {
  Doc doc(ric("deployment-interpreter", "4521"));
  RicSummary out;
  REQUIRE_FALSE(kpw::kube::read_ric(doc.root(), out));
  CHECK(out.name == "deployment-interpreter");
  CHECK(out.resource_version == "4521");
  CHECK(out.target_api_version == "apps/v1");
  CHECK(out.target_kind == "Deployment");
  CHECK(out.operations == kDeploymentMask);

  SECTION("every exclusive operation has its bit, InterpretDependency none") {
    Doc all(
        R"({"metadata":{"name":"all"},"spec":{"target":{"kind":"Foo"},"customizations":{)"
        R"("retention":{"luaScript":"a"},"replicaResource":{"luaScript":"a"},)"
        R"("componentResource":{"luaScript":"a"},"replicaRevision":{"luaScript":"a"},)"
        R"("statusReflection":{"luaScript":"a"},"statusAggregation":{"luaScript":"a"},)"
        R"("healthInterpretation":{"luaScript":"a"},"dependencyInterpretation":{"luaScript":"a"}}}})");
    REQUIRE_FALSE(kpw::kube::read_ric(all.root(), out));
    CHECK(out.operations == 0x7F);
    CHECK(out.target_api_version.empty());  // absent reads as ""
    CHECK(out.target_kind == "Foo");
    CHECK(out.resource_version.empty());
  }
  SECTION("a luaScript that is not a string, or null, or a customization that is not an object") {
    Doc odd(R"({"metadata":{"name":"odd"},"spec":{"customizations":{"retention":{"luaScript":7},)"
            R"("replicaResource":{"luaScript":null},"componentResource":"x",)"
            R"("replicaRevision":{"luaScript":" "}}}})");
    REQUIRE_FALSE(kpw::kube::read_ric(odd.root(), out));
    CHECK(out.operations == 0b1000);  // a blank script is not empty
  }
  SECTION("the summary is set anew") {
    Doc bare(R"({"metadata":{"name":"bare"}})");
    REQUIRE_FALSE(kpw::kube::read_ric(bare.root(), out));
    CHECK(out == summary("bare", ""));
  }
  SECTION("no name, a name that is not a string, an empty name, another kind, not an object") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"metadata":{"resourceVersion":"1"}})", "the object has no metadata.name"},
        {R"({"metadata":{"name":null}})", "the object has no metadata.name"},
        {R"({"spec":{}})", "the object has no metadata.name"},
        {R"({"metadata":{"name":42}})", "the object's metadata.name is not a string"},
        {R"({"metadata":{"name":""}})", "the object's metadata.name is empty"},
        {R"({"kind":"Status","metadata":{"name":"x"}})",
         R"(the object is of kind "Status", expected ResourceInterpreterCustomization)"},
        {R"(["x"])", "the object is not a JSON object"},
    };
    for (const auto& [json, message] : cases) {
      INFO(json);
      Doc bad(json);
      const auto error = kpw::kube::read_ric(bad.root(), out);
      REQUIRE(error);
      CHECK(*error == message);
      CHECK(out.name.empty());
    }
  }
}

TEST_CASE("watch: a LIST page with a continue token", "[watch]") {
  std::string body =
      R"({"apiVersion":"config.karmada.io/v1alpha1","items":[)" + ric("a-interpreter", "4519") +
      "," + ric("b-interpreter", "4521", "StatefulSet") +
      R"(],"kind":"ResourceInterpreterCustomizationList","metadata":{"continue":)"
      R"("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDUzMCwic3RhcnQiOiJiLWludGVycHJldGVyXHUwMDAwIn0",)"
      R"("remainingItemCount":3,"resourceVersion":"4530"}})";
  ListPage page;
  REQUIRE_FALSE(kpw::kube::read_ric_list(body, page));
  CHECK(page.resource_version == "4530");
  CHECK(page.continue_token ==
        "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDUzMCwic3RhcnQiOiJiLWludGVycHJldGVyXHUwMDAwIn0");
  REQUIRE(page.items.size() == 2);
  CHECK(page.items[0] ==
        summary("a-interpreter", "4519", "apps/v1", "Deployment", kDeploymentMask));
  CHECK(page.items[1] ==
        summary("b-interpreter", "4521", "apps/v1", "StatefulSet", kDeploymentMask));
}

TEST_CASE("watch: an empty list, and lists that are refused", "[watch]") {
  ListPage page;
  page.items.resize(3);
  page.continue_token = "stale";
  std::string empty =
      R"({"apiVersion":"config.karmada.io/v1alpha1","items":[],)"
      R"("kind":"ResourceInterpreterCustomizationList","metadata":{"resourceVersion":"4530"}})";
  REQUIRE_FALSE(kpw::kube::read_ric_list(empty, page));
  CHECK(page.items.empty());
  CHECK(page.resource_version == "4530");
  CHECK(page.continue_token.empty());

  std::string null_items = R"({"items":null,"metadata":{"resourceVersion":"7"}})";
  REQUIRE_FALSE(kpw::kube::read_ric_list(null_items, page));
  CHECK(page.items.empty());

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"404 page not found", "cannot decode the list: malformed JSON"},
      {R"({"items":[],"metadata":{"resourceVersion":"1"})", "cannot decode the list: malformed"},
      {"[]", "the list is not a JSON object"},
      {R"({"items":[],"metadata":{}})", "the list has no metadata.resourceVersion"},
      {R"({"items":{},"metadata":{"resourceVersion":"1"}})", "the list's items is not an array"},
      {R"({"kind":"ConfigMapList","items":[],"metadata":{"resourceVersion":"1"}})",
       R"(the list is of kind "ConfigMapList", expected ResourceInterpreterCustomizationList)"},
      {R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
       R"("message":"the server could not find the requested resource","reason":"NotFound",)"
       R"("code":404})",
       "the list is a Status: the server could not find the requested resource"},
      {R"({"items":[)" + ric("a", "1") +
           R"(,{"metadata":{"name":7}}],)"
           R"("metadata":{"resourceVersion":"1"}})",
       "the list's items[1]: the object's metadata.name is not a string"},
  };
  for (auto [body, message] : cases) {
    INFO(body);
    const auto error = kpw::kube::read_ric_list(body, page);
    REQUIRE(error);
    CHECK(error->starts_with(message));
    CHECK(page.items.empty());
  }
}

TEST_CASE("watch: ADDED, MODIFIED and DELETED carry the RIC", "[watch]") {
  const WatchEvent added = read_event(event("ADDED", ric("deployment-interpreter", "4521")));
  CHECK(added.type == EventType::kAdded);
  CHECK(added.object ==
        summary("deployment-interpreter", "4521", "apps/v1", "Deployment", kDeploymentMask));
  CHECK(added.status == ApiStatus{});

  const WatchEvent modified = read_event(event("MODIFIED", ric("deployment-interpreter", "4600")));
  CHECK(modified.type == EventType::kModified);
  CHECK(modified.object.resource_version == "4600");
  CHECK(modified.object.operations == kDeploymentMask);

  const WatchEvent deleted = read_event(event("DELETED", ric("deployment-interpreter", "4700")));
  CHECK(deleted.type == EventType::kDeleted);
  CHECK(deleted.object.name == "deployment-interpreter");
  CHECK(deleted.object.resource_version == "4700");
}

TEST_CASE("watch: BOOKMARK carries only a resourceVersion", "[watch]") {
  const WatchEvent bookmark = read_event(kBookmark);
  CHECK(bookmark.type == EventType::kBookmark);
  CHECK(bookmark.object == summary("", "12345"));
  CHECK(event_error(event("BOOKMARK", R"({"metadata":{}})")) ==
        "the BOOKMARK event has no metadata.resourceVersion");
}

TEST_CASE("watch: ERROR carries the Status; 410 is Expired", "[watch]") {
  WatchEvent out;
  std::string previous = event("ADDED", ric("x", "1"));
  REQUIRE_FALSE(kpw::kube::read_watch_event(previous, out));
  std::string text = kExpired;
  REQUIRE_FALSE(kpw::kube::read_watch_event(text, out));
  CHECK(out.type == EventType::kError);
  CHECK(out.status == status(410, "Expired", "too old resource version: 1 (5)"));
  CHECK(out.object == RicSummary{});  // nothing left of the previous event
}

TEST_CASE("watch: an event that cannot be read is an error, not a crash", "[watch]") {
  const std::string added = event("ADDED", ric("x", "1"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "cannot decode the watch event: malformed JSON"},
      {added.substr(0, added.size() - 1), "cannot decode the watch event: malformed JSON"},
      {R"({"type":"ADDED","type":"ADDED","object":{}})",
       R"(cannot decode the watch event: duplicate JSON key "type")"},
      {"\"ADDED\"", "the watch event is not a JSON object"},
      {R"({"object":{"metadata":{"name":"x"}}})", "the watch event has no type"},
      {R"({"type":1,"object":{"metadata":{"name":"x"}}})", "the watch event has no type"},
      {R"({"type":"ADDED"})", "the watch event has no object"},
      {R"({"type":"ADDED","object":"x"})", "the watch event has no object"},
      {R"({"type":"ADDED","object":{"metadata":{}}})",
       "the ADDED event: the object has no metadata.name"},
      {R"({"type":"SYNC","object":{}})", R"(unknown watch event type "SYNC")"},
      {R"({"type":"added","object":{}})", R"(unknown watch event type "added")"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK(event_error(text).starts_with(message));
  }
}

TEST_CASE("watch: read_status on a Status and on bodies that are not one", "[watch]") {
  const ApiStatus forbidden = kpw::kube::read_status(
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
      R"("resourceinterpretercustomizations.config.karmada.io is forbidden: User )"
      R"(\"system:serviceaccount:karmada-system:karmada-policy-webhook\" cannot list resource )"
      R"(\"resourceinterpretercustomizations\" in API group \"config.karmada.io\" at the )"
      R"(cluster scope","reason":"Forbidden","details":{"group":"config.karmada.io",)"
      R"("kind":"resourceinterpretercustomizations"},"code":403})"
      "\n");
  CHECK(forbidden.code == 403);
  CHECK(forbidden.reason == "Forbidden");
  CHECK(forbidden.message ==
        "resourceinterpretercustomizations.config.karmada.io is forbidden: User "
        "\"system:serviceaccount:karmada-system:karmada-policy-webhook\" cannot list resource "
        "\"resourceinterpretercustomizations\" in API group \"config.karmada.io\" at the "
        "cluster scope");

  CHECK(kpw::kube::read_status("404 page not found\n") == status(0, "", "404 page not found"));
  CHECK(kpw::kube::read_status("") == ApiStatus{});
  CHECK(kpw::kube::read_status("bad\tgateway\x01\xff") == status(0, "", "bad gateway??"));
  // JSON, but not a Status: the body, as text.
  CHECK(kpw::kube::read_status(R"({"error":"x"})") == status(0, "", R"({"error":"x"})"));
  CHECK(kpw::kube::read_status(R"({"kind":"Status","code":"x"})") == ApiStatus{});
  CHECK(kpw::kube::read_status(R"({"kind":"Status","code":4294967296})") == ApiStatus{});
  CHECK(kpw::kube::read_status("{\"kind\":\"Status\"") == status(0, "", "{\"kind\":\"Status\""));

  std::string html = "<html><head><title>502 Bad Gateway</title></head><body>";
  html.append(1000, 'x');
  const ApiStatus cut = kpw::kube::read_status(html);
  CHECK(cut.code == 0);
  CHECK(cut.message == html.substr(0, 200) + "... (1055 bytes)");
}

TEST_CASE("watch: framing a stream byte by byte and at every split point", "[watch]") {
  const std::vector<std::string> events = {event("ADDED", ric("a-interpreter", "4521")),
                                           event("MODIFIED", ric("a-interpreter", "4522")),
                                           kExpired};
  std::string stream;
  for (const std::string& e : events) stream += e + "\n";

  CHECK(frame({stream}, nullptr) == events);
  CHECK(frame_bytewise(stream) == events);
  for (std::size_t split = 0; split <= stream.size(); ++split) {
    INFO(split);
    const std::string_view s = stream;
    std::string error;
    REQUIRE(frame({s.substr(0, split), s.substr(split)}, &error) == events);
    REQUIRE(error.empty());
  }
  // Three pieces, at random points.
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    std::size_t a = random() % (stream.size() + 1), b = random() % (stream.size() + 1);
    if (a > b) std::swap(a, b);
    const std::string_view s = stream;
    REQUIRE(frame({s.substr(0, a), s.substr(a, b - a), s.substr(b)}, nullptr) == events);
  }
  // And each framed text reads back as its event.
  const std::vector<std::string> framed = frame_bytewise(stream);
  REQUIRE(framed.size() == 3);
  CHECK(read_event(framed[0]).object.resource_version == "4521");
  CHECK(read_event(framed[1]).type == EventType::kModified);
  CHECK(read_event(framed[2]).status.code == 410);
}

TEST_CASE("watch: braces, quotes and backslashes inside strings", "[watch]") {
  const std::vector<std::string> events = {
      R"({"type":"ADDED","object":{"metadata":{"name":"a}b"}}})",
      R"({"type":"ADDED","object":{"metadata":{"name":"\"}{\""}}})",
      R"({"type":"ADDED","object":{"metadata":{"name":"ends in a backslash \\"}}})",
      R"({"type":"ADDED","object":{"metadata":{"name":"\\\"}"}}})",
      R"({"type":"ADDED","object":{"metadata":{"name":"[[[{{{\u007d"}}})",
  };
  std::string stream;
  for (const std::string& e : events) stream += e + "\n";
  CHECK(frame({stream}, nullptr) == events);
  CHECK(frame_bytewise(stream) == events);
  CHECK(read_event(events[2]).object.name == "ends in a backslash \\");
  CHECK(read_event(events[3]).object.name == "\\\"}");
}

TEST_CASE("watch: whitespace between events is skipped, inside them kept", "[watch]") {
  const std::vector<std::string> events = {"{ \"type\" : \"BOOKMARK\" }", "{}", "{\n\t}"};
  const std::string stream = "\r\n  " + events[0] + "\n\n\t " + events[1] + events[2] + " \r\n\r\n";
  std::string error;
  CHECK(frame({stream}, &error) == events);
  CHECK(error.empty());
  CHECK(frame_bytewise(stream) == events);
  EventFramer framer;
  REQUIRE_FALSE(framer.feed("\n\n   \n"));
  CHECK(framer.buffered() == 0);
}

TEST_CASE("watch: anything else between events breaks the stream", "[watch]") {
  const std::string good = kBookmark;
  for (const std::string garbage : {"x", "]", "}", "\"x\"", "[]", "0", "\xef\xbb\xbf"}) {
    INFO(garbage);
    std::string error;
    const std::vector<std::string> got = frame({good + "\n" + garbage + good + "\n"}, &error);
    CHECK(got == std::vector<std::string>{good});  // what came before the break is kept
    CHECK(error.starts_with("watch stream: unexpected byte "));
  }
  EventFramer framer;
  const auto error = framer.feed(good + "\nHTTP/1.1 200 OK\r\n");
  REQUIRE(error);
  CHECK(*error == "watch stream: unexpected byte 'H' (0x48) between events at stream offset " +
                      std::to_string(good.size() + 1));
  CHECK(framer.broken());
  CHECK(framer.feed(good) == error);  // stays broken
  std::string text;
  REQUIRE(framer.next(text));
  CHECK(text == good);
  CHECK_FALSE(framer.next(text));
  CHECK(framer.buffered() == 0);

  framer.reset();
  CHECK_FALSE(framer.broken());
  REQUIRE_FALSE(framer.feed(good));
  REQUIRE(framer.next(text));
  CHECK(text == good);
}

TEST_CASE("watch: an event over the limit breaks the stream", "[watch]") {
  const std::string fits = R"({"type":"BOOKMARK","object":{}})";
  const std::size_t limit = fits.size();
  std::string error;
  CHECK(frame({fits + "\n" + fits}, &error, limit) == std::vector<std::string>{fits, fits});
  CHECK(error.empty());

  const std::string over = R"({"type":"BOOKMARK","object":{ }})";  // one byte more
  CHECK(frame({fits, over}, &error, limit) == std::vector<std::string>{fits});
  CHECK(error == "watch stream: an event is longer than " + std::to_string(limit) + " bytes");
  error.clear();
  CHECK(frame_bytewise(over).size() == 1);  // the default limit is 16 MiB

  // An event that never ends is refused as soon as it passes the limit, not held.
  EventFramer framer(1024);
  REQUIRE_FALSE(framer.feed(R"({"type":"ADDED","object":{"metadata":{"name":")"));
  const std::string chunk(100, 'a');
  std::optional<std::string> failed;
  int feeds = 0;
  while (!failed && feeds < 100) {
    failed = framer.feed(chunk);
    ++feeds;
    CHECK(framer.buffered() <= 1024 + chunk.size());
  }
  CHECK(failed);
  CHECK(feeds == 10);
  CHECK(framer.buffered() == 0);
}

TEST_CASE("watch: buffered() counts what is kept", "[watch]") {
  const std::string e = kBookmark;
  EventFramer framer;
  REQUIRE_FALSE(framer.feed(std::string_view(e).substr(0, 10)));
  CHECK(framer.buffered() == 10);
  REQUIRE_FALSE(framer.feed(std::string_view(e).substr(10)));
  CHECK(framer.buffered() == e.size());
  REQUIRE_FALSE(framer.feed("\n" + e + "\n{\"type\""));
  std::string text;
  REQUIRE(framer.next(text));
  CHECK(text == e);
  REQUIRE(framer.next(text));
  CHECK(text == e);
  CHECK_FALSE(framer.next(text));
  CHECK(framer.buffered() == 7);
  framer.reset();
  CHECK(framer.buffered() == 0);
  CHECK_FALSE(framer.next(text));
}

TEST_CASE("watch: framing is linear in the stream", "[watch][linear]") {
  // A 5 MiB event (a RIC with a 5 MiB script) fed in 4 KiB pieces, and a 1 MiB one fed a byte at
  // a time: a framer that rescanned the event from its start on each feed would scan 6 GiB and
  // 512 GiB.
  std::string script;
  while (script.size() < (5u << 20)) script += R"(  local s = \"}{\\\"\" .. x\n)";
  const std::string big =
      event("MODIFIED", R"({"kind":"ResourceInterpreterCustomization","metadata":{"name":"big",)"
                        R"("resourceVersion":"9"},"spec":{"target":{"apiVersion":"apps/v1",)"
                        R"("kind":"Deployment"},"customizations":{"retention":{"luaScript":")" +
                            script + R"("}}}})");
  const auto start = std::chrono::steady_clock::now();

  EventFramer framer;
  std::string text;
  std::size_t events = 0;
  const std::string stream = big + "\n" + big + "\n";
  for (std::size_t at = 0; at < stream.size(); at += 4096) {
    REQUIRE_FALSE(framer.feed(std::string_view(stream).substr(at, 4096)));
    CHECK(framer.buffered() <= big.size() + 4096);
    while (framer.next(text)) {
      REQUIRE(text == big);
      ++events;
    }
  }
  CHECK(events == 2);
  const WatchEvent read = read_event(text);
  CHECK(read.object.name == "big");
  CHECK(read.object.operations == 1);

  const std::string_view mib = std::string_view(big).substr(0, 1u << 20);
  EventFramer bytewise;
  bool failed = false;  // one assertion, not a million
  for (const char c : mib) failed |= bytewise.feed(std::string_view(&c, 1)).has_value();
  CHECK_FALSE(failed);
  CHECK(bytewise.buffered() == mib.size());

  // Many small events, a byte at a time, each taken when whole.
  std::string small_stream;
  while (small_stream.size() < (1u << 20)) small_stream += kBookmark + "\n";
  EventFramer small;
  std::size_t taken = 0;
  for (const char c : small_stream) {
    failed |= small.feed(std::string_view(&c, 1)).has_value();
    if (small.next(text)) ++taken;
  }
  while (small.next(text)) ++taken;
  CHECK_FALSE(failed);
  CHECK(taken == small_stream.size() / (kBookmark.size() + 1));

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5.0);
}
