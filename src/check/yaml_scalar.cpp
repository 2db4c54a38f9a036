#include "check/yaml_scalar.hpp"

#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <string_view>

namespace kpw::check {
namespace {

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

}  // namespace

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

bool plain_scalar_is_string(const std::string& text) {
  JsonAllocator alloc;
  JsonValue v;
  convert_scalar(text, "?", v, alloc);  // "?": a plain scalar, as the parser tags it
  return v.IsString();
}

}  // namespace kpw::check
