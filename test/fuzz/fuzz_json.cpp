// libFuzzer, differential: untrusted bytes through our JSON reader (JsonArena::parse_in_place)
// and through RapidJSON's own reader (UTF-8 validated, iterative). They
// must agree on what is JSON and, when both accept, build equal documents. Our deliberate
// refusals of what RapidJSON accepts: a key repeated in one object, nesting deeper than 128, a
// \u escape holding an unpaired UTF-16 surrogate; and RapidJSON's input ends at a NUL byte.
// RapidJSON's refusals we must share, all.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "json/json.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& input, const std::string& detail) {
  std::fprintf(stderr, "fuzz_json: %s: %s\ninput (%zu bytes): %s\n", what, detail.c_str(),
               input.size(), input.c_str());
  std::abort();
}

using Theirs = rapidjson::Document::ValueType;

// The number tokens of a JSON text in document order (which is the order a walk of its document
// meets numbers), as the referee when the two readers disagree on a double: glibc's strtod is
// correctly rounded, and RapidJSON is not always (it reads "0e50" as 3.0750788930784052e+259).
std::vector<std::string> number_tokens(const std::string& text) {
  std::vector<std::string> out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i;
      while (j < text.size() && std::strchr("0123456789+-.eE", text[j]) != nullptr &&
             text[j] != 0) {
        ++j;
      }
      out.push_back(text.substr(i, j - i));
      i = j - 1;
    }
  }
  return out;
}

struct Walk {
  const std::vector<std::string>& numbers;
  std::size_t next_number = 0;
};

std::string describe(const kpw::JsonValue& v) {
  std::string out;
  kpw::append_json_scalar(out, v);
  return out;
}

// Equal values: same kind, same strings byte for byte, same numbers (integers as integers with
// the same range flags, doubles bit for bit).
bool equal(const kpw::JsonValue& ours, const Theirs& theirs, Walk& walk, std::string& why) {
  if (ours.GetType() != theirs.GetType()) {
    why = "types differ at " + describe(ours);
    return false;
  }
  switch (ours.GetType()) {
    case rapidjson::kNullType:
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return true;
    case rapidjson::kStringType:
      if (ours.GetStringLength() != theirs.GetStringLength() ||
          std::memcmp(ours.GetString(), theirs.GetString(), ours.GetStringLength()) != 0) {
        why = "strings differ: " + describe(ours);
        return false;
      }
      return true;
    case rapidjson::kNumberType: {
      const std::size_t k = walk.next_number++;
      if (ours.IsInt() != theirs.IsInt() || ours.IsUint() != theirs.IsUint() ||
          ours.IsInt64() != theirs.IsInt64() || ours.IsUint64() != theirs.IsUint64() ||
          ours.IsDouble() != theirs.IsDouble()) {
        why = "number kinds differ at " + describe(ours);
        return false;
      }
      if (ours.IsDouble()) {
        const double a = ours.GetDouble(), b = theirs.GetDouble();
        if (std::memcmp(&a, &b, sizeof a) == 0) return true;
        // RapidJSON's rounding is not the referee: strtod of the same token is.
        const double c =
            k < walk.numbers.size() ? std::strtod(walk.numbers[k].c_str(), nullptr) : std::nan("");
        if (std::memcmp(&a, &c, sizeof a) == 0) return true;
        char text[160];
        std::snprintf(text, sizeof text,
                      "doubles differ: ours %.17g, RapidJSON %.17g, strtod %.17g", a, b, c);
        why = text;
        return false;
      }
      if (ours.IsUint64() ? ours.GetUint64() != theirs.GetUint64()
                          : ours.GetInt64() != theirs.GetInt64()) {
        why = "integers differ at " + describe(ours);
        return false;
      }
      return true;
    }
    case rapidjson::kArrayType:
      if (ours.Size() != theirs.Size()) {
        why = "array sizes differ";
        return false;
      }
      for (rapidjson::SizeType i = 0; i < ours.Size(); ++i) {
        if (!equal(ours[i], theirs[i], walk, why)) return false;
      }
      return true;
    case rapidjson::kObjectType: {
      if (ours.MemberCount() != theirs.MemberCount()) {
        why = "member counts differ";
        return false;
      }
      auto t = theirs.MemberBegin();
      for (auto o = ours.MemberBegin(); o != ours.MemberEnd(); ++o, ++t) {
        if (!equal(o->name, t->name, walk, why) || !equal(o->value, t->value, walk, why)) {
          return false;
        }
      }
      return true;
    }
  }
  why = "unknown type";
  return false;
}

// Whether RapidJSON's document holds what we refuse on purpose: a repeated key, more than 128
// levels, or a string with an unpaired surrogate (decoded by RapidJSON to the bytes ED A0..BF xx).
bool holds_what_we_refuse(const Theirs& v, int depth) {
  if (v.IsString()) {
    const char* s = v.GetString();
    for (rapidjson::SizeType i = 0; i + 1 < v.GetStringLength(); ++i) {
      if (static_cast<unsigned char>(s[i]) == 0xED &&
          static_cast<unsigned char>(s[i + 1]) >= 0xA0) {
        return true;
      }
    }
    return false;
  }
  if (v.IsArray() || v.IsObject()) {
    if (depth + 1 > kpw::kMaxJsonDepth) return true;
  }
  if (v.IsArray()) {
    for (const auto& e : v.GetArray()) {
      if (holds_what_we_refuse(e, depth + 1)) return true;
    }
  }
  if (v.IsObject()) {
    for (auto a = v.MemberBegin(); a != v.MemberEnd(); ++a) {
      if (holds_what_we_refuse(a->name, depth + 1) || holds_what_we_refuse(a->value, depth + 1)) {
        return true;
      }
      for (auto b = v.MemberBegin(); b != a; ++b) {
        if (b->name == a->name) return true;
      }
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kpw::JsonArena arena;
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::string text = input;
  const kpw::JsonParseResult ours = arena.parse_in_place(text);

  // RapidJSON's plain string stream, as our previous reader used: its length-based Parse wraps the
  // input in a stream that skips a byte-order mark, even a partial one ("\xEF0" parses as 0).
  // That form ends at the first NUL byte, and we accept no text holding one.
  // Its UTF-8 check reads up to three bytes past a truncated sequence at the end, so the copy it
  // reads carries three more NULs.
  std::string padded = input;
  padded.append(3, '\0');
  rapidjson::Document theirs;
  // Normal precision: RapidJSON 1.1's full-precision path reads out of bounds on long decimals
  // (StrtodDiyFp), and doubles are refereed by strtod anyway.
  theirs.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(
      padded.c_str());

  if (ours.ok) {
    // RapidJSON refuses an exponent past the double range whatever the mantissa ("0e5441" is 0
    // for strtod and for Go): it is wrong only when no number of the text overflows for strtod.
    if (theirs.HasParseError() && theirs.GetParseError() == rapidjson::kParseErrorNumberTooBig) {
      for (const std::string& n : number_tokens(input)) {
        if (std::isinf(std::strtod(n.c_str(), nullptr))) {
          fail("we accepted a number beyond a double", input, n);
        }
      }
      return 0;
    }
    if (theirs.HasParseError()) {
      fail("we accepted what RapidJSON refuses", input,
           rapidjson::GetParseError_En(theirs.GetParseError()));
    }
    std::string why;
    const std::vector<std::string> numbers = number_tokens(input);
    Walk walk{numbers};
    if (!equal(arena.document(), theirs, walk, why)) fail("the documents differ", input, why);
    if (holds_what_we_refuse(theirs, 0)) fail("we accepted what we refuse", input, "");
    return 0;
  }
  if (theirs.HasParseError()) return 0;  // both refuse
  // RapidJSON stops at a NUL byte, so it accepts `0\0` (Go's decoder, and we, refuse a byte after
  // the value).
  if (input.find('\0') != std::string::npos) return 0;
  // RapidJSON accepts a number past the double range when its written exponent is in range
  // ("-40e308"), and stores an infinity; we refuse it, as Go's decoder does.
  if (ours.error.find("too large for a 64-bit floating point") != std::string::npos) {
    for (const std::string& n : number_tokens(input)) {
      if (std::isinf(std::strtod(n.c_str(), nullptr))) return 0;
    }
  }
  // We refused, RapidJSON accepted: only for what we refuse on purpose.
  if (!holds_what_we_refuse(theirs, 0)) fail("we refused valid JSON", input, ours.error);
  return 0;
}
