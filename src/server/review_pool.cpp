#include "server/review_pool.hpp"

#include <sched.h>
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

// Below the I/O threads: SCHED_IDLE, so that an I/O thread that wakes up (an ordinary review
// arrives) always takes the core at once, whatever share a large review has had (nice alone
// leaves it its slice); and nice 19 should the policy not be available. Neither needs a privilege.
// Under a load that keeps every core busy with I/O threads, large reviews wait: they are the ones
// that can.
void lower_priority() {
  const auto tid = static_cast<pid_t>(::syscall(SYS_gettid));
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19);
  sched_param param{};
  ::sched_setscheduler(tid, SCHED_IDLE, &param);
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
      std::vector<std::string> drop;
      {
        std::lock_guard<std::mutex> lock(buffers_mutex_);
        drop.swap(buffers_);
      }
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
