// The JSON Patch builder's ops: add, replace, remove, append, one op per target; escaping, base64.
// Each patch applies to the object as it arrived (RFC 6902).
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "admission/json_patch.hpp"
#include "json/json_pointer.hpp"
#include "json_patch_support.hpp"
#include "util/base64.hpp"

using kpw::FieldPath;
using kpw::JsonArena;
using kpw::JsonPatch;
using kpw::test::patched;

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

TEST_CASE("patch: an empty object below a null array element replaces the element") {
  const FieldPath spec = FieldPath::root("spec");
  const FieldPath rules = spec.child("overrideRules");
  const FieldPath first = rules.index(0);
  const FieldPath second = rules.index(1);
  std::string ops;
  auto out = patched(R"({"spec":{"overrideRules":[{"overriders":{"a":1}},null]}})",
                     [&](JsonPatch& p) {
                       p.set_empty_object(second.child("overriders"));
                       p.set_empty_object(first.child("extra"));
                     },
                     &ops);
  CHECK(
      ops ==
      R"([{"op":"replace","path":"/spec/overrideRules/1","value":{"overriders":{}}},{"op":"add","path":"/spec/overrideRules/0/extra","value":{}}])");
  CHECK(out ==
        R"({"spec":{"overrideRules":[{"overriders":{"a":1},"extra":{}},{"overriders":{}}]}})");
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

// Our encoder against OpenSSL's, on every length up to 1000 and every byte value.
TEST_CASE("patch: base64 as OpenSSL's EVP_EncodeBlock writes it") {
  std::string bytes;
  std::uint32_t x = 12345;
  for (std::size_t n = 0; n <= 1000; ++n) {
    std::string ours = "prefix";
    kpw::append_base64(ours, bytes);
    std::string theirs(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(theirs.data()),
                                    reinterpret_cast<const unsigned char*>(bytes.data()),
                                    static_cast<int>(bytes.size()));
    theirs.resize(static_cast<std::size_t>(len));
    REQUIRE(ours == "prefix" + theirs);
    x = x * 1664525u + 1013904223u;
    bytes += static_cast<char>(n < 256 ? n : x >> 24);
  }
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

TEST_CASE("patch: set_null adds or replaces with null") {
  const FieldPath data = FieldPath::root("data");
  const FieldPath other = FieldPath::root("other");
  std::string ops;
  auto out = patched(R"({"data":{"token":"eA=="}})",
                     [&](JsonPatch& p) {
                       p.set_null(data);
                       p.set_null(other);
                     },
                     &ops);
  CHECK(
      ops ==
      R"([{"op":"replace","path":"/data","value":null},{"op":"add","path":"/other","value":null}])");
  CHECK(out == R"({"data":null,"other":null})");
}

TEST_CASE("patch: set of a whole value copies it, and later sets below write into the copy") {
  const FieldPath metadata = FieldPath::root("metadata");
  const FieldPath labels = metadata.child("labels");
  std::string ops;
  std::string out;
  {
    kpw::JsonDocument value;
    value.Parse(R"({"a":"","b":"x","n":[1,{"c":null}]})");
    out = patched(R"({"metadata":{"labels":{"a":null,"b":"x"}}})",
                  [&](JsonPatch& p) {
                    p.set(labels, value);
                    p.set(labels.key("id"), std::string_view("v"));
                  },
                  &ops);
  }
  CHECK(
      ops ==
      R"([{"op":"replace","path":"/metadata/labels","value":{"a":"","b":"x","n":[1,{"c":null}],"id":"v"}}])");
  CHECK(out == R"({"metadata":{"labels":{"a":"","b":"x","n":[1,{"c":null}],"id":"v"}}})");
}

TEST_CASE("patch: a whole value counts towards the size bound") {
  const FieldPath a = FieldPath::root("a");
  kpw::JsonDocument value;
  value.SetObject();
  const std::string big(2000, 'x');
  value.AddMember("k", kpw::JsonValue(big.c_str(), value.GetAllocator()), value.GetAllocator());
  JsonArena arena;
  std::string text = "{}";
  REQUIRE(arena.parse_in_place(text).ok);
  JsonPatch patch(1000);
  patch.reset(&arena.document());
  patch.set(a, value);
  CHECK(patch.too_large());
}
