#include "check/source.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace kpw::check {
namespace {

constexpr int kMaxDepth = 128;

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
void convert_scalar(const YAML::Node& node, JsonValue& out, JsonAllocator& alloc) {
  const std::string& s = node.Scalar();
  const std::string& tag = node.Tag();
  auto as_string = [&] { out.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc); };
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
    if (is_one_of(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) {
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

class Converter {
 public:
  Converter(SourceObject& target) : target_(target) {}

  bool convert(const YAML::Node& node, JsonValue& out, JsonAllocator& alloc,
               const std::string& path, int depth) {
    if (depth > kMaxDepth) {
      error_ = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
      error_at_ = position_of(node.Mark());
      return false;
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.SetNull();
        return true;
      case YAML::NodeType::Scalar:
        convert_scalar(node, out, alloc);
        return true;
      case YAML::NodeType::Sequence: {
        out.SetArray();
        std::size_t i = 0;
        for (const YAML::Node& item : node) {
          const std::string item_path = path + "[" + std::to_string(i++) + "]";
          target_.positions.emplace(item_path, position_of(item.Mark()));
          JsonValue v;
          if (!convert(item, v, alloc, item_path, depth + 1)) return false;
          out.PushBack(v, alloc);
        }
        return true;
      }
      case YAML::NodeType::Map: {
        out.SetObject();
        for (auto it = node.begin(); it != node.end(); ++it) {
          const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
          const std::string child = path.empty() ? key : path + "." + key;
          const Position at = position_of(it->first.Mark());
          target_.positions.emplace(child, at);
          if (!path.empty()) target_.positions.emplace(path + "[" + key + "]", at);
          JsonValue v;
          if (!convert(it->second, v, alloc, child, depth + 1)) return false;
          const JsonValue name(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc);
          auto existing = out.FindMember(name);
          if (existing != out.MemberEnd()) {
            existing->value = v;  // a repeated key: the last one wins, as in Kubernetes' reader
          } else {
            out.AddMember(JsonValue(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc),
                          v, alloc);
          }
        }
        return true;
      }
    }
    return true;
  }

  const std::string& error() const { return error_; }
  Position error_at() const { return error_at_; }

 private:
  SourceObject& target_;
  std::string error_;
  Position error_at_;
};

bool is_list(const YAML::Node& doc) {
  if (!doc.IsMap()) return false;
  const YAML::Node kind = doc["kind"];
  const YAML::Node items = doc["items"];
  return kind && kind.IsScalar() && kind.Scalar() == "List" && items && items.IsSequence();
}

}  // namespace

bool plain_scalar_is_string(const std::string& text) {
  YAML::Node node(text);  // a plain scalar: tag "?" as the parser gives it
  node.SetTag("?");
  JsonAllocator alloc;
  JsonValue v;
  convert_scalar(node, v, alloc);
  return v.IsString();
}

Position SourceObject::locate(const std::string& field) const {
  std::string path = field;
  while (!path.empty()) {
    auto it = positions.find(path);
    if (it != positions.end()) return it->second;
    if (path.back() == ']') {
      const std::size_t open = path.rfind('[');
      if (open == std::string::npos) break;
      path.resize(open);
    } else {
      const std::size_t dot = path.rfind('.');
      path.resize(dot == std::string::npos ? 0 : dot);
    }
  }
  return start;
}

LoadedFile load(const std::string& text) {
  LoadedFile file;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    file.syntax_error = SyntaxError{position_of(e.mark), e.msg};
    return file;
  }
  auto add = [&](const YAML::Node& node, std::size_t index) {
    SourceObject obj;
    obj.document = index;
    obj.start = position_of(node.Mark());
    obj.json = std::make_unique<JsonDocument>();
    Converter converter(obj);
    if (!converter.convert(node, *obj.json, obj.json->GetAllocator(), "", 0)) {
      file.syntax_error = SyntaxError{converter.error_at(), converter.error()};
      return false;
    }
    file.objects.push_back(std::move(obj));
    return true;
  };
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const YAML::Node& doc = docs[i];
    if (doc.IsNull() || !doc.IsDefined()) continue;  // an empty document
    if (is_list(doc)) {
      for (const YAML::Node& item : doc["items"]) {
        if (!add(item, i)) return file;
      }
      continue;
    }
    if (!add(doc, i)) return file;
  }
  return file;
}

}  // namespace kpw::check
