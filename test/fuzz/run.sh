#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS (default 60) on corpora seeded from the fixtures and the
# 64 KiB hostile bodies (test/e2e/hostile_bodies.py), after replaying every input that ever
# crashed (test/fuzz/regressions/<target>/). FUZZ_JOBS targets run at once (default: one a core).
#
#   [FUZZ_JOBS=N] test/fuzz/run.sh BUILD_DIR [SECONDS]
#
# A crash leaves its input in the printed artifact path: copy it to
# test/fuzz/regressions/<target>/ with the fix, so it is replayed on every run from then on.
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR [SECONDS]}"
seconds="${2:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
max_len=65536  # libFuzzer -max_len: the largest input it tries (and the size of the hostile seeds)

# Seeds: every fixture's request body (review, and json for the differential JSON reader), every
# object a fixture carries (patch), every policy file of the check fixtures and the examples
# (check_source), a few texts at the edges of JSON (json), every luaScript (lua), watch streams,
# LIST pages and Status bodies built of the RIC fixtures' objects (watch_events), and the heads of
# the usual clients' requests (request_head).
python3 - "$root" "$work" <<'PY'
import json, os, sys
root, work = sys.argv[1], sys.argv[2]
for d in ("fuzz_review", "fuzz_patch", "fuzz_check_source", "fuzz_json", "fuzz_lua",
          "fuzz_watch_events", "fuzz_request_head"):
    os.makedirs(os.path.join(work, d))
edges = ['[0,-0,9223372036854775807,-9223372036854775808,18446744073709551615,1.5e-400,1e308]',
         '["\\"\\\\\\/\\b\\f\\n\\r\\t","\\u00e9\\ud83d\\ude00","\u00e9\u20ac"]',
         '{"a":{"b":[true,false,null]},"c":"' + 'x' * 40 + '"}', ' \t\r\n[ ] ', '"\\udc00"',
         '{"a":1,"\\u0061":2}', '[' * 130 + ']' * 130]
for i, e in enumerate(edges):
    open(os.path.join(work, "fuzz_json", "edge%02d" % i), "w", encoding="utf-8").write(e)
rics = []  # the RIC fixtures' objects, for the watch streams below
n = 0
for dirpath, dirnames, files in os.walk(os.path.join(root, "test", "fixtures")):
    for name in sorted(files):
        path = os.path.join(dirpath, name)
        n += 1
        if os.sep + "check" + os.sep in path + os.sep and "fixtures" + os.sep + "check" in path:
            with open(path, "rb") as f:
                open(os.path.join(work, "fuzz_check_source", "%04d" % n), "wb").write(f.read())
            continue
        if not name.endswith(".json"):
            continue
        fixture = json.load(open(path))
        review = fixture.get("review")
        body = review if isinstance(review, str) else json.dumps(review)
        open(os.path.join(work, "fuzz_review", "%04d" % n), "w").write(body)
        open(os.path.join(work, "fuzz_json", "%04d" % n), "w").write(body)
        obj = review.get("request", {}).get("object") if isinstance(review, dict) else None
        if isinstance(obj, dict) and isinstance(obj.get("spec"), dict):  # every Lua script
            for c, script in sorted((obj["spec"].get("customizations") or {}).items()):
                if isinstance(script, dict) and isinstance(script.get("luaScript"), str):
                    open(os.path.join(work, "fuzz_lua", "%04d-%s" % (n, c)), "w").write(
                        script["luaScript"])
        if isinstance(obj, dict):
            open(os.path.join(work, "fuzz_patch", "%04d" % n), "w").write(json.dumps(obj))
            if obj.get("kind") == "ResourceInterpreterCustomization":
                rics.append(obj)
        if isinstance(review, dict):  # the same objects as YAML-ish input for the loader
            open(os.path.join(work, "fuzz_check_source", "j%04d" % n), "w").write(json.dumps(obj))
# fuzz_watch_events: three control bytes (split point, piece size, event limit: 0xff the default)
# before a watch stream as the API server writes it, a LIST page, or a Status.
status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
          "message": "too old resource version: 1 (5)", "reason": "Expired", "code": 410}
bookmark = {"kind": "ResourceInterpreterCustomization",
            "apiVersion": "config.karmada.io/v1alpha1",
            "metadata": {"resourceVersion": "12345",
                         "annotations": {"k8s.io/initial-events-end": "true"}}}
def watch_seed(name, body, control=b"\x40\x07\xff"):
    open(os.path.join(work, "fuzz_watch_events", name), "wb").write(control + body.encode())
for i, obj in enumerate(rics):
    events = [{"type": t, "object": obj} for t in ("ADDED", "MODIFIED", "DELETED")]
    events += [{"type": "BOOKMARK", "object": bookmark}, {"type": "ERROR", "object": status}]
    watch_seed("stream%03d" % i, "".join(json.dumps(e) + "\n" for e in events),
               bytes([i % 256, 1 + i % 5, 0xff if i % 2 else 0x7f]))
watch_seed("list", json.dumps({"apiVersion": "config.karmada.io/v1alpha1", "items": rics[:4],
                               "kind": "ResourceInterpreterCustomizationList",
                               "metadata": {"continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ",
                                            "resourceVersion": "4530"}}))
watch_seed("status", json.dumps(status) + "\n")
watch_seed("not-found", "404 page not found\n")
# fuzz_request_head: a limits byte, then a head as kube-apiserver, wrk, curl and others send it.
heads = [
    "POST /validate-propagationpolicy?timeout=10s HTTP/1.1\r\nHost: karmada-webhook:443\r\n"
    "User-Agent: kube-apiserver-admission\r\nContent-Length: 2387\r\nAccept: application/json, */*"
    "\r\nContent-Type: application/json\r\nAccept-Encoding: gzip\r\n\r\n{\"kind\":1}",
    "POST /mutate-work HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    "Content-Length: 12\r\n\r\n",
    "GET /readyz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "HEAD /healthz HTTP/1.1\r\nConnection: close\r\nX-Tab:\ta b\t\r\n\r\n",
    "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n",
]
for i, h in enumerate(heads):
    open(os.path.join(work, "fuzz_request_head", "head%02d" % i), "wb").write(
        bytes([0xff if i % 2 else 0x20]) + h.encode())
PY

# The hostile bodies of max_len bytes, per webhook path the most expensive shapes (many elements,
# duplicates, invalid values, long strings, many keys, deep nesting): seeds of fuzz_review (every
# path's handler) and fuzz_json (the reader). Each is at most max_len bytes, so none is cut.
python3 "$root/test/e2e/hostile_bodies.py" --out "$work/hostile" --sizes "$max_len"
hostile=0
for f in "$work/hostile"/*/*.json; do
  size="$(wc -c <"$f")"
  if [ "$size" -gt "$max_len" ]; then
    echo "$0: $f is $size bytes, above -max_len=$max_len: libFuzzer would cut it" >&2
    exit 1
  fi
  name="hostile-$(basename "$(dirname "$f")")-$(basename "$f" .json)"
  cp "$f" "$work/fuzz_review/$name"
  cp "$f" "$work/fuzz_json/$name"
  hostile=$((hostile + 1))
done
echo "== seeds: $hostile hostile bodies of at most $max_len bytes in fuzz_review and fuzz_json"

targets=(fuzz_review fuzz_patch fuzz_check_source fuzz_json fuzz_lua fuzz_watch_events
         fuzz_request_head)
status=0
for target in "${targets[@]}"; do
  bin="$build/test/fuzz/$target"
  [ -x "$bin" ] || { echo "$0: $bin is not built (make fuzz builds it)" >&2; exit 1; }
  regressions=("$here/regressions/$target"/*)
  if [ -e "${regressions[0]}" ]; then
    echo "== $target: replaying ${#regressions[@]} past crash input(s)"
    "$bin" "${regressions[@]}" >"$work/$target.replay.log" 2>&1 || {
      echo "FAIL $target: a past crash input fails again:" >&2
      tail -30 "$work/$target.replay.log" >&2
      status=1
    }
  fi
done

# fuzz_one TARGET: SECONDS of libFuzzer on TARGET's seeds; its exit status in $work/TARGET.status.
fuzz_one() {
  local target="$1" rc=0
  mkdir -p "$work/artifacts/$target"
  "$build/test/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$work/artifacts/$target/" \
    "$work/$target" >"$work/$target.log" 2>&1 || rc=$?
  echo "$rc" >"$work/$target.status"
}

# FUZZ_JOBS targets at once (default: one a core), each for SECONDS; then each one's result, in
# order.
jobs="${FUZZ_JOBS:-$(nproc)}"
echo "== ${#targets[@]} targets, ${seconds}s each, $jobs at once"
declare -A seeds  # each target's seeds before it runs (libFuzzer adds what it finds to the folder)
for target in "${targets[@]}"; do seeds[$target]="$(ls "$work/$target" | wc -l)"; done
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait || true

for target in "${targets[@]}"; do
  echo "== $target: ${seconds}s on ${seeds[$target]} seeds"
  if [ "$(cat "$work/$target.status" 2>/dev/null || echo missing)" = 0 ]; then
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$work/$target.log" | sed 's/^/   /'
    echo "   no crash, leak, hang or sanitizer report"
  else
    echo "FAIL $target:" >&2
    tail -40 "$work/$target.log" >&2
    for a in "$work/artifacts/$target"/*; do
      [ -e "$a" ] || continue
      keep="$root/test/fuzz/regressions/$target/$(basename "$a")"
      mkdir -p "$(dirname "$keep")"
      cp "$a" "$keep"
      echo "   crash input saved as $keep: fix the bug, keep the file" >&2
    done
    status=1
  fi
done
exit "$status"
