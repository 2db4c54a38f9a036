// The worst case per request: µs per review through kpw::handle_http (decode, rules, encode; no
// TLS, no HTTP) for every hostile body test/e2e/hostile_bodies.py writes, at every size, and how
// the cost grows with the body. The rules must be linear in the body: the 3 MiB / 64 KiB ratio of
// one shape must stay at or below 60 (48x the bytes, with 25 % slack).
//
//   hostile_bodies.py --out DIR --sizes 65536,1048576,3145728
//   worstcase DIR [--sizes 65536,1048576] [--min-time 0.2] [--timeout 30] [--json FILE]
//             [--ratio-limit R] [--quiet]
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
// Exit status: 0 when every body was measured or timed out, 1 when a body could not be (unreadable,
// or the review crashed), 2 on a usage error or when DIR holds no body.
#include <poll.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admission/service.hpp"
#include "server/review_pool.hpp"
#include "server/server.hpp"
#include "util/file.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

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

// ---- formatting ----

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
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
      {"propagationpolicy", "PP"},       {"clusterpropagationpolicy", "CPP"},
      {"workloadrebalancer", "WR"},      {"scheduletrigger", "ST"},
      {"federatedresourcequota", "FRQ"}, {"clustertaintpolicy", "CTP"},
      {"overridepolicy", "OP"},          {"clusteroverridepolicy", "COP"}};
  const auto it = kinds.find(name);
  if (it == kinds.end()) return std::string(path);
  return std::string(it->second) + " " + how;
}

// PP, CPP, WR, ST, FRQ, CTP, OP, COP; validating before mutating; unknown paths last, by name.
std::pair<int, std::string> path_order(const std::string& path) {
  static const std::vector<std::string> order = {
      "/validate-propagationpolicy",        "/mutate-propagationpolicy",
      "/validate-clusterpropagationpolicy", "/mutate-clusterpropagationpolicy",
      "/validate-workloadrebalancer",       "/mutate-workloadrebalancer",
      "/validate-scheduletrigger",          "/mutate-scheduletrigger",
      "/validate-federatedresourcequota",   "/validate-clustertaintpolicy",
      "/validate-overridepolicy",           "/mutate-overridepolicy",
      "/validate-clusteroverridepolicy"};
  const auto it = std::find(order.begin(), order.end(), path);
  return {static_cast<int>(it - order.begin()), path};
}

// ---- measuring one body, in a child process ----

void reset(kpw::HttpAnswer& answer) {
  answer.status = 200;
  answer.content_type = "application/json";
  answer.body.clear();
  answer.close = false;
  answer.method_not_allowed = false;
}

void write_all(int fd, const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    done += static_cast<std::size_t>(n);
  }
}

// What the answer says, read defensively: any body at all (even not JSON) gives a line.
std::string describe_answer(const kpw::HttpAnswer& answer) {
  std::string allowed = "-";
  long causes = -1, warnings = -1;
  rapidjson::Document doc;
  doc.Parse(answer.body.data(), answer.body.size());
  if (!doc.HasParseError() && doc.IsObject()) {
    const auto response = doc.FindMember("response");
    if (response != doc.MemberEnd() && response->value.IsObject()) {
      const auto& r = response->value;
      const auto a = r.FindMember("allowed");
      if (a != r.MemberEnd() && a->value.IsBool()) allowed = a->value.GetBool() ? "allow" : "deny";
      const auto w = r.FindMember("warnings");
      if (w != r.MemberEnd() && w->value.IsArray()) warnings = w->value.Size();
      const auto status = r.FindMember("status");
      if (status != r.MemberEnd() && status->value.IsObject()) {
        const auto details = status->value.FindMember("details");
        if (details != status->value.MemberEnd() && details->value.IsObject()) {
          const auto c = details->value.FindMember("causes");
          if (c != details->value.MemberEnd() && c->value.IsArray()) causes = c->value.Size();
        }
      }
    }
  }
  return format("A %u %zu %s %ld %ld\n", answer.status, answer.body.size(), allowed.c_str(), causes,
                warnings);
}

// The child: "A status answer_bytes allowed causes warnings" after the first call, "C µs" after
// every call, "E message" when it cannot go on.
[[noreturn]] void child(int fd, const std::string& file, const std::string& path,
                        const Options& o) {
  std::string pristine;
  if (!kpw::read_file(file, pristine)) {
    write_all(fd, "E cannot read the file\n");
    _exit(0);
  }
  write_all(fd, format("B %zu\n", pristine.size()));
  std::string body;
  body.reserve(pristine.size());
  kpw::HttpAnswer answer;
  double total = 0;
  try {
    for (int calls = 0;; ++calls) {
      body.assign(pristine);
      reset(answer);
      const Clock::time_point t0 = Clock::now();
      kpw::handle_http("POST", path, "application/json", body, answer);
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      total += us;
      if (calls == 0) write_all(fd, describe_answer(answer));
      write_all(fd, format("C %.3f\n", us));
      const int done = calls + 1;
      if (done >= kMinCalls && total >= o.min_time * 1e6) break;
      if (total + us > o.timeout * 1e6) break;  // the next call would end past the timeout
    }
  } catch (const std::exception& e) {
    write_all(fd, std::string("E handle_http threw: ") + e.what() + "\n");
  } catch (...) {
    write_all(fd, "E handle_http threw\n");
  }
  _exit(0);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void parse_line(const std::string& line, Result& r, std::vector<double>& calls) {
  if (line.size() < 2) return;
  const std::string rest = line.substr(2);
  switch (line[0]) {
    case 'B':
      r.bytes = std::strtoull(rest.c_str(), nullptr, 10);
      break;
    case 'A': {
      char allowed[16] = {0};
      if (std::sscanf(rest.c_str(), "%u %zu %15s %ld %ld", &r.status, &r.answer_bytes, allowed,
                      &r.causes, &r.warnings) >= 3) {
        r.allowed = allowed;
      }
      break;
    }
    case 'C':
      calls.push_back(std::strtod(rest.c_str(), nullptr));
      break;
    case 'E':
      r.error = rest;
      break;
    default:
      break;
  }
}

Result measure(const std::string& file, const std::string& path, const Options& o) {
  Result r;
  r.file = file;
  int fds[2];
  if (::pipe(fds) != 0) {
    r.outcome = Outcome::kError;
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.outcome = Outcome::kError;
    r.error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return r;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], file, path, o);
  }
  ::close(fds[1]);

  std::vector<double> calls;
  std::string pending;
  bool timed_out = false;
  // The deadline moves with every message: each call gets --timeout seconds (reading the file
  // and the first copy are before the first message, and get it too).
  Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(o.timeout));
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      r.error = std::string("poll: ") + std::strerror(errno);
      break;
    }
    if (ready == 0) continue;  // the loop's check sees the deadline
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child is done (or gone)
    pending.append(buf, static_cast<std::size_t>(n));
    for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos;) {
      parse_line(pending.substr(0, eol), r, calls);
      pending.erase(0, eol + 1);
    }
    deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(o.timeout));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.calls = static_cast<int>(calls.size());
  r.median_us = median(calls);
  if (timed_out) {
    r.outcome = Outcome::kTimedOut;
  } else if (!r.error.empty()) {
    r.outcome = Outcome::kError;
  } else if (WIFSIGNALED(status)) {
    r.outcome = Outcome::kError;
    r.error =
        format("the review died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || calls.empty()) {
    r.outcome = Outcome::kError;
    r.error = "the measuring process ended without a figure";
  } else {
    r.outcome = Outcome::kMeasured;
  }
  return r;
}

// ---- the body files ----

// "<shape>-<size>.json" -> shape, size.
bool parse_name(const std::string& name, std::string& shape, std::size_t& size) {
  if (name.size() < 6 || !name.ends_with(".json")) return false;
  const std::string stem = name.substr(0, name.size() - 5);
  const std::size_t dash = stem.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == stem.size()) return false;
  const std::string digits = stem.substr(dash + 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  if (digits.size() > 12) return false;
  shape = stem.substr(0, dash);
  size = std::stoull(digits);
  return size > 0;
}

std::vector<Row> scan(const Options& o, std::vector<std::size_t>& sizes) {
  std::map<std::pair<std::string, std::string>, Row> rows;
  std::set<std::size_t> found;
  std::error_code ec;
  for (const auto& folder : fs::directory_iterator(o.dir, ec)) {
    if (!folder.is_directory()) continue;
    const std::string path = "/" + folder.path().filename().string();
    for (const auto& entry : fs::directory_iterator(folder.path(), ec)) {
      std::string shape;
      std::size_t size = 0;
      if (!entry.is_regular_file() || !parse_name(entry.path().filename().string(), shape, size)) {
        continue;
      }
      if (!o.sizes.empty() && std::find(o.sizes.begin(), o.sizes.end(), size) == o.sizes.end()) {
        continue;
      }
      Row& row = rows[{path, shape}];
      row.path = path;
      row.shape = shape;
      row.at[size].file = entry.path().string();
      found.insert(size);
    }
  }
  sizes = o.sizes.empty() ? std::vector<std::size_t>(found.begin(), found.end()) : o.sizes;
  std::sort(sizes.begin(), sizes.end());
  std::vector<Row> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const Row& a, const Row& b) {
    return std::make_pair(path_order(a.path), a.shape) <
           std::make_pair(path_order(b.path), b.shape);
  });
  return out;
}

// ---- figures of a row ----

struct Ratio {
  bool known = false;
  bool lower_bound = false;  // the largest size timed out: the ratio is at least this
  double value = 0;
};

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

// The cost used to rank bodies: a timeout ranks above every measured figure.
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

void usage() {
  std::fprintf(
      stderr,
      "usage: worstcase DIR [--sizes N,N,...] [--min-time SECONDS] [--timeout SECONDS]\n"
      "                 [--json FILE] [--ratio-limit R] [--quiet]\n"
      "DIR: what test/e2e/hostile_bodies.py --out DIR wrote (DIR/<path>/<shape>-<size>.json)\n");
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

  // ---- the table ----
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

  // ---- per kind, the most expensive body at each size ----
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

  // ---- summary: the largest size's slowest body, the worst ratio, the largest validating answer
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
      worst_ratio.known ? (worst_ratio.lower_bound ? ">" : "") + format("%.1f", worst_ratio.value)
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
      return 1;
    }
  }
  return errors == 0 ? 0 : 1;
}
