#!/usr/bin/env bash
# shellcheck disable=SC2059  # printf formats held in $fmt are this script's own table layouts
# Benchmark of karmada-policy-webhook against its ceiling. Prints figures; never fails on speed
# (it exits non-zero only when it cannot measure: a missing tool or binary, a server that does
# not start, answers wrongly or does not stop).
#
#   test/bench/run.sh BUILD_DIR            (`make bench` runs it on `build`)
#
# BUILD_DIR must already hold karmada-policy-webhook and test/bench/ceiling_server (and
# test/bench/review_bench when Google Benchmark is installed); this script builds nothing.
#
# For the real server and then the ceiling (the same server library, a handler that answers a
# fixed allowed review), each in turn:
#   keep-alive load   wrk -t2 -c50 -d$DURATION --latency, POSTing test/bench/pp-review.json
#                     -> requests/s, p50, p99 (after a $WARMUP warm-up)
#   new connections   the same wrk with `Connection: close`: every request is a new TCP
#                     connection and a full TLS 1.3 handshake (wrk never resumes sessions)
#                     -> new TLS connections/s, each carrying one review
#   peak RSS          VmHWM of the server process after both loads
#   server CPU        the server's user+system CPU time over each load's wall time (/proc/PID/stat):
#                     a server well below 100% of its one thread was held back by the load
#                     generator sharing the box, not by itself
# then review_bench (ns per review through handle_http, no TLS/HTTP), then a summary table with
# the ratio real/ceiling.
#
# Environment: DURATION (10s), WARMUP (2s), TLS_DURATION (5s), CONNECTIONS (50),
# WRK_THREADS (2), SERVER_THREADS (1), PIN (0; 1 pins the server to CPU 0 and wrk to CPU 1 —
# steadier on an idle box, worse when anything else runs: the scheduler cannot move wrk away),
# BENCH_MIN_TIME (0.5, seconds per review_bench benchmark).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
if ! build="$(cd "$1" 2>/dev/null && pwd)"; then
  echo "$0: build directory $1 does not exist; build first:" >&2
  echo "  cmake -S $root -B $1 -DCMAKE_BUILD_TYPE=Release && cmake --build $1" >&2
  exit 2
fi

DURATION="${DURATION:-10s}"
WARMUP="${WARMUP:-2s}"
TLS_DURATION="${TLS_DURATION:-5s}"
CONNECTIONS="${CONNECTIONS:-50}"
WRK_THREADS="${WRK_THREADS:-2}"
SERVER_THREADS="${SERVER_THREADS:-1}"
PIN="${PIN:-0}"
BENCH_MIN_TIME="${BENCH_MIN_TIME:-0.5}"
OPEN_RATE="${OPEN_RATE:-1000}"          # open-loop latency: requests/s over OPEN_CONNECTIONS
OPEN_CONNECTIONS="${OPEN_CONNECTIONS:-25}"
OPEN_SECONDS="${OPEN_SECONDS:-10}"

body="$here/pp-review.json"
path="/validate-propagationpolicy"
lua="$here/post.lua"
webhook="$build/karmada-policy-webhook"
ceiling="$build/test/bench/ceiling_server"
review_bench="$build/test/bench/review_bench"
openloop="$build/test/bench/openloop"

# ---- preflight ----
missing=0
for tool in wrk curl openssl python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "$0: $tool is not installed (make deps installs it)" >&2
    missing=1
  fi
done
for bin in "$webhook" "$ceiling"; do
  if [ ! -x "$bin" ]; then
    echo "$0: $bin is missing; build it first: cmake --build $build" >&2
    echo "  (ceiling_server comes from add_subdirectory(test/bench) in the top CMakeLists.txt)" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] || exit 1

started=$SECONDS
tmp="$(mktemp -d "${TMPDIR:-/tmp}/kpw-bench.XXXXXX")"
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

"$root/certs/make-certs.sh" "$tmp/certs" >/dev/null

cores="$(nproc)"
server_pin=()
wrk_pin=()
if [ "$PIN" = 1 ] && [ "$cores" -ge 2 ] && command -v taskset >/dev/null; then
  server_pin=(taskset -c 0)
  wrk_pin=(taskset -c 1)
  placement="server pinned to CPU 0, wrk pinned to CPU 1"
else
  placement="not pinned (PIN=1 pins them)"
fi

echo "== karmada-policy-webhook benchmark ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -m), $cores cores)"
echo "   $cores cores: the server runs with --threads $SERVER_THREADS, wrk (-t$WRK_THREADS) takes the"
echo "   other core; load generator and server share the machine, so absolute figures are a lower"
echo "   bound, the ratio to the ceiling (same run, same box) is the figure to compare."
echo "   placement: $placement."
read -r load1 _ </proc/loadavg
echo "   load average before starting: $load1"
if awk -v l="$load1" 'BEGIN { exit !(l >= 0.5) }'; then
  echo "   WARNING: the box is not idle (load $load1): other work competes with server and wrk;"
  echo "   the figures are noisier than usual, the ratios less so."
fi
echo "   body: ${body#"$root"/} ($(wc -c <"$body") bytes) POST $path"
echo "   keep-alive: wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION --latency (after $WARMUP warm-up)"
echo "   new TLS connections: the same wrk, -d$TLS_DURATION, header 'Connection: close' (each request"
echo "   a new TCP connection + full TLS 1.3 handshake, no resumption, one review, close)"
echo

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The value of KEY in a WRK_RESULT line.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }

# run_wrk OUTPUT DURATION [extra wrk args...]: the WRK_RESULT line, or exits with wrk's output.
run_wrk() {
  local out="$1" duration="$2"
  shift 2
  BODY_FILE="$body" BENCH_PATH="$path" "${wrk_pin[@]}" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" \
    -d"$duration" "$@" -s "$lua" "https://127.0.0.1:$port$path" >"$out" 2>&1 || true
  local line
  line="$(grep '^WRK_RESULT' "$out" || true)"
  if [ -z "$line" ]; then
    echo "$0: wrk produced no result:" >&2
    cat "$out" >&2
    exit 1
  fi
  echo "$line"
}

vm_hwm_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
# utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/PID/stat).
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
clk_tck="$(getconf CLK_TCK)"
# cpu_percent TICKS SECONDS: share of one core. cpu_us_each TICKS COUNT: CPU µs per request.
cpu_percent() { awk -v t="$1" -v s="$2" -v hz="$clk_tck" 'BEGIN { printf "%.0f", t / hz / s * 100 }'; }
cpu_us_each() { awk -v t="$1" -v n="$2" -v hz="$clk_tck" 'BEGIN { if (n > 0) printf "%.1f", t / hz * 1e6 / n; else print "n/a" }'; }

# Figures per server, filled by measure.
declare -A rps p50 p99 rss_kib tls_rps errors cpu_ka cpu_new us_ka us_new open_p99 open_p999

# measure LABEL EXPECT_UID COMMAND...: start, check one answer, load, sample, stop.
measure() {
  local label="$1" expect_uid="$2"
  shift 2
  port="$(free_port)"
  local err="$tmp/$label.stderr"
  echo "== $label: $* --bind-address 127.0.0.1 --secure-port $port --threads $SERVER_THREADS"
  "${server_pin[@]}" "$@" --bind-address 127.0.0.1 --secure-port "$port" \
    --cert-dir "$tmp/certs" --threads "$SERVER_THREADS" 2>"$err" &
  server_pid=$!
  local waited=0
  until grep -q 'serving https://' "$err"; do
    if ! kill -0 "$server_pid" 2>/dev/null || [ "$waited" -ge 100 ]; then
      echo "$0: $label did not start (no 'serving https://' line within 10 s):" >&2
      cat "$err" >&2
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  echo "   $(grep 'serving https://' "$err")"

  # One request first: the figures mean nothing if the answer is wrong.
  local answer code
  answer="$(curl -sS --max-time 10 --cacert "$tmp/certs/ca.crt" \
    -H 'Content-Type: application/json' --data-binary "@$body" \
    -w '\n%{http_code}' "https://127.0.0.1:$port$path")"
  code="${answer##*$'\n'}"
  answer="${answer%$'\n'*}"
  if [ "$code" != 200 ] || [[ "$answer" != *'"allowed":true'* ]] ||
     [[ "$answer" != *"\"uid\":\"$expect_uid\""* ]]; then
    echo "$0: $label answered HTTP $code, not an allowed review with uid $expect_uid:" >&2
    echo "$answer" >&2
    exit 1
  fi
  echo "   check: HTTP 200, \"allowed\":true, uid $expect_uid"
  if [ "$label" = real ]; then
    local tls
    tls="$(timeout 10 openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null |
      sed -n 's/^New, \(.*\)$/\1/p; s/^Server Temp Key: \(.*\)$/key exchange \1/p;
              s/^Peer signature type: \(.*\)$/signature \1/p' | paste -sd ';' - || true)"
    echo "   TLS: ${tls:-unknown}"
  fi

  run_wrk "$tmp/$label.warmup" "$WARMUP" >/dev/null
  local line ticks
  ticks="$(cpu_ticks "$server_pid")"
  line="$(run_wrk "$tmp/$label.keepalive" "$DURATION" --latency)"
  ticks=$(($(cpu_ticks "$server_pid") - ticks))
  cpu_ka[$label]="$(cpu_percent "$ticks" "$(field "$line" duration_s)")"
  us_ka[$label]="$(cpu_us_each "$ticks" "$(field "$line" requests)")"
  sed -n '/Thread Stats/,/Latency Distribution/p; /^ *50%/,/^ *99%/p' "$tmp/$label.keepalive" |
    sed 's/^/   /'
  echo "   $line"
  rps[$label]="$(field "$line" rps)"
  p50[$label]="$(field "$line" p50_us)"
  p99[$label]="$(field "$line" p99_us)"
  local errs=0 k
  for k in non2xx connect_errors read_errors write_errors timeouts; do
    errs=$((errs + $(field "$line" "$k")))
  done
  local hwm_keepalive
  hwm_keepalive="$(vm_hwm_kib "$server_pid")"
  echo "   server CPU: ${cpu_ka[$label]}% of a core, ${us_ka[$label]} µs per request; VmHWM after keep-alive load: $hwm_keepalive kB"

  ticks="$(cpu_ticks "$server_pid")"
  line="$(run_wrk "$tmp/$label.tls" "$TLS_DURATION" -H 'Connection: close')"
  ticks=$(($(cpu_ticks "$server_pid") - ticks))
  cpu_new[$label]="$(cpu_percent "$ticks" "$(field "$line" duration_s)")"
  us_new[$label]="$(cpu_us_each "$ticks" "$(field "$line" requests)")"
  echo "   new connections: $line"
  tls_rps[$label]="$(field "$line" rps)"
  for k in non2xx connect_errors write_errors timeouts; do
    errs=$((errs + $(field "$line" "$k")))
  done
  # read errors here would be connections closed under wrk before an answer
  errs=$((errs + $(field "$line" read_errors)))
  errors[$label]="$errs"
  # Open loop: a fixed rate over keep-alive connections, latency from each scheduled send time.
  if [ -x "$openloop" ]; then
    local open
    open="$("$openloop" --port "$port" --ca "$tmp/certs/ca.crt" --body "$body" --path "$path" \
      --rate "$OPEN_RATE" --connections "$OPEN_CONNECTIONS" --seconds "$OPEN_SECONDS" || true)"
    echo "   open loop: $open"
    open_p99[$label]="$(field "$open" p99_us)"
    open_p999[$label]="$(field "$open" p999_us)"
  fi
  rss_kib[$label]="$(vm_hwm_kib "$server_pid")"
  echo "   server CPU: ${cpu_new[$label]}% of a core, ${us_new[$label]} µs per connection; VmHWM after new-connection load: ${rss_kib[$label]} kB"
  if [ "$errs" -ne 0 ]; then
    echo "   WARNING: $label had $errs errors under load (non-2xx or socket errors): see above"
  fi

  kill -TERM "$server_pid"
  local status=0 deadline=$((SECONDS + 15))
  while kill -0 "$server_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
  if kill -0 "$server_pid" 2>/dev/null; then
    echo "$0: $label did not stop within 15 s of SIGTERM:" >&2
    cat "$err" >&2
    kill -KILL "$server_pid" 2>/dev/null || true
    exit 1
  fi
  wait "$server_pid" || status=$?
  server_pid=
  if [ "$status" -ne 0 ]; then
    echo "$0: $label exited $status on SIGTERM:" >&2
    cat "$err" >&2
    exit 1
  fi
  echo "   stopped on SIGTERM (exit 0)"
  echo
}

request_uid="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["request"]["uid"])' "$body")"
real_flags=(--health-probe-bind-address 0 --metrics-bind-address 0 --shutdown-delay 0s)
measure real "$request_uid" "$webhook" serve "${real_flags[@]}"
# The mutating path on the same review: a CREATE, so every answer carries a fresh permanent id.
path="/mutate-propagationpolicy"
measure mutate "$request_uid" "$webhook" serve "${real_flags[@]}"
path="/validate-propagationpolicy"
measure ceiling bench "$ceiling"

# ---- ns per review (no TLS, no HTTP) ----
bench_summary=
if [ -x "$review_bench" ]; then
  echo "== review_bench: ns per review through handle_http (decode + rules + encode)"
  echo "   Review/* include copying the body into a reused string (handle_http parses in place);"
  echo "   CopyBody is that copy alone."
  "${server_pin[@]}" "$review_bench" --benchmark_min_time="$BENCH_MIN_TIME" \
    --benchmark_out="$tmp/review_bench.json" --benchmark_out_format=json 2>&1 | sed 's/^/   /'
  bench_summary="$(python3 - "$tmp/review_bench.json" <<'EOF'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
names = {"BM_CopyBody/pp_allowed": "copy body only (baseline)",
         "BM_Review/pp_allowed": "PropagationPolicy, allowed",
         "BM_Review/pp_denied": "PropagationPolicy, denied (9 errors)",
         "BM_Review/cpp_allowed": "ClusterPropagationPolicy, allowed",
         "BM_Review/pp_mutate": "PropagationPolicy, mutate (CREATE)"}
for r in runs:
    if r.get("run_type", "iteration") != "iteration":
        continue
    if r.get("error_occurred"):
        print("  %-40s ERROR %s" % (names.get(r["name"], r["name"]), r.get("error_message", "")))
        continue
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[r.get("time_unit", "ns")]
    ns = r["real_time"] * scale
    body = r.get("body_B")
    print("  %-40s %9.0f ns%s" % (names.get(r["name"], r["name"]), ns,
                                   "   (%d-byte body)" % body if body else ""))
EOF
)"
  echo
else
  echo "== review_bench not built (Google Benchmark missing: apt-get install libbenchmark-dev)"
  echo
fi

# ---- summary ----
ms() { awk -v us="$1" 'BEGIN { printf "%.2f ms", us / 1000 }'; }
mib() { awk -v kib="$1" 'BEGIN { printf "%.1f", kib / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "== summary (server --threads $SERVER_THREADS; wrk -t$WRK_THREADS -c$CONNECTIONS; keep-alive $DURATION; new connections $TLS_DURATION; $placement)"
fmt='  %-9s %9s %9s %9s %13s %16s %7s\n'
printf "$fmt" server req/s p50 p99 "peak RSS MiB" "new TLS conns/s" errors
for s in real mutate ceiling; do
  printf "$fmt" "$s" "$(printf '%.0f' "${rps[$s]}")" "$(ms "${p50[$s]}")" "$(ms "${p99[$s]}")" \
    "$(mib "${rss_kib[$s]}")" "$(printf '%.0f' "${tls_rps[$s]}")" "${errors[$s]}"
done
printf "$fmt" real/ceil "$(ratio "${rps[real]}" "${rps[ceiling]}")" \
  "$(ratio "${p50[real]}" "${p50[ceiling]}")" "$(ratio "${p99[real]}" "${p99[ceiling]}")" \
  "$(ratio "${rss_kib[real]}" "${rss_kib[ceiling]}")" "$(ratio "${tls_rps[real]}" "${tls_rps[ceiling]}")" ""
printf "$fmt" mutate/ceil "$(ratio "${rps[mutate]}" "${rps[ceiling]}")" \
  "$(ratio "${p50[mutate]}" "${p50[ceiling]}")" "$(ratio "${p99[mutate]}" "${p99[ceiling]}")" \
  "$(ratio "${rss_kib[mutate]}" "${rss_kib[ceiling]}")" "$(ratio "${tls_rps[mutate]}" "${tls_rps[ceiling]}")" ""
echo "  req/s real/ceiling: $(ratio "${rps[real]}" "${rps[ceiling]}"), mutate/ceiling: $(ratio "${rps[mutate]}" "${rps[ceiling]}") (1.00 would mean decode + rules + encode cost nothing next to TLS + HTTP)"
echo
echo "  server CPU (utime+stime from /proc/PID/stat; per request, steadier than rates when wrk is the limit):"
fmt='  %-9s %15s %12s %15s %15s\n'
printf "$fmt" server "keep-alive CPU%" "µs/request" "new-conns CPU%" "µs/connection"
for s in real mutate ceiling; do
  printf "$fmt" "$s" "${cpu_ka[$s]}" "${us_ka[$s]}" "${cpu_new[$s]}" "${us_new[$s]}"
done
printf "$fmt" real/ceil "" "$(ratio "${us_ka[real]}" "${us_ka[ceiling]}")" "" \
  "$(ratio "${us_new[real]}" "${us_new[ceiling]}")"
echo "  CPU% is the server's share of one core (its one thread) during that load."
for s in real mutate ceiling; do
  for phase in ka new; do
    declare -n cpu="cpu_$phase"
    if [ "${cpu[$s]}" -lt 85 ]; then
      echo "  NOTE: the $s server was busy ${cpu[$s]}% under the $([ $phase = ka ] && echo keep-alive || echo new-connection) load: wrk, sharing"
      echo "        the box, was the limit there, so that rate is a lower bound; the µs figure is the steadier one."
    fi
    unset -n cpu
  done
done
echo
if [ -n "$bench_summary" ]; then
  echo "  ns per review (handle_http, one core, no TLS/HTTP):"
  echo "$bench_summary"
fi
# ---- the targets of the performance issue, in one table ----
ns_of() {  # ns_of NAME FIELD: a figure of one review_bench run
  [ -f "$tmp/review_bench.json" ] || { echo n/a; return; }
  python3 - "$tmp/review_bench.json" "$1" "$2" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["benchmarks"]:
    if r["name"] == sys.argv[2] and r.get("run_type", "iteration") == "iteration":
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[r.get("time_unit", "ns")]
        print("%.0f" % (r["real_time"] * scale if sys.argv[3] == "ns" else r.get(sys.argv[3], 0)))
        break
else:
    print("n/a")
PY
}
met() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN {
  if (v == "n/a" || v == "") { print "n/a"; exit }
  ok = (op == ">=") ? (v + 0 >= t + 0) : (v + 0 < t + 0); print ok ? "yes" : "NO" }'; }
fmt='  %-44s %12s %12s %7s %12s %5s\n'
echo
echo "== targets (one run; ratios to the ceiling server from the same library)"
printf "$fmt" figure ours ceiling ratio target met
r_val="$(ratio "${rps[real]}" "${rps[ceiling]}")"
r_mut="$(ratio "${rps[mutate]}" "${rps[ceiling]}")"
printf "$fmt" "validating req/s, keep-alive (wrk -c$CONNECTIONS)" "$(printf '%.0f' "${rps[real]}")" \
  "$(printf '%.0f' "${rps[ceiling]}")" "$r_val" ">= 0.80x" "$(met "$r_val" 0.8 '>=')"
printf "$fmt" "mutating req/s, keep-alive" "$(printf '%.0f' "${rps[mutate]}")" \
  "$(printf '%.0f' "${rps[ceiling]}")" "$r_mut" ">= 0.70x" "$(met "$r_mut" 0.7 '>=')"
printf "$fmt" "p99 at $OPEN_RATE req/s, $OPEN_CONNECTIONS conns (µs)" "${open_p99[real]:-n/a}" \
  "${open_p99[ceiling]:-n/a}" "" "< 1000" "$(met "${open_p99[real]:-n/a}" 1000 '<')"
printf "$fmt" "p99.9 at $OPEN_RATE req/s (µs)" "${open_p999[real]:-n/a}" "${open_p999[ceiling]:-n/a}" "" \
  "< 5000" "$(met "${open_p999[real]:-n/a}" 5000 '<')"
rss_mib="$(mib "${rss_kib[real]}")"
printf "$fmt" "peak RSS under load (MiB)" "$rss_mib" "$(mib "${rss_kib[ceiling]}")" "" "< 20" \
  "$(met "$rss_mib" 20 '<')"
printf "$fmt" "new TLS connections/s (full handshake)" "$(printf '%.0f' "${tls_rps[real]}")" \
  "$(printf '%.0f' "${tls_rps[ceiling]}")" "$(ratio "${tls_rps[real]}" "${tls_rps[ceiling]}")" \
  ">= 3000" "$(met "${tls_rps[real]}" 3000 '>=')"
v_ns="$(ns_of BM_Review/pp_allowed ns)"
m_ns="$(ns_of BM_Review/pp_mutate ns)"
printf "$fmt" "validating review in-process (ns)" "$v_ns" "" "" "< 10000" "$(met "$v_ns" 10000 '<')"
printf "$fmt" "mutating review in-process (ns)" "$m_ns" "" "" "< 10000" "$(met "$m_ns" 10000 '<')"
printf "$fmt" "heap allocations per validating review" "$(ns_of BM_Review/pp_allowed allocs)" "" "" "0" \
  "$(met "$(ns_of BM_Review/pp_allowed allocs)" 1 '<')"
printf "$fmt" "heap allocations per mutating review" "$(ns_of BM_Review/pp_mutate allocs)" "" "" "few" ""
echo "  (2 cores: wrk and the server share them; the server runs --threads $SERVER_THREADS, so"
echo "   rates are lower bounds when the server was not at 100% — see the CPU table above)"
echo "  (run took $((SECONDS - started)) s)"
