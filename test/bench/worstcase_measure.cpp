// worstcase's measuring: the body files under DIR, each body reviewed in a forked child process
// that reports every call on a pipe, so a review past --timeout can be killed.
#include <poll.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admission/cluster_state.hpp"
#include "admission/quota.hpp"
#include "admission/service.hpp"
#include "admission/settings.hpp"
#include "kube/quota_ledger.hpp"
#include "util/file.hpp"
#include "util/lua_syntax.hpp"
#include "worstcase.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace worstcase {

// ---- measuring one body, in a child process ----

namespace {

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
      // A ConversionReview's answer (/convert): its result.
      const auto result = r.FindMember("result");
      if (result != r.MemberEnd() && result->value.IsObject()) {
        const auto s = result->value.FindMember("status");
        if (s != result->value.MemberEnd() && s->value.IsString()) {
          allowed = std::string_view(s->value.GetString()) == "Success" ? "converted" : "failed";
        }
      }
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

// The worst case judges with every rule a flag can turn on: --feature-gates=
// MultiplePodTemplatesScheduling=true adds RB-3 (component names) to /validate-resourcebinding.
const kpw::Settings& worst_settings() {
  static const kpw::Settings settings = [] {
    kpw::Settings s;
    s.multiple_pod_templates_scheduling = true;
    return s;
  }();
  return settings;
}

// RIC-1's worst case (measure_ric1): a customization named kRicName of the target kRicApiVersion
// and kRicKind that scripts one exclusive operation (retention: bit 0) and InterpretDependency.
constexpr std::string_view kRicApiVersion = "apps.example.io/v1";
constexpr std::string_view kRicKind = "Workload";
constexpr std::string_view kRicName = "hostile-interpreter";
constexpr std::string_view kRicBody =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
    R"("uid":"7d0c2a4e-1f4b-4c59-9d51-3a1f7e2b6c80",)"
    R"("kind":{"group":"config.karmada.io","version":"v1alpha1",)"
    R"("kind":"ResourceInterpreterCustomization"},)"
    R"("resource":{"group":"config.karmada.io","version":"v1alpha1",)"
    R"("resource":"resourceinterpretercustomizations"},)"
    R"("name":"hostile-interpreter","operation":"CREATE",)"
    R"("userInfo":{"username":"tenant"},"object":{"apiVersion":"config.karmada.io/v1alpha1",)"
    R"("kind":"ResourceInterpreterCustomization","metadata":{"name":"hostile-interpreter"},)"
    R"("spec":{"target":{"apiVersion":"apps.example.io/v1","kind":"Workload"},)"
    R"("customizations":{"retention":{"luaScript":"function Retain(desiredObj, observedObj)\n)"
    R"(  return desiredObj\nend"},"dependencyInterpretation":{"luaScript":)"
    R"("function GetDependencies(desiredObj)\n  return {}\nend"}}}},"dryRun":false}})";

// A synced ClusterState for kRicBody: `entries` customizations, all of its target, none scripting
// retention (each some of the other six exclusive operations), in name order; their names have
// kRicName's length and share all but its last 6 bytes, so each name comparison reads bytes. With
// `conflict`, one more that scripts retention too: RIC-1 must deny (the target key is the body's).
const kpw::Settings& ric_settings(std::size_t entries, bool conflict) {
  auto index = std::make_shared<kpw::RicIndex>();
  std::string key;
  kpw::ric_target_key(kRicApiVersion, kRicKind, key);
  std::vector<kpw::RicEntry>& on_target = index->by_target[key];
  on_target.reserve(entries + 1);
  const std::string prefix(kRicName.substr(0, kRicName.size() - 6));
  for (std::size_t i = 0; i < entries; ++i) {
    // 1..63 shifted past bit 0: some of the six other exclusive operations.
    const auto mask = static_cast<kpw::karmada::OperationMask>((i % 63 + 1) << 1);
    on_target.push_back({prefix + format("%06zu", i % 1000000), mask});
  }
  if (conflict) on_target.push_back({"zz-conflict", 1});
  index->objects = on_target.size();
  static kpw::ClusterState cluster;  // one per child process
  cluster.publish(std::move(index));
  static kpw::Settings settings;
  settings = worst_settings();
  settings.cluster = &cluster;
  return settings;
}

// RB-2's worst case (measure_rb2): the binding's namespace, and the quota that denies it.
constexpr std::string_view kRb2Namespace = "tenant";
constexpr std::string_view kRb2Denier = "zz-last";

std::string rb2_body(std::size_t components) {
  std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
      R"("uid":"5c1e0b7a-2d3f-4e8a-9b6c-0f1e2d3c4b5a",)"
      R"("kind":{"group":"work.karmada.io","version":"v1alpha2","kind":"ResourceBinding"},)"
      R"("resource":{"group":"work.karmada.io","version":"v1alpha2","resource":"resourcebindings"},)"
      R"("name":"hostile","namespace":"tenant","operation":"CREATE",)"
      R"("userInfo":{"username":"system:karmada:karmada-scheduler"},"object":{)"
      R"("apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding",)"
      R"("metadata":{"name":"hostile","namespace":"tenant"},"spec":{)"
      R"("resource":{"apiVersion":"apps/v1","kind":"Deployment","name":"hostile"},)"
      R"("clusters":[{"name":"member1","replicas":1},{"name":"member2","replicas":1}],)"
      R"("components":[)";
  for (std::size_t i = 0; i < components; ++i) {
    if (i > 0) body += ',';
    body += format(R"({"name":"c%06zu","replicas":1,"replicaRequirements":{"resourceRequest":)"
                   R"({"cpu":"1m","memory":"1Mi","example.com/r%06zu":"1"}}})",
                   i, i);
  }
  body += R"(]}},"dryRun":false}})";
  return body;
}

// A synced QuotaState for rb2_body: `quotas` quotas in kRb2Namespace, each limiting cpu, memory
// and 100 of the binding's extended resources far above the charge, then kRb2Denier limiting cpu
// below it (and, for D-Q2, requests.cpu far above it); the QuotaLedger that charges them (no API
// server is ever called: the last denies).
const kpw::Settings& rb2_settings(std::size_t quotas) {
  auto index = std::make_shared<kpw::QuotaIndex>();
  auto list = std::make_shared<std::vector<kpw::QuotaEntry>>();
  const auto limit = [](std::string name, std::string_view text) {
    return kpw::ResourceLimit{std::move(name), kpw::parse_quantity(text).value, std::string(text)};
  };
  for (std::size_t i = 0; i < quotas; ++i) {
    kpw::QuotaEntry q;
    q.name = format("q-%06zu", i);
    q.resource_version = "1";
    for (std::size_t r = 0; r < 100; ++r) {
      q.overall.push_back(limit(format("example.com/r%06zu", (i * 100 + r) % 1000000), "1M"));
    }
    q.overall.push_back(limit("cpu", "1M"));
    q.overall.push_back(limit("memory", "1Pi"));
    q.overall.push_back(limit("requests.cpu", "1M"));  // D-Q2's path too
    std::sort(q.overall.begin(), q.overall.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    list->push_back(std::move(q));
  }
  if (quotas > 0) {
    kpw::QuotaEntry last;
    last.name = std::string(kRb2Denier);
    last.resource_version = "1";
    last.overall.push_back(limit("cpu", "1m"));
    list->push_back(std::move(last));
    index->by_namespace[std::string(kRb2Namespace)] = list;
  }
  index->objects = list->size();
  static kpw::QuotaState quotas_state;  // one per child process
  quotas_state.publish(std::move(index));
  kpw::kube::KubeConfig config;
  config.server = "https://127.0.0.1:1";  // never called
  static kpw::kube::QuotaLedger ledger(config, {}, quotas_state, {});
  static kpw::Settings settings;
  settings = worst_settings();
  settings.quota = &ledger;
  return settings;
}

// What a child reviews: the body in `file` (read in the child), or with `ric1_entries` set
// kRicBody against ric_settings(ric1_entries) (built in the child, not timed), or with `rb2` set
// rb2_body against rb2_settings.
struct Job {
  std::string file;
  std::string path;
  std::size_t ric1_entries = 0;
  bool ric1 = false;
  bool rb2 = false;
  std::size_t rb2_components = 0;
  std::size_t rb2_quotas = 0;
};

// The child: "A status answer_bytes allowed causes warnings" after the first call, "C µs" after
// every call, "E message" when it cannot go on.
[[noreturn]] void child(int fd, const Job& job, const Options& o) {
  std::string pristine;
  if (job.ric1) {
    pristine.assign(kRicBody);
  } else if (job.rb2) {
    pristine = rb2_body(job.rb2_components);
  } else if (!kpw::read_file(job.file, pristine)) {
    write_all(fd, "E cannot read the file\n");
    _exit(0);
  }
  write_all(fd, format("B %zu\n", pristine.size()));
  std::string body;
  body.reserve(pristine.size());
  kpw::HttpAnswer answer;
  const kpw::Route* route = kpw::find_route(job.path);
  double total = 0;
  try {
    const kpw::Settings* settings = &worst_settings();
    if (job.ric1) {
      // First the probe: one conflicting customization denies, or the index is not the body's.
      body.assign(pristine);
      kpw::handle_http(route, "POST", "application/json", body, ric_settings(0, true), answer);
      if (answer.body.find("conflicting with InterpreterOperation(Retain)") == std::string::npos) {
        write_all(fd, "E RIC-1 did not deny against a conflicting customization\n");
        _exit(0);
      }
      settings = &ric_settings(job.ric1_entries, false);
    }
    if (job.rb2) settings = &rb2_settings(job.rb2_quotas);
    for (int calls = 0;; ++calls) {
      body.assign(pristine);
      // Every call parses its Lua as a tenant who changes one byte a request makes us do: nothing
      // remembered from the last call (lua_script_loads_remembered).
      kpw::lua_forget_scripts();
      const Clock::time_point t0 = Clock::now();
      kpw::handle_http(route, "POST", "application/json", body, *settings, answer);
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

}  // namespace

namespace {

Result run(const Job& job, const Options& o) {
  Result r;
  r.file = job.file;
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
    child(fds[1], job, o);
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

}  // namespace

Result measure(const std::string& file, const std::string& path, const Options& o) {
  return run(Job{.file = file, .path = path}, o);
}

Result measure_ric1(std::size_t entries, const Options& o) {
  Result r = run(Job{.file = "(ric-1 " + std::to_string(entries) + ")",
                     .path = "/validate-resourceinterpretercustomization",
                     .ric1_entries = entries,
                     .ric1 = true},
                 o);
  // The figure means the whole walk only if the review was allowed and RIC-1 was judged.
  if (r.outcome == Outcome::kMeasured &&
      (r.status != 200 || r.allowed != "allow" || r.warnings > 0)) {
    r.outcome = Outcome::kError;
    r.error = format("expected HTTP 200, allowed, no warning; got HTTP %u %s, %ld warnings",
                     r.status, r.allowed.c_str(), r.warnings);
  }
  return r;
}

Result measure_rb2(std::size_t components, std::size_t quotas, const Options& o) {
  Result r = run(Job{.file = format("(rb-2 %zu components, %zu quotas)", components, quotas),
                     .path = "/validate-resourcebinding",
                     .rb2 = true,
                     .rb2_components = components,
                     .rb2_quotas = quotas},
                 o);
  // Against quotas the last one denies (every quota judged); against none it is allowed.
  const std::string want = quotas > 0 ? "deny" : "allow";
  if (r.outcome == Outcome::kMeasured && (r.status != 200 || r.allowed != want)) {
    r.outcome = Outcome::kError;
    r.error =
        format("expected HTTP 200, %s; got HTTP %u %s", want.c_str(), r.status, r.allowed.c_str());
  }
  return r;
}

// ---- the body files ----

namespace {

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

// The route table's order (src/table/routes.cpp: each kind's validating path before its mutating
// one); unknown paths last, by name.
std::pair<int, std::string> path_order(const std::string& path) {
  const kpw::Route* route = kpw::find_route(path);
  const int index = route != nullptr ? static_cast<int>(kpw::route_index(*route))
                                     : static_cast<int>(kpw::routes().size());
  return {index, path};
}

}  // namespace

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

}  // namespace worstcase
