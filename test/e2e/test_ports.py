#!/usr/bin/env python3
"""End to end: the three ports are one session and one writer with a handler each. The probe and
metrics ports keep the review port's bounds (a slow-loris is closed by its timer, an oversized
header gets the review port's 400, a body past their small limit a 413), keep-alive and
pipelining, answer HEAD without a body and non-GET with 405 and `Allow: GET`; the probes answer
byte for byte the same on the TLS port and on the probe port, ready and draining; a probe on the
TLS port whose body is large gives its review slot back.

    test_ports.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import PP_PATH, check  # noqa: E402

HEADER_TIMEOUT = 2.0
READ_TIMEOUT = 3.0
IDLE_TIMEOUT = 4.0
MAX_HEADER_BYTES = 4096
LARGE_REVIEW_BYTES = 8192
PLAIN_MAX_BODY_BYTES = 4096  # port.cpp: a GET's body is read and ignored up to this
FLAGS = ["--header-read-timeout", "%gs" % HEADER_TIMEOUT, "--read-timeout", "%gs" % READ_TIMEOUT,
         "--idle-timeout", "%gs" % IDLE_TIMEOUT, "--max-header-bytes", str(MAX_HEADER_BYTES),
         "--large-review-bytes", str(LARGE_REVIEW_BYTES), "--max-large-reviews", "1"]


class Env:
    def __init__(self, args, server, certs):
        self.args = args
        self.server = server
        self.certs = certs
        self.c01 = harness.load_fixture_body(args.source, PP_PATH, "C01-base-allowed.json")

    def plain(self, port, timeout=5.0):
        """A RawConn over plain TCP to a probe or metrics port."""
        return harness.RawConn(socket.create_connection(("127.0.0.1", port), timeout=timeout))

    def tls(self):
        return harness.raw_tls(self.server.port, self.server.ca)


def request(method, target, body=b"", headers=(), content_length=True):
    lines = ["%s %s HTTP/1.1" % (method, target), "Host: localhost"] + list(headers)
    if content_length:
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


def raw_response(conn, method="GET"):
    """One response's bytes exactly, head and body (a Content-Length body; none for HEAD)."""
    while b"\r\n\r\n" not in conn.buf:
        conn._fill()
    head, conn.buf = conn.buf.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = b"" if method == "HEAD" else conn._take(length)
    return head + b"\r\n\r\n" + body


def metric(env, name):
    return harness.metric_sum(harness.scrape_metrics(env.server.metrics_port), name)


# --- bounds ---------------------------------------------------------------------------------------

def test_slowloris_on_the_probe_port_is_closed_by_its_timer(env):
    """A header sent a byte at a time, and a connection that sends nothing, are closed when the
    header timeout runs out (the review port's, under the plain ports' 10 s cap)."""
    for what, trickle in (("silent", b""),
                          ("slow header", b"GET /healthz HTTP/1.1\r\nX-Slow: " + b"x" * 64)):
        sock = socket.create_connection(("127.0.0.1", env.server.probe_port), timeout=10)
        t0 = time.monotonic()
        how = None
        try:
            while how is None and time.monotonic() - t0 < HEADER_TIMEOUT + 3:
                if select.select([sock], [], [], 0.25)[0]:
                    try:
                        data = sock.recv(65536)
                        how = "eof" if not data else "data %r" % data[:100]
                    except ConnectionResetError:
                        how = "reset"
                elif trickle:
                    sock.sendall(trickle[:1])
                    trickle = trickle[1:]
        except (BrokenPipeError, ConnectionResetError):
            how = "reset"
        finally:
            sock.close()
        took = time.monotonic() - t0
        check(how in ("eof", "reset") and took < HEADER_TIMEOUT + 1.5,
              "%s: the probe port kept the connection %.1f s (header timeout %.0f s): %s", what,
              took, HEADER_TIMEOUT, how)
        print("     %s: %s after %.1f s" % (what, how, took))


def test_idle_keep_alive_on_the_metrics_port_is_closed(env):
    with env.plain(env.server.metrics_port, timeout=IDLE_TIMEOUT + 5) as conn:
        conn.sendall(request("GET", "/metrics"))
        check(conn.read_response(method="GET").status == 200, "GET /metrics")
        t0 = time.monotonic()
        how = conn.wait_closed(timeout=IDLE_TIMEOUT + 3)
        took = time.monotonic() - t0
    check(IDLE_TIMEOUT - 0.5 < took < IDLE_TIMEOUT + 1.5, "idle connection closed after %.1f s, "
          "expected the idle timeout %.0f s", took, IDLE_TIMEOUT)
    print("     idle keep-alive connection: %s after %.1f s" % (how, took))


def test_oversized_header_gets_the_review_ports_answer(env):
    big = ["X-Big: " + "x" * (2 * MAX_HEADER_BYTES)]
    with env.tls() as conn:
        conn.sendall(request("POST", PP_PATH, env.c01, headers=big + ["Content-Type: application/json"]))
        review = conn.read_response()
        conn.wait_closed()
    check(review.status == 400, "review port: HTTP %d, expected 400", review.status)
    for name, port, path in (("metrics", env.server.metrics_port, "/metrics"),
                             ("probe", env.server.probe_port, "/healthz")):
        with env.plain(port) as conn:
            conn.sendall(request("GET", path, headers=big))
            a = conn.read_response()
            how = conn.wait_closed()
        check((a.status, a.body, a.headers.get("Connection")) ==
              (review.status, review.body, review.headers.get("Connection")),
              "%s port: HTTP %d %r (Connection %r), the review port HTTP %d %r", name, a.status,
              a.body, a.headers.get("Connection"), review.status, review.body)
        print("     %s port: HTTP %d %r, %s" % (name, a.status, a.body, how))


def test_body_beyond_the_plain_limit_is_413(env):
    with env.plain(env.server.probe_port) as conn:
        conn.sendall(request("GET", "/healthz", b"x" * 100) + request("GET", "/readyz"))
        first, second = conn.read_response(), conn.read_response()
        check(first.status == 200 and second.status == 200, "a small body on a GET: HTTP %d, %d",
              first.status, second.status)
    with env.plain(env.server.probe_port) as conn:
        conn.sendall(request("GET", "/healthz", b"x" * (PLAIN_MAX_BODY_BYTES + 1)))
        a = conn.read_response()
        check(a.status == 413, "a body past %d bytes: HTTP %d", PLAIN_MAX_BODY_BYTES, a.status)
        conn.wait_closed()


# --- keep-alive, pipelining, methods --------------------------------------------------------------

def test_keep_alive_and_pipelining_on_the_probe_port(env):
    with env.plain(env.server.probe_port) as conn:
        for path in ("/healthz", "/readyz", "/healthz?verbose", "/nope"):
            conn.sendall(request("GET", path))
            a = conn.read_response(method="GET")
            want = (404, b"404 page not found\n") if path == "/nope" else (200, b"ok\n")
            check((a.status, a.body) == want, "GET %s: HTTP %d %r", path, a.status, a.body)
        conn.sendall(b"".join(request("GET", p) for p in ("/readyz", "/healthz", "/readyz")))
        for i in range(3):
            a = conn.read_response(method="GET")
            check((a.status, a.body) == (200, b"ok\n"), "pipelined %d: HTTP %d %r", i, a.status, a.body)
        conn.sendall(request("GET", "/healthz", headers=["Connection: close"]))
        a = conn.read_response(method="GET")
        check(a.status == 200 and a.headers.get("Connection") == "close",
              "Connection: close: HTTP %d, Connection %r", a.status, a.headers.get("Connection"))
        conn.wait_closed()


def test_head_metrics(env):
    """HEAD is answered as GET without its body; the next answer on the connection is whole."""
    with env.plain(env.server.metrics_port) as conn:
        conn.sendall(request("HEAD", "/metrics") + request("GET", "/metrics"))
        head = conn.read_response(method="HEAD")
        check(head.status == 200, "HEAD /metrics: HTTP %d", head.status)
        check(head.headers.get("Content-Type") == "text/plain; version=0.0.4; charset=utf-8",
              "HEAD /metrics: Content-Type %r", head.headers.get("Content-Type"))
        try:
            get = conn.read_response(method="GET")
        except Exception as e:  # noqa: BLE001
            raise AssertionError("the answer after a HEAD cannot be read (%s: %s): the HEAD answer "
                                 "carried a body" % (e.__class__.__name__, e))
        check(get.status == 200 and b"karmada_policy_webhook_open_connections" in get.body,
              "GET /metrics after HEAD: HTTP %d %r", get.status, get.body[:100])
    with env.plain(env.server.probe_port) as conn:
        conn.sendall(request("HEAD", "/readyz") + request("GET", "/readyz"))
        head, get = conn.read_response(method="HEAD"), conn.read_response()
        check(head.status == 200 and get.body == b"ok\n", "HEAD /readyz: HTTP %d, then %r",
              head.status, get.body)


def test_non_get_on_the_plain_ports_is_405_allow_get(env):
    for port, path in ((env.server.probe_port, "/healthz"), (env.server.metrics_port, "/metrics")):
        with env.plain(port) as conn:
            for method in ("POST", "PUT", "DELETE"):
                conn.sendall(request(method, path, b"{}"))
                a = conn.read_response()
                check(a.status == 405 and a.headers.get("Allow") == "GET",
                      "%s %s: HTTP %d, Allow %r", method, path, a.status, a.headers.get("Allow"))
            conn.sendall(request("GET", path))  # still the same connection
            check(conn.read_response().status == 200, "GET %s after the 405s", path)
    with env.tls() as conn:  # the review port keeps its own
        conn.sendall(request("PUT", PP_PATH))
        a = conn.read_response()
        check(a.status == 405 and a.headers.get("Allow") == "POST", "PUT on the review port: HTTP "
              "%d, Allow %r", a.status, a.headers.get("Allow"))


# --- the probes are one answer --------------------------------------------------------------------

def probe_bytes(env, path):
    with env.tls() as conn:
        conn.sendall(request("GET", path))
        tls = raw_response(conn)
    with env.plain(env.server.probe_port) as conn:
        conn.sendall(request("GET", path))
        plain = raw_response(conn)
    return tls, plain


def test_probes_answer_the_same_bytes_on_both_ports(env):
    for path in ("/healthz", "/readyz", "/readyz?verbose"):
        tls, plain = probe_bytes(env, path)
        check(tls == plain, "GET %s: the TLS port answered %r, the probe port %r", path, tls, plain)
        check(tls.startswith(b"HTTP/1.1 200 OK\r\n") and tls.endswith(b"\r\n\r\nok\n"),
              "GET %s: %r", path, tls)


def test_probes_answer_the_same_bytes_while_draining(env):
    """During the shutdown delay /readyz is 503 on both ports, byte for byte."""
    server = harness.Server(env.args.binary, env.certs, *FLAGS, shutdown_delay="3s").start()
    try:
        draining = Env(env.args, server, env.certs)
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        for path, status in (("/readyz", b"503 Service Unavailable"), ("/healthz", b"200 OK")):
            tls, plain = probe_bytes(draining, path)
            check(tls == plain, "draining, GET %s: the TLS port answered %r, the probe port %r",
                  path, tls, plain)
            check(tls.startswith(b"HTTP/1.1 " + status), "draining, GET %s: %r", path, tls)
        code = server.proc.wait(15)
        check(code == 0, "exit status %s", code)
    finally:
        if server.alive():
            server.proc.kill()
            server.proc.wait()


# --- a probe with a large body on the TLS port ----------------------------------------------------

def test_large_probe_body_gives_back_its_review_slot(env):
    """A GET /healthz whose body is over --large-review-bytes takes a review slot once its body
    has arrived (the path is not a review's, but the slot bounds the bodies judged): answering it gives
    the slot back, so the next large review on the connection is judged, not refused with 429
    (it was, with one slot: the probe's answer kept it)."""
    review = json.loads(env.c01)
    review["request"]["object"]["metadata"].setdefault("annotations", {})["pad"] = "x" * (2 * LARGE_REVIEW_BYTES)
    large = json.dumps(review).encode()
    with env.tls() as conn:
        conn.sendall(request("GET", "/healthz", b" " * (2 * LARGE_REVIEW_BYTES)))
        a = conn.read_response(method="GET")
        check((a.status, a.body) == (200, b"ok\n"), "GET /healthz with a large body: HTTP %d %r",
              a.status, a.body)
        conn.sendall(request("POST", PP_PATH, large, headers=["Content-Type: application/json"]))
        a = conn.read_response()
        check(a.status == 200 and a.json()["response"]["allowed"] is True,
              "a large review after the probe: HTTP %d %r", a.status, a.body[:200])
    check(metric(env, "karmada_policy_webhook_large_reviews_in_flight") == 0,
          "large reviews still in flight after both were answered")


def test_idle_plain_connection_does_not_hold_the_exit(env):
    """Probe and metrics connections join the connection list, so draining closes them when idle;
    they are not HTTPS connections, so draining does not wait for them either."""
    server = harness.Server(env.args.binary, env.certs, *FLAGS).start()
    conns = []
    try:
        for port, path in ((server.probe_port, "/healthz"), (server.metrics_port, "/metrics")):
            conns.append(harness.RawConn(socket.create_connection(("127.0.0.1", port), timeout=5)))
            conns[-1].sendall(request("GET", path))
            check(conns[-1].read_response().status == 200, "GET %s", path)
        took = server.stop()
        check(took < 2, "SIGTERM beside idle probe and metrics connections: exit after %.1f s", took)
        for conn in conns:
            conn.wait_closed(timeout=1)
    finally:
        for conn in conns:
            conn.close()
        if server.alive():
            server.proc.kill()
            server.proc.wait()


TESTS = [
    test_slowloris_on_the_probe_port_is_closed_by_its_timer,
    test_idle_keep_alive_on_the_metrics_port_is_closed,
    test_oversized_header_gets_the_review_ports_answer,
    test_body_beyond_the_plain_limit_is_413,
    test_keep_alive_and_pipelining_on_the_probe_port,
    test_head_metrics,
    test_non_get_on_the_plain_ports_is_405_allow_get,
    test_probes_answer_the_same_bytes_on_both_ports,
    test_probes_answer_the_same_bytes_while_draining,
    test_large_probe_body_gives_back_its_review_slot,
    test_idle_plain_connection_does_not_hold_the_exit,
]


def still_serves(env):
    check(env.server.alive(), "the server process exited (status %s); stderr:\n%s",
          env.server.proc.returncode, env.server.stderr()[-2000:])
    with harness.Client(env.server.port, env.server.ca) as client:
        a = client.post(PP_PATH, env.c01)
        check(a.status == 200 and a.json()["response"]["allowed"] is True, "C01: %s", a)


def run(args):
    certs = harness.make_certs(args.source)
    with harness.Server(args.binary, certs, *FLAGS) as server:
        return harness.run_tests(TESTS, Env(args, server, certs), after_each=still_serves)


if __name__ == "__main__":
    harness.main(run)
