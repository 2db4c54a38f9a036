"""A whole Karmada federation on loopback, for tests whose clients are Karmada's own controllers.

    def run(args, fed):                         # fed: a started Federation
        hook = federation.UpstreamWebhook(fed, ...) or federation.OurWebhook(fed, args.binary)
        fed.register(hook.start())              # the way an installation registers it
        fed.karmada.kubectl("apply", "-f", "-", input=deployment_and_policy)
        fed.wait_member_object("member1", "deployments", "default", "web")
        ...

    if __name__ == "__main__":
        federation.main(run, members=2)

What `main` starts, in one temporary folder, stopped by PID whatever happens (kube.spawn: at exit,
on SIGTERM/SIGINT and with the test process itself):

- **karmada-apiserver**: etcd + kube-apiserver as test/e2e/kube.py starts them, plus the
  aggregation flags Karmada's deployment gives it (a front-proxy CA of its own, the requestheader
  flags, a front-proxy client pair); Karmada's CRDs; namespaces karmada-system and karmada-cluster.
- **karmada-aggregated-apiserver** (serves cluster.karmada.io: Cluster is no CRD) on a free port,
  with the same etcd, registered by an APIService whose Service is of type ExternalName
  (`localhost`): kube-apiserver reaches a loopback server by a service name, verifying the name
  karmada-aggregated-apiserver.karmada-system.svc, with no DNS and no endpoints.
- **N member clusters** (etcd + kube-apiserver each), joined in Push mode as `karmadactl join`
  does: Secrets `<name>` (caBundle, token) and `<name>-impersonator` (token) in karmada-cluster,
  then a Cluster with spec.id (the uid of the member's kube-system namespace), apiEndpoint,
  syncMode Push and both secret references; `start` returns once every Cluster is Ready.
- **karmada-controller-manager** and **karmada-scheduler** with the flags of Karmada's own
  deployment (leader election on, `--controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer`,
  `--cluster-status-update-frequency=10s`; the feature gates a test names).

A webhook (ours or upstream's) is registered by the test, before the controllers write anything
it matters for (`register`): upstream's with its own webhook-configuration.yaml (URLs pointed at
its address, caBundle filled) and the two binding CRDs patched for conversion at its /convert;
ours with the project's url overlay, as docs/operations.md has a user do.

Binaries: kube-apiserver, etcd, kubectl as kube.find_binaries finds them; Karmada's four from
$KPW_KARMADA_BIN (a folder holding them unpacked) or ../shared/karmada/*.xz unpacked once into
<build>/envtest/karmada. Without them: one line and exit 77 (skipped); with KPW_REQUIRE_ENVTEST=1, a
failure. What a federation cannot do here (no kubelet: pods never run; no garbage collector: the
ResourceBinding of a deleted template is deleted by the test) is said in the README's "Testing".

Python 3 standard library only.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402

KARMADA_BINARIES = ("karmada-aggregated-apiserver", "karmada-controller-manager",
                    "karmada-scheduler", "karmada-webhook")
HOW_TO_GET = ("set KPW_KARMADA_BIN to a folder holding %s, or put the project beside "
              "../shared/karmada (and ../shared/envtest)" % ", ".join(KARMADA_BINARIES))
SYSTEM_NS = "karmada-system"
CLUSTER_NS = "karmada-cluster"
AGGREGATED_SERVICE = "karmada-aggregated-apiserver"
CLUSTER_API = "v1alpha1.cluster.karmada.io"
START_TIMEOUT = 90.0          # a process answering its health probe, a Cluster Ready
WAIT_TIMEOUT = 60.0           # an object the controllers make, in a member or in Karmada
UPSTREAM_HOST = "https://karmada-webhook.karmada-system.svc:443/"
UPSTREAM_CONFIGS = ("mutatingwebhookconfiguration/mutating-config",
                    "validatingwebhookconfiguration/validating-config")
# A controller log line that names a failed webhook call (the API server's error text, as the
# controllers log it when a write they make is refused for a webhook that did not answer).
WEBHOOK_FAILURE = re.compile(r'failed calling webhook|Internal error occurred: failed calling|'
                             r'conversion webhook for [^ ]+ failed')

__all__ = ["Federation", "UpstreamWebhook", "OurWebhook", "main", "karmada_binaries"]


# --- where things are --------------------------------------------------------------------------------

def karmada_binaries(source: str, build_dir: str):
    """({name: path}, None) or (None, why not): $KPW_KARMADA_BIN, else ../shared/karmada."""
    paths, _, why = kube.located(KARMADA_BINARIES, "KPW_KARMADA_BIN",
                                 os.path.join(kube.shared_dir(source), "karmada"),
                                 os.path.join(build_dir, "envtest", "karmada"))
    return paths, why


def _run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, **kw)
    if proc.returncode != 0:
        raise AssertionError("%s failed: %s%s" % (" ".join(cmd), proc.stdout, proc.stderr))
    return proc


def _front_proxy_pki(folder: str) -> dict:
    """A front-proxy CA and its client pair (CN front-proxy-client), as Karmada's installers make
    them for the aggregation layer."""
    os.makedirs(folder, exist_ok=True)
    p = {n: os.path.join(folder, n) for n in ("ca.crt", "ca.key", "client.crt", "client.key")}
    _run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
          "-out", p["ca.key"]])
    _run(["openssl", "req", "-x509", "-new", "-key", p["ca.key"], "-sha256", "-days", "30",
          "-subj", "/CN=front-proxy-ca", "-addext", "basicConstraints=critical,CA:TRUE",
          "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", p["ca.crt"]])
    _run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
          "-out", p["client.key"]])
    csr = os.path.join(folder, "client.csr")
    _run(["openssl", "req", "-new", "-key", p["client.key"], "-subj", "/CN=front-proxy-client",
          "-out", csr])
    ext = os.path.join(folder, "client.ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                "extendedKeyUsage=clientAuth\n")
    _run(["openssl", "x509", "-req", "-in", csr, "-CA", p["ca.crt"], "-CAkey", p["ca.key"],
          "-CAcreateserial", "-sha256", "-days", "30", "-extfile", ext, "-out", p["client.crt"]])
    return p


def _serving_pair(source: str, folder: str, service: str) -> str:
    """certs/make-certs.sh for `service` in karmada-system (its SANs: localhost, 127.0.0.1 and
    the Service's names)."""
    env = dict(os.environ, SERVICE=service, NAMESPACE=SYSTEM_NS)
    _run([os.path.join(source, "certs", "make-certs.sh"), "--force", folder], env=env)
    return folder


def _b64_file(path: str) -> str:
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def _wait(what: str, fn, timeout: float = WAIT_TIMEOUT, interval: float = 0.2):
    """fn() until it returns something true; that value, or AssertionError naming `what` and the
    last thing fn said (fn may return (None, why))."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        got = fn()
        if isinstance(got, tuple):
            got, last = got
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError("%s: not within %.0f s%s" % (what, timeout,
                                                             "; last: %s" % last if last else ""))
        time.sleep(interval)


# --- a process with a health probe -----------------------------------------------------------------

class Component:
    """One control-plane process: its command, log and health probe (plain HTTP /healthz)."""

    def __init__(self, name: str, workdir: str):
        self.name = name
        self.log = os.path.join(workdir, name + ".log")
        self.proc = None
        self.cmd = None

    def start(self, cmd: list, ready) -> "Component":
        self.cmd = cmd
        self.proc = kube.spawn(cmd, self.log)
        try:
            _wait("%s ready" % self.name, lambda: self.proc.poll() is None and ready(),
                  START_TIMEOUT, 0.2)
        except AssertionError:
            raise AssertionError("%s did not become ready (exit status %s); command: %s; log:\n%s"
                                 % (self.name, self.proc.poll(), " ".join(cmd),
                                    kube.tail(self.log)))
        return self

    def stop(self):
        kube.stop_process(self.proc)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def lines(self, pattern) -> list:
        try:
            with open(self.log, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return []
        return [l for l in text.splitlines() if pattern.search(l)]


def _http_ok(port: int, path: str = "/healthz") -> bool:
    import http.client
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", path)
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


# --- the federation ----------------------------------------------------------------------------------

class Federation:
    """karmada-apiserver (`karmada`, a kube.ApiServer), the aggregated API server, N members
    (`members[name]`, kube.ApiServer each), the controller-manager and the scheduler."""

    def __init__(self, bins: kube.Binaries, karmada_bins: dict, source: str, workdir: str,
                 members: int = 2, gates: str = ""):
        self.bins, self.kbins, self.source, self.dir = bins, karmada_bins, source, workdir
        self.member_names = ["member%d" % (i + 1) for i in range(members)]
        self.gates = gates
        self.karmada = None
        self.members = {}
        self.components = {}
        self.front_proxy = None
        self.webhook = None          # what register() registered last

    # -- lifecycle

    def start(self) -> "Federation":
        t0 = time.monotonic()
        self.front_proxy = _front_proxy_pki(os.path.join(self.dir, "front-proxy"))
        fp = self.front_proxy
        self.karmada = kube.ApiServer(self.bins, self.source, self._sub("karmada-apiserver"), [
            "--requestheader-client-ca-file", fp["ca.crt"],
            "--requestheader-allowed-names", "front-proxy-client",
            "--requestheader-extra-headers-prefix", "X-Remote-Extra-",
            "--requestheader-group-headers", "X-Remote-Group",
            "--requestheader-username-headers", "X-Remote-User",
            "--proxy-client-cert-file", fp["client.crt"],
            "--proxy-client-key-file", fp["client.key"],
            "--enable-aggregator-routing=false"])
        self.karmada.start()
        for name in self.member_names:      # started while the CRDs are applied
            self.members[name] = kube.ApiServer(self.bins, self.source, self._sub(name)).start()
        self.karmada.install_karmada_crds()
        for ns in (SYSTEM_NS, CLUSTER_NS):
            self.karmada.kubectl("create", "namespace", ns)
        self._start_aggregated_apiserver()
        self._start_controllers()
        for name in self.member_names:
            self._join(name)
        for name in self.member_names:
            self.wait_cluster_ready(name)
        print("federation: karmada-apiserver, aggregated API server, %d members, controllers ready "
              "in %.1f s" % (len(self.members), time.monotonic() - t0), flush=True)
        return self

    def stop(self):
        for c in reversed(list(self.components.values())):
            c.stop()
        for m in self.members.values():
            m.stop()
        if self.karmada is not None:
            self.karmada.stop()

    def _sub(self, name: str) -> str:
        path = os.path.join(self.dir, name)
        os.makedirs(path, exist_ok=True)
        return path

    def _start_aggregated_apiserver(self):
        certs = _serving_pair(self.source, self._sub("aggregated-pki"), AGGREGATED_SERVICE)
        kc = self.karmada.kubeconfig
        for attempt in range(3):
            port = harness.free_port()
            comp = Component("karmada-aggregated-apiserver", self.dir)
            try:
                comp.start([self.kbins["karmada-aggregated-apiserver"],
                            "--kubeconfig", kc, "--authentication-kubeconfig", kc,
                            "--authorization-kubeconfig", kc,
                            "--etcd-servers", "http://127.0.0.1:%d" % self.karmada.etcd_port,
                            "--bind-address", "127.0.0.1", "--secure-port", str(port),
                            "--tls-cert-file", os.path.join(certs, "tls.crt"),
                            "--tls-private-key-file", os.path.join(certs, "tls.key"),
                            "--audit-log-path", "-", "--audit-log-maxage", "0",
                            "--audit-log-maxbackup", "0"],
                           lambda: kube.webhook_ready(port, os.path.join(certs, "ca.crt"),
                                                              "/readyz"))
                break
            except AssertionError:
                comp.stop()
                if attempt == 2 or "address already in use" not in kube.tail(comp.log):
                    raise
        self.components[comp.name] = comp
        self.karmada.kubectl("apply", "-f", "-", input={
            "apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": AGGREGATED_SERVICE, "namespace": SYSTEM_NS},
                 "spec": {"type": "ExternalName", "externalName": "localhost",
                          "ports": [{"port": port, "protocol": "TCP"}]}},
                {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                 "metadata": {"name": CLUSTER_API},
                 "spec": {"group": "cluster.karmada.io", "version": "v1alpha1",
                          "groupPriorityMinimum": 2000, "versionPriority": 10,
                          "caBundle": _b64_file(os.path.join(certs, "ca.crt")),
                          "service": {"name": AGGREGATED_SERVICE, "namespace": SYSTEM_NS,
                                      "port": port}}}]})
        self.karmada.kubectl("wait", "--for", "condition=Available", "--timeout", "60s",
                             "apiservice/" + CLUSTER_API, timeout=90)

    def controller_command(self, gates: str = None) -> list:
        gates = self.gates if gates is None else gates
        cmd = [self.kbins["karmada-controller-manager"], "--kubeconfig", self.karmada.kubeconfig,
               "--cluster-status-update-frequency=10s",
               "--controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer",
               "--metrics-bind-address", "127.0.0.1:%d" % harness.free_port(),
               "--health-probe-bind-address", "127.0.0.1:%d" % self._probe_port("cm"),
               "--leader-elect=true", "--enable-no-execute-taint-eviction=true", "--v=2"]
        if gates:
            cmd.append("--feature-gates=" + gates)
        return cmd

    def _probe_port(self, key: str) -> int:
        port = harness.free_port()
        setattr(self, "_probe_" + key, port)
        return port

    def _start_controllers(self):
        cm = Component("karmada-controller-manager", self.dir)
        cm.start(self.controller_command(), lambda: _http_ok(self._probe_cm))
        self.components[cm.name] = cm
        sched = Component("karmada-scheduler", self.dir)
        cmd = [self.kbins["karmada-scheduler"], "--kubeconfig", self.karmada.kubeconfig,
               "--metrics-bind-address", "127.0.0.1:%d" % harness.free_port(),
               "--health-probe-bind-address", "127.0.0.1:%d" % self._probe_port("sched"),
               "--leader-elect=true", "--v=2"]
        if self.gates:
            cmd.append("--feature-gates=" + self.gates)
        sched.start(cmd, lambda: _http_ok(self._probe_sched))
        self.components[sched.name] = sched

    def restart_controller_manager(self, gates: str):
        """The controller-manager again, with other feature gates (the same karmada-apiserver)."""
        cm = self.components["karmada-controller-manager"]
        cm.stop()
        cm.start(self.controller_command(gates), lambda: _http_ok(self._probe_cm))

    def _join(self, name: str):
        """What `karmadactl join <name>` writes for a Push-mode member."""
        member = self.members[name]
        uid = member.kubectl_json("get", "namespace", "kube-system")["metadata"]["uid"]
        token = base64.b64encode(kube.TOKEN.encode()).decode()
        labels = {"karmada.io/system": "true"}
        self.karmada.kubectl("apply", "-f", "-", input={
            "apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Secret",
                 "metadata": {"name": name, "namespace": CLUSTER_NS, "labels": labels},
                 "data": {"caBundle": _b64_file(member.ca), "token": token}},
                {"apiVersion": "v1", "kind": "Secret",
                 "metadata": {"name": name + "-impersonator", "namespace": CLUSTER_NS,
                              "labels": labels},
                 "data": {"token": token}}]})
        self.karmada.kubectl("create", "-f", "-", input={
            "apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster",
            "metadata": {"name": name},
            "spec": {"id": uid, "apiEndpoint": member.url, "syncMode": "Push",
                     "secretRef": {"namespace": CLUSTER_NS, "name": name},
                     "impersonatorSecretRef": {"namespace": CLUSTER_NS,
                                               "name": name + "-impersonator"}}})

    def wait_cluster_ready(self, name: str, timeout: float = START_TIMEOUT):
        def ready():
            proc = self.karmada.kubectl("get", "cluster", name, "-o", "json", check=False)
            if proc.returncode != 0:
                return None, proc.stderr.strip()
            conds = json.loads(proc.stdout).get("status", {}).get("conditions", [])
            ok = any(c["type"] == "Ready" and c["status"] == "True" for c in conds)
            return ok, conds
        _wait("Cluster %s Ready" % name, ready, timeout, 0.5)

    # -- webhooks

    def register(self, hook):
        """Registers `hook` (UpstreamWebhook or OurWebhook) as its installation does, replacing
        whichever was registered before: the new configurations applied and called first, the
        old ones deleted after (failurePolicy Fail everywhere: never a moment with none)."""
        old = self.webhook
        hook.register(self.karmada)
        if old is not None and old.configs != hook.configs:
            old.unregister(self.karmada)
        self.webhook = hook

    # -- reading the federation

    def member_object(self, member: str, resource: str, ns, name: str):
        """The object in a member, or None."""
        args = ["get", resource, name, "-o", "json"] + (["-n", ns] if ns else [])
        proc = self.members[member].kubectl(*args, check=False)
        if proc.returncode != 0:
            if "NotFound" in proc.stderr:
                return None
            raise AssertionError("kubectl get %s %s in %s: %s" % (resource, name, member,
                                                                  proc.stderr.strip()))
        return json.loads(proc.stdout)

    def wait_member_object(self, member: str, resource: str, ns, name: str, cond=None,
                           timeout: float = WAIT_TIMEOUT):
        """The object once it exists in `member` (and cond(obj) holds)."""
        def got():
            obj = self.member_object(member, resource, ns, name)
            if obj is None:
                return None, "absent"
            if cond is not None and not cond(obj):
                return None, json.dumps(obj.get("spec"))[:400]
            return obj
        return _wait("%s %s/%s in %s" % (resource, ns or "", name, member), got, timeout)

    def wait_member_gone(self, member: str, resource: str, ns, name: str,
                         timeout: float = WAIT_TIMEOUT):
        _wait("%s %s/%s gone from %s" % (resource, ns or "", name, member),
              lambda: self.member_object(member, resource, ns, name) is None, timeout)

    def karmada_object(self, resource: str, ns, name: str):
        args = ["get", resource, name, "-o", "json"] + (["-n", ns] if ns else [])
        proc = self.karmada.kubectl(*args, check=False)
        if proc.returncode != 0:
            if "NotFound" in proc.stderr:
                return None
            raise AssertionError("kubectl get %s %s: %s" % (resource, name, proc.stderr.strip()))
        return json.loads(proc.stdout)

    def wait_karmada_object(self, resource: str, ns, name: str, cond=None,
                            timeout: float = WAIT_TIMEOUT):
        def got():
            obj = self.karmada_object(resource, ns, name)
            if obj is None:
                return None, "absent"
            if cond is not None and not cond(obj):
                return None, json.dumps(obj.get("status", obj.get("spec")))[:400]
            return obj
        return _wait("%s %s/%s in karmada-apiserver" % (resource, ns or "", name), got, timeout)

    def mark_logs(self) -> dict:
        """{component: log size now}: log_since(mark) reads only what came after."""
        return {n: os.path.getsize(c.log) if os.path.exists(c.log) else 0
                for n, c in self.components.items()}

    def log_since(self, mark: dict) -> dict:
        """{component: its log's text written after `mark` (mark_logs)}."""
        out = {}
        for name, comp in self.components.items():
            with open(comp.log, "rb") as f:
                f.seek(mark.get(name, 0))
                out[name] = f.read().decode("utf-8", "replace")
        return out

    def webhook_failures_since(self, mark: dict) -> dict:
        """{component: [log lines naming a failed webhook call]} written after `mark`."""
        out = {}
        for name, text in self.log_since(mark).items():
            lines = [l for l in text.splitlines() if WEBHOOK_FAILURE.search(l)]
            if lines:
                out[name] = lines
        return out


# --- the two webhooks ------------------------------------------------------------------------------

def upstream_configuration(source: str, port: int, ca: str) -> str:
    """Upstream's webhook-configuration.yaml, every URL pointed at 127.0.0.1:port, every caBundle
    filled with `ca` (text substitution, as a deployer's template does)."""
    path = os.path.join(kube.shared_dir(source), "upstream", "webhook-configuration.yaml")
    with open(path) as f:
        text = f.read()
    return text.replace(UPSTREAM_HOST, "https://127.0.0.1:%d/" % port).replace(
        "{{caBundle}}", _b64_file(ca))


class UpstreamWebhook:
    """Upstream's karmada-webhook as its image ships it, with upstream's command line (its
    kubeconfig for RIC-1 and RB-2), registered with upstream's own configurations."""
    configs = "upstream"          # the webhook configurations it is registered with

    def __init__(self, fed: Federation, binary: str, cert_dir: str, gates: str = "",
                 port: int = None):
        self.fed, self.binary, self.cert_dir, self.gates = fed, binary, cert_dir, gates
        self.ca = os.path.join(cert_dir, "ca.crt")
        self.port = port
        self.comp = Component("upstream-webhook", fed.dir)

    def argv(self) -> list:
        """Upstream's flags as its Deployment passes them (artifacts/deploy), on loopback."""
        self.metrics_port = harness.free_port()
        out = ["--kubeconfig", self.fed.karmada.kubeconfig, "--bind-address", "127.0.0.1",
               "--secure-port", str(self.port), "--cert-dir", self.cert_dir,
               "--metrics-bind-address", "127.0.0.1:%d" % self.metrics_port,
               "--health-probe-bind-address", "127.0.0.1:%d" % harness.free_port(), "--v=2"]
        if self.gates:
            out.append("--feature-gates=" + self.gates)
        return out

    def start(self) -> "UpstreamWebhook":
        fixed = self.port is not None
        for attempt in range(3):
            if not fixed:
                self.port = harness.free_port()
            try:
                self.comp.start([self.binary] + self.argv(),
                                lambda: kube.webhook_ready(self.port, self.ca))
                return self
            except AssertionError:
                self.comp.stop()
                if attempt == 2 or "address already in use" not in kube.tail(self.comp.log):
                    raise
        return self

    def stop(self):
        self.comp.stop()

    def configuration(self) -> str:
        return upstream_configuration(self.fed.source, self.port, self.ca)

    def crd_conversion_patch(self) -> dict:
        """Upstream's charts/karmada/_crds/patches/webhook_in_*resourcebindings.yaml, pointed at
        this process."""
        return {"spec": {"conversion": {"strategy": "Webhook", "webhook": {
            "clientConfig": {"url": "https://127.0.0.1:%d/convert" % self.port,
                             "caBundle": _b64_file(self.ca)},
            "conversionReviewVersions": ["v1"]}}}}

    def register(self, api: kube.ApiServer):
        api.kubectl("apply", "-f", "-", input=self.configuration())
        for crd in ("resourcebindings.work.karmada.io", "clusterresourcebindings.work.karmada.io"):
            api.kubectl("patch", "crd", crd, "--type", "merge", "-p",
                        json.dumps(self.crd_conversion_patch()))
        api.wait_webhooks_called(entry="propagationpolicy.karmada.io")

    def unregister(self, api: kube.ApiServer):
        api.kubectl("delete", "--ignore-not-found", *UPSTREAM_CONFIGS)


class OurWebhook:
    """`karmada-policy-webhook serve` (harness.Server), registered with the project's url overlay
    (kube.ApiServer.register without CRDs: the federation installed them)."""
    configs = "ours"

    def __init__(self, fed: Federation, binary: str, cert_dir: str, *flags: str):
        self.fed = fed
        self.server = harness.Server(binary, cert_dir, *flags)

    @property
    def port(self):
        return self.server.port

    @property
    def metrics_port(self):
        return self.server.metrics_port

    def start(self) -> "OurWebhook":
        self.server.start()
        return self

    def stop(self):
        return self.server.stop()

    def register(self, api: kube.ApiServer):
        api.register(self.server, crds=False)
        api.patch_crd_conversion()

    def unregister(self, api: kube.ApiServer):
        api.unregister()


# --- the entry point ---------------------------------------------------------------------------------

def main(body, members: int = 2, gates: str = "") -> None:
    """kube.main for tests inside a federation: `body(args, fed)` with `fed` started; skips (exit
    77) without the binaries."""
    args = harness.parse_args(description=sys.modules["__main__"].__doc__)
    build_dir = os.path.dirname(args.binary)
    bins, why = kube.find_binaries(args.source, build_dir)
    if bins is None:
        kube.skip(why)
    if not os.path.isdir(kube.karmada_crds(args.source)):
        kube.skip("no Karmada CRDs at %s" % kube.karmada_crds(args.source))
    kbins, why = karmada_binaries(args.source, build_dir)
    if kbins is None:
        kube.skip(why, HOW_TO_GET)
    args.karmada_bins = kbins

    def report(fed):
        for comp in fed.components.values():
            print("%s log (last lines):\n%s" % (comp.name, kube.tail(comp.log, 15)), flush=True)
        if fed.karmada is not None:
            print("karmada-apiserver log (last lines):\n" + kube.tail(fed.karmada.apiserver_log,
                                                                       15), flush=True)

    sys.exit(kube.guarded(
        lambda: Federation(bins, kbins, args.source, harness.temp_dir("federation"), members,
                           gates),
        lambda fed: body(args, fed), report))
