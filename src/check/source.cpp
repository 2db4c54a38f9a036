#include "check/source.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdint>
#include <istream>
#include <span>
#include <streambuf>
#include <string>
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

// The path of `node` in its object, as FieldPath renders it (`spec.list[1].name`): up its parents
// to the object's own value, the first one whose parent is in no object (`paths`: index_positions).
template <typename Paths>
std::string path_in_object(const std::vector<Node>& nodes, std::string_view keys,
                           const Paths& paths, std::uint32_t node) {
  std::vector<std::uint32_t> chain;
  for (std::uint32_t n = node;
       nodes[n].parent != kNoNode && paths[nodes[n].parent].object != kNoNode;
       n = nodes[n].parent) {
    chain.push_back(n);
  }
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Node& n = nodes[*it];
    if (n.kind == Node::Kind::kItem) {
      out.append("[").append(std::to_string(n.index)).append("]");
      continue;
    }
    if (!out.empty()) out += '.';
    out += keys.substr(n.index, n.key_size);
  }
  return out;
}

// Fills the position tables of the objects of one document in one pass over its values (parents
// come before their children): `objects` is the document, or for a `kind: List` its items, whose
// fields are found relative to the item (the item's `spec` is written at `items[3].spec`). Each
// key written twice goes to its object, or, written by the List itself, to `outside`.
void index_positions(const std::vector<Node>& nodes, std::string_view keys, bool list,
                     const std::vector<RepeatedKey>& repeated, std::span<SourceObject> objects,
                     std::vector<const RepeatedKey*>& outside) {
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
  for (const RepeatedKey& r : repeated) {
    // Inside a map or list used as a key: dropped with it, never sent.
    if (nodes[r.node].kind == Node::Kind::kUnrecorded) continue;
    const std::uint32_t object = paths[r.node].object;
    if (object == kNoNode) {
      outside.push_back(&r);
      continue;
    }
    SourceObject& o = objects[object];
    if (o.duplicate_keys.size() == SourceObject::kMaxDuplicateKeys) {
      ++o.duplicate_keys_omitted;  // (paths rendered for the kept ones only: O(depth) each)
      continue;
    }
    o.duplicate_keys.push_back(
        DuplicateKey{nodes[r.node].at, path_in_object(nodes, keys, paths, r.node), r.key});
  }
}

// One document of a stream: its text, and the lines of the file before it.
struct DocumentText {
  std::string_view text;
  int lines_before = 0;
  int lines = 0;  // the line breaks it holds
};

// True when the line at `p` starts with `marker` (`---` or `...`) followed by a space, a tab, a
// line break or the end of the text: a document marker, as yaml-cpp reads one.
bool marker_at(std::string_view text, std::size_t p, std::string_view marker) {
  if (text.compare(p, marker.size(), marker) != 0) return false;
  const std::size_t after = p + marker.size();
  return after == text.size() || text[after] == ' ' || text[after] == '\t' || text[after] == '\n' ||
         text[after] == '\r';
}

// The documents of a stream, in one pass: a new one at each line that starts with `---` (the line
// is its first) after a line of content, and after each line that starts with `...` (its last).
// No scalar can hold such a line: YAML forbids both markers at the start of a line inside a
// document, and the lines of a block scalar are indented under its key (yaml-cpp indents even a
// document's top-level one by a column), so yaml-cpp splits the stream at the same lines. A stream
// in UTF-16 or UTF-32 (a byte order mark, or a zero byte among the first four, which is how
// yaml-cpp tells) is one piece: its markers are not these bytes.
std::vector<DocumentText> split_documents(std::string_view text) {
  std::vector<DocumentText> out;
  const std::string_view head = text.substr(0, 4);
  if (head.starts_with("\xFE\xFF") || head.starts_with("\xFF\xFE") ||
      head.find('\0') != std::string_view::npos) {
    int lines = 0;
    for (const char c : text) lines += c == '\n' ? 1 : 0;
    out.push_back(DocumentText{text, 0, lines});
    return out;
  }
  std::size_t begin = 0;
  int line = 0;        // of the file, 0-based, at `p`
  int first_line = 0;  // of the document being read
  // Whether the piece so far holds more than directives (`%TAG`, which apply to the document
  // their `---` starts), comments and blank lines: only then does a `---` start another piece.
  bool content = false;
  auto close = [&](std::size_t end) {
    if (end > begin) {
      out.push_back(DocumentText{text.substr(begin, end - begin), first_line, line - first_line});
    }
    begin = end;
    first_line = line;
    content = false;
  };
  for (std::size_t p = 0; p < text.size();) {
    const std::size_t eol = text.find('\n', p);
    const std::size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    if (marker_at(text, p, "---") && content) close(p);
    const bool ends = marker_at(text, p, "...");
    const std::size_t first = text.find_first_not_of(" \t\r", p);
    if (first < next - (eol == std::string_view::npos ? 0 : 1) && text[first] != '#' &&
        !(first == p && text[p] == '%')) {
      content = true;
    }
    p = next;
    if (eol != std::string_view::npos) ++line;
    if (ends) close(p);
  }
  close(text.size());
  return out;
}

// A document's text as a stream, not copied (std::istringstream copies its string).
class TextBuffer : public std::streambuf {
 public:
  explicit TextBuffer(std::string_view text) {
    // Read only: a get area is never written (putting back a character only moves the pointer).
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
};

// Where a syntax error of `doc` is reported. A document that ends unfinished (an unclosed flow
// mapping) is reported at yaml-cpp's end of input: when another document follows, that is the line
// of its `---`, so the end of this document's last line is named instead.
Position error_position(const DocumentText& doc, const YAML::Mark& mark, bool more) {
  if (!more || mark.line < doc.lines || doc.lines == 0) return position_of(mark, doc.lines_before);
  std::string_view body = doc.text.substr(0, doc.text.size() - 1);  // without its last line break
  if (!body.empty() && body.back() == '\r') body.remove_suffix(1);
  const std::size_t last_break = body.rfind('\n');
  const std::size_t last_line = last_break == std::string_view::npos ? 0 : last_break + 1;
  return Position{doc.lines_before + doc.lines, static_cast<int>(body.size() - last_line) + 1};
}

// Parses one document of a stream into `file` (`index`: the documents of the file so far).
void load_document(const DocumentText& doc, bool more, Builder& builder, std::size_t& index,
                   LoadedFile& file) {
  TextBuffer buffer(doc.text);
  std::istream in(&buffer);
  builder.set_lines_before(doc.lines_before);
  bool have_null = false;
  YAML::Mark previous_null;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
      if (!builder.error().empty()) {
        ++index;
        file.syntax_errors.push_back(SyntaxError{builder.error_at(), builder.error()});
        return;
      }
      SourceObject obj;
      obj.document = index++;
      obj.json = builder.take(obj.start);
      if (builder.only_null()) {
        // yaml-cpp 0.7 can report the same empty document forever on input it cannot parse
        // (a stray `,`): an empty document that did not move past the previous one is an error.
        const YAML::Mark at = builder.last_null_mark();
        if (have_null && at.pos == previous_null.pos) {
          file.syntax_errors.push_back(
              SyntaxError{position_of(at, doc.lines_before), "unexpected character"});
          return;
        }
        have_null = true;
        previous_null = at;
        continue;  // an empty document
      }
      have_null = false;
      std::vector<const RepeatedKey*> outside;  // a List's own duplicate keys
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
        index_positions(builder.nodes(), builder.keys(), true, builder.repeated_keys(), objects,
                        outside);
        // A key the List writes twice belongs to no object the server would receive: the file's.
        for (const RepeatedKey* r : outside) {
          file.syntax_errors.push_back(
              SyntaxError{builder.nodes()[r->node].at, "duplicate JSON key " + r->key});
        }
        continue;
      }
      index_positions(builder.nodes(), builder.keys(), false, builder.repeated_keys(),
                      std::span<SourceObject>(&obj, 1), outside);
      file.objects.push_back(std::move(obj));
    }
  } catch (const YAML::Exception& e) {
    ++index;  // the document that does not parse
    file.syntax_errors.push_back(SyntaxError{error_position(doc, e.mark, more), e.msg});
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
    file.syntax_errors.push_back(SyntaxError{Position{}, "files of 2 GiB or more are not read"});
    return file;
  }
  file.pool = std::make_unique<JsonAllocator>();
  Builder builder(*file.pool);
  std::size_t index = 0;
  const std::vector<DocumentText> documents = split_documents(text);
  for (std::size_t d = 0; d < documents.size(); ++d) {
    load_document(documents[d], d + 1 < documents.size(), builder, index, file);
  }
  return file;
}

}  // namespace kpw::check
