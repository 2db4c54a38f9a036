#include "util/block_cache.hpp"

#include <array>
#include <bit>
#include <cstdlib>
#include <new>

namespace kpw::block_cache {
namespace {

// Free blocks by size class (log2 of their capacity), each list linked through its blocks' first
// bytes.
struct Cache {
  bool enabled = false;
  std::size_t max_bytes = 0;
  std::size_t cached_bytes = 0;
  std::array<void*, 64> free{};
};

thread_local Cache t_cache;

std::size_t size_class(std::size_t capacity) {
  return static_cast<std::size_t>(std::countr_zero(capacity));
}

}  // namespace

void enable_for_this_thread(std::size_t max_bytes) {
  t_cache.enabled = true;
  t_cache.max_bytes = max_bytes;
}

// Large blocks are powers of two on every thread, so that any of them can be cached by whichever
// thread frees it and serve any later request of its class.
std::size_t capacity(std::size_t size) {
  return size < kMinBlockBytes ? size : std::bit_ceil(size);
}

void* allocate(std::size_t size) {
  const std::size_t cap = capacity(size);
  Cache& c = t_cache;
  if (cap >= kMinBlockBytes && c.enabled) {
    void*& head = c.free[size_class(cap)];
    if (head != nullptr) {
      void* block = head;
      head = *static_cast<void**>(block);
      c.cached_bytes -= cap;
      return block;
    }
  }
  void* block = std::malloc(cap);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

void deallocate(void* block, std::size_t size) noexcept {
  if (block == nullptr) return;
  const std::size_t cap = capacity(size);
  Cache& c = t_cache;
  if (cap >= kMinBlockBytes && c.enabled && c.cached_bytes + cap <= c.max_bytes) {
    void*& head = c.free[size_class(cap)];
    *static_cast<void**>(block) = head;
    head = block;
    c.cached_bytes += cap;
    return;
  }
  std::free(block);
}

bool release_this_thread() noexcept {
  Cache& c = t_cache;
  bool any = false;
  for (void*& head : c.free) {
    while (head != nullptr) {
      void* next = *static_cast<void**>(head);
      std::free(head);
      head = next;
      any = true;
    }
  }
  c.cached_bytes = 0;
  return any;
}

void disable_for_this_thread() noexcept {
  release_this_thread();
  t_cache.enabled = false;
}

std::size_t cached_bytes_this_thread() noexcept { return t_cache.cached_bytes; }

}  // namespace kpw::block_cache
