#!/usr/bin/env python3
"""End to end: starting and stopping the binary, and the offline `review` subcommand.

A startup problem (missing or mismatched certificate, bad flag value, unknown flag, port in use, a
feature gate that is unknown or not offered) is one line on stderr and exit status 2, and nothing
listens. `--help` exits 0. `review --path P FILE`
prints byte for byte what the server answers over HTTPS. SIGTERM/SIGINT stop the server with exit
status 0 within a few seconds, also with idle keep-alive connections open, and a request in flight
is finished first.

    test_startup.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
from harness import PP_PATH, check  # noqa: E402

RB_PATH = "/validate-resourcebinding"
STARTUP_FAILURE_TIMEOUT = 10  # seconds for a failing start to exit
PROMPT_STOP_SECONDS = 3.0     # "within a few seconds"


class Env:
    def __init__(self, binary, source):
        self.binary = binary
        self.source = source
        self.certs = harness.make_certs(source)
        self.rsa_certs = harness.make_certs(source, rsa=True)
        self.ca = os.path.join(self.certs, "ca.crt")


def serve_command(env, port, **flags):
    """`serve` on 127.0.0.1:port with env.certs; flags override (--secure-port -> secure_port=...);
    a value of None drops the flag."""
    values = {"bind_address": "127.0.0.1", "secure_port": str(port), "cert_dir": env.certs}
    values.update(flags)
    cmd = [env.binary, "serve"]
    for name, value in values.items():
        if value is None:
            continue
        cmd += ["--" + name.replace("_", "-"), value]
    return cmd


def expect_startup_failure(cmd, port, *contains):
    """Runs cmd: exit status 2, exactly one stderr line (holding `contains`), nothing listening."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    listening_while_running = False
    deadline = time.monotonic() + STARTUP_FAILURE_TIMEOUT
    while proc.poll() is None and time.monotonic() < deadline:
        if port is not None and harness.port_is_listening(port):
            listening_while_running = True
        time.sleep(0.01)
    if proc.poll() is None:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError("%s did not exit within %d s (stderr: %r)"
                             % (" ".join(cmd[1:]), STARTUP_FAILURE_TIMEOUT, err))
    out, err = proc.communicate()
    text = err.decode("utf-8", "replace")
    what = " ".join(cmd[1:])
    check(proc.returncode == 2, "%s: exit status %d, expected 2 (stderr: %r)", what,
          proc.returncode, text)
    lines = text.splitlines()
    check(len(lines) == 1 and text.endswith("\n"), "%s: stderr should be one line, got %r", what,
          text)
    check(lines[0].startswith("karmada-policy-webhook: "), "%s: stderr %r lacks the program name",
          what, lines[0])
    check("serving https://" not in text, "%s: printed a serving line", what)
    check(out == b"", "%s: wrote to stdout: %r", what, out[:200])
    for c in contains:
        check(c in lines[0], "%s: stderr %r does not mention %r", what, lines[0], c)
    if port is not None:
        check(not listening_while_running, "%s: something listened on port %d", what, port)
        check(not harness.port_is_listening(port), "%s: port %d is listening afterwards", what, port)
    return lines[0]


# --- startup failures ---------------------------------------------------------------------------------

def test_missing_certificate(env):
    empty = harness.temp_dir("empty")
    port = harness.free_port()
    expect_startup_failure(serve_command(env, port, cert_dir=empty), port, "tls.crt")


def test_missing_key(env):
    only_cert = harness.temp_dir("only-cert")
    shutil.copy(os.path.join(env.certs, "tls.crt"), only_cert)
    port = harness.free_port()
    expect_startup_failure(serve_command(env, port, cert_dir=only_cert), port, "tls.key")


def test_garbage_certificate(env):
    bad = harness.temp_dir("garbage-cert")
    with open(os.path.join(bad, "tls.crt"), "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    shutil.copy(os.path.join(env.certs, "tls.key"), bad)
    port = harness.free_port()
    expect_startup_failure(serve_command(env, port, cert_dir=bad), port)


def test_key_not_matching_certificate(env):
    port = harness.free_port()
    # tls.key of the RSA pair next to the ECDSA certificate.
    mixed = harness.temp_dir("mixed-rsa")
    shutil.copy(os.path.join(env.certs, "tls.crt"), mixed)
    shutil.copy(os.path.join(env.rsa_certs, "tls.key"), mixed)
    expect_startup_failure(serve_command(env, port, cert_dir=mixed), port)
    # Another ECDSA P-256 key (the CA's) next to the ECDSA certificate: same type, wrong key.
    other = harness.temp_dir("mixed-ec")
    shutil.copy(os.path.join(env.certs, "tls.crt"), other)
    shutil.copy(os.path.join(env.certs, "ca.key"), os.path.join(other, "tls.key"))
    expect_startup_failure(serve_command(env, port, cert_dir=other), port, "key")


def test_tls_min_version_11(env):
    port = harness.free_port()
    for value in ("TLS1.3", "", "1.4"):
        expect_startup_failure(serve_command(env, port, tls_min_version=value), port,
                               "--tls-min-version")
    # Upstream's 1.0 and 1.1 (OpenSSL refuses them at its default security level): served as
    # 1.2, said once in the start-up log.
    for value in ("1.1", "1.0"):
        with harness.Server(env.binary, env.certs, "--tls-min-version", value) as server:
            with harness.Client(server.port, server.ca, max_version="1.2") as client:
                answer = client.request("GET", "/healthz")
            check(answer.status == 200, "TLS 1.2 under --tls-min-version %s: %s", value, answer)
            check("--tls-min-version=%s (served as 1.2)" % value in server.stderr(),
                  "no start-up line says --tls-min-version %s is served as 1.2: %s", value,
                  server.stderr())


def test_secure_port_not_a_number(env):
    expect_startup_failure(serve_command(env, 0, secure_port="abc"), None, "--secure-port")
    for value in ("0", "65536", "99999999999", "8443x"):
        expect_startup_failure(serve_command(env, 0, secure_port=value), None, "--secure-port")


def test_unknown_flag(env):
    port = harness.free_port()
    expect_startup_failure(serve_command(env, port) + ["--bogus"], port, "--bogus")
    expect_startup_failure(serve_command(env, port) + ["--bogus=1"], port)
    expect_startup_failure(serve_command(env, port) + ["stray-argument"], port)


def test_other_bad_values(env):
    port = harness.free_port()
    expect_startup_failure(serve_command(env, port, max_request_bytes="10"), port,
                           "--max-request-bytes")
    expect_startup_failure(serve_command(env, port, threads="0"), port, "--threads")
    expect_startup_failure(serve_command(env, port, bind_address="not-an-ip"), port,
                           "--bind-address")
    expect_startup_failure(serve_command(env, port, default_purge_mode="Bogus"), port,
                           "--default-purge-mode")
    expect_startup_failure(serve_command(env, port, default_toleration_seconds="-1"), port,
                           "--default-toleration-seconds")


def test_feature_gates(env):
    """--feature-gates as upstream's: an unknown gate or a bad value stops `serve`, `review` and
    `check`; FederatedQuotaEnforcement (RB-2), also when AllAlpha=true turns it on, needs the API
    server: `serve` without one refuses to start saying so; `review` and `check` judge every other
    rule and say on stderr that RB-2 is not judged offline."""
    port = harness.free_port()
    expect_startup_failure(serve_command(env, port, feature_gates="Nope=true"), port,
                           "--feature-gates", "unrecognized feature gate: Nope")
    expect_startup_failure(serve_command(env, port, feature_gates="MultiplePodTemplatesScheduling"),
                           port, "missing bool value for MultiplePodTemplatesScheduling")
    expect_startup_failure(
        serve_command(env, port, feature_gates="MultiplePodTemplatesScheduling=maybe"), port,
        "invalid value of MultiplePodTemplatesScheduling=maybe")
    for gates in ("FederatedQuotaEnforcement=true", "MultiplePodTemplatesScheduling=true,"
                  "FederatedQuotaEnforcement=1", "AllAlpha=true"):
        expect_startup_failure(serve_command(env, port, feature_gates=gates), port,
                               "FederatedQuotaEnforcement (RB-2) is on, which needs the API server",
                               "--kubeconfig")
    body = harness.load_fixture_body(env.source, RB_PATH, "RB-3a-gate-off-not-judged.json")
    proc = subprocess.run([env.binary, "review", "--path", RB_PATH, "--feature-gates",
                           "FederatedQuotaEnforcement=true", "-"], input=body,
                          capture_output=True, timeout=30)
    check(proc.returncode == 0, "review with RB-2's gate: exit %d (%r)", proc.returncode,
          proc.stderr)
    check(b"RB-2 is not judged offline" in proc.stderr, "review does not say RB-2 is not judged: %r",
          proc.stderr)
    check(json.loads(proc.stdout)["response"]["allowed"] is True, "review answered %r",
          proc.stdout[:300])
    for cmd in ([env.binary, "review", "--path", RB_PATH, "--feature-gates", "Nope=true", "-"],
                [env.binary, "check", "--feature-gates", "Nope=true", harness.temp_dir("check")]):
        expect_startup_failure(cmd, None, "--feature-gates")


def test_feature_gates_reach_the_handler(env):
    """MultiplePodTemplatesScheduling=true turns RB-3 on over HTTPS, as `review` does; repeated
    --feature-gates add up (AllAlpha with FederatedQuotaEnforcement=false starts)."""
    body = harness.load_fixture_body(env.source, RB_PATH, "RB-3a-gate-off-not-judged.json")
    for flags, allowed in (((), True),
                           (("--feature-gates", "MultiplePodTemplatesScheduling=true"), False),
                           (("--feature-gates", "AllAlpha=true", "--feature-gates",
                             "FederatedQuotaEnforcement=false"), False)):
        with harness.Server(env.binary, env.certs, *flags) as server, \
                harness.Client(server.port, server.ca) as client:
            answer = client.post(RB_PATH, body)
            check(answer.status == 200, "%s: HTTP %d", flags, answer.status)
            check(answer.response().get("allowed") is allowed, "%s: RB-3 answered %r", flags,
                  answer.body[:300])


def test_port_in_use(env):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        expect_startup_failure(serve_command(env, port), None, str(port))


def free_port_v6() -> int:
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
        s.bind(("::1", 0))
        return s.getsockname()[1]


def test_ipv6_pod_address_without_brackets(env):
    """The installers' `--metrics-bind-address=$(POD_IP):8080` with an IPv6 pod address has no
    brackets (Go's net.Listen refuses it, docs/operations.md "Switching by image"): the host is
    what comes before the last colon, as meant. The probes and metrics answer on ::1."""
    if not socket.has_ipv6:
        print("  no IPv6 here: skipped", flush=True)
        return
    port, health, metrics = free_port_v6(), free_port_v6(), free_port_v6()
    cmd = [env.binary, "--bind-address=::1", "--secure-port=%d" % port, "--cert-dir=" + env.certs,
           "--metrics-bind-address=::1:%d" % metrics,
           "--health-probe-bind-address=::1:%d" % health, "--shutdown-delay=0s"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        line = proc.stderr.readline().decode()
        check("serving https://::1:%d" % port in line and "probes=::1:%d" % health in line
              and "metrics=::1:%d" % metrics in line, "the serving line: %r", line)
        for p, path in ((health, "/readyz"), (metrics, "/metrics")):
            with socket.create_connection(("::1", p), timeout=5) as s:
                s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                          % path.encode())
                head = s.recv(64)
            check(head.startswith(b"HTTP/1.1 200"), "GET %s on [::1]:%d: %r", path, p, head)
    finally:
        proc.send_signal(signal.SIGTERM)
        check(proc.wait(10) == 0, "exit status %s after SIGTERM", proc.returncode)


def test_help(env):
    for cmd in ([env.binary, "--help"], [env.binary, "-h"], [env.binary, "serve", "--help"],
                [env.binary, "review", "--help"]):
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
        what = " ".join(cmd[1:])
        check(proc.returncode == 0, "%s: exit status %d, expected 0", what, proc.returncode)
        check(proc.stdout.strip(), "%s printed nothing on stdout", what)
    text = subprocess.run([env.binary, "--help"], stdout=subprocess.PIPE, timeout=10).stdout.decode()
    for flag in ("--bind-address", "--secure-port", "--cert-dir", "--tls-cert-file-name",
                 "--tls-private-key-file-name", "--tls-min-version", "--max-request-bytes",
                 "--threads", "serve", "review"):
        check(flag in text, "--help does not mention %s", flag)


def test_max_request_bytes_flag(env):
    """--max-request-bytes 2048: 2048 bytes are served, 2049 get HTTP 413 and a close (also when
    the body comes chunked, so its size is only known while reading)."""
    body = harness.load_fixture_body(env.source, PP_PATH, "C01-base-allowed.json")
    check(len(body) < 2048, "C01 is %d bytes, the test needs it under 2048", len(body))
    with harness.Server(env.binary, env.certs, "--max-request-bytes", "2048", threads=1) as server:
        with harness.Client(server.port, server.ca) as client:
            answer = client.post(PP_PATH, body + b" " * (2048 - len(body)))
            check(answer.status == 200 and answer.response().get("allowed") is True,
                  "2048 bytes: %r", answer)
        for framing in ("length", "chunked"):
            with harness.raw_tls(server.port, server.ca) as conn:
                big = body + b" " * (2049 - len(body))
                head = "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" \
                       % PP_PATH
                if framing == "length":
                    conn.sendall(("%sContent-Length: %d\r\n\r\n" % (head, len(big))).encode())
                else:
                    conn.sendall(("%sTransfer-Encoding: chunked\r\n\r\n" % head).encode() +
                                 b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big))
                answer = conn.read_response()
                check(answer.status == 413, "2049 bytes (%s): HTTP %d, expected 413", framing,
                      answer.status)
                check("2048" in answer.response().get("status", {}).get("message", ""),
                      "the 413 message does not name the limit: %r", answer.body)
                conn.wait_closed()


# --- review subcommand = server, byte for byte -------------------------------------------------------

def help_flags(env) -> dict:
    """{--flag: its default as `serve --help` prints it, or None}."""
    text = subprocess.run([env.binary, "serve", "--help"], stdout=subprocess.PIPE,
                          timeout=10).stdout.decode()
    flags = {}
    for line in text.splitlines():
        m = re.match(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)(.*)$", line)
        if m and m.group(1) != "--help":
            default = re.search(r"=(\S+)", m.group(2))   # `TEXT=0.0.0.0`, `INT:… >= 1024=7340032`
            flags[m.group(1)] = default.group(1) if default else None
    return flags


def test_flags_table_is_the_binarys(env):
    """docs/operations.md, "Flags": its tables name every flag `serve --help` lists and no other,
    and each default the first table gives in backticks is the one --help prints."""
    with open(os.path.join(env.source, "docs", "operations.md"), encoding="utf-8") as f:
        doc = f.read()
    section = doc.split("\n## Flags\n", 1)[1].split("\n## ", 1)[0]
    documented, defaults = set(), {}
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| flag"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        names = re.findall(r"`(--[a-z][a-z0-9-]*)`", cells[0])
        documented.update(names)
        values = re.findall(r"`([^`]*)`", cells[1]) if len(cells) > 2 else []
        if len(names) == len(values):
            defaults.update(zip(names, values))
    flags = help_flags(env)
    check(len(flags) > 40, "read %d flags from --help", len(flags))
    missing, unknown = sorted(set(flags) - documented), sorted(documented - set(flags))
    check(not missing and not unknown, "docs/operations.md \"Flags\": not documented %s; not "
          "flags of `serve` %s", missing, unknown)
    wrong = ["%s: %s documented, %s in --help" % (n, v, flags[n]) for n, v in defaults.items()
             if flags.get(n) is not None and flags[n] != v]
    check(not wrong, "defaults: %s", wrong)


def test_review_matches_https(env):
    with harness.Server(env.binary, env.certs) as server, \
            harness.Client(server.port, server.ca) as client:
        for name in ("C01-base-allowed.json", "C08-selector-namespace-mismatch.json"):
            path = harness.fixture_path(env.source, PP_PATH, name)
            fixture = fixture_check.load_fixture(path)
            # The review on its own in a file, as an operator would pass it.
            review_file = os.path.join(harness.temp_dir("review"), name)
            body = fixture_check.request_body(fixture)
            with open(review_file, "wb") as f:
                f.write(body)
            offline = subprocess.run([env.binary, "review", "--path", PP_PATH, review_file],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
            check(offline.returncode == 0, "review %s: exit status %d (stderr %r)", name,
                  offline.returncode, offline.stderr)
            answer = client.post(PP_PATH, body)
            check(answer.status == 200, "%s over HTTPS: HTTP %d", name, answer.status)
            check(offline.stdout == answer.body, "%s: review printed\n  %r\nbut the server sent\n  %r",
                  name, offline.stdout, answer.body)
            problems = fixture_check.check_answer(fixture, answer.status, answer.body)
            check(not problems, "%s: %s", name, "; ".join(problems))


# --- stopping ----------------------------------------------------------------------------------------

def test_sigterm_while_idle(env):
    server = harness.Server(env.binary, env.certs).start()
    took = server.stop()
    check(took < PROMPT_STOP_SECONDS, "stopping took %.1f s", took)
    check("stopping" in server.stderr(), "no 'stopping' line: %r", server.stderr())


def test_sigint_while_idle(env):
    server = harness.Server(env.binary, env.certs).start()
    t0 = time.monotonic()
    server.proc.send_signal(signal.SIGINT)
    try:
        rc = server.proc.wait(harness.SERVER_STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()
        raise AssertionError("no exit within %.0f s of SIGINT" % harness.SERVER_STOP_TIMEOUT)
    check(rc == 0, "exit status %d after SIGINT", rc)
    check(time.monotonic() - t0 < PROMPT_STOP_SECONDS, "stopping took %.1f s",
          time.monotonic() - t0)


def test_sigterm_with_idle_keep_alive_connections(env):
    """Idle keep-alive connections (and a silent TLS client) do not hold up the stop."""
    server = harness.Server(env.binary, env.certs).start()
    body = harness.load_fixture_body(env.source, PP_PATH, "C01-base-allowed.json")
    clients = [harness.Client(server.port, server.ca) for _ in range(3)]
    silent = harness.tls_socket(server.port, server.ca)
    try:
        for client in clients:
            check(client.post(PP_PATH, body).status == 200, "review failed before the stop")
        took = server.stop()
        check(took < PROMPT_STOP_SECONDS, "stopping with idle connections took %.1f s", took)
    finally:
        for client in clients:
            client.close()
        silent.close()


def test_sigterm_finishes_request_in_flight(env):
    """A request whose header has arrived is answered (with Connection: close) before the exit."""
    server = harness.Server(env.binary, env.certs).start()
    body = harness.load_fixture_body(env.source, PP_PATH, "C01-base-allowed.json")
    conn = harness.raw_tls(server.port, server.ca)
    try:
        conn.sendall(("POST %s?timeout=3s HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                      "application/json\r\nContent-Length: %d\r\n\r\n" % (PP_PATH, len(body))).encode()
                     + body[:100])
        time.sleep(0.2)  # let the server read the header
        t0 = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        check(server.alive(), "the server exited with a request in flight (status %s)",
              server.proc.returncode)
        conn.sendall(body[100:])
        answer = conn.read_response()
        check(answer.status == 200, "HTTP %d for the request in flight", answer.status)
        check(answer.response().get("allowed") is True, "the request in flight was not allowed: %r",
              answer.body[:200])
        check((answer.headers.get("Connection") or "").lower() == "close",
              "no Connection: close while stopping")
        try:
            rc = server.proc.wait(harness.SERVER_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait()
            raise AssertionError("no exit within %.0f s of SIGTERM" % harness.SERVER_STOP_TIMEOUT)
        check(rc == 0, "exit status %d", rc)
        check(time.monotonic() - t0 < PROMPT_STOP_SECONDS + 0.5, "stopping took %.1f s",
              time.monotonic() - t0)
    finally:
        conn.close()
        if server.alive():
            server.proc.kill()
            server.proc.wait()


TESTS = [
    test_missing_certificate,
    test_missing_key,
    test_garbage_certificate,
    test_key_not_matching_certificate,
    test_tls_min_version_11,
    test_secure_port_not_a_number,
    test_unknown_flag,
    test_other_bad_values,
    test_feature_gates,
    test_feature_gates_reach_the_handler,
    test_port_in_use,
    test_ipv6_pod_address_without_brackets,
    test_help,
    test_flags_table_is_the_binarys,
    test_max_request_bytes_flag,
    test_review_matches_https,
    test_sigterm_while_idle,
    test_sigint_while_idle,
    test_sigterm_with_idle_keep_alive_connections,
    test_sigterm_finishes_request_in_flight,
]


def run(args):
    return harness.run_tests(TESTS, Env(args.binary, args.source))


if __name__ == "__main__":
    harness.main(run)
