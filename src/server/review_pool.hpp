// Threads that judge large reviews off the I/O threads, at a lower CPU priority: with every rule
// linear, a body's size bounds its cost, so a tenant's 3 MiB policy is judged here while the I/O
// threads go on answering everyone's 2 KB ones. Bounded: at most `max_in_flight` large reviews
// are queued or judged at once (a slot is taken once a body has arrived; the bytes of bodies in
// flight have a bound of their own, ServerOptions::max_body_bytes_in_flight); a caller that gets
// no slot refuses the request (HTTP 429 with Retry-After, which the API server retries). Queued
// reviews are judged smallest body first: a tenant's 10 KiB mutation waits for the large review
// being judged, never behind a queue of another tenant's 3 MiB ones.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kpw {

// Free memory a review thread keeps for its next large review (at most; util/block_cache.hpp):
// about what judging the largest body takes (docs/operations.md "Worst case per request").
inline constexpr std::size_t kReviewCacheBytes = 96 * 1024 * 1024;

// Makes the calling thread judge as a review thread does (its block cache on); the benchmarks'
// stand-ins for it call this too.
void prepare_review_thread();

class ReviewPool {
 public:
  // `background`: the threads run below the I/O threads (SCHED_BATCH, nice +5) and keep a block
  // cache for large bodies (the large reviews' pool); otherwise at the I/O threads' priority,
  // without one (reviews that wait on the API server while holding a namespace's turn: RB-2).
  ReviewPool(unsigned threads, std::size_t max_in_flight, bool background = true);
  ~ReviewPool();  // finishes the review being judged, drops the queued ones, joins
  ReviewPool(const ReviewPool&) = delete;
  ReviewPool& operator=(const ReviewPool&) = delete;

  // A slot for one large review, held from the arrival of its body to its answer; false when all
  // are taken.
  bool try_acquire();
  void release();

  // A buffer for a large body, with the capacity a previous one left (a page the system hands out
  // anew costs a fault: receiving a 3 MiB body into fresh memory cost its I/O thread ~14 ms on
  // the virtual machines of docs/performance.md, beside the ordinary reviews it also serves). At
  // most one per slot is kept, and none after a quiet second. Called for bodies announced as
  // large only: the lock is never on the path of an ordinary review.
  std::string take_buffer();
  void give_buffer(std::string&& buffer);
  std::size_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
  std::size_t max_in_flight() const { return max_in_flight_; }

  // Runs `job` on a pool thread, after the queued jobs of fewer `bytes` (then in arrival order);
  // the caller holds a slot, which `job` releases. Upkeep that holds no slot (bytes = kLast) runs
  // after every review queued.
  static constexpr std::size_t kLast = std::numeric_limits<std::size_t>::max();
  void post(std::size_t bytes, std::function<void()> job);

 private:
  struct Queued {
    std::size_t bytes;
    std::uint64_t order;
    std::function<void()> job;
  };
  // std::push_heap keeps the greatest on top: the greatest is the smallest body, then the oldest.
  static bool later(const Queued& a, const Queued& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.order > b.order;
  }

  // Runs jobs; after a quiet second without any, gives back what the thread kept.
  void run();

  std::mutex queue_mutex_;  // taken by slot holders only, never on an ordinary review's path
  std::condition_variable queue_ready_;
  std::vector<Queued> queue_;  // a heap by later(); as long as the slots in flight, plus upkeep
  std::uint64_t next_order_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> in_flight_{0};
  std::size_t max_in_flight_;
  std::mutex buffers_mutex_;
  std::vector<std::string> buffers_;
};

}  // namespace kpw
