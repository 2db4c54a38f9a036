// Gives memory back to the system after the events that leave glibc holding freed blocks.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "server/review_pool.hpp"

namespace kpw {

// After connections close (a burst of clients, an attack) or large reviews are answered, glibc
// keeps their freed small blocks; hand them back every second after such events, so RSS returns
// to its idle level (not while a large review is in flight: its memory is in use). The trim runs
// on a review thread: walking the heaps takes milliseconds no I/O thread should spend.
class MemoryTrimmer {
 public:
  MemoryTrimmer(boost::asio::io_context& ioc, ReviewPool& reviews)
      : timer_(ioc), reviews_(reviews) {}
  void start();
  void stop() { timer_.cancel(); }

 private:
  boost::asio::steady_timer timer_;
  ReviewPool& reviews_;
  bool pending_ = false;
};

}  // namespace kpw
