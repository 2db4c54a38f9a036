// A small, strict RFC 6902 applier (add / replace / remove) for tests: it fails where a real
// JSON Patch implementation would (missing parent, replace of an absent key, bad index).
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>
#include <vector>

namespace kpw::test {

inline std::vector<std::string> split_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  std::size_t pos = 1;
  while (true) {
    std::size_t next = pointer.find('/', pos);
    std::string raw(pointer.substr(pos, next == std::string_view::npos ? next : next - pos));
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token.push_back(raw[i + 1] == '0' ? '~' : '/');
        ++i;
      } else {
        token.push_back(raw[i]);
      }
    }
    tokens.push_back(token);
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return tokens;
}

// Applies `patch` (a JSON array text) to `doc`; returns "" or what went wrong.
inline std::string apply_patch(rapidjson::Document& doc, const std::string& patch_text) {
  rapidjson::Document patch;
  if (patch.Parse(patch_text.c_str()).HasParseError() || !patch.IsArray()) return "not a JSON array";
  auto& alloc = doc.GetAllocator();
  for (auto& op : patch.GetArray()) {
    if (!op.IsObject() || !op.HasMember("op") || !op.HasMember("path")) return "malformed op";
    std::string kind = op["op"].GetString();
    std::vector<std::string> tokens = split_pointer(op["path"].GetString());
    if (tokens.empty()) return "whole-document ops are not expected";
    rapidjson::Value* parent = &doc;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (parent->IsObject()) {
        auto it = parent->FindMember(tokens[i].c_str());
        if (it == parent->MemberEnd()) return "missing parent " + tokens[i];
        parent = &it->value;
      } else if (parent->IsArray()) {
        std::size_t idx = std::stoul(tokens[i]);
        if (idx >= parent->Size()) return "index out of range";
        parent = &(*parent)[static_cast<rapidjson::SizeType>(idx)];
      } else {
        return "parent is not a container";
      }
    }
    const std::string& last = tokens.back();
    rapidjson::Value value;
    if (op.HasMember("value")) value.CopyFrom(op["value"], alloc);
    if (parent->IsObject()) {
      auto it = parent->FindMember(last.c_str());
      if (kind == "add") {
        if (it != parent->MemberEnd()) {
          it->value = value;
        } else {
          parent->AddMember(rapidjson::Value(last.c_str(), alloc), value, alloc);
        }
      } else if (kind == "replace") {
        if (it == parent->MemberEnd()) return "replace of absent key " + last;
        it->value = value;
      } else if (kind == "remove") {
        if (it == parent->MemberEnd()) return "remove of absent key " + last;
        parent->EraseMember(it);
      } else {
        return "unexpected op " + kind;
      }
    } else if (parent->IsArray()) {
      if (kind == "add" && last == "-") {
        parent->PushBack(value, alloc);
      } else {
        std::size_t idx = std::stoul(last);
        if (kind == "add") {
          if (idx > parent->Size()) return "index out of range";
          parent->PushBack(rapidjson::Value(), alloc);
          for (std::size_t k = parent->Size() - 1; k > idx; --k) {
            (*parent)[static_cast<rapidjson::SizeType>(k)] =
                (*parent)[static_cast<rapidjson::SizeType>(k - 1)];
          }
          (*parent)[static_cast<rapidjson::SizeType>(idx)] = value;
        } else if (kind == "replace") {
          if (idx >= parent->Size()) return "index out of range";
          (*parent)[static_cast<rapidjson::SizeType>(idx)] = value;
        } else {
          return "unexpected op on array " + kind;
        }
      }
    } else {
      return "parent is not a container";
    }
  }
  return "";
}

}  // namespace kpw::test
