#!/usr/bin/env python3
"""The switch in one command (docs/operations.md, "Switching from karmada-webhook") against a real
kube-apiserver: the documented commands, run as written, on upstream's own objects.

The API server (test/e2e/kube.py) gets what a federation installed with upstream's artifacts has:
upstream's Service karmada-webhook, applied with `kubectl apply` as hack/deploy-karmada.sh applies
it (test_takeover.UPSTREAM), a pod with upstream's labels, upstream's two webhook configurations
(../shared/upstream/, caBundle filled, URLs as they are: nothing here calls them) and Karmada's CRDs
with upstream's conversion patches (https://karmada-webhook.karmada-system.svc:443/convert). Then
our takeover overlay, applied whole (the API server validates the Deployment, Service, PDB and
ServiceAccount), and a pod of its Deployment's template; a pod of manifests/server's (ours of
another overlay, serving our own certificate). No controller manager runs, so "selects" is what
`kubectl get pods -l SELECTOR` lists, the set the endpoints controller would publish.

- The documented path check (jq, `routes` of this binary for the image's) prints exactly the
  documented table of upstream's paths we do not serve; the same set computed here from what the
  API server stores.
- The documented commands: the saved selector is upstream's, as JSON; after the switch the
  Service's selector is exactly our pod labels and selects our pod alone; after the way back it is
  upstream's and selects upstream's pod alone.
- The two traps the section warns of: a strategic-merge patch of our labels, and `kubectl apply`
  of upstream's Service after the switch, each leave the merged selector, which selects no pod.

    test_apiserver_takeover.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
import test_apiserver_conversion as conversion  # noqa: E402  (upstream's CRD conversion patches)
import test_takeover as takeover  # noqa: E402
from harness import check  # noqa: E402
from test_manifests import yaml  # noqa: E402

NS = takeover.NAMESPACE
SERVICE = "karmada-webhook"
SELECTOR_LINE = "kubectl -n karmada-system get service karmada-webhook -o jsonpath="
EXEC_ROUTES = ("kubectl -n karmada-system exec deployment/karmada-policy-webhook-takeover -- "
               "karmada-policy-webhook routes")
CONVERT_URL = "https://%s:443/convert" % takeover.SERVICE_HOST


def kubectl_line(api, line: str) -> list:
    """A documented `kubectl ...` line (no pipe) as this API server's kubectl command."""
    args = shlex.split(line)
    check(args[0] == "kubectl", "not a kubectl line: %s", line)
    return api.kubectl_command(*args[1:])


def run_line(api, line: str) -> str:
    proc = subprocess.run(kubectl_line(api, line), capture_output=True, text=True,
                          timeout=kube.KUBECTL_TIMEOUT)
    check(proc.returncode == 0, "%s exited %d: %s", line, proc.returncode, proc.stderr)
    return proc.stdout


def selector(api) -> dict:
    return api.kubectl_json("-n", NS, "get", "service", SERVICE)["spec"].get("selector") or {}


def selected(api, sel: dict) -> list:
    """The pods `sel` selects (what the endpoints controller would publish), by name."""
    if not sel:
        return []
    labels = ",".join("%s=%s" % kv for kv in sorted(sel.items()))
    out = api.kubectl("-n", NS, "get", "pods", "-l", labels, "-o", "name").stdout
    return sorted(line.split("/", 1)[1] for line in out.split())


class Env:
    def __init__(self, args, api):
        self.args, self.api = args, api
        self.binary, self.source = args.binary, args.source
        self.section = takeover.section(self.source)
        self.switch, self.back = takeover.documented_patches(self.source)
        self.unserved = takeover.documented_unserved(self.source)
        self.upstream_selector = yaml.safe_load(takeover.UPSTREAM)["spec"]["selector"]
        self.ours = self.api.kubectl("kustomize", os.path.join(
            self.source, "manifests", "overlays", takeover.OVERLAY)).stdout
        docs = [d for d in yaml.safe_load_all(self.ours) if d]
        self.template = takeover.one(docs, "Deployment", takeover.NAME)["spec"]["template"]
        other = [d for d in yaml.safe_load_all(self.api.kubectl("kustomize", os.path.join(
            self.source, "manifests", "server")).stdout) if d and d["kind"] == "Deployment"]
        self.other_labels = other[0]["spec"]["template"]["metadata"]["labels"]

    def install(self):
        """Upstream's objects, then ours, as a federation has them before the switch."""
        api, t0 = self.api, time.monotonic()
        api.kubectl("create", "namespace", NS)
        api.kubectl("apply", "-f", "-", input=takeover.UPSTREAM)
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": NS}, "spec": {
            "containers": [{"name": "webhook", "image": "docker.io/karmada/karmada-webhook"}]}}
        for name, labels in (("upstream-pod", takeover.UPSTREAM_POD_LABELS),
                             ("other-overlay-pod", self.other_labels)):
            api.kubectl("create", "-f", "-", input=dict(pod, metadata=dict(
                pod["metadata"], name=name, labels=labels)))
        api.kubectl("apply", "-f", "-", input=self.ours)
        api.kubectl("create", "-f", "-", input={
            "apiVersion": "v1", "kind": "Pod", "spec": self.template["spec"], "metadata": {
                "name": "takeover-pod", "namespace": NS,
                "labels": self.template["metadata"]["labels"]}})
        api.install_karmada_crds()
        certs = harness.make_certs(self.source)
        conversion.point_conversion_at(api, self.source, CONVERT_URL,
                                       os.path.join(certs, "ca.crt"))
        configs = takeover.upstream_configuration(self.source)
        with open(os.path.join(certs, "ca.crt"), "rb") as f:
            ca = base64.b64encode(f.read()).decode()
        for config in configs:
            for entry in config["webhooks"]:
                entry["clientConfig"]["caBundle"] = ca
            api.kubectl("apply", "-f", "-", input=config)
        print("  upstream's Service, configurations, CRDs and our overlay in %.1f s"
              % (time.monotonic() - t0), flush=True)


def test_overlay_is_accepted_and_not_selected_yet(env):
    """The API server takes the rendered overlay as it is; upstream's Service selects its pod."""
    for kind in ("deployment", "service", "poddisruptionbudget", "serviceaccount"):
        env.api.kubectl("-n", NS, "get", kind, takeover.NAME)
    check(selector(env.api) == env.upstream_selector, "selector %s", selector(env.api))
    check(selected(env.api, selector(env.api)) == ["upstream-pod"], "upstream's Service selects %s",
          selected(env.api, selector(env.api)))


def test_documented_path_check(env):
    """The documented jq pipeline prints the documented table; so does the set computed here from
    what the API server stores (configurations and CRDs)."""
    stored = set()
    for kind in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations",
                 "customresourcedefinitions"):
        for item in env.api.kubectl_json("get", kind)["items"]:
            clients = [w["clientConfig"] for w in item.get("webhooks") or []]
            conv = item.get("spec", {}).get("conversion", {}).get("webhook")
            clients += [conv["clientConfig"]] if conv else []
            prefix = "https://%s:443" % takeover.SERVICE_HOST
            stored |= {c["url"][len(prefix):] for c in clients
                       if c.get("url", "").startswith(prefix + "/")}
    routes = {r["path"] for r in harness.route_table(env.binary)}
    check("/convert" in stored, "the CRDs do not call %s", CONVERT_URL)
    check(sorted(stored - routes) == sorted(env.unserved), "stored paths we do not serve: %s; "
          "the documentation's table: %s", sorted(stored - routes), sorted(env.unserved))
    if shutil.which("jq") is None:
        print("  NOTE: jq is not installed: the documented pipeline itself is not run", flush=True)
        return
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", env.section, re.S)
              if "upstream-paths.txt" in b]
    check(len(blocks) == 1, "%d sh blocks hold the path check", len(blocks))
    script = blocks[0]
    check(script.count(EXEC_ROUTES) == 1 and re.search(r'^K="kubectl --context KARMADA"', script,
                                                       re.M), "the path check's commands changed")
    script = re.sub(r'^K=.*$', "K=%s" % shlex.quote(" ".join(
        shlex.quote(a) for a in env.api.kubectl_command())), script, flags=re.M)
    script = script.replace(EXEC_ROUTES, shlex.quote(env.binary) + " routes")
    work = harness.temp_dir("path-check")
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=work,
                          capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, "the path check exited %d: %s", proc.returncode, proc.stderr)
    printed = proc.stdout.split()
    check(printed == sorted(env.unserved), "the path check printed %s, the table has %s",
          printed, sorted(env.unserved))
    # The documented `$K get` of the unserved kinds' objects, there only while the table has rows.
    check(proc.stderr.count("No resources found") == (1 if env.unserved else 0),
          "objects of unserved kinds: %s", proc.stderr)
    print("  the documented path check printed the table's %d paths" % len(printed), flush=True)


def test_switch_and_back_as_documented(env):
    """Saved selector, switch, way back: each leaves exactly one side's pods selected."""
    lines = [l.strip() for l in env.section.splitlines() if l.strip().startswith(SELECTOR_LINE)]
    check(len(lines) == 1, "%d documented lines save the selector", len(lines))
    saved = json.loads(run_line(env.api, lines[0].split(" | ")[0]))
    check(saved == env.upstream_selector, "the saved selector is %s", saved)
    run_line(env.api, shlex.join(env.switch))
    got, labels = selector(env.api), env.template["metadata"]["labels"]
    check(got == labels, "after the switch the selector is %s, our pods are labelled %s", got,
          labels)
    check(selected(env.api, got) == ["takeover-pod"], "after the switch it selects %s",
          selected(env.api, got))
    run_line(env.api, shlex.join(env.back))
    check(selector(env.api) == saved, "after the way back the selector is %s, saved %s",
          selector(env.api), saved)
    check(selected(env.api, saved) == ["upstream-pod"], "after the way back it selects %s",
          selected(env.api, saved))


def test_merging_patch_selects_no_pod(env):
    """Why the documented patch is a JSON patch: a strategic-merge patch (kubectl's default) of the
    same labels keeps upstream's key, and the merged selector selects nothing."""
    labels = env.template["metadata"]["labels"]
    env.api.kubectl("-n", NS, "patch", "service", SERVICE, "-p",
                    json.dumps({"spec": {"selector": labels}}))
    got = selector(env.api)
    check(got == dict(env.upstream_selector, **labels), "strategic merge left %s", got)
    check(selected(env.api, got) == [], "the merged selector selects %s", selected(env.api, got))
    run_line(env.api, shlex.join(env.back))
    check(selector(env.api) == env.upstream_selector, "the way back left %s", selector(env.api))


def test_reapplying_upstreams_service_after_the_switch_selects_no_pod(env):
    """The documented upgrade trap: `kubectl apply` of upstream's Service while switched merges
    upstream's selector into ours (no pod); the way back repairs it."""
    run_line(env.api, shlex.join(env.switch))
    env.api.kubectl("apply", "-f", "-", input=takeover.UPSTREAM)
    got = selector(env.api)
    check(got == dict(env.upstream_selector, **env.template["metadata"]["labels"]),
          "after kubectl apply the selector is %s", got)
    check(selected(env.api, got) == [], "the merged selector selects %s", selected(env.api, got))
    run_line(env.api, shlex.join(env.back))
    check(selected(env.api, selector(env.api)) == ["upstream-pod"], "the way back selects %s",
          selected(env.api, selector(env.api)))


def run(args, api):
    env = Env(args, api)
    env.install()
    return harness.run_tests([test_overlay_is_accepted_and_not_selected_yet,
                              test_documented_path_check, test_switch_and_back_as_documented,
                              test_merging_patch_selects_no_pod,
                              test_reapplying_upstreams_service_after_the_switch_selects_no_pod],
                             env)


def main():
    # Before kube.main starts an API server: without upstream's configurations there is nothing
    # to take over.
    args = harness.parse_args(description=__doc__)
    if takeover.upstream_configuration(args.source) is None:
        kube.skip("no %s (upstream's webhook configurations)" % os.path.join(
            kube.shared_dir(args.source), "upstream", "webhook-configuration.yaml"),
            how="put the project beside ../shared/upstream or set KPW_SHARED_DIR to a folder "
                "holding upstream/webhook-configuration.yaml")
    kube.main(run)


if __name__ == "__main__":
    main()
