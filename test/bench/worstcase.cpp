// The worst case per request: µs per review through kpw::handle_http (decode, rules, encode; no
// TLS, no HTTP) for every hostile body test/e2e/hostile_bodies.py writes, at every size, and how
// the cost grows with the body. The rules must be linear in the body: the 3 MiB / 64 KiB ratio of
// one shape must stay at or below 60 (48x the bytes, with 25 % slack).
//
//   hostile_bodies.py --out DIR --sizes 65536,1048576,3145728
//   worstcase DIR [--sizes 65536,1048576] [--min-time 0.2] [--timeout 30] [--json FILE]
//             [--ratio-limit R] [--ric1-entries N] [--rb2 COMPONENTS,QUOTAS] [--quiet]
//
// DIR holds DIR/<webhook path without the leading slash>/<shape>-<size>.json. Each body is
// measured in a child process (fork), so a review that runs past --timeout can be stopped (it is
// killed, and its row says "> N s"), and a crash costs one row, not the run. The child copies the
// pristine body into a reused string before every call (handle_http parses in place) and times
// only the call; it repeats until it has made at least 3 calls and spent at least --min-time
// seconds in them, or until the next call would end past --timeout. The figure is the median.
// A larger size of the same shape is not run when a smaller one timed out, or when the smaller
// one's µs times the byte ratio is already past --timeout (a review is at least linear in its
// body): its cell says "> N s*", the star marking a figure inferred, not measured.
//
// Output: one table (per webhook path and shape: µs per review and answer bytes at each size, the
// ratio µs(largest) / µs(smallest), the answer's HTTP status and verdict, flags), then per kind the
// most expensive body at each size, then one line
//   WORSTCASE largest_size=… worst_us=… worst_body=… worst_ratio=… ratio_body=… ratio_limit=…
//             answer_max_B=… answer_body=… timeouts=… skipped=… errors=…
// (figures at the largest size; a `>` in front of a figure marks a lower bound from a timeout).
// --json FILE writes every measurement and that summary. Progress goes to stderr (--quiet: none).
// Then RIC-1's worst case, which grows with the cluster, not the body (no file, not in the table or
// --json): a 0.8 KB ResourceInterpreterCustomization judged against a synced ClusterState holding
// --ric1-entries (100 000; 0: not run) customizations, all of its target and none overlapping its
// operations (allowed: the rule walks every one), and against one holding none; after the table
//   RIC-1 against N cached customizations of the body's target, none overlapping (the whole walk):
//     X µs per review (against none: Y µs; Z ns per cached customization)
// Then RB-2's worst case, which grows with the binding's components and the namespace's quotas:
// --rb2 COMPONENTS,QUOTAS (10000,1000; 0,0: not run) — a ResourceBinding of that many components,
// each charging a resource of its own, judged against that many quotas of its namespace, all
// passing but the last (every quota judged, nothing written), and against a namespace with none:
//   RB-2: a ResourceBinding of C components (...) against Q quotas ...:
//     X µs per review (no quota in the namespace: Y µs), answer N B
// Exit status: 0 when every body was measured or timed out, 1 when a body could not be (unreadable,
// or the review crashed, or RIC-1's case answered wrongly), 2 on a usage error or when DIR holds no
// body.
// Here: the options and the measuring loop; worstcase_measure.cpp: the body files and the child
// process; worstcase_format.cpp: labels and the figures of a row; worstcase_report.cpp: the
// output; worstcase.hpp: what they share.
#include "worstcase.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "server/review_pool.hpp"
#include "server/server.hpp"

using namespace worstcase;

namespace {

void usage() {
  std::fprintf(
      stderr,
      "usage: worstcase DIR [--sizes N,N,...] [--min-time SECONDS] [--timeout SECONDS]\n"
      "                 [--json FILE] [--ratio-limit R] [--ric1-entries N]\n"
      "                 [--rb2 COMPONENTS,QUOTAS] [--quiet]\n"
      "DIR: what test/e2e/hostile_bodies.py --out DIR wrote (DIR/<path>/<shape>-<size>.json)\n"
      "--ric1-entries N: RIC-1 judged against N cached customizations of the body's target\n"
      "                  (default 100000; 0: not run)\n"
      "--rb2 C,Q: RB-2 judged for a binding of C components against Q quotas of its namespace\n"
      "           (default 10000,1000; 0,0: not run)\n");
}

bool parse_double(const char* text, double& out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !std::isfinite(v) || v < 0) return false;
  out = v;
  return true;
}

bool parse_sizes(const std::string& text, std::vector<std::size_t>& out) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (!item.empty()) {
      if (item.size() > 12 ||
          !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return false;
      }
      const std::size_t v = std::stoull(item);
      if (v == 0) return false;
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    start = comma + 1;
  }
  return !out.empty();
}

// RIC-1 against o.ric1_entries cached customizations and against none: two lines. Returns 1 when
// either could not be measured (a timeout is a figure: "> N s").
int ric1_case(const Options& o) {
  int status = 0;
  Result at[2];
  const std::size_t entries[2] = {0, o.ric1_entries};
  for (int i = 0; i < 2; ++i) {
    at[i] = measure_ric1(entries[i], o);
    if (at[i].outcome == Outcome::kError) status = 1;
    if (!o.quiet) {
      std::fprintf(stderr, "  RIC-1 against %zu cached: %s\n", entries[i],
                   at[i].outcome == Outcome::kError
                       ? ("ERROR: " + at[i].error).c_str()
                       : format("%s µs (%d calls), HTTP %u %s, answer %zu B",
                                us_cell(at[i], o.timeout).c_str(), at[i].calls, at[i].status,
                                at[i].allowed.c_str(), at[i].answer_bytes)
                             .c_str());
    }
  }
  std::string per_entry = "n/a";
  if (at[0].outcome == Outcome::kMeasured && at[1].outcome == Outcome::kMeasured) {
    per_entry = format(
        "%.2f", (at[1].median_us - at[0].median_us) * 1e3 / static_cast<double>(o.ric1_entries));
  }
  std::printf(
      "\nRIC-1 against %zu cached customizations of the body's target, none overlapping (the whole "
      "walk):\n  %s µs per review (against none: %s µs; %s ns per cached customization)%s\n",
      o.ric1_entries, us_cell(at[1], o.timeout).c_str(), us_cell(at[0], o.timeout).c_str(),
      per_entry.c_str(), status != 0 ? "  ERROR: see stderr" : "");
  if (status != 0) {
    for (const Result& r : at) {
      if (r.outcome == Outcome::kError) {
        std::fprintf(stderr, "worstcase: RIC-1: %s\n", r.error.c_str());
      }
    }
  }
  return status;
}

// RB-2: the binding against o.rb2_quotas quotas and against none: one line. Returns 1 when
// either could not be measured or answered wrongly.
int rb2_case(const Options& o) {
  int status = 0;
  Result at[2];
  const std::size_t quotas[2] = {0, o.rb2_quotas};
  for (int i = 0; i < 2; ++i) {
    at[i] = measure_rb2(o.rb2_components, quotas[i], o);
    if (at[i].outcome == Outcome::kError) {
      status = 1;
      std::fprintf(stderr, "worstcase: RB-2: %s\n", at[i].error.c_str());
    }
  }
  std::printf(
      "\nRB-2: a ResourceBinding of %zu components (%zu names charged, %zu bytes) against %zu "
      "quotas of its namespace, each limiting 103 names (requests.cpu among them: D-Q2), the last "
      "denying (every quota judged; "
      "nothing written):\n  %s µs per review (no quota in the namespace: %s µs), answer %zu B%s\n",
      o.rb2_components, o.rb2_components + 2, at[1].bytes, o.rb2_quotas,
      us_cell(at[1], o.timeout).c_str(), us_cell(at[0], o.timeout).c_str(), at[1].answer_bytes,
      status != 0 ? "  ERROR: see stderr" : "");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // As the server judges a large body: on a review thread, whose block cache keeps what the last
  // review freed.
  kpw::configure_memory();
  kpw::prepare_review_thread();
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--quiet") {
      o.quiet = true;
    } else if (flag == "--help" || flag == "-h") {
      usage();
      return 0;
    } else if (flag == "--min-time" && has_value) {
      if (!parse_double(argv[++i], o.min_time)) return usage(), 2;
    } else if (flag == "--timeout" && has_value) {
      if (!parse_double(argv[++i], o.timeout) || o.timeout <= 0) return usage(), 2;
    } else if (flag == "--ratio-limit" && has_value) {
      if (!parse_double(argv[++i], o.ratio_limit)) return usage(), 2;
    } else if (flag == "--ric1-entries" && has_value) {
      double entries = 0;
      if (!parse_double(argv[++i], entries) || entries != std::floor(entries) || entries > 1e7) {
        return usage(), 2;
      }
      o.ric1_entries = static_cast<std::size_t>(entries);
    } else if (flag == "--rb2" && has_value) {
      if (std::sscanf(argv[++i], "%zu,%zu", &o.rb2_components, &o.rb2_quotas) != 2) {
        return usage(), 2;
      }
    } else if (flag == "--json" && has_value) {
      o.json = argv[++i];
    } else if (flag == "--sizes" && has_value) {
      if (!parse_sizes(argv[++i], o.sizes)) return usage(), 2;
    } else if (!flag.starts_with("--") && o.dir.empty()) {
      o.dir = flag;
    } else {
      std::fprintf(stderr, "worstcase: unknown flag or missing value: %s\n", flag.c_str());
      usage();
      return 2;
    }
  }
  if (o.dir.empty()) {
    usage();
    return 2;
  }
  std::vector<std::size_t> sizes;
  std::vector<Row> rows = scan(o, sizes);
  if (rows.empty() || sizes.empty()) {
    std::fprintf(stderr, "worstcase: no <path>/<shape>-<size>.json body under %s\n", o.dir.c_str());
    return 2;
  }
  const double byte_ratio = static_cast<double>(sizes.back()) / static_cast<double>(sizes.front());
  const double ratio_limit = o.ratio_limit > 0 ? o.ratio_limit : kRatioSlack * byte_ratio;

  // ---- measure ----
  std::size_t total = 0;
  for (const Row& row : rows) total += row.at.size();
  std::size_t done = 0;
  for (Row& row : rows) {
    bool timed_out = false;
    double last_us = 0;  // the last size measured, and its figure
    std::size_t last_size = 0;
    for (std::size_t size : sizes) {
      const auto it = row.at.find(size);
      if (it == row.at.end()) continue;  // missing for this size
      Result& r = it->second;
      ++done;
      const bool too_slow =
          last_size != 0 &&
          last_us * static_cast<double>(size) / static_cast<double>(last_size) > o.timeout * 1e6;
      if (timed_out || too_slow) {
        r.outcome = Outcome::kSkipped;
        timed_out = true;
      } else {
        const std::string file = r.file;
        r = measure(file, row.path, o);
        timed_out = r.outcome == Outcome::kTimedOut;
        if (r.outcome == Outcome::kMeasured) {
          last_us = r.median_us;
          last_size = size;
        }
      }
      if (!o.quiet) {
        std::string what;
        if (r.outcome == Outcome::kMeasured) {
          what = format("%s µs (%d calls), HTTP %u %s, answer %zu B", us_cell(r, o.timeout).c_str(),
                        r.calls, r.status, r.allowed.c_str(), r.answer_bytes);
        } else if (r.outcome == Outcome::kTimedOut) {
          what = "timed out: one call took more than " + seconds_label(o.timeout) + " s";
        } else if (r.outcome == Outcome::kSkipped) {
          what =
              "not run: a smaller size timed out, or its µs x the byte ratio is past the timeout";
        } else {
          what = "ERROR: " + r.error;
        }
        std::fprintf(stderr, "  [%zu/%zu] %s/%s-%zu: %s\n", done, total, row.path.c_str() + 1,
                     row.shape.c_str(), size, what.c_str());
      }
    }
  }

  int status = report(rows, sizes, o, byte_ratio, ratio_limit);
  if (o.ric1_entries > 0 && ric1_case(o) != 0) status = 1;
  if (o.rb2_components > 0 && rb2_case(o) != 0) status = 1;
  return status;
}
