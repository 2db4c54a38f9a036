// Reading policy files for `check`: YAML scalars typed as Kubernetes reads them, positions, and
// the nearest-parent lookup for absent fields.
#include <malloc.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "admission/field_error.hpp"
#include "check/source.hpp"
#include "check/yaml_scalar.hpp"
#include "json_access.hpp"

using kpw::check::load;
using kpw::check::LoadedFile;
using kpw::test::array_at;
using kpw::test::double_at;
using kpw::test::int_at;
using kpw::test::object_at;
using kpw::test::string_at;
using kpw::test::value_at;

namespace {

// Bytes of heap in use (glibc's count; 0 under the sanitizers, whose allocator it does not see).
std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

struct Cost {
  double seconds;
  std::size_t bytes;  // of heap the loaded file holds
};

// Loads `text` into `file`: how long it took and how much memory the result holds. The hostile
// inputs below took minutes or held GBs while a step of loading was super-linear; linear, they
// take well under a second (a few under the sanitizers) and hold a few dozen bytes per byte read,
// so the bounds below fail only when a step is super-linear again.
Cost load_measured(const std::string& text, LoadedFile& file) {
  file = LoadedFile{};
  const std::size_t before = heap_in_use();
  const auto start = std::chrono::steady_clock::now();
  file = load(text);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t after = heap_in_use();
  return Cost{seconds, after > before ? after - before : 0};
}

constexpr double kLinearSeconds = 30;
constexpr std::size_t kLinearBytesPerByte = 100;

std::string member_name(const kpw::JsonValue& obj, rapidjson::SizeType i) {
  return std::string((obj.MemberBegin() + i)->name.GetString());
}

}  // namespace

TEST_CASE("check: plain scalars follow YAML 1.1 and quoted ones stay strings") {
  const auto file =
      load("a: yes\nb: 'yes'\nc: 42\nd: 1.5\ne: ~\nf: 0x1F\ng: \"7\"\nh: off\ni: text\nj:\n");
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(value_at(o, "/a").IsTrue());
  CHECK(string_at(o, "/b") == "yes");
  CHECK(int_at(o, "/c") == 42);
  CHECK(double_at(o, "/d") == 1.5);
  CHECK(value_at(o, "/e").IsNull());
  CHECK(int_at(o, "/f") == 31);
  CHECK(string_at(o, "/g") == "7");
  CHECK(value_at(o, "/h").IsFalse());
  CHECK(string_at(o, "/i") == "text");
  CHECK(value_at(o, "/j").IsNull());
  CHECK(kpw::check::plain_scalar_is_string("text"));
  CHECK_FALSE(kpw::check::plain_scalar_is_string("on"));
  CHECK_FALSE(kpw::check::plain_scalar_is_string("12"));
}

TEST_CASE("check: a map or list as a key is dropped with its value, a key written \"?\" is kept") {
  const auto file = load("? [a, b]\n: dropped\n\"?\": kept\nc: 1\n");
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(o.MemberCount() == 2);
  CHECK(string_at(o, "/?") == "kept");
  CHECK(int_at(o, "/c") == 1);
}

TEST_CASE("check: positions of keys and items and the nearest parent of an absent field") {
  const auto file = load("spec:\n  list:\n    - name: a\n    - name: b\n");
  REQUIRE(file.objects.size() == 1);
  const auto& obj = file.objects[0];
  CHECK(obj.locate("spec.list[1].name").line == 4);
  CHECK(obj.locate("spec.list[1].name").column == 7);
  CHECK(obj.locate("spec.list[1]").column == 7);
  CHECK(obj.locate("spec.list[1].missing").line == 4);  // nearest parent: the item
  CHECK(obj.locate("spec.other").line == 1);            // nearest parent: spec
  CHECK(obj.locate("metadata.labels[a/b]").line == 1);  // nothing: the object's start
}

TEST_CASE("check: documents, lists and syntax errors") {
  const auto multi =
      load("a: 1\n---\n---\nkind: List\napiVersion: v1\nitems:\n  - {b: 2}\n  - {c: 3}\n");
  REQUIRE(multi.syntax_errors.empty());
  REQUIRE(multi.objects.size() == 3);
  CHECK(multi.objects[1].document == 2);
  CHECK(multi.objects[2].start.line == 8);
  const auto broken = load("a: [1,\nb: 2\n");
  REQUIRE(broken.syntax_errors.size() == 1);
  CHECK(broken.syntax_errors[0].position.line >= 1);
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "[";
  for (int i = 0; i < 200; ++i) deep += "]";
  CHECK_FALSE(load(deep).syntax_errors.empty());  // nesting is bounded
}

TEST_CASE(
    "check: a map of 300 000 keys is read in linear time, a repeated key replacing the first") {
  std::string text;
  for (int i = 0; i < 300'000; ++i) text.append("k").append(std::to_string(i)).append(": 1\n");
  text += "k7: last\n";
  LoadedFile file;
  const Cost cost = load_measured(text, file);
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(o.MemberCount() == 300'000);
  CHECK(string_at(o, "/k7") == "last");
  CHECK(member_name(o, 7) == "k7");  // in the place of the first
  CHECK(cost.seconds < kLinearSeconds);
  CHECK(cost.bytes < kLinearBytesPerByte * text.size());
}

TEST_CASE("check: a merge key of 100 000 members into a map of 100 000 is read in linear time") {
  std::string text = "base: &b {";
  for (int i = 0; i < 100'000; ++i) text.append("m").append(std::to_string(i)).append(": 1, ");
  text += "k5: merged}\nobj:\n";
  for (int i = 0; i < 100'000; ++i) text.append("  k").append(std::to_string(i)).append(": 2\n");
  text += "  <<: *b\n  m9: own\n";
  LoadedFile file;
  const Cost cost = load_measured(text, file);
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& obj = object_at(*file.objects[0].json, "/obj");
  CHECK(obj.MemberCount() == 200'000);
  CHECK(int_at(obj, "/k5") == 2);  // the map's own key wins over the merged one
  CHECK(string_at(obj, "/m9") == "own");
  CHECK(int_at(obj, "/m99999") == 1);
  CHECK(cost.seconds < kLinearSeconds);
  CHECK(cost.bytes < kLinearBytesPerByte * text.size());
}

TEST_CASE("check: a key longer than 256 bytes is found by its path as FieldPath renders it") {
  const std::string label(300, 'x');
  const auto file = load("metadata:\n  labels:\n    " + label + ": v\n    short: w\n");
  REQUIRE(file.objects.size() == 1);
  const auto& obj = file.objects[0];
  const auto metadata = kpw::FieldPath::root("metadata");
  const auto labels = metadata.child("labels");
  const auto long_label = labels.key(label);  // `metadata.labels[xxx... (300 bytes)]`
  REQUIRE(long_label.str().size() < label.size());
  CHECK(obj.locate(long_label.str()).line == 3);
  CHECK(obj.locate(long_label.str()).column == 5);
  const auto as_field = labels.child(label);  // `metadata.labels.xxx... (300 bytes)`
  CHECK(obj.locate(as_field.str()).line == 3);
  const std::string absent(300, 'y');  // (a FieldPath keeps a view of its key)
  const auto other = labels.key(absent);
  CHECK(obj.locate(other.str()).line == 2);  // absent: its parent
}

TEST_CASE("check: a 1 MB key with 2000 children keeps no path per child (linear memory)") {
  const std::string key(1'000'000, 'k');
  std::string text = "? " + key + "\n:\n";
  for (int i = 0; i < 2000; ++i) text.append("  c").append(std::to_string(i)).append(": 1\n");
  LoadedFile file;
  const Cost cost = load_measured(text, file);  // 4 GB of paths, before
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& obj = file.objects[0];
  const auto root = kpw::FieldPath::root(key);
  const auto last = root.child("c1999");
  CHECK(obj.locate(last.str()).line == 2002);
  CHECK(obj.locate(last.str()).column == 3);
  CHECK(obj.locate(root.str()).line == 1);
  CHECK(cost.seconds < kLinearSeconds);
  CHECK(cost.bytes < kLinearBytesPerByte * text.size());
}

TEST_CASE("check: 40 000 items under 127 keys of 256 bytes keep no path per item (linear memory)") {
  std::string text;
  std::vector<std::string> keys;
  for (int d = 0; d < 127; ++d) {
    std::string key;
    for (int i = 0; i < 64; ++i) {
      key.append(d < 10 ? "k00" : d < 100 ? "k0" : "k").append(std::to_string(d));
    }
    keys.push_back(key);
    text.append(static_cast<std::size_t>(d), ' ').append(key).append(":\n");
  }
  text.append(127, ' ').append("[");
  for (int i = 0; i < 40'000; ++i) text.append(i == 0 ? "1" : ",1");
  text.append("]\n");
  LoadedFile file;
  const Cost cost = load_measured(text, file);  // 1.3 GB of paths, before
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  std::string field;
  for (const std::string& key : keys) field.append(field.empty() ? "" : ".").append(key);
  CHECK(file.objects[0].locate(field + "[39999]").line == 128);
  CHECK(file.objects[0].locate(field + "[40000]").line == 127);  // absent: its parent's key
  CHECK(cost.seconds < kLinearSeconds);
  CHECK(cost.bytes < kLinearBytesPerByte * text.size());
}

TEST_CASE("check: a kind: List of 20 000 items gets each item's positions in one pass") {
  std::string text = "apiVersion: v1\nkind: List\nitems:\n";
  for (int i = 0; i < 20'000; ++i) {
    text.append("  - metadata: {name: p").append(std::to_string(i)).append("}\n");
    text.append(
        "    spec: {placement: {clusterAffinities: [{affinityName: a}, {affinityName: b}]}}\n");
  }
  LoadedFile file;
  const Cost cost = load_measured(text, file);  // minutes, before: O(items × positions)
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 20'000);
  const auto& last = file.objects.back();
  CHECK(last.start.line == 2 * 19'999 + 4);
  CHECK(last.start.column == 5);
  CHECK(last.locate("metadata.name").line == 2 * 19'999 + 4);
  CHECK(last.locate("metadata.name").column == 16);
  CHECK(last.locate("spec.placement.clusterAffinities[1].affinityName").line == 2 * 19'999 + 5);
  CHECK(last.locate("spec.placement.clusterAffinities[1].affinityName").column == 64);
  CHECK(last.locate("items[19999].metadata").line == last.start.line);  // not the list's path
  CHECK(cost.seconds < kLinearSeconds);
}

TEST_CASE("check: locating a field costs O(its size) however many parents are tried") {
  std::string text = "a: 1\n";
  for (int i = 0; i < 100; ++i) text.append("k").append(std::to_string(i)).append(": 1\n");
  const auto file = load(text);
  REQUIRE(file.objects.size() == 1);
  std::string field = "a";
  for (int i = 0; i < 600'000; ++i) field.append(i % 2 == 0 ? ".b" : "[c]");
  const auto start = std::chrono::steady_clock::now();
  const auto at = file.objects[0].locate(field);  // 600 000 parents tried, the last one `a`
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(at.line == 1);
  CHECK(at.column == 1);
  CHECK(seconds < kLinearSeconds);
}

TEST_CASE("check: 100 000 small objects, in a List or as documents, hold memory in proportion") {
  std::string list = "kind: List\nitems:\n";
  std::string documents;
  for (int i = 0; i < 100'000; ++i) {
    list += "- {a: 1}\n";
    documents += "a: 1\n---\n";
  }
  for (const std::string* text : {&list, &documents}) {
    LoadedFile file;
    const Cost cost = load_measured(*text, file);
    REQUIRE(file.objects.size() == 100'000);
    CHECK(file.objects.back().json->HasMember("a"));
    CHECK(file.objects.back().locate("a").line > 100'000);
    CHECK(cost.seconds < kLinearSeconds);
    // About 1 KiB an object (RapidJSON gives an object room for 16 members); a pool of 64 KiB
    // each, before.
    CHECK(cost.bytes < 2048 * file.objects.size());
  }
}

TEST_CASE("check: an alias is the anchored value as written, wherever that value went since") {
  // Small anchored values are copied; larger ones are found where they are: both ways here.
  for (const bool large : {false, true}) {
    const std::string more = large ? ", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14" : "";
    const std::string pad = large ? ", pad: [" + more.substr(2) + "]" : "";
    std::string text;
    text.append("base: &b {a: 1, b: [1, 2]").append(pad).append("}\n");
    text.append("copy: *b\n");
    text.append("list: [&i {a: 1").append(pad).append("}, *i]\n");  // in a list still open
    text.append("dup: &d {v: 1").append(pad).append("}\n");  // then replaced by a repeated key:
    text.append("dup: 2\n");
    text.append("fromdup: *d\n");
    text.append("? [&k {v: 1").append(pad).append("}]\n");  // inside a key JSON cannot hold
    text.append(": 1\n");
    text.append("fromkey: *k\n");
    text.append("? [x]\n");
    text.append(": &kv {a: 1").append(pad).append("}\n");  // on such a key's value
    text.append("fromkeyvalue: *kv\n");
    text.append("merged:\n");
    text.append("  <<: &m {a: 1").append(pad).append("}\n");  // on a merged map
    text.append("  b: 2\n");
    text.append("frommerge: *m\n");
    text.append("outer: &o {i: &n [1, 2").append(more).append("], j: *n}\n");  // in an anchored map
    text.append("fromouter: *o\n");
    text.append("name: &name key\n");
    text.append("*name : aliased key\n");
    const auto file = load(text);
    REQUIRE(file.syntax_errors.empty());
    REQUIRE(file.objects.size() == 1);
    const auto& o = *file.objects[0].json;
    CHECK(value_at(o, "/copy") == value_at(o, "/base"));
    CHECK(value_at(o, "/list/1") == value_at(o, "/list/0"));
    CHECK(int_at(o, "/dup") == 2);
    CHECK(int_at(o, "/fromdup/v") == 1);
    CHECK(int_at(o, "/fromkey/v") == 1);
    CHECK(int_at(o, "/fromkeyvalue/a") == 1);
    CHECK(object_at(o, "/merged").MemberCount() == (large ? 3 : 2));
    CHECK(int_at(o, "/frommerge/a") == 1);
    CHECK(value_at(o, "/fromouter") == value_at(o, "/outer"));
    CHECK(value_at(o, "/fromouter/j") == value_at(o, "/outer/i"));
    CHECK(string_at(o, "/key") == "aliased key");
  }
}

TEST_CASE("check: an alias as a key reads as its anchored scalar written there, as kubectl reads") {
  // sigs.k8s.io/yaml (kubectl's YAML to JSON) turns every key into a string: `1` is "1", `true`
  // is "true". An alias as a key is the anchored scalar's text, as if written in its place.
  const auto file = load(
      "a: &a 1\nb: &b true\nc: &c 0x1F\nd: &d ~\ne: &e text\nf: &f '2'\n"
      "*a : one\n*b : two\n*c : three\n*d : four\n*e : five\n*f : six\n");
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(o.MemberCount() == 12);
  CHECK(string_at(o, "/1") == "one");
  CHECK(string_at(o, "/true") == "two");
  CHECK(string_at(o, "/0x1F") == "three");  // as the key `0x1F: three` reads
  CHECK(string_at(o, "/null") == "four");   // as the key `~: four` reads
  CHECK(string_at(o, "/text") == "five");
  CHECK(string_at(o, "/2") == "six");
  CHECK(int_at(o, "/a") == 1);  // the anchored values themselves are unchanged
  CHECK(value_at(o, "/b").IsTrue());
}

TEST_CASE("check: an anchor on a key is found by its aliases, as a key and as a value") {
  const auto file = load(
      "&k name: x\nother: *k\nlist: [*k]\nnested:\n  *k : w\n&n 1: z\nnum: *n\n"
      "? &m [a]\n: dropped\nfromkey: *m\n");
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(string_at(o, "/name") == "x");
  CHECK(string_at(o, "/other") == "name");
  CHECK(string_at(o, "/list/0") == "name");
  CHECK(string_at(o, "/nested/name") == "w");
  CHECK(string_at(o, "/1") == "z");
  CHECK(int_at(o, "/num") == 1);               // the anchored node as a value: the plain scalar 1
  CHECK(array_at(o, "/fromkey").Size() == 1);  // a list as a key is dropped, its anchor kept
  CHECK(string_at(o, "/fromkey/0") == "a");
  CHECK(o.MemberCount() == 7);
}

TEST_CASE("check: an alias of a map as a key is dropped with its value; a key spelled ? is kept") {
  const auto file = load("m: &m {x: 1}\n*m : dropped\n\"?\": 1\n? '?x'\n: 2\n? plain\n: 3\n");
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& o = *file.objects[0].json;
  CHECK(o.MemberCount() == 4);  // as the map written as a key, `? {x: 1}`, is
  CHECK(int_at(o, "/m/x") == 1);
  CHECK(int_at(o, "/?") == 1);
  CHECK(int_at(o, "/?x") == 2);
  CHECK(int_at(o, "/plain") == 3);
}

TEST_CASE("check: aliases may not expand a file beyond a million values") {
  std::string text = "a: &a [";
  for (int i = 0; i < 999; ++i) text += "1, ";
  text += "1]\nb: [";  // 1001 values
  for (int i = 0; i < 1000; ++i) text += "*a, ";
  text += "*a]\n";
  const auto file = load(text);
  REQUIRE(file.syntax_errors.size() == 1);
  CHECK(file.syntax_errors[0].message == "aliases expand to more than 1000000 values");
}

TEST_CASE("check: 127 nested anchors around 200 000 items are not copied 127 times") {
  std::string text;
  for (int d = 0; d < 127; ++d) {
    text.append(static_cast<std::size_t>(d), ' ').append("a: &a").append(std::to_string(d));
    text += "\n";
  }
  text.append(127, ' ').append("[");
  for (int i = 0; i < 200'000; ++i) text.append(i == 0 ? "1" : ",1");
  text.append("]\nb: *a0\n");
  LoadedFile file;
  const Cost cost = load_measured(text, file);  // 127 copies of the list, before: 400 MB
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  CHECK(cost.seconds < kLinearSeconds);
  CHECK(cost.bytes < kLinearBytesPerByte * text.size());
}

// Issue 42: a stream is read document by document, so that one that does not parse is one error
// at its own line and the others are still read (yaml-cpp fails a whole stream at its first error).
TEST_CASE(
    "check: a document that does not parse is one syntax error; the stream's others are read") {
  const std::string text =
      "a: 1\n"                 // 1
      "---\n"                  // 2
      "metadata:\n"            // 3
      "  name: x\n"            // 4
      "    namespace: y\n"     // 5: bad indentation
      "---\n"                  // 6
      "spec: {placement: 1\n"  // 7: an unclosed flow mapping
      "---\n"                  // 8
      "data: |\n"              // 9: a block scalar, whose indented markers are text
      "  ---\n"                // 10
      "  ...\n"                // 11
      "...\n"                  // 12: the end of a document
      "g:\n"                   // 13
      "  h: 1\n";              // 14
  const auto file = load(text);
  REQUIRE(file.syntax_errors.size() == 2);
  CHECK(file.syntax_errors[0].position.line == 5);
  // At the end of its own last line, not at the next document's `---` (yaml-cpp's end of input).
  CHECK(file.syntax_errors[1].position.line == 7);
  CHECK(file.syntax_errors[1].position.column == 20);
  REQUIRE(file.objects.size() == 3);
  CHECK(file.objects[0].document == 0);
  CHECK(file.objects[1].document == 3);
  CHECK(file.objects[2].document == 4);
  CHECK(string_at(*file.objects[1].json, "/data") == "---\n...\n");
  CHECK(file.objects[1].locate("data").line == 9);
  CHECK(file.objects[2].locate("g.h").line == 14);  // the file's lines, not the document's
  CHECK(file.objects[2].locate("g.h").column == 3);
  CHECK(file.objects[2].start.line == 13);
  // Lines ending in CR LF, and a broken last document: its error where yaml-cpp puts it.
  const auto crlf = load("a: 1\r\n---\r\nb: 2\r\n---\r\nc: [1,\r\n");
  REQUIRE(crlf.objects.size() == 2);
  CHECK(crlf.objects[1].locate("b").line == 3);
  REQUIRE(crlf.syntax_errors.size() == 1);
  CHECK(crlf.syntax_errors[0].position.line >= 5);
  // A directive (and a comment) stays with the document its `---` starts.
  const auto tagged = load("# tags\n%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n---\nb: [\n");
  REQUIRE(tagged.objects.size() == 1);
  CHECK(tagged.objects[0].locate("a").line == 4);
  REQUIRE(tagged.syntax_errors.size() == 1);
  CHECK(tagged.syntax_errors[0].position.line >= 6);
}

TEST_CASE("check: 100 000 documents, every other one broken, are read in linear time", "[linear]") {
  std::string text;
  for (int i = 0; i < 50'000; ++i) text += "a: 1\n---\nb: [1,\n---\n";
  LoadedFile file;
  const Cost cost = load_measured(text, file);
  CHECK(file.objects.size() == 50'000);
  CHECK(file.syntax_errors.size() == 50'000);
  CHECK(file.syntax_errors.back().position.line == 4 * 49'999 + 3);
  CHECK(file.objects.back().locate("a").line == 4 * 49'999 + 1);
  CHECK(cost.seconds < kLinearSeconds);
  CHECK(cost.bytes < kLinearBytesPerByte * text.size());
}

// Issue 42: the server's JSON reader refuses a body with a duplicate key (json.cpp); YAML readers
// keep the last value. The loader keeps it too, and records where the key was written again.
TEST_CASE(
    "check: a key written twice is recorded at its second place with its path; a merge is not") {
  const auto file = load(
      "metadata:\n"           // 1
      "  labels:\n"           // 2
      "    app: a\n"          // 3
      "    app: b\n"          // 4
      "spec:\n"               // 5
      "  list:\n"             // 6
      "    - {x: 1, x: 2}\n"  // 7
      "base: &b {m: 1}\n"     // 8
      "merged:\n"             // 9
      "  <<: *b\n"            // 10
      "  m: 2\n"              // 11: its own key over a merged one
      "? [k]\n"               // 12: inside a key JSON cannot hold, dropped with it
      ": {y: 1, y: 2}\n");    // 13
  REQUIRE(file.syntax_errors.empty());
  REQUIRE(file.objects.size() == 1);
  const auto& o = file.objects[0];
  CHECK(string_at(*o.json, "/metadata/labels/app") == "b");  // the last value, as before
  CHECK(int_at(*o.json, "/merged/m") == 2);
  REQUIRE(o.duplicate_keys.size() == 2);
  CHECK(o.duplicate_keys[0].field == "metadata.labels.app");
  CHECK(o.duplicate_keys[0].key == "\"app\"");
  CHECK(o.duplicate_keys[0].at.line == 4);
  CHECK(o.duplicate_keys[0].at.column == 5);
  CHECK(o.duplicate_keys[1].field == "spec.list[0].x");
  CHECK(o.duplicate_keys[1].at.line == 7);
  CHECK(o.duplicate_keys[1].at.column == 14);
  CHECK(o.duplicate_keys_omitted == 0);
  // JSON, read by the same parser; a List's items each have their own, the List's are the file's.
  const auto json = load("{\"spec\": {\"a\": 1,\n \"a\": 2}}\n");
  REQUIRE(json.objects.size() == 1);
  REQUIRE(json.objects[0].duplicate_keys.size() == 1);
  CHECK(json.objects[0].duplicate_keys[0].field == "spec.a");
  CHECK(json.objects[0].duplicate_keys[0].at.line == 2);
  const auto list = load(
      "kind: List\n"
      "apiVersion: v1\n"
      "items:\n"
      "  - {a: 1}\n"
      "  - {b: 1, b: 2}\n"
      "kind: List\n");
  REQUIRE(list.objects.size() == 2);
  CHECK(list.objects[0].duplicate_keys.empty());
  REQUIRE(list.objects[1].duplicate_keys.size() == 1);
  CHECK(list.objects[1].duplicate_keys[0].field == "b");  // relative to the item
  CHECK(list.objects[1].duplicate_keys[0].at.line == 5);
  REQUIRE(list.syntax_errors.size() == 1);
  CHECK(list.syntax_errors[0].message == "duplicate JSON key \"kind\"");
  CHECK(list.syntax_errors[0].position.line == 6);
}

TEST_CASE("check: 300 000 repeats of a key are counted in linear time, a hundred kept",
          "[linear]") {
  std::string text = "spec:\n";
  for (int i = 0; i < 300'000; ++i) text += "  k: 1\n";
  LoadedFile file;
  const Cost cost = load_measured(text, file);
  REQUIRE(file.objects.size() == 1);
  const auto& o = file.objects[0];
  REQUIRE(o.duplicate_keys.size() == kpw::check::SourceObject::kMaxDuplicateKeys);
  CHECK(o.duplicate_keys_omitted == 300'000 - 1 - o.duplicate_keys.size());
  CHECK(o.duplicate_keys[0].field == "spec.k");
  CHECK(o.duplicate_keys[0].at.line == 3);
  CHECK(cost.seconds < kLinearSeconds);
  CHECK(cost.bytes < kLinearBytesPerByte * text.size());
}
