// A strict RFC 8259 reader that decodes a JSON text in place into a RapidJSON document, refusing
// what no AdmissionReview may hold: nesting deeper than kMaxJsonDepth, a key repeated within one
// object, a \u escape holding an unpaired UTF-16 surrogate.
#pragma once

#include <cstddef>
#include <string_view>

#include "json/json.hpp"

namespace kpw {

enum class JsonReadError {
  kNone,
  kSyntax,
  kInvalidUtf8,  // in a string (outside strings any byte >= 0x80 is a syntax error)
  kTooDeep,
  kDuplicateKey,
  kLoneSurrogate,
};

struct JsonReadResult {
  JsonReadError error = JsonReadError::kNone;
  std::size_t offset = 0;   // of the byte where reading stopped
  std::string_view detail;  // kSyntax: what is wrong; kDuplicateKey: the key (in the text)
};

// Reads `text[0, size)`, which must be followed by a readable NUL byte, as a std::string's data()
// is: strings are scanned sixteen bytes at a time, and a scan never passes that NUL. Strings are
// decoded in place and NUL-terminated; the document's strings point into `text`, which must
// outlive it. On failure `doc` is left empty (null).
JsonReadResult read_json_in_place(char* text, std::size_t size, JsonDocument& doc);

// Gives back what the calling thread's reads grew (the key stack and index of a huge object).
void release_json_reader_memory();

}  // namespace kpw
