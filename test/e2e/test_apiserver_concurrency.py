#!/usr/bin/env python3
"""8 clients creating 2 000 objects at once through a real kube-apiserver (test/e2e/kube.py).

Eight `kubectl create -f FILE` run in parallel, each FILE a List of 250 objects of every kind we
serve (the kind table of `karmada-policy-webhook kinds`, in turn), one in five of each kind invalid
for one of our rules (each breaks exactly one rule, once; the CRD schema admits it; a kind without
a validating path, ClusterResourceBinding, has valid objects only; ResourceBinding's break RB-3, so
the webhook runs with --feature-gates=MultiplePodTemplatesScheduling=true). Then:

- 0 failed calls: every valid object is created (kubectl prints it) and readable as our mutating
  path made it; every invalid one is denied by our entry for its kind (kubectl prints
  `admission webhook "<kind>.karmada-policy-webhook.karmada.io" denied the request: <field>: ...`)
  and not stored; nothing else is printed (no "failed calling webhook", no timeout) but the
  warning of every ResourceInterpreterCustomization review that RIC-1 was not checked;
- our /metrics agree with what was sent: the `controller_runtime_webhook_requests_total{code="200"}`
  delta of each path equals the objects of its kind (every object goes through the mutating path,
  then the validating one), no other code is counted, the verdicts
  (`karmada_policy_webhook_admission_total`) split as valid/invalid, and the denials counted by
  rule (`karmada_policy_webhook_rule_violations_total{action="deny"}`) equal the invalid objects
  sent for that rule, and nothing else;
- the API server's own counts (`apiserver_admission_webhook_request_total` per entry and type)
  agree, and it counts no call to us that failed.

Printed: the time and throughput (objects/s).

    test_apiserver_concurrency.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

CLIENTS = 8
PER_CLIENT = 250
INVALID_EVERY = 5            # a kind's object k of a file is invalid when k % 5 == 4
ENTRY_SUFFIX = ".karmada-policy-webhook.karmada.io"
TTL = 600                    # --default-rebalancer-ttl-seconds: /mutate-workloadrebalancer shows
KUBECTL_TIMEOUT = 240.0
# The warning every ResourceInterpreterCustomization review carries while RIC-1 is not judged.
EXPECTED_WARNING = "Warning: RIC-1 not checked: "
DENIAL = re.compile(r'^Error from server \(Forbidden\): error when creating "[^"]*": '
                    r'admission webhook "([^"]+)" denied the request: (.*)$')
CREATED = re.compile(r"^([a-z]+)\.([a-z.]+)/(\S+) created$")


def deployment(namespace=None):
    sel = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    if namespace:
        sel["namespace"] = namespace
    return sel


# kind -> (valid spec, invalid spec, {JSON pointer: value} the stored valid object holds (our
# mutating path's work; "*" any value), the field the denial names, the rule it breaks); a kind
# without a validating path has no invalid spec (None): every object of it is valid.
# `u` is a token unique to the object, put into the invalid value so each denial is told apart.
def specs(kind, u):
    if kind == "PropagationPolicy" or kind == "ClusterPropagationPolicy":
        cluster = kind.startswith("Cluster")
        label = ("clusterpropagationpolicy" if cluster else "propagationpolicy") + \
            ".karmada.io~1permanent-id"
        sel = {"apiVersion": "v1", "kind": "Namespace", "name": "team-" + u} if cluster \
            else deployment()
        return ({"resourceSelectors": [sel], "placement": {
                    "clusterAffinity": {"clusterNames": ["member1"]}}},
                {"resourceSelectors": [sel], "placement": {"clusterAffinities": [
                    {"affinityName": u}, {"affinityName": u}]}},
                {"/metadata/labels/" + label: "*", "/spec/preemption": "Never"},
                "spec.placement.clusterAffinities[1].affinityName", "V-P5")
    if kind == "WorkloadRebalancer":
        return ({"workloads": [dict(deployment(), namespace="default")]},
                {"workloads": [dict(deployment(), namespace="Bad_" + u.replace("-", "_"))]},
                {"/spec/ttlSecondsAfterFinished": TTL},
                "spec.workloads[0].namespace", "W-3")
    if kind == "ScheduleTrigger":
        return ({"targetRefPolicy": [{"name": "pp-" + u, "namespace": "default"}]},
                {"targetRefPolicy": [{"name": "Bad_" + u.replace("-", "_")}]},
                {"/spec/retryAfterSeconds": 3, "/spec/autoCleanAfterMinutes": 60},
                "spec.targetRefPolicy[0].name", "S-3")
    if kind == "OverridePolicy":
        return ({"resourceSelectors": [deployment()], "overrideRules": [{"overriders": {
                    "labelsOverrider": [{"operator": "add", "value": {"team": u}}]}}]},
                {"resourceSelectors": [deployment()], "overrideRules": [{"overriders": {
                    "labelsOverrider": [{"operator": "add", "value": {"Bad_%s!" % u: "a"}}]}}]},
                {"/spec/resourceSelectors/0/namespace": "*"},
                "spec.overrideRules[0].overriders.labelsOverrider[0].value[Bad_%s!]" % u, "O-7")
    if kind == "ClusterOverridePolicy":
        return ({"resourceSelectors": [deployment("default")], "overrideRules": [{"overriders": {
                    "annotationsOverrider": [{"operator": "add", "value": {"a": u}}]}}]},
                {"resourceSelectors": [deployment("default")], "overrideRules": [{
                    "overriders": {"plaintext": [{"operator": "replace", "path": "/spec/replicas",
                                                  "value": 1}]},
                    "targetCluster": {"fieldSelector": {"matchExpressions": [
                        {"key": "rack-" + u, "operator": "In", "values": ["r1"]}]}}}]},
                {},
                "spec.overrideRules[0].targetCluster.fieldSelector.matchExpressions[0].key", "O-19")
    if kind == "FederatedResourceQuota":
        return ({"overall": {"cpu": "10", "memory": "1Gi"}, "staticAssignments": [
                    {"clusterName": "member1", "hard": {"cpu": "4", "memory": "512Mi"}}]},
                {"overall": {"cpu": "2"}, "staticAssignments": [
                    {"clusterName": "m-" + u, "hard": {"cpu": "4"}}]},
                {},
                "spec.overall[cpu]", "Q-9")
    if kind == "ClusterTaintPolicy":
        return ({"taints": [{"key": "maintenance-" + u, "effect": "NoSchedule"}]},
                {"taints": [{"key": "maintenance-" + u, "effect": "NoExecute"}]},
                {},
                "spec.taints[0]", "T-1")
    if kind == "ResourceBinding":  # RB-3: the server runs with MultiplePodTemplatesScheduling
        return ({"resource": dict(deployment("default")), "components": [
                    {"name": "main-" + u, "replicas": 1}]},
                {"resource": dict(deployment("default")), "components": [
                    {"name": u, "replicas": 1}, {"name": u, "replicas": 1}]},
                {"/metadata/labels/resourcebinding.karmada.io~1permanent-id": "*"},
                "spec.components[1].name", "RB-3")
    if kind == "ClusterResourceBinding":
        return ({"resource": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                              "name": "reader-" + u}},
                None,
                {"/metadata/labels/clusterresourcebinding.karmada.io~1permanent-id": "*"},
                None, None)
    if kind == "Work":  # what the binding controller writes; /mutate-work denies nothing it reads
        return ({"workload": {"manifests": [
                    {"apiVersion": "apps/v1", "kind": "Deployment",
                     "metadata": {"name": "web-" + u, "namespace": "default", "uid": u,
                                  "labels": {"app": u}},
                     "spec": {"replicas": 1}, "status": {"replicas": 1}}]}},
                None,
                {"/metadata/labels/work.karmada.io~1permanent-id": "*",
                 "/spec/workload/manifests/0/metadata/labels/work.karmada.io~1permanent-id": "*"},
                None, None)
    if kind == "MultiClusterIngress":  # MCI-7; no mutating path
        backend = {"service": {"name": "web", "port": {"number": 80}}}
        return ({"rules": [{"host": u + ".example.com", "http": {"paths": [
                    {"path": "/" + u, "pathType": "Prefix", "backend": backend}]}}]},
                {"rules": [{"host": u + ".example.com", "http": {"paths": [
                    {"path": u, "pathType": "Exact", "backend": backend}]}}]},
                {"/spec/rules/0/host": u + ".example.com"},
                "spec.rules[0].http.paths[0].path", "MCI-7")
    if kind == "MultiClusterService":  # MCS-6; the mutator adds spec.range {} as upstream's does
        return ({"types": ["CrossCluster"], "ports": [{"name": "http", "port": 80}],
                 "providerClusters": [{"name": "m-" + u}]},
                {"types": ["CrossCluster"], "providerClusters": [{"name": "M-" + u}]},
                {"/metadata/labels/multiclusterservice.karmada.io~1permanent-id": "*",
                 "/spec/range": {}},
                "spec.range.providerClusters[0]", "MCS-6")
    if kind == "ResourceInterpreterWebhookConfiguration":  # RIWC-9; its webhooks, not a spec
        def hooks(url):
            return [{"name": "w.example.com", "clientConfig": {"url": url},
                     "interpreterContextVersions": ["v1alpha1"]}]
        return (hooks("https://interpreter.example.com/" + u),
                hooks("https://interpreter.example.com/r?x=" + u),
                {"/webhooks/0/clientConfig/url": "https://interpreter.example.com/" + u},
                "webhooks[0].clientConfig.url", "RIWC-9")
    if kind == "FederatedHPA":  # FH-5; the mutator adds minReplicas and the CPU metric
        return ({"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                    "name": "web-" + u}, "maxReplicas": 5},
                {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                    "name": "web/" + u}, "maxReplicas": 5},
                {"/spec/minReplicas": 1, "/spec/metrics/0/resource/name": "cpu",
                 "/spec/scaleTargetRef/name": "web-" + u},
                "spec.scaleTargetRef.name", "FH-5")
    if kind == "CronFederatedHPA":  # CFH-6: an unknown time zone, which echoes u
        def cron(zone):
            return {"scaleTargetRef": {"apiVersion": "autoscaling.karmada.io/v1alpha1",
                                       "kind": "FederatedHPA", "name": "web-" + u},
                    "rules": [{"name": "up-" + u, "schedule": "0 8 * * 1-5", "timeZone": zone,
                               "targetMinReplicas": 2, "targetMaxReplicas": 5}]}
        return (cron("Europe/Berlin"), cron("Zone/" + u),
                {"/spec/rules/0/name": "up-" + u, "/spec/rules/0/timeZone": "Europe/Berlin"},
                "spec.rules[0].timeZone", "CFH-6")
    if kind == "ResourceInterpreterCustomization":  # RIC-2; no mutating path: stored as sent
        def ric(script):
            return {"target": {"apiVersion": "apps.example.io/v1", "kind": "Workload"},
                    "customizations": {"retention": {"luaScript": script}}}
        good = ("function Retain(desired, observed)\n  desired.metadata.annotations['by'] = '%s'"
                "\n  return desired\nend" % u)
        # Lua's message names the stray string, so the denial echoes u.
        return (ric(good), ric("local x = 1 '%s'" % u),
                {"/spec/customizations/retention/luaScript": good},
                "spec.customizations.retention.luaScript", "RIC-2")
    raise AssertionError("no objects for kind %s: add them to specs()" % kind)


class Sent:
    """One object of a client's file."""

    def __init__(self, row, client, i, k):
        self.row, self.client = row, client
        self.name = "c%d-%s-%d" % (client, row.resource[:-1][:12], i)
        u = "c%d-%d" % (client, i)
        valid, invalid, self.expect, self.field, self.rule = specs(row.kind, u)
        # Counted per kind (k: the object's rank among its kind's in the file), so that every
        # kind gets invalid objects whatever the number of kinds.
        self.valid = invalid is None or k % INVALID_EVERY != INVALID_EVERY - 1
        # The denial echoes the invalid value, which holds u (as Bad_c1_2 where "-" is not
        # allowed); a ClusterTaintPolicy's and a FederatedResourceQuota's name no value of u.
        self.echo = {"ClusterTaintPolicy": None, "FederatedResourceQuota": None,
                     "WorkloadRebalancer": u.replace("-", "_"),
                     "ScheduleTrigger": u.replace("-", "_")}.get(row.kind, u)
        meta = {"name": self.name}
        if row.scope == "Namespaced":
            meta["namespace"] = namespace(client)
        self.namespace = meta.get("namespace")
        body = "webhooks" if row.kind == "ResourceInterpreterWebhookConfiguration" else "spec"
        self.manifest = {"apiVersion": "%s/%s" % (row.group, row.version), "kind": row.kind,
                         "metadata": meta, body: valid if self.valid else invalid}

    @property
    def entry(self):
        return self.row.kind.lower() + ENTRY_SUFFIX

    @property
    def key(self):
        return (self.row.kind, self.namespace, self.name)


def namespace(client):
    return "load-%d" % client


def pointer_get(doc, pointer):
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def test_eight_clients_two_thousand_objects(api, webhook, rows):
    files, sent = [], []
    folder = harness.temp_dir("lists")
    for c in range(CLIENTS):
        mine = [Sent(rows[i % len(rows)], c, i, i // len(rows)) for i in range(PER_CLIENT)]
        sent += mine
        path = os.path.join(folder, "client-%d.json" % c)
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "items": [s.manifest for s in mine]}, f)
        files.append(path)
        api.kubectl("create", "namespace", namespace(c))
    check(len({s.key for s in sent}) == len(sent), "object names are not unique")
    ours_before = harness.scrape_metrics(webhook.metrics_port)
    theirs_before = api.metrics()

    t0 = time.monotonic()
    procs = [subprocess.Popen(api.kubectl_command("create", "-f", path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for path in files]
    outputs = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=max(1.0, KUBECTL_TIMEOUT - (time.monotonic() - t0)))
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise AssertionError("the kubectl clients did not finish within %.0f s"
                                 % KUBECTL_TIMEOUT)
        outputs.append((proc.returncode, out, err))
    took = time.monotonic() - t0

    ours_after = harness.scrape_metrics(webhook.metrics_port)
    theirs_after = api.metrics()
    valid = [s for s in sent if s.valid]
    invalid = [s for s in sent if not s.valid]
    print("  %d clients created %d objects (%d valid, %d invalid, %d kinds) in %.2f s: %.0f "
          "objects/s" % (CLIENTS, len(sent), len(valid), len(invalid), len(rows), took,
                         len(sent) / took), flush=True)

    # What kubectl printed: a "created" line per valid object, a denial by our entry per invalid
    # one, nothing else.
    problems = []
    created, denials = set(), []
    kind_of = {(r.kind.lower(), r.group): r.kind for r in rows}   # kubectl prints kind.group/name
    for c, (code, out, err) in enumerate(outputs):
        if code != 1:
            problems.append("kubectl %d exited %d (1 expected: its file holds invalid objects)"
                            % (c, code))
        for line in out.splitlines():
            m = CREATED.match(line)
            kind = m and kind_of.get((m.group(1), m.group(2)))
            if not kind:
                problems.append("kubectl %d printed %r" % (c, line[:300]))
                continue
            created.add((c, kind, m.group(3)))
        for line in err.splitlines():
            if line.startswith(EXPECTED_WARNING):  # every RIC review carries it (RIC-1)
                continue
            m = DENIAL.match(line)
            if not m:
                problems.append("kubectl %d printed %r" % (c, line[:400]))
                continue
            denials.append((c, m.group(1), m.group(2)))
    expected_created = {(s.client, s.row.kind, s.name) for s in valid}
    missing = sorted(expected_created - created)
    if missing:
        problems.append("%d valid objects not created, e.g. %s" % (len(missing), missing[:5]))
    extra = sorted(created - expected_created)
    if extra:
        problems.append("%d invalid objects created, e.g. %s" % (len(extra), extra[:5]))
    # Each denial names the field of its object's rule, with the object's own token in it where the
    # kind echoes one; every invalid object has exactly one.
    unmatched = list(denials)
    for s in invalid:
        found = next((d for d in unmatched if d[0] == s.client and d[1] == s.entry
                      and (s.field + ":") in d[2] and (s.echo is None or s.echo in d[2])), None)
        if found is None:
            problems.append("no denial by %s naming %s for %s" % (s.entry, s.field, s.name))
        else:
            unmatched.remove(found)
    if unmatched:
        problems.append("%d denials of no invalid object: %s" % (len(unmatched), unmatched[:3]))
    check(not problems, "%d problems:\n  %s", len(problems), "\n  ".join(problems[:20]))

    # Readable, as our mutating path made them; no invalid one stored.
    stored = {}
    for row in rows:
        for obj in api.kubectl_json("get", "%s.%s" % (row.resource, row.group), "-A")["items"]:
            meta = obj["metadata"]
            stored[(row.kind, meta.get("namespace"), meta["name"])] = obj
    for s in sent:
        obj = stored.get(s.key)
        if not s.valid:
            if obj is not None:
                problems.append("invalid %s %s is stored" % (s.row.kind, s.name))
            continue
        if obj is None:
            problems.append("valid %s %s is not readable" % (s.row.kind, s.name))
            continue
        for pointer, want in s.expect.items():
            try:
                got = pointer_get(obj, pointer)
            except (KeyError, IndexError, ValueError):
                got = "<absent>"
            if got == "<absent>" or (want != "*" and got != want):
                problems.append("%s %s: %s = %r, want %r" % (s.row.kind, s.name, pointer, got,
                                                             want))
    check(not problems, "%d problems:\n  %s", len(problems), "\n  ".join(problems[:20]))

    # Our counts, path by path and rule by rule; the API server's, entry by entry.
    def ours(metric, /, **labels):
        return harness.metric_sum(ours_after, metric, **labels) - \
            harness.metric_sum(ours_before, metric, **labels)

    def theirs(metric, /, **labels):
        return harness.metric_sum(theirs_after, metric, **labels) - \
            harness.metric_sum(theirs_before, metric, **labels)

    lines = []
    for row in rows:
        of_kind = [s for s in sent if s.row is row]
        bad = [s for s in of_kind if not s.valid]
        entry = row.kind.lower() + ENTRY_SUFFIX
        for path, api_type in ((row.mutate_path, "admit"), (row.validate_path, "validating")):
            if not path:
                continue
            got = ours("controller_runtime_webhook_requests_total", webhook=path, code="200")
            other = ours("controller_runtime_webhook_requests_total", webhook=path) - got
            api_sent = theirs("apiserver_admission_webhook_request_total", name=entry,
                              type=api_type, operation="CREATE")
            lines.append("%-36s sent %3d, answered 200: %3d, other codes: %d, API server "
                         "counted %d" % (path, len(of_kind), got, other, api_sent))
            if got != len(of_kind) or other != 0 or api_sent != len(of_kind):
                problems.append("%s: %d objects sent, our requests_total{code=\"200\"} grew by "
                                "%d (other codes by %d), the API server counted %d calls"
                                % (path, len(of_kind), got, other, api_sent))
        if not row.validate_path:
            continue
        verdicts = {allowed: ours("karmada_policy_webhook_admission_total",
                                  webhook=row.validate_path, operation="CREATE", allowed=allowed)
                    for allowed in ("true", "false")}
        if verdicts != {"true": len(of_kind) - len(bad), "false": len(bad)}:
            problems.append("%s: verdicts counted %s, sent %d valid and %d invalid"
                            % (row.validate_path, verdicts, len(of_kind) - len(bad), len(bad)))
        denied_by_rule = {dict(labels)["rule"]: v - harness.metric_sum(
                              ours_before, name, **dict(labels))
                          for (name, labels), v in ours_after.items()
                          if name == "karmada_policy_webhook_rule_violations_total"
                          and dict(labels).get("webhook") == row.validate_path
                          and dict(labels).get("action") == "deny"}
        denied_by_rule = {r: int(v) for r, v in denied_by_rule.items() if v}
        want = {bad[0].rule: len(bad)} if bad else {}
        lines.append("%-36s denials by rule %s (sent %s)" % (row.validate_path, denied_by_rule,
                                                             want))
        if denied_by_rule != want:
            problems.append("%s: denials counted by rule %s, sent %s" % (row.validate_path,
                                                                        denied_by_rule, want))
    failed_calls = theirs("apiserver_admission_webhook_rejection_count",
                          error_type="calling_webhook_error")
    if failed_calls:
        problems.append("the API server counted %d failed calls to webhooks" % failed_calls)
    print("  " + "\n  ".join(lines), flush=True)
    check(not problems, "%d problems:\n  %s", len(problems), "\n  ".join(problems[:20]))


def run(args, api):
    rows = harness.kind_table(args.binary)
    certs = harness.make_certs(args.source)
    with harness.Server(args.binary, certs, "--default-rebalancer-ttl-seconds", str(TTL),
                        "--feature-gates", "MultiplePodTemplatesScheduling=true") as webhook:
        api.register(webhook)
        try:
            return harness.run_tests([test_eight_clients_two_thousand_objects], api, webhook, rows)
        finally:
            api.unregister()


if __name__ == "__main__":
    kube.main(run)
