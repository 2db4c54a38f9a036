// Lua 5.2's front end over a per-thread bump arena. Each load gets a fresh lua_State whose every
// byte lives in the arena; the state is dropped by resetting the arena (it holds nothing but
// memory: no library is opened, nothing runs), so no state, interned string or compiled function
// outlives the load, and a warm thread mallocs nothing for a script that fits the first chunk.
//
// Lua reports errors by longjmp: the only Lua call made outside a protected frame is
// lua_newstate (which returns NULL on failure) and lua_gc; luaL_loadbufferx runs the parser in
// Lua's own protected call, so no longjmp crosses a frame of ours, and no C++ object lives across
// the call. The allocator never throws: past the cap it returns NULL, and Lua fails the load with
// LUA_ERRMEM.
#include "util/lua_syntax.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <lua.hpp>
#include <memory>
#include <new>

#include "util/block_cache.hpp"
#include "util/hash.hpp"

namespace kpw {
namespace {

constexpr std::size_t kAlign = alignof(std::max_align_t);
// The chunk every thread keeps: a realistic script (a few KB) loads within it.
constexpr std::size_t kFirstChunkBytes = 256 * 1024;

constexpr std::size_t aligned(std::size_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

struct Chunk {
  Chunk* next;  // the chunk taken before this one
  std::size_t size;
  char* data() { return reinterpret_cast<char*>(this) + aligned(sizeof(Chunk)); }
};

// Bytes bump-allocated from a list of chunks; a free gives back only the last block (which is
// what the lexer's buffer and the parser's growing vectors mostly do), everything else at reset.
class Arena {
 public:
  ~Arena() {
    reset();
    if (first_ != nullptr) free_chunk(first_);
  }

  // Ready for a load: every chunk but the first freed, the first emptied.
  bool start() {
    reset();
    if (first_ == nullptr) {
      first_ = new_chunk(kFirstChunkBytes - aligned(sizeof(Chunk)));
      if (first_ == nullptr) return false;
    }
    use(first_);
    handed_ = 0;
    peak_ = 0;
    mallocs_ = 0;
    return true;
  }

  void reset() {
    while (current_ != nullptr && current_ != first_) {
      Chunk* previous = current_->next;
      free_chunk(current_);
      current_ = previous;
    }
    last_ = nullptr;
  }

  std::size_t peak() const { return peak_; }
  std::size_t mallocs() const { return mallocs_; }

  static void* lua_alloc(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
    Arena& a = *static_cast<Arena*>(ud);
    if (ptr == nullptr) osize = 0;  // Lua 5.2 passes the object's type there
    if (nsize == 0) {
      if (ptr != nullptr && ptr == a.last_) a.roll_back();
      return nullptr;
    }
    if (ptr != nullptr && nsize <= osize) {  // shrinking never fails (Lua relies on it)
      if (ptr == a.last_) a.resize_last(nsize);
      return ptr;
    }
    if (ptr != nullptr && ptr == a.last_ && static_cast<char*>(ptr) + aligned(nsize) <= a.end_ &&
        a.handed_ + aligned(nsize) - aligned(osize) <= kLuaMemoryCap) {
      a.resize_last(nsize);
      return ptr;
    }
    void* block = a.bump(nsize);
    if (block != nullptr && ptr != nullptr) std::memcpy(block, ptr, osize);
    return block;
  }

 private:
  // From the thread's block cache: a review thread that loads one large script after another
  // reuses the pages of the last one instead of faulting fresh ones in (util/block_cache.hpp).
  // Never throws (Lua's C frames may be below): out of memory is nullptr.
  Chunk* new_chunk(std::size_t size) {
    const std::size_t block = block_cache::capacity(aligned(sizeof(Chunk)) + size);
    void* raw = nullptr;
    try {
      raw = block_cache::allocate(block);
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    ++mallocs_;
    return new (raw) Chunk{nullptr, block - aligned(sizeof(Chunk))};
  }

  static void free_chunk(Chunk* c) { block_cache::deallocate(c, aligned(sizeof(Chunk)) + c->size); }

  void use(Chunk* c) {
    current_ = c;
    top_ = c->data();
    end_ = top_ + c->size;
  }

  void* bump(std::size_t n) {
    const std::size_t size = aligned(n);
    if (handed_ + size > kLuaMemoryCap) return nullptr;
    if (static_cast<std::size_t>(end_ - top_) < size) {
      // Blocks double (a power of two is what the block cache keeps), up to the cap.
      const std::size_t header = aligned(sizeof(Chunk));
      const std::size_t want =
          std::max(size, std::min(2 * (current_->size + header), kLuaMemoryCap) - header);
      Chunk* c = new_chunk(want);
      if (c == nullptr) return nullptr;
      c->next = current_;
      use(c);
    }
    last_ = top_;
    last_size_ = size;
    top_ += size;
    handed_ += size;
    peak_ = std::max(peak_, handed_);
    return last_;
  }

  void roll_back() {
    top_ = last_;
    handed_ -= last_size_;
    last_ = nullptr;
  }

  void resize_last(std::size_t n) {
    const std::size_t size = aligned(n);
    handed_ = handed_ - last_size_ + size;
    peak_ = std::max(peak_, handed_);
    last_size_ = size;
    top_ = last_ + size;
  }

  Chunk* first_ = nullptr;
  Chunk* current_ = nullptr;
  char* top_ = nullptr;
  char* end_ = nullptr;
  char* last_ = nullptr;  // the last block handed out, while it is still the top one
  std::size_t last_size_ = 0;
  std::size_t handed_ = 0;
  std::size_t peak_ = 0;
  std::size_t mallocs_ = 0;
};

thread_local Arena t_arena;

// The scripts this thread has seen load: their keyed hashes (kLuaRememberedScripts slots, looked
// through in order: a constant bound) and their bytes, side by side in one buffer taken from the
// system once, at the first script remembered.
class RememberedScripts {
 public:
  bool contains(std::uint64_t hash, std::string_view script) const {
    for (std::size_t i = 0; i < count_; ++i) {
      const Entry& e = entries_[i];
      if (e.hash == hash && e.size == script.size() &&
          std::memcmp(bytes_.get() + e.offset, script.data(), script.size()) == 0) {
        return true;
      }
    }
    return false;
  }

  void add(std::uint64_t hash, std::string_view script) {
    if (script.size() > kLuaRememberedScriptBytes) return;
    if (count_ == entries_.size() || used_ + script.size() > kLuaRememberedBytes) clear();
    if (bytes_ == nullptr) bytes_.reset(new (std::nothrow) char[kLuaRememberedBytes]);
    if (bytes_ == nullptr) return;
    std::memcpy(bytes_.get() + used_, script.data(), script.size());
    entries_[count_++] = Entry{hash, used_, script.size()};
    used_ += script.size();
  }

  void clear() {
    count_ = 0;
    used_ = 0;
  }

  std::size_t count() const { return count_; }
  std::size_t bytes() const { return used_; }

 private:
  struct Entry {
    std::uint64_t hash = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
  };
  std::array<Entry, kLuaRememberedScripts> entries_{};
  std::size_t count_ = 0;
  std::size_t used_ = 0;
  std::unique_ptr<char[]> bytes_;
};

thread_local RememberedScripts t_remembered;
thread_local LuaMemoryFigures t_memory_figures;

// Never reached: every Lua call that can raise an error runs protected (see the top of the file).
int lua_panic(lua_State*) { std::abort(); }

// What Lua 5.2 reads that gopher-lua, upstream's parser (and the Lua that runs the scripts in
// Karmada's controllers), does not: the `\z` escape and hexadecimal floats (`0x1p4`, `0x1.8`).
// Scans a script Lua 5.2 has loaded (so lexically valid): comments, long brackets, short strings
// and numbers, in one pass. The first such token as `<string>:<line>: <why> near '<token>'`, or
// false.
std::size_t long_bracket_level(std::string_view s, std::size_t i) {  // at '[': level, or npos
  std::size_t j = i + 1;
  while (j < s.size() && s[j] == '=') ++j;
  return j < s.size() && s[j] == '[' ? j - i - 1 : std::string_view::npos;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_word(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool outside_upstream_dialect(std::string_view s, std::string& error) {
  std::size_t line = 1;
  auto report = [&](std::size_t from, std::size_t to, std::string_view why) {
    error = "<string>:" + std::to_string(line) + ": ";
    error += why;
    error += " near '";
    error += s.substr(from, std::min<std::size_t>(to - from, 40));
    error += "'";
    return true;
  };
  // Past the long bracket of `level` opened before `i`, counting lines.
  auto skip_long = [&](std::size_t i, std::size_t level) {
    for (; i < s.size(); ++i) {
      if (s[i] == '\n') ++line;
      if (s[i] != ']') continue;
      std::size_t j = i + 1;
      while (j < s.size() && s[j] == '=') ++j;
      if (j < s.size() && s[j] == ']' && j - i - 1 == level) return j + 1;
    }
    return s.size();
  };
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {  // a comment
      i += 2;
      if (i < s.size() && s[i] == '[') {
        if (const std::size_t level = long_bracket_level(s, i); level != std::string_view::npos) {
          i = skip_long(i + level + 2, level);
          continue;
        }
      }
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '[') {
      const std::size_t level = long_bracket_level(s, i);
      i = level == std::string_view::npos ? i + 1 : skip_long(i + level + 2, level);
    } else if (c == '"' || c == '\'') {
      const std::size_t start = i++;
      for (; i < s.size() && s[i] != c; ++i) {
        if (s[i] != '\\') continue;
        if (++i >= s.size()) break;
        if (s[i] == 'z') return report(start, i + 1, "escape '\\z' is not in upstream's dialect");
        if (s[i] == '\n') ++line;
      }
      ++i;
    } else if (c == '.' && i + 1 < s.size() && s[i + 1] == '.') {  // `..`, `...`
      i += 2;
    } else if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      const std::size_t start = i;
      if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        while (i < s.size() && is_hex(s[i])) ++i;
        if (i < s.size() && (s[i] == '.' || s[i] == 'p' || s[i] == 'P')) {
          std::size_t end = i + 1;
          while (end < s.size() &&
                 (is_word(s[end]) || s[end] == '.' || s[end] == '+' || s[end] == '-')) {
            ++end;
          }
          return report(start, end, "a hexadecimal float is not in upstream's dialect");
        }
      }
      while (i < s.size() &&
             (is_word(s[i]) || s[i] == '.' ||
              ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E')))) {
        ++i;
      }
    } else if (is_word(c)) {
      while (i < s.size() && is_word(s[i])) ++i;
    } else {
      ++i;
    }
  }
  return false;
}

}  // namespace

bool lua_script_loads(std::string_view script, std::string& error, LuaLoadFigures* figures) {
  Arena& arena = t_arena;
  error.clear();
  bool ok = false;
  if (!arena.start()) {
    error = kLuaOutOfMemory;
  } else if (lua_State* L = lua_newstate(&Arena::lua_alloc, &arena); L == nullptr) {
    error = kLuaOutOfMemory;
  } else {
    lua_atpanic(L, &lua_panic);
    lua_gc(L, LUA_GCSTOP, 0);  // frees are (mostly) no-ops here: collecting would only cost time
    const int status = luaL_loadbufferx(L, script.data(), script.size(), "=<string>", "t");
    ok = status == LUA_OK;
    if (status == LUA_ERRMEM) {
      error = kLuaOutOfMemory;
    } else if (!ok) {
      std::size_t size = 0;
      const char* text = lua_tolstring(L, -1, &size);
      error = text != nullptr ? std::string_view(text, size) : "the script does not load";
    }
    // No lua_close: the state is nothing but arena memory, dropped below.
  }
  if (figures != nullptr) *figures = LuaLoadFigures{arena.peak(), arena.mallocs()};
  arena.reset();
  if (ok && outside_upstream_dialect(script, error)) return false;
  return ok;
}

bool lua_script_loads_remembered(std::string_view script, std::string& error) {
  if (script.size() > kLuaRememberedScriptBytes) {  // never remembered: not worth a hash
    ++t_memory_figures.parsed;
    return lua_script_loads(script, error);
  }
  const std::uint64_t hash = keyed_hash(script);
  if (t_remembered.contains(hash, script)) {
    ++t_memory_figures.found;
    error.clear();
    return true;
  }
  ++t_memory_figures.parsed;
  if (!lua_script_loads(script, error)) return false;
  t_remembered.add(hash, script);
  return true;
}

LuaMemoryFigures lua_memory_figures() {
  LuaMemoryFigures figures = t_memory_figures;
  figures.scripts = t_remembered.count();
  figures.bytes = t_remembered.bytes();
  return figures;
}

void lua_forget_scripts() { t_remembered.clear(); }

}  // namespace kpw
