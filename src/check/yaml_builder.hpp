// JSON documents built from yaml-cpp's parser events for `check`'s loader, with a record of where
// each value was written.
#pragma once

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "check/member_index.hpp"
#include "check/positions.hpp"
#include "json/json.hpp"

namespace kpw::check {

// yaml-cpp's 0-based mark as a 1-based position, in a document that starts after `lines_before`
// lines of its file (the loader parses each document of a stream alone: source.cpp).
inline Position position_of(const YAML::Mark& mark, int lines_before = 0) {
  if (mark.line < 0) return {};
  return Position{lines_before + mark.line + 1, mark.column + 1};
}

inline constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();

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

// A key written a second time in one map (not one a `<<` merge brought): the document keeps the
// last value, as it reads YAML, but the server's JSON reader refuses such a body (json.cpp).
struct RepeatedKey {
  std::uint32_t node;  // the later value
  std::string key;     // as the server echoes it: a JSON string, cut at kMaxEchoedBytes
};

// Builds one JSON document per YAML document straight from the parser's events (no YAML::Node
// tree, no recursion here), recording where every key and item was written.
class Builder : public YAML::EventHandler {
 public:
  // Documents are built in `pool`.
  explicit Builder(JsonAllocator& pool) : pool_(pool) {}

  // The documents parsed next start after `lines` lines of their file: positions are the file's.
  void set_lines_before(int lines) { lines_before_ = lines; }

  void OnDocumentStart(const YAML::Mark&) override;
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override;
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override;
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override;
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override;
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override;
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
  // The keys written twice in a map of the document, in the order they were read.
  const std::vector<RepeatedKey>& repeated_keys() const { return repeated_; }
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

  void set_key(std::string_view key, const YAML::Mark& mark);

  Position at(const YAML::Mark& mark) const { return position_of(mark, lines_before_); }

  bool expecting_key() const {
    return !stack_.empty() && stack_.back().value.IsObject() && !stack_.back().has_key &&
           !stack_.back().complex_key;
  }

  // Records the value about to be placed in the innermost container (or as the document). The
  // key is kept as a field path renders it (cut at kMaxEchoedBytes), so that the memory of keys
  // is at most the size of the file.
  std::uint32_t add_node(const YAML::Mark& mark);

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, rapidjson::Type type);

  void close();

  // A scalar or an alias's copy, as a value (not a key), of `values` values; `text`: a scalar's,
  // as written.
  void put(const YAML::Mark& mark, YAML::anchor_t anchor, JsonValue&& v, std::size_t values,
           std::string_view text = {});

  // A large anchored value is not copied: an alias finds it where it is (`find`, O(depth)).
  // Copying every anchored value cost O(depth × size) for anchors nested in anchors (127 copies
  // of a large list). A small one (the usual scalar) is copied, so that an alias of it costs O(1):
  // at most kCopiedValues values per anchor.
  // `text`: a scalar's, as written (an alias of it as a key reads as that text).
  void remember(YAML::anchor_t anchor, std::uint32_t node, const JsonValue& v, std::size_t values,
                std::string_view text = {});

  // An anchor on a scalar key: its aliases read as the key's text as keys, and as the scalar
  // `text` tagged `tag` reads as values (the key is in no value of the document, so no node).
  void remember_key(YAML::anchor_t anchor, const std::string& text, const std::string& tag);

  // The value of `node`: from where it can be reached directly (an open collection, the document,
  // a dropped value) down the indices of its parents, O(depth).
  const JsonValue* find(std::uint32_t node);

  // Keeps a value that leaves the document (a repeated key's earlier value, a merged map, a
  // complex key or its value) where aliases to anchors inside it still find it: moved, O(1).
  void bury(std::uint32_t node, JsonValue& v);

  // Places a finished value into its container (or as the document).
  void place(JsonValue&& v, std::uint32_t node, std::size_t values);

  // `<<: *base` (or a list of them): members the map does not set itself.
  void merge(Frame& into, JsonValue& from);

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
    // The text of a scalar that is not a string, as written: an alias of it as a key reads as
    // that text, as the scalar written there would (`&a 1` … `*a: x` is the key "1", not null).
    std::string key;
  };
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  std::uint32_t last_anchored_ = kNoNode;  // the node of the last anchored value
  std::deque<JsonValue> graveyard_;        // dropped values that may hold anchored ones
  std::deque<JsonValue> copies_;           // of small anchored values
  std::vector<std::uint32_t> route_;       // find()'s
  std::vector<RepeatedKey> repeated_;
  int lines_before_ = 0;
  std::size_t expanded_ = 0;
  Position root_mark_;
  bool only_null_ = true;
  YAML::Mark last_null_mark_;
  std::string error_;
  Position error_at_;
};

}  // namespace kpw::check
