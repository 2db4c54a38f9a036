#include "admission/warnings.hpp"

#include "json/json.hpp"

namespace kpw {
namespace {
// Room kept for the summary once warnings are dropped (`and 18446744073709551615 more warnings`).
constexpr std::size_t kSummaryBytes = 40;
}  // namespace

void Warnings::add(std::string_view text) {
  if (full_) {
    ++dropped_;
    return;
  }
  const std::string_view cut = cut_utf8(text, kMaxEachBytes);
  if (total_ + cut.size() > kMaxTotalBytes) {
    full_ = true;
    ++dropped_;
    // The summary must fit too: drop the last shown ones until it does.
    while (count_ > 0 && total_ + kSummaryBytes > kMaxTotalBytes) {
      total_ -= slots_[--count_].size();
      ++dropped_;
    }
    return;
  }
  if (count_ == slots_.size()) slots_.emplace_back();
  std::string& w = slots_[count_++];
  w.assign(cut);
  for (char& c : w) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  }
  total_ += w.size();
}

std::string Warnings::summary() const {
  if (dropped_ == 0) return {};
  return "and " + std::to_string(dropped_) + " more warning" + (dropped_ == 1 ? "" : "s");
}

std::vector<std::string> Warnings::all() const {
  std::vector<std::string> out(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(count_));
  if (dropped_ > 0) out.push_back(summary());
  return out;
}

void Warnings::clear() {
  count_ = 0;
  total_ = 0;
  dropped_ = 0;
  full_ = false;
}

}  // namespace kpw
