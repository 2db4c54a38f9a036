// Go's text forms where upstream's messages print them: strconv.Quote (`%q`, and `%#v` of a
// string), unicode.IsPrint, and a string's runes as Go's range reads them; strconv.ParseBool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpw {

// One UTF-8 sequence as Go's range over a string reads it: an invalid byte is U+FFFD, 1 byte.
struct Rune {
  char32_t value;
  std::size_t size;
  bool valid;
};
Rune decode_rune(std::string_view s, std::size_t i);

// Go's unicode.IsPrint for the code points it refuses that a name may plausibly hold: controls
// (Cc), format characters (Cf), spaces other than ' ' (Zs), line and paragraph separators, private
// use (Co) and the noncharacters U+FFFE/U+FFFF. Unassigned code points, which Go also refuses, are
// taken as printable (docs/compatibility.md, "ObjectMeta").
bool is_print(char32_t r);

// `v` as `digits` hexadecimal digits.
void append_hex(std::string& out, std::uint32_t v, int digits, bool upper);

// Go's strconv.Quote (what %q and %#v print for a string).
void append_go_quoted(std::string& out, std::string_view s);

// Go's strconv.ParseBool: `1 t T TRUE true True` and `0 f F FALSE false False`, nothing else.
std::optional<bool> parse_go_bool(std::string_view text);

}  // namespace kpw
