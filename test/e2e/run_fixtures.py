#!/usr/bin/env python3
"""Runs the recorded AdmissionReview fixtures offline through `karmada-policy-webhook review`.

For each fixture under --fixtures: `<binary> review --path <webhook path> -` with the request body
on stdin. The binary prints exactly the HTTP body the server would send and exits 0 when the HTTP
status would be 200, 1 otherwise. The answer is judged by fixture_check.check_answer; one line is
printed per failing fixture, then `N passed, M failed`. Exit status 1 if any fixture failed.

    run_fixtures.py --binary build/karmada-policy-webhook --fixtures test/fixtures [--only C18]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402

TIMEOUT_SECONDS = 30


def collect(root):
    """(path, webhook, fixture or None, load problem or None) for every *.json under root."""
    out = []
    for path, webhook in fixture_check.fixture_files(root):
        if webhook is None:
            out.append((path, None, None, "fixture outside a <webhook>/ directory"))
            continue
        try:
            out.append((path, webhook, fixture_check.load_fixture(path), None))
        except ValueError as e:
            out.append((path, webhook, None, str(e)))
    return out


def offline_sender(binary, flags, want_status):
    """send(webhook, body) through `<binary> review`: exit 0 means HTTP 200. Offline only "not 200"
    is known, so a non-zero exit counts as the status the fixture expects (if it expects one)."""
    def send(webhook, body):
        try:
            proc = subprocess.run([binary, "review", "--path", webhook] + list(flags) + ["-"],
                                  input=body, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            raise RuntimeError("binary did not answer within %d s" % TIMEOUT_SECONDS)
        except OSError as e:
            raise RuntimeError("cannot run %s: %s" % (binary, e))
        if proc.returncode == 0:
            return 200, proc.stdout
        if proc.returncode == 1:
            return (want_status if want_status != 200 else 500), proc.stdout
        stderr = proc.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError("binary exited with status %d%s" % (
            proc.returncode, (": " + stderr[-500:]) if stderr else ""))
    return send


def run_one(binary, types, webhook, fixture):
    """Problems for one fixture ([] = pass); `types`: fixture_check.route_types(binary)."""
    expect = fixture.get("expect") if isinstance(fixture, dict) else None
    want_status = expect.get("http_status", 200) if isinstance(expect, dict) else 200
    flags = fixture.get("flags", []) if isinstance(fixture, dict) else []
    try:
        return fixture_check.run_fixture(webhook, fixture, offline_sender(binary, flags, want_status),
                                         types), b""
    except RuntimeError as e:
        return [str(e)], b""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True, help="path to karmada-policy-webhook")
    parser.add_argument("--fixtures", required=True, help="fixtures root (holds <webhook>/ dirs)")
    parser.add_argument("--only", default=None, help="run only fixtures whose path holds this substring")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the answer of failing fixtures")
    args = parser.parse_args(argv)

    entries = collect(args.fixtures)
    if args.only:
        entries = [e for e in entries if args.only in os.path.relpath(e[0], args.fixtures)]
    if not entries:
        print("no fixtures found under %s%s" % (args.fixtures, " matching %r" % args.only if args.only else ""))
        print("0 passed, 0 failed")
        return 1

    types = fixture_check.route_types(args.binary)

    def judge(entry):
        path, webhook, fixture, load_problem = entry
        if load_problem is not None:
            return [load_problem], b""
        return run_one(args.binary, types, webhook, fixture)

    # One process a fixture, as many at once as there are cores (most of a run under the
    # sanitizer is process start-up); the results are printed in the fixtures' order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(judge, entries))
    passed = failed = 0
    for (path, _, _, _), (problems, answer) in zip(entries, results):
        rel = os.path.relpath(path, args.fixtures)
        if problems:
            failed += 1
            print("FAIL %s: %s" % (rel, "; ".join(problems)))
            if args.verbose and answer:
                print("     answer: %s" % answer.decode("utf-8", "replace").strip())
        else:
            passed += 1
    # Every path the binary serves has fixtures (a new route without any fails here, not silently).
    if not args.only:
        served = {webhook for _, webhook, _, _ in entries}
        for route in sorted(types):
            if route not in served:
                failed += 1
                print("FAIL %s: the binary serves this path and test/fixtures/%s/ holds no fixture"
                      % (route, route.lstrip("/")))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
