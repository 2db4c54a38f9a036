"""Karmada's four installers of `karmada-webhook` as data, and what each makes for its container.

Upstream's installers (docs/operations.md, "Switching by image"): A the dev artefacts
(artifacts/deploy, hack/deploy-karmada.sh), H the Helm chart (release `karmada`), K `karmadactl
init`, O karmada-operator (Karmada CR `karmada`), all in namespace karmada-system. Each runs
`/bin/karmada-webhook` with its own command line, mounts its own Secrets, and registers its own
webhook configurations and CRD conversion patches in karmada-apiserver. Switching to our server
changes only the image, so a test runs our binary with exactly these:

    spec = installers.INSTALLERS["O"]
    argv = installers.argv(spec, "127.0.0.1")               # $(POD_IP) filled
    pki = installers.make_pki(spec, workdir)                 # openssl, as the installer makes it
    files = installers.container_files(spec, pki, api.url, api_ca_pem)   # {mount path: bytes}
    configs = installers.webhook_configurations(spec, pki, shared)       # [mutating, validating]
    patches = installers.conversion_patches(spec, pki, shared)           # [(crd, merge patch)]

`shared` is the shared reference folder (kube.shared_dir(source)): upstream's own
webhook-configuration.yaml (the dev artefacts' file, 22 entries) and Karmada's CRD patches.

Comments cite the facts by section of upstream's installers as docs/operations.md, "Switching by
image" describes them: §2 the container's command, §3 the probe, §4 the Secrets, certificates and
kubeconfigs, §5 the Service, the webhook configurations and the CRD conversion, §6 the gates.

Python 3 standard library + PyYAML (python3-yaml).
"""

from __future__ import annotations

import base64
import os
import subprocess

import yaml

__all__ = ["INSTALLERS", "NAMESPACE", "BINARY", "WEBHOOK_PORT", "METRICS_PORT", "HEALTH_PORT",
           "argv", "make_pki", "kubeconfig", "container_files", "webhook_configurations",
           "conversion_patches", "registered_paths", "entry_for", "flag_value", "cert_dir",
           "kubeconfig_path", "Pki"]

NAMESPACE = "karmada-system"
RELEASE = "karmada"            # H: the Helm release name
CR_NAME = "karmada"            # O: the Karmada CR's name
BINARY = "/bin/karmada-webhook"
WEBHOOK_PORT, METRICS_PORT, HEALTH_PORT = 8443, 8080, 8000   # fixed by every installer's argv


def operator_webhook_name(cr: str) -> str:
    """O's `<wh>`: `<cr>-webhook` if the CR's name contains `karmada`, else
    `<cr>-karmada-webhook` (upstream's installers, "Placeholders")."""
    return cr + "-webhook" if "karmada" in cr else cr + "-karmada-webhook"


# The service host every upstream URL names (upstream's installers, §5): A and K
# `karmada-webhook.<ns>.svc`, H `<rel>-webhook.<ns>.svc`, O `<wh>.<ns>.svc`.
UPSTREAM_URL_HOST = "https://karmada-webhook.karmada-system.svc:443/"

# Hours of validity (upstream's installers, §4, serving certificate table).
_A_HOURS = _H_HOURS = 43800
_K_HOURS = _O_HOURS = 8760

# The SANs of a serving certificate (upstream's installers, §4), with <ns> karmada-system and the
# cluster domain cluster.local.
_NS_WILDCARDS = ["*.%s.svc" % NAMESPACE, "*.%s.svc.cluster.local" % NAMESPACE]

# One dict per installer. Keys:
#   name          what it is
#   argv          the container's command (upstream's installers, §2: table order; A its own order)
#   cert_dir      --cert-dir, where the serving-cert Secret is mounted (§4)
#   kubeconfig    --kubeconfig, where the kubeconfig Secret is mounted (§4; H a single file)
#   serving_keys  the keys of the serving-cert Secret (§4): A's also holds ca.crt
#   certs         name -> (subject, SANs, hours, extended key usages): the pairs it issues (§4)
#   serving       which of `certs` is the serving pair; client: which one the kubeconfig holds
#   names         (cluster, user, context) of the kubeconfig (§4, last row)
#   service       <svc> of its URLs and CRD patches (§5), karmada-system its namespace
#   omit          the paths of upstream's file it does not register (§5, entry table: "—")
#   url_host      where the test's API server reaches the webhook: a name or address the serving
#                 certificate covers (O's has no IP SAN)
def _command(kubeconfig: str, cert_dir: str, *rest: str) -> list:
    """An installer's command (§2): the binary, then --kubeconfig, the three addresses, the port
    and --cert-dir in that order, every installer alike, then what differs."""
    return [BINARY, "--kubeconfig=" + kubeconfig, "--bind-address=$(POD_IP)",
            "--metrics-bind-address=$(POD_IP):8080", "--health-probe-bind-address=$(POD_IP):8000",
            "--secure-port=8443", "--cert-dir=" + cert_dir] + list(rest)


INSTALLERS = {
    "A": {
        "name": "dev artefacts (artifacts/deploy, hack/deploy-karmada.sh)",
        "argv": _command("/etc/karmada/config/karmada.config", "/etc/karmada/pki/server",
                         "--feature-gates=AllAlpha=true,AllBeta=true",
                         "--allow-no-execute-taint-policy=true", "--logging-format=json",
                         "--v=4"),
        "serving_keys": ("ca.crt", "tls.crt", "tls.key"),
        "certs": {
            "karmada-webhook": ("/CN=system:karmada:karmada-webhook",
                                ["DNS:karmada-webhook.karmada-system.svc.cluster.local",
                                 "DNS:karmada-webhook.karmada-system.svc", "DNS:localhost",
                                 "IP:127.0.0.1"], _A_HOURS, "serverAuth"),
            "karmada-webhook-client": ("/O=system:masters/CN=system:karmada:karmada-webhook", [],
                                       _A_HOURS, "clientAuth"),
        },
        "serving": "karmada-webhook",
        "client": "karmada-webhook-client",
        "names": ("karmada-apiserver", "karmada-apiserver", "karmada-apiserver"),
        "service": "karmada-webhook",
        "omit": (),
        "url_host": "127.0.0.1",
    },
    "H": {
        "name": "Helm chart charts/karmada (release %s)" % RELEASE,
        "argv": _command("/etc/kubeconfig", "/var/serving-cert", "--v=2"),
        "serving_keys": ("tls.crt", "tls.key"),
        "certs": {
            # certs.auto.hosts with <ns> karmada-system and <dom> cluster.local.
            "karmada": ("/O=system:masters/CN=system:admin",
                        ["DNS:kubernetes.default.svc",
                         "DNS:*.etcd.karmada-system.svc.cluster.local"]
                        + ["DNS:" + n for n in reversed(_NS_WILDCARDS)]
                        + ["DNS:localhost", "IP:127.0.0.1"], _H_HOURS, "serverAuth,clientAuth"),
        },
        "serving": "karmada",
        "client": "karmada",
        "names": (RELEASE + "-apiserver",) * 3,
        "service": RELEASE + "-webhook",
        "omit": ("/validate-federatedhpa", "/validate-cronfederatedhpa",
                 "/validate-clustertaintpolicy"),
        "url_host": "127.0.0.1",
    },
    "K": {
        "name": "karmadactl init",
        "argv": _command("/etc/karmada/config/karmada.config", "/var/serving-cert", "--v=2"),
        "serving_keys": ("tls.crt", "tls.key"),
        "certs": {
            "karmada": ("/O=system:masters/CN=system:admin",
                        ["DNS:karmada-webhook", "DNS:karmada-webhook.karmada-system.svc",
                         "DNS:karmada-webhook.karmada-system.svc.cluster.local"]
                        + ["DNS:" + n for n in _NS_WILDCARDS]
                        + ["DNS:karmada-apiserver", "DNS:karmada-apiserver.karmada-system.svc",
                           "DNS:karmada-apiserver.karmada-system.svc.cluster.local",
                           "DNS:localhost", "IP:127.0.0.1"], _K_HOURS, "serverAuth,clientAuth"),
        },
        "serving": "karmada",
        "client": "karmada",
        "names": ("karmada-admin",) * 3,
        "service": "karmada-webhook",
        "omit": ("/validate-clustertaintpolicy",),
        "url_host": "127.0.0.1",
    },
    "O": {
        "name": "karmada-operator (Karmada CR %s)" % CR_NAME,
        "argv": _command("/etc/karmada/config/karmada.config", "/var/serving-cert", "--v=2"),
        "serving_keys": ("tls.crt", "tls.key"),
        "certs": {
            # No IP SAN: the test reaches it as localhost.
            "karmada": ("/O=system:masters/CN=system:admin",
                        ["DNS:localhost", "DNS:kubernetes", "DNS:kubernetes.default",
                         "DNS:kubernetes.default.svc"] + ["DNS:" + n for n in _NS_WILDCARDS],
                        _O_HOURS, "serverAuth,clientAuth"),
            "karmada-client": ("/O=system:masters/CN=system:admin", [], _O_HOURS, "clientAuth"),
        },
        "serving": "karmada",
        "client": "karmada-client",
        "names": ("karmada-apiserver", "karmada-admin", "karmada-admin@karmada-apiserver"),
        "service": operator_webhook_name(CR_NAME),
        "omit": ("/validate-clustertaintpolicy",),
        "url_host": "localhost",
    },
}

# Entries each installer registers, mutating + validating (upstream's installers, §5).
ENTRY_COUNTS = {"A": (8, 14), "H": (8, 11), "K": (8, 13), "O": (8, 13)}

CA_SUBJECT = "/CN=karmada"
CA_HOURS = 87600


# --- the command line -----------------------------------------------------------------------------

def argv(spec: dict, pod_ip: str) -> list:
    """The installer's container command with `$(POD_IP)` expanded, as kubelet execs it."""
    return [a.replace("$(POD_IP)", pod_ip) for a in spec["argv"]]


def flag_value(args: list, name: str):
    """The value of `--name=value` in args, or None."""
    prefix = "--%s=" % name
    values = [a[len(prefix):] for a in args if a.startswith(prefix)]
    return values[-1] if values else None


def cert_dir(spec: dict) -> str:
    """Where the serving-cert Secret is mounted: the command's --cert-dir."""
    return flag_value(spec["argv"], "cert-dir")


def kubeconfig_path(spec: dict) -> str:
    """Where the kubeconfig is mounted: the command's --kubeconfig."""
    return flag_value(spec["argv"], "kubeconfig")


# --- certificates ---------------------------------------------------------------------------------

class Pki:
    """The files make_pki wrote: `ca` (ca.crt, ca.key) and for each pair `<name>.crt`,
    `<name>.key`; pem(name) reads one."""

    def __init__(self, folder: str, spec: dict):
        self.dir = folder
        self.spec = spec
        self.ca = os.path.join(folder, "ca.crt")
        self.ca_key = os.path.join(folder, "ca.key")

    def path(self, name: str, ext: str) -> str:
        return os.path.join(self.dir, "%s.%s" % (name, ext))

    def pem(self, name: str, ext: str) -> bytes:
        with open(self.path(name, ext), "rb") as f:
            return f.read()

    def ca_pem(self) -> bytes:
        with open(self.ca, "rb") as f:
            return f.read()

    def ca_bundle(self) -> str:
        return base64.b64encode(self.ca_pem()).decode()


def _openssl(*args: str) -> None:
    proc = subprocess.run(["openssl"] + list(args), capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError("openssl %s failed (%d): %s" % (" ".join(args), proc.returncode,
                                                          proc.stderr.strip()))


def _rsa_key(path: str) -> None:
    """RSA 3072, PEM PKCS#1 (`BEGIN RSA PRIVATE KEY`), as every installer generates its keys."""
    _openssl("genrsa", "-traditional", "-out", path, "3072")


def _write(path: str, text: str) -> str:
    with open(path, "w") as f:
        f.write(text)
    return path


_REQ_CONFIG = "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\n"


def _days(hours: int) -> str:
    return str(max(1, hours // 24))


def make_pki(spec: dict, folder: str) -> Pki:
    """The installer's CA and pairs in `folder`, made with openssl as the installer makes them:
    keys RSA 3072 PKCS#1; each leaf with its subject, SANs, validity and extended key usages,
    signed by the CA; the leaf alone in each .crt."""
    os.makedirs(folder, exist_ok=True)
    pki = Pki(folder, spec)
    config = _write(os.path.join(folder, "req.cnf"), _REQ_CONFIG)
    ca_config = _write(os.path.join(folder, "ca.cnf"),
                       _REQ_CONFIG + "[v3]\nbasicConstraints = critical,CA:TRUE\n"
                       "keyUsage = critical,digitalSignature,keyEncipherment,keyCertSign\n"
                       "subjectKeyIdentifier = hash\n")
    _rsa_key(pki.ca_key)
    _openssl("req", "-x509", "-new", "-key", pki.ca_key, "-subj", CA_SUBJECT, "-days",
             _days(CA_HOURS), "-config", ca_config, "-extensions", "v3", "-out", pki.ca)
    for name, (subject, sans, hours, usages) in spec["certs"].items():
        key, csr, crt = pki.path(name, "key"), pki.path(name, "csr"), pki.path(name, "crt")
        _rsa_key(key)
        _openssl("req", "-new", "-key", key, "-subj", subject, "-config", config, "-out", csr)
        ext = "[v3]\nbasicConstraints = critical,CA:FALSE\n" \
              "keyUsage = critical,digitalSignature,keyEncipherment\n" \
              "extendedKeyUsage = %s\nauthorityKeyIdentifier = keyid\n" % usages
        if sans:
            ext += "subjectAltName = %s\n" % ",".join(sans)
        ext_file = _write(pki.path(name, "ext"), ext)
        _openssl("x509", "-req", "-in", csr, "-CA", pki.ca, "-CAkey", pki.ca_key,
                 "-set_serial", "0x" + os.urandom(15).hex(), "-days", _days(hours),
                 "-extfile", ext_file, "-extensions", "v3", "-out", crt)
        os.unlink(csr)
        os.unlink(ext_file)
    os.unlink(config)
    os.unlink(ca_config)
    return pki


# --- the Secrets, as files at their mount paths ---------------------------------------------------

def kubeconfig(spec: dict, pki: Pki, server: str, server_ca_pem: bytes) -> bytes:
    """The installer's kubeconfig: inline, one cluster, user and context named as it names them,
    current-context set, the client pair it issues. `server` is the test's API server (upstream's
    names a Service the test cannot resolve) and `server_ca_pem` that server's CA."""
    cluster, user, context = spec["names"]
    b64 = lambda data: base64.b64encode(data).decode()  # noqa: E731
    config = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": cluster, "cluster": {
            "server": server, "certificate-authority-data": b64(server_ca_pem)}}],
        "users": [{"name": user, "user": {
            "client-certificate-data": b64(pki.pem(spec["client"], "crt")),
            "client-key-data": b64(pki.pem(spec["client"], "key"))}}],
        "contexts": [{"name": context, "context": {"cluster": cluster, "user": user}}],
        "current-context": context,
        "preferences": {},
    }
    return yaml.safe_dump(config, default_flow_style=False, sort_keys=False).encode()


def container_files(spec: dict, pki: Pki, server: str, server_ca_pem: bytes) -> dict:
    """{absolute path in the container: bytes}: the serving-cert Secret's keys under --cert-dir
    and the kubeconfig at --kubeconfig (upstream's installers, §4)."""
    serving = spec["serving"]
    content = {"ca.crt": pki.ca_pem(), "tls.crt": pki.pem(serving, "crt"),
               "tls.key": pki.pem(serving, "key")}
    files = {os.path.join(cert_dir(spec), k): content[k] for k in spec["serving_keys"]}
    files[kubeconfig_path(spec)] = kubeconfig(spec, pki, server, server_ca_pem)
    return files


# --- webhook configurations and CRD conversion ----------------------------------------------------

def _url_path(entry: dict) -> str:
    return entry["clientConfig"]["url"].split(":%d" % WEBHOOK_PORT, 1)[-1]


def webhook_configurations(spec: dict, pki: Pki, shared: str) -> list:
    """[MutatingWebhookConfiguration, ValidatingWebhookConfiguration] as the installer registers
    them: upstream's file (names, labels, entries in order), only the entries it registers,
    caBundle its CA, each URL https://<url_host>:8443/<path>."""
    path = os.path.join(shared, "upstream", "webhook-configuration.yaml")
    with open(path) as f:
        text = f.read()
    if UPSTREAM_URL_HOST not in text or "{{caBundle}}" not in text:
        raise AssertionError("%s has no %s URL or {{caBundle}}" % (path, UPSTREAM_URL_HOST))
    text = text.replace("{{caBundle}}", pki.ca_bundle()).replace(
        UPSTREAM_URL_HOST, "https://%s:%d/" % (spec["url_host"], WEBHOOK_PORT))
    docs = [d for d in yaml.safe_load_all(text) if d]
    for doc in docs:
        doc["webhooks"] = [e for e in doc["webhooks"] if _url_path(e) not in spec["omit"]]
    counts = tuple(len(d["webhooks"]) for d in docs)
    key = next(k for k, v in INSTALLERS.items() if v is spec)
    if [d["kind"] for d in docs] != ["MutatingWebhookConfiguration",
                                     "ValidatingWebhookConfiguration"] or \
            counts != ENTRY_COUNTS[key]:
        raise AssertionError("%s: %s with %s entries, want mutating + validating %s for %s"
                             % (path, [d["kind"] for d in docs], counts, ENTRY_COUNTS[key], key))
    return docs


def conversion_patches(spec: dict, pki: Pki, shared: str) -> list:
    """[(CRD name, merge patch YAML)]: Karmada's patches of ResourceBinding and
    ClusterResourceBinding with {{name}}, {{namespace}} and {{caBundle}} filled as the installer
    fills them, the URL's host then pointed at <url_host>:8443 like the configurations'."""
    folder = os.path.join(shared, "envtest", "crds", "patches")
    out = []
    for plural in ("resourcebindings", "clusterresourcebindings"):
        path = os.path.join(folder, "webhook_in_%s.yaml" % plural)
        with open(path) as f:
            text = f.read()
        for placeholder in ("{{name}}", "{{namespace}}", "{{caBundle}}"):
            if placeholder not in text:
                raise AssertionError("%s has no %s" % (path, placeholder))
        filled = text.replace("{{name}}", spec["service"]).replace(
            "{{namespace}}", NAMESPACE).replace("{{caBundle}}", pki.ca_bundle())
        service_url = "https://%s.%s.svc:443/" % (spec["service"], NAMESPACE)
        if service_url not in filled:
            raise AssertionError("%s: no %s once filled" % (path, service_url))
        filled = filled.replace(service_url, "https://%s:%d/" % (spec["url_host"], WEBHOOK_PORT))
        out.append(("%s.work.karmada.io" % plural, filled))
    return out


def registered_paths(configs: list) -> list:
    """Every path the configurations send requests to, in their order (plus none of /convert)."""
    return [_url_path(e) for doc in configs for e in doc["webhooks"]]


def entry_for(configs: list, kind: str, group: str, resource: str):
    """(name, path) of the entry of configuration `kind` ("Mutating"/"Validating") whose rules
    name group/resource exactly, or None (the `*` entry of deletion protection is not one)."""
    for doc in configs:
        if not doc["kind"].startswith(kind):
            continue
        for e in doc["webhooks"]:
            for rule in e["rules"]:
                if group in rule["apiGroups"] and resource in rule["resources"]:
                    return e["name"], _url_path(e)
    return None
