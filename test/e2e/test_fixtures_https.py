#!/usr/bin/env python3
"""End to end: every recorded fixture (test/fixtures/<webhook>/*.json) over real HTTPS.

Fixtures are run by fixture_check.run_fixture, exactly as run_fixtures.py runs them offline, only
with a sender that POSTs over HTTPS instead of calling `review`: each request body
(fixture_check.request_body: the review serialised, or a raw string as given) goes to
/<webhook>?timeout=3s with Content-Type: application/json (fixtures carry no method or content
type of their own), and the real HTTP status is judged. For mutating webhooks run_fixture also
applies the patch, checks idempotency (the patched object sent again as an UPDATE) and follows
`expect.then` to the validating webhook.

A fixture's `flags` go to the server: one server per distinct set of flags, each used over ONE
keep-alive connection (a new one only after the server closed it). Finally every HTTPS answer is
compared byte for byte with what `karmada-policy-webhook review` prints offline for the same body
and flags (random UUIDs inside a JSON patch excepted).

    test_fixtures_https.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import http.client
import os
import re
import ssl
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
from harness import check  # noqa: E402

# Errors that mean "the server had closed the kept-alive connection": retry once on a new one.
RECONNECT_ERRORS = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                    ssl.SSLEOFError)

UUID_RE = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
PATCH_RE = re.compile(rb'"patch":"([A-Za-z0-9+/=]*)"')


class Env:
    def __init__(self, binary, source):
        self.binary = binary
        self.certs = harness.make_certs(source)
        self.root = os.path.join(source, "test", "fixtures")
        self.fixtures = fixture_check.load_fixtures(self.root)  # (path, webhook, fixture)
        self.types = fixture_check.route_types(binary)  # {webhook: validating, mutating, ...}
        # (flags, webhook, body, HTTP status, answer) of every request sent over HTTPS.
        self.exchanges = []

    def name(self, path):
        return os.path.relpath(path, self.root)

    def flag_sets(self):
        """{flags tuple: [(path, webhook, fixture)]}, the default (no flags) first."""
        groups = {}
        for entry in self.fixtures:
            flags = entry[2].get("flags", []) if isinstance(entry[2], dict) else []
            key = tuple(flags) if isinstance(flags, list) else ()
            groups.setdefault(key, []).append(entry)
        return dict(sorted(groups.items(), key=lambda kv: (len(kv[0]), kv[0])))


class HttpsSender:
    """send(webhook, body) -> (HTTP status, body) over one keep-alive connection."""

    def __init__(self, env, client, flags):
        self.env, self.client, self.flags = env, client, flags
        self.expected_closes = 0  # answers that said Connection: close
        self.content_type_problems = []

    def __call__(self, webhook, body):
        reused = self.client.sock is not None
        try:
            answer = self.client.post(webhook, body)
        except RECONNECT_ERRORS:
            if not reused:
                raise
            answer = self.client.post(webhook, body)  # Client.request closed it: this reconnects
        if (answer.headers.get("Connection") or "").lower() == "close":
            self.expected_closes += 1
        if answer.status == 200 and answer.headers.get("Content-Type") != "application/json":
            self.content_type_problems.append("%s: Content-Type %r" % (
                webhook, answer.headers.get("Content-Type")))
        self.env.exchanges.append((self.flags, webhook, body, answer.status, answer.body))
        return answer.status, answer.body


def test_fixtures_over_https(env):
    check(env.fixtures, "no fixtures under %s", env.root)
    failures = []
    for flags, entries in env.flag_sets().items():
        with harness.Server(env.binary, env.certs, *flags) as server, \
                harness.Client(server.port, server.ca) as client:
            sender = HttpsSender(env, client, flags)
            for path, webhook, fixture in entries:
                try:
                    problems = fixture_check.run_fixture(webhook, fixture, sender, env.types)
                except Exception as e:  # noqa: BLE001
                    problems = ["no answer over HTTPS: %s: %s" % (e.__class__.__name__, e)]
                problems += sender.content_type_problems
                sender.content_type_problems = []
                if problems:
                    failures.append("%s: %s" % (env.name(path), "; ".join(problems)))
            print("     %d fixtures%s: %d requests over %d TLS connection%s" % (
                len(entries), " with " + " ".join(flags) if flags else "",
                sum(1 for e in env.exchanges if e[0] == flags), client.connects,
                "" if client.connects == 1 else "s"), flush=True)
            extra = client.connects - 1 - sender.expected_closes
            if extra > 0:
                failures.append("flags %s: the server closed the keep-alive connection %d times "
                                "without saying so" % (list(flags), extra))
    check(not failures, "%d of %d fixtures failed:\n  %s", len(failures), len(env.fixtures),
          "\n  ".join(failures))


def comparable(body: bytes) -> bytes:
    """The answer with any JSON patch decoded and its random UUIDs replaced by <uuid>."""
    def decode(m):
        try:
            patch = base64.b64decode(m.group(1), validate=True)
        except ValueError:
            return m.group(0)
        return b'"patch(decoded)":' + UUID_RE.sub(b"<uuid>", patch)
    return PATCH_RE.sub(decode, body)


def test_offline_review_matches_https(env):
    """`review --path /<webhook> [flags] -` prints the very bytes the server sent over HTTPS."""
    check(env.exchanges, "no HTTPS answers to compare (the previous test failed early)")
    failures = []
    for flags, webhook, body, status, https_body in env.exchanges:
        proc = subprocess.run([env.binary, "review", "--path", webhook] + list(flags) + ["-"],
                              input=body, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=30)
        what = "%s%s (%s)" % (webhook, " " + " ".join(flags) if flags else "", body[:80])
        if comparable(proc.stdout) != comparable(https_body):
            failures.append("%s: offline %r != HTTPS %r" % (what, proc.stdout[:300],
                                                             https_body[:300]))
        elif proc.returncode != (0 if status == 200 else 1):
            failures.append("%s: exit status %d for HTTP %d" % (what, proc.returncode, status))
    print("     %d answers compared" % len(env.exchanges), flush=True)
    check(not failures, "%d answers differ:\n  %s", len(failures), "\n  ".join(failures[:20]))


def run(args):
    env = Env(args.binary, args.source)
    return harness.run_tests([test_fixtures_over_https, test_offline_review_matches_https], env)


if __name__ == "__main__":
    harness.main(run)
