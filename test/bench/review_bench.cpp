// ns per review through kpw::handle_http — decode, rules, encode — per kind, without TLS or
// HTTP. The bodies are the files the load test posts (test/bench/*.json), read at startup.
//
// handle_http parses the body in place (it is garbage afterwards), so every iteration first
// copies the pristine body into one reused std::string (capacity reserved once: a memcpy, no
// allocation). That copy is part of each Review/* figure; BM_CopyBody measures it alone so it
// can be subtracted. The HttpAnswer is reused the way the server's session reuses it.
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "admission/cluster_state.hpp"
#include "admission/service.hpp"
#include "admission/settings.hpp"
#include "server/metrics.hpp"
#include "util/file.hpp"
#include "util/lua_syntax.hpp"

#ifndef KPW_BENCH_DIR
#error "KPW_BENCH_DIR must name the directory holding the review bodies"
#endif

// Every heap allocation of the process is counted, so each Review/* figure can say how many
// allocations one review makes in steady state (the target is zero where it can be arranged).
// The whole malloc family is interposed (operator new, RapidJSON's CrtAllocator and the C
// library all end there); under AddressSanitizer, which owns malloc, only operator new is.
namespace {
std::atomic<std::uint64_t> g_allocations{0};
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
#define KPW_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KPW_COUNT_MALLOC 0
#endif
#endif
#ifndef KPW_COUNT_MALLOC
#define KPW_COUNT_MALLOC 1
#endif

#if KPW_COUNT_MALLOC
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t count, std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, n);
}
void* realloc(void* p, std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, n);
}
void* memalign(std::size_t alignment, std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void free(void* p) noexcept { __libc_free(p); }
}
#else
// GCC sees the malloc in our operator new and the free in our operator delete as a mismatch.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
#endif

namespace {

std::string read_body(const char* name) {
  const std::string path = std::string(KPW_BENCH_DIR) + "/" + name;
  std::string body;
  if (!kpw::read_file(path, body)) {
    std::fprintf(stderr, "review_bench: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return body;
}

// Baseline: only the per-iteration copy of the body the Review/* benchmarks also do.
void BM_CopyBody(benchmark::State& state, const char* file) {
  const std::string pristine = read_body(file);
  std::string body;
  body.reserve(pristine.size());
  for (auto _ : state) {
    body.assign(pristine);
    benchmark::DoNotOptimize(body.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(pristine.size()));
}

// copy body + handle_http (decode, rules, encode). Checks the verdict once before timing.
// `before_each`, when given, runs before each review, timed with it (forgetting what a thread
// remembers, to measure a first review). `settings`: what the review is judged with (the flags'
// defaults: no cluster); with a cluster, the answer must not say RIC-1 was not checked.
void BM_Review(benchmark::State& state, const char* file, const char* path, bool allowed,
               void (*before_each)() = nullptr,
               const kpw::Settings& settings = kpw::kDefaultSettings) {
  const std::string pristine = read_body(file);
  std::string body;
  body.reserve(pristine.size());
  kpw::HttpAnswer answer;
  const kpw::Route* route = kpw::find_route(path);

  body.assign(pristine);
  kpw::handle_http(route, "POST", "application/json", body, settings, answer);
  const std::string_view want = allowed ? "\"allowed\":true" : "\"allowed\":false";
  if (answer.status != 200 || answer.body.find(want) == std::string::npos) {
    state.SkipWithError((std::string(file) + ": unexpected answer: " + answer.body).c_str());
    return;
  }
  if (settings.cluster != nullptr && answer.body.find("RIC-1 not checked") != std::string::npos) {
    state.SkipWithError(
        (std::string(file) + ": not judged against the cluster: " + answer.body).c_str());
    return;
  }
  const std::size_t answer_bytes = answer.body.size();

  // Warm up, then count allocations over the timed loop.
  for (int i = 0; i < 16; ++i) {
    body.assign(pristine);
    kpw::handle_http(route, "POST", "application/json", body, settings, answer);
  }
  const std::uint64_t before = g_allocations.load();
  for (auto _ : state) {
    if (before_each != nullptr) before_each();
    body.assign(pristine);  // part of the measurement: see BM_CopyBody
    kpw::handle_http(route, "POST", "application/json", body, settings, answer);
    benchmark::DoNotOptimize(answer.body.data());
    benchmark::ClobberMemory();
  }
  state.counters["allocs"] =
      static_cast<double>(g_allocations.load() - before) / static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(pristine.size()));
  state.counters["body_B"] = static_cast<double>(pristine.size());
  state.counters["answer_B"] = static_cast<double>(answer_bytes);
}

BENCHMARK_CAPTURE(BM_CopyBody, pp_allowed, "pp-review.json");
BENCHMARK_CAPTURE(BM_Review, pp_allowed, "pp-review.json", "/validate-propagationpolicy", true);
BENCHMARK_CAPTURE(BM_Review, pp_denied, "pp-review-denied.json", "/validate-propagationpolicy",
                  false);
BENCHMARK_CAPTURE(BM_Review, cpp_allowed, "cpp-review.json", "/validate-clusterpropagationpolicy",
                  true);
// OverridePolicy: op-review.json's second selector has no namespace, which the mutator fills and
// the validator alone denies (O-21), as upstream's does.
BENCHMARK_CAPTURE(BM_Review, op_denied, "op-review.json", "/validate-overridepolicy", false);
// op-review-allowed.json: three selectors in the policy's namespace, two override rules (image,
// labels, annotations, plaintext; a field selector, a YAML field overrider, args, plaintext).
BENCHMARK_CAPTURE(BM_Review, op_allowed, "op-review-allowed.json", "/validate-overridepolicy",
                  true);
// FederatedResourceQuota: nine resources overall, four static assignments summed against it;
// the denied one's sums pass overall for cpu and memory and one assignment names a resource
// overall lacks.
BENCHMARK_CAPTURE(BM_Review, frq_allowed, "frq-review.json", "/validate-federatedresourcequota",
                  true);
BENCHMARK_CAPTURE(BM_Review, frq_denied, "frq-review-denied.json",
                  "/validate-federatedresourcequota", false);
// ClusterTaintPolicy: target clusters by name, field and label selector; add and remove
// conditions; three taints.
BENCHMARK_CAPTURE(BM_Review, ctp_allowed, "ctp-review.json", "/validate-clustertaintpolicy", true);
// MultiClusterService: CrossCluster, two named ports, provider and consumer clusters (the
// ObjectMeta rules with a DNS-1035 name first); MultiClusterIngress: a class, TLS with a wildcard
// host, three paths of each pathType, service and resource backends.
BENCHMARK_CAPTURE(BM_Review, mcs_allowed, "mcs-review.json", "/validate-multiclusterservice", true);
BENCHMARK_CAPTURE(BM_Review, mci_allowed, "mci-review.json", "/validate-multiclusteringress", true);
// FederatedHPA: five metrics of the four sources (a selector, quantities), behavior both ways.
BENCHMARK_CAPTURE(BM_Review, fhpa_allowed, "fhpa-review.json", "/validate-federatedhpa", true);
// CronFederatedHPA: a FederatedHPA scaled by three rules (weekday business hours in
// Asia/Shanghai, a weekly macro): gronx's grammar, the controller's, the time zone looked up.
BENCHMARK_CAPTURE(BM_Review, cfh_allowed, "cfh-review.json", "/validate-cronfederatedhpa", true);
// ResourceInterpreterCustomization: a realistic script for each of the eight operations (4.4 KB
// of Lua, goto and labels included) and the RIC-1 warning. ric_allowed: the same object again, as
// an UPDATE that leaves the scripts alone sends it (each script found in the thread's memory);
// ric_first: every script loaded by Lua 5.2 (RIC-2), as for a new or edited customization.
BENCHMARK_CAPTURE(BM_Review, ric_allowed, "ric-review.json",
                  "/validate-resourceinterpretercustomization", true);
BENCHMARK_CAPTURE(BM_Review, ric_first, "ric-review.json",
                  "/validate-resourceinterpretercustomization", true, &kpw::lua_forget_scripts);

// ric_cluster: ric_allowed's body judged against a synced ClusterState of 10 000 customizations
// (as the watch cache publishes them): 8 999 on as many other targets, and on the body's own
// spec.target 1 000 whose operations do not overlap the body's plus one named as the body itself
// (an UPDATE meets itself in the cache: skipped by name, though its operations overlap). The body
// scripts all seven exclusive operations, so the only masks that do not overlap are 0: the 1 000
// script InterpretDependency alone. Allowed, and RIC-1 walks every entry of the target — its
// worst allowed case at that size. Their names have the body's name's length and share all but
// its last four bytes, so each name comparison reads the bytes (not only the lengths).
constexpr std::size_t kRicCached = 10'000;
constexpr std::size_t kRicOnTarget = 1'000;

const kpw::Settings& ric_cluster_settings() {
  static const kpw::Settings settings = [] {
    const std::string body = read_body("ric-review.json");
    rapidjson::Document doc;
    doc.Parse(body.data(), body.size());
    const auto text = [&](std::initializer_list<const char*> path) -> std::string {
      const rapidjson::Value* v = &doc;
      for (const char* key : path) {
        if (!v->IsObject()) return {};
        const auto it = v->FindMember(key);
        if (it == v->MemberEnd()) return {};
        v = &it->value;
      }
      return v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
    };
    const std::string api_version = text({"request", "object", "spec", "target", "apiVersion"});
    const std::string kind = text({"request", "object", "spec", "target", "kind"});
    const std::string name = text({"request", "object", "metadata", "name"});
    if (api_version.empty() || kind.empty() || name.size() < 5) {
      std::fprintf(stderr, "review_bench: ric-review.json has no spec.target or metadata.name\n");
      std::exit(1);
    }
    auto index = std::make_shared<kpw::RicIndex>();
    std::string key;
    const kpw::karmada::OperationMask all = (1u << kpw::karmada::kExclusiveOperations) - 1;
    for (std::size_t i = 0; i + kRicOnTarget + 1 < kRicCached; ++i) {
      char other_kind[32];
      std::snprintf(other_kind, sizeof other_kind, "Kind%05zu", i);
      kpw::ric_target_key(api_version, other_kind, key);
      char other_name[32];
      std::snprintf(other_name, sizeof other_name, "other-%05zu", i);
      index->by_target[key].push_back({other_name, all});
    }
    kpw::ric_target_key(api_version, kind, key);
    std::vector<kpw::RicEntry>& mine = index->by_target[key];
    for (std::size_t i = 0; i < kRicOnTarget; ++i) {
      char digits[8];
      std::snprintf(digits, sizeof digits, "%04zu", i);
      mine.push_back({name.substr(0, name.size() - 4) + digits, 0});
    }
    mine.push_back({name, all});
    std::sort(mine.begin(), mine.end(),
              [](const kpw::RicEntry& a, const kpw::RicEntry& b) { return a.name < b.name; });
    index->objects = kRicCached;
    static kpw::ClusterState cluster;
    cluster.publish(std::move(index));
    kpw::Settings s;
    s.cluster = &cluster;
    return s;
  }();
  return settings;
}

BENCHMARK_CAPTURE(BM_Review, ric_cluster, "ric-review.json",
                  "/validate-resourceinterpretercustomization", true, nullptr,
                  ric_cluster_settings());

}  // namespace

namespace {

// A request's metrics (metrics::request_started and request_finished, as the server counts every
// request) alone or around ~1 µs of the thread's own work, on one thread and on two at once. On
// two, a counter the other core wrote last is a cache line fetched from that core: the time per
// request over the one-thread figure is what the two event loops' sharing of a path's counters
// costs.
void BM_RequestMetrics(benchmark::State& state) {
  static const bool ready = [] {
    static const kpw::metrics::WebhookSeriesSpec spec{"/validate-propagationpolicy", {}};
    kpw::metrics::set_webhooks({&spec, 1}, 2);
    return true;
  }();
  benchmark::DoNotOptimize(ready);
  kpw::ReviewOutcome outcome;
  outcome.reviewed = true;
  outcome.allowed = true;
  // The thread's own data, written between two requests (8 KiB: a request's buffers); none: the
  // counters alone, every update meeting the other thread's.
  std::vector<std::uint64_t> own(static_cast<std::size_t>(state.range(0)), 1);
  kpw::metrics::count_on_shard(static_cast<std::size_t>(state.thread_index()));  // as event loop n
  for (auto _ : state) {
    kpw::metrics::request_started(0);
    for (std::uint64_t& v : own) v = v * 31 + 7;
    benchmark::DoNotOptimize(own.data());
    benchmark::ClobberMemory();
    kpw::metrics::request_finished(0, kpw::metrics::RequestEnd::kAnswered, 200, 0.0004, outcome);
  }
}
BENCHMARK(BM_RequestMetrics)->Arg(0)->Arg(1024)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

// The mutating path: a CREATE, so every answer regenerates the permanent id (getrandom).
BENCHMARK_CAPTURE(BM_Review, pp_mutate, "pp-review.json", "/mutate-propagationpolicy", true);
BENCHMARK_CAPTURE(BM_Review, op_mutate, "op-review.json", "/mutate-overridepolicy", true);
// A Work as the binding controller creates one (~20 KB: a Deployment, its Service and ConfigMap):
// a new permanent ID, the revision annotation and the cluster IPs pruned, the managed keys of each
// manifest sorted and set (13 ops).
BENCHMARK_CAPTURE(BM_Review, work_mutate, "work-review.json", "/mutate-work", true);
// The same MultiClusterService: its id kept, nothing to change (no patch).
BENCHMARK_CAPTURE(BM_Review, mcs_mutate, "mcs-review.json", "/mutate-multiclusterservice", true);
// The same FederatedHPA: minReplicas defaulted (FH-M1), the quantities already canonical.
BENCHMARK_CAPTURE(BM_Review, fhpa_mutate, "fhpa-review.json", "/mutate-federatedhpa", true);
BENCHMARK_MAIN();
