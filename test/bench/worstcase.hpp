// worstcase's private header: its options, a body's measurement, the rows, what each file offers.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace worstcase {

constexpr int kMinCalls = 3;
constexpr std::size_t kAnswerLimit = 64 * 1024;  // an answer above this is flagged
// The target: 3 MiB / 64 KiB must cost at most 60x, i.e. 1.25x the byte ratio (48x). Other sizes
// get the same slack: the limit is 1.25x their byte ratio.
constexpr double kRatioSlack = 60.0 / 48.0;

struct Options {
  std::string dir;
  std::vector<std::size_t> sizes;  // empty: every size found in dir
  double min_time = 0.2;
  double timeout = 30;
  double ratio_limit = 0;  // 0: kRatioSlack x the byte ratio of the largest to the smallest size
  std::string json;
  bool quiet = false;
  std::size_t ric1_entries = 100000;  // RIC-1's worst case against that many cached (0: not run)
  // RB-2's worst case: a binding of that many components against that many quotas of its
  // namespace (0 components: not run).
  std::size_t rb2_components = 10000;
  std::size_t rb2_quotas = 1000;
};

enum class Outcome { kMeasured, kTimedOut, kSkipped, kError, kMissing };

struct Result {
  Outcome outcome = Outcome::kMissing;
  std::string file;
  std::size_t bytes = 0;  // the body's own size
  double median_us = 0;
  int calls = 0;
  unsigned status = 0;
  std::size_t answer_bytes = 0;
  std::string allowed = "-";  // "allow", "deny", or "-" when the answer has no response.allowed
  long causes = -1;           // response.status.details.causes, -1 when absent
  long warnings = -1;         // response.warnings, -1 when absent
  std::string error;
};

struct Row {
  std::string path;  // "/validate-propagationpolicy"
  std::string shape;
  std::map<std::size_t, Result> at;  // by nominal size
};

struct Ratio {
  bool known = false;
  bool lower_bound = false;  // the largest size timed out: the ratio is at least this
  double value = 0;
};

// ---- worstcase_format.cpp: text and the figures of a row ----

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string size_label(std::size_t size);
std::string seconds_label(double s);
std::string us_cell(const Result& r, double timeout);
std::string bytes_cell(const Result& r);
std::string json_string(std::string_view s);
std::string_view outcome_name(Outcome o);
// "PP validating" for /validate-propagationpolicy; the path itself for one it does not know.
std::string kind_of(std::string_view path);
// µs at the largest size / µs at the smallest; a lower bound when the largest timed out.
Ratio ratio_of(const Row& row, const std::vector<std::size_t>& sizes, double timeout);
std::string ratio_text(const Ratio& r);
// The cost used to rank bodies: a timeout ranks above every measured figure.
double cost_of(const Result& r, double timeout);
// The distinct "status allowed" answers of a row's measured bodies, "|"-separated.
std::string answers_of(const Row& row);

// ---- worstcase_measure.cpp: the body files, and one body measured in a child process ----

// The rows under o.dir (sorted by kind, then shape) and the sizes to measure (ascending).
std::vector<Row> scan(const Options& o, std::vector<std::size_t>& sizes);
// One body through kpw::handle_http, in a forked child stopped past o.timeout.
Result measure(const std::string& file, const std::string& path, const Options& o);
// RIC-1's worst case, the same way: a small ResourceInterpreterCustomization judged against a
// synced ClusterState of `entries` customizations of its target, none of whose operations overlap
// its own (allowed: RIC-1 walks them all). kError unless allowed without a warning, or when one
// conflicting customization does not deny it (the index would not be the body's target).
Result measure_ric1(std::size_t entries, const Options& o);
// RB-2's worst case: a ResourceBinding of `components` components, each requesting cpu, memory
// and an extended resource of its own (so the charge has `components` + 2 names), scheduled to
// two clusters, judged against a synced QuotaState of `quotas` quotas of its namespace, each
// limiting cpu, memory, requests.cpu (D-Q2) and 100 of the extended resources, all within their
// limits but the last in name order, which denies (no write: nothing reaches the API server). With `quotas` 0 the same
// binding against a namespace without quotas. kError unless the answer is the expected one.
Result measure_rb2(std::size_t components, std::size_t quotas, const Options& o);

// ---- worstcase_report.cpp: the output ----

// Prints the table, the most expensive body per kind and size and the WORSTCASE line, writes
// o.json; returns the exit status (0, or 1 when a body could not be measured or o.json written).
int report(const std::vector<Row>& rows, const std::vector<std::size_t>& sizes, const Options& o,
           double byte_ratio, double ratio_limit);

}  // namespace worstcase
