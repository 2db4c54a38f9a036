#include "server/review_pool.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <exception>

#include "admission/service.hpp"
#include "server/metrics.hpp"
#include "util/block_cache.hpp"
#include "util/log.hpp"

namespace kpw {
namespace {

// Below the I/O threads (nice 0): when both want a core, the scheduler gives the I/O threads
// ~10 times the share, so ordinary reviews keep their latency while a large one is judged. Raising
// one's own nice value needs no privilege.
constexpr int kReviewThreadNice = 10;

void lower_priority() {
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  ::setpriority(PRIO_PROCESS, tid, kReviewThreadNice);
}

// A review thread keeps what its last large reviews freed while more keep coming, and gives it
// back after a quiet second (util/block_cache.hpp).
constexpr auto kQuiet = std::chrono::seconds(1);

}  // namespace

void prepare_review_thread() { block_cache::enable_for_this_thread(kReviewCacheBytes); }

ReviewPool::ReviewPool(unsigned threads, std::size_t max_in_flight)
    : context_(static_cast<int>(threads)), max_in_flight_(max_in_flight) {
  guard_.emplace(boost::asio::make_work_guard(context_));
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      lower_priority();
      prepare_review_thread();
      // A job's own recovery boundary answers what a review throws; this one keeps the thread
      // alive should anything else escape.
      for (;;) {
        try {
          run();
          return;
        } catch (const std::exception& e) {
          metrics::connection_failed();
          log::error("a large review's job failed; its connection was closed",
                     {{"error", e.what()}});
        } catch (...) {
          metrics::connection_failed();
          log::error("a large review's job failed; its connection was closed");
        }
      }
    });
  }
}

void ReviewPool::run() {
  bool busy = false;
  while (!context_.stopped()) {
    if (context_.run_one_for(kQuiet) > 0) {
      busy = true;
    } else if (busy) {
      busy = false;
      block_cache::release_this_thread();
      release_review_memory();
    }
  }
  block_cache::release_this_thread();
}

ReviewPool::~ReviewPool() {
  guard_.reset();
  context_.stop();
  for (std::thread& t : threads_) t.join();
}

bool ReviewPool::try_acquire() {
  std::size_t n = in_flight_.load(std::memory_order_relaxed);
  while (n < max_in_flight_) {
    if (in_flight_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return true;
  }
  return false;
}

void ReviewPool::release() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace kpw
