// How docs/performance.md's "A vectorised reader, measured" table was measured (2026-11-28): our
// JSON reader (the one every review goes through) against Debian's simdjson (libsimdjson-dev
// 3.0.1, not a dependency) on the bench's review bodies: simdjson's DOM parser (stage 1 finds the
// structure 64 bytes at a time; stage 2 writes a tape) and its on-demand parser walking every
// value. simdjson picks its kernel at run time (icelake: AVX-512; haswell: AVX2; westmere:
// SSE4.2); SJ_IMPL forces one. Built by hand against a Release build's library, from the
// repository's root:
//
//   apt-get install -y libsimdjson-dev
//   g++ -std=c++20 -O3 -DNDEBUG -DRAPIDJSON_HAS_STDSTRING=1 -DRAPIDJSON_SSE2 -Isrc -I.
//     test/bench/json_candidates/compare.cpp build/libkpw.a -lsimdjson -lbenchmark -lpthread
//     -lssl -lcrypto -o /tmp/json_compare                      (one command)
//   SJ_IMPL=haswell /tmp/json_compare --benchmark_min_time=0.5     # times (Google Benchmark)
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null /tmp/json_compare count ours
//     test/bench/pp-review.json 200   (one command; instructions: this minus the run with 0, / 200)
//
// Ours copies the body first (it reads in place; ~35 ns, see BM_CopyBody), simdjson reads a
// padded copy made once. Neither side's figures include a validator. simdjson does not look for
// repeated keys; ours does (14 % of its instructions on pp-review.json). A throwaway measurement
// kept for reproducibility; no test runs it.
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "json/json.hpp"
#include "util/file.hpp"

// The bench's bodies, relative to the repository's root (where the command above runs).
#ifndef KPW_BENCH_BODIES
#define KPW_BENCH_BODIES "test/bench"
#endif

namespace {

std::string body_of(const char* path) {
  std::string body;
  if (!kpw::read_file(path, body)) {
    std::fprintf(stderr, "compare: cannot read %s\n", path);
    std::exit(1);
  }
  return body;
}

std::string bench_body(const char* name) {
  return body_of((std::string(KPW_BENCH_BODIES) + "/" + name).c_str());
}

void BM_Ours(benchmark::State& state, const char* name) {
  const std::string pristine = bench_body(name);
  std::string body;
  body.reserve(pristine.size());
  kpw::JsonArena& arena = kpw::thread_json_arena();
  for (auto _ : state) {
    body.assign(pristine);
    if (!arena.parse_in_place(body).ok) return state.SkipWithError("our reader refused it");
    benchmark::DoNotOptimize(&arena.document());
  }
}

void BM_SimdjsonDom(benchmark::State& state, const char* name) {
  const simdjson::padded_string body(bench_body(name));
  simdjson::dom::parser parser;
  for (auto _ : state) {
    auto doc = parser.parse(body);
    if (doc.error()) return state.SkipWithError("simdjson refused it");
    benchmark::DoNotOptimize(doc.value_unsafe());
  }
}

// Every value touched once, as a validator reading the whole object would.
std::size_t walk(simdjson::ondemand::value v) {
  std::size_t n = 1;
  switch (v.type()) {
    case simdjson::ondemand::json_type::object:
      for (auto field : v.get_object()) {
        n += field.unescaped_key().value().size() > 0;
        n += walk(field.value());
      }
      break;
    case simdjson::ondemand::json_type::array:
      for (auto element : v.get_array()) n += walk(element.value());
      break;
    case simdjson::ondemand::json_type::string:
      n += v.get_string().value().size() > 0;
      break;
    case simdjson::ondemand::json_type::number:
      n += v.get_double().value() > 0;
      break;
    case simdjson::ondemand::json_type::boolean:
      n += v.get_bool().value();
      break;
    case simdjson::ondemand::json_type::null:
      break;
  }
  return n;
}

void BM_SimdjsonOnDemandWalk(benchmark::State& state, const char* name) {
  const simdjson::padded_string body(bench_body(name));
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    auto doc = parser.iterate(body);
    benchmark::DoNotOptimize(walk(doc.get_value().value()));
  }
}

BENCHMARK_CAPTURE(BM_Ours, pp, "pp-review.json");
BENCHMARK_CAPTURE(BM_SimdjsonDom, pp, "pp-review.json");
BENCHMARK_CAPTURE(BM_SimdjsonOnDemandWalk, pp, "pp-review.json");
BENCHMARK_CAPTURE(BM_Ours, work, "work-review.json");
BENCHMARK_CAPTURE(BM_SimdjsonDom, work, "work-review.json");
BENCHMARK_CAPTURE(BM_SimdjsonOnDemandWalk, work, "work-review.json");

// `count ours|simdjson FILE N`: N reads of FILE after one warm-up, for callgrind.
int count(const char* who, const char* path, int n) {
  const std::string pristine = body_of(path);
  std::string body;
  body.reserve(pristine.size());
  kpw::JsonArena& arena = kpw::thread_json_arena();
  const simdjson::padded_string padded(pristine);
  simdjson::dom::parser parser;
  const bool ours = std::strcmp(who, "ours") == 0;
  long ok = 0;
  for (int i = 0; i <= n; ++i) {
    if (ours) {
      body.assign(pristine);
      ok += arena.parse_in_place(body).ok;
    } else {
      ok += !parser.parse(padded).error();
    }
  }
  std::printf("%s: %ld of %d reads succeeded\n", who, ok, n + 1);
  return ok == n + 1 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* name = std::getenv("SJ_IMPL")) {
    // A kernel this CPU (or valgrind, which has no AVX-512) cannot run would fail every parse.
    const simdjson::implementation* impl = simdjson::get_available_implementations()[name];
    if (impl == nullptr || !impl->supported_by_runtime_system()) {
      std::fprintf(stderr, "compare: SJ_IMPL=%s is not a kernel this machine runs\n", name);
      return 2;
    }
    simdjson::get_active_implementation() = impl;
  }
  std::fprintf(stderr, "simdjson kernel: %s\n",
               simdjson::get_active_implementation()->name().c_str());
  if (argc == 5 && std::string_view(argv[1]) == "count") {
    if (std::string_view(argv[2]) != "ours" && std::string_view(argv[2]) != "simdjson") {
      std::fprintf(stderr, "compare: count ours|simdjson FILE N\n");
      return 2;
    }
    return count(argv[2], argv[3], std::atoi(argv[4]));
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
