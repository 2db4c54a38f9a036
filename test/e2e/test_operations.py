#!/usr/bin/env python3
"""End to end: what an operator relies on. Probes, metrics, logs, certificate rotation under load,
graceful shutdown with requests in flight, the connection cap and the header timeout.

    test_operations.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
from harness import PP_PATH, check  # noqa: E402


class Env:
    def __init__(self, args):
        self.binary = args.binary
        self.source = args.source
        self.certs = harness.make_certs(args.source)
        self.c01 = fixture_check.request_body(self.fixture("C01-base-allowed.json"))
        self.c08 = fixture_check.request_body(self.fixture("C08-selector-namespace-mismatch.json"))

    def fixture(self, name):
        return fixture_check.load_fixture(harness.fixture_path(self.source, PP_PATH, name))

    def server(self, *flags, certs=None, **kwargs):
        return harness.Server(self.binary, certs or self.certs, *flags, **kwargs)


def plain_get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def allowed(answer):
    return answer.status == 200 and answer.json()["response"]["allowed"] is True


def metric(text, name, **labels):
    """The value of one sample, or None."""
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        m = re.match(r"^([a-zA-Z_:]+)(?:\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        if all(got.get(k) == v for k, v in labels.items()) and len(got) == len(labels):
            return float(m.group(3))
    return None


# --- probes ---------------------------------------------------------------------------------------

def test_probes(env):
    with env.server() as server:
        check(plain_get(server.probe_port, "/healthz") == (200, "ok\n"), "healthz")
        check(plain_get(server.probe_port, "/readyz") == (200, "ok\n"), "readyz")
        check(plain_get(server.probe_port, "/nope")[0] == 404, "unknown probe path")
        with harness.Client(server.port, server.ca) as client:
            answer = client.request("GET", "/readyz")
            check(answer.status == 200, "GET /readyz on the TLS port: %d", answer.status)


def test_probes_can_be_disabled(env):
    with env.server("--health-probe-bind-address", "0", "--metrics-bind-address", "0") as server:
        check(not harness.port_is_listening(server.probe_port), "probe port listens with 0")
        check(not harness.port_is_listening(server.metrics_port), "metrics port listens with 0")


def test_shutdown_delay_readiness_off_listener_open(env):
    """During the delay: not ready, a new connection still served, and a keep-alive connection
    made before SIGTERM gets its answer with `Connection: close` and is closed, so that its
    client's next request goes where a Service now sends it (a ready replica) instead of racing
    the close of idle connections when the delay ends."""
    server = env.server(shutdown_delay="2s").start()
    early = harness.Client(server.port, server.ca)
    check(allowed(early.post(PP_PATH, env.c01)), "review before SIGTERM")
    t0 = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    answer = early.post(PP_PATH, env.c01)
    check(allowed(answer) and (answer.headers.get("Connection") or "").lower() == "close",
          "a keep-alive connection's answer during the delay: %s, Connection: %s", answer,
          answer.headers.get("Connection"))
    check(early.connects == 1, "%d connects", early.connects)
    early.close()
    status, _ = plain_get(server.probe_port, "/readyz")
    check(status == 503, "readyz during the shutdown delay: %d, expected 503", status)
    check(plain_get(server.probe_port, "/healthz")[0] == 200, "healthz must stay 200 while draining")
    with harness.Client(server.port, server.ca) as client:  # a NEW connection, still accepted
        check(allowed(client.post(PP_PATH, env.c01)), "review during the shutdown delay")
    code = server.proc.wait(15)
    took = time.monotonic() - t0
    check(code == 0, "exit status %s", code)
    check(took >= 1.9, "exited after %.2f s, before the 2 s shutdown delay", took)


# --- metrics and logs -----------------------------------------------------------------------------

def test_metrics_count_reviews(env):
    with env.server() as server:
        with harness.Client(server.port, server.ca) as client:
            for _ in range(3):
                check(allowed(client.post(PP_PATH, env.c01)), "allowed review")
            for _ in range(2):
                check(client.post(PP_PATH, env.c08).json()["response"]["allowed"] is False, "denial")
            check(client.post(PP_PATH, b"{").status == 200, "malformed")
            status, text = plain_get(server.metrics_port, "/metrics")
        check(status == 200, "/metrics: %d", status)
        w = {"webhook": PP_PATH}
        got = metric(text, "controller_runtime_webhook_requests_total", code="200", **w)
        check(got == 6, "requests_total{code=200} = %s, expected 6", got)
        check(metric(text, "karmada_policy_webhook_admission_total", operation="CREATE",
                     allowed="true", **w) == 3, "admission_total allowed")
        check(metric(text, "karmada_policy_webhook_admission_total", operation="CREATE",
                     allowed="false", **w) == 2, "admission_total denied")
        check(metric(text, "karmada_policy_webhook_rule_violations_total", rule="V-S1", action="deny",
                     **w) == 2, "rule_violations_total{rule=V-S1,action=deny}")
        check(metric(text, "controller_runtime_webhook_latency_seconds_count", **w) == 6, "histogram count")
        check(metric(text, "controller_runtime_webhook_latency_seconds_bucket", le="+Inf", **w) == 6,
              "+Inf bucket")
        check(metric(text, "controller_runtime_webhook_requests_in_flight", **w) == 0, "in flight")
        check(metric(text, "karmada_policy_webhook_open_connections") is not None, "open connections")
        check("# TYPE controller_runtime_webhook_latency_seconds histogram" in text, "histogram TYPE")


def test_logs_denials_not_allowed_json(env):
    with env.server("--logging-format", "json") as server:
        with harness.Client(server.port, server.ca) as client:
            client.post(PP_PATH, env.c01)
            client.post(PP_PATH, env.c08)
        time.sleep(0.2)
        lines = [l for l in server.stderr().splitlines() if l.strip()]
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            raise AssertionError("a log line is not JSON: %r" % line)
    events = [json.loads(l) for l in lines]
    denials = [e for e in events if e.get("msg") == "admission denied"]
    check(len(denials) == 1, "one denial line expected, got %d: %s", len(denials), lines)
    d = denials[0]
    for key in ("ts", "level", "webhook", "uid", "reason", "name", "namespace", "kind"):
        check(key in d, "denial log lacks %r: %s", key, d)
    check(d["webhook"] == PP_PATH and "spec.resourceSelectors[0].namespace" in d["reason"], "%s", d)
    check(d.get("rules") == "V-S1", "the denial names its rule: %s", d)
    check(not any(e.get("msg") == "admission allowed" for e in events), "an allowed review was logged")
    check("object" not in d and "spec" not in json.dumps(d).replace("spec.", ""), "the object was logged: %s", d)


def test_strict_rules_warn_counts_warnings(env):
    """--strict-rules=warn: a strict violation (D-R2) is allowed with a warning, and counted as
    action="warn"; an upstream rule (V-S1) still denies."""
    cpp_path = "/validate-clusterpropagationpolicy"
    d_r2 = fixture_check.request_body(fixture_check.load_fixture(harness.fixture_path(
        env.source, cpp_path, "D-R2a-cpp-deployment-without-namespace.json")))
    with env.server("--strict-rules=warn") as server:
        with harness.Client(server.port, server.ca) as client:
            answer = client.post(cpp_path, d_r2).json()["response"]
            check(answer["allowed"] is True, "D-R2 allowed under warn: %s", answer)
            check(any("[D-R2]; allowed by --strict-rules=warn" in w for w in answer.get("warnings", [])),
                  "warning: %s", answer)
            check(client.post(PP_PATH, env.c08).json()["response"]["allowed"] is False, "V-S1 denies")
            status, text = plain_get(server.metrics_port, "/metrics")
    check(metric(text, "karmada_policy_webhook_rule_violations_total", webhook=cpp_path, rule="D-R2",
                 action="warn") == 1, "rule_violations_total{rule=D-R2,action=warn}")
    check(metric(text, "karmada_policy_webhook_rule_violations_total", webhook=PP_PATH, rule="V-S1",
                 action="deny") == 1, "rule_violations_total{rule=V-S1,action=deny}")


# --- certificate rotation -------------------------------------------------------------------------

def _fingerprint(der):
    import hashlib
    return hashlib.sha256(der).hexdigest()


def _peer_fingerprint(port, cafile):
    sock = harness.tls_socket(port, cafile)
    try:
        return _fingerprint(sock.getpeercert(binary_form=True))
    finally:
        sock.close()


def _pem_fingerprint(path):
    return _fingerprint(ssl.PEM_cert_to_DER_cert(open(path).read()))


def _secret_volume(root, first):
    """A directory laid out as a Kubernetes Secret volume: tls.* -> ..data/tls.* -> ..<ts>/."""
    os.makedirs(root)
    _swap(root, first, "..v1")
    for name in ("tls.crt", "tls.key", "ca.crt"):
        os.symlink(os.path.join("..data", name), os.path.join(root, name))


def _swap(root, source_dir, version):
    target = os.path.join(root, version)
    os.makedirs(target)
    for name in ("tls.crt", "tls.key", "ca.crt"):
        shutil.copy(os.path.join(source_dir, name), os.path.join(target, name))
    tmp = os.path.join(root, "..data_tmp")
    os.symlink(version, tmp)
    os.replace(tmp, os.path.join(root, "..data"))  # atomic, as the kubelet does


def test_certificate_rotation_under_load(env):
    work = harness.temp_dir("rotation")
    old_dir, new_dir, broken = (os.path.join(work, n) for n in ("old", "new", "broken"))
    for d in (old_dir, new_dir):
        subprocess.run([os.path.join(env.source, "certs", "make-certs.sh"), d], check=True,
                       stdout=subprocess.DEVNULL)
    os.makedirs(broken)
    for name in ("tls.crt", "tls.key", "ca.crt"):
        with open(os.path.join(broken, name), "w") as f:
            f.write("not a PEM file\n")
    bundle = os.path.join(work, "both-cas.crt")
    with open(bundle, "w") as f:
        f.write(open(os.path.join(old_dir, "ca.crt")).read() + open(os.path.join(new_dir, "ca.crt")).read())
    volume = os.path.join(work, "volume")
    _secret_volume(volume, old_dir)

    with env.server(certs=volume) as server:
        check(_peer_fingerprint(server.port, bundle) == _pem_fingerprint(os.path.join(old_dir, "tls.crt")),
              "the server does not present the first certificate")
        failures, count, stop = [], [0], threading.Event()

        def keep_alive_load():
            with harness.Client(server.port, bundle) as client:
                while not stop.is_set():
                    try:
                        if not allowed(client.post(PP_PATH, env.c01)):
                            failures.append("keep-alive answer not allowed")
                        count[0] += 1
                    except Exception as e:  # noqa: BLE001
                        failures.append("keep-alive: %r" % e)

        def new_connections():
            while not stop.is_set():
                try:
                    with harness.Client(server.port, bundle) as client:
                        if not allowed(client.post(PP_PATH, env.c01)):
                            failures.append("new connection answer not allowed")
                    count[0] += 1
                except Exception as e:  # noqa: BLE001
                    failures.append("new connection: %r" % e)
                time.sleep(0.02)

        threads = [threading.Thread(target=keep_alive_load), threading.Thread(target=new_connections)]
        for t in threads:
            t.start()
        try:
            time.sleep(0.5)
            _swap(volume, new_dir, "..v2")
            want = _pem_fingerprint(os.path.join(new_dir, "tls.crt"))
            deadline = time.monotonic() + 15
            while _peer_fingerprint(server.port, bundle) != want:
                check(time.monotonic() < deadline, "new handshakes do not see the new certificate after 15 s")
                time.sleep(0.25)
            # A broken pair is logged and the working one kept.
            _swap(volume, broken, "..v3")
            deadline = time.monotonic() + 15
            while "cannot be used" not in server.stderr():
                check(time.monotonic() < deadline, "a broken certificate was not logged within 15 s")
                time.sleep(0.25)
            check(_peer_fingerprint(server.port, bundle) == want, "the broken pair replaced the good one")
        finally:
            stop.set()
            for t in threads:
                t.join(10)
        check(not failures, "%d failed requests during rotation: %s", len(failures), failures[:3])
        check(count[0] > 20, "only %d requests ran during the rotation", count[0])
        _, text = plain_get(server.metrics_port, "/metrics")
        check(metric(text, "karmada_policy_webhook_certificate_reloads_total", result="success") == 1,
              "reload success count")
        check(metric(text, "karmada_policy_webhook_certificate_reloads_total", result="failure") == 1,
              "reload failure count")


# --- shutdown, limits, timeouts -------------------------------------------------------------------

def test_sigterm_with_request_in_flight(env):
    server = env.server().start()
    conn = harness.raw_tls(server.port, server.ca)
    idle = harness.raw_tls(server.port, server.ca)  # an idle keep-alive connection must not hold the exit
    try:
        head = ("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                "Content-Length: %d\r\n\r\n" % (PP_PATH, len(env.c01))).encode()
        conn.sendall(head + env.c01[:100])
        time.sleep(0.2)
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        conn.sendall(env.c01[100:])
        answer = conn.read_response()
        check(allowed(answer), "the request in flight was not answered: %s", answer)
        check((answer.headers.get("Connection") or "").lower() == "close", "no Connection: close while draining")
        code = server.proc.wait(15)
        check(code == 0, "exit status %s", code)
    finally:
        conn.close()
        idle.close()
        if server.alive():
            server.proc.kill()


def test_connection_cap(env):
    with env.server("--max-connections", "3") as server:
        conns = [harness.Client(server.port, server.ca) for _ in range(3)]
        try:
            for c in conns:
                check(allowed(c.post(PP_PATH, env.c01)), "one of the first three connections")
            refused = False
            try:
                with harness.Client(server.port, server.ca) as extra:
                    extra.post(PP_PATH, env.c01)
            except (OSError, ssl.SSLError, http.client.HTTPException):
                refused = True
            check(refused, "a fourth connection was served over --max-connections 3")
            for c in conns:
                check(allowed(c.post(PP_PATH, env.c01)), "an existing connection lost service")
            check(all(c.connects == 1 for c in conns), "existing connections had to reconnect")
        finally:
            for c in conns:
                c.close()
        time.sleep(0.2)
        with harness.Client(server.port, server.ca) as again:  # room again once they closed
            check(allowed(again.post(PP_PATH, env.c01)), "no service after the connections closed")


def test_slow_headers_cut_at_header_timeout(env):
    with env.server("--header-read-timeout", "1s") as server:
        sock = harness.tls_socket(server.port, server.ca)
        t0 = time.monotonic()
        closed_after = None
        try:
            for byte in b"POST /validate-propagationpolicy HTTP/1.1\r\nHost: localhost\r\nX-Slow: yes\r\n":
                sock.sendall(bytes([byte]))
                time.sleep(0.25)
                if time.monotonic() - t0 > 6:
                    break
        except (OSError, ssl.SSLError):
            closed_after = time.monotonic() - t0
        if closed_after is None:
            sock.settimeout(3)
            try:
                data = sock.recv(100)
                if data == b"":
                    closed_after = time.monotonic() - t0
            except (OSError, ssl.SSLError):
                closed_after = time.monotonic() - t0
        sock.close()
        check(closed_after is not None and closed_after < 4,
              "a client sending one header byte per 0.25 s was not cut off near 1 s (%s)", closed_after)


TESTS = [
    test_probes,
    test_probes_can_be_disabled,
    test_shutdown_delay_readiness_off_listener_open,
    test_metrics_count_reviews,
    test_logs_denials_not_allowed_json,
    test_strict_rules_warn_counts_warnings,
    test_certificate_rotation_under_load,
    test_sigterm_with_request_in_flight,
    test_connection_cap,
    test_slow_headers_cut_at_header_timeout,
]


def run(args):
    return harness.run_tests(TESTS, Env(args))


if __name__ == "__main__":
    harness.main(run)
