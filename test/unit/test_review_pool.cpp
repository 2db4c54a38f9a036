// The review threads' queue: smallest body first, so a medium review never waits behind a queue of
// large ones (docs/operations.md, "Worst case per request").
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/review_pool.hpp"
#include "util/block_cache.hpp"
#include "util/lua_syntax.hpp"

namespace {

// Holds the pool's one thread in a first job until released, so that the jobs posted meanwhile
// queue up and their order is the queue's.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool entered = false;
  bool open = false;
  void hold() {
    std::unique_lock<std::mutex> lock(m);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  void wait_entered() {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [this] { return entered; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(m);
    open = true;
    cv.notify_all();
  }
};

}  // namespace

TEST_CASE("review pool: queued reviews run smallest body first, equal sizes in arrival order") {
  Gate gate;
  std::mutex done_mutex;
  std::condition_variable done_cv;
  std::vector<std::size_t> ran;
  const std::vector<std::size_t> sizes = {3u << 20, 10 << 10, 3u << 20, 1u << 20, 10 << 10};
  {
    kpw::ReviewPool pool(1, 8);
    pool.post(3u << 20, [&] { gate.hold(); });
    gate.wait_entered();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      pool.post(sizes[i], [&, i] {
        std::lock_guard<std::mutex> lock(done_mutex);
        ran.push_back(i);
        done_cv.notify_all();
      });
    }
    pool.post(kpw::ReviewPool::kLast, [&] {
      std::lock_guard<std::mutex> lock(done_mutex);
      ran.push_back(99);
      done_cv.notify_all();
    });
    gate.release();
    std::unique_lock<std::mutex> lock(done_mutex);
    done_cv.wait(lock, [&] { return ran.size() == sizes.size() + 1; });
  }
  // 10 KiB (#1, #4), then 1 MiB (#3), then 3 MiB (#0, #2), then the upkeep.
  CHECK(ran == std::vector<std::size_t>{1, 4, 3, 0, 2, 99});
}

TEST_CASE("review pool: stopping drops the queued jobs and finishes the running one") {
  Gate gate;
  bool finished = false;
  bool dropped_ran = false;
  {
    kpw::ReviewPool pool(1, 8);
    pool.post(1, [&] {
      gate.hold();
      finished = true;
    });
    gate.wait_entered();
    pool.post(2, [&] { dropped_ran = true; });
    std::thread opener([&] { gate.release(); });
    opener.detach();
  }  // ~ReviewPool joins
  CHECK(finished);
  CHECK_FALSE(dropped_ran);
}

TEST_CASE("block cache: a thread that ends gives every block back, even those freed after it ends") {
  namespace bc = kpw::block_cache;
  std::size_t cached = 0, after_disable = 0, freed_after = 1;
  std::thread t([&] {
    bc::enable_for_this_thread(1 << 20);
    void* a = bc::allocate(256 * 1024);
    bc::deallocate(a, 256 * 1024);
    cached = bc::cached_bytes_this_thread();
    void* b = bc::allocate(256 * 1024);  // the cached block again
    bc::disable_for_this_thread();
    after_disable = bc::cached_bytes_this_thread();
    bc::deallocate(b, 256 * 1024);  // as a thread_local destructor would: to the system
    freed_after = bc::cached_bytes_this_thread();
  });
  t.join();
  CHECK(cached == 256 * 1024);
  CHECK(after_disable == 0);
  CHECK(freed_after == 0);
}

// Under AddressSanitizer the process's leak check fails this test if the arena's first chunk,
// which the review thread's thread_local Lua arena frees after the thread's work is done, is
// pushed into a block cache nobody empties (it was, before disable_for_this_thread).
TEST_CASE("review pool: a review thread's Lua arena goes back to the system when the pool stops") {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  bool loaded = false;
  {
    kpw::ReviewPool pool(1, 8);
    pool.post(1, [&] {
      std::string error;
      const bool ok = kpw::lua_script_loads("local x = 1\nreturn x", error);
      std::lock_guard<std::mutex> lock(m);
      loaded = ok;
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return done; });
  }  // ~ReviewPool joins: the thread's Lua arena is destroyed after its work
  CHECK(loaded);
}
