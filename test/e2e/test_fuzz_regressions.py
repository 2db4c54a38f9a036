#!/usr/bin/env python3
"""Every input that ever crashed, hung or bloated a fuzz target (test/fuzz/regressions/), replayed
through the real binary: `review` on every path for AdmissionReview bodies and mutator objects,
`check` for policy files. Each must get an answer (exit 0, 1 or 2 as documented), fast.

    test_fuzz_regressions.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import check  # noqa: E402

LIMIT = 10.0  # seconds per run


class Env:
    def __init__(self, args):
        self.binary = args.binary
        self.root = os.path.join(args.source, "test", "fuzz", "regressions")
        self.kinds = harness.kind_table(args.binary)
        self.paths = [p for k in self.kinds for p in k.paths()]

    def inputs(self, target):
        d = os.path.join(self.root, target)
        return [os.path.join(d, n) for n in sorted(os.listdir(d))] if os.path.isdir(d) else []

    def run(self, args, data):
        t0 = time.monotonic()
        try:
            proc = subprocess.run([self.binary] + args, input=data, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=LIMIT)
        except subprocess.TimeoutExpired:
            raise AssertionError("%s did not finish within %.0f s" % (" ".join(args), LIMIT))
        return proc.returncode, proc.stdout, time.monotonic() - t0


def answered_on_every_path(env, target, what):
    """Each input of `target` as a request body on every path: an answer, never a crash."""
    files = env.inputs(target)
    for path in files:
        data = open(path, "rb").read()
        for webhook in env.paths:
            code, out, _ = env.run(["review", "--path", webhook, "-"], data)
            check(code in (0, 1), "%s on %s: exit %d", os.path.basename(path), webhook, code)
            check(out.startswith(b"{"), "%s on %s: no JSON answer: %r", os.path.basename(path), webhook, out[:200])
    print("   %d %s x %d paths answered" % (len(files), what, len(env.paths)))


def test_review_bodies(env):
    answered_on_every_path(env, "fuzz_review", "input(s)")


def test_json_texts(env):
    # Texts where our JSON reader and RapidJSON's once disagreed: as bodies, each still answered.
    answered_on_every_path(env, "fuzz_json", "text(s)")


def test_mutator_objects(env):
    files = env.inputs("fuzz_patch")
    for path in files:
        raw = open(path, "rb").read()
        try:
            obj = json.loads(raw)
        except ValueError:
            continue  # not JSON: the review target covers it
        for k in [k for k in env.kinds if k.mutate_path]:
            webhook = k.mutate_path
            review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                      "request": {"uid": "u", "kind": {"group": k.group, "version": k.version, "kind": k.kind},
                                  "namespace": "ns1", "operation": "CREATE", "object": obj}}
            code, out, _ = env.run(["review", "--path", webhook, "-"], json.dumps(review).encode())
            check(code == 0, "%s on %s: exit %d", os.path.basename(path), webhook, code)
            check(b'"allowed":true' in out, "%s on %s: a mutator denied: %r", os.path.basename(path), webhook, out[:300])
    print("   %d object(s) through every mutating path" % len(files))


def test_policy_files(env):
    files = env.inputs("fuzz_check_source")
    for path in files:
        code, out, took = env.run(["check", path], b"")
        check(code in (0, 1, 2), "%s: exit %d", os.path.basename(path), code)
        print("   %s: exit %d in %.2f s: %s" % (os.path.basename(path), code, took,
                                               out.decode("utf-8", "replace").splitlines()[0][:120]))


TESTS = [test_review_bodies, test_json_texts, test_mutator_objects, test_policy_files]


def run(args):
    return harness.run_tests(TESTS, Env(args))


if __name__ == "__main__":
    harness.main(run)
