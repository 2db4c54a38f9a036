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
    while (!shown_.empty() && total_ + kSummaryBytes > kMaxTotalBytes) {
      total_ -= shown_.back().size();
      shown_.pop_back();
      ++dropped_;
    }
    return;
  }
  std::string& w = shown_.emplace_back(cut);
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
  std::vector<std::string> out = shown_;
  if (dropped_ > 0) out.push_back(summary());
  return out;
}

void Warnings::clear() {
  shown_.clear();
  total_ = 0;
  dropped_ = 0;
  full_ = false;
}

}  // namespace kpw
