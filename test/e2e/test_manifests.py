#!/usr/bin/env python3
"""The deployment manifests (manifests/): every overlay renders, and what it renders fits the server.

Renders manifests/base and every manifests/overlays/* with `kubectl kustomize` (kubectl 1.20's
built-in kustomize v2.0.3 and later ones; $KUBECTL overrides the kubectl on PATH) and checks:

- every webhook path of the kind table (`karmada-policy-webhook kinds`) has exactly one entry, in the
  Mutating or Validating configuration as the registry says, with the right group, resource and
  scope, and no entry points at a path the server does not serve;
- the entries' common fields (the route's operations, Fail, None, v1+v1beta1, 3 s, Equivalent), their
  clientConfig (the Service and its namespace, or an https URL) and their CA (caBundle, or
  cert-manager's inject-ca-from naming a Certificate that makes the Secret the pods mount);
- every flag of the Deployment is one `serve --help` lists, and the Deployment as written starts
  the server (probe and metrics ports answer) and stops on SIGTERM within its grace period;
- the Deployment's security context, probes, resources, rollout, volume; the Service and the PDB;
- fill-ca-bundle.sh and set-url-host.sh work and are idempotent (on a copy of manifests/);
- the Dockerfile builds from the Makefile's packages and runs `serve` as user 65532.

Needs kubectl and PyYAML (Debian: kubernetes-client or any kubectl, python3-yaml). A missing kubectl
FAILS the test: it never passes without rendering.

    test_manifests.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import check  # noqa: E402

SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import yaml
except ImportError:  # e.g. a pyenv python without PyYAML: Debian's python3-yaml is the system one's
    if (os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            and os.access(SYSTEM_PYTHON, os.X_OK) and not os.environ.get("KPW_MANIFESTS_REEXEC")):
        os.environ["KPW_MANIFESTS_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    yaml = None

RENDER_TIMEOUT = 120          # seconds per `kubectl kustomize`
SERVER_START_TIMEOUT = 15.0   # seconds until the Deployment's server answers its probes

EXPECTED_OVERLAYS = ("cert-manager", "self-signed", "url")
NAME = "karmada-policy-webhook"
APPLY_TO = "karmada-policy-webhook.karmada.io/apply-to"
CA_PLACEHOLDER = "{{caBundle}}"
INJECT_CA = "cert-manager.io/inject-ca-from"

# The Deployment's arguments, as the issue fixes them.
EXPECTED_ARGS = {
    "--bind-address": "0.0.0.0",
    "--secure-port": "8443",
    "--cert-dir": "/var/serving-cert",
    "--tls-cert-file-name": "tls.crt",
    "--tls-private-key-file-name": "tls.key",
    "--tls-min-version": "1.3",
    "--health-probe-bind-address": ":8000",
    "--metrics-bind-address": ":8080",
    "--logging-format": "json",
    "--shutdown-delay": "5s",
    "--shutdown-grace": "30s",
}

HOST_CLUSTER_KINDS = {"Deployment", "Service", "PodDisruptionBudget", "ServiceAccount", "Secret",
                      "Issuer", "Certificate"}
KARMADA_APISERVER_KINDS = {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                           "CustomResourceDefinition"}


# --- helpers -------------------------------------------------------------------------------------

class Problems:
    """Collects every problem of a test, so one run shows all of them."""

    def __init__(self):
        self.items = []

    def add(self, where: str, message: str, *args):
        self.items.append("%s: %s" % (where, message % args if args else message))

    def expect(self, condition, where: str, message: str, *args):
        if not condition:
            self.add(where, message, *args)
        return bool(condition)

    def done(self):
        check(not self.items, "%d problem(s):\n  %s", len(self.items), "\n  ".join(self.items))


def duration_seconds(text: str) -> float:
    """Go-style duration ("5s", "1m30s", "500ms") or plain seconds."""
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    check(parts and "".join(a + b for a, b in parts) == text, "not a duration: %r", text)
    return sum(float(a) * units[b] for a, b in parts)


def address_port(address: str) -> int:
    """Port of `host:port`, `:port` or `[v6]:port`."""
    m = re.fullmatch(r"(?:\[[^\]]*\]|[^:\[\]]*):(\d+)", address)
    check(m is not None, "not a host:port address: %r", address)
    return int(m.group(1))


def run(cmd, timeout=RENDER_TIMEOUT, cwd=None, env=None):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout, cwd=cwd, env=env)


def labels_match(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


# --- the registry --------------------------------------------------------------------------------

def read_kinds(binary: str):
    """The kind table (harness.kind_table): the registry rows [(path, group, kind, mutating)] and
    {(group, kind): (plural, scope)}."""
    rows, kinds = [], {}
    for k in harness.kind_table(binary):
        kinds[(k.group, k.kind)] = (k.resource, k.scope)
        if k.validate_path:  # a kind may have a mutating path only (ClusterResourceBinding)
            rows.append((k.validate_path, k.group, k.kind, False))
        if k.mutate_path:
            rows.append((k.mutate_path, k.group, k.kind, True))
    return rows, kinds


# --- the environment -----------------------------------------------------------------------------

class Env:
    def __init__(self, binary: str, source: str):
        self.binary = binary
        self.source = source
        self.manifests = os.path.join(source, "manifests")
        self.kubectl = os.environ.get("KUBECTL") or shutil.which("kubectl")
        self.kubectl_version = None
        self.registry, self.kinds = read_kinds(binary)
        # What each path registers (the route table's operations: CREATE only for the bindings'
        # mutators, as upstream's entries).
        self.operations = {r["path"]: sorted(r["operations"]) for r in harness.route_table(binary)}
        self.rendered = {}         # "base", "overlays/<name>" -> [documents]
        self.render_errors = {}    # same keys -> message

    def targets(self) -> list:
        """Every kustomization to render: base and each overlay (relative to manifests/)."""
        found = ["base"]
        for path in sorted(glob.glob(os.path.join(self.manifests, "overlays", "*",
                                                  "kustomization.yaml"))):
            found.append("overlays/" + os.path.basename(os.path.dirname(path)))
        return found

    def overlays(self) -> list:
        """Rendered overlays; fails when one could not be rendered."""
        names = [t for t in self.targets() if t.startswith("overlays/")]
        missing = [n for n in names if n not in self.rendered]
        check(not missing, "not rendered (see test render_every_overlay): %s",
              ", ".join("%s (%s)" % (n, self.render_errors.get(
                  n, "no kubectl" if self.kubectl is None else "?")) for n in missing))
        return [(n, self.rendered[n]) for n in names]

    def need_kubectl(self):
        check(self.kubectl is not None,
              "kubectl not found: install it (Debian: apt-get install kubernetes-client) or set "
              "KUBECTL=/path/to/kubectl; the manifests cannot be checked without rendering them")

    def render(self, directory: str) -> list:
        """`kubectl kustomize DIR` parsed into a list of documents."""
        self.need_kubectl()
        proc = run([self.kubectl, "kustomize", directory])
        # Newer kustomize warns that the fields kubectl 1.20's needs are deprecated: not news.
        stderr = "\n".join(line for line in proc.stderr.decode("utf-8", "replace").splitlines()
                           if not line.startswith("# Warning: "))
        check(proc.returncode == 0, "kubectl kustomize %s failed (%d): %s", directory,
              proc.returncode, stderr.strip()[-2000:])
        try:
            docs = [d for d in yaml.safe_load_all(proc.stdout.decode("utf-8")) if d]
        except yaml.YAMLError as e:
            raise AssertionError("kubectl kustomize %s printed invalid YAML: %s" % (directory, e))
        for d in docs:
            check(isinstance(d, dict) and d.get("kind") and isinstance(d.get("metadata"), dict),
                  "kubectl kustomize %s printed a document without kind/metadata: %r", directory,
                  str(d)[:200])
        return docs


def find(docs, kind, name=None):
    return [d for d in docs if d.get("kind") == kind
            and (name is None or d["metadata"].get("name") == name)]


def one(docs, kind, name=None):
    found = find(docs, kind, name)
    check(len(found) == 1, "expected one %s%s, found %d", kind, " " + name if name else "",
          len(found))
    return found[0]


def deployment_parts(docs):
    """(deployment, pod spec, container, {--flag: value}) of the one Deployment."""
    dep = one(docs, "Deployment", NAME)
    pod = dep["spec"]["template"]["spec"]
    containers = pod.get("containers") or []
    check(len(containers) == 1, "the Deployment has %d containers, expected 1", len(containers))
    container = containers[0]
    args = {}
    for arg in container.get("args") or []:
        m = re.fullmatch(r"(--[a-z0-9][a-z0-9-]*)=(.*)", str(arg))
        check(m is not None, "Deployment argument %r is not of the form --flag=value", arg)
        check(m.group(1) not in args, "Deployment argument %s given twice", m.group(1))
        args[m.group(1)] = m.group(2)
    return dep, pod, container, args


# --- tests: rendering ---------------------------------------------------------------------------

def test_render_every_overlay(env):
    if yaml is None:
        raise AssertionError("PyYAML is not installed (Debian: apt-get install python3-yaml)")
    env.need_kubectl()
    proc = run([env.kubectl, "version", "--client"])
    env.kubectl_version = proc.stdout.decode("utf-8", "replace").strip().splitlines()[:1]
    print("  kubectl: %s (%s)" % (env.kubectl, "; ".join(env.kubectl_version)), flush=True)
    problems = Problems()
    targets = env.targets()
    for name in EXPECTED_OVERLAYS:
        problems.expect("overlays/" + name in targets, "manifests/overlays/" + name,
                        "missing (no kustomization.yaml)")
    for target in targets:
        try:
            env.rendered[target] = env.render(os.path.join(env.manifests, target))
        except AssertionError as e:
            env.render_errors[target] = str(e).splitlines()[0][:300]
            problems.add(target, "%s", e)
    problems.done()


def test_registry_rows_are_known(env):
    problems = Problems()
    paths = [row[0] for row in env.registry]
    problems.expect(len(paths) == len(set(paths)), "kind table", "a path is served twice")
    for path, group, kind, mutating in env.registry:
        problems.expect((group, kind) in env.kinds, path,
                        "kind %s/%s has no plural/scope in the kind table", group,
                        kind)
        prefix = "/mutate-" if mutating else "/validate-"
        problems.expect(path.startswith(prefix), path, "mutating=%s but the path does not start "
                        "with %s", mutating, prefix)
    problems.done()


def test_crds_agree_and_are_rendered(env):
    problems = Problems()
    crd_files = sorted(glob.glob(os.path.join(env.manifests, "crds", "*.yaml")))
    crds = []
    for path in crd_files:
        with open(path, encoding="utf-8") as f:
            crds += [d for d in yaml.safe_load_all(f)
                     if d and d.get("kind") == "CustomResourceDefinition"]
    problems.expect(crds, "manifests/crds", "holds no CustomResourceDefinition")
    for crd in crds:
        spec = crd["spec"]
        key = (spec["group"], spec["names"]["kind"])
        got = (spec["names"]["plural"], spec["scope"])
        if key in env.kinds:
            problems.expect(env.kinds[key] == got, crd["metadata"]["name"],
                            "CRD says %s, the kind table says %s", got, env.kinds[key])
    for name, docs in [("base", env.rendered.get("base"))] + env.overlays():
        problems.expect(docs is not None, name, "not rendered")
        for crd in crds:
            problems.expect(find(docs or [], "CustomResourceDefinition", crd["metadata"]["name"]),
                            name, "does not include CRD %s", crd["metadata"]["name"])
    problems.done()


# --- tests: webhook configurations ----------------------------------------------------------------

def entry_path(entry):
    client = entry.get("clientConfig") or {}
    if client.get("service"):
        return (client["service"].get("path") or "")
    if client.get("url"):
        return urllib.parse.urlsplit(client["url"]).path
    return None


def test_webhooks_match_registry(env):
    """Every registered path once, in the right configuration, with the right rule; nothing more."""
    problems = Problems()
    for overlay, docs in env.overlays():
        for kind, mutating in (("MutatingWebhookConfiguration", True),
                               ("ValidatingWebhookConfiguration", False)):
            configs = find(docs, kind)
            problems.expect(configs, overlay, "no %s", kind)
            entries = [e for c in configs for e in (c.get("webhooks") or [])]
            names = [e.get("name") for e in entries]
            problems.expect(len(names) == len(set(names)), overlay, "%s has duplicate webhook "
                            "names: %s", kind, names)
            by_path = {}
            for e in entries:
                by_path.setdefault(entry_path(e), []).append(e)
            wanted = {row[0]: row for row in env.registry if row[3] == mutating}
            for path, group, reg_kind, _ in wanted.values():
                where = "%s %s %s" % (overlay, kind, path)
                found = by_path.get(path, [])
                if not problems.expect(len(found) == 1, where, "%d entries, expected 1",
                                       len(found)):
                    continue
                e = found[0]
                plural, scope = env.kinds.get((group, reg_kind), ("?", "?"))
                rules = e.get("rules") or []
                if problems.expect(len(rules) == 1, where, "%d rules, expected 1", len(rules)):
                    r = rules[0]
                    problems.expect(r.get("apiGroups") == [group], where, "apiGroups %s, expected "
                                    "[%s]", r.get("apiGroups"), group)
                    problems.expect(r.get("resources") == [plural], where, "resources %s, "
                                    "expected [%s]", r.get("resources"), plural)
                    problems.expect(r.get("scope") == scope, where, "scope %s, expected %s",
                                    r.get("scope"), scope)
                    want_ops = env.operations.get(path, ["CREATE", "UPDATE"])
                    problems.expect(sorted(r.get("operations") or []) == want_ops,
                                    where, "operations %s, expected %s (the route table's)",
                                    r.get("operations"), " and ".join(want_ops))
                    versions = r.get("apiVersions") or []
                    problems.expect("v1alpha1" in versions or "*" in versions, where,
                                    "apiVersions %s do not include v1alpha1", versions)
                problems.expect(e.get("failurePolicy") == "Fail", where, "failurePolicy %s",
                                e.get("failurePolicy"))
                problems.expect(e.get("sideEffects") == "None", where, "sideEffects %s",
                                e.get("sideEffects"))
                problems.expect(e.get("admissionReviewVersions") == ["v1", "v1beta1"], where,
                                "admissionReviewVersions %s", e.get("admissionReviewVersions"))
                problems.expect(e.get("timeoutSeconds") == 3, where, "timeoutSeconds %s",
                                e.get("timeoutSeconds"))
                problems.expect(e.get("matchPolicy") == "Equivalent", where, "matchPolicy %s",
                                e.get("matchPolicy"))
                problems.expect(str(e.get("name", "")).endswith(".%s.karmada.io" % NAME), where,
                                "name %r is not <kind>.%s.karmada.io", e.get("name"), NAME)
                if mutating:
                    problems.expect(e.get("reinvocationPolicy", "Never") == "Never", where,
                                    "reinvocationPolicy %s", e.get("reinvocationPolicy"))
            for path, found in by_path.items():
                problems.expect(path in wanted, "%s %s" % (overlay, kind),
                                "entries %s point at %r, which the server does not register as a "
                                "%s path", [e.get("name") for e in found], path,
                                "mutating" if mutating else "validating")
    problems.done()


def check_ca_bundle(problems, where, value, allow_placeholder):
    if value == CA_PLACEHOLDER:
        problems.expect(allow_placeholder, where, "caBundle is still the %s placeholder",
                        CA_PLACEHOLDER)
        return
    try:
        pem = base64.b64decode(value, validate=True)
    except (ValueError, TypeError):
        problems.add(where, "caBundle is not base64: %r", str(value)[:60])
        return
    problems.expect(b"-----BEGIN CERTIFICATE-----" in pem, where,
                    "caBundle does not decode to a PEM certificate")


def check_client_configs(problems, overlay, docs, allow_placeholder=True, ca_pem=None,
                         url_host=None):
    """clientConfig and CA of every entry of one rendered overlay."""
    services = find(docs, "Service", NAME)
    service = services[0] if len(services) == 1 else None
    problems.expect(service is not None, overlay, "expected one Service %s", NAME)
    for config in find(docs, "MutatingWebhookConfiguration") + \
            find(docs, "ValidatingWebhookConfiguration"):
        annotations = config["metadata"].get("annotations") or {}
        inject = annotations.get(INJECT_CA)
        if inject is not None:
            ns, _, cert_name = inject.partition("/")
            certs = [c for c in find(docs, "Certificate", cert_name)
                     if c["metadata"].get("namespace") == ns]
            if problems.expect(len(certs) == 1, "%s %s" % (overlay, config["kind"]),
                               "%s=%s names no Certificate of this overlay", INJECT_CA, inject):
                spec = certs[0]["spec"]
                _, pod, _, _ = deployment_parts(docs)
                secrets = [v["secret"]["secretName"] for v in pod.get("volumes") or []
                           if v.get("secret")]
                problems.expect(spec.get("secretName") in secrets, overlay,
                                "Certificate %s writes Secret %s, the pods mount %s", cert_name,
                                spec.get("secretName"), secrets)
                if service is not None:
                    svc_ns = service["metadata"].get("namespace")
                    dns = "%s.%s.svc" % (service["metadata"]["name"], svc_ns)
                    problems.expect(dns in (spec.get("dnsNames") or []), overlay,
                                    "Certificate %s does not name %s", cert_name, dns)
                issuer = (spec.get("issuerRef") or {}).get("name")
                problems.expect(find(docs, (spec.get("issuerRef") or {}).get("kind", "Issuer"),
                                     issuer), overlay, "Certificate %s: issuer %s is not in the "
                                "overlay", cert_name, issuer)
        for e in config.get("webhooks") or []:
            where = "%s %s %s" % (overlay, config["kind"], e.get("name"))
            client = e.get("clientConfig") or {}
            has_service, has_url = bool(client.get("service")), bool(client.get("url"))
            problems.expect(has_service != has_url, where, "clientConfig needs exactly one of "
                            "service and url: %s", client)
            if os.path.basename(overlay.split(" ")[0]) == "url":
                # karmada-apiserver has no Service of ours: an entry the url patches missed
                # (they patch by index) would call nothing.
                problems.expect(has_url, where, "the url overlay left this entry on a Service")
            if has_service and service is not None:
                ref = client["service"]
                problems.expect(ref.get("name") == service["metadata"]["name"], where,
                                "service.name %s, the Service is %s", ref.get("name"),
                                service["metadata"]["name"])
                svc_ns = service["metadata"].get("namespace")
                problems.expect(svc_ns, overlay, "the Service has no namespace")
                problems.expect(ref.get("namespace") == svc_ns, where, "service.namespace %s, "
                                "the Service is in %s", ref.get("namespace"), svc_ns)
                ports = [p.get("port") for p in service["spec"].get("ports") or []]
                problems.expect(ref.get("port", 443) in ports, where, "service.port %s is not a "
                                "port of the Service (%s)", ref.get("port", 443), ports)
            if has_url:
                u = urllib.parse.urlsplit(client["url"])
                problems.expect(u.scheme == "https" and u.hostname and not u.query
                                and not u.fragment and not u.username, where,
                                "url %s is not https://host[:port]/path", client["url"])
                if url_host is not None:
                    problems.expect(u.netloc == url_host, where, "url host %s, expected %s",
                                    u.netloc, url_host)
            bundle = client.get("caBundle")
            if inject is not None:
                problems.expect(not bundle, where, "has a caBundle and %s: cainjector and "
                                "kubectl apply would fight over it", INJECT_CA)
            elif problems.expect(bundle, where, "no caBundle and no %s annotation", INJECT_CA):
                check_ca_bundle(problems, where, bundle, allow_placeholder)
                if ca_pem is not None:
                    problems.expect(bundle == base64.b64encode(ca_pem).decode(), where,
                                    "caBundle is not base64 of the CA given to fill-ca-bundle.sh")


def test_webhook_client_config_and_ca(env):
    problems = Problems()
    for overlay, docs in env.overlays():
        check_client_configs(problems, overlay, docs)
    problems.done()


def test_apply_to_labels(env):
    """Every object says which API server it goes to (the url overlay splits by this label)."""
    problems = Problems()
    for overlay, docs in env.overlays():
        namespaces = set()
        for d in docs:
            kind, meta = d["kind"], d["metadata"]
            where = "%s %s %s" % (overlay, kind, meta.get("name"))
            label = (meta.get("labels") or {}).get(APPLY_TO)
            if kind in HOST_CLUSTER_KINDS:
                problems.expect(label == "host-cluster", where, "%s=%s, expected host-cluster",
                                APPLY_TO, label)
                problems.expect(meta.get("namespace"), where, "no namespace")
                namespaces.add(meta.get("namespace"))
            elif kind in KARMADA_APISERVER_KINDS:
                problems.expect(label == "karmada-apiserver", where,
                                "%s=%s, expected karmada-apiserver", APPLY_TO, label)
            else:
                problems.expect(label in ("host-cluster", "karmada-apiserver"), where,
                                "%s=%s", APPLY_TO, label)
        problems.expect(len(namespaces) <= 1, overlay, "the server's objects are spread over "
                        "namespaces %s", sorted(map(str, namespaces)))
    problems.done()


# --- tests: the Deployment --------------------------------------------------------------------------

def serve_help_flags(env) -> set:
    proc = run([env.binary, "serve", "--help"], timeout=30)
    check(proc.returncode == 0, "%s serve --help exited %d: %s", env.binary, proc.returncode,
          proc.stderr.decode("utf-8", "replace")[:500])
    text = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    return set(re.findall(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*)", text))


def test_deployment_flags_are_served(env):
    """Every --flag of every overlay's Deployment is one `serve --help` lists."""
    known = serve_help_flags(env)
    problems = Problems()
    for overlay, docs in env.overlays():
        _, _, _, args = deployment_parts(docs)
        for flag in args:
            problems.expect(flag in known, overlay, "Deployment argument %s is not a flag of "
                            "`%s serve` (--help lists: %s)", flag, os.path.basename(env.binary),
                            " ".join(sorted(known)))
        for flag, value in EXPECTED_ARGS.items():
            problems.expect(args.get(flag) == value, overlay, "Deployment argument %s=%s, "
                            "expected %s", flag, args.get(flag), value)
    problems.done()


def effective(pod, container, key):
    """A security setting: the container's, else the pod's."""
    c = container.get("securityContext") or {}
    return c[key] if key in c else (pod.get("securityContext") or {}).get(key)


def port_number(container, port):
    if isinstance(port, int):
        return port
    for p in container.get("ports") or []:
        if p.get("name") == port:
            return p.get("containerPort")
    return None


def test_deployment_security_probes_and_rollout(env):
    problems = Problems()
    for overlay, docs in env.overlays():
        dep, pod, c, args = deployment_parts(docs)
        spec = dep["spec"]
        w = overlay + " Deployment"
        problems.expect(spec.get("replicas") == 2, w, "replicas %s", spec.get("replicas"))
        strategy = spec.get("strategy") or {}
        rolling = strategy.get("rollingUpdate") or {}
        problems.expect(strategy.get("type", "RollingUpdate") == "RollingUpdate"
                        and rolling.get("maxUnavailable") == 0 and rolling.get("maxSurge") == 1,
                        w, "strategy %s, expected RollingUpdate maxUnavailable 0 maxSurge 1",
                        strategy)
        # Security.
        problems.expect(effective(pod, c, "runAsNonRoot") is True, w, "runAsNonRoot not true")
        problems.expect(effective(pod, c, "runAsUser") == 65532, w, "runAsUser %s",
                        effective(pod, c, "runAsUser"))
        sc = c.get("securityContext") or {}
        problems.expect(sc.get("readOnlyRootFilesystem") is True, w,
                        "readOnlyRootFilesystem not true")
        problems.expect(sc.get("allowPrivilegeEscalation") is False, w,
                        "allowPrivilegeEscalation not false")
        problems.expect("ALL" in ((sc.get("capabilities") or {}).get("drop") or []), w,
                        "capabilities.drop lacks ALL")
        problems.expect(not (sc.get("capabilities") or {}).get("add"), w, "adds capabilities")
        problems.expect(not sc.get("privileged"), w, "privileged")
        problems.expect((effective(pod, c, "seccompProfile") or {}).get("type") == "RuntimeDefault",
                        w, "seccompProfile %s", effective(pod, c, "seccompProfile"))
        problems.expect(pod.get("automountServiceAccountToken") is False, w,
                        "automountServiceAccountToken not false")
        problems.expect(not pod.get("hostNetwork"), w, "hostNetwork")
        # Resources.
        res = c.get("resources") or {}
        problems.expect((res.get("requests") or {}).get("cpu") == "100m"
                        and (res.get("requests") or {}).get("memory") == "32Mi", w,
                        "requests %s, expected cpu 100m memory 32Mi", res.get("requests"))
        problems.expect((res.get("limits") or {}).get("memory") == "256Mi", w,
                        "limits %s, expected memory 256Mi", res.get("limits"))
        # Ports and probes agree with the flags.
        ports = {p.get("name"): p.get("containerPort") for p in c.get("ports") or []}
        want_ports = {"https": int(args.get("--secure-port", "8443")),
                      "probes": address_port(args.get("--health-probe-bind-address", ":8000")),
                      "metrics": address_port(args.get("--metrics-bind-address", ":8080"))}
        problems.expect(ports == want_ports, w, "container ports %s, expected %s", ports,
                        want_ports)
        for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
            get = (c.get(probe) or {}).get("httpGet") or {}
            problems.expect(get.get("path") == path
                            and port_number(c, get.get("port")) == want_ports["probes"]
                            and get.get("scheme", "HTTP") == "HTTP", w,
                            "%s %s, expected HTTP GET %s on port %d", probe, get or None, path,
                            want_ports["probes"])
        pre_stop = ((c.get("lifecycle") or {}).get("preStop") or {}).get("exec", {}).get("command")
        try:
            delay = duration_seconds(args.get("--shutdown-delay", "0"))
        except AssertionError:
            delay = -1
        problems.expect(pre_stop == ["sleep", "%g" % delay], w,
                        "preStop %s, expected a sleep matching --shutdown-delay (%g s)", pre_stop,
                        delay)
        # Graceful stop fits in the grace period: preStop sleep, shutdown delay, grace.
        try:
            needed = 2 * duration_seconds(args.get("--shutdown-delay", "0")) + \
                duration_seconds(args.get("--shutdown-grace", "0"))
        except AssertionError as e:
            problems.add(w, "%s", e)
            needed = 0
        grace = pod.get("terminationGracePeriodSeconds", 30)
        problems.expect(grace > needed, w, "terminationGracePeriodSeconds %s is not more than "
                        "preStop + --shutdown-delay + --shutdown-grace (%g s)", grace, needed)
        # Serving certificate volume.
        mounts = {m.get("name"): m for m in c.get("volumeMounts") or []}
        cert_mounts = [m for m in mounts.values() if m.get("mountPath") == args.get("--cert-dir")]
        if problems.expect(len(cert_mounts) == 1, w, "nothing mounted at --cert-dir %s",
                           args.get("--cert-dir")):
            m = cert_mounts[0]
            problems.expect(m.get("readOnly") is True, w, "the certificate mount is not readOnly")
            vols = [v for v in pod.get("volumes") or [] if v.get("name") == m.get("name")]
            problems.expect(len(vols) == 1 and (vols[0].get("secret") or {}).get("secretName")
                            == "%s-cert" % NAME, w, "volume %s is not Secret %s-cert",
                            m.get("name"), NAME)
            problems.expect(not m.get("subPath"), w, "the certificate mount uses subPath, which "
                            "never sees Secret updates")
        # Spread over nodes.
        labels = dep["spec"]["template"]["metadata"].get("labels") or {}
        problems.expect(labels_match((dep["spec"].get("selector") or {}).get("matchLabels"),
                                     labels), w, "selector does not match the pod labels")
        terms = ((pod.get("affinity") or {}).get("podAntiAffinity") or {}) \
            .get("preferredDuringSchedulingIgnoredDuringExecution") or []
        problems.expect(any(t.get("podAffinityTerm", {}).get("topologyKey") ==
                            "kubernetes.io/hostname" and labels_match(
                                (t["podAffinityTerm"].get("labelSelector") or {})
                                .get("matchLabels"), labels) for t in terms), w,
                        "no preferred pod anti-affinity by hostname on its own labels")
        problems.expect(c.get("image"), w, "no image")
    problems.done()


def test_service_and_disruption_budget(env):
    problems = Problems()
    for overlay, docs in env.overlays():
        dep, _, c, args = deployment_parts(docs)
        labels = dep["spec"]["template"]["metadata"].get("labels") or {}
        svc = one(docs, "Service", NAME)
        w = overlay + " Service"
        problems.expect(labels_match(svc["spec"].get("selector"), labels), w,
                        "selector %s does not match the pod labels %s", svc["spec"].get("selector"),
                        labels)
        ports = {p.get("port"): port_number(c, p.get("targetPort"))
                 for p in svc["spec"].get("ports") or []}
        problems.expect(ports.get(443) == int(args.get("--secure-port", "8443")), w,
                        "port 443 goes to %s, not --secure-port", ports.get(443))
        problems.expect(ports.get(8080) == address_port(args.get("--metrics-bind-address",
                                                                   ":8080")), w,
                        "port 8080 goes to %s, not the metrics port", ports.get(8080))
        pdb = one(docs, "PodDisruptionBudget", NAME)
        w = overlay + " PodDisruptionBudget"
        problems.expect(pdb["spec"].get("minAvailable") == 1, w, "minAvailable %s",
                        pdb["spec"].get("minAvailable"))
        problems.expect(labels_match((pdb["spec"].get("selector") or {}).get("matchLabels"),
                                     labels), w, "selector does not match the pod labels")
    problems.done()


def http_get(port: int, path: str):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (OSError, urllib.error.URLError):
        return None, b""


def test_deployment_args_start_the_server(env):
    """The Deployment's own arguments (addresses, ports and --cert-dir moved to this machine) start
    the server: probes and /metrics answer; SIGTERM stops it within its grace period."""
    overlay, docs = env.overlays()[0]
    _, pod, _, args = deployment_parts(docs)
    certs = harness.make_certs(env.source)
    https, probes, metrics = harness.free_port(), harness.free_port(), harness.free_port()
    local = dict(args)
    local.update({"--bind-address": "127.0.0.1", "--secure-port": str(https),
                  "--cert-dir": certs, "--health-probe-bind-address": "127.0.0.1:%d" % probes,
                  "--metrics-bind-address": "127.0.0.1:%d" % metrics})
    cmd = [env.binary, "serve"] + ["%s=%s" % kv for kv in local.items()]
    log = open(os.path.join(harness.temp_dir("deployment-args"), "stderr"), "w+b")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)

    def stderr():
        log.seek(0)
        return log.read().decode("utf-8", "replace")[-3000:]

    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        ready = None
        while time.monotonic() < deadline and proc.poll() is None:
            ready = http_get(probes, "/readyz")[0]
            if ready == 200 and harness.port_is_listening(https):
                break
            time.sleep(0.1)
        check(proc.poll() is None, "the server exited with status %s; command: %s; stderr:\n%s",
              proc.returncode, " ".join(cmd), stderr())
        check(ready == 200, "GET /readyz on the probe port: %s after %.0f s; stderr:\n%s", ready,
              SERVER_START_TIMEOUT, stderr())
        check(harness.port_is_listening(https), "nothing listens on the HTTPS port")
        status, _ = http_get(probes, "/healthz")
        check(status == 200, "GET /healthz on the probe port: %s", status)
        status, body = http_get(metrics, "/metrics")
        check(status == 200 and b"controller_runtime_webhook_requests_total" in body,
              "GET /metrics on the metrics port: %s %r", status, body[:200])
        grace = pod.get("terminationGracePeriodSeconds", 30)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(grace)
        except subprocess.TimeoutExpired:
            raise AssertionError("still running %d s (terminationGracePeriodSeconds) after "
                                 "SIGTERM; stderr:\n%s" % (grace, stderr()))
        check(code == 0, "exit status %s after SIGTERM; stderr:\n%s", code, stderr())
        print("  stopped %.1f s after SIGTERM (grace period %d s)" % (time.monotonic() - t0, grace),
              flush=True)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


# --- tests: the scripts ----------------------------------------------------------------------------

def copy_manifests(env) -> str:
    root = harness.temp_dir("manifests")
    shutil.copytree(env.manifests, os.path.join(root, "manifests"))
    return os.path.join(root, "manifests")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_fill_ca_bundle(env):
    """fill-ca-bundle.sh CERT_DIR puts base64(ca.crt) into every entry of the self-signed and url
    overlays; a second run changes nothing; --reset brings the placeholder back."""
    env.need_kubectl()
    manifests = copy_manifests(env)
    script = os.path.join(manifests, "overlays", "self-signed", "fill-ca-bundle.sh")
    # One patch per configuration: a kind may have a validating entry only.
    patches = [os.path.join(manifests, "overlays", "self-signed", "ca-bundle-%s.yaml" % which)
               for which in ("mutating", "validating")]

    def read_patches():
        return [read_bytes(p) for p in patches]
    certs = harness.make_certs(env.source)
    ca_pem = read_bytes(os.path.join(certs, "ca.crt"))
    problems = Problems()

    proc = run([script, certs], timeout=60)
    check(proc.returncode == 0, "fill-ca-bundle.sh %s: exit %d: %s", certs, proc.returncode,
          proc.stderr.decode("utf-8", "replace"))
    first = read_patches()
    proc = run([script, certs + "/"], timeout=60)
    check(proc.returncode == 0, "second run: exit %d", proc.returncode)
    problems.expect(read_patches() == first, "fill-ca-bundle.sh", "a second run changed "
                    "ca-bundle-*.yaml")
    for overlay in ("self-signed", "url"):
        docs = env.render(os.path.join(manifests, "overlays", overlay))
        check_client_configs(problems, overlay + " (filled)", docs, allow_placeholder=False,
                             ca_pem=ca_pem)
        entries = [e for k in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
                   for c in find(docs, k) for e in c.get("webhooks") or []]
        problems.expect(len(entries) == len(env.registry), overlay, "%d entries, %d registered",
                        len(entries), len(env.registry))

    proc = run([script, os.path.join(harness.temp_dir("empty"), "nothing")], timeout=60)
    problems.expect(proc.returncode != 0 and read_patches() == first, "fill-ca-bundle.sh",
                    "a missing CA directory must fail and leave ca-bundle-*.yaml alone")

    proc = run([script, "--reset"], timeout=60)
    check(proc.returncode == 0, "--reset: exit %d", proc.returncode)
    docs = env.render(os.path.join(manifests, "overlays", "self-signed"))
    bundles = [(e.get("clientConfig") or {}).get("caBundle")
               for k in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
               for c in find(docs, k) for e in c.get("webhooks") or []]
    problems.expect(bundles and all(b == CA_PLACEHOLDER for b in bundles), "--reset",
                    "caBundles after --reset: %s", [str(b)[:20] for b in bundles])
    # The committed files are the script's own output (placeholder or a filled-in CA).
    for patch in patches:
        name = os.path.basename(patch)
        committed = os.path.join(env.manifests, "overlays", "self-signed", name)
        if CA_PLACEHOLDER.encode() in read_bytes(committed):
            problems.expect(read_bytes(committed) == read_bytes(patch), name, "the committed "
                            "file differs from what fill-ca-bundle.sh --reset writes")
    problems.done()


def test_set_url_host(env):
    """set-url-host.sh HOST[:PORT] moves every URL of the url overlay; paths stay."""
    env.need_kubectl()
    manifests = copy_manifests(env)
    script = os.path.join(manifests, "overlays", "url", "set-url-host.sh")
    problems = Problems()
    for arg, netloc in (("webhook.example.com", "webhook.example.com:443"),
                        ("webhook.example.com:9443", "webhook.example.com:9443")):
        proc = run([script, arg], timeout=60)
        check(proc.returncode == 0, "set-url-host.sh %s: exit %d: %s", arg, proc.returncode,
              proc.stderr.decode("utf-8", "replace"))
        docs = env.render(os.path.join(manifests, "overlays", "url"))
        check_client_configs(problems, "url (%s)" % arg, docs, url_host=netloc)
        paths = sorted(entry_path(e) for k in ("MutatingWebhookConfiguration",
                                               "ValidatingWebhookConfiguration")
                       for c in find(docs, k) for e in c.get("webhooks") or [])
        problems.expect(paths == sorted(row[0] for row in env.registry), "url (%s)" % arg,
                        "paths %s", paths)
    proc = run([script, "not a host/"], timeout=60)
    problems.expect(proc.returncode != 0, "set-url-host.sh", "accepted 'not a host/'")
    # Back to the committed host: the files are as committed.
    committed = yaml.safe_load(read_bytes(os.path.join(env.manifests, "overlays", "url",
                                                       "url-mutating.yaml")))
    host = urllib.parse.urlsplit([op["value"] for op in committed if op["op"] == "add"][0]).netloc
    run([script, host], timeout=60)
    for name in ("url-mutating.yaml", "url-validating.yaml"):
        problems.expect(read_bytes(os.path.join(manifests, "overlays", "url", name)) ==
                        read_bytes(os.path.join(env.manifests, "overlays", "url", name)),
                        name, "set-url-host.sh %s does not give back the committed file", host)
    problems.done()


# --- tests: the image ------------------------------------------------------------------------------

def makefile_packages(source):
    with open(os.path.join(source, "Makefile"), encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(r"^DEBIAN_PACKAGES\s*:?=(.*)$", text, re.M)
    check(m is not None, "Makefile has no DEBIAN_PACKAGES")
    return set(m.group(1).split())


def test_dockerfile(env):
    """Build stage installs only Makefile packages; the runtime runs `serve` as user 65532."""
    with open(os.path.join(env.source, "Dockerfile"), encoding="utf-8") as f:
        text = f.read()
    logical = re.sub(r"\\\n", " ", text)
    stages = re.split(r"^FROM\s+", logical, flags=re.M)[1:]
    check(len(stages) == 2, "expected two stages (build and runtime), found %d", len(stages))
    build, runtime = stages
    problems = Problems()
    problems.expect(build.startswith("debian:bookworm ") or build.startswith("debian:bookworm\n")
                    or re.match(r"debian:bookworm(@\S+)?\s", build), "build stage",
                    "does not start FROM debian:bookworm")
    problems.expect(runtime.startswith("debian:bookworm-slim"), "runtime stage",
                    "is not debian:bookworm-slim")
    wanted = makefile_packages(env.source)
    for stage_name, stage in (("build", build), ("runtime", runtime)):
        for m in re.finditer(r"apt-get install([^&;\n]*)", stage):
            pkgs = {w for w in m.group(1).split() if not w.startswith("-")}
            if stage_name == "build":
                extra = pkgs - wanted
                problems.expect(not extra, "build stage", "installs %s, not in the Makefile's "
                                "DEBIAN_PACKAGES", sorted(extra))
    problems.expect(re.search(r"-DBUILD_TESTING=OFF", build), "build stage",
                    "does not configure with -DBUILD_TESTING=OFF")
    problems.expect(re.search(r"-DCMAKE_BUILD_TYPE=Release", build), "build stage",
                    "does not build Release")
    problems.expect(re.search(r"^USER\s+65532(:65532)?\s*$", runtime, re.M), "runtime stage",
                    "USER is not 65532")
    m = re.search(r"^ENTRYPOINT\s+(\[.*\])\s*$", runtime, re.M)
    problems.expect(m and '"serve"' in m.group(1) and NAME in m.group(1), "runtime stage",
                    "ENTRYPOINT is not [.../%s, \"serve\"]", NAME)
    with open(os.path.join(env.source, ".dockerignore"), encoding="utf-8") as f:
        ignore = {line.strip().rstrip("/") for line in f if line.strip()}
    for entry in ("build*", "certs/dev"):
        problems.expect(entry in ignore, ".dockerignore", "does not exclude %s", entry)
    problems.done()


TESTS = [
    test_render_every_overlay,
    test_registry_rows_are_known,
    test_crds_agree_and_are_rendered,
    test_webhooks_match_registry,
    test_webhook_client_config_and_ca,
    test_apply_to_labels,
    test_deployment_flags_are_served,
    test_deployment_security_probes_and_rollout,
    test_service_and_disruption_budget,
    test_deployment_args_start_the_server,
    test_fill_ca_bundle,
    test_set_url_host,
    test_dockerfile,
]


def main_body(args):
    if yaml is None:
        print("FAIL PyYAML is not installed for %s (Debian: apt-get install python3-yaml)"
              % sys.executable, flush=True)
        print("0 passed, %d failed" % len(TESTS), flush=True)
        return 1
    return harness.run_tests(TESTS, Env(args.binary, args.source))


if __name__ == "__main__":
    harness.main(main_body)
