#!/usr/bin/env python3
"""End to end: TLS versions, ALPN, certificate types and verification against the real server.

Three servers: the default one (ECDSA certificate, TLS 1.3 minimum), one started with
`--tls-min-version 1.2`, and one serving an RSA certificate (also with 1.2 allowed, so the TLS 1.2
cipher suite shows the key type). Every connection verifies the server against the CA made by
certs/make-certs.sh.

    test_tls.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
from harness import PP_PATH, check  # noqa: E402


class Env:
    def __init__(self, source, default, tls12, rsa):
        self.source = source
        self.default = default   # ECDSA, min TLS 1.3
        self.tls12 = tls12       # ECDSA, --tls-min-version 1.2
        self.rsa = rsa           # RSA, --tls-min-version 1.2
        self.c01 = fixture_check.load_fixture(
            harness.fixture_path(source, PP_PATH, "C01-base-allowed.json"))
        self.body = fixture_check.request_body(self.c01)


def expect_allowed_review(client, env):
    answer = client.post(PP_PATH, env.body)
    problems = fixture_check.check_answer(env.c01, answer.status, answer.body)
    check(not problems, "; ".join(problems))


def served_certificate_is(sock, cert_dir):
    """The leaf the server sent is tls.crt of cert_dir."""
    with open(os.path.join(cert_dir, "tls.crt")) as f:
        want = ssl.PEM_cert_to_DER_cert(f.read())
    check(sock.getpeercert(binary_form=True) == want,
          "the server did not send %s/tls.crt", cert_dir)


def expect_handshake_refused(server, **kwargs):
    try:
        sock = harness.tls_socket(server.port, server.ca, **kwargs)
    except (ssl.SSLError, ConnectionError) as e:
        return e
    version = sock.version()
    sock.close()
    raise AssertionError("the handshake succeeded (%s) but should have been refused" % version)


def all_servers_alive(env):
    for name in ("default", "tls12", "rsa"):
        server = getattr(env, name)
        check(server.alive(), "the %s server exited (status %s); stderr:\n%s", name,
              server.proc.returncode, server.stderr())


# --- versions ----------------------------------------------------------------------------------------

def test_tls13_client_default_server(env):
    with harness.Client(env.default.port, env.default.ca, min_version="1.3",
                        max_version="1.3") as client:
        sock = client.connect()
        check(sock.version() == "TLSv1.3", "negotiated %s, expected TLSv1.3", sock.version())
        expect_allowed_review(client, env)


def test_unconstrained_client_gets_tls13(env):
    with harness.Client(env.default.port, env.default.ca) as client:
        sock = client.connect()
        check(sock.version() == "TLSv1.3", "negotiated %s, expected TLSv1.3", sock.version())
        expect_allowed_review(client, env)


def test_tls12_only_client_refused_by_default_server(env):
    expect_handshake_refused(env.default, max_version="1.2")
    # ... and the server carries on.
    with harness.Client(env.default.port, env.default.ca) as client:
        expect_allowed_review(client, env)


def test_tls12_client_accepted_with_min_version_12(env):
    with harness.Client(env.tls12.port, env.tls12.ca, min_version="1.2",
                        max_version="1.2") as client:
        sock = client.connect()
        check(sock.version() == "TLSv1.2", "negotiated %s, expected TLSv1.2", sock.version())
        for _ in range(3):
            expect_allowed_review(client, env)
        check(client.connects == 1, "%d connections, expected 1", client.connects)


def test_tls13_client_still_works_with_min_version_12(env):
    with harness.Client(env.tls12.port, env.tls12.ca) as client:
        sock = client.connect()
        check(sock.version() == "TLSv1.3", "negotiated %s, expected TLSv1.3", sock.version())
        expect_allowed_review(client, env)


# --- ALPN -----------------------------------------------------------------------------------------------

def test_alpn_http11_selected(env):
    for server in (env.default, env.tls12):
        for version in (("1.3", "1.3"), ("1.2", "1.2")) if server is env.tls12 else (("1.3", "1.3"),):
            with harness.Client(server.port, server.ca, alpn=["http/1.1"], min_version=version[0],
                                max_version=version[1]) as client:
                sock = client.connect()
                check(sock.selected_alpn_protocol() == "http/1.1",
                      "TLS %s: ALPN selected %r, expected http/1.1", version[0],
                      sock.selected_alpn_protocol())
                expect_allowed_review(client, env)


def test_alpn_h2_and_http11_selects_http11(env):
    with harness.Client(env.default.port, env.default.ca, alpn=["h2", "http/1.1"]) as client:
        sock = client.connect()
        check(sock.selected_alpn_protocol() == "http/1.1", "ALPN selected %r, expected http/1.1",
              sock.selected_alpn_protocol())
        expect_allowed_review(client, env)


def test_alpn_h2_only_still_handshakes(env):
    for server, versions in ((env.default, ("1.3",)), (env.tls12, ("1.2", "1.3"))):
        for version in versions:
            with harness.Client(server.port, server.ca, alpn=["h2"], min_version=version,
                                max_version=version) as client:
                sock = client.connect()
                check(sock.selected_alpn_protocol() is None,
                      "TLS %s: ALPN selected %r, expected none", version,
                      sock.selected_alpn_protocol())
                expect_allowed_review(client, env)


def test_alpn_unknown_protocols_only(env):
    with harness.Client(env.default.port, env.default.ca, alpn=["spdy/3", "foo"]) as client:
        check(client.connect().selected_alpn_protocol() is None, "an ALPN protocol was selected")
        expect_allowed_review(client, env)


def test_no_alpn(env):
    with harness.Client(env.default.port, env.default.ca) as client:
        check(client.connect().selected_alpn_protocol() is None, "an ALPN protocol was selected")
        expect_allowed_review(client, env)


# --- handshake cost -------------------------------------------------------------------------------------

def test_no_session_tickets_no_resumption(env):
    # The API server never resumes (client-go keeps no session cache): tickets would be pure cost.
    for server, max_version in ((env.default, None), (env.tls12, "1.2")):
        with harness.Client(server.port, server.ca, max_version=max_version) as client:
            expect_allowed_review(client, env)  # a ticket, if any, arrives with the first answer
            sock = client.sock
            check(not sock.session.has_ticket, "%s: the server sent a session ticket",
                  sock.version())
            raw = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            with contextlib.closing(client.context.wrap_socket(
                    raw, server_hostname="localhost", session=sock.session)) as again:
                check(not again.session_reused, "%s: a session was resumed", again.version())


def test_first_request_not_held_by_a_delayed_ack(env):
    # Without tickets nothing answers the client's Finished; unless the server acknowledges it at
    # once, a client without TCP_NODELAY (Python's sockets, like many) holds its first request
    # until the kernel's delayed ACK, ~40 ms later.
    request = (b"POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % (PP_PATH.encode(), len(env.body))) + env.body
    # The bound: 20 ms, or three times the median second request of the same connections (what
    # an answer costs on this machine now, with no handshake before it) on a busy machine.
    waits, seconds = [], []
    for _ in range(5):
        with contextlib.closing(harness.raw_tls(env.default.port, env.default.ca)) as conn:
            for out in (waits, seconds):
                started = time.monotonic()
                conn.sendall(request)
                answer = conn.read_response()
                out.append(time.monotonic() - started)
                check(answer.status == 200, "HTTP %s", answer.status)
    waits.sort()
    seconds.sort()
    bound = harness.scaled_bound(0.020, seconds[2], 3)
    check(waits[2] < bound, "first answers took %s ms (median above %.0f ms; second requests %s ms)",
          ", ".join("%.1f" % (w * 1000) for w in waits), bound * 1000,
          ", ".join("%.1f" % (w * 1000) for w in seconds))


def test_aes128_gcm_preferred_over_client_order(env):
    # Python's OpenSSL client lists TLS_AES_256_GCM_SHA384 first; the server picks as Go's does.
    with harness.Client(env.default.port, env.default.ca) as client:
        cipher = client.connect().cipher()[0]
        check(cipher == "TLS_AES_128_GCM_SHA256", "negotiated %s", cipher)
        expect_allowed_review(client, env)


# --- certificates -----------------------------------------------------------------------------------------

def test_ecdsa_certificate_served(env):
    sock = harness.tls_socket(env.tls12.port, env.tls12.ca, max_version="1.2")
    with contextlib.closing(sock):
        served_certificate_is(sock, env.tls12.cert_dir)
        cipher = sock.cipher()[0]
        check("ECDSA" in cipher, "TLS 1.2 cipher %s is not an ECDSA suite", cipher)


def test_rsa_certificate_served_and_verified(env):
    with harness.Client(env.rsa.port, env.rsa.ca) as client:
        sock = client.connect()
        served_certificate_is(sock, env.rsa.cert_dir)
        check(sock.version() == "TLSv1.3", "negotiated %s, expected TLSv1.3", sock.version())
        expect_allowed_review(client, env)
    with harness.Client(env.rsa.port, env.rsa.ca, max_version="1.2") as client:
        sock = client.connect()
        cipher = sock.cipher()[0]
        check("RSA" in cipher and "ECDSA" not in cipher, "TLS 1.2 cipher %s is not an RSA suite",
              cipher)
        expect_allowed_review(client, env)


def test_hostname_localhost_verified(env):
    # Through the loopback address, naming the server `localhost` (SNI + verification).
    sock = harness.tls_socket(env.default.port, env.default.ca, server_hostname="localhost")
    with contextlib.closing(sock):
        check(sock.getpeercert().get("subjectAltName") is not None, "no subjectAltName")
    # Through the name itself, as a client would dial it.
    with harness.Client(env.default.port, env.default.ca, host="localhost") as client:
        expect_allowed_review(client, env)
    # And by IP address (the certificate has IP:127.0.0.1).
    with harness.Client(env.default.port, env.default.ca, host="127.0.0.1") as client:
        expect_allowed_review(client, env)


def test_wrong_hostname_rejected(env):
    e = expect_handshake_refused(env.default, server_hostname="example.com")
    check(isinstance(e, ssl.SSLCertVerificationError), "expected a verification error, got %r", e)


def test_other_ca_rejected(env):
    # The RSA server's certificate does not chain to the ECDSA CA, and the other way round.
    for server, other in ((env.rsa, env.default), (env.default, env.rsa)):
        try:
            sock = harness.tls_socket(server.port, other.ca)
        except ssl.SSLCertVerificationError:
            continue
        sock.close()
        raise AssertionError("a certificate from another CA was accepted")


def test_custom_certificate_file_names(env):
    cert_dir = harness.temp_dir("renamed")
    shutil.copy(os.path.join(env.default.cert_dir, "tls.crt"), os.path.join(cert_dir, "serving.pem"))
    shutil.copy(os.path.join(env.default.cert_dir, "tls.key"), os.path.join(cert_dir, "serving-key.pem"))
    with harness.Server(env.default.binary, cert_dir, "--tls-cert-file-name", "serving.pem",
                        "--tls-private-key-file-name", "serving-key.pem") as server:
        with harness.Client(server.port, env.default.ca) as client:
            served_certificate_is(client.connect(), env.default.cert_dir)
            expect_allowed_review(client, env)


TESTS = [
    test_tls13_client_default_server,
    test_unconstrained_client_gets_tls13,
    test_tls12_only_client_refused_by_default_server,
    test_tls12_client_accepted_with_min_version_12,
    test_tls13_client_still_works_with_min_version_12,
    test_alpn_http11_selected,
    test_alpn_h2_and_http11_selects_http11,
    test_alpn_h2_only_still_handshakes,
    test_alpn_unknown_protocols_only,
    test_no_alpn,
    test_no_session_tickets_no_resumption,
    test_first_request_not_held_by_a_delayed_ack,
    test_aes128_gcm_preferred_over_client_order,
    test_ecdsa_certificate_served,
    test_rsa_certificate_served_and_verified,
    test_hostname_localhost_verified,
    test_wrong_hostname_rejected,
    test_other_ca_rejected,
    test_custom_certificate_file_names,
]


def run(args):
    ec = harness.make_certs(args.source)
    rsa = harness.make_certs(args.source, rsa=True)
    with harness.Server(args.binary, ec) as default, \
            harness.Server(args.binary, ec, "--tls-min-version", "1.2") as tls12, \
            harness.Server(args.binary, rsa, "--tls-min-version", "1.2") as rsa_server:
        env = Env(args.source, default, tls12, rsa_server)
        status = harness.run_tests(TESTS, env, after_each=all_servers_alive)
    return status


if __name__ == "__main__":
    harness.main(run)
