#!/usr/bin/env python3
"""RB-2, FederatedResourceQuota enforcement at admission, against upstream's own webhook on a real
kube-apiserver (test/e2e/kube.py).

With `--feature-gates=FederatedQuotaEnforcement=true` and `--kubeconfig`, `/validate-resourcebinding`
charges a ResourceBinding's scheduled usage to every FederatedResourceQuota of its namespace:
per-replica `spec.replicaRequirements.resourceRequest` × Σ `spec.clusters[].replicas` (with
`spec.components`: Σ component request × component replicas, × the number of clusters), the delta
against `oldObject`, a denial with reason QuotaExceeded when `status.overallUsed` + delta passes
`spec.overall`, else the new `overallUsed` written through the status subresource
(../shared/spec/upstream-karmada-rest.md §6.2, ../shared/spec/README.md "Quota enforcement (RB-2)").

1. Upstream's karmada-webhook as its image ships it (../shared/karmada/karmada-webhook.xz, with its
   karmada-apiserver client; ../shared/upstream's build has none and never denies), then ours
   (--binary), each started with the same argv (serving flags, the admin kubeconfig, the gate) and
   registered for real with one validating entry for /validate-resourcebinding (CREATE/UPDATE,
   failurePolicy Fail, sideEffects NoneOnDryRun, timeoutSeconds 3). Each runs the same scenarios
   (SCENARIOS below: a quota, a binding created and scaled, several resources, components, two
   quotas, `requests.cpu`, dry runs, a binding not yet scheduled), each in a fresh namespace of its
   own. Every step is a kubectl call; recorded per step: allowed or denied, kubectl's denial line,
   and every quota's `status.overallUsed` read back from the API server (as stored). One step posts
   an AdmissionReview straight to the webhook (code, reason, message of the denial).
   Upstream's observations are printed as a table and must equal RECORDED (upstream's rows as
   first observed: a change there means upstream changed or a step is not deterministic); ours
   must equal upstream's step by step (namespace names aside). One difference on purpose, D-Q2
   (docs/compatibility.md): a `requests.cpu` key of `spec.overall` is not enforced by upstream
   (karmada-io/karmada#7864) and is by ours; in scenario e ours is held to D-Q2 instead (the
   binding that fits requests.cpu allowed, the one that exceeds it denied naming requests.cpu).
2. Ours only: 8 concurrent `kubectl create`s of a 1-cpu binding against a 5-cpu quota admit
   exactly 5 (3 denied with the QuotaExceeded text) and leave overallUsed cpu "5"; with the
   kube-apiserver process stopped (etcd kept), a review that needs a write (posted straight to
   ours) is denied within 3 s, its message naming the quota and saying that the API server (by
   name or address) could not be reached (refused, unreachable, timed out); restarted, the next
   `kubectl create` is admitted and charged.

`--only upstream` runs upstream's side alone (checked against RECORDED); `--only ours` runs ours
alone, held to RECORDED in upstream's place, then part 2. Skips (exit 77) without envtest, or
without upstream's binary unless --only ours. About 100 s for both sides.

    test_apiserver_quota.py --binary build/karmada-policy-webhook --source . [--only upstream|ours]
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import http.client
import json
import os
import re
import ssl
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

ENTRY = "resourcebinding.karmada.io"         # upstream's validating entry name, for both
GATE = "--feature-gates=FederatedQuotaEnforcement=true"
START_TIMEOUT = 30.0
WARMUP_TIMEOUT = 45.0        # upstream's first review waits for its informer to sync
SETTLE = 0.3                 # after a step: the webhook's cache sees the status it wrote
QUOTA_SEEN = 1.0             # after a scenario's quotas are made: the webhook's cache has them
DOWN_ANSWER_WITHIN = 3.0     # the entry's timeoutSeconds
RECOVER_WITHIN = 30.0
HOW_TO_GET_UPSTREAM = ("put the project beside ../shared/karmada (karmada-webhook.xz, upstream's "
                       "webhook as its image ships it) or set KPW_SHARED_DIR")
NONE = "-"                   # no status.overallUsed (no status at all, or none in it)
FIGURE_REVIEWS = int(os.environ.get("KPW_QUOTA_FIGURE_REVIEWS", "200"))
MANY_QUOTAS = int(os.environ.get("KPW_MANY_QUOTAS", "10000"))


# --- objects ------------------------------------------------------------------------------------------

def binding(name, request=None, clusters=(), components=None, annotations=None):
    """A work.karmada.io/v1alpha2 ResourceBinding of a Deployment (its namespace set by in_ns);
    request: per replica; clusters: [(name, replicas)]."""
    spec = {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
                         "namespace": "NS"}}
    if request is not None:
        spec["replicaRequirements"] = {"resourceRequest": dict(request)}
    if clusters:
        spec["clusters"] = cluster_list(clusters)
        spec["replicas"] = sum(r for _, r in clusters)
    if components is not None:
        spec["components"] = components
    meta = {"name": name}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding", "metadata": meta,
            "spec": spec}


def cluster_list(clusters):
    return [{"name": c, "replicas": r} for c, r in clusters]


def component(name, replicas, request):
    return {"name": name, "replicas": replicas,
            "replicaRequirements": {"resourceRequest": dict(request)}}


def quota(name, overall, used=None):
    """(name, spec.overall, a starting status.overallUsed or None: no status at all)."""
    return (name, overall, used)


class Step:
    """One kubectl call (or a direct review) of a scenario. `diff`: an expected difference (its ID),
    compared with upstream's RECORDED row only; `ours`: fn(our observation) -> problem or None."""

    def __init__(self, name, action, *args, diff=None, ours=None):
        self.name, self.action, self.args = name, action, args
        self.diff, self.ours = diff, ours


def create(name, obj, **kw):
    return Step(name, "create", obj, **kw)


def scale(name, rb, clusters, **kw):
    return Step(name, "patch", rb, {"spec": {"clusters": cluster_list(clusters)}}, **kw)


def patch(name, rb, body, **kw):
    return Step(name, "patch", rb, body, **kw)


def names_requests_cpu(obs):
    if obs["verdict"] != "denied" or "requests.cpu" not in obs["text"]:
        return "D-Q2: ours must deny naming requests.cpu; got %s %s" % (obs["verdict"], obs["text"])
    return None


def d_q2_fits(obs):
    return None if obs["verdict"] == "allowed" else "D-Q2: fits requests.cpu, but %s %s" % (
        obs["verdict"], obs["text"])


CPU_HALF = {"cpu": "500m"}
SCENARIOS = [
    ("a", "one quota overall cpu 2 (no status), a binding of 500m per replica scaled",
     [quota("q", {"cpu": "2"})],
     [create("create 2 replicas in member1", binding("rb", CPU_HALF, [("member1", 2)])),
      scale("scale to 4 (2 cpu: exactly the limit)", "rb", [("member1", 4)]),
      scale("scale to 5 (2500m)", "rb", [("member1", 5)]),
      scale("scale to 3", "rb", [("member1", 3)]),
      Step("direct review: CREATE 1 cpu x1 (2500m)", "direct",
           binding("rb-direct", {"cpu": "1"}, [("member1", 1)])),
      Step("delete the binding (not reviewed)", "delete", "rb")]),
    ("b", "several resources: overall cpu 4, memory 4Gi, pods 10; overallUsed with pods 0, "
          "services 2 to start",
     [quota("q", {"cpu": "4", "memory": "4Gi", "pods": "10"},
            {"cpu": "0", "memory": "0", "pods": "0", "services": "2"})],
     [create("create cpu 1, memory 1Gi x (2 in member1 + 1 in member2)",
             binding("rb", {"cpu": "1", "memory": "1Gi"}, [("member1", 2), ("member2", 1)])),
      patch("memory per replica 1Gi -> 1500Mi (memory 4500Mi)", "rb",
            {"spec": {"replicaRequirements": {"resourceRequest": {"memory": "1500Mi"}}}}),
      create("a second binding cpu 1, memory 1Gi x1 (lands on cpu 4, memory 4Gi)",
             binding("rb2", {"cpu": "1", "memory": "1Gi"}, [("member2", 1)])),
      create("a third binding memory 1Mi x1 (memory over)",
             binding("rb3", {"memory": "1Mi"}, [("member1", 1)])),
      scale("scale the first to 1 + 1", "rb", [("member1", 1), ("member2", 1)]),
      create("a binding of cpu 500m only x1", binding("rb4", CPU_HALF, [("member1", 1)]))]),
    ("c", "components: jobmanager 1 x (1 cpu, 1Gi), taskmanager 2 x (500m, 512Mi)",
     [quota("q", {"cpu": "10", "memory": "20Gi"})],
     [create("create, clusters member1 (replicas 2), member2 (replicas 1)",
             binding("rb", None, [("member1", 2), ("member2", 1)], components=[
                 component("jobmanager", 1, {"cpu": "1", "memory": "1Gi"}),
                 component("taskmanager", 2, {"cpu": "500m", "memory": "512Mi"})])),
      scale("add member3 (replicas 1): 3 clusters", "rb",
            [("member1", 2), ("member2", 1), ("member3", 1)]),
      patch("taskmanager replicas 2 -> 6 (3 clusters)", "rb", {"spec": {"components": [
          component("jobmanager", 1, {"cpu": "1", "memory": "1Gi"}),
          component("taskmanager", 6, {"cpu": "500m", "memory": "512Mi"})]}}),
      patch("taskmanager 6 and 2 clusters in one UPDATE", "rb", {"spec": {
          "clusters": cluster_list([("member1", 2), ("member2", 1)]),
          "components": [component("jobmanager", 1, {"cpu": "1", "memory": "1Gi"}),
                         component("taskmanager", 6, {"cpu": "500m", "memory": "512Mi"})]}}),
      scale("cluster replicas only (member1 2 -> 5)", "rb", [("member1", 5), ("member2", 1)])]),
    ("d", "two quotas: q-a overall cpu 10, q-b overall memory 1Gi",
     [quota("q-a", {"cpu": "10"}), quota("q-b", {"memory": "1Gi"})],
     [create("fits q-a, exceeds q-b (cpu 1, memory 2Gi x1)",
             binding("rb-big", {"cpu": "1", "memory": "2Gi"}, [("member1", 1)])),
      create("fits both (cpu 1, memory 512Mi x1)",
             binding("rb-small", {"cpu": "1", "memory": "512Mi"}, [("member1", 1)]))]),
    ("e", "D-Q2: overall requests.cpu 1 (upstream does not enforce requests.* keys)",
     [quota("q", {"requests.cpu": "1"})],
     [create("fits requests.cpu (cpu 500m x1)", binding("rb", CPU_HALF, [("member1", 1)]),
             diff="D-Q2", ours=d_q2_fits),
      create("exceeds requests.cpu (cpu 2 x1)", binding("rb2", {"cpu": "2"}, [("member1", 1)]),
             diff="D-Q2", ours=names_requests_cpu)]),
    ("f", "dry runs: overall cpu 2, overallUsed cpu 1",
     [quota("q", {"cpu": "2"}, {"cpu": "1"})],
     [Step("dry run: fits (cpu 500m x1)", "dryrun", binding("rb", CPU_HALF, [("member1", 1)])),
      Step("dry run: exceeds (cpu 2 x1)", "dryrun", binding("rb2", {"cpu": "2"}, [("member1", 1)])),
      create("for real: fits (cpu 500m x1)", binding("rb", CPU_HALF, [("member1", 1)]))]),
    ("g", "not scheduled: overall cpu 2",
     [quota("q", {"cpu": "2"})],
     [create("create without spec.clusters", binding("rb", CPU_HALF)),
      Step("UPDATE of labels only", "label", "rb", "team=a"),
      scale("scheduled: member1 replicas 2", "rb", [("member1", 2)]),
      Step("UPDATE of labels only, scheduled", "label", "rb", "team=b"),
      scale("scaled to 0 replicas", "rb", [("member1", 0)])]),
]


# --- a webhook process ---------------------------------------------------------------------------------

class Webhook:
    """One webhook binary on 127.0.0.1:<free ports> with upstream's command line."""

    def __init__(self, who, binary, cert_dir, workdir, kubeconfig):
        self.who, self.binary, self.cert_dir = who, binary, cert_dir
        self.ca = os.path.join(cert_dir, "ca.crt")
        self.kubeconfig = kubeconfig
        self.log = os.path.join(workdir, "%s-webhook.log" % who)
        self.port = None
        self.proc = None

    def argv(self):
        self.metrics_port = harness.free_port()
        return ["--bind-address", "127.0.0.1", "--secure-port", str(self.port),
                "--cert-dir", self.cert_dir,
                "--metrics-bind-address", "127.0.0.1:%d" % self.metrics_port,
                "--health-probe-bind-address", "127.0.0.1:%d" % harness.free_port(),
                "--kubeconfig", self.kubeconfig, GATE]

    def start(self):
        for attempt in range(3):
            self.port = harness.free_port()
            cmd = [self.binary] + self.argv()
            self.proc = kube.spawn(cmd, self.log)
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline and self.proc.poll() is None:
                if self.ready():
                    return self
                time.sleep(0.1)
            kube.stop_process(self.proc)
            log = kube.tail(self.log)
            if attempt == 2 or not ("address already in use" in log or "cannot listen" in log):
                raise AssertionError("%s's webhook did not answer /readyz/ within %.0f s (exit "
                                     "status %s); command: %s; log:\n%s" % (
                                         self.who, START_TIMEOUT, self.proc.returncode,
                                         " ".join(cmd), log))
        return self

    def ready(self):
        return kube.webhook_ready(self.port, self.ca)

    def stop(self):
        kube.stop_process(self.proc)

    def configuration(self):
        with open(self.ca, "rb") as f:
            ca = base64.b64encode(f.read()).decode()
        return {"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingWebhookConfiguration",
                "metadata": {"name": "kpw-quota-" + self.who},
                "webhooks": [{
                    "name": ENTRY,
                    "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["work.karmada.io"],
                               "apiVersions": ["*"], "resources": ["resourcebindings"],
                               "scope": "Namespaced"}],
                    "clientConfig": {"url": "https://127.0.0.1:%d/validate-resourcebinding"
                                            % self.port, "caBundle": ca},
                    "failurePolicy": "Fail", "sideEffects": "NoneOnDryRun",
                    "admissionReviewVersions": ["v1"], "timeoutSeconds": 3}]}

    def review(self, obj, namespace, operation="CREATE", dry_run=False, timeout=10.0):
        """POST one AdmissionReview of `obj` to /validate-resourcebinding as the API server would;
        (response dict, seconds)."""
        body = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                "request": {"uid": "0e2e0e2e-0000-4000-8000-000000000001",
                            "kind": {"group": "work.karmada.io", "version": "v1alpha2",
                                     "kind": "ResourceBinding"},
                            "resource": {"group": "work.karmada.io", "version": "v1alpha2",
                                         "resource": "resourcebindings"},
                            "requestKind": {"group": "work.karmada.io", "version": "v1alpha2",
                                            "kind": "ResourceBinding"},
                            "requestResource": {"group": "work.karmada.io", "version": "v1alpha2",
                                                "resource": "resourcebindings"},
                            "name": obj["metadata"]["name"], "namespace": namespace,
                            "operation": operation, "userInfo": {"username": "admin"},
                            "object": obj, "oldObject": None, "dryRun": dry_run,
                            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}}}
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        t0 = time.monotonic()
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx, timeout=timeout)
        try:
            conn.request("POST", "/validate-resourcebinding?timeout=3s", body=json.dumps(body),
                         headers={"Content-Type": "application/json",
                                  "Accept": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        took = time.monotonic() - t0
        check(resp.status == 200, "%s: direct review: HTTP %d %s", self.who, resp.status, data[:500])
        return json.loads(data)["response"], took


def upstream_binary(source, build_dir):
    """Upstream's karmada-webhook as its image ships it (with a karmada-apiserver client), unpacked
    into <build>/envtest/karmada; (path, None) or (None, why not)."""
    xz_file = os.path.join(kube.shared_dir(source), "karmada", "karmada-webhook.xz")
    if not os.path.isfile(xz_file):
        return None, "no %s (upstream's karmada-webhook with its API server client)" % xz_file
    return kube._unpacked({"karmada-webhook": xz_file},
                          os.path.join(build_dir, "envtest", "karmada"))["karmada-webhook"], None


# --- kubectl ------------------------------------------------------------------------------------------

def in_ns(obj, ns):
    obj = json.loads(json.dumps(obj))
    obj["metadata"]["namespace"] = ns
    obj["spec"]["resource"]["namespace"] = ns
    return obj


def denial_line(stderr):
    """kubectl's line saying what the server answered (the first `Error from server` line, else
    the whole stderr on one line)."""
    for line in stderr.splitlines():
        if line.startswith("Error from server") or "denied the request" in line:
            return line.strip()
    return " ".join(stderr.split())


def overall_used(api, ns, names):
    """{quota: status.overallUsed as stored (compact JSON, keys sorted) or NONE}."""
    items = {i["metadata"]["name"]: i for i in api.kubectl_json(
        "get", "federatedresourcequotas.policy.karmada.io", "-n", ns)["items"]}
    out = {}
    for name in names:
        status = items.get(name, {}).get("status")
        if not status or "overallUsed" not in status:
            out[name] = NONE
        else:
            out[name] = json.dumps(status["overallUsed"], sort_keys=True, separators=(",", ":"))
    return out


def quotas_seen(api, hook):
    """After quotas are made: a second for the webhook's cache (upstream's informer, ours), and for
    ours, on a busy machine, until its cache holds as many quotas as the API server."""
    time.sleep(QUOTA_SEEN)
    if hook.who != "ours":
        return
    want = len(api.kubectl_json("get", "federatedresourcequotas.policy.karmada.io",
                                "--all-namespaces")["items"])
    deadline = time.monotonic() + 30
    while metric(hook, "karmada_policy_webhook_quota_state_objects") < want:
        check(time.monotonic() < deadline, "ours: the quota cache did not reach %d quotas", want)
        time.sleep(0.05)


def make_quotas(api, ns, quotas):
    for name, overall, used in quotas:
        api.kubectl("create", "-f", "-", input={
            "apiVersion": "policy.karmada.io/v1alpha1", "kind": "FederatedResourceQuota",
            "metadata": {"name": name, "namespace": ns}, "spec": {"overall": overall}})
        if used is not None:
            api.kubectl("patch", "federatedresourcequota.policy.karmada.io", name, "-n", ns,
                        "--subresource=status", "--type=merge",
                        "-p", json.dumps({"status": {"overallUsed": used}}))


def run_step(api, hook, ns, step):
    """The observation of one step: verdict, kubectl's denial line (or the direct review's
    response), normalised (the namespace as NS)."""
    rb = "resourcebinding.work.karmada.io"
    obs = {"step": step.name}
    if step.action == "direct":
        response, took = hook.review(in_ns(step.args[0], ns), ns)
        status = response.get("status") or {}
        obs["verdict"] = "allowed" if response.get("allowed") else "denied"
        obs["text"] = "code %s, reason %s, message %s" % (status.get("code"), status.get("reason"),
                                                          status.get("message"))
        obs["response"] = {k: v for k, v in response.items() if k != "uid"}
    else:
        if step.action == "create":
            proc = api.kubectl("create", "-f", "-", input=in_ns(step.args[0], ns), check=False)
        elif step.action == "dryrun":
            proc = api.kubectl("create", "--dry-run=server", "-f", "-",
                               input=in_ns(step.args[0], ns), check=False)
        elif step.action == "patch":
            proc = api.kubectl("patch", rb, step.args[0], "-n", ns, "--type=merge", "-p",
                               json.dumps(step.args[1]), check=False)
        elif step.action == "label":
            proc = api.kubectl("label", "--overwrite", rb, step.args[0], "-n", ns, step.args[1],
                               check=False)
        elif step.action == "delete":
            proc = api.kubectl("delete", rb, step.args[0], "-n", ns, check=False)
        else:
            raise AssertionError("unknown action %s" % step.action)
        obs["verdict"] = "allowed" if proc.returncode == 0 else "denied"
        obs["text"] = "" if proc.returncode == 0 else denial_line(proc.stderr)
    obs["text"] = obs["text"].replace(ns, "NS")
    return obs


def run_scenarios(api, hook):
    """Every scenario in a namespace of its own: {scenario id: [observation]}."""
    results = {}
    for sid, title, quotas, steps in SCENARIOS:
        ns = "quota-%s-%s" % (sid, hook.who)
        api.kubectl("create", "namespace", ns)
        make_quotas(api, ns, quotas)
        quotas_seen(api, hook)
        names = [q[0] for q in quotas]
        before = overall_used(api, ns, names)
        rows = [{"step": "(start)", "verdict": "", "text": "", "used": before}]
        for step in steps:
            obs = run_step(api, hook, ns, step)
            time.sleep(SETTLE)
            obs["used"] = overall_used(api, ns, names)
            rows.append(obs)
        results[sid] = rows
        print("  %s: scenario %s done" % (hook.who, sid), flush=True)
    return results


# --- registration ---------------------------------------------------------------------------------------

def register(api, hook):
    """Applies `hook`'s configuration; returns once the API server calls it (RB-1's denial of a
    dry-run binding whose dependencies annotation is no JSON)."""
    api.kubectl("apply", "-f", "-", input=hook.configuration())
    probe = binding("kpw-probe", annotations={"resourcebinding.karmada.io/dependencies": "{"})
    probe = in_ns(probe, "default")
    deadline = time.monotonic() + 30
    last = ""
    while time.monotonic() < deadline:
        proc = api.kubectl("create", "--dry-run=server", "-f", "-", input=probe, check=False)
        if ('admission webhook "%s" denied the request' % ENTRY) in proc.stderr:
            return
        last = (proc.stdout + proc.stderr).strip()[:400]
        time.sleep(0.2)
    raise AssertionError("%s's entry was not called within 30 s: %s" % (hook.who, last))


def warm_up(api, hook):
    """Upstream's first review with quotas waits for its FederatedResourceQuota informer: a dry run
    in a namespace with a quota until it is allowed."""
    ns = "quota-warmup-" + hook.who
    api.kubectl("create", "namespace", ns)
    make_quotas(api, ns, [quota("q", {"cpu": "1000"})])
    probe = in_ns(binding("rb", CPU_HALF, [("member1", 1)]), ns)
    t0 = time.monotonic()
    last = ""
    while time.monotonic() - t0 < WARMUP_TIMEOUT:
        proc = api.kubectl("create", "--dry-run=server", "-f", "-", input=probe, check=False)
        if proc.returncode == 0:
            print("  %s: first quota review allowed after %.1f s" % (hook.who,
                                                                    time.monotonic() - t0),
                  flush=True)
            return
        last = proc.stderr.strip()[:400]
        time.sleep(0.5)
    raise AssertionError("%s: a dry run under a quota was not allowed within %.0f s: %s"
                         % (hook.who, WARMUP_TIMEOUT, last))


def unregister(api, hook):
    api.kubectl("delete", "--ignore-not-found", "validatingwebhookconfiguration",
                "kpw-quota-" + hook.who)


# --- reports and comparison -------------------------------------------------------------------------

def used_text(used):
    if len(used) == 1:
        return next(iter(used.values()))
    return " ".join("%s=%s" % (k, v) for k, v in used.items())


def print_table(who, results):
    print("\n%s observations (step | verdict | denial text | status.overallUsed after):"
          % {"upstream": "Upstream's", "ours": "Our"}[who])
    for sid, title, _, _ in SCENARIOS:
        print("  scenario %s: %s" % (sid, title))
        for obs in results[sid]:
            print("    %-58s | %-7s | %s | %s" % (obs["step"][:58], obs["verdict"],
                                                  obs["text"] or "-", used_text(obs["used"])))
            if "response" in obs:
                print("      direct response: %s" % json.dumps(obs["response"], sort_keys=True))
    print(flush=True)


def compare(ref, got, ref_name, got_name, skip_diffs=True):
    """`got` against `ref` step by step; the problems, one readable block each. With skip_diffs
    the steps of an expected difference are left out (check_expected judges them)."""
    problems = []
    for sid, title, _, steps in SCENARIOS:
        if len(ref.get(sid, [])) != len(got[sid]):
            problems.append("  scenario %s: %d rows for %s, %d for %s" % (
                sid, len(ref.get(sid, [])), ref_name, len(got[sid]), got_name))
            continue
        for i, (r, g) in enumerate(zip(ref[sid], got[sid])):
            step = steps[i - 1] if i > 0 else None
            if skip_diffs and step is not None and step.diff:
                continue
            width = max(len(ref_name), len(got_name)) + 1
            diffs = ["      %-8s %-*s %s\n      %-8s %-*s %s" % (
                what, width, ref_name + ":", fmt(r[what]), "", width, got_name + ":", fmt(g[what]))
                for what in ("verdict", "text", "used") if r[what] != g[what]]
            if diffs:
                problems.append("  scenario %s, step %d (%s):\n%s" % (sid, i, g["step"],
                                                                      "\n".join(diffs)))
    return problems


def recorded():
    """RECORDED in the shape of run_scenarios' results."""
    out = {}
    for sid, _, _, steps in SCENARIOS:
        names = ["(start)"] + [s.name for s in steps]
        out[sid] = [{"step": n, "verdict": v, "text": t, "used": u}
                    for n, (v, t, u) in zip(names, RECORDED.get(sid, []))]
    return out


def fmt(value):
    return used_text(value) if isinstance(value, dict) else (value or "(empty)")


def check_expected(results):
    """Ours on the steps of an expected difference (D-Q2), by each step's own check."""
    problems = []
    for sid, _, _, steps in SCENARIOS:
        for step, obs in zip(steps, results[sid][1:]):
            why = step.ours(obs) if step.diff and step.ours else None
            if why:
                problems.append("  scenario %s, %s: %s" % (sid, step.name, why))
    return problems


# --- the scenarios, per webhook --------------------------------------------------------------------------

def observe(api, hook):
    hook.start()
    try:
        register(api, hook)
        warm_up(api, hook)
        return run_scenarios(api, hook)
    except BaseException:
        print("%s's webhook log (last lines):\n%s" % (hook.who, kube.tail(hook.log, 40)),
              flush=True)
        raise
    finally:
        unregister(api, hook)


# --- ours only: concurrency and a stopped API server ----------------------------------------------------

QUOTA_EXCEEDED = "exceeded for resource cpu"


def test_concurrent_creates(api, hook):
    ns = "quota-concurrent-ours"
    api.kubectl("create", "namespace", ns)
    make_quotas(api, ns, [quota("q", {"cpu": "5"})])
    quotas_seen(api, hook)
    barrier = threading.Barrier(8)
    results = [None] * 8

    def client(i):
        obj = in_ns(binding("rb-%d" % i, {"cpu": "1"}, [("member1", 1)]), ns)
        barrier.wait()
        results[i] = api.kubectl("create", "-f", "-", input=obj, check=False)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    admitted = [i for i, p in enumerate(results) if p is not None and p.returncode == 0]
    denied = [i for i, p in enumerate(results) if p is not None and p.returncode != 0]
    wrong = [denial_line(results[i].stderr) for i in denied
             if "(QuotaExceeded)" not in results[i].stderr
             or QUOTA_EXCEEDED not in results[i].stderr]
    time.sleep(SETTLE)
    used = api.kubectl_json("get", "federatedresourcequota.policy.karmada.io", "q", "-n", ns)
    used = (used.get("status") or {}).get("overallUsed") or {}
    stored = api.kubectl_json("get", "resourcebindings.work.karmada.io", "-n", ns)["items"]
    print("  8 concurrent creates: %d admitted, %d denied, overallUsed %s, %d stored"
          % (len(admitted), len(denied), json.dumps(used, sort_keys=True), len(stored)),
          flush=True)
    check(len(admitted) == 5 and len(denied) == 3,
          "8 concurrent creates of 1 cpu under a 5-cpu quota: %d admitted, %d denied (want 5 and "
          "3): %s", len(admitted), len(denied),
          "; ".join(denial_line(results[i].stderr) for i in denied))
    check(not wrong, "denied, but not with the QuotaExceeded text: %s", wrong)
    check(used.get("cpu") == "5", "after 5 admitted: overallUsed %s, cpu must be \"5\"",
          json.dumps(used, sort_keys=True))
    check(len(stored) == 5, "%d bindings stored, 5 admitted", len(stored))


def test_apiserver_stopped(api, hook):
    ns = "quota-down-ours"
    api.kubectl("create", "namespace", ns)
    make_quotas(api, ns, [quota("q-down", {"cpu": "10"})])
    quotas_seen(api, hook)
    obj = in_ns(binding("rb-down", {"cpu": "1"}, [("member1", 1)]), ns)
    api.stop_apiserver()
    try:
        try:
            response, took = hook.review(obj, ns, timeout=DOWN_ANSWER_WITHIN + 5)
        except (OSError, http.client.HTTPException) as e:
            raise AssertionError("API server stopped: the direct review got no answer: %s" % e)
    finally:
        api.start_apiserver()
    status = response.get("status") or {}
    message = status.get("message", "")
    print("  API server stopped: answered in %.2f s: allowed %s, code %s, reason %s, message %s"
          % (took, response.get("allowed"), status.get("code"), status.get("reason"), message),
          flush=True)
    check(took <= DOWN_ANSWER_WITHIN, "API server stopped: answered after %.2f s (> %.0f s)", took,
          DOWN_ANSWER_WITHIN)
    check(response.get("allowed") is False, "API server stopped: a write was needed, but allowed: %s",
          json.dumps(response))
    check("q-down" in message, "API server stopped: the message does not name the quota: %s",
          message)
    # "The API server could not be reached": named (as such, or by its address) with the failure.
    check((re.search(r"api ?server", message, re.I) or api.url in message) and re.search(
        r"reach|connect|refused|unavailable|timed? ?out", message, re.I),
        "API server stopped: the message does not say that the API server (%s) could not be "
        "reached: %s", api.url, message)
    # Restarted: a later create is admitted and charged once the cache has caught up.
    t0 = time.monotonic()
    last = ""
    while time.monotonic() - t0 < RECOVER_WITHIN:
        proc = api.kubectl("create", "-f", "-", input=obj, check=False)
        if proc.returncode == 0:
            break
        last = denial_line(proc.stderr)
        time.sleep(0.5)
    else:
        raise AssertionError("API server restarted: no create admitted within %.0f s: %s"
                             % (RECOVER_WITHIN, last))
    recovered = time.monotonic() - t0
    time.sleep(SETTLE)
    used = overall_used(api, ns, ["q-down"])["q-down"]
    print("  API server restarted: a create admitted after %.1f s; overallUsed %s"
          % (recovered, used), flush=True)
    check(used != NONE and json.loads(used).get("cpu") == "1",
          "API server restarted: the admitted create was not charged: overallUsed %s", used)


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def metric(hook, name):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % hook.metrics_port,
                                timeout=5) as resp:
        text = resp.read().decode()
    return harness.metric_sum(harness.parse_metrics(text), name)


def rss_kib(hook):
    with open("/proc/%d/status" % hook.proc.pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_figures(api, hook):
    """docs/performance.md's figures for RB-2, printed (no bound asserted: a figure, not a timed
    test): a review that charges a quota (its status written: a PATCH to the API server) and one
    in a namespace without quotas, FIGURE_REVIEWS each, one at a time over a new connection as
    the API server's webhook client makes them; then the quota cache's memory at MANY_QUOTAS."""
    ns, none = "quota-figures", "quota-figures-none"
    for n in (ns, none):
        api.kubectl("create", "namespace", n)
    make_quotas(api, ns, [quota("q-big", {"cpu": "1M"})])
    quotas_seen(api, hook)
    figures = {}
    for label, namespace in (("charged, status written", ns), ("no quota in the namespace", none)):
        took = []
        for i in range(FIGURE_REVIEWS):
            obj = in_ns(binding("rb-fig-%04d" % i, {"cpu": "1m"}, [("member1", 1)]), namespace)
            response, seconds = hook.review(obj, namespace)
            check(response.get("allowed") is True, "%s: review %d: %s", label, i,
                  json.dumps(response)[:300])
            took.append(seconds * 1000)
        figures[label] = took
        print("  RB-2 review, %s: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d reviews, each over a "
              "new TLS connection)" % (label, percentile(took, 0.5), percentile(took, 0.99),
                                       max(took), len(took)), flush=True)
    # Not a bound on time, a ratio in one run: a write costs a connection and a PATCH more than
    # the review alone (~3x here); a client that left Nagle's algorithm on waited for the API
    # server's delayed ACK between the PATCH's header and body, 40 ms a write (17x).
    ratio = percentile(figures["charged, status written"], 0.5) / percentile(
        figures["no quota in the namespace"], 0.5)
    check(ratio < 10, "a charged review takes %.1fx one without a quota (p50): a stall in the "
          "write (TCP_NODELAY?)", ratio)
    used = json.loads(overall_used(api, ns, ["q-big"])["q-big"])
    check(used.get("cpu") == "%dm" % FIGURE_REVIEWS, "after %d charges of 1m: overallUsed %s",
          FIGURE_REVIEWS, used)
    # The cache at MANY_QUOTAS: in 10 namespaces, created through the API with a keep-alive
    # connection per thread.
    before = rss_kib(hook)
    objects_before = metric(hook, "karmada_policy_webhook_quota_state_objects")
    spaces = ["quota-many-%d" % i for i in range(10)]
    for n in spaces:
        api.kubectl("create", "namespace", n)
    local = threading.local()

    def create(i):
        if getattr(local, "conn", None) is None:
            ctx = ssl.create_default_context(cafile=api.ca)
            local.conn = http.client.HTTPSConnection("127.0.0.1", api.port, context=ctx,
                                                     timeout=60)
        n = spaces[i % len(spaces)]
        body = json.dumps({"apiVersion": "policy.karmada.io/v1alpha1",
                           "kind": "FederatedResourceQuota",
                           "metadata": {"name": "q-%05d" % i, "namespace": n},
                           "spec": {"overall": {"cpu": "100", "memory": "64Gi",
                                                "nvidia.com/gpu": "8"}}})
        local.conn.request("POST", "/apis/policy.karmada.io/v1alpha1/namespaces/%s/"
                           "federatedresourcequotas" % n, body=body,
                           headers={"Authorization": "Bearer " + kube.TOKEN,
                                    "Content-Type": "application/json"})
        resp = local.conn.getresponse()
        text = resp.read()
        if resp.status != 201:
            raise AssertionError("create q-%05d: HTTP %d %s" % (i, resp.status, text[:200]))
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        list(pool.map(create, range(MANY_QUOTAS)))
    made = time.monotonic() - t0
    want = objects_before + MANY_QUOTAS
    deadline = time.monotonic() + 60
    while metric(hook, "karmada_policy_webhook_quota_state_objects") < want:
        check(time.monotonic() < deadline, "the cache did not reach %d quotas in 60 s", want)
        time.sleep(0.1)
    seen = time.monotonic() - t0 - made
    after = rss_kib(hook)
    print("  %d quotas: created in %.1f s, all in the cache %.2f s later; RSS %d KiB -> %d KiB "
          "(+%.1f MiB, %.0f B a quota)" % (MANY_QUOTAS, made, seen, before, after,
                                           (after - before) / 1024.0,
                                           (after - before) * 1024.0 / MANY_QUOTAS), flush=True)


# --- the test -----------------------------------------------------------------------------------------

ONLY = None     # set by main(): None (both), "upstream" or "ours"


def quota_test(args, api):
    t_start = time.monotonic()
    build_dir = os.path.dirname(args.binary)
    workdir = harness.temp_dir("quota")
    certs = harness.make_certs(args.source)
    hooks = []
    if ONLY in (None, "upstream"):
        binary, why = upstream_binary(args.source, build_dir)
        if binary is None:
            kube.skip(why, how=HOW_TO_GET_UPSTREAM)
        hooks.append(Webhook("upstream", binary, certs, workdir, api.kubeconfig))
    if ONLY in (None, "ours"):
        hooks.append(Webhook("ours", args.binary, certs, workdir, api.kubeconfig))
    api.install_karmada_crds()
    print("  CRDs installed (%.1f s)" % (time.monotonic() - t_start), flush=True)

    results = {}
    for hook in hooks:
        t0 = time.monotonic()
        if hook.who == "ours":
            results[hook.who] = observe_and_keep(api, hook)
        else:
            try:
                results[hook.who] = observe(api, hook)
            finally:
                hook.stop()
        print("  %s: scenarios in %.1f s" % (hook.who, time.monotonic() - t0), flush=True)
        print_table(hook.who, results[hook.who])

    status = 0
    if "upstream" in results and os.environ.get("KPW_QUOTA_RECORD"):
        with open(os.environ["KPW_QUOTA_RECORD"], "w") as f:
            json.dump({sid: [[o["verdict"], o["text"], o["used"]] for o in rows]
                       for sid, rows in results["upstream"].items()}, f, indent=1)
    if "upstream" in results:
        # Upstream as recorded below: the table ours is held to under --only ours.
        drift = compare(recorded(), results["upstream"], "recorded", "upstream", skip_diffs=False)
        if drift:
            print("FAIL upstream's observations differ from RECORDED (upstream changed, or a step "
                  "is not deterministic):\n%s" % "\n".join(drift), flush=True)
            status = 1
        else:
            print("PASS upstream's observations as RECORDED", flush=True)
    if "ours" in results:
        ref_name = "upstream" if "upstream" in results else "recorded"
        ref = results["upstream"] if "upstream" in results else recorded()
        problems = check_expected(results["ours"]) + compare(ref, results["ours"], ref_name, "ours")
        if problems:
            counts = {w: sum(1 for p in problems if "\n      %-8s " % w in p)
                      for w in ("verdict", "text", "used")}
            print("FAIL ours against %s (RB-2): %d steps differ (verdict %d, denial text %d, "
                  "overallUsed %d), step by step:\n%s" % (
                      ref_name, len(problems), counts["verdict"], counts["text"], counts["used"],
                      "\n".join(problems)), flush=True)
            status = 1
        else:
            print("PASS ours equals %s step by step (D-Q2 aside)" % ref_name, flush=True)

    ours = next((h for h in hooks if h.who == "ours"), None)
    if ours is not None:
        try:
            register(api, ours)
            status |= harness.run_tests([test_concurrent_creates, test_apiserver_stopped,
                                         test_figures], api, ours)
        finally:
            unregister(api, ours)
            ours.stop()
    print("quota test took %.1f s" % (time.monotonic() - t_start), flush=True)
    return status


def observe_and_keep(api, hook):
    """observe(), but ours stays up for the second test (stopped by quota_test)."""
    try:
        return observe(api, hook)
    except BaseException:
        hook.stop()
        raise


def main():
    global ONLY
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--only", choices=("upstream", "ours"))
    known, rest = parser.parse_known_args(sys.argv[1:])
    ONLY = known.only
    sys.argv[1:] = rest
    if ONLY != "ours":
        args = harness.parse_args(rest, description=__doc__)
        if upstream_binary_missing(args.source):
            kube.skip("no %s" % os.path.join(kube.shared_dir(args.source), "karmada",
                                              "karmada-webhook.xz"), how=HOW_TO_GET_UPSTREAM)
    kube.main(quota_test)


def upstream_binary_missing(source):
    return not os.path.isfile(os.path.join(kube.shared_dir(source), "karmada", "karmada-webhook.xz"))


# Upstream's observations, one row per step after the scenario's start row: (verdict, kubectl's
# denial line, {quota: status.overallUsed as stored}). Recorded with upstream's binary of
# ../shared/karmada (commit f8fdd02df); KPW_QUOTA_RECORD=<file> with --only upstream writes them
# as JSON. Every row is deterministic: no step exceeds two resources at once (upstream names
# whichever Go's map order gives first).
def exceeded(how, name, resource, requested, limit):
    """Upstream's denial as kubectl prints it for a create or an update (a patch, a label), or as
    the direct review's status reads."""
    message = "FederatedResourceQuota(NS/%s) exceeded for resource %s: requested sum %s, limit %s." % (
        name, resource, requested, limit)
    if how == "direct":
        return "code 403, reason QuotaExceeded, message " + message
    return "Error from server (QuotaExceeded): %sadmission webhook \"%s\" denied the request: %s" % (
        'error when creating "STDIN": ' if how == "created" else "", ENTRY, message)


def used(**quantities):
    return json.dumps(quantities, sort_keys=True, separators=(",", ":"))


RECORDED = {
    "a": [
        ("", "", {"q": NONE}),
        ("allowed", "", {"q": used(cpu="1")}),
        ("allowed", "", {"q": used(cpu="2")}),
        ("denied", exceeded("updated", "q", "cpu", "2500m", "2"), {"q": used(cpu="2")}),
        ("allowed", "", {"q": used(cpu="1500m")}),
        ("denied", exceeded("direct", "q", "cpu", "2500m", "2"), {"q": used(cpu="1500m")}),
        ("allowed", "", {"q": used(cpu="1500m")}),
    ],
    "b": [
        ("", "", {"q": used(cpu="0", memory="0", pods="0", services="2")}),
        ("allowed", "", {"q": used(cpu="3", memory="3Gi")}),
        ("denied", exceeded("updated", "q", "memory", "4500Mi", "4Gi"),
         {"q": used(cpu="3", memory="3Gi")}),
        ("allowed", "", {"q": used(cpu="4", memory="4Gi")}),
        ("denied", exceeded("created", "q", "memory", "4097Mi", "4Gi"),
         {"q": used(cpu="4", memory="4Gi")}),
        ("allowed", "", {"q": used(cpu="3", memory="3Gi")}),
        ("allowed", "", {"q": used(cpu="3500m", memory="3Gi")}),
    ],
    "c": [
        ("", "", {"q": NONE}),
        ("allowed", "", {"q": used(cpu="4", memory="4Gi")}),
        ("allowed", "", {"q": used(cpu="6", memory="6Gi")}),
        ("denied", exceeded("updated", "q", "cpu", "12", "10"),
         {"q": used(cpu="6", memory="6Gi")}),
        ("allowed", "", {"q": used(cpu="8", memory="8Gi")}),
        ("allowed", "", {"q": used(cpu="8", memory="8Gi")}),
    ],
    "d": [
        ("", "", {"q-a": NONE, "q-b": NONE}),
        ("denied", exceeded("created", "q-b", "memory", "2Gi", "1Gi"),
         {"q-a": NONE, "q-b": NONE}),
        ("allowed", "", {"q-a": used(cpu="1"), "q-b": used(memory="512Mi")}),
    ],
    "e": [
        ("", "", {"q": NONE}),
        ("allowed", "", {"q": NONE}),
        ("allowed", "", {"q": NONE}),
    ],
    "f": [
        ("", "", {"q": used(cpu="1")}),
        ("allowed", "", {"q": used(cpu="1")}),
        ("denied", exceeded("created", "q", "cpu", "3", "2"), {"q": used(cpu="1")}),
        ("allowed", "", {"q": used(cpu="1500m")}),
    ],
    "g": [
        ("", "", {"q": NONE}),
        ("allowed", "", {"q": NONE}),
        ("allowed", "", {"q": NONE}),
        ("allowed", "", {"q": used(cpu="1")}),
        ("allowed", "", {"q": used(cpu="1")}),
        ("allowed", "", {"q": NONE}),
    ],
}


if __name__ == "__main__":
    main()
