#!/usr/bin/env python3
"""/convert behind a real kube-apiserver: ResourceBinding and ClusterResourceBinding between
work.karmada.io v1alpha1 and v1alpha2 (docs/rules.md CV-1…CV-4), ours and upstream's side by side.

Karmada's CRDs are installed and the bindings' conversion pointed at our server's /convert with
Karmada's own CRD patches (../shared/envtest/crds/patches: `spec.conversion.strategy: Webhook`,
filled with our URL and CA by `conversion_patches`). No admission webhook is registered: the
binding paths are not ours to judge here. Upstream's karmada-webhook runs beside ours.

- every ConversionReview fixture (test/fixtures/convert/) posted to upstream's live binary gets
  what the fixture says upstream answers: the same bytes as ours, or the difference it records;
- through ours: a ResourceBinding and a ClusterResourceBinding created at v1alpha1 and read at
  v1alpha2 (`kubectl get resourcebindings.v1alpha2.work.karmada.io`): resourcePerReplicas stored as
  replicaRequirements.resourceRequest in Kubernetes' form, replicas, clusters, their status (set
  through the v1alpha1 status subresource); both created at v1alpha2 with what only v1alpha2 holds
  and read at v1alpha1 (dropped there), then annotated through v1alpha1, which loses it for good,
  as upstream loses it; a list read at v1alpha1 (several objects in one review);
- the API server's conversion webhook calls (apiserver_crd_conversion_webhook_duration_seconds)
  are the requests our /metrics counts for /convert;
- then the bindings' conversion pointed at upstream's binary: every object stored above reads the
  same at both versions, byte for byte; the same creates, status updates and annotations through
  upstream store what they stored through ours.

Skips (exit 77) without envtest's binaries or upstream's binary.

    test_apiserver_conversion.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
import kube  # noqa: E402
import test_apiserver_switch_day as switch_day  # noqa: E402  (its Upstream process)
from harness import check  # noqa: E402

GROUP = "work.karmada.io"
CRDS = ("resourcebindings.work.karmada.io", "clusterresourcebindings.work.karmada.io")
NS = "default"
SWITCH_TIMEOUT = 30.0


# --- the CRDs' conversion ------------------------------------------------------------------------

def conversion_patches(source: str, url: str, ca_file: str) -> list:
    """[(CRD name, merge patch YAML)]: Karmada's own patches (spec.conversion: a webhook at
    https://{{name}}.{{namespace}}.svc:443/convert, caBundle {{caBundle}}), filled with `url` and
    the CA in `ca_file`, as a deployer's template fills them."""
    folder = os.path.join(kube.shared_dir(source), "envtest", "crds", "patches")
    with open(ca_file, "rb") as f:
        ca = base64.b64encode(f.read()).decode()
    out = []
    for crd in CRDS:
        path = os.path.join(folder, "webhook_in_%s.yaml" % crd.split(".")[0])
        with open(path) as f:
            text = f.read()
        placeholder = "https://{{name}}.{{namespace}}.svc:443/convert"
        check(placeholder in text and "{{caBundle}}" in text and "name: %s" % crd in text,
              "%s is not a conversion patch of %s with %s and {{caBundle}}", path, crd, placeholder)
        out.append((crd, text.replace(placeholder, url).replace("{{caBundle}}", ca)))
    return out


def point_conversion_at(api, source: str, url: str, ca_file: str):
    for crd, patch in conversion_patches(source, url, ca_file):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=api.dir, delete=False) as f:
            f.write(patch)
        api.kubectl("patch", "crd", crd, "--type", "merge", "--patch-file", f.name)
        got = api.kubectl_json("get", "crd", crd)["spec"]["conversion"]
        check(got.get("strategy") == "Webhook" and got["webhook"]["clientConfig"]["url"] == url,
              "%s: spec.conversion is %s", crd, json.dumps(got))


# --- what we create --------------------------------------------------------------------------------

def resource(kind: str, name: str) -> dict:
    ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "namespace": NS}
    if kind == "ClusterResourceBinding":
        ref = {"apiVersion": "v1", "kind": "Namespace", "name": "team-" + name}
    return ref


def v1alpha1_binding(kind: str, name: str) -> dict:
    ref = dict(resource(kind, name), replicas=3, resourceVersion="42",
               resourcePerReplicas={"cpu": "0.25", "memory": "1.5Gi", "nvidia.com/gpu": "1000m"})
    obj = {"apiVersion": GROUP + "/v1alpha1", "kind": kind,
           "metadata": {"name": name, "labels": {"team": "shop"}},
           "spec": {"resource": ref, "clusters": [{"name": "member1", "replicas": 2},
                                                  {"name": "member2", "replicas": 1}]}}
    if kind == "ResourceBinding":
        obj["metadata"]["namespace"] = NS
    return obj


def v1alpha1_status() -> dict:
    return {"status": {
        "conditions": [{"type": "Scheduled", "status": "True", "reason": "Success",
                        "message": "Binding has been scheduled successfully.",
                        "lastTransitionTime": "2026-11-20T08:15:32Z", "observedGeneration": 1}],
        "aggregatedStatus": [
            {"clusterName": "member1", "applied": True,
             "status": {"replicas": 2, "readyReplicas": 2, "note": "a <b> & c"}},
            {"clusterName": "member2", "applied": False,
             "appliedMessage": "Failed to apply all manifests (0/1)"}]}}


def v1alpha2_binding(kind: str, name: str) -> dict:
    ref = dict(resource(kind, name), uid="9d2c1b0a-7f6e-4d5c-8b4a-3f2e1d0c9b8a",
               resourceVersion="98765")
    obj = {"apiVersion": GROUP + "/v1alpha2", "kind": kind,
           "metadata": {"name": name},
           "spec": {"resource": ref, "replicas": 3, "propagateDeps": True,
                    "schedulerName": "default-scheduler", "conflictResolution": "Overwrite",
                    "replicaRequirements": {"resourceRequest": {"cpu": "0.1", "memory": "64Mi"},
                                            "nodeClaim": {"nodeSelector": {"disktype": "ssd"}},
                                            "priorityClassName": "high"},
                    "clusters": [{"name": "member1", "replicas": 2},
                                 {"name": "member2", "replicas": 1}],
                    "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]},
                                  "replicaScheduling": {"replicaSchedulingType": "Divided",
                                                        "replicaDivisionPreference": "Weighted"}},
                    "failover": {"application": {"decisionConditions": {"tolerationSeconds": 300},
                                                 "purgeMode": "Gracefully",
                                                 "gracePeriodSeconds": 600}},
                    "gracefulEvictionTasks": [{"fromCluster": "member3", "producer": "taint-manager",
                                               "reason": "TaintUntolerated", "replicas": 1}]}}
    if kind == "ResourceBinding":
        obj["metadata"]["namespace"] = NS
    return obj


def v1alpha2_status() -> dict:
    return {"status": {
        "schedulerObservedGeneration": 1,
        "lastScheduledTime": "2026-11-20T08:15:32Z",
        "conditions": [{"type": "FullyApplied", "status": "False", "reason": "FullyAppliedFailed",
                        "message": "Failed to apply all works",
                        "lastTransitionTime": "2026-11-20T08:16:01Z"}],
        "aggregatedStatus": [{"clusterName": "member1", "applied": True, "health": "Healthy",
                              "status": {"availableReplicas": 2}}]}}


# Dropped on the way to v1alpha1 (and so by a write through it).
V1ALPHA2_ONLY = ("/spec/propagateDeps", "/spec/schedulerName", "/spec/placement", "/spec/failover",
                 "/spec/gracefulEvictionTasks", "/spec/resource/uid",
                 "/spec/replicaRequirements/nodeClaim", "/status/aggregatedStatus/0/health",
                 "/status/schedulerObservedGeneration", "/status/lastScheduledTime")


def at(doc, pointer: str):
    for token in pointer.split("/")[1:]:
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def has(doc, pointer: str) -> bool:
    try:
        at(doc, pointer)
        return True
    except (KeyError, IndexError, TypeError, ValueError):
        return False


def resource_of(kind: str, version: str) -> str:
    plural = "resourcebindings" if kind == "ResourceBinding" else "clusterresourcebindings"
    return "%s.%s.%s" % (plural, version, GROUP)


def scope(kind: str) -> list:
    return ["-n", NS] if kind == "ResourceBinding" else []


def read(api, kind: str, version: str, name: str) -> dict:
    return api.kubectl_json("get", resource_of(kind, version), name, *scope(kind))


def same_but_identity(a: dict, b: dict) -> bool:
    """Two objects alike but for what identifies a stored object and when it was written."""
    def strip(o):
        o = json.loads(json.dumps(o))
        meta = o.get("metadata", {})
        for k in ("name", "uid", "resourceVersion", "creationTimestamp", "managedFields",
                  "generation"):
            meta.pop(k, None)
        ref = o.get("spec", {}).get("resource", {})
        if ref.get("kind") == "Namespace":
            ref.pop("name", None)
        return o
    return strip(a) == strip(b)


class Env:
    def __init__(self, args, api, ours, upstream, ours_ca, upstream_ca):
        self.args, self.api, self.ours, self.upstream = args, api, ours, upstream
        self.ours_url = "https://127.0.0.1:%d/convert" % ours.port
        self.upstream_url = "https://127.0.0.1:%d/convert" % upstream.port
        self.ours_ca, self.upstream_ca = ours_ca, upstream_ca
        self.results = {}   # (phase, step) -> object, for the comparison under upstream

    def our_conversions(self) -> float:
        return harness.metric_sum(harness.scrape_metrics(self.ours.metrics_port),
                                  "controller_runtime_webhook_requests_total", webhook="/convert")

    def apiserver_conversions(self) -> float:
        samples = self.api.metrics()
        return sum(harness.metric_sum(samples, "apiserver_crd_conversion_webhook_duration_seconds_count",
                                      crd_name=crd) for crd in CRDS)

    def switch(self, to_ours: bool):
        """Points the bindings' conversion at ours or upstream's and waits until the API server
        calls it (a v1alpha1 read reaches our /metrics, or no longer does)."""
        url, ca = (self.ours_url, self.ours_ca) if to_ours else (self.upstream_url, self.upstream_ca)
        point_conversion_at(self.api, self.args.source, url, ca)
        probe = {"apiVersion": GROUP + "/v1alpha2", "kind": "ClusterResourceBinding",
                 "metadata": {"name": "kpw-conversion-probe"},
                 "spec": {"resource": {"apiVersion": "v1", "kind": "Namespace", "name": "probe"}}}
        self.api.kubectl("apply", "-f", "-", input=probe)
        deadline = time.monotonic() + SWITCH_TIMEOUT
        while time.monotonic() < deadline:
            before = self.our_conversions()
            self.api.kubectl("get", resource_of("ClusterResourceBinding", "v1alpha1"),
                             "kpw-conversion-probe")
            if (self.our_conversions() > before) == to_ours:
                return
            time.sleep(0.2)
        raise AssertionError("the API server did not switch its conversion to %s within %.0f s"
                             % (url, SWITCH_TIMEOUT))


# --- the tests -------------------------------------------------------------------------------------

def test_fixtures_match_upstreams_binary(env):
    """Every ConversionReview fixture, posted to upstream's live karmada-webhook, gets what the
    fixture says upstream answers."""
    root = os.path.join(env.args.source, "test", "fixtures", "convert")
    problems, same, differs = [], 0, 0
    with harness.Client(env.upstream.port, env.upstream.ca) as client:
        for name in sorted(os.listdir(root)):
            fixture = fixture_check.load_fixture(os.path.join(root, name))
            answer = client.post("/convert", fixture_check.request_body(fixture))
            upstream = fixture["upstream"]
            if upstream == "same":
                want_status = fixture["expect"].get("http_status", 200)
                want_body = fixture["expect"].get("body")
                same += 1
            else:
                want_status, want_body = upstream["http_status"], upstream["body"]
                differs += 1
            got = answer.body.decode("utf-8", "replace")
            if answer.status != want_status or (want_body is not None and got != want_body):
                problems.append("%s: upstream answered HTTP %d %s, the fixture says HTTP %d %s"
                                % (name, answer.status, got[:400], want_status,
                                   (want_body or "")[:400]))
    check(same + differs > 40, "only %d fixtures under %s", same + differs, root)
    check(not problems, "\n  ".join(problems))
    print("     %d fixtures answered by upstream as by us, %d with the difference they record"
          % (same, differs), flush=True)


def run_scenarios(env, phase: str):
    """The creates, status updates, reads and the lossy write of the bindings of `phase`
    ("ours" or "upstream": names differ), recorded in env.results."""
    api = env.api
    for kind in ("ResourceBinding", "ClusterResourceBinding"):
        short = "rb" if kind == "ResourceBinding" else "crb"
        # Created at v1alpha1: stored at v1alpha2 through the conversion, status likewise.
        name1 = "%s-%s-v1alpha1" % (short, phase)
        api.kubectl("create", "-f", "-", input=v1alpha1_binding(kind, name1))
        api.kubectl("patch", resource_of(kind, "v1alpha1"), name1, *scope(kind),
                    "--subresource", "status", "--type", "merge", "-p", json.dumps(v1alpha1_status()))
        env.results[(phase, kind, "v1alpha1 create, read at v1alpha2")] = read(api, kind, "v1alpha2", name1)
        env.results[(phase, kind, "v1alpha1 create, read at v1alpha1")] = read(api, kind, "v1alpha1", name1)
        # Created at v1alpha2 with what only v1alpha2 holds.
        name2 = "%s-%s-v1alpha2" % (short, phase)
        api.kubectl("create", "-f", "-", input=v1alpha2_binding(kind, name2))
        api.kubectl("patch", resource_of(kind, "v1alpha2"), name2, *scope(kind),
                    "--subresource", "status", "--type", "merge", "-p", json.dumps(v1alpha2_status()))
        env.results[(phase, kind, "v1alpha2 create, read at v1alpha2")] = read(api, kind, "v1alpha2", name2)
        env.results[(phase, kind, "v1alpha2 create, read at v1alpha1")] = read(api, kind, "v1alpha1", name2)
        # A write through v1alpha1 stores what v1alpha1 holds: the rest is gone.
        api.kubectl("annotate", resource_of(kind, "v1alpha1"), name2, *scope(kind), "touched=v1alpha1")
        env.results[(phase, kind, "v1alpha1 annotate, read at v1alpha2")] = read(api, kind, "v1alpha2", name2)
    listed = api.kubectl_json("get", resource_of("ResourceBinding", "v1alpha1"), "-A")
    env.results[(phase, "list", "v1alpha1")] = [i for i in listed["items"]
                                                if i["metadata"]["name"].startswith("rb-%s-" % phase)]


def test_conversions_through_ours(env):
    our_before, api_before = env.our_conversions(), env.apiserver_conversions()
    run_scenarios(env, "ours")
    r = env.results
    problems = []
    for kind in ("ResourceBinding", "ClusterResourceBinding"):
        stored = r[("ours", kind, "v1alpha1 create, read at v1alpha2")]
        want = {"/apiVersion": GROUP + "/v1alpha2",
                "/spec/replicaRequirements/resourceRequest": {"cpu": "250m", "memory": "1536Mi",
                                                              "nvidia.com/gpu": "1"},
                "/spec/replicas": 3, "/spec/resource/resourceVersion": "42",
                "/spec/clusters": [{"name": "member1", "replicas": 2}, {"name": "member2", "replicas": 1}],
                "/status/conditions/0/type": "Scheduled",
                "/status/aggregatedStatus/0/status/note": "a <b> & c",
                "/status/aggregatedStatus/1": {"clusterName": "member2",
                                               "appliedMessage": "Failed to apply all manifests (0/1)"},
                "/metadata/labels/team": "shop"}
        for pointer, value in want.items():
            if not has(stored, pointer) or at(stored, pointer) != value:
                problems.append("%s created at v1alpha1, read at v1alpha2: %s is %s, want %s" % (
                    kind, pointer, json.dumps(at(stored, pointer)) if has(stored, pointer) else "absent",
                    json.dumps(value)))
        back = r[("ours", kind, "v1alpha1 create, read at v1alpha1")]
        if at(back, "/spec/resource/resourcePerReplicas") != want["/spec/replicaRequirements/resourceRequest"] \
                or at(back, "/spec/resource/replicas") != 3 or has(back, "/spec/replicaRequirements"):
            problems.append("%s read back at v1alpha1: spec %s" % (kind, json.dumps(back["spec"])))
        full = r[("ours", kind, "v1alpha2 create, read at v1alpha2")]
        missing = [p for p in V1ALPHA2_ONLY if not has(full, p)]
        if missing:
            problems.append("%s created at v1alpha2 lacks %s before any conversion" % (kind, missing))
        v1 = r[("ours", kind, "v1alpha2 create, read at v1alpha1")]
        if at(v1, "/spec/resource/resourcePerReplicas") != {"cpu": "100m", "memory": "64Mi"} or \
                at(v1, "/spec/resource/replicas") != 3 or has(v1, "/spec/placement") or \
                has(v1, "/status/aggregatedStatus/0/health") or has(v1, "/spec/resource/uid"):
            problems.append("%s created at v1alpha2, read at v1alpha1: %s" % (kind, json.dumps(v1)[:800]))
        lost = r[("ours", kind, "v1alpha1 annotate, read at v1alpha2")]
        kept = [p for p in V1ALPHA2_ONLY if has(lost, p)]
        if kept or at(lost, "/metadata/annotations/touched") != "v1alpha1":
            problems.append("%s annotated through v1alpha1 still holds %s (upstream loses them)"
                            % (kind, kept))
        if at(lost, "/spec/replicaRequirements/resourceRequest") != {"cpu": "100m", "memory": "64Mi"}:
            problems.append("%s annotated through v1alpha1: resourceRequest %s" % (
                kind, json.dumps(at(lost, "/spec/replicaRequirements"))))
    listed = r[("ours", "list", "v1alpha1")]
    if sorted(i["metadata"]["name"] for i in listed) != ["rb-ours-v1alpha1", "rb-ours-v1alpha2"] or \
            any(i["apiVersion"] != GROUP + "/v1alpha1" for i in listed):
        problems.append("the v1alpha1 list: %s" % json.dumps(listed)[:600])
    check(not problems, "\n  ".join(problems))
    ours = env.our_conversions() - our_before
    apiserver = env.apiserver_conversions() - api_before
    check(ours > 0 and ours == apiserver,
          "our /metrics counted %d requests on /convert, the API server made %d conversion webhook "
          "calls", ours, apiserver)
    print("     %d conversion webhook calls by the API server, %d counted by our /metrics"
          % (apiserver, ours), flush=True)


def test_upstream_converts_the_same(env):
    """The same stored objects read through upstream's conversion; the same writes through it."""
    ours_reads = {}
    for kind in ("ResourceBinding", "ClusterResourceBinding"):
        short = "rb" if kind == "ResourceBinding" else "crb"
        for made in ("v1alpha1", "v1alpha2"):
            name = "%s-ours-%s" % (short, made)
            for version in ("v1alpha1", "v1alpha2"):
                ours_reads[(kind, name, version)] = read(env.api, kind, version, name)
    env.switch(to_ours=False)
    ours_count = env.our_conversions()
    problems = []
    for (kind, name, version), ours in ours_reads.items():
        theirs = read(env.api, kind, version, name)
        if theirs != ours:
            problems.append("%s %s read at %s: through upstream %s, through ours %s" % (
                kind, name, version, json.dumps(theirs)[:600], json.dumps(ours)[:600]))
    run_scenarios(env, "upstream")
    for key, ours in env.results.items():
        if key[0] != "ours":
            continue
        theirs = env.results[("upstream",) + key[1:]]
        if key[1] == "list":
            alike = len(theirs) == len(ours) and all(same_but_identity(a, b) for a, b in zip(ours, theirs))
        else:
            alike = same_but_identity(ours, theirs)
        if not alike:
            problems.append("%s: through upstream %s, through ours %s" % (
                " / ".join(key[1:]), json.dumps(theirs)[:800], json.dumps(ours)[:800]))
    check(env.our_conversions() == ours_count,
          "our /convert was called %d times while upstream's was the CRDs' conversion",
          env.our_conversions() - ours_count)
    check(not problems, "\n  ".join(problems))
    print("     %d stored objects read alike at both versions through upstream; %d reads after the "
          "same writes through upstream alike" % (len(ours_reads), len(env.results) // 2), flush=True)


def run(args, api):
    build_dir = os.path.dirname(args.binary)
    upstream_binary, why = kube.upstream_webhook(args.source, build_dir)
    if upstream_binary is None:
        kube.skip(why, how=switch_day.HOW_TO_GET_UPSTREAM)
    t0 = time.monotonic()
    workdir = harness.temp_dir("conversion")
    upstream_certs = tempfile.mkdtemp(prefix="upstream-certs-", dir=workdir)
    made = switch_day.run_command([os.path.join(args.source, "certs", "make-certs.sh"), "--force",
                                   upstream_certs])
    check(made.returncode == 0, "certs/make-certs.sh for upstream's webhook: %s", switch_day.said(made))
    certs = harness.make_certs(args.source)
    upstream = switch_day.Upstream(upstream_binary, upstream_certs, workdir).start()
    try:
        with harness.Server(args.binary, certs) as ours:
            api.install_karmada_crds()
            env = Env(args, api, ours, upstream, os.path.join(certs, "ca.crt"), upstream.ca)
            env.switch(to_ours=True)
            print("  CRDs installed, the bindings' conversion at %s (%.1f s)"
                  % (env.ours_url, time.monotonic() - t0), flush=True)
            status = harness.run_tests([test_fixtures_match_upstreams_binary,
                                        test_conversions_through_ours,
                                        test_upstream_converts_the_same], env)
            # Nothing may call a stopped webhook: the CRDs go before the servers do.
            api.kubectl("delete", "crd", *CRDS, "--wait=true", timeout=120)
            print("  %.1f s in all" % (time.monotonic() - t0), flush=True)
            return status
    finally:
        upstream.stop()


if __name__ == "__main__":
    kube.main(run)
