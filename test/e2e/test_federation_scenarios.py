#!/usr/bin/env python3
"""Inside a real federation: Karmada's own controllers as the clients, upstream's webhook and ours.

One federation (test/e2e/federation.py: karmada-apiserver with the aggregation layer, the
aggregated API server, two Push-mode members, karmada-controller-manager, karmada-scheduler) runs
the same scenario three times:

1. under **upstream's** karmada-webhook (../shared/karmada/karmada-webhook.xz, its command line,
   its own webhook-configuration.yaml and CRD conversion patches);
2. under **ours** (`serve`, the project's url overlay and conversion patches): the outcome must
   equal upstream's after normalisation (uids, resourceVersions, generations, timestamps,
   permanent-id values and the run's name tag), step by step, save the differences
   docs/compatibility.md lists (none so far);
3. **switch day**: the first half under upstream's webhook registered with upstream's own
   configurations; then, while the controllers run, upstream's process is stopped and ours started
   in its place with upstream's command line, certificate and address (the configurations
   untouched: what changing the image does), while a scale of a propagated Deployment makes the
   controllers write; the second half under ours. The calls that failed in the gap are counted
   (the API server's `apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error"}`
   and the controllers' log lines) and the scale must still reach both members: the controllers
   retried, nothing was lost. Every object stored before stays updatable (a label on each).

The scenario (each step waits for what the controllers make of it):
- a Deployment propagated by a PropagationPolicy (Duplicated) to both members;
- an OverridePolicy changing its image in member1 only;
- a Deployment with Divided static weights 1:3, then scaled from 4 to 8 replicas;
- a WorkloadRebalancer of it, run to `Successful`;
- a FederatedHPA and a CronFederatedHPA on the first Deployment, stored (FederatedHPA's defaults)
  and reconciled (the HPA controller marks the target; the cron controller's status);
- a ClusterPropagationPolicy and a ClusterOverridePolicy on a ClusterRole (a label in member2);
- a FederatedResourceQuota with static assignments: a ResourceQuota in each member;
- RB-2 with the dev artefacts' gates (FederatedQuotaEnforcement on the controllers and the
  webhook): a Deployment within a quota propagated, then scaled past it: the detector's binding
  update is refused (QuotaExceeded in its log), the member keeps the admitted replicas and the
  quota's overallUsed is what was charged, the same under both webhooks;
- a MultiClusterService of a Service (CrossCluster, member1 to member2), stored as mutated;
- deletion protection: a labelled Deployment's DELETE refused (kubectl's line, reason Forbidden),
  then the label removed and the DELETE admitted;
- a ClusterTaintPolicy tainting member2 (NoSchedule while it is Ready): a Deployment propagated
  after it lands in member1 only; the policy deleted and the taint removed;
- application failover fields on a PropagationPolicy, stored in its ResourceBinding as the
  controllers read them;
- deletion of everything: templates and policies deleted, the ResourceBinding of each deleted
  template deleted by the test (no garbage collector), every member object gone.
No controller log line may name a failed webhook call in runs 1 and 2.

    test_federation_scenarios.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import federation  # noqa: E402
import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

# The feature gates of Karmada's dev artefacts, on the controllers and on both webhooks: the
# ClusterTaintPolicy controller runs only with them, and RB-2 (FederatedQuotaEnforcement) is on.
GATES = "AllAlpha=true,AllBeta=true"
NS = "fed"                           # every namespaced object of a run: NS + "-" + tag
# What docs/compatibility.md says we do otherwise on purpose: (step, path) -> why.
ALLOWED = {
    ("override", "/policy/spec/overriders"):
        "OM-2: upstream's mutator adds the meaningless `overriders: {}` to every OverridePolicy "
        "and the API server keeps it; ours does not (compatibility.md, OverridePolicy, Mutation)",
}
DEPLOY = "deployments.apps"
DISTRIBUTOR = "karmada.io/binding-dependencies-distributor"
DEPENDENCIES = "resourcebinding.karmada.io/dependencies"
PROTECTED = "resourcetemplate.karmada.io/deletion-protected"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# A Work's name: the template's name, then a hash of its namespace, name and kind (which the
# run's tag changes).
HASHED = re.compile(r"^(.*<run>.*)-[0-9a-z]{6,10}$")
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
DROPPED_META = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
                "selfLink", "deletionGracePeriodSeconds")
DENIED_DELETE = ('Error from server (Forbidden): admission webhook "%s" denied the request: This '
                 'resource is protected, please make sure to remove the label: ' + PROTECTED)
ENTRY = {"upstream": "resourcedeletionprotection.karmada.io",
         "ours": "resourcedeletionprotection.karmada-policy-webhook.karmada.io"}


# --- objects -----------------------------------------------------------------------------------------

def deployment(name, ns, replicas=2, image="nginx:1.27", labels=None):
    meta = {"name": name, "namespace": ns}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "main", "image": image,
                                                           "resources": {"requests": {
                                                               "cpu": "100m"}}}]}}}}


def policy(name, ns, selectors, placement, **spec):
    body = {"resourceSelectors": selectors, "placement": placement}
    body.update(spec)
    return {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
            "metadata": {"name": name, "namespace": ns}, "spec": body}


def select(kind, name, api="apps/v1"):
    return {"apiVersion": api, "kind": kind, "name": name}


BOTH = {"clusterAffinity": {"clusterNames": ["member1", "member2"]}}


# --- normalisation ---------------------------------------------------------------------------------

def normalise(value, tag):
    """A copy with what differs from run to run replaced: IDs, times, the run's tag."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("metadata",) and isinstance(v, dict):
                v = {mk: mv for mk, mv in v.items() if mk not in DROPPED_META}
            if k in ("observedGeneration", "resourceVersion", "generation"):
                continue
            out[normalise(k, tag)] = normalise(v, tag)
        return out
    if isinstance(value, list):
        return [normalise(v, tag) for v in value]
    if isinstance(value, str):
        if TIME.match(value):
            return "<time>"
        value = HASHED.sub(r"\1-<hash>", value.replace(tag, "<run>"))
        return UUID.sub("<uuid>", value)
    return value


def manifest_in_work(work):
    return [m for m in work.get("spec", {}).get("workload", {}).get("manifests", [])]


class Run:
    """One run of the scenario: its tag (every name carries it), and what it observed."""

    def __init__(self, fed, who, tag, entry=None):
        self.fed, self.who, self.tag = fed, who, tag
        self.entry = entry or ENTRY[who]     # the deletion-protection entry's name
        self.ns = "%s-%s" % (NS, tag)
        self.seen = {}           # step -> normalised observation
        self.k = fed.karmada

    def n(self, name):
        return "%s-%s" % (name, self.tag)

    def apply(self, *objs):
        self.k.kubectl("apply", "-f", "-", input={"apiVersion": "v1", "kind": "List",
                                                  "items": list(objs)})

    def record(self, step, what):
        self.seen[step] = normalise(what, self.tag)

    def stored(self, resource, name, ns=None):
        obj = self.fed.karmada_object(resource, ns, name)
        check(obj is not None, "%s: %s %s/%s is not stored", self.who, resource, ns or "", name)
        obj.pop("status", None)
        return obj

    def binding(self, name, kind="deployment", cluster=False, cond=None):
        """The binding once scheduled (and cond(binding) holds): its metadata and spec."""
        rb = self.fed.wait_karmada_object(
            "clusterresourcebindings" if cluster else "resourcebindings",
            None if cluster else self.ns, "%s-%s" % (name, kind),
            cond=lambda o: o.get("spec", {}).get("clusters") and (cond is None or cond(o)))
        return {"metadata": {k: rb["metadata"].get(k) for k in ("labels", "annotations",
                                                                "finalizers")},
                "spec": rb["spec"]}

    def member(self, m, resource, name, ns="<ns>", cond=None):
        ns = self.ns if ns == "<ns>" else ns
        obj = self.fed.wait_member_object(m, resource, ns, name, cond=cond)
        obj.pop("status", None)
        return obj


# --- the scenario's steps ------------------------------------------------------------------------------

def step_duplicated(r: Run):
    r.k.kubectl("create", "namespace", r.ns)
    r.apply(deployment(r.n("web"), r.ns),
            policy(r.n("web"), r.ns, [select("Deployment", r.n("web"))], BOTH))
    out = {"policy": r.stored("propagationpolicies", r.n("web"), r.ns),
           "binding": r.binding(r.n("web"))}
    for m in ("member1", "member2"):
        out[m] = r.member(m, DEPLOY, r.n("web"))
    r.record("duplicated", out)


def step_override(r: Run):
    r.apply({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "OverridePolicy",
             "metadata": {"name": r.n("web"), "namespace": r.ns},
             "spec": {"resourceSelectors": [select("Deployment", r.n("web"))],
                      "overrideRules": [{"targetCluster": {"clusterNames": ["member1"]},
                                         "overriders": {"imageOverrider": [
                                             {"component": "Tag", "operator": "replace",
                                              "value": "1.28"}]}}]}})
    image = lambda o: o["spec"]["template"]["spec"]["containers"][0]["image"]  # noqa: E731
    out = {"policy": r.stored("overridepolicies", r.n("web"), r.ns),
           "member1": r.member("member1", DEPLOY, r.n("web"),
                               cond=lambda o: image(o) == "nginx:1.28"),
           "member2": r.member("member2", DEPLOY, r.n("web"))}
    check(image(out["member2"]) == "nginx:1.27", "%s: member2's image changed: %s", r.who,
          image(out["member2"]))
    r.record("override", out)


def replicas_are(n):
    return lambda o: o["spec"].get("replicas") == n


def step_divided(r: Run):
    weights = {"replicaScheduling": {
        "replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
        "weightPreference": {"staticWeightList": [
            {"targetCluster": {"clusterNames": ["member1"]}, "weight": 1},
            {"targetCluster": {"clusterNames": ["member2"]}, "weight": 3}]}}}
    r.apply(deployment(r.n("divided"), r.ns, replicas=4),
            policy(r.n("divided"), r.ns, [select("Deployment", r.n("divided"))],
                   dict(BOTH, **weights)))
    out = {"policy": r.stored("propagationpolicies", r.n("divided"), r.ns),
           "member1": r.member("member1", DEPLOY, r.n("divided"), cond=replicas_are(1)),
           "member2": r.member("member2", DEPLOY, r.n("divided"), cond=replicas_are(3))}
    r.k.kubectl("scale", "deployment", r.n("divided"), "-n", r.ns, "--replicas", "8")
    out["scaled-member1"] = r.member("member1", DEPLOY, r.n("divided"), cond=replicas_are(2))
    out["scaled-member2"] = r.member("member2", DEPLOY, r.n("divided"), cond=replicas_are(6))
    out["binding"] = r.binding(r.n("divided"))
    r.record("divided", out)


def step_rebalancer(r: Run):
    r.apply({"apiVersion": "apps.karmada.io/v1alpha1", "kind": "WorkloadRebalancer",
             "metadata": {"name": r.n("rebalance")},
             "spec": {"workloads": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                     "namespace": r.ns, "name": r.n("divided")}]}})
    done = r.fed.wait_karmada_object(
        "workloadrebalancers", None, r.n("rebalance"),
        cond=lambda o: o.get("status", {}).get("finishTime") is not None)
    results = [w.get("result") for w in done["status"].get("observedWorkloads", [])]
    check(results == ["Successful"], "%s: WorkloadRebalancer ended with %s", r.who,
          done["status"])
    r.record("rebalancer", {"spec": done["spec"], "results": results})


def step_hpa(r: Run):
    r.apply({"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "FederatedHPA",
             "metadata": {"name": r.n("web"), "namespace": r.ns},
             "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                         "name": r.n("web")},
                      "minReplicas": 1, "maxReplicas": 4,
                      "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                          "type": "Utilization", "averageUtilization": 80}}}]}},
            {"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "CronFederatedHPA",
             "metadata": {"name": r.n("cron"), "namespace": r.ns},
             "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                         "name": r.n("web")},
                      "rules": [{"name": "nightly", "schedule": "0 1 * * *",
                                 "targetReplicas": 3, "timeZone": "UTC"}]}})
    fhpa = r.fed.wait_karmada_object("federatedhpas", r.ns, r.n("web"),
                                     cond=lambda o: o.get("status", {}).get("conditions"))
    cron = r.fed.wait_karmada_object("cronfederatedhpas", r.ns, r.n("cron"),
                                     cond=lambda o: "status" in o)
    marked = r.fed.karmada_object(DEPLOY, r.ns, r.n("web"))
    fhpa_status = sorted((c["type"], c["status"], c.get("reason")) for c in
                         fhpa["status"]["conditions"])
    r.record("hpa", {"fhpa": dict(fhpa, status=None), "fhpa-conditions": fhpa_status,
                     "cron": dict(cron, status=None),
                     "template-labels": marked["metadata"].get("labels")})


def step_cluster_scoped(r: Run):
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": r.n("reader")},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
    r.apply(role,
            {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "ClusterPropagationPolicy",
             "metadata": {"name": r.n("reader")},
             "spec": {"resourceSelectors": [select("ClusterRole", r.n("reader"),
                                                   "rbac.authorization.k8s.io/v1")],
                      "placement": BOTH}},
            {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "ClusterOverridePolicy",
             "metadata": {"name": r.n("reader")},
             "spec": {"resourceSelectors": [select("ClusterRole", r.n("reader"),
                                                   "rbac.authorization.k8s.io/v1")],
                      "overrideRules": [{"targetCluster": {"clusterNames": ["member2"]},
                                         "overriders": {"labelsOverrider": [
                                             {"operator": "add", "value": {"tier": "two"}}]}}]}})
    out = {"cpp": r.stored("clusterpropagationpolicies", r.n("reader")),
           "cop": r.stored("clusteroverridepolicies", r.n("reader")),
           "binding": r.binding(r.n("reader"), "clusterrole", cluster=True),
           "member1": r.member("member1", "clusterroles", r.n("reader"), ns=None),
           "member2": r.member("member2", "clusterroles", r.n("reader"), ns=None,
                               cond=lambda o: o["metadata"].get("labels", {}).get("tier")
                               == "two")}
    r.record("cluster-scoped", out)


def step_quota(r: Run):
    r.apply({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "FederatedResourceQuota",
             "metadata": {"name": r.n("quota"), "namespace": r.ns},
             "spec": {"overall": {"cpu": "4", "memory": "8Gi"},
                      "staticAssignments": [
                          {"clusterName": "member1", "hard": {"cpu": "1", "memory": "2Gi"}},
                          {"clusterName": "member2", "hard": {"cpu": "2", "memory": "4Gi"}}]}})
    out = {"frq": r.stored("federatedresourcequotas", r.n("quota"), r.ns)}
    for m in ("member1", "member2"):
        out[m] = r.member(m, "resourcequotas", r.n("quota"))
    r.record("quota", out)


def step_mcs(r: Run):
    r.apply({"apiVersion": "v1", "kind": "Service",
             "metadata": {"name": r.n("svc"), "namespace": r.ns},
             "spec": {"selector": {"app": r.n("web")},
                      "ports": [{"port": 80, "targetPort": 8080, "protocol": "TCP"}]}},
            {"apiVersion": "networking.karmada.io/v1alpha1", "kind": "MultiClusterService",
             "metadata": {"name": r.n("svc"), "namespace": r.ns},
             "spec": {"types": ["CrossCluster"], "providerClusters": [{"name": "member1"}],
                      "consumerClusters": [{"name": "member2"}]}})
    # Stored as the webhook's mutation left it (no controller here writes its status: the
    # service-export controllers need endpoints, and no pod runs).
    out = {"mcs": r.stored("multiclusterservices", r.n("svc"), r.ns),
           "service": r.stored("services", r.n("svc"), r.ns)}
    for key in ("clusterIP", "clusterIPs"):
        out["service"]["spec"].pop(key, None)
    r.record("mcs", out)


def step_deletion_protection(r: Run):
    r.apply(deployment(r.n("kept"), r.ns, labels={PROTECTED: "Always"}),
            policy(r.n("kept"), r.ns, [select("Deployment", r.n("kept"))], BOTH))
    r.member("member1", DEPLOY, r.n("kept"))
    proc = r.k.kubectl("delete", "deployment", r.n("kept"), "-n", r.ns, "--wait=false",
                       check=False)
    want = DENIED_DELETE % r.entry
    check(proc.returncode != 0 and proc.stderr.strip() == want,
          "%s: the protected DELETE: exit %d, %r (want %r)", r.who, proc.returncode,
          proc.stderr.strip(), want)
    check(r.fed.karmada_object(DEPLOY, r.ns, r.n("kept")) is not None,
          "%s: the protected Deployment is gone", r.who)
    r.k.kubectl("label", "deployment", r.n("kept"), "-n", r.ns, PROTECTED + "-")
    r.k.kubectl("delete", "deployment", r.n("kept"), "-n", r.ns, "--wait=false")
    r.k.kubectl("delete", "resourcebinding", r.n("kept") + "-deployment", "-n", r.ns,
                "--wait=false")
    for m in ("member1", "member2"):
        r.fed.wait_member_gone(m, DEPLOY, r.ns, r.n("kept"))
    r.record("deletion-protection", {"denied": proc.stderr.strip().replace(r.entry, "<entry>")})


def step_taint(r: Run):
    r.apply({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "ClusterTaintPolicy",
             "metadata": {"name": r.n("taint")},
             "spec": {"targetClusters": {"clusterNames": ["member2"]},
                      "addOnConditions": [{"conditionType": "Ready", "operator": "In",
                                           "statusValues": ["True"]}],
                      "removeOnConditions": [{"conditionType": "Ready", "operator": "In",
                                              "statusValues": ["False"]}],
                      "taints": [{"key": "kpw-fed/" + r.tag, "effect": "NoSchedule"}]}})
    key = "kpw-fed/" + r.tag
    tainted = lambda o: any(t["key"] == key for t in o["spec"].get("taints", []))  # noqa: E731
    cluster = r.fed.wait_karmada_object("clusters", None, "member2", cond=tainted)
    r.apply(deployment(r.n("tainted"), r.ns),
            policy(r.n("tainted"), r.ns, [select("Deployment", r.n("tainted"))], BOTH))
    rb = r.binding(r.n("tainted"))
    targets = sorted(c["name"] for c in rb["spec"]["clusters"])
    check(targets == ["member1"], "%s: scheduled to %s under member2's NoSchedule taint",
          r.who, targets)
    r.member("member1", DEPLOY, r.n("tainted"))
    r.k.kubectl("delete", "clustertaintpolicy", r.n("taint"))
    taints = [t for t in cluster["spec"]["taints"] if t["key"] != key]
    r.k.kubectl("patch", "cluster", "member2", "--type", "merge", "-p",
                json.dumps({"spec": {"taints": taints or None}}))
    r.record("taint", {"ctp-taints": [t for t in cluster["spec"]["taints"] if t["key"] == key],
                       "targets": targets, "binding": rb})


def step_failover(r: Run):
    failover = {"application": {"decisionConditions": {"tolerationSeconds": 120},
                                "purgeMode": "Gracefully", "gracePeriodSeconds": 600}}
    r.apply(deployment(r.n("failover"), r.ns),
            policy(r.n("failover"), r.ns, [select("Deployment", r.n("failover"))], BOTH,
                   failover=failover, propagateDeps=True))
    # The dependencies distributor (propagateDeps) adds its finalizer and annotation a moment
    # after the scheduler's result: the binding as it settles.
    rb = r.binding(r.n("failover"), cond=lambda o: DISTRIBUTOR in o["metadata"].get(
        "finalizers", []) and DEPENDENCIES in o["metadata"].get("annotations", {}))
    pp = r.stored("propagationpolicies", r.n("failover"), r.ns)
    check(rb["spec"].get("failover") == pp["spec"].get("failover"),
          "%s: the binding's failover %s is not the policy's %s", r.who,
          rb["spec"].get("failover"), pp["spec"].get("failover"))
    r.record("failover", {"policy": pp, "binding": rb})


def step_quota_enforced(r: Run):
    """RB-2 with the controllers' own writes: a scale past the quota is refused to the detector,
    the members keep the replicas admitted and overallUsed says what was charged."""
    ns = r.ns + "-q"
    r.k.kubectl("create", "namespace", ns)
    r.apply({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "FederatedResourceQuota",
             "metadata": {"name": "limit", "namespace": ns},
             "spec": {"overall": {"cpu": "500m"}}})
    r.fed.wait_karmada_object("federatedresourcequotas", ns, "limit",
                              cond=lambda o: "overall" in o.get("status", {}))
    time.sleep(1)                # the webhooks' quota caches (upstream's informer, ours)
    r.apply(deployment(r.n("capped"), ns, replicas=2),
            policy(r.n("capped"), ns, [select("Deployment", r.n("capped"))],
                   {"clusterAffinity": {"clusterNames": ["member1"]}}))
    r.fed.wait_member_object("member1", DEPLOY, ns, r.n("capped"), cond=replicas_are(2))
    used = lambda o: o.get("status", {}).get("overallUsed")  # noqa: E731
    r.fed.wait_karmada_object("federatedresourcequotas", ns, "limit",
                              cond=lambda o: (used(o) or {}).get("cpu") == "200m")
    mark = r.fed.mark_logs()
    r.k.kubectl("scale", "deployment", r.n("capped"), "-n", ns, "--replicas", "6")
    denied = _wait_log(r.fed, mark, re.compile(r"QuotaExceeded|exceeded quota|exceed"))
    time.sleep(2)
    member = r.fed.member_object("member1", DEPLOY, ns, r.n("capped"))
    frq = r.fed.karmada_object("federatedresourcequotas", ns, "limit")
    rb = r.fed.karmada_object("resourcebindings", ns, r.n("capped") + "-deployment")
    r.record("quota-enforced", {"member-replicas": member["spec"]["replicas"],
                                "overallUsed": used(frq), "binding-replicas":
                                rb["spec"].get("replicas"), "denied": bool(denied)})
    check(member["spec"]["replicas"] == 2 and denied,
          "%s: after a scale past the quota: member1 has %s replicas, denial logged: %s",
          r.who, member["spec"]["replicas"], denied[:2])
    # Back within the quota (the detector stops retrying), then everything of the step deleted.
    r.k.kubectl("scale", "deployment", r.n("capped"), "-n", ns, "--replicas", "2")
    r.k.kubectl("delete", "deployment", r.n("capped"), "-n", ns, "--wait=false")
    r.k.kubectl("delete", "propagationpolicy", r.n("capped"), "-n", ns, "--wait=false")
    r.k.kubectl("delete", "resourcebinding", r.n("capped") + "-deployment", "-n", ns,
                "--wait=false")
    r.fed.wait_member_gone("member1", DEPLOY, ns, r.n("capped"))
    r.k.kubectl("delete", "federatedresourcequota", "limit", "-n", ns, "--wait=false")


def _wait_log(fed, mark, pattern, timeout=30.0):
    """The controller log lines after `mark` that match `pattern`, once there is one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [l for text in fed.log_since(mark).values() for l in text.splitlines()
                 if pattern.search(l)]
        if lines:
            return lines
        time.sleep(0.5)
    return []


def step_delete_everything(r: Run):
    """Templates and policies deleted; each deleted template's binding deleted by the test."""
    k = r.k
    templates = [(DEPLOY, n) for n in ("web", "divided", "tainted", "failover")]
    for resource, name in templates:
        k.kubectl("delete", resource, r.n(name), "-n", r.ns, "--wait=false")
    k.kubectl("delete", "service", r.n("svc"), "-n", r.ns, "--wait=false")
    k.kubectl("delete", "clusterrole", r.n("reader"), "--wait=false")
    for resource in ("propagationpolicies", "overridepolicies", "federatedhpas",
                     "cronfederatedhpas", "federatedresourcequotas", "multiclusterservices"):
        k.kubectl("delete", resource, "--all", "-n", r.ns, "--wait=false")
    for resource, name in (("clusterpropagationpolicies", "reader"),
                           ("clusteroverridepolicies", "reader"),
                           ("workloadrebalancers", "rebalance")):
        k.kubectl("delete", resource, r.n(name), "--wait=false")
    for _, name in templates:
        k.kubectl("delete", "resourcebinding", r.n(name) + "-deployment", "-n", r.ns,
                  "--ignore-not-found", "--wait=false")
    k.kubectl("delete", "resourcebinding", r.n("svc") + "-service", "-n", r.ns,
              "--ignore-not-found", "--wait=false")
    k.kubectl("delete", "clusterresourcebinding", r.n("reader") + "-clusterrole",
              "--ignore-not-found", "--wait=false")
    for m in ("member1", "member2"):
        for _, name in templates:
            r.fed.wait_member_gone(m, DEPLOY, r.ns, r.n(name))
        r.fed.wait_member_gone(m, "clusterroles", None, r.n("reader"))
    left = k.kubectl_json("get", "works", "-A")["items"]
    ours = [w["metadata"]["name"] for w in left if r.tag in json.dumps(w)]
    r.record("deleted", {"works-left": ours})


FIRST_HALF = [step_duplicated, step_override, step_divided, step_rebalancer, step_hpa,
              step_cluster_scoped]
SECOND_HALF = [step_quota, step_quota_enforced, step_mcs, step_deletion_protection, step_taint,
               step_failover, step_delete_everything]


DENIAL = re.compile(r'admission webhook \\?"([^"\\]+)\\?" denied the request: ([^"\\\n]*)')


def run_scenario(r: Run, steps):
    """The steps in order; then what the controllers were refused meanwhile, as an observation
    of its own ("denials": each distinct message, the entry and the run's names normalised)."""
    t0 = time.monotonic()
    mark = r.fed.mark_logs()
    for step in steps:
        t = time.monotonic()
        step(r)
        print("  %s %-24s %.1f s" % (r.who, step.__name__[5:], time.monotonic() - t), flush=True)
    denials = set()
    for text in r.fed.log_since(mark).values():
        for m in DENIAL.finditer(text):
            if r.tag in m.group(0):          # not a late retry of an earlier run's object
                denials.add(m.group(2).strip())
    r.record("denials", sorted(denials))
    return time.monotonic() - t0


def differences(a: dict, b: dict, path="") -> list:
    if type(a) is not type(b):
        return ["%s: %s / %s" % (path or "/", json.dumps(a)[:300], json.dumps(b)[:300])]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s/%s: %s / %s" % (path, k, json.dumps(a.get(k))[:300],
                                               json.dumps(b.get(k))[:300]))
            else:
                out += differences(a[k], b[k], "%s/%s" % (path, k))
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return ["%s: %s / %s" % (path, json.dumps(a)[:300], json.dumps(b)[:300])]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, "%s[%d]" % (path, i))
        return out
    return [] if a == b else ["%s: %s / %s" % (path, json.dumps(a)[:300], json.dumps(b)[:300])]


# --- the tests ---------------------------------------------------------------------------------------

class Env:
    pass


def run_whole_scenario(fed, env, who, tag):
    """The whole scenario under the webhook registered now; no controller may log a failed call."""
    mark = fed.mark_logs()
    env.runs[who] = Run(fed, who, tag)
    took = run_scenario(env.runs[who], FIRST_HALF + SECOND_HALF)
    failures = fed.webhook_failures_since(mark)
    check(not failures, "controller log lines naming a failed webhook call: %s",
          json.dumps(failures)[:3000])
    print("%s run: %.1f s" % ({"upstream": "upstream's", "ours": "our"}[who], took), flush=True)


def test_upstream_runs_the_scenario(fed, env):
    env.upstream = federation.UpstreamWebhook(fed, env.args.karmada_bins["karmada-webhook"],
                                              env.certs, gates=GATES).start()
    fed.register(env.upstream)
    run_whole_scenario(fed, env, "upstream", "kpwup")


def test_ours_runs_the_scenario(fed, env):
    env.ours = federation.OurWebhook(fed, env.args.binary, env.certs, "--kubeconfig",
                                     fed.karmada.kubeconfig, "--feature-gates=" + GATES).start()
    fed.register(env.ours)
    env.upstream.stop()
    run_whole_scenario(fed, env, "ours", "kpwours")


def test_the_outcomes_are_the_same(fed, env):
    up, ours = env.runs.get("upstream"), env.runs.get("ours")
    check(up is not None and ours is not None, "a run did not finish")
    problems, allowed = [], []
    for step in up.seen:
        for d in differences(up.seen[step], ours.seen.get(step)):
            path = d.split(":", 1)[0]
            if (step, path) in ALLOWED:
                allowed.append("%s %s (%s)" % (step, d, ALLOWED[(step, path)]))
            else:
                problems.append("%s %s" % (step, d))
    for line in allowed:
        print("  allowed difference: " + line, flush=True)
    check(not problems, "%d differences (upstream / ours):\n  %s", len(problems),
          "\n  ".join(problems[:40]))
    print("  %d steps compared: no difference but the %d docs/compatibility.md lists"
          % (len(up.seen), len(allowed)), flush=True)


def calls_failed(fed) -> float:
    """What karmada-apiserver counts as webhook calls that failed (no answer, refused, timed out)."""
    return harness.metric_sum(fed.karmada.metrics(), "apiserver_admission_webhook_rejection_count",
                              error_type="calling_webhook_error")


# Every kind of object the first half stores, for the label UPDATE after the switch.
FIRST_HALF_OBJECTS = [("propagationpolicies", "web"), ("propagationpolicies", "divided"),
                      ("overridepolicies", "web"), ("federatedhpas", "web"),
                      ("cronfederatedhpas", "cron"), (DEPLOY, "web"), (DEPLOY, "divided"),
                      ("clusterpropagationpolicies", "reader"),
                      ("clusteroverridepolicies", "reader"), ("workloadrebalancers", "rebalance")]
CLUSTER_SCOPED = {"clusterpropagationpolicies", "clusteroverridepolicies", "workloadrebalancers"}


def test_switch_day_in_a_federation(fed, env):
    """Upstream's webhook and configurations; then its process replaced by ours with its command
    line, certificate and address while the controllers write; the second half under ours."""
    binary = env.args.karmada_bins["karmada-webhook"]
    up = federation.UpstreamWebhook(fed, binary, env.certs, gates=GATES).start()
    fed.register(up)                      # upstream's own configurations replace our overlay
    if getattr(env, "ours", None) is not None:
        env.ours.stop()
        env.ours = None
    r = Run(fed, "switch", "kpwswitch", entry=ENTRY["upstream"])
    run_scenario(r, FIRST_HALF)
    before, mark = calls_failed(fed), fed.mark_logs()

    # The image changes: the same command line, certificate and address, another binary.
    argv = up.argv()
    t0 = time.monotonic()
    up.stop()
    r.k.kubectl("scale", "deployment", r.n("divided"), "-n", r.ns, "--replicas", "12")
    time.sleep(1.0)                       # the controllers write into the gap
    ours = federation.Component("switched-webhook", fed.dir)
    ours.start([env.args.binary] + argv, lambda: kube.webhook_ready(up.port, up.ca))
    env.switched = ours
    gap = time.monotonic() - t0
    for m, n in (("member1", 3), ("member2", 9)):
        r.member(m, DEPLOY, r.n("divided"), cond=replicas_are(n))
    failed = calls_failed(fed) - before
    logged = fed.webhook_failures_since(mark)
    print("  switch: %.1f s without a webhook; %d calls failed in the gap (karmada-apiserver), "
          "%d controller log lines; the scale reached both members after (retried)"
          % (gap, failed, sum(len(v) for v in logged.values())), flush=True)

    # Every object stored under upstream's stays updatable under ours.
    problems = []
    for resource, name in FIRST_HALF_OBJECTS:
        where = [] if resource in CLUSTER_SCOPED else ["-n", r.ns]
        proc = r.k.kubectl("label", resource, r.n(name), "kpw-switched=yes", *where, check=False)
        if proc.returncode != 0 or "denied" in proc.stderr or "failed calling" in proc.stderr:
            problems.append("%s %s: %s" % (resource, r.n(name), proc.stderr.strip()[:400]))
    check(not problems, "objects stored under upstream's webhook are frozen under ours:\n  %s",
          "\n  ".join(problems))
    after = fed.mark_logs()
    run_scenario(r, SECOND_HALF)
    failures = fed.webhook_failures_since(after)
    check(not failures, "controller log lines naming a failed webhook call after the switch: %s",
          json.dumps(failures)[:3000])
    check(ours.alive(), "our webhook exited: %s", kube.tail(ours.log))


def run(args, fed):
    env = Env()
    env.args, env.runs = args, {}
    env.certs = harness.make_certs(args.source)
    try:
        return harness.run_tests([test_upstream_runs_the_scenario, test_ours_runs_the_scenario,
                                  test_the_outcomes_are_the_same, test_switch_day_in_a_federation],
                                 fed, env)
    finally:
        for hook in (getattr(env, "ours", None), getattr(env, "upstream", None),
                     getattr(env, "switched", None)):
            if hook is not None:
                try:
                    hook.stop()
                except AssertionError:
                    pass


if __name__ == "__main__":
    federation.main(run, gates=GATES)
