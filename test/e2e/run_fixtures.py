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
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402

TIMEOUT_SECONDS = 30


def collect(root):
    """(path, webhook, fixture or None, load problem or None) for every *.json under root."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            if not name.endswith(".json"):
                continue
            path = os.path.join(dirpath, name)
            if rel == ".":
                out.append((path, None, None, "fixture outside a <webhook>/ directory"))
                continue
            webhook = "/" + rel.replace(os.sep, "/")
            try:
                out.append((path, webhook, fixture_check.load_fixture(path), None))
            except ValueError as e:
                out.append((path, webhook, None, str(e)))
    return out


def run_one(binary, webhook, fixture):
    """Problems for one fixture ([] = pass), plus the raw answer for -v."""
    problems = fixture_check.fixture_problems(fixture)
    if problems:
        return problems, b""
    body = fixture_check.request_body(fixture)
    try:
        proc = subprocess.run([binary, "review", "--path", webhook, "-"], input=body,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return ["binary did not answer within %d s" % TIMEOUT_SECONDS], b""
    except OSError as e:
        return ["cannot run %s: %s" % (binary, e)], b""
    want_status = fixture["expect"].get("http_status", 200)
    extra = []
    if proc.returncode == 0:
        status = 200
    elif proc.returncode == 1:
        # Offline only "not 200" is known: an expected non-200 status counts as a match.
        status = want_status
        if want_status == 200:
            extra.append("exit status 1: the HTTP status would not be 200")
    else:
        stderr = proc.stderr.decode("utf-8", "replace").strip()
        return ["binary exited with status %d%s" % (proc.returncode,
                                                    (": " + stderr[-500:]) if stderr else "")], proc.stdout
    problems = extra + fixture_check.check_answer(fixture, status, proc.stdout)
    if problems and proc.stderr:
        problems.append("stderr: " + proc.stderr.decode("utf-8", "replace").strip()[-500:])
    return problems, proc.stdout


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

    passed = failed = 0
    for path, webhook, fixture, load_problem in entries:
        rel = os.path.relpath(path, args.fixtures)
        if load_problem is not None:
            problems, answer = [load_problem], b""
        else:
            problems, answer = run_one(args.binary, webhook, fixture)
        if problems:
            failed += 1
            print("FAIL %s: %s" % (rel, "; ".join(problems)))
            if args.verbose and answer:
                print("     answer: %s" % answer.decode("utf-8", "replace").strip())
        else:
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
