"""A real Kubernetes API server for the end-to-end tests: etcd + kube-apiserver as envtest runs them.

    def test_created(api, webhook):
        out = api.kubectl("create", "-f", "-", "-o", "json", input=manifest)
        ...

    def run(args, api):                                 # api: a started ApiServer
        certs = harness.make_certs(args.source)
        with harness.Server(args.binary, certs) as webhook:
            api.register(webhook)                       # CRDs + the url overlay, pointed at it
            return harness.run_tests([test_created], api, webhook)

    if __name__ == "__main__":
        kube.main(run)

`main` finds the binaries (a folder named by $KUBEBUILDER_ASSETS holding kube-apiserver, etcd and
kubectl, else the xz files of ../shared/envtest unpacked once into <build>/envtest), starts etcd and
kube-apiserver on free loopback ports in a temporary folder, gives the body an `ApiServer` and stops
both by PID whatever happens: at exit, on SIGTERM/SIGINT, and (PR_SET_PDEATHSIG) when the test
process itself is killed. Where no binaries exist it prints one line saying how to get them and
exits 77, which ctest reports as skipped; with KPW_REQUIRE_ENVTEST=1 (CI) that is a failure.

`ApiServer.register(webhook)` installs Karmada's CRDs (../shared/envtest/crds, or $KPW_KARMADA_CRDS)
and applies the project's own manifests as a user does: a copy of manifests/, fill-ca-bundle.sh
with the webhook's CA, set-url-host.sh with its address, `kubectl kustomize overlays/url`, then
`kubectl apply -l karmada-policy-webhook.karmada.io/apply-to=karmada-apiserver` and `kubectl patch
crd` with the url overlay's CRD conversion patches (when the server has a conversion path); it
returns once the API server calls both configurations. `kubectl(...)` runs the envtest kubectl against it.

Python 3 standard library only.
"""

from __future__ import annotations

import atexit
import ctypes
import fcntl
import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402

SKIP = 77                       # ctest's SKIP_RETURN_CODE for these tests
BINARIES = ("kube-apiserver", "etcd", "kubectl")
TOKEN = "kpw-e2e-admin-token"
# A user with no role at all (403 on everything until a test binds one).
READER_USER = "kpw-e2e-reader"
READER_TOKEN = "kpw-e2e-reader-token"
APPLY_TO = "karmada-policy-webhook.karmada.io/apply-to=karmada-apiserver"
START_TIMEOUT = 60.0            # seconds until /readyz says ok (about 2 s on an idle machine)
STOP_TIMEOUT = 15.0
KUBECTL_TIMEOUT = 60.0
HOW_TO_GET = ("set KUBEBUILDER_ASSETS to a folder holding kube-apiserver, etcd and kubectl "
              "(controller-runtime's `setup-envtest use 1.36.x -p path`), or put the project "
              "beside ../shared/envtest")

__all__ = ["main", "ApiServer", "Binaries", "find_binaries", "shared_dir", "upstream_webhook",
           "KubectlError", "SKIP"]


# --- where things are --------------------------------------------------------------------------------

def shared_dir(source: str) -> str:
    """The shared reference folder: $KPW_SHARED_DIR, else ../shared beside the repository."""
    return os.path.abspath(os.environ.get("KPW_SHARED_DIR") or os.path.join(source, "..", "shared"))


def _unpack(xz_file: str, dest: str) -> None:
    """xz -dc xz_file > dest, atomically (another test may be unpacking the same file)."""
    tmp = dest + ".part.%d" % os.getpid()
    with open(tmp, "wb") as out:
        proc = subprocess.run(["xz", "-dc", xz_file], stdout=out, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise RuntimeError("xz -dc %s failed: %s" % (xz_file, proc.stderr.decode(errors="replace")))
    os.chmod(tmp, 0o755)
    os.replace(tmp, dest)


def _unpacked(xz_files: dict, folder: str) -> dict:
    """{name: path}, each xz file unpacked into folder once (a lock keeps concurrent tests apart;
    a file newer than its unpacked copy is unpacked again)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        out = {}
        for name, xz_file in xz_files.items():
            dest = os.path.join(folder, name)
            if not os.path.exists(dest) or os.path.getmtime(dest) < os.path.getmtime(xz_file):
                _unpack(xz_file, dest)
            out[name] = dest
        return out


class Binaries:
    def __init__(self, paths: dict, origin: str):
        self.kube_apiserver = paths["kube-apiserver"]
        self.etcd = paths["etcd"]
        self.kubectl = paths["kubectl"]
        self.origin = origin


def located(names, env_var: str, shared: str, folder: str):
    """({name: path}, where from, None) or (None, None, why not): the binaries `names` from the
    folder $env_var names, else the xz files of `shared` unpacked once into `folder`."""
    given = os.environ.get(env_var)
    if given:
        paths = {b: os.path.join(given, b) for b in names}
        missing = [p for p in paths.values() if not os.access(p, os.X_OK)]
        if missing:
            return None, None, "%s=%s lacks %s" % (env_var, given, ", ".join(missing))
        return paths, "%s=%s" % (env_var, given), None
    xz_files = {b: os.path.join(shared, b + ".xz") for b in names}
    missing = [p for p in xz_files.values() if not os.path.isfile(p)]
    if missing:
        return None, None, "no %s and no %s" % (env_var, ", ".join(missing))
    if shutil.which("xz") is None:
        return None, None, "xz is not installed (Debian: xz-utils) to unpack %s" % shared
    return _unpacked(xz_files, folder), "%s unpacked into %s" % (shared, folder), None


def find_binaries(source: str, build_dir: str):
    """(Binaries, None) or (None, why not)."""
    paths, origin, why = located(BINARIES, "KUBEBUILDER_ASSETS",
                                 os.path.join(shared_dir(source), "envtest"),
                                 os.path.join(build_dir, "envtest"))
    return (Binaries(paths, origin), None) if paths else (None, why)


def upstream_webhook(source: str, build_dir: str):
    """(path of upstream's karmada-webhook, None) or (None, why not): ../shared/upstream's binary,
    unpacked into <build>/envtest."""
    xz_file = os.path.join(shared_dir(source), "upstream", "karmada-webhook.xz")
    if not os.path.isfile(xz_file):
        return None, "no %s" % xz_file
    return _unpacked({"karmada-webhook": xz_file}, os.path.join(build_dir, "envtest"))[
        "karmada-webhook"], None


def karmada_crds(source: str) -> str:
    """Karmada's CRDs (bases/<group>/*.yaml): $KPW_KARMADA_CRDS, else ../shared/envtest/crds/bases."""
    return os.environ.get("KPW_KARMADA_CRDS") or os.path.join(shared_dir(source), "envtest", "crds",
                                                              "bases")


# --- processes that die with us ------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)
_children = []          # every Popen this module started, stopped at exit


def _die_with_parent():
    # Runs in the child between fork and exec: SIGKILL when the test process goes away, even by
    # SIGKILL (ctest's timeout), so no kube-apiserver outlives its test.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def spawn(cmd: list, log_path: str, env=None) -> subprocess.Popen:
    log = open(log_path, "ab")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=_die_with_parent, env=env)
    log.close()
    _children.append(proc)
    return proc


def stop_process(proc: subprocess.Popen, timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM, then SIGKILL after timeout; by PID, whatever state it is in."""
    if proc is None or proc.poll() is not None:
        return
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except ProcessLookupError:
        pass


def _stop_all():
    for proc in reversed(_children):
        stop_process(proc, 5)


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)   # atexit handlers (and the with-blocks) run


atexit.register(_stop_all)


def webhook_ready(port: int, ca: str, path: str = "/readyz/") -> bool:
    """GET https://127.0.0.1:port/readyz/ (a webhook's own port, as the kubelet probes it, or
    another server's `path`): 200."""
    ctx = ssl.create_default_context(cafile=ca)
    try:
        with urllib.request.urlopen("https://127.0.0.1:%d%s" % (port, path), context=ctx,
                                    timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


def tail(path: str, lines: int = 30) -> str:
    """The last lines of a log, without the API server's lines about webhook denials (every test
    makes many; they would bury what went wrong)."""
    try:
        with open(path, "rb") as f:
            kept = [l for l in f.read().splitlines() if b"rejected by webhook" not in l]
        return b"\n".join(kept[-lines:]).decode("utf-8", "replace")
    except OSError as e:
        return "(%s)" % e


# --- kubectl ---------------------------------------------------------------------------------------

class KubectlError(AssertionError):
    def __init__(self, args, proc):
        self.args_ = args
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        super().__init__("kubectl %s exited %d: %s" % (" ".join(args), proc.returncode,
                                                       proc.stderr.strip()[:2000]))


class ApiServer:
    """etcd + kube-apiserver on loopback, as envtest starts them.

    `start()` / `stop()` run both; `restart_apiserver()` stops and starts kube-apiserver alone (the
    same etcd, the same port). `kubeconfig`, `url`, `ca` (the API server's CA) for clients."""

    def __init__(self, binaries: Binaries, source: str, workdir: str, extra_flags=()):
        self.bins = binaries
        self.source = source
        self.dir = workdir
        self.extra_flags = list(extra_flags)
        self.etcd = None
        self.apiserver = None
        self.port = None
        self.etcd_port = None
        self.kubeconfig = os.path.join(workdir, "kubeconfig")
        self.cache_dir = os.path.join(workdir, "kubectl-cache")
        self.apiserver_log = os.path.join(workdir, "kube-apiserver.log")
        self.etcd_log = os.path.join(workdir, "etcd.log")
        self._certs = None
        self._registered = []   # (kind, name) of the webhook configurations applied
        self.manifests_copy = None  # the copy of manifests/ render_manifests set up last

    # -- lifecycle

    def start(self) -> "ApiServer":
        # The API server's own CA and serving pair (127.0.0.1, localhost), apart from any webhook's.
        self._certs = os.path.join(self.dir, "pki")
        subprocess.run([os.path.join(self.source, "certs", "make-certs.sh"), "--force", self._certs],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        sa_key = os.path.join(self.dir, "sa.key")
        # SEC1 ("EC PRIVATE KEY"): --service-account-key-file reads no PKCS#8 private key.
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout",
                        "-out", sa_key], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(self.dir, "tokens.csv"), "w") as f:
            f.write('%s,admin,admin-uid,"system:masters"\n' % TOKEN)
            f.write('%s,%s,reader-uid\n' % (READER_TOKEN, READER_USER))
        self._start_etcd()
        self.start_apiserver()
        return self

    def _start_etcd(self):
        for attempt in range(3):
            self.etcd_port, peer = harness.free_port(), harness.free_port()
            url = "http://127.0.0.1:%d" % self.etcd_port
            self.etcd = spawn([self.bins.etcd, "--data-dir", os.path.join(self.dir, "etcd"),
                               "--listen-client-urls", url, "--advertise-client-urls", url,
                               "--listen-peer-urls", "http://127.0.0.1:%d" % peer,
                               "--unsafe-no-fsync"], self.etcd_log)
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline and self.etcd.poll() is None:
                if harness.port_is_listening(self.etcd_port):
                    return
                time.sleep(0.05)
            stop_process(self.etcd)
            if attempt == 2:
                raise AssertionError("etcd did not start; log:\n" + tail(self.etcd_log))

    def apiserver_command(self) -> list:
        d = self.dir
        return [self.bins.kube_apiserver,
                "--etcd-servers", "http://127.0.0.1:%d" % self.etcd_port,
                "--bind-address", "127.0.0.1", "--secure-port", str(self.port),
                "--tls-cert-file", os.path.join(self._certs, "tls.crt"),
                "--tls-private-key-file", os.path.join(self._certs, "tls.key"),
                "--token-auth-file", os.path.join(d, "tokens.csv"),
                "--authorization-mode", "RBAC",
                "--service-cluster-ip-range", "10.0.0.0/24",
                "--service-account-issuer", "https://127.0.0.1",
                "--service-account-key-file", os.path.join(d, "sa.key"),
                "--service-account-signing-key-file", os.path.join(d, "sa.key"),
                "--disable-admission-plugins", "ServiceAccount",
                "--cert-dir", os.path.join(d, "apiserver-certs")] + self.extra_flags

    def start_apiserver(self):
        keep_port = self.port is not None
        for attempt in range(3):
            if not keep_port:
                self.port = harness.free_port()
            self.apiserver = spawn(self.apiserver_command(), self.apiserver_log)
            if self._wait_ready():
                self._write_kubeconfig()
                return
            stop_process(self.apiserver)
            if attempt == 2 or keep_port and "address already in use" not in tail(self.apiserver_log):
                raise AssertionError("kube-apiserver was not ready within %.0f s; log:\n%s"
                                     % (START_TIMEOUT, tail(self.apiserver_log)))
            time.sleep(0.5)

    def stop_apiserver(self):
        stop_process(self.apiserver)

    def restart_apiserver(self):
        self.stop_apiserver()
        self.start_apiserver()

    def stop(self):
        stop_process(self.apiserver)
        stop_process(self.etcd)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and self.apiserver.poll() is None:
            try:
                status, body = self.request("GET", "/readyz", timeout=2)
                if status == 200 and body.strip() == b"ok":
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    # -- clients

    @property
    def url(self) -> str:
        return "https://127.0.0.1:%d" % self.port

    @property
    def ca(self) -> str:
        return os.path.join(self._certs, "ca.crt")

    def _write_kubeconfig(self):
        config = {
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "envtest", "cluster": {"server": self.url,
                                                         "certificate-authority": self.ca}}],
            "users": [{"name": "admin", "user": {"token": TOKEN}}],
            "contexts": [{"name": "envtest", "context": {"cluster": "envtest", "user": "admin"}}],
            "current-context": "envtest",
        }
        with open(self.kubeconfig, "w") as f:
            json.dump(config, f)   # JSON is YAML

    def request(self, method: str, path: str, body=None, content_type="application/json",
                timeout: float = 30, headers=None):
        """(status, body bytes) of one HTTPS request to the API server as the admin."""
        ctx = ssl.create_default_context(cafile=self.ca)
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx, timeout=timeout)
        try:
            h = {"Authorization": "Bearer " + TOKEN, "Accept": "application/json"}
            if body is not None:
                h["Content-Type"] = content_type
            h.update(headers or {})
            conn.request(method, path, body=body, headers=h)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def metrics(self) -> dict:
        """harness.parse_metrics of the API server's own /metrics (apiserver_admission_webhook_*:
        what it sent to each webhook entry and how that ended)."""
        status, body = self.request("GET", "/metrics")
        if status != 200:
            raise AssertionError("GET /metrics of the API server: HTTP %d" % status)
        return harness.parse_metrics(body.decode("utf-8", "replace"))

    def kubectl_command(self, *args) -> list:
        return [self.bins.kubectl, "--kubeconfig", self.kubeconfig, "--cache-dir", self.cache_dir] \
            + list(args)

    def kubectl(self, *args, input=None, check=True, timeout=KUBECTL_TIMEOUT):
        """CompletedProcess (text) of `kubectl ARGS` against this API server; with check=True a
        non-zero exit raises KubectlError (stderr in the message)."""
        if isinstance(input, (dict, list)):
            input = json.dumps(input)
        proc = subprocess.run(self.kubectl_command(*args), input=input, capture_output=True,
                              text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise KubectlError(list(args), proc)
        return proc

    def kubectl_json(self, *args, input=None):
        return json.loads(self.kubectl(*args, "-o", "json", input=input).stdout)

    # -- our manifests

    def install_karmada_crds(self):
        crds = karmada_crds(self.source)
        if not os.path.isdir(crds):
            raise AssertionError("no Karmada CRDs at %s (set KPW_KARMADA_CRDS)" % crds)
        self.kubectl("apply", "--server-side", "-R", "-f", crds, timeout=120)
        self.kubectl("wait", "--for", "condition=established", "--timeout", "60s", "crd", "--all",
                     timeout=90)

    def render_manifests(self, webhook, overlay: str = "url") -> str:
        """kubectl kustomize of a copy of manifests/ set up as a user would for this webhook:
        fill-ca-bundle.sh (its CA) and set-url-host.sh (127.0.0.1:its port). Returns the YAML."""
        copy = tempfile.mkdtemp(prefix="manifests-", dir=self.dir)
        shutil.rmtree(copy)
        shutil.copytree(os.path.join(self.source, "manifests"), copy)
        for cmd in ([os.path.join(copy, "overlays", "self-signed", "fill-ca-bundle.sh"),
                     webhook.cert_dir],
                    [os.path.join(copy, "overlays", "url", "set-url-host.sh"),
                     "127.0.0.1:%d" % webhook.port]):
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            if proc.returncode != 0:
                raise AssertionError("%s failed: %s%s" % (" ".join(cmd), proc.stdout, proc.stderr))
        self.manifests_copy = copy
        return self.kubectl("kustomize", os.path.join(copy, "overlays", overlay)).stdout

    def patch_crd_conversion(self, overlay: str = "url"):
        """Points the conversion of the CRDs that the overlay's generated crd-conversion/ patches
        name (those of a conversion route: ResourceBinding, ClusterResourceBinding) at the webhook
        of the last render_manifests, as docs/operations.md has a user do; none without such a
        route."""
        folder = os.path.join(self.manifests_copy, "overlays", overlay, "crd-conversion")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            self.kubectl("patch", "crd", name[:-len(".yaml")], "--type", "merge", "--patch-file",
                         os.path.join(folder, name))

    def apply_manifests(self, yaml_text: str):
        """Applies what is meant for the API server (the apply-to label), as docs/operations.md
        says, and waits for the CRDs among it."""
        out = self.kubectl("apply", "-l", APPLY_TO, "-f", "-", input=yaml_text).stdout
        self.kubectl("wait", "--for", "condition=established", "--timeout", "60s", "crd", "--all",
                     timeout=90)
        return out

    def register(self, webhook, crds: bool = True):
        """Karmada's CRDs, then our url overlay pointed at `webhook` (a harness.Server), then waits
        until the API server calls both our configurations."""
        if crds:
            self.install_karmada_crds()
        self.apply_manifests(self.render_manifests(webhook))
        if crds:
            self.patch_crd_conversion()
        self.wait_webhooks_called()

    def unregister(self):
        """Removes our webhook configurations (before a webhook is stopped for good: with
        failurePolicy Fail a stopped webhook blocks every write it matches)."""
        self.kubectl("delete", "--ignore-not-found", "mutatingwebhookconfiguration,"
                     "validatingwebhookconfiguration", "-l", APPLY_TO)

    def wait_webhooks_called(self, timeout: float = 30.0,
                             entry: str = "propagationpolicy.karmada-policy-webhook.karmada.io"):
        """Until a server-side dry run shows the PropagationPolicy webhooks at work: the mutating
        one's permanent-id label, the validating `entry`'s denial (ours by default; upstream's
        `propagationpolicy.karmada.io` where its configurations are registered). The API server
        loads webhook configurations from a watch, a moment after they are created."""
        probe = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
                 "metadata": {"name": "kpw-registration-probe", "namespace": "default"},
                 "spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap",
                                                 "name": "probe"}]}}
        bad = json.loads(json.dumps(probe))
        bad["spec"]["placement"] = {"clusterAffinities": [{"affinityName": "a"},
                                                          {"affinityName": "a"}]}
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            ok = self.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-", input=probe,
                              check=False)
            denied = self.kubectl("create", "--dry-run=server", "-f", "-", input=bad, check=False)
            mutated = ok.returncode == 0 and "propagationpolicy.karmada.io/permanent-id" in ok.stdout
            if mutated and ('admission webhook "%s" denied' % entry) in denied.stderr:
                return
            last = "mutating: %s; validating: %s" % ((ok.stdout + ok.stderr)[:300],
                                                    (denied.stdout + denied.stderr)[:300])
            time.sleep(0.2)
        raise AssertionError("the API server did not call the webhooks (%s) within %.0f s: %s"
                             % (entry, timeout, last))


# --- the entry point ---------------------------------------------------------------------------------

def skip(reason: str, how: str = HOW_TO_GET) -> None:
    """Prints the one line (the reason; how to get what is missing) and exits 77 (skipped), or 1
    when KPW_REQUIRE_ENVTEST=1."""
    if os.environ.get("KPW_REQUIRE_ENVTEST") == "1":
        print("FAIL KPW_REQUIRE_ENVTEST=1 but %s" % reason, flush=True)
        sys.exit(1)
    print("SKIP real-API-server test: %s; %s" % (reason, how), flush=True)
    sys.exit(SKIP)


def main(body, extra_flags=()) -> None:
    """harness.main for tests behind a real API server: `body(args, api)` with `api` started;
    skips (exit 77) without the binaries."""
    args = harness.parse_args(description=sys.modules["__main__"].__doc__)
    build_dir = os.path.dirname(args.binary)
    bins, why = find_binaries(args.source, build_dir)
    if bins is None:
        skip(why)
    if not os.path.isdir(karmada_crds(args.source)):
        skip("no Karmada CRDs at %s (set KPW_KARMADA_CRDS to Karmada's charts/karmada/_crds/bases)"
             % karmada_crds(args.source))
    print("envtest: %s" % bins.origin, flush=True)
    sys.exit(guarded(
        lambda: ApiServer(bins, args.source, harness.temp_dir("apiserver"), extra_flags),
        lambda api: body(args, api),
        lambda api: print("kube-apiserver log (last lines):\n" + tail(api.apiserver_log),
                          flush=True),
        lambda api, took: print("envtest: kube-apiserver ready at %s in %.1f s" % (api.url, took),
                                flush=True)))


def guarded(make, body, report, started=None) -> int:
    """The exit status of body(it) for it = make(), started: 1 when anything raises (the failure
    printed); report(it) when it did not pass; it.stop() whatever happens, a start that failed
    half way included (SIGTERM and SIGINT too). started(it, seconds) once it is up."""
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, _exit_on_signal)
    status = 1
    it = None
    try:
        it = make()
        t0 = time.monotonic()
        it.start()
        if started is not None:
            started(it, time.monotonic() - t0)
        status = body(it)
    except AssertionError as e:
        print("FAIL %s" % e, flush=True)
    except Exception as e:  # noqa: BLE001
        print("FAIL %s: %s\n%s" % (e.__class__.__name__, e, traceback.format_exc()), flush=True)
    finally:
        if it is not None:
            if status != 0:
                report(it)
            it.stop()
    return status
