#!/usr/bin/env bash
# Soak: MINUTES (default 10) of mixed valid/invalid keep-alive load, one-minute slices, printing
# requests/s, p50/p99 latency, the server's RSS and errors per minute, then whether RSS grew.
# A benchmark, not a test.
#
#   test/bench/soak.sh BUILD_DIR [MINUTES]
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR [MINUTES]}"
minutes="${2:-${MINUTES:-10}}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="$build/karmada-policy-webhook"
[ -x "$binary" ] || { echo "$0: $binary is not built" >&2; exit 1; }
command -v wrk >/dev/null || { echo "$0: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
tmp="$(mktemp -d)"
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

"$root/certs/make-certs.sh" "$tmp/certs" >/dev/null
fixtures="$root/test/fixtures/validate-propagationpolicy"
python3 - "$fixtures" "$tmp" <<'PY'
import json, sys
for name, out in (("C01-base-allowed.json", "allowed.json"), ("C08-selector-namespace-mismatch.json", "denied.json"),
                  ("C56-error-order-four.json", "denied4.json")):
    review = json.load(open(sys.argv[1] + "/" + name))["review"]
    open(sys.argv[2] + "/" + out, "w").write(json.dumps(review))
PY
cat > "$tmp/mixed.lua" <<LUA
-- Two allowed reviews for every denied one (one of them with four errors).
local bodies = {}
local function load(p) local f = io.open(p, "rb"); local s = f:read("*a"); f:close(); return s end
function init(args)
  bodies = { load("$tmp/allowed.json"), load("$tmp/allowed.json"), load("$tmp/denied.json"),
             load("$tmp/allowed.json"), load("$tmp/allowed.json"), load("$tmp/denied4.json") }
end
local i = 0
function request()
  i = i % #bodies + 1
  return wrk.format("POST", "/validate-propagationpolicy?timeout=3s",
                    { ["Content-Type"] = "application/json" }, bodies[i])
end
function done(summary, latency, requests)
  io.write(string.format("SLICE rps=%.0f p50_us=%d p99_us=%d non2xx=%d errors=%d\\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50), latency:percentile(99),
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout))
end
LUA

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$binary" serve --bind-address 127.0.0.1 --secure-port "$port" --cert-dir "$tmp/certs" --threads 1 \
  --health-probe-bind-address 0 --metrics-bind-address 0 --shutdown-delay 0s 2>"$tmp/server.log" &
server_pid=$!
for _ in $(seq 100); do grep -q 'serving https://' "$tmp/server.log" && break; sleep 0.1; done
kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

echo "== soak: $minutes minute(s) of mixed allowed/denied reviews (wrk -t2 -c50, server --threads 1)"
printf '  %-6s %9s %9s %9s %10s %10s %7s\n' minute req/s p50 p99 "RSS MiB" "HWM MiB" errors
first_rss=
last_rss=
for m in $(seq 1 "$minutes"); do
  line="$(wrk -t2 -c50 -d60s -s "$tmp/mixed.lua" "https://127.0.0.1:$port/" | grep '^SLICE')"
  rss="$(kib "$server_pid" VmRSS)"
  hwm="$(kib "$server_pid" VmHWM)"
  get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  printf '  %-6s %9s %7.2fms %7.2fms %10.1f %10.1f %7s\n' "$m" "$(get rps)" \
    "$(awk -v u="$(get p50_us)" 'BEGIN{print u/1000}')" "$(awk -v u="$(get p99_us)" 'BEGIN{print u/1000}')" \
    "$(awk -v k="$rss" 'BEGIN{print k/1024}')" "$(awk -v k="$hwm" 'BEGIN{print k/1024}')" \
    "$(( $(get non2xx) + $(get errors) ))"
  [ "$m" -eq 2 ] || [ "$minutes" -eq 1 ] && first_rss="${first_rss:-$rss}"
  last_rss="$rss"
done
kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=
awk -v a="$first_rss" -v b="$last_rss" 'BEGIN {
  g = (b - a) / a * 100
  printf "  RSS from minute %s to the last: %.1f -> %.1f MiB (%+.1f%%): %s\n", (a == b ? "1" : "2"),
    a / 1024, b / 1024, g, (g > 10 ? "GREW more than 10%" : "no growth") }'
