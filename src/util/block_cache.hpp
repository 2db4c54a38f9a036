// Large blocks kept for reuse by the thread that freed them, on threads that ask for it (the
// review threads). A page the system hands out anew costs a fault (~18 µs on the virtual
// machines of docs/performance.md, where it was most of a large review's time), so a thread that
// judges one large review after another reuses the blocks of the last one; after a quiet second
// it gives them all back (release_this_thread), so RSS returns to its idle level. On every other
// thread allocate/deallocate are malloc/free.
#pragma once

#include <cstddef>

namespace kpw::block_cache {

// Blocks smaller than this are never cached (malloc's own bins serve them).
inline constexpr std::size_t kMinBlockBytes = 128 * 1024;

// Turns caching on for the calling thread, keeping at most `max_bytes` of free blocks.
void enable_for_this_thread(std::size_t max_bytes);

// `size` bytes (at least), from the thread's cache when a block fits; std::bad_alloc when memory
// is out. Pass the same `size` to deallocate.
void* allocate(std::size_t size);
void deallocate(void* block, std::size_t size) noexcept;

// The usable size of a block allocated for `size` (a cached block may be larger than asked).
std::size_t capacity(std::size_t size);

// Frees every cached block of the calling thread. True when there were any.
bool release_this_thread() noexcept;

// At the end of a thread's work: frees every cached block and turns caching off, so that what a
// thread_local destructor frees afterwards (the Lua arena's first chunk, util/lua_syntax) goes
// back to the system instead of into a cache nobody will empty.
void disable_for_this_thread() noexcept;

// Bytes the calling thread keeps in its cache (tests).
std::size_t cached_bytes_this_thread() noexcept;

}  // namespace kpw::block_cache
