#include "check/source.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <span>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/hash.hpp"

namespace kpw::check {
namespace {

constexpr int kMaxDepth = 128;
// Values and keys are numbered with 32 bits: a file has fewer values than bytes, and its keys,
// rendered, take at most about as many bytes as it has.
constexpr std::size_t kMaxFileBytes = std::size_t{1} << 31;
// Aliases may not expand a file beyond this many values ("billion laughs").
constexpr std::size_t kMaxAliasValues = 1'000'000;

// ---- Keyed hashing ----
// Map keys are hashed with the project's keyed hash (util/hash.hpp). Field paths are fingerprinted
// with a polynomial hash modulo 2^61 - 1, which can be extended a character at a time (locate
// fingerprints every prefix of a field in one pass), with bases drawn from that key, so a file
// cannot be written to make them collide either and the tables below stay expected O(1) per
// lookup on hostile input.
constexpr std::uint64_t kMersenne61 = (std::uint64_t{1} << 61) - 1;

std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  const std::uint64_t r =
      (static_cast<std::uint64_t>(p) & kMersenne61) + static_cast<std::uint64_t>(p >> 61);
  return r >= kMersenne61 ? r - kMersenne61 : r;
}

// Two independent bases, for fingerprints that need more than 61 bits.
struct HashBases {
  std::uint64_t a, b;
};

const HashBases& hash_bases() {
  static const HashBases bases = [] {
    constexpr std::uint64_t kLow = std::uint64_t{1} << 32;
    const std::uint64_t a = kLow + keyed_hash(1, "check: path base") % (kMersenne61 - kLow);
    const std::uint64_t b = kLow + keyed_hash(2, "check: path base") % (kMersenne61 - kLow);
    return HashBases{a, b};
  }();
  return bases;
}

// `h` extended by `text`, with base `base`.
std::uint64_t extend_hash(std::uint64_t h, std::uint64_t base, std::string_view text) {
  for (const char c : text) {
    h = mul_mod(h, base) + static_cast<unsigned char>(c) + 1;
    if (h >= kMersenne61) h -= kMersenne61;
  }
  return h;
}

// The members of a map being read, by name, so that a repeated key or a `<<` merge finds an
// existing member in expected O(1) (RapidJSON's FindMember compares with every member: a map of n
// keys cost O(n²)). A small map is scanned; past kScanned members a hash table of member indices
// is kept beside it.
class MemberIndex {
 public:
  static constexpr rapidjson::SizeType kNone = ~rapidjson::SizeType{0};

  // The index of the member of `map` named `name`, else kNone.
  rapidjson::SizeType find(const JsonValue& map, std::string_view name) const {
    if (slots_.empty()) {
      for (rapidjson::SizeType i = 0; i < map.MemberCount(); ++i) {
        if (view((map.MemberBegin() + i)->name) == name) return i;
      }
      return kNone;
    }
    const std::uint64_t hash = hash_of(name);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask; slots_[i].member != kNone; i = (i + 1) & mask) {
      if (slots_[i].hash == hash && view((map.MemberBegin() + slots_[i].member)->name) == name) {
        return slots_[i].member;
      }
    }
    return kNone;
  }

  // The last member of `map` was just added.
  void added(const JsonValue& map) {
    const rapidjson::SizeType count = map.MemberCount();
    if (slots_.empty() && count <= kScanned) return;
    if (2 * count > slots_.size()) {
      // Grown (or built, past kScanned members) from the map itself: O(1) amortized per member.
      std::size_t size = 64;
      while (size < 4 * static_cast<std::size_t>(count)) size *= 2;
      slots_.assign(size, Slot{});
      for (rapidjson::SizeType i = 0; i < count; ++i) insert(map, i);
      return;
    }
    insert(map, count - 1);
  }

 private:
  static constexpr rapidjson::SizeType kScanned = 8;
  struct Slot {
    std::uint64_t hash = 0;
    rapidjson::SizeType member = kNone;  // kNone: a free slot
  };

  static std::uint64_t hash_of(std::string_view name) { return keyed_hash(name); }

  void insert(const JsonValue& map, rapidjson::SizeType member) {
    const std::uint64_t hash = hash_of(view((map.MemberBegin() + member)->name));
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i].member != kNone) i = (i + 1) & mask;
    slots_[i] = Slot{hash, member};
  }

  std::vector<Slot> slots_;
};

// Values in `v`, counted without recursion.
std::size_t count_values(const JsonValue& v) {
  std::size_t n = 0;
  std::vector<const JsonValue*> todo{&v};
  while (!todo.empty()) {
    const JsonValue* cur = todo.back();
    todo.pop_back();
    ++n;
    if (cur->IsArray()) {
      for (const JsonValue& item : cur->GetArray()) todo.push_back(&item);
    } else if (cur->IsObject()) {
      for (auto it = cur->MemberBegin(); it != cur->MemberEnd(); ++it) todo.push_back(&it->value);
    }
  }
  return n;
}

Position position_of(const YAML::Mark& mark) {
  if (mark.line < 0) return {};
  return Position{mark.line + 1, mark.column + 1};
}

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (s == w) return true;
  }
  return false;
}

// [-+]?[0-9]+
bool is_decimal_integer(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  std::size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    std::size_t exp = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == s.size();
}

// A scalar as Kubernetes' YAML reader (go-yaml v2, YAML 1.1) types it: plain scalars may be null,
// booleans (yes/no/on/off too) or numbers; quoted ones are strings.
void convert_scalar(const std::string& s, const std::string& tag, JsonValue& out,
                    JsonAllocator& alloc) {
  auto as_string = [&] {
    out.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
  };
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return as_string();
  const bool plain = tag == "?" || tag.empty();
  if ((plain || tag == "tag:yaml.org,2002:null") &&
      is_one_of(s, {"", "~", "null", "Null", "NULL"})) {
    out.SetNull();
    return;
  }
  if (plain || tag == "tag:yaml.org,2002:bool") {
    if (is_one_of(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) {
      out.SetBool(true);
      return;
    }
    if (is_one_of(s,
                  {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) {
      out.SetBool(false);
      return;
    }
  }
  if (plain || tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float") {
    if (is_decimal_integer(s)) {
      errno = 0;
      const long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == 0) {
        out.SetInt64(v);
      } else {
        out.SetDouble(std::strtod(s.c_str(), nullptr));
      }
      return;
    }
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(s.c_str() + 2, &end, 16);
      if (errno == 0 && end != nullptr && *end == '\0') {
        out.SetInt64(v);
        return;
      }
    }
    if (is_float(s)) {
      out.SetDouble(std::strtod(s.c_str(), nullptr));
      return;
    }
  }
  as_string();
}

constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();

// A value of the document being read (keys are not values): where it was written and under which
// key or index. The positions of fields are computed from these once the document is read, each
// value extending its parent's path: a path string kept per field made a file with long keys or
// deep nesting cost O(fields × path length) in memory.
struct Node {
  enum class Kind : std::uint8_t {
    kRoot,        // the document
    kMember,      // a map's value
    kItem,        // a list's item
    kUnrecorded,  // inside a map or list used as a key, or such a key's value: no position
  };
  std::uint32_t parent = kNoNode;
  std::uint32_t index = 0;     // kItem: its index; kMember: where its rendered key starts in keys
  std::uint32_t key_size = 0;  // kMember: the size of its rendered key
  // Where the value is now, for aliases: its index in its container once placed (a member's may
  // be that of an earlier member with the same key); the collection at stack level `depth` while
  // `open`; or, once dropped (a repeated key's earlier value, a merged or complex key's value),
  // the graveyard slot `grave`.
  std::uint32_t slot = 0;
  std::uint32_t grave = kNoNode;
  std::uint32_t depth = 0;
  bool open = false;
  Kind kind = Kind::kRoot;
  Position at;  // a member: its key; an item: the item
};

// Builds one JSON document per YAML document straight from the parser's events (no YAML::Node
// tree, no recursion here), recording where every key and item was written.
class Builder : public YAML::EventHandler {
 public:
  // Documents are built in `pool`.
  explicit Builder(JsonAllocator& pool) : pool_(pool) {}

  void OnDocumentStart(const YAML::Mark&) override {
    doc_ = std::make_unique<JsonDocument>(&pool_);
    nodes_.clear();
    keys_.clear();
    stack_.clear();
    anchors_.clear();
    last_anchored_ = kNoNode;
    graveyard_.clear();
    copies_.clear();
    expanded_ = 0;
    only_null_ = true;
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    last_null_mark_ = mark;
    if (expecting_key()) {
      set_key("null", mark);
      return;
    }
    JsonValue v;
    put(mark, anchor, std::move(v), 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    only_null_ = false;
    const JsonValue* anchored = nullptr;
    std::size_t values = 1;
    auto it = anchors_.find(anchor);
    if (it != anchors_.end()) {
      expanded_ += it->second.values;
      if (expanded_ > kMaxAliasValues) {
        if (error_.empty()) {
          error_ = "aliases expand to more than " + std::to_string(kMaxAliasValues) + " values";
          error_at_ = position_of(mark);
        }
      } else {
        const Anchored& a = it->second;
        anchored = a.copy != nullptr ? a.copy : find(a.node);
        values = a.values;
      }
    }
    if (expecting_key()) {  // an alias as a key
      set_key(anchored != nullptr && anchored->IsString() ? view(*anchored) : "null", mark);
      return;
    }
    JsonValue v;
    if (anchored != nullptr) v.CopyFrom(*anchored, doc_->GetAllocator());
    put(mark, 0, std::move(v), values);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    only_null_ = false;
    if (expecting_key()) {
      set_key(value, mark);
      return;
    }
    JsonValue v;
    convert_scalar(value, tag, v, doc_->GetAllocator());
    put(mark, anchor, std::move(v), 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, rapidjson::kArrayType);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, rapidjson::kObjectType);
  }
  void OnMapEnd() override { close(); }

  // After HandleNextDocument: the document built, or null when it was empty.
  std::unique_ptr<JsonDocument> take(Position& start) {
    start = root_mark_;
    return std::move(doc_);
  }
  // The values of the document, parents before their children (node 0 is the document), and the
  // rendered keys of its members.
  const std::vector<Node>& nodes() const { return nodes_; }
  std::string_view keys() const { return keys_; }
  bool only_null() const { return only_null_; }
  YAML::Mark last_null_mark() const { return last_null_mark_; }
  const std::string& error() const { return error_; }
  Position error_at() const { return error_at_; }

 private:
  struct Frame {
    JsonValue value;
    std::uint32_t node = kNoNode;
    YAML::anchor_t anchor = 0;
    bool has_key = false;  // maps: a key is waiting for its value
    std::string key;
    YAML::Mark key_mark;
    bool complex_key = false;  // a map or sequence used as a key: its value is dropped
    bool drop_value = false;   // the value waiting is that of a complex key
    MemberIndex members;       // maps: the members so far, by name
    std::vector<std::uint32_t> member_nodes;  // maps: the node of each member (kNoNode: merged)
    std::size_t values = 1;  // values in the collection, itself included, aliases expanded
  };

  void set_key(std::string_view key, const YAML::Mark& mark) {
    Frame& f = stack_.back();
    f.key = key;
    f.key_mark = mark;
    f.has_key = true;
  }

  bool expecting_key() const {
    return !stack_.empty() && stack_.back().value.IsObject() && !stack_.back().has_key &&
           !stack_.back().complex_key;
  }

  // Records the value about to be placed in the innermost container (or as the document). The
  // key is kept as a field path renders it (cut at kMaxEchoedBytes), so that the memory of keys
  // is at most the size of the file.
  std::uint32_t add_node(const YAML::Mark& mark) {
    Node n;
    if (stack_.empty()) {
      root_mark_ = position_of(mark);
      n.at = root_mark_;
    } else {
      const Frame& f = stack_.back();
      n.parent = f.node;
      if (nodes_[f.node].kind == Node::Kind::kUnrecorded || f.complex_key || f.drop_value) {
        n.kind = Node::Kind::kUnrecorded;
      } else if (f.value.IsArray()) {
        n.kind = Node::Kind::kItem;
        n.index = f.value.Size();
        n.at = position_of(mark);
      } else {
        n.kind = Node::Kind::kMember;
        n.index = static_cast<std::uint32_t>(keys_.size());
        append_echoed_text(keys_, f.key);
        n.key_size = static_cast<std::uint32_t>(keys_.size() - n.index);
        n.at = position_of(f.key_mark);
      }
    }
    nodes_.push_back(n);
    return static_cast<std::uint32_t>(nodes_.size() - 1);
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, rapidjson::Type type) {
    only_null_ = false;
    if (stack_.size() >= static_cast<std::size_t>(kMaxDepth)) {
      if (error_.empty()) {
        error_ = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
        error_at_ = position_of(mark);
      }
    }
    if (expecting_key()) {
      stack_.back().complex_key = true;  // a collection as a key: JSON cannot hold it
    }
    Frame f;
    f.node = add_node(mark);
    f.value = JsonValue(type);
    f.anchor = anchor;
    nodes_[f.node].open = true;
    nodes_[f.node].depth = static_cast<std::uint32_t>(stack_.size());
    stack_.push_back(std::move(f));
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    nodes_[f.node].open = false;
    if (!stack_.empty() && stack_.back().complex_key && stack_.back().value.IsObject() &&
        !stack_.back().has_key) {
      // The collection was a key: its value is dropped too.
      stack_.back().complex_key = false;
      stack_.back().has_key = true;
      stack_.back().drop_value = true;
      bury(f.node, f.value);
      return;
    }
    remember(f.anchor, f.node, f.value, f.values);
    place(std::move(f.value), f.node, f.values);
  }

  // A scalar or an alias's copy, as a value (not a key), of `values` values.
  void put(const YAML::Mark& mark, YAML::anchor_t anchor, JsonValue&& v, std::size_t values) {
    const std::uint32_t node = add_node(mark);
    remember(anchor, node, v, values);
    place(std::move(v), node, values);
  }

  // A large anchored value is not copied: an alias finds it where it is (`find`, O(depth)).
  // Copying every anchored value cost O(depth × size) for anchors nested in anchors (127 copies
  // of a large list). A small one (the usual scalar) is copied, so that an alias of it costs O(1):
  // at most kCopiedValues values per anchor.
  void remember(YAML::anchor_t anchor, std::uint32_t node, const JsonValue& v, std::size_t values) {
    if (anchor == 0) return;
    const JsonValue* copy = nullptr;
    if (values <= kCopiedValues) {
      copies_.emplace_back(v, doc_->GetAllocator());
      copy = &copies_.back();
    }
    anchors_[anchor] = Anchored{node, values, copy};
    last_anchored_ = node;
  }

  // The value of `node`: from where it can be reached directly (an open collection, the document,
  // a dropped value) down the indices of its parents, O(depth).
  const JsonValue* find(std::uint32_t node) {
    route_.clear();
    const JsonValue* v = nullptr;
    for (std::uint32_t n = node;;) {
      const Node& x = nodes_[n];
      if (x.grave != kNoNode) {
        v = &graveyard_[x.grave];
        break;
      }
      if (x.open) {
        v = &stack_[x.depth].value;
        break;
      }
      if (x.parent == kNoNode) {
        v = doc_.get();
        break;
      }
      route_.push_back(x.slot);
      n = x.parent;
    }
    for (auto it = route_.rbegin(); it != route_.rend(); ++it) {
      v = v->IsArray() ? &(*v)[*it] : &(v->MemberBegin() + *it)->value;
    }
    return v;
  }

  // Keeps a value that leaves the document (a repeated key's earlier value, a merged map, a
  // complex key or its value) where aliases to anchors inside it still find it: moved, O(1).
  void bury(std::uint32_t node, JsonValue& v) {
    if (node == kNoNode || last_anchored_ == kNoNode || last_anchored_ < node) {
      return;  // no anchor inside (the nodes of a value's contents come after its own)
    }
    nodes_[node].grave = static_cast<std::uint32_t>(graveyard_.size());
    graveyard_.emplace_back(std::move(v));
  }

  // Places a finished value into its container (or as the document).
  void place(JsonValue&& v, std::uint32_t node, std::size_t values) {
    auto& alloc = doc_->GetAllocator();
    if (stack_.empty()) {
      static_cast<JsonValue&>(*doc_) = std::move(v);
      return;
    }
    Frame& f = stack_.back();
    if (f.value.IsArray()) {
      nodes_[node].slot = f.value.Size();
      f.value.PushBack(v, alloc);
      f.values += values;
      return;
    }
    f.has_key = false;
    if (f.drop_value) {  // the value of a complex key (not of a key written "?")
      f.drop_value = false;
      bury(node, v);
      return;
    }
    if (f.key == "<<" && (v.IsObject() || v.IsArray())) {
      merge(f, v);  // YAML merge keys, as Kubernetes' reader applies them
      bury(node, v);
      return;
    }
    const rapidjson::SizeType existing = f.members.find(f.value, f.key);
    if (existing != MemberIndex::kNone) {
      // A repeated key: the last one wins, in the first one's place, as in Kubernetes' reader.
      JsonValue& earlier = (f.value.MemberBegin() + existing)->value;
      f.values -= count_values(earlier);  // (each value is dropped at most once: O(n) in all)
      bury(f.member_nodes[existing], earlier);
      earlier = v;
      f.member_nodes[existing] = node;
      nodes_[node].slot = existing;
    } else {
      f.value.AddMember(
          JsonValue(f.key.data(), static_cast<rapidjson::SizeType>(f.key.size()), alloc), v, alloc);
      f.members.added(f.value);
      f.member_nodes.push_back(node);
      nodes_[node].slot = f.value.MemberCount() - 1;
    }
    f.values += values;
  }

  // `<<: *base` (or a list of them): members the map does not set itself.
  void merge(Frame& into, JsonValue& from) {
    auto& alloc = doc_->GetAllocator();
    auto merge_one = [&](JsonValue& src) {
      if (!src.IsObject()) return;
      for (auto it = src.MemberBegin(); it != src.MemberEnd(); ++it) {
        if (into.members.find(into.value, view(it->name)) != MemberIndex::kNone) continue;
        JsonValue name(it->name, alloc);
        JsonValue value(it->value, alloc);
        into.values += count_values(value);
        into.value.AddMember(name, value, alloc);
        into.members.added(into.value);
        into.member_nodes.push_back(kNoNode);
      }
    };
    if (from.IsArray()) {
      for (JsonValue& item : from.GetArray()) merge_one(item);
    } else {
      merge_one(from);
    }
  }

  JsonAllocator& pool_;
  std::unique_ptr<JsonDocument> doc_;
  std::vector<Node> nodes_;
  std::string keys_;  // the rendered keys of the members, one after the other
  std::vector<Frame> stack_;
  static constexpr std::size_t kCopiedValues = 16;
  struct Anchored {
    std::uint32_t node;
    std::size_t values;     // in the anchored value, aliases expanded
    const JsonValue* copy;  // in copies_, for a small value; else null
  };
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  std::uint32_t last_anchored_ = kNoNode;  // the node of the last anchored value
  std::deque<JsonValue> graveyard_;        // dropped values that may hold anchored ones
  std::deque<JsonValue> copies_;           // of small anchored values
  std::vector<std::uint32_t> route_;       // find()'s
  std::size_t expanded_ = 0;
  Position root_mark_;
  bool only_null_ = true;
  YAML::Mark last_null_mark_;
  std::string error_;
  Position error_at_;
};

bool is_list(const JsonValue& doc) {
  const JsonValue* kind = find_member(doc, "kind");
  const JsonValue* items = find_member(doc, "items");
  return kind != nullptr && kind->IsString() && view(*kind) == "List" && items != nullptr &&
         items->IsArray();
}

// Fills the position tables of the objects of one document in one pass over its values (parents
// come before their children): `objects` is the document, or for a `kind: List` its items, whose
// fields are found relative to the item (the item's `spec` is written at `items[3].spec`).
void index_positions(const std::vector<Node>& nodes, std::string_view keys, bool list,
                     std::span<SourceObject> objects) {
  using Fingerprint = FieldPositions::Fingerprint;
  struct Path {
    Fingerprint fingerprint;         // of the value's path, relative to its object
    std::uint32_t object = kNoNode;  // the object it belongs to: an index in `objects`
    bool empty = true;               // the path renders as ""
  };
  std::vector<Path> paths(nodes.size());
  std::vector<bool> started(objects.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    Path& path = paths[i];
    if (n.kind == Node::Kind::kRoot) {
      if (!list) path.object = 0;
      continue;
    }
    if (n.kind == Node::Kind::kUnrecorded) continue;
    const Path& parent = paths[n.parent];
    if (list && n.kind == Node::Kind::kItem) {
      const Node& owner = nodes[n.parent];
      if (owner.kind == Node::Kind::kMember && nodes[owner.parent].kind == Node::Kind::kRoot &&
          keys.substr(owner.index, owner.key_size) == "items") {
        if (n.index < objects.size()) {  // (a repeated `items` may have had more)
          path.object = n.index;
          if (!started[n.index]) objects[n.index].start = n.at;
          started[n.index] = true;
        }
        continue;
      }
    }
    if (parent.object == kNoNode) continue;
    path.object = parent.object;
    FieldPositions& table = objects[path.object].positions;
    if (n.kind == Node::Kind::kItem) {
      char text[16] = "[";
      const auto [end, ec] = std::to_chars(text + 1, text + sizeof text - 1, n.index);
      *end = ']';
      path.fingerprint = FieldPositions::extend(
          parent.fingerprint, std::string_view(text, static_cast<std::size_t>(end + 1 - text)));
      path.empty = false;
      table.add(path.fingerprint, n.at);
      continue;
    }
    const std::string_view key = keys.substr(n.index, n.key_size);
    if (parent.empty) {
      path.fingerprint = FieldPositions::extend(Fingerprint{}, key);
      path.empty = key.empty();
      table.add(path.fingerprint, n.at);
      continue;
    }
    path.fingerprint = FieldPositions::extend(FieldPositions::extend(parent.fingerprint, "."), key);
    path.empty = false;
    table.add(path.fingerprint, n.at);  // (`a[b]` is looked up as `a.b`: see locate)
  }
}

}  // namespace

FieldPositions::Fingerprint FieldPositions::extend(Fingerprint f, std::string_view more) {
  const HashBases& bases = hash_bases();
  return Fingerprint{extend_hash(f.a, bases.a, more), extend_hash(f.b, bases.b, more)};
}

void FieldPositions::add(Fingerprint path, Position at) {
  if (2 * (used_ + 1) > slots_.size()) {
    std::vector<Slot> old(std::max<std::size_t>(8, 2 * slots_.size()));
    old.swap(slots_);
    used_ = 0;
    for (const Slot& s : old) {
      if (s.path.a != 0) add(Fingerprint{s.path.a & ~kUsed, s.path.b}, s.at);
    }
  }
  const std::uint64_t tag = path.a | kUsed;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = path.a & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.path.a == 0) {
      s = Slot{Fingerprint{tag, path.b}, at};
      ++used_;
      return;
    }
    if (s.path.a == tag && s.path.b == path.b) return;  // written twice: the first place is kept
  }
}

const Position* FieldPositions::find(Fingerprint path) const {
  if (slots_.empty()) return nullptr;
  const std::uint64_t tag = path.a | kUsed;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = path.a & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.path.a == 0) return nullptr;
    if (s.path.a == tag && s.path.b == path.b) return &s.at;
  }
}

bool plain_scalar_is_string(const std::string& text) {
  JsonAllocator alloc;
  JsonValue v;
  convert_scalar(text, "?", v, alloc);  // "?": a plain scalar, as the parser tags it
  return v.IsString();
}

Position SourceObject::locate(const std::string& field) const {
  // The fingerprints of every prefix of `field` first, so that each parent tried costs O(1) and a
  // call O(field size), however many `.` and `[` the field has.
  std::vector<FieldPositions::Fingerprint> prefix(field.size() + 1);
  for (std::size_t i = 0; i < field.size(); ++i) {
    prefix[i + 1] = FieldPositions::extend(prefix[i], std::string_view(field).substr(i, 1));
  }
  std::size_t end = field.size();
  while (end > 0) {
    if (const Position* at = positions.find(prefix[end])) return *at;
    if (field[end - 1] == ']') {
      const std::size_t open = field.rfind('[', end - 1);
      if (open == std::string::npos) break;
      if (open > 0) {  // `a[b]`, a map key, is member `b` of `a`, recorded as `a.b`
        const std::string_view key = std::string_view(field).substr(open + 1, end - open - 2);
        const auto member = FieldPositions::extend(FieldPositions::extend(prefix[open], "."), key);
        if (const Position* at = positions.find(member)) return *at;
      }
      end = open;
    } else {
      const std::size_t dot = field.rfind('.', end - 1);
      end = dot == std::string::npos ? 0 : dot;
    }
  }
  return start;
}

LoadedFile load(const std::string& text) {
  LoadedFile file;
  if (text.size() >= kMaxFileBytes) {  // (no policy file is that large)
    file.syntax_error = SyntaxError{Position{}, "files of 2 GiB or more are not read"};
    return file;
  }
  std::istringstream in(text);
  file.pool = std::make_unique<JsonAllocator>();
  Builder builder(*file.pool);
  std::size_t index = 0;
  bool have_null = false;
  YAML::Mark previous_null;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
      if (!builder.error().empty()) {
        file.syntax_error = SyntaxError{builder.error_at(), builder.error()};
        return file;
      }
      SourceObject obj;
      obj.document = index++;
      obj.json = builder.take(obj.start);
      if (builder.only_null()) {
        // yaml-cpp 0.7 can report the same empty document forever on input it cannot parse
        // (a stray `,`): an empty document that did not move past the previous one is an error.
        const YAML::Mark at = builder.last_null_mark();
        if (have_null && at.pos == previous_null.pos) {
          file.syntax_error = SyntaxError{position_of(at), "unexpected character"};
          return file;
        }
        have_null = true;
        previous_null = at;
        continue;  // an empty document
      }
      have_null = false;
      if (obj.json && is_list(*obj.json)) {
        JsonValue& items = *find_member(*obj.json, "items");
        const std::size_t first = file.objects.size();
        file.objects.resize(first + items.Size());
        const std::span<SourceObject> objects(file.objects.data() + first, items.Size());
        for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
          SourceObject& item = objects[i];
          item.document = obj.document;
          item.start = obj.start;  // unless the item's own position is known
          // Moved, not copied: the item is in the file's pool already.
          item.json = std::make_unique<JsonDocument>(file.pool.get());
          static_cast<JsonValue&>(*item.json) = std::move(items[i]);
        }
        index_positions(builder.nodes(), builder.keys(), true, objects);
        continue;
      }
      index_positions(builder.nodes(), builder.keys(), false, std::span<SourceObject>(&obj, 1));
      file.objects.push_back(std::move(obj));
    }
  } catch (const YAML::Exception& e) {
    file.objects.clear();
    file.syntax_error = SyntaxError{position_of(e.mark), e.msg};
  }
  return file;
}

}  // namespace kpw::check
