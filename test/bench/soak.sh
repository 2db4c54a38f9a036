#!/usr/bin/env bash
# Soak: MINUTES (default 10) of mixed allowed/denied keep-alive load against one server process, in
# one-minute wrk slices, printing per minute: requests/s, p50/p99 latency, the server's VmRSS (under
# load, near the end of the slice) and VmHWM, and the error counts; at the end a verdict line saying
# whether RSS grew by more than 10% between minute 2 and the last minute. A benchmark, not a test:
# it exits non-zero only when it cannot measure (a tool missing, a server that does not start,
# answers wrongly before the load, dies during it or does not stop on SIGTERM).
#
#   test/bench/soak.sh BUILD_DIR [MINUTES]        # or MINUTES=N in the environment
#
# Environment: MINUTES (10), CONNECTIONS (50), WRK_THREADS (2), SLICE_SECONDS (60; shorter
# slices are for trying the script out only).
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR [MINUTES]}"
minutes="${2:-${MINUTES:-10}}"
connections="${CONNECTIONS:-50}"
wrk_threads="${WRK_THREADS:-2}"
slice="${SLICE_SECONDS:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="$build/karmada-policy-webhook"
die() { echo "$0: $*" >&2; exit 1; }
[ -x "$binary" ] || die "$binary is not built"
command -v wrk >/dev/null || die "wrk is not installed (apt-get install wrk)"
command -v python3 >/dev/null || die "python3 is not installed"
[[ "$minutes" =~ ^[1-9][0-9]*$ ]] || die "MINUTES must be a positive integer, not '$minutes'"
[[ "$slice" =~ ^[1-9][0-9]*$ && "$slice" -ge 5 ]] || die "SLICE_SECONDS must be an integer >= 5"

tmp="$(mktemp -d)"
server_pid=
wrk_pid=
cleanup() {
  [ -n "$wrk_pid" ] && kill "$wrk_pid" 2>/dev/null
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

"$root/certs/make-certs.sh" "$tmp/certs" >/dev/null

# Bodies: the recorded reviews of C01 (allowed) and C08 (denied: one field error) and C56 (denied:
# four field errors), as the API server would send them.
fixtures="$root/test/fixtures/validate-propagationpolicy"
python3 - "$fixtures" "$tmp" <<'PY'
import json, sys
for name, out in (("C01-base-allowed.json", "allowed.json"),
                  ("C08-selector-namespace-mismatch.json", "denied.json"),
                  ("C56-error-order-four.json", "denied4.json")):
    review = json.load(open(sys.argv[1] + "/" + name))["review"]
    open(sys.argv[2] + "/" + out, "w").write(json.dumps(review, separators=(",", ":")))
PY

# Two allowed reviews for every denied one; every request is formatted once, in init().
cat > "$tmp/mixed.lua" <<LUA
local requests = {}
local function load(p) local f = assert(io.open(p, "rb")); local s = f:read("*a"); f:close(); return s end
function init(args)
  local headers = { ["Content-Type"] = "application/json" }
  for _, name in ipairs({ "allowed", "allowed", "denied", "allowed", "allowed", "denied4" }) do
    requests[#requests + 1] = wrk.format("POST", "/validate-propagationpolicy?timeout=3s", headers,
                                         load("$tmp/" .. name .. ".json"))
  end
end
local i = 0
function request()
  i = i % #requests + 1
  return requests[i]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("SLICE requests=%d rps=%.0f p50_us=%d p99_us=%d non2xx=%d sockerr=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50),
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
LUA

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$binary" serve --bind-address 127.0.0.1 --secure-port "$port" --cert-dir "$tmp/certs" \
  --health-probe-bind-address 0 --metrics-bind-address 0 --shutdown-delay 0s --threads 1 \
  2>"$tmp/server.log" &
server_pid=$!
for _ in $(seq 100); do
  grep -q 'serving https://' "$tmp/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || die "the server exited before serving: $(cat "$tmp/server.log")"
  sleep 0.1
done
grep -q 'serving https://' "$tmp/server.log" || die "the server did not start within 10 s: $(cat "$tmp/server.log")"

alive() { kill -0 "$server_pid" 2>/dev/null || die "the server died (see its log): $(tail -5 "$tmp/server.log")"; }
kib() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$server_pid/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.2fms", u / 1000 }'; }

# Figures of wrong answers mean nothing: check the verdicts first, and warm up (50 reviews).
python3 - "$port" "$tmp" <<'PY' || die "the server answers wrongly; not measuring"
import http.client, json, ssl, sys
port, tmp = int(sys.argv[1]), sys.argv[2]
ctx = ssl.create_default_context(cafile=tmp + "/certs/ca.crt")
conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
want = {"allowed.json": (True, []), "denied.json": (False, ["spec.resourceSelectors[0].namespace"])}
for i in range(50):
    name = "allowed.json" if i % 2 else "denied.json"
    body = open(tmp + "/" + name, "rb").read()
    conn.request("POST", "/validate-propagationpolicy?timeout=3s", body, {"Content-Type": "application/json"})
    resp = conn.getresponse()
    answer = json.loads(resp.read())["response"]
    fields = [c["field"] for c in (answer.get("status") or {}).get("details", {}).get("causes", [])]
    if resp.status != 200 or (answer["allowed"], fields) != want[name]:
        sys.exit("%s: HTTP %d allowed %s fields %s, expected %s" % (name, resp.status, answer["allowed"], fields, want[name]))
PY
idle_rss="$(kib VmRSS)"

echo "== soak: $minutes slice(s) of ${slice}s, mixed reviews (2 allowed : 1 denied : 1 denied with 4 errors)"
echo "   wrk -t$wrk_threads -c$connections keep-alive; server --threads 1, pid $server_pid; idle RSS $(mib "$idle_rss") MiB after 50 reviews"
printf '  %-6s %9s %9s %9s %9s %9s %8s %8s\n' minute req/s p50 p99 "RSS MiB" "HWM MiB" non-2xx sockerr
rss_by_minute=()
total_errors=0
for m in $(seq 1 "$minutes"); do
  wrk -t"$wrk_threads" -c"$connections" -d"${slice}s" -s "$tmp/mixed.lua" "https://127.0.0.1:$port/" \
    >"$tmp/slice.txt" 2>&1 &
  wrk_pid=$!
  sleep $((slice - 3))  # RSS under load, near the end of the slice
  alive
  rss="$(kib VmRSS)"
  wait "$wrk_pid" || die "wrk failed: $(cat "$tmp/slice.txt")"
  wrk_pid=
  alive
  hwm="$(kib VmHWM)"
  line="$(grep '^SLICE' "$tmp/slice.txt")" || die "wrk printed no summary: $(cat "$tmp/slice.txt")"
  get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  printf '  %-6s %9s %9s %9s %9s %9s %8s %8s\n' "$m" "$(get rps)" "$(ms "$(get p50_us)")" \
    "$(ms "$(get p99_us)")" "$(mib "$rss")" "$(mib "$hwm")" "$(get non2xx)" "$(get sockerr)"
  rss_by_minute+=("$rss")
  total_errors=$((total_errors + $(get non2xx) + $(get sockerr)))
done

kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=
[ "$status" -eq 0 ] || die "the server exited with status $status after SIGTERM: $(tail -5 "$tmp/server.log")"

last="${rss_by_minute[$((minutes - 1))]}"
if [ "$minutes" -ge 3 ]; then
  from=2
else
  from=1
fi
first="${rss_by_minute[$((from - 1))]}"
awk -v a="$first" -v b="$last" -v from="$from" -v n="$minutes" -v idle="$idle_rss" -v err="$total_errors" 'BEGIN {
  g = (b - a) / a * 100
  note = (n >= 3) ? "" : sprintf(" (only %d minute%s: compared minute %d instead of 2)", n, n == 1 ? "" : "s", from)
  printf "  verdict: RSS minute %d -> minute %d: %.1f -> %.1f MiB (%+.1f%%; idle %.1f MiB): %s%s; %d errors in all\n",
    from, n, a / 1024, b / 1024, g, idle / 1024,
    (g > 10 ? "GREW by more than 10%" : "no growth beyond 10%"), note, err }'
