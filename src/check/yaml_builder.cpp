#include "check/yaml_builder.hpp"

#include <string>
#include <utility>

#include "check/yaml_scalar.hpp"

namespace kpw::check {
namespace {

constexpr int kMaxDepth = 128;
// Aliases may not expand a file beyond this many values ("billion laughs").
constexpr std::size_t kMaxAliasValues = 1'000'000;

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

}  // namespace

void Builder::OnDocumentStart(const YAML::Mark&) {
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
  repeated_.clear();
  // (A document that failed leaves its error: the next one starts without it.)
  error_.clear();
  error_at_ = Position{};
}

void Builder::OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) {
  last_null_mark_ = mark;
  if (expecting_key()) {
    set_key("null", mark);
    if (anchor != 0) remember_key(anchor, "null", "");
    return;
  }
  JsonValue v;
  put(mark, anchor, std::move(v), 1, "null");
}

void Builder::OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) {
  only_null_ = false;
  const JsonValue* anchored = nullptr;
  std::size_t values = 1;
  auto it = anchors_.find(anchor);
  if (it != anchors_.end()) {
    expanded_ += it->second.values;
    if (expanded_ > kMaxAliasValues) {
      if (error_.empty()) {
        error_ = "aliases expand to more than " + std::to_string(kMaxAliasValues) + " values";
        error_at_ = at(mark);
      }
    } else {
      const Anchored& a = it->second;
      anchored = a.copy != nullptr ? a.copy : find(a.node);
      values = a.values;
    }
  }
  if (expecting_key()) {  // an alias as a key: the anchored node, as if written in its place
    if (anchored == nullptr) {
      set_key("null", mark);
    } else if (anchored->IsObject() || anchored->IsArray()) {
      // A collection as a key: JSON cannot hold it, it is dropped with its value (see close).
      stack_.back().has_key = true;
      stack_.back().drop_value = true;
    } else {
      set_key(anchored->IsString() ? view(*anchored) : std::string_view(it->second.key), mark);
    }
    return;
  }
  JsonValue v;
  if (anchored != nullptr) v.CopyFrom(*anchored, doc_->GetAllocator());
  put(mark, 0, std::move(v), values);
}

void Builder::OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       const std::string& value) {
  only_null_ = false;
  if (expecting_key()) {
    set_key(value, mark);
    if (anchor != 0) remember_key(anchor, value, tag);
    return;
  }
  JsonValue v;
  convert_scalar(value, tag, v, doc_->GetAllocator());
  put(mark, anchor, std::move(v), 1, value);
}

void Builder::OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                              YAML::EmitterStyle::value) {
  open(mark, anchor, rapidjson::kArrayType);
}

void Builder::OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) {
  open(mark, anchor, rapidjson::kObjectType);
}

void Builder::set_key(std::string_view key, const YAML::Mark& mark) {
  Frame& f = stack_.back();
  f.key = key;
  f.key_mark = mark;
  f.has_key = true;
}

std::uint32_t Builder::add_node(const YAML::Mark& mark) {
  Node n;
  if (stack_.empty()) {
    root_mark_ = at(mark);
    n.at = root_mark_;
  } else {
    const Frame& f = stack_.back();
    n.parent = f.node;
    if (nodes_[f.node].kind == Node::Kind::kUnrecorded || f.complex_key || f.drop_value) {
      n.kind = Node::Kind::kUnrecorded;
    } else if (f.value.IsArray()) {
      n.kind = Node::Kind::kItem;
      n.index = f.value.Size();
      n.at = at(mark);
    } else {
      n.kind = Node::Kind::kMember;
      n.index = static_cast<std::uint32_t>(keys_.size());
      append_echoed_text(keys_, f.key);
      n.key_size = static_cast<std::uint32_t>(keys_.size() - n.index);
      n.at = at(f.key_mark);
    }
  }
  nodes_.push_back(n);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

void Builder::open(const YAML::Mark& mark, YAML::anchor_t anchor, rapidjson::Type type) {
  only_null_ = false;
  if (stack_.size() >= static_cast<std::size_t>(kMaxDepth)) {
    if (error_.empty()) {
      error_ = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
      error_at_ = at(mark);
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

void Builder::close() {
  Frame f = std::move(stack_.back());
  stack_.pop_back();
  nodes_[f.node].open = false;
  if (!stack_.empty() && stack_.back().complex_key && stack_.back().value.IsObject() &&
      !stack_.back().has_key) {
    // The collection was a key: its value is dropped too.
    stack_.back().complex_key = false;
    stack_.back().has_key = true;
    stack_.back().drop_value = true;
    remember(f.anchor, f.node, f.value, f.values);  // (before bury, which then keeps it)
    bury(f.node, f.value);
    return;
  }
  remember(f.anchor, f.node, f.value, f.values);
  place(std::move(f.value), f.node, f.values);
}

void Builder::put(const YAML::Mark& mark, YAML::anchor_t anchor, JsonValue&& v, std::size_t values,
                  std::string_view text) {
  const std::uint32_t node = add_node(mark);
  remember(anchor, node, v, values, text);
  place(std::move(v), node, values);
}

void Builder::remember(YAML::anchor_t anchor, std::uint32_t node, const JsonValue& v,
                       std::size_t values, std::string_view text) {
  if (anchor == 0) return;
  const JsonValue* copy = nullptr;
  if (values <= kCopiedValues) {
    copies_.emplace_back(v, doc_->GetAllocator());
    copy = &copies_.back();
  }
  // A string's text is the string itself: not kept twice.
  anchors_[anchor] = Anchored{node, values, copy, std::string(v.IsString() ? "" : text)};
  last_anchored_ = node;
}

void Builder::remember_key(YAML::anchor_t anchor, const std::string& text, const std::string& tag) {
  JsonValue& copy = copies_.emplace_back();
  convert_scalar(text, tag, copy, doc_->GetAllocator());
  anchors_[anchor] = Anchored{kNoNode, 1, &copy, copy.IsString() ? std::string() : text};
}

const JsonValue* Builder::find(std::uint32_t node) {
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

void Builder::bury(std::uint32_t node, JsonValue& v) {
  if (node == kNoNode || last_anchored_ == kNoNode || last_anchored_ < node) {
    return;  // no anchor inside (the nodes of a value's contents come after its own)
  }
  nodes_[node].grave = static_cast<std::uint32_t>(graveyard_.size());
  graveyard_.emplace_back(std::move(v));
}

void Builder::place(JsonValue&& v, std::uint32_t node, std::size_t values) {
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
    // A repeated key: the last one wins, in the first one's place, as in Kubernetes' reader; a key
    // the map writes twice itself (not over a member a `<<` merge brought, which it may override)
    // is recorded, since the server refuses a body with one (judge.cpp reports it).
    if (f.member_nodes[existing] != kNoNode) repeated_.push_back(RepeatedKey{node, echoed(f.key)});
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

void Builder::merge(Frame& into, JsonValue& from) {
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

}  // namespace kpw::check
