#!/usr/bin/env python3
"""Fixtures against upstream's own webhook: the same review POSTed to both servers.

For every path of PATHS, each fixture of test/fixtures/<path>/ goes to upstream's karmada-webhook
binary (../shared/upstream, `kube.upstream_webhook`) and to ours, over HTTPS; the answers must
agree on allowed, status.code, status.reason and status.message byte for byte, and echo the
request's apiVersion and uid, except where DIFFERENCES lists a fixture, the field that differs and
why (docs/compatibility.md). A listed difference that no longer differs fails too, so the list
stays true. Skips (exit 77) without upstream's binary.

    test_upstream_fixtures.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import http.client
import json
import os
import ssl
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

PATHS = ["/validate-resourcedeletionprotection", "/validate-multiclusterservice",
         "/mutate-multiclusterservice", "/validate-multiclusteringress",
         "/validate-resourceinterpreterwebhookconfiguration", "/mutate-federatedhpa",
         "/validate-federatedhpa", "/validate-cronfederatedhpa",
         "/validate-resourceinterpretercustomization"]
FIELDS = ("allowed", "code", "reason", "message")

NO_CONTENT = ("message", "ours names what is missing: `there is no content to decode: "
              "request.oldObject is empty`")
STRICT_SCHEMA = (("allowed", "code", "message", "reason"), "MCS-S1 (strict): the CRD's schema in the webhook too; upstream admits "
                 "what its Go type decodes (the API server's schema refuses it first)")
OURS_STRICT = (("allowed", "code", "message", "reason"), "D-H1 / D-H2 (strict, ours): a negative "
               "tolerance, a metric selector that is no label selector; upstream validates neither")
CFH_STRICT = (("allowed", "code", "message", "reason"), "CFH-S1 (strict): the CRD's schema in the webhook too; "
              "upstream admits what its Go type decodes (the API server's schema refuses it first)")
CFH_DC1 = (("allowed", "code", "message", "reason"), "D-C1: every item of a field is checked; upstream "
           "stops at the item that matches the current time (here one always does before the bad one)")
CFH_DC2 = (("allowed", "code", "message", "reason"), "D-C2 (strict): a schedule gronx accepts and the "
           "controller's robfig parser cannot run is denied with the reason; upstream admits it")
CFH_TZ = ("message", "CFH-6: the built-in tzdata names, the same on every host: `unknown time zone "
          "Europe`; upstream answers the host's file-system error (`is a directory`)")
CUT_DETAIL = ("message", "a detail quoting a tenant's text past 256 bytes is cut as an echoed value "
              "(docs/compatibility.md, \"Bounded answers\"); upstream quotes it whole (and here, for a "
              "time zone, answers the host's `file name too long`)")
DECODE = (("code", "message", "reason"), "MCS-S1 / MCI-S1 / RIWC-S1 / CFH-S1 / FH-S1 / RIC-S1 (strict) name the field of the wrong type "
          "(403); upstream cannot decode the object (400, Go's decoding error)")
LUA_MESSAGE = ("message", "RIC-2: ours names the script's field (`spec.customizations.<x>.luaScript: "
               "Invalid value: `) before upstream's `InterpreterOperation(<op>) Lua script error: `, "
               "then Lua 5.2's message where upstream has gopher-lua's (docs/compatibility.md, "
               "\"RIC-2: the Lua parser\")")
# (path, fixture file name) -> (the field that differs, or a tuple of them, why)
DIFFERENCES = {
    ("/validate-resourcedeletionprotection", "RDP-1k-delete-without-oldobject-400.json"):
        NO_CONTENT,
    ("/validate-resourcedeletionprotection", "RDP-1l-delete-oldobject-null-400.json"): NO_CONTENT,
    ("/validate-multiclusterservice", "MCS-S1a-types-absent.json"): STRICT_SCHEMA,
    ("/validate-multiclusterservice", "MCS-S1b-port-of-wrong-type.json"): DECODE,
    ("/validate-multiclusteringress", "MCI-S1a-port-number-of-wrong-type.json"): DECODE,
    ("/validate-resourceinterpreterwebhookconfiguration", "RIWC-S1a-port-of-wrong-type.json"): DECODE,
    ("/validate-resourceinterpreterwebhookconfiguration", "RIWC-S1b-webhooks-absent.json"):
        STRICT_SCHEMA,
    ("/validate-federatedhpa", "FH-S1a-max-replicas-absent.json"): (
        "message", "FH-S1 (strict) adds the CRD's Required to upstream's FH-3 (Go's 0)"),
    ("/validate-federatedhpa", "FH-S1b-quantity-not-parsing.json"): DECODE,
    ("/validate-federatedhpa", "D-H1a-negative-tolerance.json"): OURS_STRICT,
    ("/validate-federatedhpa", "D-H2a-selector-invalid.json"): OURS_STRICT,
    ("/validate-cronfederatedhpa", "CFH-6c-long-name-denied.json"): CUT_DETAIL,
    ("/validate-cronfederatedhpa", "CFH-11c-long-kind-denied.json"): CUT_DETAIL,
    ("/validate-resourceinterpreterwebhookconfiguration", "RIWC-9b-long-url-denied.json"): CUT_DETAIL,
    ("/validate-cronfederatedhpa", "D-C1a-every-item-checked.json"): CFH_DC1,
    ("/validate-cronfederatedhpa", "D-C2a-controller-cannot-run.json"): CFH_DC2,
    ("/validate-cronfederatedhpa", "D-C2c-update-changed-denied.json"): CFH_DC2,
    ("/validate-cronfederatedhpa", "CFH-6b-directory-name-host-independent.json"): CFH_TZ,
    ("/validate-cronfederatedhpa", "CFH-S1a-rules-absent.json"): CFH_STRICT,
    ("/validate-cronfederatedhpa", "CFH-S1b-replicas-of-wrong-type.json"): DECODE,
    ("/validate-cronfederatedhpa", "CFH-S1c-name-length-and-limits.json"): CFH_STRICT,
    ("/validate-resourceinterpretercustomization", "RIC-2b-invalid-token.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2c-first-in-upstream-order.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2d-break-outside-loop.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2e-goto-without-label.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2f-vararg-outside.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2g-too-many-locals.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2h-unterminated-string.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2i-lua53-floor-division.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2j-lua54-const.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-2k-lua52-only-syntax.json"): LUA_MESSAGE,
    ("/validate-resourceinterpretercustomization", "RIC-S1a-target-absent.json"): STRICT_SCHEMA,
    ("/validate-resourceinterpretercustomization", "RIC-S1b-script-of-wrong-type.json"): DECODE,
}


def post(port: int, ca: str, path: str, body: bytes) -> dict:
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10,
                                       context=ssl.create_default_context(cafile=ca))
    try:
        conn.request("POST", path + "?timeout=3s", body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        text = resp.read()
        check(resp.status == 200, "%s on port %d: HTTP %d %r", path, port, resp.status, text[:200])
        return json.loads(text)
    finally:
        conn.close()


def start_upstream(binary: str, certs: str, log: str):
    """(process, port) of upstream's karmada-webhook, once /readyz/ answers."""
    for _ in range(3):
        port = harness.free_port()
        proc = kube.spawn([binary, "--bind-address", "127.0.0.1", "--secure-port", str(port),
                           "--cert-dir", certs], log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=(
                    ssl.create_default_context(cafile=os.path.join(certs, "ca.crt"))))
                conn.request("GET", "/readyz/")
                if conn.getresponse().status == 200:
                    return proc, port
            except OSError:
                time.sleep(0.1)
        kube.stop_process(proc)
    raise AssertionError("upstream's karmada-webhook did not start; log:\n" + kube.tail(log))


def test_same_answers(env):
    problems, compared = [], 0
    for path in PATHS:
        folder = os.path.join(env.source, "test", "fixtures", path.lstrip("/"))
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        check(names, "no fixtures in %s", folder)
        for name in names:
            fixture = fixture_check.load_fixture(os.path.join(folder, name))
            body = fixture_check.request_body(fixture)
            answers = [post(port, env.ca, path, body) for port in (env.upstream_port, env.ours)]
            upstream, ours = [{"allowed": a["response"]["allowed"],
                               **{k: a["response"].get("status", {}).get(k) for k in FIELDS[1:]}}
                              for a in answers]
            for a in answers:
                if (a.get("apiVersion"), a["response"].get("uid")) != (
                        fixture["review"]["apiVersion"], fixture["review"]["request"]["uid"]):
                    problems.append("%s: apiVersion/uid not echoed: %s" % (name, a))
            differ = sorted(k for k in FIELDS if upstream[k] != ours[k])
            listed = DIFFERENCES.get((path, name))
            if listed is None and differ:
                problems.append("%s: %s differ: upstream %s, ours %s" % (
                    name, differ, upstream, ours))
            elif listed is not None and differ != sorted(
                    listed[0] if isinstance(listed[0], tuple) else (listed[0],)):
                problems.append("%s: listed as differing in %s only (%s), differs in %s" % (
                    name, listed[0], listed[1], differ))
            compared += 1
            print("  %-45s %-5s %s %s" % (name, ours["allowed"], ours["code"],
                                         "(%s differs: listed)" % ", ".join(
                                             listed[0] if isinstance(listed[0], tuple)
                                             else (listed[0],)) if listed else "same"),
                  flush=True)
    check(not problems, "\n  ".join(problems))
    check(compared, "nothing compared")


def run_beside_upstream(args, name: str, tests: list) -> int:
    """Runs `tests` with upstream's karmada-webhook and ours up on one certificate (env.source,
    env.ca, env.upstream_port, env.ours), or skips without upstream's binary."""
    upstream, why = kube.upstream_webhook(args.source, os.path.dirname(args.binary))
    if upstream is None:
        print("SKIP upstream's webhook: %s" % why, flush=True)
        return kube.SKIP
    certs = harness.make_certs(args.source)
    proc, port = start_upstream(upstream, certs, os.path.join(harness.temp_dir(name),
                                                              "karmada-webhook.log"))
    try:
        with harness.Server(args.binary, certs) as ours:
            env = type("Env", (), {"source": args.source, "ca": os.path.join(certs, "ca.crt"),
                                   "upstream_port": port, "ours": ours.port})
            return harness.run_tests(tests, env)
    finally:
        kube.stop_process(proc)


def main(args):
    return run_beside_upstream(args, "upstream", [test_same_answers])


if __name__ == "__main__":
    harness.main(main)
