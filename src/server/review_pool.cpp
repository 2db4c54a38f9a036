#include "server/review_pool.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>

#include "admission/service.hpp"
#include "server/metrics.hpp"
#include "util/block_cache.hpp"
#include "util/log.hpp"

namespace kpw {
namespace {

// Below the I/O threads, never starved: SCHED_BATCH at 5 nice levels below the process. A batch
// thread never preempts one that is running, and an I/O thread that wakes up (an ordinary review
// arrives) weighs three times as much, so it gets the core first and most of it while both want
// it. Neither needs a privilege. Under a load that keeps every core busy with I/O threads, large
// reviews get a quarter of a core each: they are the ones that can wait, but not forever. (Until
// 0.1.0 they ran at SCHED_IDLE, which gave them almost nothing beside any other busy process on
// a node without a cgroup of their own: 10 KiB policies timed out behind one large review.)
constexpr int kReviewNiceOffset = 5;

void lower_priority() {
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  sched_param param{};
  ::sched_setscheduler(static_cast<pid_t>(tid), SCHED_BATCH, &param);
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0) ::setpriority(PRIO_PROCESS, tid, std::min(19, nice + kReviewNiceOffset));
}

// A review thread keeps what its last large reviews freed while more keep coming, and gives it
// back after a quiet second (util/block_cache.hpp).
constexpr auto kQuiet = std::chrono::seconds(1);

}  // namespace

void prepare_review_thread() { block_cache::enable_for_this_thread(kReviewCacheBytes); }

ReviewPool::ReviewPool(unsigned threads, std::size_t max_in_flight, bool background)
    : max_in_flight_(max_in_flight) {
  queue_.reserve(max_in_flight + 2);
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    threads_.emplace_back([this, background] {
      if (background) {
        lower_priority();
        prepare_review_thread();
      }
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

void ReviewPool::post(std::size_t bytes, std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    queue_.push_back(Queued{bytes, next_order_++, std::move(job)});
    std::push_heap(queue_.begin(), queue_.end(), later);
  }
  queue_ready_.notify_one();
}

void ReviewPool::run() {
  bool busy = false;
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_ready_.wait_for(lock, kQuiet, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      if (!queue_.empty()) {
        std::pop_heap(queue_.begin(), queue_.end(), later);
        job = std::move(queue_.back().job);
        queue_.pop_back();
      }
    }
    if (job) {
      busy = true;
      job();
    } else if (busy) {
      busy = false;
      block_cache::release_this_thread();
      release_review_memory();
      std::vector<std::string> drop;
      {
        std::lock_guard<std::mutex> lock(buffers_mutex_);
        drop.swap(buffers_);
      }
    }
  }
  // Not only released: thread_local destructors still to run (the Lua arena's) free into it.
  block_cache::disable_for_this_thread();
}

ReviewPool::~ReviewPool() {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    stopping_ = true;
  }
  queue_ready_.notify_all();
  for (std::thread& t : threads_) t.join();
  queue_.clear();  // the queued reviews are dropped, as their connections are
}

bool ReviewPool::try_acquire() {
  std::size_t n = in_flight_.load(std::memory_order_relaxed);
  while (n < max_in_flight_) {
    if (in_flight_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return true;
  }
  return false;
}

void ReviewPool::release() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }

std::string ReviewPool::take_buffer() {
  std::lock_guard<std::mutex> lock(buffers_mutex_);
  if (buffers_.empty()) return {};
  std::string buffer = std::move(buffers_.back());
  buffers_.pop_back();
  return buffer;
}

void ReviewPool::give_buffer(std::string&& buffer) {
  buffer.clear();
  std::lock_guard<std::mutex> lock(buffers_mutex_);
  if (buffers_.size() < max_in_flight_) buffers_.push_back(std::move(buffer));
}

}  // namespace kpw
