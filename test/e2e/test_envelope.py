#!/usr/bin/env python3
"""End to end: the AdmissionReview envelope over real TLS, against one server process.

Good reviews (allowed, denied, v1beta1, 200 on one keep-alive connection) and bad input (wrong
content type, empty, malformed, too deep, too large, wrong method/path/kind, garbage bytes, clients
that vanish). After EVERY test a fresh connection posts the allowed review C01 and must get the
allowed answer: the server survived whatever the test did to it.

    test_envelope.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import copy
import http.client
import json
import os
import socket
import ssl
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
from harness import CPP_PATH, PP_PATH, check  # noqa: E402

MAX_REQUEST_BYTES = 7 * 1024 * 1024  # the server's default --max-request-bytes


class Env:
    """What every test gets: the server and the recorded reviews it needs."""

    def __init__(self, server, source):
        self.server = server
        self.source = source
        self.ca = server.ca
        self.port = server.port
        self.c01 = self.fixture(PP_PATH, "C01-base-allowed.json")
        self.c08 = self.fixture(PP_PATH, "C08-selector-namespace-mismatch.json")
        self.cpp01 = self.fixture(CPP_PATH, "CPP01-base-allowed.json")

    def fixture(self, webhook, name):
        return fixture_check.load_fixture(harness.fixture_path(self.source, webhook, name))

    def client(self, **kwargs):
        return harness.Client(self.port, self.ca, **kwargs)

    def raw(self, **kwargs):
        return harness.raw_tls(self.port, self.ca, **kwargs)


# --- helpers ---------------------------------------------------------------------------------------

def body_of(review) -> bytes:
    return json.dumps(review, separators=(",", ":")).encode("utf-8")


def allowed_answer(review: dict) -> dict:
    """The exact answer to an allowed review."""
    return {"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
            "response": {"uid": review["request"]["uid"], "allowed": True,
                         "status": {"metadata": {}, "code": 200}}}


def expect_allowed(answer, review):
    check(answer.status == 200, "HTTP %d, expected 200: %r", answer.status, answer.body[:300])
    check(answer.headers.get("Content-Type") == "application/json",
          "Content-Type %r, expected application/json", answer.headers.get("Content-Type"))
    got = answer.json()
    want = allowed_answer(review)
    check(got == want, "answer %s, expected exactly %s", json.dumps(got), json.dumps(want))


def expect_fixture(answer, fixture):
    problems = fixture_check.check_answer(fixture, answer.status, answer.body)
    check(not problems, "; ".join(problems) + " (answer: %r)" % answer.body[:400])


def expect_error(answer, code=400, contains=()):
    """An envelope error: HTTP 200, allowed false, status.code `code`, a message, no reason."""
    check(answer.status == 200, "HTTP %d, expected 200 (errors are AdmissionReview answers): %r",
          answer.status, answer.body[:300])
    check(answer.headers.get("Content-Type") == "application/json",
          "Content-Type %r, expected application/json", answer.headers.get("Content-Type"))
    response = answer.response()
    check(response.get("allowed") is False, "allowed %r, expected false", response.get("allowed"))
    status = response.get("status") or {}
    check(status.get("code") == code, "status.code %r, expected %d: %r", status.get("code"), code,
          answer.body[:300])
    message = status.get("message")
    check(isinstance(message, str) and message, "status.message is missing: %r", answer.body[:300])
    check(status.get("reason") != "Forbidden", "reason Forbidden on a code %d", code)
    check("details" not in status, "an envelope error carries no details: %r", answer.body[:300])
    for text in contains:
        check(text in message, "status.message %r does not contain %r", message, text)
    return response


def raw_request(method, target, body=b"", headers=(), content_length=None):
    """The bytes of one HTTP/1.1 request."""
    lines = ["%s %s HTTP/1.1" % (method, target), "Host: localhost"]
    lines += list(headers)
    lines.append("Content-Length: %d" % (len(body) if content_length is None else content_length))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


# --- after every test: the server still answers correctly ------------------------------------------

def server_still_serves(env):
    check(env.server.alive(), "the server process exited (status %s); stderr:\n%s",
          env.server.proc.returncode, env.server.stderr())
    with env.client() as client:
        expect_allowed(client.post(PP_PATH, fixture_check.request_body(env.c01)), env.c01["review"])


# --- good reviews ----------------------------------------------------------------------------------

def test_allowed_review(env):
    with env.client() as client:
        answer = client.post(PP_PATH, fixture_check.request_body(env.c01))
        expect_allowed(answer, env.c01["review"])
        expect_fixture(answer, env.c01)
        # The exact bytes, as upstream's controller-runtime writes them.
        want = ('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":'
                '{"uid":"%s","allowed":true,"status":{"metadata":{},"code":200}}}'
                % env.c01["review"]["request"]["uid"]).encode()
        check(answer.body == want, "body %r, expected %r", answer.body, want)


def test_allowed_cluster_review(env):
    with env.client() as client:
        expect_allowed(client.post(CPP_PATH, fixture_check.request_body(env.cpp01)),
                       env.cpp01["review"])


def test_denied_review(env):
    with env.client() as client:
        answer = client.post(PP_PATH, fixture_check.request_body(env.c08))
    expect_fixture(answer, env.c08)
    check(answer.status == 200, "HTTP %d, expected 200", answer.status)
    doc = answer.json()
    check(doc.get("apiVersion") == "admission.k8s.io/v1" and doc.get("kind") == "AdmissionReview",
          "envelope not echoed: %r", answer.body[:200])
    response = doc["response"]
    check(response.get("uid") == env.c08["review"]["request"]["uid"], "uid %r not echoed",
          response.get("uid"))
    check(response.get("allowed") is False, "allowed %r, expected false", response.get("allowed"))
    status = response["status"]
    check(status.get("code") == 403, "status.code %r, expected 403", status.get("code"))
    check(status.get("reason") == "Forbidden", "reason %r, expected Forbidden", status.get("reason"))
    causes = status.get("details", {}).get("causes")
    check(isinstance(causes, list) and len(causes) == 1, "causes %r, expected one", causes)
    cause = causes[0]
    check(set(cause) == {"type", "message", "field"}, "cause keys %s", sorted(cause))
    check(cause["field"] == "spec.resourceSelectors[0].namespace", "cause field %r", cause["field"])
    check(cause["type"] == "FieldValueInvalid", "cause type %r", cause["type"])


def test_keep_alive_200_reviews(env):
    """200 reviews (allowed and denied, each with its own uid) on ONE connection."""
    allowed, denied = env.c01["review"], env.c08["review"]
    with env.client() as client:
        first_sock = client.connect()
        for i in range(200):
            review = copy.deepcopy(allowed if i % 2 == 0 else denied)
            review["request"]["uid"] = "00000000-0000-4000-8000-%012d" % i
            answer = client.post(PP_PATH, body_of(review))
            check(answer.status == 200, "review %d: HTTP %d", i, answer.status)
            check((answer.headers.get("Connection") or "").lower() != "close",
                  "review %d: the server asked to close the connection", i)
            response = answer.response()
            check(response.get("uid") == review["request"]["uid"], "review %d: uid %r not echoed",
                  i, response.get("uid"))
            check(response.get("allowed") is (i % 2 == 0), "review %d: allowed %r", i,
                  response.get("allowed"))
            check(client.sock is first_sock, "review %d: the connection was replaced", i)
        check(client.connects == 1, "%d TLS connections for 200 reviews, expected 1", client.connects)
        check(first_sock.fileno() != -1, "the socket was closed")


def test_v1beta1_echoed(env):
    for path, fixture in ((PP_PATH, env.c01), (CPP_PATH, env.cpp01), (PP_PATH, env.c08)):
        review = copy.deepcopy(fixture["review"])
        review["apiVersion"] = "admission.k8s.io/v1beta1"
        with env.client() as client:
            answer = client.post(path, body_of(review))
        check(answer.json().get("apiVersion") == "admission.k8s.io/v1beta1",
              "apiVersion not echoed: %r", answer.body[:200])
        expect_fixture(answer, dict(fixture, review=review))


def test_query_is_ignored(env):
    body = fixture_check.request_body(env.c01)
    with env.client() as client:
        for query in ("", "?timeout=3s", "?timeout=10s&x=y", "?"):
            expect_allowed(client.post(PP_PATH, body, query=query), env.c01["review"])


def test_concurrent_clients(env):
    """8 connections at once, 50 reviews each, every answer matched to its own uid."""
    errors = []

    def worker(n):
        try:
            with env.client() as client:
                for i in range(50):
                    review = copy.deepcopy(env.c01["review"] if i % 3 else env.c08["review"])
                    review["request"]["uid"] = "00000000-0000-4000-%04d-%012d" % (n, i)
                    response = client.post(PP_PATH, body_of(review)).response()
                    if response.get("uid") != review["request"]["uid"] or \
                            response.get("allowed") is not bool(i % 3):
                        errors.append("client %d review %d: %r" % (n, i, response))
                        return
                if client.connects != 1:
                    errors.append("client %d: %d connections" % (n, client.connects))
        except Exception as e:  # noqa: BLE001
            errors.append("client %d: %s: %s" % (n, e.__class__.__name__, e))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    check(not any(t.is_alive() for t in threads), "a client hung")
    check(not errors, "; ".join(errors[:5]))


def test_answers_are_valid_utf8(env):
    """Escapes JSON allows but UTF-8 cannot carry (a lone low surrogate) must not come back as
    invalid UTF-8: the API server decodes the answer as UTF-8 JSON (Go turns such escapes into
    U+FFFD; answering code 400 would be fine too)."""
    cases = []
    for raw_uid in (b'"\\udc00x"', b'"\\udfff"', b'"x\\ud800"'):
        cases.append(("uid " + raw_uid.decode(), fixture_check.request_body(env.c01).replace(
            b'"%s"' % env.c01["review"]["request"]["uid"].encode(), raw_uid)))
    cases.append(("denied namespace \\udc00", fixture_check.request_body(env.c08).replace(
        b'"namespace":"ns2"', b'"namespace":"\\udc00"')))
    problems = []
    with env.client() as client:
        for what, body in cases:
            answer = client.post(PP_PATH, body)
            try:
                json.loads(answer.body.decode("utf-8"))
            except UnicodeDecodeError as e:
                problems.append("%s: the answer is not UTF-8 (%s): %r" % (what, e, answer.body[:200]))
            except ValueError as e:
                problems.append("%s: the answer is not JSON (%s)" % (what, e))
    check(not problems, "; ".join(problems))


# --- bad envelopes: HTTP 200, code 400 ---------------------------------------------------------------

def test_content_type_text_plain(env):
    with env.client() as client:
        answer = client.post(PP_PATH, fixture_check.request_body(env.c01), content_type="text/plain")
    expect_error(answer, 400, contains=["text/plain"])


def test_content_type_with_charset(env):
    with env.client() as client:
        answer = client.post(PP_PATH, fixture_check.request_body(env.c01),
                             content_type="application/json; charset=utf-8")
    expect_error(answer, 400, contains=["application/json"])


def test_content_type_missing(env):
    with env.client() as client:
        answer = client.post(PP_PATH, fixture_check.request_body(env.c01), content_type=None)
    expect_error(answer, 400)


def test_empty_body(env):
    with env.client() as client:
        expect_error(client.post(PP_PATH, b""), 400)


def test_malformed_json(env):
    good = fixture_check.request_body(env.c01)
    with env.client() as client:
        for body in (good[: len(good) // 2], b"{", b"nul", b"{\"apiVersion\" \"x\"}", good + b"}",
                     b"\xff\xfe{}", b"[]", b"42"):
            expect_error(client.post(PP_PATH, body), 400)
        check(client.connects == 1, "bad JSON cost the keep-alive connection (%d connects)",
              client.connects)


def test_nesting_10000_deep(env):
    with env.client() as client:
        expect_error(client.post(PP_PATH, b"[" * 10000 + b"]" * 10000), 400)
        expect_error(client.post(PP_PATH, b'{"a":' * 10000 + b"1" + b"}" * 10000), 400)
        # Deep inside an otherwise good review.
        review = copy.deepcopy(env.c01["review"])
        review["request"]["object"]["spec"]["x"] = "DEEP"
        text = body_of(review).replace(b'"DEEP"', b'{"a":' * 10000 + b"1" + b"}" * 10000)
        expect_error(client.post(PP_PATH, text), 400)
        # 128 deep is fine (the limit), as a value the rules ignore.
        review["request"]["object"]["metadata"]["annotations"] = {"a": "DEEP"}
        text = body_of(review).replace(b'"DEEP"', b"[" * 100 + b"]" * 100)
        answer = client.post(PP_PATH, text)
        check(answer.status == 200 and answer.response().get("status", {}).get("code") != 400,
              "a review nested 100 deep was refused: %r", answer.body[:300])


def test_duplicate_keys(env):
    good = fixture_check.request_body(env.c01)
    with env.client() as client:
        for old, new in ((b'"operation":"CREATE"', b'"operation":"CREATE","operation":"CREATE"'),
                         (b'"namespace":"ns1","uid"', b'"namespace":"ns1","namespace":"ns1","uid"')):
            check(old in good, "fixture C01 has no %r", old)
            expect_error(client.post(PP_PATH, good.replace(old, new, 1)), 400)


def test_request_kind_deployment(env):
    review = copy.deepcopy(env.c01["review"])
    review["request"]["kind"] = {"group": "apps", "version": "v1", "kind": "Deployment"}
    with env.client() as client:
        response = expect_error(client.post(PP_PATH, body_of(review)), 400,
                                contains=["Deployment", "PropagationPolicy"])
    check(response.get("uid") == review["request"]["uid"], "uid %r not echoed", response.get("uid"))
    message = response["status"]["message"]
    check("apps/Deployment" in message and "policy.karmada.io/PropagationPolicy" in message,
          "message %r should name apps/Deployment and policy.karmada.io/PropagationPolicy", message)


def test_request_kind_cpp_on_pp_path(env):
    with env.client() as client:
        expect_error(client.post(PP_PATH, fixture_check.request_body(env.cpp01)), 400,
                     contains=["ClusterPropagationPolicy"])


def test_delete_without_object(env):
    fixture = env.fixture(PP_PATH, "C58-delete-no-object.json")
    with env.client() as client:
        answer = client.post(PP_PATH, fixture_check.request_body(fixture))
    expect_error(answer, 400)
    expect_fixture(answer, fixture)


# --- too large: HTTP 413, body not read, connection closed --------------------------------------------

def test_body_8_mib_gets_413_and_close(env):
    with env.raw() as conn:
        head = fixture_check.request_body(env.c01)[:100]
        conn.sendall(raw_request("POST", PP_PATH + "?timeout=3s", head,
                                 headers=["Content-Type: application/json"],
                                 content_length=8 * 1024 * 1024))
        answer = conn.read_response()
        check(answer.status == 413, "HTTP %d, expected 413: %r", answer.status, answer.body[:300])
        check(answer.headers.get("Content-Type") == "application/json", "Content-Type %r",
              answer.headers.get("Content-Type"))
        response = answer.response()
        check(response.get("allowed") is False, "allowed %r", response.get("allowed"))
        check(response.get("status", {}).get("code") == 413, "status.code %r, expected 413",
              response.get("status", {}).get("code"))
        check((answer.headers.get("Connection") or "").lower() == "close",
              "no Connection: close on the 413 (headers %r)", answer.headers.items())
        conn.wait_closed()


def test_body_at_limit_accepted_one_more_byte_413(env):
    """Exactly --max-request-bytes is served; one byte more is 413 (sent whole: the client may
    see the connection reset while still sending, which is fine)."""
    good = fixture_check.request_body(env.c01)
    at_limit = good + b" " * (MAX_REQUEST_BYTES - len(good))
    with env.client(timeout=30) as client:
        expect_allowed(client.post(PP_PATH, at_limit), env.c01["review"])
    with env.raw() as conn:
        conn.sendall(raw_request("POST", PP_PATH, b"", headers=["Content-Type: application/json"],
                                 content_length=MAX_REQUEST_BYTES + 1))
        answer = conn.read_response()
        check(answer.status == 413, "HTTP %d for limit+1 bytes, expected 413", answer.status)
        conn.wait_closed()


# --- wrong method / path --------------------------------------------------------------------------------

def test_get_is_405(env):
    with env.client() as client:
        for method in ("GET", "PUT", "DELETE", "PATCH"):
            answer = client.request(method, PP_PATH + "?timeout=3s")
            check(answer.status == 405, "%s: HTTP %d, expected 405", method, answer.status)
            check(answer.headers.get("Allow") == "POST", "%s: Allow %r, expected POST", method,
                  answer.headers.get("Allow"))
        check(client.connects == 1, "405 answers cost the keep-alive connection")


def test_head_answer_has_no_body(env):
    """HEAD is refused like GET, and the answer carries no body (RFC 9110 §9.3.2): anything after
    the header would be read as the start of the next response on the connection."""
    with env.raw() as conn:
        conn.sendall(raw_request("HEAD", PP_PATH, content_length=0) +
                     raw_request("POST", PP_PATH, fixture_check.request_body(env.c01),
                                 headers=["Content-Type: application/json"]))
        first = conn.read_response(method="HEAD")
        check(first.status == 405, "HEAD: HTTP %d, expected 405", first.status)
        check(first.headers.get("Allow") == "POST", "HEAD: Allow %r", first.headers.get("Allow"))
        try:
            second = conn.read_response()
        except Exception as e:  # noqa: BLE001
            raise AssertionError("the answer after a HEAD cannot be read (%s: %s): the HEAD answer "
                                 "carried a body" % (e.__class__.__name__, e))
        expect_allowed(second, env.c01["review"])


def test_unknown_path_is_404(env):
    with env.client() as client:
        for target in ("/", "/validate-deployment", "/validate-propagationpolicy/x",
                       "/VALIDATE-PROPAGATIONPOLICY", "/validate-propagationpolicy%00"):
            answer = client.post(target, fixture_check.request_body(env.c01), query="")
            check(answer.status == 404, "%s: HTTP %d, expected 404", target, answer.status)
            check(answer.body == b"404 page not found\n", "%s: body %r", target, answer.body)
        answer = client.request("GET", "/metrics")
        check(answer.status == 404, "GET /metrics on the TLS port: HTTP %d, expected 404", answer.status)
        for probe in ("/healthz", "/readyz"):  # upstream's deployments probe the TLS port
            answer = client.request("GET", probe)
            check(answer.status == 200 and answer.body == b"ok\n", "GET %s: HTTP %d %r", probe,
                  answer.status, answer.body)


# --- broken clients -------------------------------------------------------------------------------------

def test_garbage_after_handshake(env):
    """Non-HTTP bytes after the handshake: a plain 400 or a close, nothing else."""
    for garbage in (b"\x00\x01\x02\xff garbage \r\n\r\n", b"HELLO\r\n\r\n", b"\r\n" * 100,
                    b"\x16\x03\x01\x00\x05hello"):
        with env.raw() as conn:
            conn.sendall(garbage)
            try:
                answer = conn.read_response()
            except socket.timeout:
                raise AssertionError("%r: no answer and no close within the timeout" % garbage)
            except (ConnectionError, ssl.SSLError):
                answer, conn.buf = None, b""  # closed without an answer: fine
            if answer is not None:
                check(answer.status == 400, "%r: HTTP %d, expected 400 or a close: %r", garbage,
                      answer.status, answer.body[:200])
            conn.wait_closed()


def test_malformed_http_gets_400_and_close(env):
    """Malformed HTTP: a plain-text 400, then the server closes the connection."""
    for request in (b"POST /validate-propagationpolicy HTTP/9.9\r\n\r\n",
                    b"POST /validate-propagationpolicy HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                    b"POST /validate-propagationpolicy HTTP/1.1\r\nContent-Length: 1\r\n"
                    b"Content-Length: 2\r\n\r\nab",
                    b"POST /validate-propagationpolicy HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
                    b"\r\nzz\r\n",
                    raw_request("POST", PP_PATH, b"{}", headers=["Content-Type: application/json",
                                                                 "X-Big: " + "a" * 20000])):
        with env.raw() as conn:
            conn.sendall(request)
            answer = conn.read_response()
            check(answer.status == 400, "%r: HTTP %d, expected 400: %r", request[:80], answer.status,
                  answer.body[:200])
            check((answer.headers.get("Content-Type") or "").startswith("text/plain"),
                  "%r: Content-Type %r, expected text/plain", request[:80],
                  answer.headers.get("Content-Type"))
            conn.wait_closed()


def test_plain_tcp_connect_and_close(env):
    for _ in range(5):
        socket.create_connection(("127.0.0.1", env.port), timeout=5).close()


def test_plain_http_on_tls_port(env):
    s = socket.create_connection(("127.0.0.1", env.port), timeout=5)
    try:
        s.sendall(b"POST /validate-propagationpolicy HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        harness.wait_closed(s)
    finally:
        s.close()


def test_tls_then_silence(env):
    """A client that finishes the handshake and sends nothing: just close it and move on."""
    conns = [env.raw() for _ in range(5)]
    for conn in conns:
        conn.close()


def open_connections(env) -> float:
    """The server's open TLS connections, from its metrics port."""
    conn = http.client.HTTPConnection("127.0.0.1", env.server.metrics_port, timeout=5)
    try:
        conn.request("GET", "/metrics")
        for line in conn.getresponse().read().decode().splitlines():
            if line.startswith("karmada_policy_webhook_open_connections "):
                return float(line.split()[1])
    finally:
        conn.close()
    raise AssertionError("no karmada_policy_webhook_open_connections on /metrics")


def test_half_request_then_close(env):
    """Half a request (cut in the header, or in the body), then the client's end of the stream.
    The server's read can never finish: it closes the connection at once (well before its 10 s
    header timeout) with no answer, or a 400 at most, and serves the next connection normally."""
    body = fixture_check.request_body(env.c01)
    halves = {"in the header": b"POST /validate-propagationpolicy HTTP/1.1\r\nHost: x\r\nContent-Le",
              "in the body": raw_request("POST", PP_PATH, body[:50],
                                         headers=["Content-Type: application/json"],
                                         content_length=len(body))}
    prompt = 2.0  # seconds
    for where, data in halves.items():
        # The client shuts its write side (a TCP FIN under the TLS session) and goes on reading:
        # through socket.socket's shutdown, as SSLSocket's would drop the TLS layer too.
        with env.raw() as conn:
            conn.sendall(data)
            conn.sock.settimeout(prompt)
            t0 = time.monotonic()
            socket.socket.shutdown(conn.sock, socket.SHUT_WR)
            try:
                answer = conn.read_response()
            except socket.timeout:
                raise AssertionError("cut %s, write side shut: the connection was still open after "
                                     "%.0f s, with no answer" % (where, prompt))
            except (ConnectionError, ssl.SSLError):
                answer, conn.buf = None, b""  # closed without an answer: what we hope for
            if answer is not None:
                check(answer.status == 400, "cut %s, write side shut: HTTP %d, expected no answer "
                      "or 400: %r", where, answer.status, answer.body[:200])
            conn.wait_closed(timeout=max(0.1, prompt - (time.monotonic() - t0)))
        # The client simply closes: the server lets the connection go at once too (nothing else is
        # open now, so the count of open connections falls to 0).
        with env.raw() as conn:
            conn.sendall(data)
        deadline = time.monotonic() + prompt
        while open_connections(env) != 0:
            check(time.monotonic() < deadline, "cut %s, then closed: the server still held %d "
                  "connections after %.0f s", where, open_connections(env), prompt)
            time.sleep(0.02)
    with env.client() as client:
        expect_allowed(client.post(PP_PATH, body), env.c01["review"])


def test_pipelined_requests(env):
    body = fixture_check.request_body(env.c01)
    denied = fixture_check.request_body(env.c08)
    with env.raw() as conn:
        hdr = ["Content-Type: application/json"]
        conn.sendall(raw_request("POST", PP_PATH, body, hdr) + raw_request("POST", PP_PATH, denied, hdr) +
                     raw_request("POST", PP_PATH, body, hdr + ["Connection: close"]))
        expect_allowed(conn.read_response(), env.c01["review"])
        expect_fixture(conn.read_response(), env.c08)
        last = conn.read_response()
        expect_allowed(last, env.c01["review"])
        check((last.headers.get("Connection") or "").lower() == "close",
              "no Connection: close after a request asking for it")
        conn.wait_closed()


def test_chunked_body(env):
    body = fixture_check.request_body(env.c01)
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 500]), body[i:i + 500])
                      for i in range(0, len(body), 500)) + b"0\r\n\r\n"
    with env.raw() as conn:
        conn.sendall(("POST %s?timeout=3s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
                      "\r\nTransfer-Encoding: chunked\r\n\r\n" % PP_PATH).encode() + chunks)
        expect_allowed(conn.read_response(), env.c01["review"])


def test_http10_request(env):
    with env.raw() as conn:
        body = fixture_check.request_body(env.c01)
        conn.sendall(b"POST %s HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (PP_PATH.encode(), len(body), body))
        expect_allowed(conn.read_response(), env.c01["review"])
        conn.wait_closed()


def test_expect_100_continue(env):
    body = fixture_check.request_body(env.c01)
    with env.raw() as conn:
        conn.sendall(("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      "Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % (PP_PATH, len(body))).encode())
        interim = conn.read_response()
        check(interim.status == 100, "expected 100 Continue before the body, got %s", interim.status)
        conn.sendall(body)
        expect_allowed(conn.read_response(), env.c01["review"])


def test_absolute_form_target(env):
    body = fixture_check.request_body(env.c01)
    with env.raw() as conn:
        conn.sendall(raw_request("POST", "https://localhost:%d%s?timeout=3s" % (env.server.port, PP_PATH),
                                 body, ["Content-Type: application/json"]))
        expect_allowed(conn.read_response(), env.c01["review"])


TESTS = [
    test_expect_100_continue,
    test_absolute_form_target,
    test_allowed_review,
    test_allowed_cluster_review,
    test_denied_review,
    test_keep_alive_200_reviews,
    test_v1beta1_echoed,
    test_query_is_ignored,
    test_concurrent_clients,
    test_answers_are_valid_utf8,
    test_content_type_text_plain,
    test_content_type_with_charset,
    test_content_type_missing,
    test_empty_body,
    test_malformed_json,
    test_nesting_10000_deep,
    test_duplicate_keys,
    test_request_kind_deployment,
    test_request_kind_cpp_on_pp_path,
    test_delete_without_object,
    test_body_8_mib_gets_413_and_close,
    test_body_at_limit_accepted_one_more_byte_413,
    test_get_is_405,
    test_head_answer_has_no_body,
    test_unknown_path_is_404,
    test_garbage_after_handshake,
    test_malformed_http_gets_400_and_close,
    test_plain_tcp_connect_and_close,
    test_plain_http_on_tls_port,
    test_tls_then_silence,
    test_half_request_then_close,
    test_pipelined_requests,
    test_chunked_body,
    test_http10_request,
]


def run(args):
    certs = harness.make_certs(args.source)
    with harness.Server(args.binary, certs) as server:
        env = Env(server, args.source)
        status = harness.run_tests(TESTS, env, after_each=server_still_serves)
    return status


if __name__ == "__main__":
    harness.main(run)
