#include "json/json_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "json/json_tokens.hpp"
#include "json/key_index.hpp"

namespace kpw {
namespace {

using json_keys::fingerprint;
using json_keys::KeyIndex;
using json_keys::KeyState;
using json_keys::kScanLimit;
using json_keys::SeenKey;

// Recursive descent over the text, one function per JSON production (the tokens' in
// json_tokens.hpp). Recursion is bounded by kMaxJsonDepth: a container deeper than that is
// refused before it is descended into.
class Reader : json_tokens::Tokens {
 public:
  Reader(char* text, std::size_t size, JsonDocument& doc, KeyState& keys)
      : Tokens(text, size, doc), keys_(keys.keys), index_(keys.index) {}

  JsonReadResult read() {
    skip_whitespace();
    if (p_ == end_) {
      fail(JsonReadError::kSyntax, "the document is empty");
    } else if (value(0)) {
      skip_whitespace();
      if (p_ != end_) syntax("the document root must not be followed by other values");
    }
    if (index_.size() != 0) forget_open_objects();
    return result_;
  }

 private:
  // A value at p_, after any whitespace (compact JSON, what the API server sends, has none, so
  // callers do not look for it first).
  bool value(int depth) {
    switch (*p_) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"':
        return string_value();
      case 't':
        return literal("true") && doc_.Bool(true);
      case 'f':
        return literal("false") && doc_.Bool(false);
      case 'n':
        return literal("null") && doc_.Null();
      case ' ':
      case '\n':
      case '\r':
      case '\t':
        skip_whitespace();
        return value(depth);
      default:
        return number();
    }
  }

  // A member's value or an array's element. Most are strings: read here, without the call to
  // value() (whose entry and exit, saving the registers the descent needs, cost more than a short
  // string does); an object or an array is descended into without it too.
  [[gnu::always_inline]] bool item(int depth) {
    switch (*p_) {
      case '"':
        return string_value();
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      default:
        return value(depth);
    }
  }

  [[gnu::always_inline]] bool string_value() {
    std::string_view s;
    return string(s) && doc_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()), false);
  }

  bool object(int depth) {
    if (depth > kMaxJsonDepth) return fail(JsonReadError::kTooDeep, {});
    ++p_;
    doc_.StartObject();
    const std::size_t first_key = keys_.size();
    std::uint64_t seen = 0;  // a Bloom filter of this object's keys; all ones once it is indexed
    bool indexed = false;    // its keys have entries in the KeyIndex
    rapidjson::SizeType members = 0;
    skip_whitespace();
    if (*p_ == '}') {
      ++p_;
      return doc_.EndObject(0);
    }
    for (;;) {
      if (*p_ != '"') return syntax("an object member must start with a name in double quotes");
      if (!key(first_key, seen, indexed)) return false;
      if (!at(':')) return syntax("a ':' must follow the name of an object member");
      ++p_;
      if (!item(depth)) return false;
      ++members;
      if (*p_ != ',' && *p_ != '}') skip_whitespace();
      if (*p_ == '}') break;
      if (*p_ != ',') return syntax("a ',' or '}' must follow an object member");
      ++p_;
      skip_whitespace();
    }
    ++p_;
    if (indexed) unindex(first_key);
    keys_.resize(first_key);
    return doc_.EndObject(members);
  }

  bool array(int depth) {
    if (depth > kMaxJsonDepth) return fail(JsonReadError::kTooDeep, {});
    ++p_;
    doc_.StartArray();
    rapidjson::SizeType elements = 0;
    if (at(']')) {
      ++p_;
      return doc_.EndArray(0);
    }
    for (;;) {
      if (!item(depth)) return false;
      ++elements;
      if (*p_ != ',' && *p_ != ']') skip_whitespace();
      if (*p_ == ']') break;
      if (*p_ != ',') return syntax("a ',' or ']' must follow an array element");
      ++p_;
    }
    ++p_;
    return doc_.EndArray(elements);
  }

  // An object member's name, refused when the object already has it. The keys are compared
  // only when the object's Bloom filter says one of them may be this one.
  bool key(std::size_t first_key, std::uint64_t& seen, bool& indexed) {
    char* const at = p_;
    std::string_view k;
    if (!string(k)) return false;
    std::uint64_t f = fingerprint(k);
    const std::uint64_t bit = std::uint64_t{1} << ((f * 0x9E3779B97F4A7C15ULL) >> 58);
    if ((seen & bit) != 0) {
      if (keys_.size() - first_key < kScanLimit) {
        for (std::size_t i = first_key; i < keys_.size(); ++i) {
          if (keys_[i].fingerprint == f && std::memcmp(keys_[i].text, k.data(), k.size()) == 0) {
            p_ = at;
            return fail(JsonReadError::kDuplicateKey, k);
          }
        }
      } else {
        // Past kScanLimit keys, through the KeyIndex, into which the object's earlier keys go
        // first; its filter is then made full, so that every later key comes here too.
        if (!indexed) {
          index_object(first_key);
          indexed = true;
          seen = ~std::uint64_t{0};
        }
        const std::optional<std::uint64_t> entered = index_key(first_key, k);
        if (!entered) {
          p_ = at;
          return fail(JsonReadError::kDuplicateKey, k);
        }
        f = *entered;
      }
    }
    seen |= bit;
    keys_.push_back(SeenKey{f, k.data()});
    return doc_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()), false);
  }

  // Enters the keys read so far of the object whose first key is `first`, all distinct.
  [[gnu::noinline]] void index_object(std::size_t first) {
    index_.reserve(keys_.size() - first);
    for (std::size_t i = first; i < keys_.size(); ++i) {
      const std::string_view k(keys_[i].text, static_cast<std::uint32_t>(keys_[i].fingerprint));
      const std::uint32_t h = index_.hash(first, k);
      index_.insert(h, first, i, k, keys_);
      keys_[i].fingerprint = KeyIndex::indexed_fingerprint(h, k);
    }
  }

  // Enters `k`, the next key of the indexed object whose first key is `first`: its indexed
  // fingerprint, or nothing when the object already has it.
  [[gnu::noinline]] std::optional<std::uint64_t> index_key(std::size_t first, std::string_view k) {
    index_.reserve(1);
    const std::uint32_t h = index_.hash(first, k);
    if (!index_.insert(h, first, keys_.size(), k, keys_)) return std::nullopt;
    return KeyIndex::indexed_fingerprint(h, k);
  }

  // Removes the entries of the object whose first key is `first`, at its end. When they are all
  // the table holds and fill a fair part of it, the table is wiped in one sequential pass: erasing
  // a few hundred thousand keys one by one was a cache miss each.
  [[gnu::noinline]] void unindex(std::size_t first) {
    if (index_.wipe_if_only(keys_.size() - first)) return;
    for (std::size_t i = first; i < keys_.size(); ++i) {
      index_.erase(static_cast<std::uint32_t>(keys_[i].fingerprint >> 32), i);
    }
  }

  // After a refusal, the entries of the indexed objects left open, which the next read must not
  // see. Keys of objects that were not indexed have no entry and are simply not found.
  [[gnu::noinline]] void forget_open_objects() { unindex(0); }

  std::vector<SeenKey>& keys_;  // of the objects being read, innermost last
  KeyIndex& index_;
};

}  // namespace

namespace {
// Per thread, so that a read allocates nothing once it has grown.
thread_local KeyState t_keys;
}  // namespace

void release_json_reader_memory() { t_keys = KeyState{}; }

JsonReadResult read_json_in_place(char* text, std::size_t size, JsonDocument& doc) {
  KeyState& keys = t_keys;
  keys.keys.clear();
  JsonReadResult result;
  auto generate = [&](JsonDocument& d) {
    result = Reader(text, size, d, keys).read();
    return result.error == JsonReadError::kNone;
  };
  doc.Populate(generate);
  if (result.error != JsonReadError::kNone) doc.SetNull();
  return result;
}

}  // namespace kpw
