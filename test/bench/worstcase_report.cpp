// worstcase's output: the table, the most expensive body per kind, the WORSTCASE line, --json.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "worstcase.hpp"

namespace worstcase {
namespace {

struct Counts {
  std::size_t timeouts = 0;
  std::size_t skipped = 0;
  std::size_t errors = 0;
};

// The table (per webhook path and shape: µs per review and answer bytes at each size, the ratio,
// the answers, flags), then a line per body that could not be measured.
Counts print_table(const std::vector<Row>& rows, const std::vector<std::size_t>& sizes,
                   const Options& o, double byte_ratio, double ratio_limit) {
  std::printf(
      "worst case per request: handle_http in process (no TLS/HTTP), median µs per review "
      "(>= %d calls and >= %s s per body), answer bytes\n",
      kMinCalls, seconds_label(o.min_time).c_str());
  std::printf(
      "ratio: µs at %s / µs at %s (%.0fx the bytes; limit %.1f, flagged above it); "
      "timeout %s s per call\n",
      size_label(sizes.back()).c_str(), size_label(sizes.front()).c_str(), byte_ratio, ratio_limit,
      seconds_label(o.timeout).c_str());
  std::printf(
      "> N s: a call was stopped after N s; > N s*: not run (a smaller size timed out, or its µs x "
      "the byte ratio is past N s); ratio > R: a lower bound\n");
  std::string header = format("  %-28s", "shape");
  for (std::size_t size : sizes) {
    // "µs" is two bytes of UTF-8 in one column, and printf pads by bytes: one more.
    header += format(" %12s %10s", ("µs " + size_label(size)).c_str(), "answer B");
  }
  header += format(" %9s  %-18s %s", "ratio", "answer", "flags");
  std::printf("%s\n", header.c_str());
  std::size_t timeouts = 0, skipped = 0, errors = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    if (i == 0 || rows[i - 1].path != row.path) {
      std::printf("%s (%s)\n", row.path.c_str(), kind_of(row.path).c_str());
    }
    std::string line = format("  %-28s", row.shape.c_str());
    bool big_answer = false, slow = false, failed = false;
    for (std::size_t size : sizes) {
      const auto it = row.at.find(size);
      const Result missing;
      const Result& r = it == row.at.end() ? missing : it->second;
      line += format(" %11s %10s", us_cell(r, o.timeout).c_str(), bytes_cell(r).c_str());
      if (r.outcome == Outcome::kMeasured && r.answer_bytes > kAnswerLimit) big_answer = true;
      if (r.outcome == Outcome::kTimedOut || r.outcome == Outcome::kSkipped) slow = true;
      if (r.outcome == Outcome::kTimedOut) ++timeouts;
      if (r.outcome == Outcome::kSkipped) ++skipped;
      if (r.outcome == Outcome::kError) failed = true, ++errors;
    }
    const Ratio ratio = ratio_of(row, sizes, o.timeout);
    std::string flags;
    if (ratio.known && ratio.value > ratio_limit) flags += format(" !ratio>%.0f", ratio_limit);
    if (big_answer) flags += " !answer>64KiB";
    if (slow) flags += " !timeout";
    if (failed) flags += " !error";
    line +=
        format(" %9s  %-18s%s", ratio_text(ratio).c_str(), answers_of(row).c_str(), flags.c_str());
    std::printf("%s\n", line.c_str());
  }
  for (const Row& row : rows) {
    for (const auto& [size, r] : row.at) {
      if (r.outcome == Outcome::kError) {
        std::printf("  ERROR %s/%s-%zu: %s\n", row.path.c_str() + 1, row.shape.c_str(), size,
                    r.error.c_str());
      }
    }
  }
  return {timeouts, skipped, errors};
}

// Per kind, the most expensive body at each size.
void print_most_expensive(const std::vector<Row>& rows, const std::vector<std::size_t>& sizes,
                          const Options& o) {
  std::printf("\nmost expensive body per kind and size\n");
  std::printf("  %-17s %8s %12s %10s %-8s  %s\n", "kind", "size", "µs", "answer B", "answer",
              "shape");
  std::vector<std::string> paths;
  for (const Row& row : rows) {
    if (paths.empty() || paths.back() != row.path) paths.push_back(row.path);
  }
  for (const std::string& path : paths) {
    bool first = true;
    for (std::size_t size : sizes) {
      const Row* worst = nullptr;
      const Result* wr = nullptr;
      for (const Row& row : rows) {
        if (row.path != path) continue;
        const auto it = row.at.find(size);
        if (it == row.at.end()) continue;
        if (wr == nullptr || cost_of(it->second, o.timeout) > cost_of(*wr, o.timeout)) {
          worst = &row;
          wr = &it->second;
        }
      }
      if (wr == nullptr) continue;
      const std::string answer =
          wr->outcome == Outcome::kMeasured ? std::to_string(wr->status) + " " + wr->allowed : "-";
      std::printf("  %-17s %8s %11s %10s %-8s  %s\n", first ? kind_of(path).c_str() : "",
                  size_label(size).c_str(), us_cell(*wr, o.timeout).c_str(),
                  bytes_cell(*wr).c_str(), answer.c_str(), worst->shape.c_str());
      first = false;
    }
  }
}

// The summary: the largest size's slowest body, the worst ratio, the largest validating answer;
// printed as the WORSTCASE line and, with every measurement, written to o.json (--json). False
// when o.json cannot be written.
bool summarize(const std::vector<Row>& rows, const std::vector<std::size_t>& sizes,
               const Options& o, double ratio_limit, const Counts& counts) {
  const auto [timeouts, skipped, errors] = counts;
  const std::size_t largest = sizes.back();
  const Row* slowest = nullptr;
  const Result* slowest_r = nullptr;
  const Row* ratio_row = nullptr;
  Ratio worst_ratio;
  const Row* answer_row = nullptr;
  std::size_t answer_size = 0;
  std::size_t answer_max = 0;
  for (const Row& row : rows) {
    const auto it = row.at.find(largest);
    if (it != row.at.end() &&
        (slowest_r == nullptr || cost_of(it->second, o.timeout) > cost_of(*slowest_r, o.timeout))) {
      slowest = &row;
      slowest_r = &it->second;
    }
    const Ratio ratio = ratio_of(row, sizes, o.timeout);
    if (ratio.known && (!worst_ratio.known || ratio.value > worst_ratio.value)) {
      worst_ratio = ratio;
      ratio_row = &row;
    }
    if (row.path.starts_with("/validate-")) {
      for (const auto& [size, r] : row.at) {
        if (r.outcome == Outcome::kMeasured &&
            (answer_row == nullptr || r.answer_bytes > answer_max)) {
          answer_max = r.answer_bytes;
          answer_row = &row;
          answer_size = size;
        }
      }
    }
  }
  auto body_name = [](const Row* row, std::size_t size) {
    return row == nullptr ? std::string("n/a")
                          : row->path.substr(1) + "/" + row->shape + "-" + std::to_string(size);
  };
  std::string worst_us = "n/a";
  if (slowest_r != nullptr) {
    if (slowest_r->outcome == Outcome::kMeasured) {
      worst_us = format("%.0f", slowest_r->median_us);
    } else if (slowest_r->outcome == Outcome::kTimedOut ||
               slowest_r->outcome == Outcome::kSkipped) {
      worst_us = format(">%.0f", o.timeout * 1e6);
    }
  }
  const std::string ratio_figure =
      worst_ratio.known ? format(worst_ratio.lower_bound ? ">%.1f" : "%.1f", worst_ratio.value)
                        : "n/a";
  const std::string answer_figure = answer_row == nullptr ? "n/a" : std::to_string(answer_max);
  std::printf(
      "\nWORSTCASE largest_size=%zu smallest_size=%zu worst_us=%s worst_body=%s worst_ratio=%s "
      "ratio_body=%s ratio_limit=%.1f answer_max_B=%s answer_body=%s timeouts=%zu skipped=%zu "
      "errors=%zu\n",
      largest, sizes.front(), worst_us.c_str(), body_name(slowest, largest).c_str(),
      ratio_figure.c_str(),
      ratio_row == nullptr ? "n/a" : (ratio_row->path.substr(1) + "/" + ratio_row->shape).c_str(),
      ratio_limit, answer_figure.c_str(), body_name(answer_row, answer_size).c_str(), timeouts,
      skipped, errors);

  // ---- JSON ----
  if (!o.json.empty()) {
    std::string out = "{\n  \"sizes\": [";
    for (std::size_t i = 0; i < sizes.size(); ++i)
      out += (i ? ", " : "") + std::to_string(sizes[i]);
    out += format("],\n  \"min_time_s\": %g,\n  \"timeout_s\": %g,\n  \"ratio_limit\": %.2f,\n",
                  o.min_time, o.timeout, ratio_limit);
    out += "  \"summary\": {\"largest_size\": " + std::to_string(largest) +
           ", \"worst_us\": " + json_string(worst_us) +
           ", \"worst_body\": " + json_string(body_name(slowest, largest)) +
           ", \"worst_ratio\": " + json_string(ratio_figure) +
           ", \"answer_max_bytes\": " + json_string(answer_figure) +
           ", \"answer_body\": " + json_string(body_name(answer_row, answer_size)) +
           format(", \"timeouts\": %zu, \"skipped\": %zu, \"errors\": %zu},\n", timeouts, skipped,
                  errors);
    out += "  \"bodies\": [";
    bool first = true;
    for (const Row& row : rows) {
      const Ratio ratio = ratio_of(row, sizes, o.timeout);
      for (const auto& [size, r] : row.at) {
        out += first ? "\n" : ",\n";
        first = false;
        out += "    {\"path\": " + json_string(row.path) +
               ", \"kind\": " + json_string(kind_of(row.path)) +
               ", \"shape\": " + json_string(row.shape) +
               format(", \"size\": %zu, \"bytes\": %zu", size, r.bytes) +
               ", \"file\": " + json_string(r.file) +
               ", \"outcome\": " + json_string(outcome_name(r.outcome));
        if (r.outcome == Outcome::kMeasured) {
          out +=
              format(", \"median_us\": %.3f, \"calls\": %d, \"status\": %u, \"answer_bytes\": %zu",
                     r.median_us, r.calls, r.status, r.answer_bytes);
          out += ", \"allowed\": " + std::string(r.allowed == "allow"  ? "true"
                                                 : r.allowed == "deny" ? "false"
                                                                       : "null");
          if (r.causes >= 0) out += format(", \"causes\": %ld", r.causes);
          if (r.warnings >= 0) out += format(", \"warnings\": %ld", r.warnings);
        }
        if (!r.error.empty()) out += ", \"error\": " + json_string(r.error);
        if (size == largest && ratio.known) {
          out += format(", \"ratio\": %.3f, \"ratio_lower_bound\": %s", ratio.value,
                        ratio.lower_bound ? "true" : "false");
        }
        out += "}";
      }
    }
    out += "\n  ]\n}\n";
    std::FILE* f = std::fopen(o.json.c_str(), "w");
    if (f == nullptr || std::fwrite(out.data(), 1, out.size(), f) != out.size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "worstcase: cannot write %s\n", o.json.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

int report(const std::vector<Row>& rows, const std::vector<std::size_t>& sizes, const Options& o,
           double byte_ratio, double ratio_limit) {
  const Counts counts = print_table(rows, sizes, o, byte_ratio, ratio_limit);
  print_most_expensive(rows, sizes, o);
  if (!summarize(rows, sizes, o, ratio_limit, counts)) return 1;
  return counts.errors == 0 ? 0 : 1;
}

}  // namespace worstcase
