// The review threads' queue: smallest body first, so a medium review never waits behind a queue of
// large ones (docs/operations.md, "Worst case per request").
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "server/review_pool.hpp"

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
