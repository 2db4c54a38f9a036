// worstcase's text and figures: labels, cells, JSON strings, kind names, the figures of a row.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "worstcase.hpp"

namespace worstcase {

std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

std::string size_label(std::size_t size) {
  if (size >= 1024 * 1024 && size % (1024 * 1024) == 0) {
    return std::to_string(size / (1024 * 1024)) + " MiB";
  }
  if (size >= 1024 && size % 1024 == 0) return std::to_string(size / 1024) + " KiB";
  return std::to_string(size) + " B";
}

std::string seconds_label(double s) {
  return s == std::floor(s) ? format("%.0f", s) : format("%g", s);
}

std::string us_cell(const Result& r, double timeout) {
  switch (r.outcome) {
    case Outcome::kMeasured:
      return r.median_us < 100 ? format("%.1f", r.median_us) : format("%.0f", r.median_us);
    case Outcome::kTimedOut:
      return "> " + seconds_label(timeout) + " s";
    case Outcome::kSkipped:
      return "> " + seconds_label(timeout) + " s*";
    case Outcome::kError:
      return "error";
    case Outcome::kMissing:
      return "-";
  }
  return "?";
}

std::string bytes_cell(const Result& r) {
  return r.outcome == Outcome::kMeasured ? std::to_string(r.answer_bytes) : "-";
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += format("\\u%04x", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kMeasured:
      return "measured";
    case Outcome::kTimedOut:
      return "timeout";
    case Outcome::kSkipped:
      return "skipped";
    case Outcome::kError:
      return "error";
    case Outcome::kMissing:
      return "missing";
  }
  return "?";
}

// "PP validating" for /validate-propagationpolicy; the path itself for one it does not know.
std::string kind_of(std::string_view path) {
  std::string_view name = path.substr(path.find_first_not_of('/'));
  std::string how;
  if (name.starts_with("validate-")) {
    how = "validating";
    name.remove_prefix(9);
  } else if (name.starts_with("mutate-")) {
    how = "mutating";
    name.remove_prefix(7);
  } else {
    return std::string(path);
  }
  static const std::map<std::string_view, std::string_view> kinds = {
      {"propagationpolicy", "PP"},
      {"clusterpropagationpolicy", "CPP"},
      {"workloadrebalancer", "WR"},
      {"scheduletrigger", "ST"},
      {"federatedresourcequota", "FRQ"},
      {"clustertaintpolicy", "CTP"},
      {"overridepolicy", "OP"},
      {"clusteroverridepolicy", "COP"},
      {"resourcebinding", "RB"},
      {"clusterresourcebinding", "CRB"},
      {"resourcedeletionprotection", "RDP"},
      {"work", "Work"}};
  const auto it = kinds.find(name);
  if (it == kinds.end()) return std::string(path);
  return std::string(it->second) + " " + how;
}

// ---- figures of a row ----

Ratio ratio_of(const Row& row, const std::vector<std::size_t>& sizes, double timeout) {
  Ratio ratio;
  if (sizes.size() < 2) return ratio;
  const auto small = row.at.find(sizes.front());
  const auto large = row.at.find(sizes.back());
  if (small == row.at.end() || large == row.at.end()) return ratio;
  if (small->second.outcome != Outcome::kMeasured || small->second.median_us <= 0) return ratio;
  const Result& l = large->second;
  if (l.outcome == Outcome::kMeasured) {
    ratio.value = l.median_us / small->second.median_us;
  } else if (l.outcome == Outcome::kTimedOut || l.outcome == Outcome::kSkipped) {
    ratio.value = timeout * 1e6 / small->second.median_us;
    ratio.lower_bound = true;
  } else {
    return ratio;
  }
  ratio.known = true;
  return ratio;
}

std::string ratio_text(const Ratio& r) {
  if (!r.known) return "n/a";
  return (r.lower_bound ? "> " : "") + format(r.value < 10 ? "%.2f" : "%.1f", r.value);
}

double cost_of(const Result& r, double timeout) {
  if (r.outcome == Outcome::kMeasured) return r.median_us;
  if (r.outcome == Outcome::kTimedOut || r.outcome == Outcome::kSkipped) return timeout * 1e6 * 2;
  return -1;
}

std::string answers_of(const Row& row) {
  std::vector<std::string> seen;
  for (const auto& [size, r] : row.at) {
    if (r.outcome != Outcome::kMeasured) continue;
    const std::string a = std::to_string(r.status) + " " + r.allowed;
    if (std::find(seen.begin(), seen.end(), a) == seen.end()) seen.push_back(a);
  }
  std::string out;
  for (const std::string& a : seen) out += (out.empty() ? "" : "|") + a;
  return out.empty() ? "-" : out;
}

}  // namespace worstcase
