#!/usr/bin/env python3
"""Switching by image, per installer: our binary run as upstream's installer runs karmada-webhook.

Upstream's installers (docs/operations.md, "Switching by image"; test/e2e/installers.py holds
them as data): A the dev artefacts, H the Helm chart, K `karmadactl init`, O karmada-operator.
For the installer given with `--installer X`, behind a real kube-apiserver (test/e2e/kube.py)
that trusts the installer's CA for client certificates (`--client-ca-file`):

- our binary, from a root filesystem made by image/make-rootfs.sh (test/e2e/rootfs.py), runs as a
  kubelet runs the container: the installer's exact command ($(POD_IP) = 127.0.0.1), its Secrets
  as files at their mount paths (the serving pair it issues, its kubeconfig with its own client
  certificate, pointed at the test's API server), a non-root uid;
- start-up failures are one line and exit status 2: the command without <cert-dir>/tls.key, and
  with a kubeconfig that is not YAML;
- readiness as the installer's probe sees it (HTTPS GET /readyz on 8443, no verification, 200-399,
  every second), and /readyz on the health port 8000;
- Karmada's CRDs, the installer's own two webhook configurations (upstream's file, the entries it
  registers, its CA, URLs at <host>:8443) and its CRD conversion patches; then, with kubectl,
  every path it registers: the valid object of each kind stored as our mutating path makes it,
  the invalid one and every rule family refused by upstream's entry naming the field
  (test_apiserver_paths.py's cases), deletion protection, /convert, RIC-1 through the watch cache
  our server keeps with the installer's credentials, and /metrics counting every path;
- the configurations removed, SIGTERM, exit status 0.

Installer A's exact command carries --feature-gates=AllAlpha=true,AllBeta=true, which turns on
FederatedQuotaEnforcement: A runs verbatim, and RB-2 is checked through its entry (a binding
over a FederatedResourceQuota refused by kubectl with upstream's text, one within it admitted and
its usage written by our server with A's credentials).

Skips (exit 77) without envtest's binaries, and where no container can be run
(rootfs.isolation()); with KPW_REQUIRE_ENVTEST=1 both are failures.

    test_apiserver_installer.py --installer O --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import ssl
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import installers  # noqa: E402
import kube  # noqa: E402
import rootfs  # noqa: E402
import test_apiserver_conversion as conversion  # noqa: E402
import test_apiserver_paths as paths  # noqa: E402
from harness import check  # noqa: E402

POD_IP = "127.0.0.1"

START_TIMEOUT = 30.0       # seconds until the probe passes
EXIT_TIMEOUT = 20.0        # seconds for a start-up failure to exit
CALLED_TIMEOUT = 30.0      # seconds until the API server calls the registered entries
SYNCED_TIMEOUT = 60.0      # seconds until the RIC cache has listed (its backoff reaches 30 s)
RIC1_TIMEOUT = 10.0        # seconds for a new RIC to reach the cache
PROBE_PERIOD = 1.0
PORTS_TIMEOUT = 120.0      # seconds to wait for the fixed ports to be free
RDP_LABEL = "resourcetemplate.karmada.io/deletion-protected"
RDP_PATH = "/validate-resourcedeletionprotection"
CONVERT_PATH = "/convert"
HOW_TO_ISOLATE = "run as root (chroot) or where unprivileged user namespaces are allowed"


# --- the container --------------------------------------------------------------------------------

class Env:
    """What the steps share: the installer, the API server, the PKI, the rootfs, the container."""

    def __init__(self, key: str, args, api, pki):
        self.key = key
        self.spec = installers.INSTALLERS[key]
        self.args, self.api, self.pki = args, api, pki
        self.shared = kube.shared_dir(args.source)
        self.exact = installers.argv(self.spec, POD_IP)
        self.argv = self.exact
        with open(api.ca, "rb") as f:
            self.files = installers.container_files(self.spec, pki, api.url, f.read())
        self.configs = installers.webhook_configurations(self.spec, pki, self.shared)
        self.rows = harness.kind_table(args.binary)
        self.rootfs = None
        self.server = None
        self.driven = None    # driven(env)
        self.tls_key = os.path.join(installers.cert_dir(self.spec), "tls.key")

    def container(self, argv: list, files: dict, name: str):
        return rootfs.Container(self.rootfs, argv, files, harness.temp_dir(name),
                                env={"POD_IP": POD_IP})

    def entry(self, kind: str, row):
        """(name, path) of the installer's Mutating/Validating entry for the row's kind, or None."""
        return installers.entry_for(self.configs, kind, row.group, row.resource)


def lines_of(text: str) -> list:
    return [line for line in text.splitlines() if line.strip()]


def fails_at_start(env, argv: list, files: dict, name: str, needles: tuple) -> str:
    """Runs the container expecting exit status 2 and ONE stderr line holding every needle;
    returns that line."""
    c = env.container(argv, files, name).start()
    try:
        status = c.wait_exit(EXIT_TIMEOUT)
    finally:
        if c.alive():
            c.stop()
    err = lines_of(c.stderr())
    check(status == 2, "%s: exit status %s, want 2; stderr:\n%s", name, status, "\n".join(err))
    check(len(err) == 1, "%s: %d stderr lines, want one:\n%s", name, len(err), "\n".join(err))
    missing = [n for n in needles if n not in err[0]]
    check(not missing, "%s: the error line does not name %s: %s", name, missing, err[0])
    return err[0]


def ports_free(timeout: float = PORTS_TIMEOUT):
    """Waits until nothing listens on 127.0.0.1:8443/8080/8000, which the installers' command
    fixes (ctest keeps the tests that bind them apart: RESOURCE_LOCK installer-ports)."""
    deadline = time.monotonic() + timeout
    while True:
        busy = [p for p in (installers.WEBHOOK_PORT, installers.METRICS_PORT,
                            installers.HEALTH_PORT) if harness.port_is_listening(p)]
        if not busy:
            return
        check(time.monotonic() < deadline, "127.0.0.1 ports %s still taken after %.0f s (another "
              "test running an installer's command?)", busy, timeout)
        time.sleep(1)


# --- probes ---------------------------------------------------------------------------------------

def kubelet_probe(port: int, path: str) -> int:
    """The status of an HTTPS GET as kubelet's readiness probe makes it: no certificate
    verification, timeout 1 s, no redirect followed."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    conn = http.client.HTTPSConnection(POD_IP, port, context=ctx, timeout=1)
    try:
        conn.request("GET", path, headers={"User-Agent": "kube-probe/1.36", "Accept": "*/*"})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def http_get(port: int, path: str):
    try:
        with urllib.request.urlopen("http://%s:%d%s" % (POD_IP, port, path), timeout=5) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def metrics_text() -> str:
    status, text = http_get(installers.METRICS_PORT, "/metrics")
    check(status == 200, "GET /metrics on %d: HTTP %d", installers.METRICS_PORT, status)
    return text


def metric(name: str) -> float:
    return harness.metric_sum(harness.parse_metrics(metrics_text()), name)


# --- registration ---------------------------------------------------------------------------------

def register(env):
    """Karmada's CRDs, the installer's two configurations, its CRD conversion patches; then waits
    until the API server calls the entries and the RIC cache has listed."""
    api, t0 = env.api, time.monotonic()
    api.install_karmada_crds()
    t_crds = time.monotonic()
    api.kubectl("apply", "-f", "-", input=yaml.safe_dump_all(env.configs))
    for crd, patch in installers.conversion_patches(env.spec, env.pki, env.shared):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=api.dir, delete=False) as f:
            f.write(patch)
        api.kubectl("patch", "crd", crd, "--type", "merge", "--patch-file", f.name)
    counts = ["%d %s" % (len(d["webhooks"]), d["kind"]) for d in env.configs]
    env.api.wait_webhooks_called(CALLED_TIMEOUT, entry=installers.entry_for(
        env.configs, "Validating", "policy.karmada.io", "propagationpolicies")[0])
    print("  registered: CRDs, %s (%s:%d), the bindings' conversion (%.1f s)" % (
        " + ".join(counts), env.spec["url_host"], installers.WEBHOOK_PORT,
        time.monotonic() - t0), flush=True)
    deadline = t_crds + SYNCED_TIMEOUT
    while metric("karmada_policy_webhook_cluster_state_synced") != 1:
        check(time.monotonic() < deadline, "the RIC cache did not list within %.0f s of the CRDs "
              "(--kubeconfig %s); server stderr:\n%s", SYNCED_TIMEOUT,
              installers.kubeconfig_path(env.spec),
              env.server.stderr()[-3000:])
        time.sleep(0.2)
    print("  RIC cache listed through --kubeconfig (the installer's client certificate) "
          "%.1f s after the CRDs were in at most" % (time.monotonic() - t_crds), flush=True)


def unregister(env):
    """The configurations go before the server does (failurePolicy Fail: a stopped webhook would
    block every write they match)."""
    for doc in env.configs:
        env.api.kubectl("delete", "--ignore-not-found", doc["kind"].lower(),
                        doc["metadata"]["name"])


# --- the steps before the server runs ------------------------------------------------------------

def test_start_fails_without_the_key(env):
    files = {p: data for p, data in env.files.items() if p != env.tls_key}
    line = fails_at_start(env, env.argv, files, "no-tls-key", ("tls.key",))
    print("  without %s: exit 2: %s" % (env.tls_key, line[:200]), flush=True)


def test_start_fails_on_a_kubeconfig_that_is_not_yaml(env):
    files = dict(env.files)
    path = installers.kubeconfig_path(env.spec)
    files[path] = b"{{{\n"
    line = fails_at_start(env, env.argv, files, "bad-kubeconfig", (path,))
    print("  kubeconfig {{{: exit 2: %s" % line[:200], flush=True)


# --- with the server running ----------------------------------------------------------------------

def test_ready_as_the_probe_sees_it(env):
    """HTTPS GET https://127.0.0.1:8443/readyz every second, no verification, 200-399 passes; then
    /readyz on the health port."""
    t0, statuses = time.monotonic(), []
    while True:
        check(env.server.alive(), "the server exited (%s) before it was ready; stderr:\n%s",
              env.server.returncode, env.server.stderr()[-3000:])
        try:
            status = kubelet_probe(installers.WEBHOOK_PORT, "/readyz")
        except OSError as e:
            status = e.__class__.__name__
        statuses.append(status)
        if isinstance(status, int) and 200 <= status < 400:
            break
        check(time.monotonic() - t0 < START_TIMEOUT, "the probe did not pass within %.0f s: %s; "
              "stderr:\n%s", START_TIMEOUT, statuses[-5:], env.server.stderr()[-3000:])
        time.sleep(PROBE_PERIOD)
    health, body = http_get(installers.HEALTH_PORT, "/readyz")
    check(health == 200, "GET http://127.0.0.1:%d/readyz: HTTP %d %s", installers.HEALTH_PORT,
          health, body[:200])
    print("  probe https://127.0.0.1:8443/readyz: %s after %d tries (%.1f s); :8000/readyz %d"
          % (statuses[-1], len(statuses), time.monotonic() - t0, health), flush=True)


def plan(env, row):
    """(mutating entry, validating entry) this installer registers for the row's kind."""
    return env.entry("Mutating", row), env.entry("Validating", row)


def driven(env) -> list:
    """The kinds with a path this installer registers (a line for each one without, once)."""
    if env.driven is None:
        env.driven = []
        for row in env.rows:
            m, v = plan(env, row)
            if m is None and v is None:
                print("  skip %s: installer %s registers no path for it" % (row.kind, env.key),
                      flush=True)
                continue
            env.driven.append(row)
    return env.driven


def no_execute_allowed(env) -> bool:
    return installers.flag_value(env.argv, "allow-no-execute-taint-policy") == "true"


# Under --allow-no-execute-taint-policy=true (A) a NoExecute taint is allowed: this one breaks T-2.
CTP_DUPLICATE = (paths.obj("ClusterTaintPolicy", "ctp-duplicate", {"taints": [
    {"key": "maintenance", "effect": "NoSchedule"},
    {"key": "maintenance", "value": "x", "effect": "NoSchedule"}]}, False),
    "spec.taints[0]", "T-2")


def invalid_case(env, row):
    """(invalid object, field, rule) this installer's entries must refuse for the row, or None."""
    _, _, invalid, field, rule = paths.CASES[row.kind]
    if invalid is None:
        return None
    if row.kind == "ClusterTaintPolicy" and no_execute_allowed(env):
        return CTP_DUPLICATE
    return invalid, field, rule


def refusing_entry(env, row):
    """The entry name a refusal of the row's kind must show: its validating entry, or for a kind
    only its mutating path refuses (Work, W-5) the mutating one; None when not registered."""
    m, v = plan(env, row)
    if row.validate_path:
        return v[0] if v else None
    return m[0] if m else None


def test_valid_objects_are_stored(env):
    problems = []
    for row in driven(env):
        valid, expect, _, _, _ = paths.CASES[row.kind]
        stored = paths.create_and_read(env.api, valid)
        got = paths.stored_problems(stored, expect)
        m, v = plan(env, row)
        problems += ["%s (%s): %s" % (row.kind, (m or v)[1], p) for p in got]
        if not got:
            print("  %-40s stored%s" % (row.kind, " as %s makes it" % m[1] if m else " as sent"),
                  flush=True)
    check(not problems, "\n  ".join(problems))


def test_invalid_objects_are_refused_by_upstreams_entry(env):
    problems = []
    for row in driven(env):
        case = invalid_case(env, row)
        if case is None:
            continue
        entry = refusing_entry(env, row)
        if entry is None:
            print("  %-40s not expected to be refused: installer %s has no %s entry" % (
                row.kind, env.key, row.validate_path), flush=True)
            continue
        if row.kind == "ClusterTaintPolicy" and no_execute_allowed(env):
            noexec = paths.CASES[row.kind][2]
            proc = env.api.kubectl("create", "-f", "-", input=noexec, check=False)
            if proc.returncode != 0:
                problems.append("ClusterTaintPolicy with NoExecute refused under "
                                "--allow-no-execute-taint-policy=true: %s" % proc.stderr.strip())
            else:
                print("  %-40s NoExecute admitted (--allow-no-execute-taint-policy=true)"
                      % row.kind, flush=True)
        invalid, field, rule = case
        got = paths.denial_problems(env.api, row, invalid, field, entry)
        problems += ["%s (%s, %s): %s" % (row.kind, entry, rule, p) for p in got]
        if not got:
            print("  %-40s refused by %s at %s [%s]" % (row.kind, entry, field, rule), flush=True)
    check(not problems, "\n  ".join(problems))


def test_each_rule_family_is_refused(env):
    problems = []
    for row in driven(env):
        families = paths.FAMILIES.get(row.kind, [])
        entry = refusing_entry(env, row)
        if families and entry is None:
            print("  %-40s %d rule families not expected to be refused: installer %s has no %s "
                  "entry" % (row.kind, len(families), env.key, row.validate_path), flush=True)
            continue
        for invalid, field, rule in families:
            got = paths.denial_problems(env.api, row, invalid, field, entry)
            problems += ["%s (%s, %s): %s" % (row.kind, entry, rule, p) for p in got]
        if families:
            print("  %-40s %d rule families refused by %s" % (row.kind, len(families), entry),
                  flush=True)
    check(not problems, "\n  ".join(problems))


def test_deletion_protection(env):
    """A ConfigMap labelled deletion-protected=Always: kubectl delete refused by upstream's entry;
    without the label it deletes."""
    api = env.api
    entry = next(e["name"] for d in env.configs for e in d["webhooks"]
                 if e["clientConfig"]["url"].endswith(RDP_PATH))
    api.kubectl("create", "-f", "-", input={
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "protected", "namespace": "default", "labels": {RDP_LABEL: "Always"}},
        "data": {"k": "v"}})
    proc = api.kubectl("delete", "configmap", "protected", "-n", "default", check=False)
    want = 'admission webhook "%s" denied the request: ' % entry
    check(proc.returncode != 0 and want in proc.stderr and RDP_LABEL in proc.stderr,
          "kubectl delete of a protected ConfigMap: exit %d: %s%s (want %r... naming %s)",
          proc.returncode, proc.stdout, proc.stderr, want, RDP_LABEL)
    api.kubectl("get", "configmap", "protected", "-n", "default")
    api.kubectl("label", "configmap", "protected", "-n", "default", RDP_LABEL + "-")
    api.kubectl("delete", "configmap", "protected", "-n", "default")
    print("  %s: %s; deleted once unlabelled" % (RDP_PATH, proc.stderr.strip()[:150]), flush=True)


def test_conversion(env):
    """A ResourceBinding created at work.karmada.io/v1alpha1 (stored at v1alpha2), read back at
    both versions through /convert."""
    api, kind, name = env.api, "ResourceBinding", "rb-convert"
    before = metric_count(CONVERT_PATH)
    api.kubectl("create", "-f", "-", input=conversion.v1alpha1_binding(kind, name))
    v2 = conversion.read(api, kind, "v1alpha2", name)
    v1 = conversion.read(api, kind, "v1alpha1", name)
    request = {"cpu": "250m", "memory": "1536Mi", "nvidia.com/gpu": "1"}
    problems = []
    if v2.get("apiVersion") != "work.karmada.io/v1alpha2" or \
            v2["spec"].get("replicas") != 3 or \
            v2["spec"].get("replicaRequirements", {}).get("resourceRequest") != request:
        problems.append("read at v1alpha2: %s" % json.dumps(v2)[:800])
    res = v1["spec"].get("resource", {})
    if v1.get("apiVersion") != "work.karmada.io/v1alpha1" or res.get("replicas") != 3 or \
            res.get("resourcePerReplicas") != request or "replicaRequirements" in v1["spec"]:
        problems.append("read at v1alpha1: %s" % json.dumps(v1)[:800])
    check(not problems, "\n  ".join(problems))
    calls = metric_count(CONVERT_PATH) - before
    check(calls > 0, "no request counted on %s for the v1alpha1 create and reads", CONVERT_PATH)
    print("  %s: created at v1alpha1, read at v1alpha2 (resourceRequest %s) and v1alpha1; %d "
          "ConversionReviews" % (CONVERT_PATH, json.dumps(request), calls), flush=True)


def metric_count(path: str) -> float:
    return harness.metric_sum(harness.parse_metrics(metrics_text()),
                              "controller_runtime_webhook_requests_total", webhook=path)


def ric(name: str) -> dict:
    return {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": name},
            "spec": {"target": {"apiVersion": "apps/v1", "kind": "Deployment"},
                     "customizations": {"retention": {
                         "luaScript": "function Retain(desired, observed) return desired end"}}}}


def test_ric1_through_the_cache(env):
    """A second ResourceInterpreterCustomization scripting the same operation for the same target
    is refused by upstream's entry, RIC-1 judged from the cache our server keeps through the
    installer's kubeconfig (eventually consistent: polled)."""
    api = env.api
    entry = installers.entry_for(env.configs, "Validating", "config.karmada.io",
                                 "resourceinterpretercustomizations")[0]
    api.kubectl("create", "-f", "-", input=ric("ric-first"))
    t0, want = time.monotonic(), 'admission webhook "%s" denied the request: ' % entry
    conflict = ("conflicting with InterpreterOperation(Retain) of existing "
                "ResourceInterpreterCustomization(ric-first)")
    while True:
        proc = api.kubectl("create", "--dry-run=server", "-f", "-", input=ric("ric-second"),
                           check=False)
        if proc.returncode != 0 and want in proc.stderr and conflict in proc.stderr:
            break
        check(time.monotonic() - t0 < RIC1_TIMEOUT, "a conflicting RIC was not refused with "
              "RIC-1's conflict by %s within %.0f s: exit %d: %s%s", entry, RIC1_TIMEOUT,
              proc.returncode, proc.stdout, proc.stderr)
        time.sleep(0.2)
    proc = api.kubectl("create", "-f", "-", input=ric("ric-second"), check=False)
    check(proc.returncode != 0 and want in proc.stderr and conflict in proc.stderr,
          "kubectl create of the conflicting RIC: exit %d: %s%s", proc.returncode, proc.stdout,
          proc.stderr)
    print("  RIC-1 after %.1f s: %s" % (time.monotonic() - t0, proc.stderr.strip()), flush=True)
    api.kubectl("delete", "resourceinterpretercustomization", "ric-first")


QUOTA = """apiVersion: policy.karmada.io/v1alpha1
kind: FederatedResourceQuota
metadata: {name: team-cpu, namespace: quota-a}
spec: {overall: {cpu: "2"}}
"""


def rb(name: str, replicas: int) -> str:
    return ("apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\n"
            "metadata: {name: %s, namespace: quota-a}\n"
            "spec:\n  resource: {apiVersion: apps/v1, kind: Deployment, name: %s}\n"
            "  replicaRequirements: {resourceRequest: {cpu: 500m}}\n"
            "  clusters: [{name: member1, replicas: %d}]\n" % (name, name, replicas))


def test_quota_enforcement(env):
    """RB-2 (A's AllAlpha=true turns FederatedQuotaEnforcement on): a binding within the quota is
    admitted and its usage written by our server with A's credentials; one over it is refused by
    upstream's entry with upstream's text."""
    api = env.api
    api.kubectl("create", "namespace", "quota-a")
    api.kubectl("create", "-f", "-", input=QUOTA)
    time.sleep(1.0)  # the quota reaches our cache (a watch event: milliseconds)
    api.kubectl("create", "-f", "-", input=rb("fits", 2))
    used = api.kubectl_json("get", "federatedresourcequota", "-n", "quota-a", "team-cpu")
    used = used.get("status", {}).get("overallUsed", {})
    check(used.get("cpu") == "1", "overallUsed after a binding of 1 cpu: %r", used)
    proc = api.kubectl("create", "-f", "-", input=rb("too-much", 3), check=False)
    want = ("FederatedResourceQuota(quota-a/team-cpu) exceeded for resource cpu: requested sum "
            "2500m, limit 2.")
    check(proc.returncode != 0 and want in proc.stderr, "a binding over the quota: exit %d: %s%s",
          proc.returncode, proc.stdout, proc.stderr)
    print("  RB-2: admitted and written (overallUsed %s); refused: %s"
          % (json.dumps(used, sort_keys=True), proc.stderr.strip()), flush=True)
    api.kubectl("delete", "namespace", "quota-a", "--wait=false")


def test_metrics_count_every_registered_path(env):
    """controller_runtime_webhook_requests_total{code="200",webhook=<path>} >= 1 for every path
    of the configurations and /convert."""
    text = metrics_text()
    want = installers.registered_paths(env.configs) + [CONVERT_PATH]
    missing = [p for p in want if not re.search(
        r'controller_runtime_webhook_requests_total\{code="200",webhook="%s"\} [1-9]'
        % re.escape(p), text)]
    check(not missing, "no request counted for %s:\n%s", missing,
          "\n".join(l for l in text.splitlines() if "requests_total" in l)[:3000])
    print("  /metrics: requests with code 200 on all %d paths (%d entries + /convert)"
          % (len(set(want)), len(want) - 1), flush=True)


# --- the run --------------------------------------------------------------------------------------

def run(args, api, key: str, pki) -> int:
    t_all = time.monotonic()
    env = Env(key, args, api, pki)
    print("installer %s: %s" % (key, env.spec["name"]), flush=True)
    print("  command: %s" % " ".join(env.exact), flush=True)
    t0 = time.monotonic()
    env.rootfs = rootfs.make_rootfs(args.source, args.binary,
                                    os.path.join(harness.temp_dir("rootfs"), "rootfs"))
    print("  rootfs from %s (%.1f s); files: %s" % (args.binary, time.monotonic() - t0,
                                                    ", ".join(sorted(env.files))), flush=True)
    ports_free()
    before = [test_start_fails_without_the_key, test_start_fails_on_a_kubeconfig_that_is_not_yaml]
    status = harness.run_tests(before, env)

    ports_free()
    env.server = env.container(env.argv, env.files, "server").start()
    print("  started %s as uid 65532 (%s)" % (env.argv[0], env.server.mode), flush=True)
    try:
        ready = harness.run_tests([test_ready_as_the_probe_sees_it], env)
        check(ready == 0, "the server never became ready: nothing more to test")
        for row in env.rows:
            paths.RESOURCES[row.kind] = row.resource
        register(env)
        try:
            status |= harness.run_tests([test_valid_objects_are_stored,
                                         test_invalid_objects_are_refused_by_upstreams_entry,
                                         test_each_rule_family_is_refused,
                                         test_deletion_protection,
                                         test_conversion,
                                         test_ric1_through_the_cache]
                                        + ([test_quota_enforcement] if env.key == "A" else [])
                                        + [test_metrics_count_every_registered_path], env)
        finally:
            unregister(env)
    except BaseException:
        if env.server.alive():
            env.server.stop()
        print("server stderr (last lines):\n" + "\n".join(env.server.stderr().splitlines()[-30:]),
              flush=True)
        raise
    code = env.server.stop()
    if code != 0:
        print("FAIL stop: exit status %s after SIGTERM, want 0; stderr (last lines):\n%s" % (
            code, "\n".join(env.server.stderr().splitlines()[-30:])), flush=True)
        return 1
    print("  configurations removed, SIGTERM: exit status 0; installer %s in %.1f s"
          % (key, time.monotonic() - t_all), flush=True)
    return status


def main():
    # --installer is ours; the rest is what every e2e test takes (harness.parse_args).
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--installer", required=True, choices=sorted(installers.INSTALLERS))
    ours, rest = parser.parse_known_args()
    sys.argv[1:] = rest
    mode, why = rootfs.isolation()
    if mode is None:
        kube.skip("no container can be run here: %s" % why, how=HOW_TO_ISOLATE)
    spec = installers.INSTALLERS[ours.installer]
    # The API server trusts the installer's CA for client certificates: it must exist first.
    pki = installers.make_pki(spec, harness.temp_dir("pki-" + ours.installer))
    kube.main(lambda args, api: run(args, api, ours.installer, pki),
              extra_flags=["--client-ca-file", pki.ca])


if __name__ == "__main__":
    main()
