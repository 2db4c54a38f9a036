// One pass over the text with Go's grammar (encoding/json's scanner) and Go's decoding rules: a
// value the type reads must have a JSON type it accepts; a struct member no field matches is only
// scanned. The open containers are a bit per depth (object or array) plus, for those the type
// describes, their type: an untyped container (a skipped member) only ever holds untyped ones.
#include "json/go_decode.hpp"

#include <array>
#include <bitset>

namespace kpw::go_json {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
unsigned hex_value(char c) {
  if (is_digit(c)) return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  return static_cast<unsigned>(c - 'A' + 10);
}

// A member name as Go's foldName folds it, kept only while it may still equal a field name: ASCII
// letters upper-cased, and the two runes outside ASCII whose fold orbit holds an ASCII letter (the
// Kelvin sign K, U+212A, with k; the long s, U+017F, with s). Any other rune, or a name longer
// than any field's, cannot match.
class FoldedName {
 public:
  void add(unsigned rune) {
    if (dead_) return;
    if (rune == 0x212A) {
      rune = 'K';
    } else if (rune == 0x017F) {
      rune = 'S';
    } else if (rune >= 0x80) {
      dead_ = true;
      return;
    }
    if (size_ == text_.size()) {
      dead_ = true;
      return;
    }
    char c = static_cast<char>(rune);
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    text_[size_++] = c;
  }
  void kill() { dead_ = true; }

  // The field it names, as Go's decoder matches a member (names compare after folding).
  const Type* field_type(const Type& type) const {
    if (dead_) return nullptr;
    for (const Field& f : type.fields) {
      if (f.name.size() != size_) continue;
      bool same = true;
      for (std::size_t i = 0; i < size_ && same; ++i) {
        char c = f.name[i];
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        same = c == text_[i];
      }
      if (same) return f.type;
    }
    return nullptr;
  }

 private:
  std::array<char, 32> text_{};
  std::size_t size_ = 0;
  bool dead_ = false;
};

class Decoder {
 public:
  explicit Decoder(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool run(const Type& root) {
    skip_space();
    const Type* expect = &root;  // the type of the value to read next; nullptr: any value
    for (;;) {
      if (!value(expect)) return false;
      // After a value: close containers until one has a next element, or the text ends.
      for (;;) {
        skip_space();
        if (depth_ == 0) return p_ == end_;
        if (p_ == end_) return false;
        const char c = *p_++;
        if (c == ',') {
          skip_space();
          if (!objects_[depth_ - 1]) {
            expect = element_type();
          } else if (!member(expect)) {
            return false;
          }
          break;
        }
        if (c != (objects_[depth_ - 1] ? '}' : ']')) return false;
        pop();
      }
    }
  }

 private:
  // Reads one value of type `expect`; a container is opened and its first member (or element)
  // left to read next, with `expect` its type, or closed at once when empty.
  bool value(const Type*& expect) {
    for (;;) {
      if (p_ == end_) return false;
      const char c = *p_;
      if (c == '{') {
        if (expect != nullptr && expect->kind != Kind::kStruct && expect->kind != Kind::kMap) {
          return false;
        }
        ++p_;
        if (!push(true, expect)) return false;
        skip_space();
        if (p_ != end_ && *p_ == '}') {
          ++p_;
          pop();
          return true;
        }
        if (!member(expect)) return false;
        continue;
      }
      if (c == '[') {
        if (expect != nullptr && expect->kind != Kind::kSlice) return false;
        ++p_;
        if (!push(false, expect)) return false;
        skip_space();
        if (p_ != end_ && *p_ == ']') {
          ++p_;
          pop();
          return true;
        }
        expect = element_type();
        continue;
      }
      if (c == '"') {
        ++p_;
        return (expect == nullptr || expect->kind == Kind::kString) && string(nullptr);
      }
      if (c == 'n') return literal("null");
      // A boolean or a number decodes into none of the kinds a Type has.
      if (expect != nullptr) return false;
      if (c == 't') return literal("true");
      if (c == 'f') return literal("false");
      return number();
    }
  }

  // `"name":` of an object member, and the type its value must have.
  bool member(const Type*& expect) {
    if (p_ == end_ || *p_ != '"') return false;
    ++p_;
    const Type* container = container_type();
    FoldedName name;
    if (!string(container != nullptr && container->kind == Kind::kStruct ? &name : nullptr)) {
      return false;
    }
    skip_space();
    if (p_ == end_ || *p_ != ':') return false;
    ++p_;
    skip_space();
    if (container == nullptr) {
      expect = nullptr;
    } else if (container->kind == Kind::kMap) {
      expect = container->element;
    } else {
      expect = name.field_type(*container);
    }
    return true;
  }

  // The rest of a string after its opening quote; its text folded into `name` when given.
  bool string(FoldedName* name) {
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_++);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c == '\\') {
        if (p_ == end_) return false;
        const char e = *p_++;
        unsigned rune = 0;
        switch (e) {
          case '"':
          case '\\':
          case '/':
            rune = static_cast<unsigned char>(e);
            break;
          case 'b':
            rune = '\b';
            break;
          case 'f':
            rune = '\f';
            break;
          case 'n':
            rune = '\n';
            break;
          case 'r':
            rune = '\r';
            break;
          case 't':
            rune = '\t';
            break;
          case 'u':
            if (end_ - p_ < 4) return false;
            for (int i = 0; i < 4; ++i) {
              if (!is_hex(p_[i])) return false;
              rune = rune * 16 + hex_value(p_[i]);
            }
            p_ += 4;
            break;  // a surrogate, paired or not, is outside ASCII: it cannot fold to a field name
          default:
            return false;
        }
        if (name != nullptr) name->add(rune);
      } else if (name != nullptr) {
        add_raw(c, *name);
      }
    }
    return false;
  }

  // A raw byte of a member name (UTF-8): only U+017F (C5 BF) and U+212A (E2 84 AA) fold into ASCII.
  void add_raw(unsigned char c, FoldedName& name) {
    if (c < 0x80) {
      name.add(c);
    } else if (c == 0xC5 && p_ != end_ && static_cast<unsigned char>(*p_) == 0xBF) {
      ++p_;
      name.add(0x017F);
    } else if (c == 0xE2 && end_ - p_ >= 2 && static_cast<unsigned char>(p_[0]) == 0x84 &&
               static_cast<unsigned char>(p_[1]) == 0xAA) {
      p_ += 2;
      name.add(0x212A);
    } else {
      name.kill();  // the rest of the rune's bytes are read as the string goes on
    }
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size()) return false;
    if (std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  bool number() {
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ == end_) return false;
    if (*p_ == '0') {
      ++p_;
    } else if (is_digit(*p_)) {
      while (p_ != end_ && is_digit(*p_)) ++p_;
    } else {
      return false;
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !is_digit(*p_)) return false;
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !is_digit(*p_)) return false;
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    return true;
  }

  void skip_space() {
    while (p_ != end_ && is_space(*p_)) ++p_;
  }

  // Opens a container of type `type` (nullptr: untyped).
  bool push(bool object, const Type* type) {
    if (depth_ == kMaxDepth) return false;  // Go: "exceeded max depth"
    if (type != nullptr) {
      // Only a typed container holds typed values, so the typed ones are the outermost.
      if (typed_depth_ != depth_ || typed_depth_ == kMaxTypedDepth) return false;
      types_[typed_depth_++] = type;
    }
    objects_[depth_++] = object;
    return true;
  }

  void pop() {
    --depth_;
    if (typed_depth_ > depth_) typed_depth_ = depth_;
  }

  const Type* container_type() const {
    return depth_ > 0 && typed_depth_ == depth_ ? types_[depth_ - 1] : nullptr;
  }
  const Type* element_type() const {
    const Type* container = container_type();
    return container == nullptr ? nullptr : container->element;
  }

  const char* p_;
  const char* end_;
  std::size_t depth_ = 0;
  std::size_t typed_depth_ = 0;
  std::bitset<kMaxDepth> objects_;
  std::array<const Type*, kMaxTypedDepth> types_{};
};

}  // namespace

bool decodes_into(std::string_view text, const Type& type) { return Decoder(text).run(type); }

}  // namespace kpw::go_json
