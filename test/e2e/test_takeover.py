#!/usr/bin/env python3
"""The switch in one command (docs/operations.md, "Switching from karmada-webhook"): our pods
behind upstream's karmada-webhook Service, serving upstream's Secret karmada-webhook-cert. Offline:
no cluster, no API server (test_apiserver_takeover.py runs the documented patches against one).

- manifests/overlays/takeover renders (`kubectl kustomize`, as test_manifests.py finds kubectl)
  to what runs the server only: no webhook configuration, no CRD, everything in karmada-system;
- its Deployment mounts upstream's Secret (UPSTREAM below, from upstream's own manifests) at the
  `--cert-dir` it passes, under the Secret's key names, and listens on the targetPort of upstream's
  Service;
- the two documented `kubectl patch service karmada-webhook` commands: JSON patches replacing the
  whole selector, the first with exactly our pod labels (which upstream's selector does not
  select), the second with upstream's selector (which does not select our pods);
- the documented table of upstream's paths we do not serve is upstream's configuration
  (../shared/upstream/webhook-configuration.yaml) less `routes`, and so are its counts;
- the server, started with the Deployment's own arguments on a pair laid out as the kubelet
  mounts that Secret (an RSA key in PKCS#1, as upstream's installers write it), answers on the
  targetPort with exactly that certificate, verified for karmada-webhook.karmada-system.svc: a
  denied and a mutated review, /convert, 404 on every documented unserved path and an answer on
  every other path of upstream's configuration.

    test_takeover.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402
from test_manifests import HOST_CLUSTER, deployment, http_status, one, read, run, yaml  # noqa: E402

OVERLAY = "takeover"
NAME = "karmada-policy-webhook-takeover"
NAMESPACE = "karmada-system"
# Upstream's Deployment and Service as artifacts/deploy/karmada-webhook.yaml (hack/local-up) has
# them, the parts that matter here; Helm, the karmada-operator and `karmadactl init` differ only in
# the names and labels docs/operations.md tabulates (karmada-io/karmada at the commit of
# ../shared/spec/, upstream-karmada.md 6.4). The Secret's keys: ca.crt, tls.crt, tls.key.
UPSTREAM = """\
apiVersion: v1
kind: Service
metadata:
  name: karmada-webhook
  namespace: karmada-system
spec:
  selector:
    app: karmada-webhook
  ports:
    - port: 443
      targetPort: 8443
"""
UPSTREAM_POD_LABELS = {"app": "karmada-webhook"}
UPSTREAM_SECRET = "karmada-webhook-cert"
UPSTREAM_SECRET_KEYS = ("ca.crt", "tls.crt", "tls.key")
SERVICE_HOST = "karmada-webhook.karmada-system.svc"   # what upstream's configurations call
PATCH_PREFIX = "kubectl -n karmada-system patch service karmada-webhook "
DOCS = os.path.join("docs", "operations.md")
SECTION = ("## Switching from karmada-webhook", "## Next to upstream Karmada's webhook")


# --- what the documentation says ------------------------------------------------------------------

def section(source: str) -> str:
    """docs/operations.md's "Switching from karmada-webhook", continuation lines joined."""
    text = read(os.path.join(source, DOCS))
    start, end = text.find(SECTION[0]), text.find(SECTION[1])
    check(0 <= start < end, "%s: no section %r before %r", DOCS, *SECTION)
    return re.sub(r"\\\n\s*", " ", text[start:end])


def documented_patches(source: str) -> list:
    """The two `kubectl -n karmada-system patch service karmada-webhook` commands, in order
    (switch, back), as argument lists."""
    lines = [line.strip() for line in section(source).splitlines()
             if line.strip().startswith(PATCH_PREFIX)]
    check(len(lines) == 2, "%s: %d lines start with %r, expected 2 (the switch, the way back)",
          DOCS, len(lines), PATCH_PREFIX)
    return [shlex.split(line) for line in lines]


def patched_selector(command: list) -> dict:
    """The selector a documented patch command sets; checks that it is a JSON patch replacing the
    whole map (a strategic-merge or merge patch would merge it with upstream's keys)."""
    check("--type" in command and command[command.index("--type") + 1] == "json"
          and "-p" in command, "not a JSON patch: %s", command)
    ops = json.loads(command[command.index("-p") + 1])
    check(len(ops) == 1 and ops[0]["op"] == "replace" and ops[0]["path"] == "/spec/selector"
          and isinstance(ops[0]["value"], dict), "not one replace of /spec/selector: %s", ops)
    return ops[0]["value"]


# What the section says when no path of upstream's configuration is left unserved (no table).
EVERY_PATH = "it serves every path upstream's configurations call"


def documented_unserved(source: str) -> list:
    """The paths of the table under "Is the switch safe here?" (none once we serve them all)."""
    text = section(source)
    text = text[text.find("#### Is the switch safe here?"):]
    return re.findall(r"^\| `[^`]+`[^|]*\| `(/[a-z-]+)` \| \w+ \|$", text, re.M)


def documented_count(source: str, pattern: str) -> int:
    m = re.search(pattern, section(source).replace("\n", " "))
    check(m, "%s: no %r", DOCS, pattern)
    return int(m.group(1))


def upstream_configuration(source: str):
    """Upstream's two webhook configurations (../shared/upstream/), or None without them."""
    path = os.path.join(kube.shared_dir(source), "upstream", "webhook-configuration.yaml")
    if not os.path.isfile(path):
        return None
    # {{caBundle}} is no YAML scalar: a string for the parser.
    text = read(path).replace("{{caBundle}}", '"{{caBundle}}"')
    return [d for d in yaml.safe_load_all(text) if d]


def upstream_paths(configs) -> list:
    """Every path upstream's configurations call (their URLs name the Service), sorted."""
    paths = set()
    for config in configs:
        for entry in config["webhooks"]:
            url = entry["clientConfig"]["url"]
            check(url.startswith("https://%s:443/" % SERVICE_HOST), "entry %s calls %s",
                  entry["name"], url)
            paths.add(url[len("https://%s:443" % SERVICE_HOST):])
    return sorted(paths)


def selects(selector: dict, labels: dict) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


# --- the overlay ----------------------------------------------------------------------------------

class Env:
    def __init__(self, args):
        self.binary, self.source = args.binary, args.source
        self.kubectl = os.environ.get("KUBECTL") or shutil.which("kubectl")
        check(self.kubectl, "kubectl not found: install it (Debian: kubernetes-client) or set "
              "KUBECTL; the overlay cannot be checked without rendering it")
        self.docs = self.render(os.path.join("overlays", OVERLAY))
        self.pod, self.container, self.args = deployment(self.docs, NAME)
        self.labels = one(self.docs, "Deployment", NAME)["spec"]["template"]["metadata"]["labels"]
        self.upstream_service = yaml.safe_load(UPSTREAM)
        self.routes = [r["path"] for r in harness.route_table(self.binary)]

    def render(self, folder: str) -> list:
        """The documents of `kubectl kustomize manifests/<folder>`."""
        path = os.path.join(self.source, "manifests", folder)
        proc = run([self.kubectl, "kustomize", path])
        check(proc.returncode == 0, "kubectl kustomize %s failed (%d): %s", path,
              proc.returncode, proc.stderr[-2000:])
        return [d for d in yaml.safe_load_all(proc.stdout) if d]


def test_overlay_holds_the_server_only(env):
    """Only what runs the server, in karmada-system: no webhook configuration, no CRD."""
    kinds = sorted(d["kind"] for d in env.docs)
    check(kinds == ["Deployment", "PodDisruptionBudget", "Service", "ServiceAccount"],
          "the overlay renders %s", kinds)
    for d in env.docs:
        check(d["kind"] in HOST_CLUSTER and d["metadata"].get("namespace") == NAMESPACE
              and d["metadata"]["name"] == NAME, "%s %s in %s", d["kind"], d["metadata"]["name"],
              d["metadata"].get("namespace"))
    check(env.pod["serviceAccountName"] == NAME, "serviceAccountName %s",
          env.pod["serviceAccountName"])


def test_deployment_mounts_upstreams_secret(env):
    """Upstream's Secret at --cert-dir, read only, its keys under the file names the flags read."""
    volumes = [v for v in env.pod["volumes"] if v.get("secret", {}).get("secretName")
               == UPSTREAM_SECRET]
    check(len(volumes) == 1, "no single volume of Secret %s: %s", UPSTREAM_SECRET,
          env.pod["volumes"])
    volume = volumes[0]
    mounts = [m for m in env.container["volumeMounts"] if m["name"] == volume["name"]]
    check(len(mounts) == 1 and mounts[0]["mountPath"] == env.args["--cert-dir"]
          and mounts[0].get("readOnly") and not mounts[0].get("subPath"),
          "Secret %s is mounted %s, --cert-dir is %s", UPSTREAM_SECRET, mounts,
          env.args["--cert-dir"])
    # Without `items` every key is a file of its own name; with them, the paths they give.
    files = {i["key"]: i["path"] for i in volume["secret"].get("items") or
             [{"key": k, "path": k} for k in UPSTREAM_SECRET_KEYS]}
    for flag, default in (("--tls-cert-file-name", "tls.crt"),
                          ("--tls-private-key-file-name", "tls.key")):
        name = env.args.get(flag, default)
        check(name in files.values(), "%s=%s is no file of Secret %s's volume (%s)", flag, name,
              UPSTREAM_SECRET, files)
    # Besides it, only upstream's own kubeconfig of karmada-apiserver (RIC-1's watch reads what
    # upstream's webhook reads: docs/operations.md, "Cluster state").
    others = [v for v in env.pod["volumes"] if v is not volume and "secret" in v
              and v["secret"]["secretName"] != "karmada-webhook-config"]
    check(not others, "other Secrets mounted: %s", others)
    check(env.args.get("--kubeconfig") == "/etc/karmada/config/karmada.config",
          "--kubeconfig %s, not upstream's path", env.args.get("--kubeconfig"))


def test_deployment_listens_on_upstreams_target_port(env):
    """HTTPS on every address, on the port upstream's Service sends its port 443 to."""
    ports = {p["port"]: p["targetPort"] for p in env.upstream_service["spec"]["ports"]}
    check(set(ports) == {443}, "upstream's Service ports %s", ports)
    target = ports[443]
    check(env.args["--secure-port"] == str(target), "--secure-port=%s, upstream's targetPort %s",
          env.args["--secure-port"], target)
    check(env.args["--bind-address"] == "0.0.0.0", "--bind-address=%s", env.args["--bind-address"])
    declared = [p for p in env.container["ports"] if p["containerPort"] == target]
    check(len(declared) == 1 and declared[0].get("protocol", "TCP") == "TCP",
          "container port %s: %s", target, env.container["ports"])


def test_documented_patches_select_one_side(env):
    """Switch: exactly our pod labels, which upstream's selector does not select and which do not
    select upstream's pods. Back: upstream's selector. Our own Service, PDB and Deployment select
    the same labels."""
    switch, back = (patched_selector(c) for c in documented_patches(env.source))
    upstream = env.upstream_service["spec"]["selector"]
    check(switch == env.labels, "the switch sets %s, our pods are labelled %s", switch, env.labels)
    check(back == upstream, "the way back sets %s, upstream's selector is %s", back, upstream)
    check(selects(upstream, UPSTREAM_POD_LABELS) and not selects(upstream, env.labels),
          "upstream's selector %s selects our pods %s", upstream, env.labels)
    check(not selects(switch, UPSTREAM_POD_LABELS), "our selector selects upstream's pods")
    dep = one(env.docs, "Deployment", NAME)["spec"]["selector"]["matchLabels"]
    svc = one(env.docs, "Service", NAME)["spec"]["selector"]
    pdb = one(env.docs, "PodDisruptionBudget", NAME)["spec"]["selector"]["matchLabels"]
    check(dep == svc == pdb == env.labels, "Deployment %s, Service %s, PDB %s, pods %s", dep, svc,
          pdb, env.labels)
    # Our pods of another overlay (our own certificate) must not be selected by the switch.
    other = one(env.render("server"), "Deployment", "karmada-policy-webhook")
    other_labels = other["spec"]["template"]["metadata"]["labels"]
    check(not selects(switch, other_labels), "the switch selects the pods of manifests/server "
          "(%s), which serve our own certificate", other_labels)


def test_documented_unserved_paths(env):
    """The documented table is upstream's configuration less `routes`, and its counts hold."""
    table = documented_unserved(env.source)
    check(not set(table) & set(env.routes), "the table lists paths we serve: %s",
          sorted(set(table) & set(env.routes)))
    admission = [r for r in harness.route_table(env.binary)
                 if r.get("takes", "AdmissionReview") == "AdmissionReview"]
    check(documented_count(env.source, r"serves (\d+) AdmissionReview paths") == len(admission),
          "the documented count of our AdmissionReview paths is not %d", len(admission))
    check("/convert" in env.routes, "we serve no /convert")
    configs = upstream_configuration(env.source)
    if configs is None:
        print("  NOTE: no ../shared/upstream/webhook-configuration.yaml: the table is not compared "
              "with upstream's configuration", flush=True)
        return
    paths = upstream_paths(configs)
    missing = sorted(set(paths) - set(env.routes))
    check(missing == sorted(table), "upstream's paths we do not serve are %s; the table says %s",
          missing, sorted(table))
    check(documented_count(env.source, r"call (\d+) paths") == len(paths),
          "the documented count of upstream's paths is not %d", len(paths))
    if missing:
        check(documented_count(env.source, r"These (\d+) of upstream's paths") == len(missing),
              "the documented count of unserved paths is not %d", len(missing))
    else:
        check(EVERY_PATH in section(env.source).replace("\n", " "),
              "we serve every path of upstream's configuration; %s does not say %r", DOCS,
              EVERY_PATH)
    print("  upstream's configuration calls %d paths; we serve %d of them and /convert; %d "
          "documented as not served" % (len(paths), len(paths) - len(missing), len(missing)),
          flush=True)


# --- the server on upstream's Secret --------------------------------------------------------------

def secret_volume(source: str) -> tuple:
    """(mount folder, CA file): a serving pair for upstream's Service names as upstream's
    installers make one (RSA, the key in PKCS#1: cfssl's and the operator's "RSA PRIVATE KEY"),
    laid out as the kubelet mounts Secret karmada-webhook-cert: a timestamped folder with the
    keys, `..data` linking to it, one link per key."""
    made = harness.temp_dir("upstream-pair")
    env = dict(os.environ, SERVICE="karmada-webhook", NAMESPACE=NAMESPACE)
    proc = subprocess.run([os.path.join(source, "certs", "make-certs.sh"), "--rsa", "--force",
                           made], env=env, capture_output=True, text=True, timeout=60)
    check(proc.returncode == 0, "make-certs.sh: %s%s", proc.stdout, proc.stderr)
    key = os.path.join(made, "tls.key")
    proc = subprocess.run(["openssl", "rsa", "-in", key, "-traditional", "-out", key + ".pkcs1"],
                          capture_output=True, text=True, timeout=60)
    check(proc.returncode == 0, "openssl rsa -traditional: %s", proc.stderr)
    check(read(key + ".pkcs1").startswith("-----BEGIN RSA PRIVATE KEY-----"), "not PKCS#1")
    mount = harness.temp_dir("karmada-webhook-cert")
    data = os.path.join(mount, "..2026_11_26_08_00_00.000000001")
    os.mkdir(data)
    for k, src in (("ca.crt", "ca.crt"), ("tls.crt", "tls.crt"), ("tls.key", "tls.key.pkcs1")):
        with open(os.path.join(made, src), "rb") as f, open(os.path.join(data, k), "wb") as out:
            out.write(f.read())
        os.chmod(os.path.join(data, k), 0o440)
    os.symlink(os.path.basename(data), os.path.join(mount, "..data"))
    for k in UPSTREAM_SECRET_KEYS:
        os.symlink(os.path.join("..data", k), os.path.join(mount, k))
    return mount, os.path.join(made, "ca.crt")


def loopback_with_port(port: int):
    """A 127.x.y.z address (all of 127/8 is loopback) where `port` is free, or None: the suite
    runs beside other servers, and 127.0.0.1:8443 is `make run`'s."""
    rnd = random.Random()
    for _ in range(20):
        addr = "127.%d.%d.%d" % (rnd.randrange(1, 255), rnd.randrange(256), rnd.randrange(1, 255))
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind((addr, port))
            return addr
        except OSError:
            continue
    return None


class ServiceConnection(http.client.HTTPSConnection):
    """HTTPS to `address`, verified as the API server verifies upstream's Service: the name
    karmada-webhook.karmada-system.svc (SNI and the certificate), trusting only the CA."""

    def __init__(self, address: str, port: int, ca: str):
        super().__init__(SERVICE_HOST, port, timeout=10)
        self.address = address
        self.ctx = ssl.create_default_context(cafile=ca)
        self.ctx.minimum_version = ssl.TLSVersion.TLSv1_2

    def connect(self):
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.ctx.wrap_socket(raw, server_hostname=SERVICE_HOST)

    def post(self, path: str, body: bytes):
        self.request("POST", path + "?timeout=3s", body=body, headers={
            "Content-Type": "application/json", "Accept": "application/json, */*"})
        resp = self.getresponse()
        return resp.status, resp.read()


def test_serves_upstreams_certificate_on_target_port(env):
    """The Deployment's arguments (addresses moved to this machine, --cert-dir to the Secret's
    stand-in) on upstream's pair: reviews over TLS to the targetPort, answered with exactly
    tls.crt, trusted by the CA for upstream's Service name."""
    mount, ca = secret_volume(env.source)
    args = dict(env.args)
    # No karmada-apiserver here: RIC-1's watch is test_apiserver_cluster_state.py's.
    args.pop("--kubeconfig", None)
    address = loopback_with_port(int(args["--secure-port"]))
    if address is None:
        address = "127.0.0.1"
        args["--secure-port"] = str(harness.free_port())
        print("  NOTE: port %s is taken on every loopback address tried: serving on %s instead "
              "(the Deployment's port is checked above)" % (env.args["--secure-port"],
                                                            args["--secure-port"]), flush=True)
    port = int(args["--secure-port"])
    probes, metrics = harness.free_port(), harness.free_port()
    args.update({"--bind-address": address, "--cert-dir": mount,
                 "--health-probe-bind-address": "127.0.0.1:%d" % probes,
                 "--metrics-bind-address": "127.0.0.1:%d" % metrics})
    log = os.path.join(harness.temp_dir("takeover"), "stderr")
    with open(log, "wb") as err:
        proc = subprocess.Popen([env.binary, "serve"] + ["%s=%s" % kv for kv in args.items()],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + harness.SERVER_START_TIMEOUT
        while http_status(probes, "/readyz") != 200 and time.monotonic() < deadline:
            check(proc.poll() is None, "the server exited %s: %s", proc.returncode, read(log))
            time.sleep(0.1)
        check(http_status(probes, "/readyz") == 200, "not ready: %s", read(log))
        print("  serving %s:%d from a Secret volume of %s" % (address, port,
                                                             ", ".join(UPSTREAM_SECRET_KEYS)),
              flush=True)
        check_answers(env, address, port, ca, os.path.join(mount, "tls.crt"))
        proc.send_signal(signal.SIGTERM)
        check(proc.wait(env.pod["terminationGracePeriodSeconds"]) == 0, "exit status after SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def check_answers(env, address, port, ca, cert_file):
    conn = ServiceConnection(address, port, ca)
    try:
        # A denial (V-P5), as the example in docs/operations.md's step 2.
        review = json.loads(read(os.path.join(env.source, "docs", "examples",
                                              "review-pp-denied.json")))
        status, body = conn.post("/validate-propagationpolicy", json.dumps(review).encode())
        served = ssl.DER_cert_to_PEM_cert(conn.sock.getpeercert(binary_form=True))
        check(served.strip() == read(cert_file).strip(), "the server did not present tls.crt")
        answer = json.loads(body)["response"]
        check(status == 200 and answer["uid"] == review["request"]["uid"]
              and answer["allowed"] is False and answer["status"]["code"] == 403,
              "/validate-propagationpolicy: %d %s", status, body[:300])
        # A mutation, on the same keep-alive connection.
        c01 = harness.load_fixture_body(env.source, harness.PP_PATH, "C01-base-allowed.json")
        status, body = conn.post("/mutate-propagationpolicy", c01)
        answer = json.loads(body)["response"]
        check(status == 200 and answer["allowed"] and answer.get("patchType") == "JSONPatch",
              "/mutate-propagationpolicy: %d %s", status, body[:300])
        # The bindings' CRD conversion, which upstream's CRD patches send to the same Service.
        fixture = fixture_check.load_fixture(harness.fixture_path(
            env.source, "/convert", "CV1-01-rb-realistic.json"))
        status, body = conn.post("/convert", fixture_check.request_body(fixture))
        answer = json.loads(body)["response"]
        check(status == 200 and answer["result"]["status"] == "Success"
              and len(answer["convertedObjects"]) == len(fixture["review"]["request"]["objects"]),
              "/convert: %d %s", status, body[:300])
        # Every path of upstream's configuration: answered, or 404 where the table says so.
        configs = upstream_configuration(env.source)
        unserved = documented_unserved(env.source)
        paths = upstream_paths(configs) if configs is not None else sorted(
            set(unserved) | {p for p in env.routes if p != "/convert"})
        body = json.dumps(review).encode()
        wrong = []
        for path in paths:
            status, _ = conn.post(path, body)
            if status != (404 if path in unserved else 200):
                wrong.append("%s: HTTP %d" % (path, status))
        check(not wrong, "upstream's paths, answered otherwise than documented: %s", wrong)
        print("  %d of upstream's paths answered, %d of them with 404 as documented"
              % (len(paths), len(unserved)), flush=True)
    finally:
        conn.close()


TESTS = [test_overlay_holds_the_server_only, test_deployment_mounts_upstreams_secret,
         test_deployment_listens_on_upstreams_target_port, test_documented_patches_select_one_side,
         test_documented_unserved_paths, test_serves_upstreams_certificate_on_target_port]

if __name__ == "__main__":
    harness.main(lambda args: harness.run_tests(TESTS, Env(args)))
