"""Shared pieces of the end-to-end tests: the real binary, real certificates, real TLS.

    def test_allowed(server):
        with harness.Client(server.port, server.ca) as client:   # ONE keep-alive HTTPS connection
            answer = client.post("/validate-propagationpolicy", body)
            harness.check(answer.status == 200, "HTTP %d", answer.status)

    def run(args):                                    # args.binary, args.source
        certs = harness.make_certs(args.source)       # temp dir: ca.crt, ca.key, tls.crt, tls.key
        with harness.Server(args.binary, certs) as server:
            return harness.run_tests([test_allowed], server)

    if __name__ == "__main__":
        harness.main(run)                             # parses --binary/--source, exits 0 or 1

`Server` starts `<binary> serve` on a free loopback port, waits for its "serving" line and on exit
sends SIGTERM and checks that it stops with exit status 0. `Client` posts the way the Kubernetes API
server does (`POST <path>?timeout=3s`, JSON, gzip accepted, keep-alive) and counts its connects.
`RawConn` is a raw TLS socket for what http.client would not send (garbage, pipelining, HEAD).
`run_tests` prints `PASS name` / `FAIL name: reason` and returns the exit status.

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import atexit
import email.parser
import gzip
import http.client
import json
import mmap
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback

__all__ = ["parse_args", "temp_dir", "make_certs", "free_port", "port_is_listening", "Server", "Client",
           "Answer", "client_context", "tls_socket", "RawConn", "raw_tls", "wait_closed",
           "run_tests", "check", "main", "load_fixture_body", "kind_table", "route_table",
           "fixture_path", "PP_PATH", "CPP_PATH",
           "SERVER_START_TIMEOUT", "SERVER_STOP_TIMEOUT", "parse_metrics", "scrape_metrics",
           "metric_sum"]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402

SERVER_START_TIMEOUT = 10.0   # seconds until the "serving" line
SERVER_STOP_TIMEOUT = 15.0    # seconds from SIGTERM to exit
CLIENT_TIMEOUT = 10.0         # seconds per socket operation

PP_PATH = "/validate-propagationpolicy"
CPP_PATH = "/validate-clusterpropagationpolicy"


# --- arguments ------------------------------------------------------------------------------------

def parse_args(argv=None, description=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--binary", required=True, help="path to karmada-policy-webhook")
    parser.add_argument("--source", required=True, help="repository root (holds certs/ and test/)")
    args = parser.parse_args(argv)
    args.binary = os.path.abspath(args.binary)
    args.source = os.path.abspath(args.source)
    if not os.access(args.binary, os.X_OK):
        parser.error("--binary %s is not an executable file" % args.binary)
    if not os.path.isfile(os.path.join(args.source, "certs", "make-certs.sh")):
        parser.error("--source %s has no certs/make-certs.sh" % args.source)
    return args


# --- temporary files and certificates ------------------------------------------------------------

_tmp_root = None
_cert_dirs = {}


def temp_dir(name: str) -> str:
    """A fresh directory under this process's temporary root (removed at exit)."""
    global _tmp_root
    if _tmp_root is None:
        _tmp_root = tempfile.mkdtemp(prefix="kpw-e2e-")
        atexit.register(shutil.rmtree, _tmp_root, True)
    path = tempfile.mkdtemp(prefix=name + "-", dir=_tmp_root)
    return path


def make_certs(source: str, rsa: bool = False) -> str:
    """A directory made by certs/make-certs.sh (ECDSA, or RSA with rsa=True); one per process."""
    key = "rsa" if rsa else "ec"
    if key not in _cert_dirs:
        path = temp_dir("certs-" + key)
        cmd = [os.path.join(source, "certs", "make-certs.sh")] + (["--rsa"] if rsa else []) + \
              ["--force", path]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        if proc.returncode != 0:
            raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), proc.returncode,
                                                       proc.stdout.decode("utf-8", "replace")))
        _cert_dirs[key] = path
    return _cert_dirs[key]


# --- ports -----------------------------------------------------------------------------------------

def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_is_listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


def relay_connection(client: socket.socket, target_port: int):
    """Connects to 127.0.0.1:target_port and copies bytes both ways between it and `client` (a
    thread each, TCP_NODELAY on both: no delayed-ACK stall) until either end closes, then closes
    both. Returns the new socket, or None (client closed) when the target refuses. The relays of
    the tests (a cut API server link, a Service in front of replicas) are built on it."""
    try:
        upstream = socket.create_connection(("127.0.0.1", target_port), timeout=5)
        upstream.settimeout(None)
    except OSError:
        client.close()
        return None
    for sock in (client, upstream):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for a, b in ((client, upstream), (upstream, client)):
        threading.Thread(target=_pump, args=(a, b), daemon=True).start()
    return upstream


def _pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for sock in (src, dst):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


def sanitized(binary: str) -> bool:
    """True for a binary built under AddressSanitizer (make test-asan): its allocator keeps freed
    memory in quarantine on purpose, so RSS says nothing about leaks there (LeakSanitizer does), and
    it runs several times slower. GCC links the runtime as libasan.so, clang into the binary: both
    leave the name of its entry point, __asan_init, in the file."""
    with open(binary, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return m.find(b"__asan_init") >= 0


# --- the server -------------------------------------------------------------------------------------

class Server:
    """`<binary> serve` on 127.0.0.1:<free port> as a context manager.

    Entering waits (SERVER_START_TIMEOUT) for the "serving https://..." line on stderr, failing with
    the captured stderr. Leaving sends SIGTERM and asserts exit status 0 within SERVER_STOP_TIMEOUT
    and the "stopped" line."""

    def __init__(self, binary: str, cert_dir: str, *extra_flags: str, threads: int | None = 2,
                 shutdown_delay: str | None = "0s", port: int | None = None):
        self.binary = binary
        self.cert_dir = cert_dir
        self.ca = os.path.join(cert_dir, "ca.crt")
        self.extra_flags = list(extra_flags)
        if threads is not None:
            self.extra_flags += ["--threads", str(threads)]
        # Tests stop servers often: no kubelet-style delay unless a test asks for one.
        if shutdown_delay is not None and not any(f.startswith("--shutdown-delay") for f in extra_flags):
            self.extra_flags += ["--shutdown-delay", shutdown_delay]
        self.fixed_port = port    # a restart keeps the address a webhook configuration names
        self.port = None
        self.probe_port = None    # plain HTTP: /healthz, /readyz
        self.metrics_port = None  # plain HTTP: /metrics
        self.proc = None
        self.returncode = None
        self._lines = []
        self._lock = threading.Lock()
        self._serving = threading.Event()
        self._reader = None

    # stderr, collected by a thread so the pipe never fills up
    def _read_stderr(self):
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._lock:
                self._lines.append(line)
            if "serving https://" in line:
                self._serving.set()

    def stderr(self) -> str:
        with self._lock:
            return "\n".join(self._lines)

    def command(self) -> list:
        cmd = [self.binary, "serve", "--bind-address", "127.0.0.1", "--secure-port", str(self.port),
               "--cert-dir", self.cert_dir]
        if not any(f.startswith("--health-probe-bind-address") for f in self.extra_flags):
            cmd += ["--health-probe-bind-address", "127.0.0.1:%d" % self.probe_port]
        if not any(f.startswith("--metrics-bind-address") for f in self.extra_flags):
            cmd += ["--metrics-bind-address", "127.0.0.1:%d" % self.metrics_port]
        return cmd + self.extra_flags

    def start(self):
        for attempt in range(3):
            self.port, self.probe_port, self.metrics_port = free_port(), free_port(), free_port()
            if self.fixed_port is not None:
                self.port = self.fixed_port
            self._lines, self._serving = [], threading.Event()
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self._reader = threading.Thread(target=self._read_stderr, daemon=True)
            self._reader.start()
            deadline = time.monotonic() + SERVER_START_TIMEOUT
            while time.monotonic() < deadline:
                if self._serving.wait(0.05):
                    return self
                if self.proc.poll() is not None:
                    break
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
                self._reader.join(5)
                raise AssertionError("server did not print its serving line within %.0f s; "
                                     "command: %s; stderr:\n%s"
                                     % (SERVER_START_TIMEOUT, " ".join(self.command()), self.stderr()))
            self._reader.join(5)
            # Someone else took the port between free_port() and bind: try another one.
            if "cannot listen" in self.stderr() and attempt < 2:
                continue
            raise AssertionError("server exited with status %s before serving; command: %s; "
                                 "stderr:\n%s" % (self.proc.returncode, " ".join(self.command()),
                                                  self.stderr()))
        raise AssertionError("unreachable")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = SERVER_STOP_TIMEOUT) -> float:
        """SIGTERM, then assert exit status 0 and the stop lines; returns the seconds it took."""
        if self.proc.poll() is not None:
            self._reader.join(5)
            raise AssertionError("server had already exited with status %s; stderr:\n%s"
                                 % (self.proc.returncode, self.stderr()))
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.returncode = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self._reader.join(5)
            raise AssertionError("server did not exit within %.0f s of SIGTERM; stderr:\n%s"
                                 % (timeout, self.stderr()))
        took = time.monotonic() - t0
        self._reader.join(5)
        if self.returncode != 0:
            raise AssertionError("server exited with status %s after SIGTERM (expected 0); "
                                 "stderr:\n%s" % (self.returncode, self.stderr()))
        if "stopped" not in self.stderr():
            raise AssertionError("server exited 0 without its 'stopped' line; stderr:\n%s"
                                 % self.stderr())
        return took

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            # Don't hide the original failure: just make sure the process goes away.
            if self.alive():
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(SERVER_STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            return False
        self.stop()
        return False


# --- the client --------------------------------------------------------------------------------------

TLS_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


def client_context(ca: str, min_version: str | None = None, max_version: str | None = None,
                   alpn: list | None = None) -> ssl.SSLContext:
    """A client context trusting only `ca` (a file), with hostname verification on."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cafile=ca)
    if min_version is not None:
        ctx.minimum_version = TLS_VERSIONS[min_version]
    if max_version is not None:
        ctx.maximum_version = TLS_VERSIONS[max_version]
    if alpn is not None:
        ctx.set_alpn_protocols(alpn)
    return ctx


def _ca_file(ca_or_dir: str) -> str:
    return os.path.join(ca_or_dir, "ca.crt") if os.path.isdir(ca_or_dir) else ca_or_dir


class Answer:
    """One HTTP answer: status, reason, headers (http.client.HTTPMessage) and the body bytes."""

    def __init__(self, status, reason, headers, body):
        self.status, self.reason, self.headers, self.body = status, reason, headers, body

    def json(self):
        try:
            return json.loads(self.body.decode("utf-8"))
        except ValueError as e:
            raise AssertionError("answer body is not JSON (%s): %r" % (e, self.body[:300]))

    def response(self) -> dict:
        """`response` of the AdmissionReview answer."""
        doc = self.json()
        check(isinstance(doc, dict) and isinstance(doc.get("response"), dict),
              "answer has no response object: %r", self.body[:300])
        return doc["response"]

    def __repr__(self):
        return "Answer(%d %s, %r)" % (self.status, self.reason, self.body[:200])


class _CountingHTTPSConnection(http.client.HTTPSConnection):
    """HTTPSConnection that counts its TCP+TLS connects (http.client reconnects silently)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.connects = 0

    def connect(self):
        super().connect()
        self.connects += 1


class Client:
    """ONE keep-alive HTTPS connection to the server, used like the Kubernetes API server uses it.

    `connects` counts the TLS connections made so far: it stays 1 while the server keeps the
    connection alive."""

    def __init__(self, port: int, ca: str, host: str = "127.0.0.1", min_version: str | None = None,
                 max_version: str | None = None, alpn: list | None = None,
                 timeout: float = CLIENT_TIMEOUT):
        self.context = client_context(_ca_file(ca), min_version, max_version, alpn)
        self.conn = _CountingHTTPSConnection(host, port, context=self.context, timeout=timeout)

    @property
    def connects(self) -> int:
        return self.conn.connects

    @property
    def sock(self):
        return self.conn.sock

    def connect(self):
        """Opens the connection now (the TLS handshake happens here); returns the SSLSocket."""
        if self.conn.sock is None:
            self.conn.connect()
        return self.conn.sock

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> Answer:
        try:
            self.conn.request(method, path, body=body, headers=headers or {})
            resp = self.conn.getresponse()
            data = resp.read()
        except Exception:
            self.conn.close()  # the next request starts a fresh connection
            raise
        if resp.getheader("Content-Encoding", "").lower() == "gzip":
            data = gzip.decompress(data)
        return Answer(resp.status, resp.reason, resp.headers, data)

    def post(self, path: str, body: bytes, content_type: str | None = "application/json",
             query: str = "?timeout=3s", extra_headers: dict | None = None) -> Answer:
        """POST like kube-apiserver: `<path>?timeout=3s`, JSON, gzip accepted, keep-alive."""
        headers = {"Accept": "application/json, */*", "Accept-Encoding": "gzip",
                   "User-Agent": "kube-apiserver-admission", "Connection": "keep-alive"}
        if content_type is not None:
            headers["Content-Type"] = content_type
        headers.update(extra_headers or {})
        return self.request("POST", path + query, body=body, headers=headers)

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# --- raw sockets -------------------------------------------------------------------------------------

def tls_socket(port: int, ca: str, server_hostname: str = "localhost",
               min_version: str | None = None, max_version: str | None = None,
               alpn: list | None = None, timeout: float = CLIENT_TIMEOUT) -> ssl.SSLSocket:
    """A TLS socket to 127.0.0.1:port (handshake done), verifying `server_hostname`."""
    ctx = client_context(_ca_file(ca), min_version, max_version, alpn)
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        return ctx.wrap_socket(raw, server_hostname=server_hostname)
    except BaseException:
        raw.close()
        raise


def raw_tls(port: int, ca: str, **kwargs) -> "RawConn":
    """tls_socket() wrapped in a RawConn."""
    return RawConn(tls_socket(port, ca, **kwargs))


class RawConn:
    """A raw (TLS) socket with its own read buffer, for requests http.client would not send:
    pipelining, garbage, HEAD, oversized headers. Bytes the server sends past one response stay
    in the buffer for the next read_response() (http.client would silently drop them)."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def sendall(self, data: bytes):
        self.sock.sendall(data)

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the server closed the connection (%d bytes unread: %r)"
                                  % (len(self.buf), self.buf[:100]))
        self.buf += data

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _line(self, limit: int = 65536) -> bytes:
        while b"\r\n" not in self.buf:
            if len(self.buf) > limit:
                raise ValueError("no line end within %d bytes: %r" % (limit, self.buf[:100]))
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_response(self, method: str = "POST") -> Answer:
        """Reads exactly one HTTP/1.1 response (Content-Length, chunked or until close)."""
        status_line = self._line().decode("latin-1")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ValueError("not an HTTP status line: %r" % status_line[:100])
        status, reason = int(parts[1]), parts[2] if len(parts) > 2 else ""
        header_lines = []
        while True:
            line = self._line()
            if not line:
                break
            header_lines.append(line.decode("latin-1"))
        headers = email.parser.Parser(_class=http.client.HTTPMessage).parsestr(
            "\r\n".join(header_lines) + "\r\n\r\n")
        if method == "HEAD" or status in (204, 304) or status < 200:
            body = b""
        elif (headers.get("Transfer-Encoding") or "").lower() == "chunked":
            body = b""
            while True:
                size = int(self._line().split(b";")[0], 16)
                if size == 0:
                    while self._line():
                        pass
                    break
                body += self._take(size)
                self._line()
        elif headers.get("Content-Length") is not None:
            body = self._take(int(headers["Content-Length"]))
        else:
            body = self.buf
            self.buf = b""
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                body += data
        return Answer(status, reason, headers, body)

    def wait_closed(self, timeout: float = 5.0) -> str:
        """The server closes the connection with nothing more sent (see wait_closed)."""
        if self.buf:
            raise AssertionError("the server sent more after the response: %r" % self.buf[:200])
        return wait_closed(self.sock, timeout)

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def wait_closed(sock, timeout: float = 5.0) -> str:
    """Reads until the peer closes; returns how ("eof", "reset", ...). Raises AssertionError if the
    connection is still open after `timeout` seconds or the peer sends more data."""
    sock.settimeout(timeout)
    extra = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            break
        except ssl.SSLZeroReturnError:
            return "close_notify"
        except (ssl.SSLEOFError, ConnectionResetError, BrokenPipeError):
            return "reset"
        except (ssl.SSLError, OSError) as e:
            return "closed (%s)" % e.__class__.__name__
        if not data:
            return "eof"
        extra += data
    raise AssertionError("the server did not close the connection within %.0f s%s"
                         % (timeout, "; it sent %r" % extra[:200] if extra else ""))


# --- metrics ---------------------------------------------------------------------------------------

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text: str) -> dict:
    """{(name, ((label, value), ...) sorted): value} of a Prometheus text exposition."""
    out = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if line.startswith("#") or not m:
            continue
        labels = tuple(sorted(_LABEL.findall(m.group(2) or "")))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def scrape_metrics(port: int, path: str = "/metrics") -> dict:
    """parse_metrics of GET http://127.0.0.1:port/metrics (the server's --metrics-bind-address)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CLIENT_TIMEOUT)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read()
        check(resp.status == 200, "GET %s on port %d: HTTP %d", path, port, resp.status)
        return parse_metrics(body.decode("utf-8", "replace"))
    finally:
        conn.close()


def metric_sum(samples: dict, metric: str, /, **labels) -> float:
    """The sum of the samples of `metric` whose labels include `labels` (0 when none)."""
    want = set(labels.items())
    return sum(v for (n, l), v in samples.items() if n == metric and want <= set(l))


# --- the kind table --------------------------------------------------------------------------------

class KindRow:
    """One kind of `karmada-policy-webhook kinds`, with the paths of `routes` that serve it."""

    def __init__(self, row: dict, routes: list):
        self.group, self.versions, self.kind = row["group"], row["versions"], row["kind"]
        self.version = self.versions[0]
        self.resource, self.scope = row["resource"], row["scope"]
        serving = [r for r in routes
                   if {"group": self.group, "kind": self.kind} in r["kinds"]]
        validating = [r for r in serving if r["type"] == "validating"]
        mutating = [r for r in serving if r["type"] == "mutating"]
        self.validate_path = validating[0]["path"] if validating else ""
        self.mutate_path = mutating[0]["path"] if mutating else ""
        self.rules = validating[0]["rules"] if validating else []

    def paths(self) -> list:
        return [p for p in (self.validate_path, self.mutate_path) if p]


def _json_of(binary: str, command: str):
    proc = subprocess.run([binary, command], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(proc.returncode == 0, "`%s %s` exited %d: %s", binary, command, proc.returncode,
          proc.stderr.decode(errors="replace"))
    return json.loads(proc.stdout)


def route_table(binary: str) -> list:
    """The routes the binary serves (`routes`: path, type, kinds, operations, entry, rules), in
    the table's order."""
    rows = _json_of(binary, "routes")
    check(rows, "`routes` printed no route")
    return rows


def kind_table(binary: str) -> list:
    """The kinds the binary serves, as KindRow, in the table's order: tests read the kinds from
    the binary instead of listing them."""
    routes = route_table(binary)
    rows = [KindRow(r, routes) for r in _json_of(binary, "kinds")]
    check(rows, "`kinds` printed no kind")
    return rows


# --- fixtures ------------------------------------------------------------------------------------------

def fixture_path(source: str, webhook: str, name: str) -> str:
    return os.path.join(source, "test", "fixtures", webhook.lstrip("/"), name)


def load_fixture_body(source: str, webhook: str, name: str) -> bytes:
    """The request body of one recorded fixture, e.g. ("/validate-propagationpolicy", "C01-...")."""
    return fixture_check.request_body(fixture_check.load_fixture(fixture_path(source, webhook, name)))


# --- the test runner --------------------------------------------------------------------------------

def scaled_bound(idle: float, baseline: float, ratio: float) -> float:
    """A time bound that a busy machine does not break: `idle` seconds (the bound on an idle
    machine), or `ratio` times `baseline` (what the same requests took in the same run with nothing
    else asked of the server) when the machine is slow enough to make that larger. A defect (a
    review queued behind a hostile one, a super-linear rule) costs many times the baseline; a
    machine running other work slows both alike."""
    return max(idle, ratio * baseline)


def check(condition, message: str, *args):
    """assert that survives `python3 -O`."""
    if not condition:
        raise AssertionError(message % args if args else message)


def run_tests(tests, *args, after_each=None) -> int:
    """Calls each test function with *args; prints `PASS name` or `FAIL name: reason`.

    `after_each(*args)` (if given) runs after every test; when it fails the test fails with its
    reason. Returns the exit status: 0 if everything passed, 1 otherwise."""
    failed = []
    t_all = time.monotonic()
    for fn in tests:
        name = fn.__name__[5:] if fn.__name__.startswith("test_") else fn.__name__
        t0 = time.monotonic()
        reason = None
        try:
            fn(*args)
        except AssertionError as e:
            reason = str(e) or "assertion failed"
        except Exception as e:  # noqa: BLE001 - a crash of the test is a failure too
            reason = "%s: %s\n%s" % (e.__class__.__name__, e, traceback.format_exc())
        if after_each is not None:
            try:
                after_each(*args)
            except Exception as e:  # noqa: BLE001
                reason = (reason + "; " if reason else "") + "afterwards: %s" % e
        took = time.monotonic() - t0
        if reason is None:
            print("PASS %s (%.2f s)" % (name, took), flush=True)
        else:
            failed.append(name)
            print("FAIL %s: %s" % (name, reason), flush=True)
    print("%d passed, %d failed in %.1f s%s" % (len(tests) - len(failed), len(failed),
                                                time.monotonic() - t_all,
                                                (": " + ", ".join(failed)) if failed else ""),
          flush=True)
    return 1 if failed else 0


def main(body) -> None:
    """Runs `body(args)` (which returns an exit status) and exits with it; an exception outside
    the tests (server start/stop, certificates) is reported as a failure."""
    args = parse_args(description=sys.modules["__main__"].__doc__)
    try:
        status = body(args)
    except AssertionError as e:
        print("FAIL %s" % e, flush=True)
        status = 1
    except Exception as e:  # noqa: BLE001
        print("FAIL %s: %s\n%s" % (e.__class__.__name__, e, traceback.format_exc()), flush=True)
        status = 1
    sys.exit(status)
