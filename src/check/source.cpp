#include "check/source.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdint>
#include <span>
#include <sstream>
#include <string_view>
#include <vector>

#include "check/yaml_builder.hpp"

namespace kpw::check {
namespace {

// Values and keys are numbered with 32 bits: a file has fewer values than bytes, and its keys,
// rendered, take at most about as many bytes as it has.
constexpr std::size_t kMaxFileBytes = std::size_t{1} << 31;

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