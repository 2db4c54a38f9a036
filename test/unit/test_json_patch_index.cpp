// The JSON Patch builder at scale: its op index, resumed walks, linear cost, the kMaxBytes bound.
#include <catch2/catch.hpp>
#include <iterator>
#include <random>
#include <string>

#include "admission/json_patch.hpp"
#include "json/json_patch_apply.hpp"
#include "json_access.hpp"
#include "json_patch_support.hpp"

using kpw::FieldPath;
using kpw::JsonArena;
using kpw::JsonPatch;
using kpw::test::patched;
using kpw::test::text_of;

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
    REQUIRE(text_of(doc) == want);
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
