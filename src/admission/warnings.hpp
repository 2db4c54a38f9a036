// The warnings of one review, capped as the API server shows them (at most kMaxTotalBytes in all,
// each cut to kMaxEachBytes; ErrorList builds a strict rule's warning to fit, so that its ending
// is never what is cut), with nothing dropped silently: once a warning does not fit, it and
// every later one are only counted, and a last warning says how many were not shown.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kpw {

class Warnings {
 public:
  static constexpr std::size_t kMaxEachBytes = 256;
  static constexpr std::size_t kMaxTotalBytes = 4096;

  // Newlines and tabs become spaces (the API server drops a warning holding one).
  void add(std::string_view text);
  // For a warning per list element: `build(std::string&)` appends the text, and runs only while
  // warnings are still shown, so a hostile list of a million repeats costs a counter each.
  template <typename Build>
  void add_built(Build&& build) {
    if (full_) {
      ++dropped_;
      return;
    }
    scratch_.clear();
    build(scratch_);
    add(scratch_);
  }

  bool empty() const { return count_ == 0 && dropped_ == 0; }
  // The warnings shown, in order, then `summary()` when some were dropped.
  std::span<const std::string> shown() const { return {slots_.data(), count_}; }
  std::size_t dropped() const { return dropped_; }
  // `and N more warnings` ("" when none were dropped).
  std::string summary() const;
  // What the answer carries: shown() and then summary() when it is not empty.
  std::vector<std::string> all() const;
  void clear();

 private:
  // The first count_ slots are shown; the rest keep their capacity for the next review (a
  // warning every review carries, RIC-1's, costs no allocation once the thread is warm).
  std::vector<std::string> slots_;
  std::size_t count_ = 0;
  std::size_t total_ = 0;  // bytes shown
  std::size_t dropped_ = 0;
  bool full_ = false;
  std::string scratch_;
};

}  // namespace kpw
