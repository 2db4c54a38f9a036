#!/usr/bin/env bash
# Times `karmada-policy-webhook check` on 10 000 PropagationPolicies (one multi-document stream
# and one file per policy) and prints policies per second. Figures only; it never fails on speed.
#
#   test/bench/check_bench.sh BUILD_DIR [COUNT]
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR [COUNT]}"
count="${2:-10000}"
binary="$build/karmada-policy-webhook"
[ -x "$binary" ] || { echo "$0: $binary is not built" >&2; exit 1; }
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

python3 - "$here/../fixtures/check/policies/team-a/propagation.yaml" "$tmp" "$count" <<'PY'
import os, sys
doc = open(sys.argv[1]).read().split("---")[0]
out, n = sys.argv[2], int(sys.argv[3])
with open(os.path.join(out, "stream.yaml"), "w") as f:
    for i in range(n):
        f.write(doc.replace("name: nginx\n", "name: nginx-%d\n" % i, 1) + "---\n")
os.makedirs(os.path.join(out, "dir"))
for i in range(n):
    with open(os.path.join(out, "dir", "p%05d.yaml" % i), "w") as f:
        f.write(doc.replace("name: nginx\n", "name: nginx-%d\n" % i, 1))
PY

measure() {
  local label="$1"
  shift
  local start end
  start=$(date +%s.%N)
  "$binary" check --quiet "$@" >/dev/null
  end=$(date +%s.%N)
  awk -v l="$label" -v n="$count" -v s="$start" -v e="$end" \
    'BEGIN { t = e - s; printf "  %-34s %6.2f s  %8.0f policies/s\n", l, t, n / t }'
}
echo "== check: $count PropagationPolicies (CRD defaults + mutation + validation each)"
measure "one multi-document stream" "$tmp/stream.yaml"
measure "one file per policy (directory)" "$tmp/dir"
