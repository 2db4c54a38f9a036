#include "server/memory_trimmer.hpp"

#include <malloc.h>

#include <chrono>

#include "server/metrics.hpp"

namespace kpw {

void MemoryTrimmer::start() {
  timer_.expires_after(std::chrono::seconds(1));
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    pending_ = metrics::take_memory_events() > 0 || pending_;
    if (pending_ && metrics::large_reviews_in_flight() == 0) {
      pending_ = false;
      reviews_.post(ReviewPool::kLast, [] { malloc_trim(0); });
    }
    start();
  });
}

}  // namespace kpw
