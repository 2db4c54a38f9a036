#!/usr/bin/env python3
"""Prints what the tests of one ctest label printed in the last run (ctest shows only failures').

    test/e2e/show_output.py BUILD_DIR --label apiserver

Reads BUILD_DIR/Testing/Temporary/LastTest.log, keeps the tests whose name the label's tests carry
(`ctest -N -L LABEL`), and prints each one's output under its name and status: so a CI log shows that
the real-API-server tests ran (or were skipped, and why) and the figures they measured.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys


def label_tests(build: str, label: str) -> list:
    proc = subprocess.run(["ctest", "--test-dir", build, "-N", "-L", label], capture_output=True,
                          text=True)
    return re.findall(r"^\s*Test\s+#\d+: (.+)$", proc.stdout, re.M)


def outputs(log_text: str) -> dict:
    """{test name: (output, 'Passed' | 'Failed' | ...)} from LastTest.log."""
    out = {}
    for m in re.finditer(r'^"(?P<name>[^"]+)" start time: .*?\nOutput:\n-+\n(?P<body>.*?)<end of output>\n'
                         r'Test time =.*?\nTest (?P<status>\w+)', log_text, re.S | re.M):
        out[m.group("name")] = (m.group("body"), m.group("status"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--label", required=True)
    args = parser.parse_args()
    log = os.path.join(args.build, "Testing", "Temporary", "LastTest.log")
    if not os.path.isfile(log):
        print("no %s" % log)
        return 0
    with open(log, encoding="utf-8", errors="replace") as f:
        ran = outputs(f.read())
    names = label_tests(args.build, args.label)
    print("\n=== what the tests labelled %s printed (%d tests) ===" % (args.label, len(names)))
    for name in names:
        if name not in ran:
            print("--- %s: not run" % name)
            continue
        body, status = ran[name]
        print("--- %s: %s" % (name, status))
        sys.stdout.write(body if body.endswith("\n") or not body else body + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
