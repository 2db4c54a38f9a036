// The JSON Patch builder: RFC 6902 ops that apply to the object as it arrived.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <catch2/catch.hpp>
#include <iterator>
#include <random>
#include <string>

#include "admission/json_patch.hpp"
#include "json/json_patch_apply.hpp"
#include "json/json_pointer.hpp"
#include "json_access.hpp"
#include "util/base64.hpp"

using kpw::FieldPath;
using kpw::JsonArena;
using kpw::JsonPatch;

namespace {

template <typename Value>
std::string to_text(const Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return b.GetString();
}

// Builds a patch against `object` with `mutate`, checks it applies, returns the patched object.
template <typename F>
std::string patched(const std::string& object, F mutate, std::string* ops = nullptr) {
  JsonArena arena;
  std::string text = object;
  REQUIRE(arena.parse_in_place(text).ok);
  JsonPatch patch;
  patch.reset(&arena.document());
  mutate(patch);
  std::string rendered;
  patch.render(rendered);
  if (ops != nullptr) *ops = rendered;
  kpw::JsonDocument doc;
  doc.Parse(object.c_str());
  const auto problem = kpw::apply_json_patch(doc, rendered, doc.GetAllocator());
  INFO(rendered << "\n" << problem.value_or(""));
  REQUIRE_FALSE(problem.has_value());
  return to_text(doc);
}

}  // namespace

TEST_CASE("patch: add when absent / replace when present or null") {
  const FieldPath spec = FieldPath::root("spec");
  std::string ops;
  auto out = patched(R"({"spec":{"a":1,"b":null}})",
                     [&](JsonPatch& p) {
                       p.set(spec.child("a"), std::int64_t{2});
                       p.set(spec.child("b"), std::string_view("x"));
                       p.set(spec.child("c"), true);
                     },
                     &ops);
  CHECK(out == R"({"spec":{"a":2,"b":"x","c":true}})");
  CHECK(
      ops ==
      R"([{"op":"replace","path":"/spec/a","value":2},{"op":"replace","path":"/spec/b","value":"x"},{"op":"add","path":"/spec/c","value":true}])");
}

TEST_CASE("patch: a missing parent is created by one add holding everything below") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath failover = spec.child("failover");
  const FieldPath app = failover.child("application");
  const FieldPath dc = app.child("decisionConditions");
  std::string ops;
  auto out = patched(R"({"spec":{"failover":{"application":{"purgeMode":"Never"}}}})",
                     [&](JsonPatch& p) {
                       p.set(dc.child("tolerationSeconds"), std::int64_t{10});
                       p.set(dc.child("other"), std::int64_t{1});
                     },
                     &ops);
  CHECK(
      ops ==
      R"([{"op":"add","path":"/spec/failover/application/decisionConditions","value":{"tolerationSeconds":10,"other":1}}])");
  CHECK(
      out ==
      R"({"spec":{"failover":{"application":{"purgeMode":"Never","decisionConditions":{"tolerationSeconds":10,"other":1}}}}})");
}

TEST_CASE("patch: a null parent is replaced / not added below") {
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  std::string ops;
  patched(R"({"metadata":{"labels":null}})",
          [&](JsonPatch& p) { p.set(labels.key("a.io/id"), std::string_view("v")); }, &ops);
  CHECK(ops == R"([{"op":"replace","path":"/metadata/labels","value":{"a.io/id":"v"}}])");
}

TEST_CASE("patch: pointer tokens escape ~ and / (RFC 6901)") {
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  std::string ops;
  auto out =
      patched(R"({"metadata":{"labels":{"x":"1"}}})",
              [&](JsonPatch& p) { p.set(labels.key("a.io/b~c"), std::string_view("v")); }, &ops);
  CHECK(ops == R"([{"op":"add","path":"/metadata/labels/a.io~1b~0c","value":"v"}])");
  CHECK(out == R"({"metadata":{"labels":{"x":"1","a.io/b~c":"v"}}})");
}

TEST_CASE("patch: append to an array / or create it") {
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath finalizers = metadata.child("finalizers");
  std::string ops;
  auto out = patched(R"({"metadata":{"finalizers":["a/b"]}})",
                     [&](JsonPatch& p) { p.append(finalizers, "k/x"); }, &ops);
  CHECK(ops == R"([{"op":"add","path":"/metadata/finalizers/-","value":"k/x"}])");
  CHECK(out == R"({"metadata":{"finalizers":["a/b","k/x"]}})");
  auto created = patched(R"({"metadata":{}})", [&](JsonPatch& p) {
    p.append(finalizers, "k/x");
    p.append(finalizers, "k/y");
  });
  CHECK(created == R"({"metadata":{"finalizers":["k/x","k/y"]}})");
}

TEST_CASE("patch: indexes walk existing array elements") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath sels = spec.child("resourceSelectors");
  const FieldPath sel1 = sels.index(1);
  auto out =
      patched(R"({"spec":{"resourceSelectors":[{"kind":"A"},{"kind":"B"}]}})",
              [&](JsonPatch& p) { p.set(sel1.child("namespace"), std::string_view("ns1")); });
  CHECK(out == R"({"spec":{"resourceSelectors":[{"kind":"A"},{"kind":"B","namespace":"ns1"}]}})");
}

TEST_CASE("patch: a parent of the wrong type gets no op (the validator reports it)") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath failover = spec.child("failover");
  JsonArena arena;
  std::string text = R"({"spec":{"failover":"oops"}})";
  REQUIRE(arena.parse_in_place(text).ok);
  JsonPatch p;
  p.reset(&arena.document());
  p.set(failover.child("x"), std::int64_t{1});
  CHECK(p.empty());
}

TEST_CASE("patch: base64 per RFC 4648") {
  std::string out;
  kpw::append_base64(out, "");
  kpw::append_base64(out, "f");
  out += '|';
  kpw::append_base64(out, "fo");
  out += '|';
  kpw::append_base64(out, "foo");
  out += '|';
  kpw::append_base64(out, "foobar");
  CHECK(out == "Zg==|Zm8=|Zm9v|Zm9vYmFy");
  out = "kept:";
  kpw::append_base64(out, std::string_view("\xff\xfe\x00\x3e\x3f", 5));
  CHECK(out == "kept://4APj8=");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  out.clear();
  kpw::append_base64(out, all);
  CHECK(out.size() == 344);
  CHECK(out.substr(0, 8) == "AAECAwQF");
  CHECK(out.substr(336) == "/P3+/w==");
}

TEST_CASE("patch: remove what is there / nothing for what is absent") {
  const FieldPath spec = FieldPath::root("spec");
  std::string ops;
  auto out = patched(R"({"spec":{"a":1,"b":{"c":2},"d":null}})",
                     [&](JsonPatch& p) {
                       const FieldPath b = spec.child("b");
                       p.remove(b.child("c"));
                       p.remove(spec.child("d"));
                       p.remove(spec.child("absent"));
                       p.set(spec.child("e"), true);
                       p.remove(spec.child("e"));  // set then removed: no op at all
                       const FieldPath n = spec.child("new");
                       p.set(n.child("x"), true);
                       p.set(n.child("y"), true);
                       p.remove(n.child("x"));  // inside the value this patch adds
                     },
                     &ops);
  CHECK(out == R"({"spec":{"a":1,"b":{},"new":{"y":true}}})");
  CHECK(
      ops ==
      R"([{"op":"remove","path":"/spec/b/c"},{"op":"remove","path":"/spec/d"},{"op":"add","path":"/spec/new","value":{"y":true}}])");
}

namespace {

// `{"spec":{"items":[{},{},…]}}` with `n` empty elements.
std::string object_with_items(std::size_t n) {
  std::string text = R"({"spec":{"items":[)";
  for (std::size_t i = 0; i < n; ++i) text += i == 0 ? "{}" : ",{}";
  text += "]}}";
  return text;
}

// Where two (possibly huge) texts first differ, with a little context: Catch would print both.
std::string first_difference(const std::string& got, const std::string& want) {
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  if (i == got.size() && i == want.size()) return "";
  const std::size_t from = i < 40 ? 0 : i - 40;
  return "at byte " + std::to_string(i) + ": got `" + got.substr(from, 120) + "`, want `" +
         want.substr(from, 120) + "`";
}

}  // namespace

TEST_CASE("patch: 500 000 sets on distinct elements of a large array render every op in order") {
  // A builder that searches the ops collected so far takes minutes here (ctest's timeout fails
  // it); one that finds a pointer in time independent of the op count takes about a second.
  constexpr std::size_t kItems = 500'000;
  JsonArena arena;
  std::string text = object_with_items(kItems);
  REQUIRE(arena.parse_in_place(text).ok);
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath items = spec.child("items");
  JsonPatch patch(JsonPatch::kUnbounded);  // far past kMaxBytes on purpose
  patch.reset(&arena.document());
  for (std::size_t i = 0; i < kItems; ++i) {
    const FieldPath item = items.index(i);
    patch.set(item.child("x"), static_cast<std::int64_t>(i));
  }
  // The same targets again, across the whole patch: each op keeps its place and takes the value.
  for (std::size_t i = 0; i < kItems; i += 1000) {
    const FieldPath item = items.index(i);
    patch.set(item.child("x"), std::string_view("again"));
  }
  std::string rendered;
  patch.render(rendered);

  std::string want = "[";
  for (std::size_t i = 0; i < kItems; ++i) {
    if (i != 0) want += ',';
    want += R"({"op":"add","path":"/spec/items/)" + std::to_string(i) + R"(/x","value":)";
    want += i % 1000 == 0 ? std::string(R"("again")") : std::to_string(i);
    want += '}';
  }
  want += ']';
  CHECK(first_difference(rendered, want) == "");

  // The offline `check` command applies the same ops, strictly, as the API server does.
  kpw::JsonDocument copy;
  copy.CopyFrom(arena.document(), copy.GetAllocator());
  const auto problem = kpw::apply_json_patch(copy, rendered, copy.GetAllocator());
  INFO(problem.value_or(""));
  REQUIRE_FALSE(problem.has_value());
  const kpw::JsonValue& applied = kpw::test::array_at(copy, "/spec/items");
  REQUIRE(applied.Size() == kItems);
  std::size_t wrong = 0;
  for (rapidjson::SizeType i = 0; i < kItems; ++i) {
    const kpw::JsonValue* x = kpw::find_member(applied[i], "x");
    const bool ok =
        x != nullptr &&
        (i % 1000 == 0 ? x->IsString() : x->IsInt64() && x->GetInt64() == std::int64_t(i));
    wrong += ok ? 0 : 1;
  }
  CHECK(wrong == 0);
}

TEST_CASE("patch: setting one target again keeps one op and the later value wins") {
  const FieldPath spec = FieldPath::root("spec");
  std::string ops;
  auto out = patched(R"({"spec":{"a":1}})",
                     [&](JsonPatch& p) {
                       p.set(spec.child("a"), std::int64_t{2});
                       p.set(spec.child("b"), std::int64_t{3});
                       p.set(spec.child("a"), std::string_view("later"));
                       p.set(spec.child("b"), true);
                       p.set(spec.child("a"), std::int64_t{4});
                     },
                     &ops);
  CHECK(
      ops ==
      R"([{"op":"replace","path":"/spec/a","value":4},{"op":"add","path":"/spec/b","value":true}])");
  CHECK(out == R"({"spec":{"a":4,"b":true}})");
}

TEST_CASE("patch: a value set then removed leaves no op and setting it again adds it last") {
  const FieldPath spec = FieldPath::root("spec");
  JsonArena arena;
  std::string text = R"({"spec":{}})";
  REQUIRE(arena.parse_in_place(text).ok);
  JsonPatch p;
  p.reset(&arena.document());
  p.set(spec.child("a"), true);
  p.remove(spec.child("a"));
  CHECK(p.empty());
  std::string ops;
  p.render(ops);
  CHECK(ops == "[]");

  std::string again;
  patched(R"({"spec":{}})",
          [&](JsonPatch& q) {
            q.set(spec.child("a"), true);
            q.set(spec.child("b"), true);
            q.remove(spec.child("a"));
            q.remove(spec.child("a"));  // nothing left to drop
            q.set(spec.child("c"), true);
            q.set(spec.child("a"), std::int64_t{1});
          },
          &again);
  CHECK(
      again ==
      R"([{"op":"add","path":"/spec/b","value":true},{"op":"add","path":"/spec/c","value":true},{"op":"add","path":"/spec/a","value":1}])");
}

TEST_CASE("patch: removing a member present in the object renders one remove op") {
  const FieldPath spec = FieldPath::root("spec");
  std::string ops;
  auto out = patched(R"({"spec":{"a":1,"b":{"c":[1,2]},"d":"x"}})",
                     [&](JsonPatch& p) {
                       p.set(spec.child("d"), std::string_view("y"));
                       p.remove(spec.child("b"));
                       p.remove(spec.child("b"));
                       p.remove(spec.child("d"));  // a replace this patch made becomes the remove
                     },
                     &ops);
  CHECK(ops == R"([{"op":"remove","path":"/spec/d"},{"op":"remove","path":"/spec/b"}])");
  CHECK(out == R"({"spec":{"a":1}})");
}

TEST_CASE("patch: nested sets under a parent object the patch adds all go into its one add") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath fresh = spec.child("fresh");
  const FieldPath a = fresh.child("a");
  const FieldPath b = a.child("b");
  std::string ops;
  auto out = patched(R"({"spec":{"x":1}})",
                     [&](JsonPatch& p) {
                       p.set(b.child("c"), std::int64_t{1});
                       p.set(spec.child("x"), std::int64_t{2});
                       p.set(a.child("d"), std::string_view("d"));
                       p.set(fresh.child("e"), true);
                       p.set(b.child("c"),
                             std::int64_t{3});  // the later value wins inside the added value too
                       p.set(b.child("f"), std::int64_t{4});
                       p.remove(a.child("d"));
                     },
                     &ops);
  CHECK(
      ops ==
      R"([{"op":"add","path":"/spec/fresh","value":{"a":{"b":{"c":3,"f":4}},"e":true}},{"op":"replace","path":"/spec/x","value":2}])");
  CHECK(out == R"({"spec":{"x":2,"fresh":{"a":{"b":{"c":3,"f":4}},"e":true}}})");
}

TEST_CASE("patch: appends join the array the patch adds, or each add to an existing one") {
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath finalizers = metadata.child("finalizers");
  const FieldPath labels = metadata.child("labels");
  std::string ops;
  auto out = patched(R"({"metadata":{}})",
                     [&](JsonPatch& p) {
                       p.append(finalizers, "a");
                       p.set(labels.key("k"), std::string_view("v"));
                       p.append(finalizers, "b");
                       p.append(finalizers, "c");
                     },
                     &ops);
  CHECK(
      ops ==
      R"([{"op":"add","path":"/metadata/finalizers","value":["a","b","c"]},{"op":"add","path":"/metadata/labels","value":{"k":"v"}}])");
  CHECK(out == R"({"metadata":{"finalizers":["a","b","c"],"labels":{"k":"v"}}})");

  auto existing = patched(R"({"metadata":{"finalizers":["z"]}})", [&](JsonPatch& p) {
    p.append(finalizers, "a");
    p.append(finalizers, "b");
  });
  CHECK(existing == R"({"metadata":{"finalizers":["z","a","b"]}})");
}

TEST_CASE("patch: an added object overwritten by a scalar is no parent: a set below adds again") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath fresh = spec.child("fresh");
  std::string ops;
  patched(R"({"spec":{}})",
          [&](JsonPatch& p) {
            p.set(fresh.child("a"), std::int64_t{1});
            p.set(fresh, std::int64_t{2});
            p.set(fresh.child("b"), std::int64_t{3});
            p.set(fresh.child("c"), std::int64_t{4});
            p.set(fresh, std::int64_t{5});  // the first op at that pointer takes it
          },
          &ops);
  CHECK(
      ops ==
      R"([{"op":"add","path":"/spec/fresh","value":5},{"op":"add","path":"/spec/fresh","value":{"b":3,"c":4}}])");
}

TEST_CASE("patch: reset after a huge patch starts afresh and a small patch renders correctly") {
  constexpr std::size_t kItems = 200'000;
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath items = spec.child("items");
  JsonPatch patch;
  {
    JsonArena arena;
    std::string text = object_with_items(kItems);
    REQUIRE(arena.parse_in_place(text).ok);
    patch.reset(&arena.document());
    for (std::size_t i = 0; i < kItems; ++i) {
      const FieldPath item = items.index(i);
      patch.set(item.child("x"), std::int64_t{1});
    }
    CHECK(!patch.empty());
  }
  // Twice: the first small patch after the huge one, then one in the steady state.
  for (int round = 0; round < 2; ++round) {
    JsonArena arena;
    std::string text = R"({"spec":{"items":[{"x":0},{}]}})";
    REQUIRE(arena.parse_in_place(text).ok);
    patch.reset(&arena.document());
    CHECK(patch.empty());
    const FieldPath item0 = items.index(0);
    const FieldPath item1 = items.index(1);
    patch.set(item0.child("x"), std::int64_t{7});  // the huge patch added this pointer: not now
    patch.set(item1.child("x"), std::int64_t{8});
    patch.set(item0.child("x"), std::int64_t{9});
    std::string ops;
    patch.render(ops);
    CHECK(
        ops ==
        R"([{"op":"replace","path":"/spec/items/0/x","value":9},{"op":"add","path":"/spec/items/1/x","value":8}])");
  }
}

TEST_CASE("patch: pointer tokens escape every ~ and /, at either end and side by side") {
  std::string out;
  kpw::append_pointer_token(out, "");
  out += '|';
  kpw::append_pointer_token(out, "~/~");
  out += '|';
  kpw::append_pointer_token(out, "/a//b~");
  out += '|';
  kpw::append_pointer_token(out, "plain");
  CHECK(out == "|~0~1~0|~1a~1~1b~0|plain");
}

TEST_CASE("patch: sets into elements of an array beside 100 000 other fields take linear time") {
  // Each set walks the object as it arrived; looking `items` up again among the other fields
  // for every element made this quadratic (minutes), resuming from the last walk does not.
  constexpr std::size_t kWide = 100'000;
  std::string text = R"({"spec":{)";
  for (std::size_t i = 0; i < kWide; ++i) text += R"("u)" + std::to_string(i) + R"(":0,)";
  text += R"("items":[)";
  for (std::size_t i = 0; i < kWide; ++i) text += i == 0 ? "{}" : ",{\"y\":null}";
  text += "]}}";
  // RapidJSON's own parser: ours compares keys to refuse repeats, which is not under test here.
  kpw::JsonDocument doc;
  REQUIRE(!doc.Parse(text.c_str()).HasParseError());
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath items = spec.child("items");
  JsonPatch patch(JsonPatch::kUnbounded);  // far past kMaxBytes on purpose
  patch.reset(&doc);
  for (std::size_t i = 0; i < kWide; ++i) {
    const FieldPath item = items.index(i);
    patch.set(item.child("x"), std::int64_t{1});
    patch.set(item.child("y"), std::int64_t{2});
  }
  std::string rendered;
  patch.render(rendered);
  std::string want = "[";
  for (std::size_t i = 0; i < kWide; ++i) {
    const std::string at = R"(","path":"/spec/items/)" + std::to_string(i);
    if (i != 0) want += ',';
    want += R"({"op":"add)" + at + R"(/x","value":1},{"op":")";
    want += i == 0 ? "add" : "replace";
    want += at + R"(/y","value":2})";
  }
  want += ']';
  CHECK(first_difference(rendered, want) == "");
}

TEST_CASE("patch: a walk resumed from the last one still sees null, absent and mistyped values") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath a = spec.child("a");
  const FieldPath arr = spec.child("arr");
  const FieldPath arr0 = arr.index(0);
  const FieldPath n = spec.child("n");
  std::string ops;
  patched(R"({"spec":{"a":{"b":1},"arr":[{"c":1}],"n":null,"o":{"0":{}}}})",
          [&](JsonPatch& p) {
            p.set(a.child("b"), std::int64_t{2});
            p.set(a.child("c"), std::int64_t{3});  // beside the last target
            const FieldPath a_b = a.child("b");
            p.set(a_b.child("d"), std::int64_t{4});  // below a number: nothing
            p.set(arr0.child("c"), std::int64_t{5});
            const FieldPath o = spec.child("o");
            const FieldPath o0 = o.key("0");
            const FieldPath arr_named0 = arr.key("0");
            p.set(o0.child("e"), std::int64_t{6});
            p.set(arr_named0.child("e"), std::int64_t{7});  // a name does not walk an array
            p.remove(n.child("x"));                         // nothing below null to remove
            p.set(n.child("x"), std::int64_t{8});           // the null is replaced
          },
          &ops);
  CHECK(
      ops ==
      R"([{"op":"replace","path":"/spec/a/b","value":2},{"op":"add","path":"/spec/a/c","value":3},{"op":"replace","path":"/spec/arr/0/c","value":5},{"op":"add","path":"/spec/o/0/e","value":6},{"op":"replace","path":"/spec/n","value":{"x":8}}])");
}

TEST_CASE("patch: pointer tokens escape ~ and / at every position of a long token") {
  // The reference: one byte at a time, after an "x" already in the output.
  auto escaped = [](const std::string& token) {
    std::string out = "x";
    for (char c : token) {
      if (c == '~') {
        out.append("~0");
      } else if (c == '/') {
        out.append("~1");
      } else {
        out.push_back(c);
      }
    }
    return out;
  };
  for (std::size_t size = 0; size <= 24; ++size) {
    for (std::size_t at = 0; at < size; ++at) {
      for (char special : {'~', '/'}) {
        std::string token(size, 'a');
        token[at] = special;
        if (at + 9 < size) token[at + 9] = special == '~' ? '/' : '~';  // a second, a word later
        // A byte next to an escaped one in value ('\x7f' after '~', '0' after '/') stays as is.
        if (at > 0) token[at - 1] = special == '~' ? '\x7f' : '0';
        std::string out = "x";
        kpw::append_pointer_token(out, token);
        INFO("size " << size << " at " << at << " " << special);
        CHECK(out == escaped(token));
      }
    }
  }
}

TEST_CASE("patch: a patch finds what it holds alike whether it scans its few ops or indexes them") {
  // The same random calls on two patches, one started with a dozen sets elsewhere (so it indexes
  // its ops from the first call on), the other not (so it scans its ops until it holds nine): past
  // those first ops, both must render the same.
  const std::string object =
      R"({"spec":{"pad":[{},{},{},{},{},{},{},{},{},{},{},{}],"a":{"b":1,"n":null},"n":null,)"
      R"("arr":["x"],"o":{"0":{"k":"v"}}}})";
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath pad = spec.child("pad");
  const FieldPath a = spec.child("a");
  const FieldPath ab = a.child("b");
  const FieldPath an = a.child("n");
  const FieldPath n = spec.child("n");
  const FieldPath fresh = spec.child("fresh");
  const FieldPath fresh_x = fresh.child("x");
  const FieldPath arr = spec.child("arr");
  const FieldPath o = spec.child("o");
  const FieldPath o0 = o.key("0");
  const FieldPath status = FieldPath::root("status");  // absent: added whole
  const FieldPath* const parents[] = {&spec, &a, &ab, &an,      &n,     &fresh,
                                      &arr,  &o, &o0, &fresh_x, &status};
  const std::string_view names[] = {"b", "c", "k", "x", "0"};
  constexpr int kPadOps = 12;

  JsonArena arena;
  std::string text = object;
  REQUIRE(arena.parse_in_place(text).ok);
  JsonPatch scanned;
  JsonPatch indexed;
  std::mt19937 random(20261123);
  int compared_ops = 0;
  for (int run = 0; run < 3000; ++run) {
    scanned.reset(&arena.document());
    indexed.reset(&arena.document());
    for (int i = 0; i < kPadOps; ++i) {
      const FieldPath item = pad.index(static_cast<std::size_t>(i));
      indexed.set(item.child("p"), true);
    }
    const int calls = 1 + static_cast<int>(random() % 24);
    for (int c = 0; c < calls; ++c) {
      const FieldPath& parent = *parents[random() % std::size(parents)];
      const FieldPath child = parent.child(names[random() % std::size(names)]);
      const FieldPath& at = random() % 4 == 0 ? parent : child;
      const auto call = random() % 6;
      for (JsonPatch* p : {&scanned, &indexed}) {
        if (call == 0) {
          p->remove(at);
        } else if (call == 1) {
          p->append(at, "v");
        } else if (call == 2) {
          p->set(at, std::int64_t{c});
        } else {
          p->set(at, std::string_view("s"));
        }
      }
    }
    std::string want;
    scanned.render(want);
    std::string got;
    indexed.render(got);
    rapidjson::Document doc;
    doc.Parse(got.c_str());
    REQUIRE(doc.IsArray());
    REQUIRE(doc.Size() >= kPadOps);
    doc.Erase(doc.Begin(), doc.Begin() + kPadOps);  // the dozen sets elsewhere
    compared_ops += static_cast<int>(doc.Size());
    INFO("run " << run << ": " << want);
    REQUIRE(to_text(doc) == want);
    CHECK(scanned.empty() == (want == "[]"));
  }
  CHECK(compared_ops > 10'000);
}

TEST_CASE("patch: past kMaxBytes a patch stops growing and says it is too large") {
  kpw::JsonArena arena;
  std::string text = R"({"items":[)";
  for (int i = 0; i < 100000; ++i) text += i == 0 ? "{}" : ",{}";
  text += "]}";
  REQUIRE(arena.parse_in_place(text).ok);
  const FieldPath items = FieldPath::root("items");
  JsonPatch patch;
  patch.reset(&arena.document());
  for (std::size_t i = 0; i < 100000; ++i) {
    const FieldPath item = items.index(i);
    patch.set(item.child("spreadByField"), std::string_view("cluster"));
  }
  CHECK(patch.too_large());
  CHECK(patch.size() < 100000);
  CHECK(patch.size() > 40000);
  // A new patch starts within bounds again.
  patch.reset(&arena.document());
  const FieldPath first = items.index(0);
  patch.set(first.child("minGroups"), std::int64_t{1});
  CHECK_FALSE(patch.too_large());
  std::string rendered;
  patch.render(rendered);
  CHECK(rendered == R"([{"op":"add","path":"/items/0/minGroups","value":1}])");
}

// A member removed and then set again is replaced (it used to render the remove).
TEST_CASE("patch: set after remove replaces the member") {
  const FieldPath spec = FieldPath::root("spec");
  std::string ops;
  auto out = patched(R"({"spec":{"preemption":"","names":["a"]}})",
                     [&](JsonPatch& p) {
                       p.remove(spec.child("preemption"));
                       p.set(spec.child("preemption"), std::string_view("Never"));
                       p.remove(spec.child("names"));
                       p.append(spec.child("names"), "b");
                     },
                     &ops);
  CHECK(out == R"({"spec":{"preemption":"Never","names":["b"]}})");
  CHECK(
      ops ==
      R"([{"op":"replace","path":"/spec/preemption","value":"Never"},{"op":"replace","path":"/spec/names","value":["b"]}])");
}
