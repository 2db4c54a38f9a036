#!/usr/bin/env python3
"""Every path we serve, behind a real kube-apiserver, registered with our own manifests, driven with kubectl.

The API server (etcd + kube-apiserver, test/e2e/kube.py) gets Karmada's CRDs and the project's url
overlay (manifests/, filled with the test server's CA and address, `kubectl kustomize`, `kubectl
apply -l ...apply-to=karmada-apiserver`). Then, per kind of the kind table (`karmada-policy-webhook
kinds`):

- a valid object is created with `kubectl create` and read back with `kubectl get -o json`: it is
  stored as our mutating path makes it (finalizers, the permanent-id label, defaults);
- an invalid one is refused, and kubectl prints `admission webhook "<our entry>" denied the
  request: <field>: ...`: the entry is ours and the message names the field.

A kind of the table without a row here fails the test, and so does a manifest that does not route
a path to us: the last test breaks one entry of a rendered copy and checks that the probe of that
path sees it.

    test_apiserver_paths.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

ENTRY_SUFFIX = ".karmada-policy-webhook.karmada.io"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TTL = 600   # --default-rebalancer-ttl-seconds, so that /mutate-workloadrebalancer shows itself


def obj(kind, name, spec, namespaced, group="policy.karmada.io", version="v1alpha1",
        annotations=None):
    meta = {"name": name}
    if namespaced:
        meta["namespace"] = "default"
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": group + "/" + version, "kind": kind, "metadata": meta, "spec": spec}


def binding(kind, name, annotations=None):
    namespaced = kind == "ResourceBinding"
    resource = dict(DEPLOYMENT, namespace="default") if namespaced else \
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "name": "reader"}
    return obj(kind, name, {"resource": resource}, namespaced, group="work.karmada.io",
               version="v1alpha2", annotations=annotations)



DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}

RIC_REPLICAS = """function GetReplicas(obj)
  local replica = obj.spec.size
  local requirement = kube.accuratePodRequirements(obj.spec.template)
  return replica, requirement
end"""
RIC_AGGREGATE = """function AggregateStatus(desired, items)
  local ready = 0
  for i = 1, #items do
    if items[i].status == nil then goto continue end
    ready = ready + (items[i].status.readyReplicas or 0)
    ::continue::
  end
  desired.status = {readyReplicas = ready}
  return desired
end"""

# kind -> (valid object, {JSON pointer in the stored object: value; "<uuid>" a v4 UUID},
#          invalid object, the field its denial must name, that field's rule); a kind without a
#          validating path has no invalid object (None).
CASES = {
    "PropagationPolicy": (
        obj("PropagationPolicy", "pp-valid", {"resourceSelectors": [DEPLOYMENT], "placement": {
            "clusterAffinity": {"clusterNames": ["member1"]}}}, True),
        {"/metadata/finalizers": ["karmada.io/propagation-policy-controller"],
         "/metadata/labels/propagationpolicy.karmada.io~1permanent-id": "<uuid>",
         "/spec/resourceSelectors/0/namespace": "default", "/spec/priority": 0,
         "/spec/preemption": "Never", "/spec/conflictResolution": "Abort",
         "/spec/schedulerName": "default-scheduler"},
        obj("PropagationPolicy", "pp-invalid", {"resourceSelectors": [DEPLOYMENT], "placement": {
            "clusterAffinities": [{"affinityName": "east"}, {"affinityName": "east"}]}}, True),
        "spec.placement.clusterAffinities[1].affinityName", "V-P5"),
    "ClusterPropagationPolicy": (
        obj("ClusterPropagationPolicy", "cpp-valid", {"resourceSelectors": [
            {"apiVersion": "v1", "kind": "Namespace", "name": "team-a"}]}, False),
        {"/metadata/finalizers": ["karmada.io/cluster-propagation-policy-controller"],
         "/metadata/labels/clusterpropagationpolicy.karmada.io~1permanent-id": "<uuid>",
         "/spec/priority": 0, "/spec/preemption": "Never"},
        obj("ClusterPropagationPolicy", "cpp-invalid", {"resourceSelectors": [DEPLOYMENT],
                                                        "placement": {"spreadConstraints": [
                                                            {"spreadByField": "region",
                                                             "minGroups": 1}]}}, False),
        "spec.placement.spreadConstraints", "V-S7"),
    "WorkloadRebalancer": (
        obj("WorkloadRebalancer", "wr-valid", {"workloads": [dict(DEPLOYMENT, namespace="default")]},
            False, "apps.karmada.io"),
        {"/spec/ttlSecondsAfterFinished": TTL},
        obj("WorkloadRebalancer", "wr-invalid", {"workloads": [dict(DEPLOYMENT, namespace="Team_A")]},
            False, "apps.karmada.io"),
        "spec.workloads[0].namespace", "W-3"),
    "ScheduleTrigger": (
        obj("ScheduleTrigger", "st-valid", {"targetRefPolicy": [{"name": "pp-valid",
                                                                 "namespace": "default"}]}, False),
        {"/spec/retryAfterSeconds": 3, "/spec/autoCleanAfterMinutes": 60},
        obj("ScheduleTrigger", "st-invalid", {"targetRefPolicy": [{"name": "Bad_Name"}]}, False),
        "spec.targetRefPolicy[0].name", "S-3"),
    "OverridePolicy": (
        obj("OverridePolicy", "op-valid", {"resourceSelectors": [DEPLOYMENT], "overrideRules": [
            {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"team": "a"}}]}}]},
            True),
        {"/spec/resourceSelectors/0/namespace": "default",
         "/spec/overrideRules/0/overriders/labelsOverrider/0/value/team": "a"},
        obj("OverridePolicy", "op-invalid", {"resourceSelectors": [DEPLOYMENT], "overrideRules": [
            {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"Bad_Key!": "a"}}]}}]},
            True),
        "spec.overrideRules[0].overriders.labelsOverrider[0].value[Bad_Key!]", "O-7"),
    "ClusterOverridePolicy": (
        obj("ClusterOverridePolicy", "cop-valid", {"resourceSelectors": [DEPLOYMENT], "overrideRules": [
            {"overriders": {"annotationsOverrider": [{"operator": "add", "value": {"a": "b"}}]}}]},
            False),
        {"/spec/overrideRules/0/overriders/annotationsOverrider/0/value/a": "b"},
        obj("ClusterOverridePolicy", "cop-invalid", {"resourceSelectors": [DEPLOYMENT],
                                                     "overrideRules": [{"overriders": {
                                                         "plaintext": [{"operator": "replace",
                                                                        "path": "/spec/replicas",
                                                                        "value": 1}]},
                                                         "targetCluster": {"fieldSelector": {
                                                             "matchExpressions": [{
                                                                 "key": "rack", "operator": "In",
                                                                 "values": ["r1"]}]}}}]}, False),
        "spec.overrideRules[0].targetCluster.fieldSelector.matchExpressions[0].key", "O-19"),
    "FederatedResourceQuota": (
        obj("FederatedResourceQuota", "frq-valid", {"overall": {"cpu": "10", "memory": "1Gi"},
                                                    "staticAssignments": [
                                                        {"clusterName": "member1",
                                                         "hard": {"cpu": "4", "memory": "512Mi"}},
                                                        {"clusterName": "member2",
                                                         "hard": {"cpu": "6", "memory": "512Mi"}}]},
            True),
        {"/spec/overall/memory": "1Gi", "/spec/staticAssignments/1/hard/cpu": "6"},
        obj("FederatedResourceQuota", "frq-invalid", {"overall": {"cpu": "2"}, "staticAssignments": [
            {"clusterName": "member1", "hard": {"cpu": "4"}}]}, True),
        "spec.overall[cpu]", "Q-9"),
    "ClusterTaintPolicy": (
        obj("ClusterTaintPolicy", "ctp-valid", {"taints": [{"key": "maintenance",
                                                            "effect": "NoSchedule"}]}, False),
        {"/spec/taints/0/effect": "NoSchedule"},
        obj("ClusterTaintPolicy", "ctp-invalid", {"taints": [{"key": "maintenance",
                                                              "effect": "NoExecute"}]}, False),
        "spec.taints[0]", "T-1"),
    "ResourceBinding": (
        binding("ResourceBinding", "rb-valid", {
            "resourcebinding.karmada.io/dependencies":
                '[{"apiVersion":"v1","kind":"ConfigMap","namespace":"default","name":"c"}]'}),
        {"/metadata/labels/resourcebinding.karmada.io~1permanent-id": "<uuid>",
         "/spec/conflictResolution": "Abort"},
        binding("ResourceBinding", "rb-invalid",
                {"resourcebinding.karmada.io/dependencies": '{"kind":"ConfigMap"}'}),
        "metadata.annotations.resourcebinding.karmada.io/dependencies", "RB-1"),
    "ClusterResourceBinding": (
        binding("ClusterResourceBinding", "crb-valid"),
        {"/metadata/labels/clusterresourcebinding.karmada.io~1permanent-id": "<uuid>"},
        None, None, None),
    # /mutate-work denies nothing: a manifest it cannot decode is refused with code 400 (W-5).
    "Work": (
        {"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
         "metadata": {"name": "work-valid", "namespace": "default"},
         "spec": {"workload": {"manifests": [
             {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "nginx", "namespace": "default", "uid": "u", "labels": {"app": "nginx"},
                           "annotations": {"deployment.kubernetes.io/revision": "3"}},
              "spec": {"replicas": 1}, "status": {"replicas": 1}},
             {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "nginx", "namespace": "default"},
              "spec": {"clusterIP": "None", "ports": [{"port": 80}]}}]}}},
        {"/metadata/labels/work.karmada.io~1permanent-id": "<uuid>",
         "/spec/workload/manifests/0/metadata/labels/work.karmada.io~1permanent-id": "<uuid>",
         "/spec/workload/manifests/0/metadata/annotations/resourcetemplate.karmada.io~1managed-annotations":
             "resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels",
         "/spec/workload/manifests/0/metadata/annotations/resourcetemplate.karmada.io~1managed-labels":
             "app,work.karmada.io/permanent-id",
         "/spec/workload/manifests/0/metadata/name": "nginx",
         "/spec/workload/manifests/1/spec/clusterIP": "None"},
        {"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
         "metadata": {"name": "work-invalid", "namespace": "default"},
         "spec": {"workload": {"manifests": [{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
                                              "spec": {"parallelism": "two"}}]}}},
        "spec.workload.manifests[0].spec.parallelism", "W-5"),
    # Cluster-scoped, no spec: its webhooks at the top. The invalid one's URL has a query (RIWC-9).
    "ResourceInterpreterWebhookConfiguration": (
        {"apiVersion": "config.karmada.io/v1alpha1",
         "kind": "ResourceInterpreterWebhookConfiguration", "metadata": {"name": "riwc-valid"},
         "webhooks": [{"name": "replicas.interpreter.example.com",
                       "clientConfig": {"url": "https://interpreter.example.com/replicas"},
                       "interpreterContextVersions": ["v1alpha1"],
                       "rules": [{"operations": ["InterpretReplica"], "apiGroups": ["apps"],
                                  "apiVersions": ["v1"], "kinds": ["Deployment"]}]}]},
        {"/webhooks/0/name": "replicas.interpreter.example.com"},
        {"apiVersion": "config.karmada.io/v1alpha1",
         "kind": "ResourceInterpreterWebhookConfiguration", "metadata": {"name": "riwc-invalid"},
         "webhooks": [{"name": "replicas.interpreter.example.com",
                       "clientConfig": {"url": "https://interpreter.example.com/r?debug=1"},
                       "interpreterContextVersions": ["v1alpha1"]}]},
        "webhooks[0].clientConfig.url", "RIWC-9"),
    # No mutating path: stored as sent (with the CRD's defaults). The invalid one's schedule has a
    # month 13 (CFH-5, whatever the clock).
    "CronFederatedHPA": (
        obj("CronFederatedHPA", "cfh-valid", {
            "scaleTargetRef": {"apiVersion": "autoscaling.karmada.io/v1alpha1",
                               "kind": "FederatedHPA", "name": "web-fhpa"},
            "rules": [{"name": "business-hours", "schedule": "0 8 * * 1-5",
                       "timeZone": "Asia/Shanghai", "targetMinReplicas": 10,
                       "targetMaxReplicas": 50},
                      {"name": "night", "schedule": "30 20 * * *", "targetMinReplicas": 2,
                       "targetMaxReplicas": 10}]}, True, group="autoscaling.karmada.io"),
        {"/spec/rules/0/schedule": "0 8 * * 1-5", "/spec/rules/0/timeZone": "Asia/Shanghai",
         "/spec/rules/1/targetMaxReplicas": 10, "/spec/rules/1/successfulHistoryLimit": 3},
        obj("CronFederatedHPA", "cfh-invalid", {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "rules": [{"name": "yearly", "schedule": "0 0 1 13 *", "targetReplicas": 1}]}, True,
            group="autoscaling.karmada.io"),
        "spec.rules[0].schedule", "CFH-5"),
    # Cluster-scoped, no mutating path: a realistic customization (goto and labels, as upstream's
    # dialect has them) is stored as sent; a script with Lua 5.3's `//` is refused (RIC-2).
    "ResourceInterpreterCustomization": (
        {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
         "metadata": {"name": "ric-valid"},
         "spec": {"target": {"apiVersion": "apps.example.io/v1", "kind": "Workload"},
                  "customizations": {
                      "replicaResource": {"luaScript": RIC_REPLICAS},
                      "statusAggregation": {"luaScript": RIC_AGGREGATE}}}},
        {"/spec/customizations/replicaResource/luaScript": RIC_REPLICAS,
         "/spec/customizations/statusAggregation/luaScript": RIC_AGGREGATE},
        {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
         "metadata": {"name": "ric-invalid"},
         "spec": {"target": {"apiVersion": "apps.example.io/v1", "kind": "Workload"},
                  "customizations": {"replicaResource": {
                      "luaScript": "function GetReplicas(obj)\n  return obj.spec.size // 2\nend"}}}},
        "spec.customizations.replicaResource.luaScript", "RIC-2"),
    # No mutating path: stored as sent. The invalid one breaks MCI-5 (a host that is an IP).
    "MultiClusterIngress": (
        obj("MultiClusterIngress", "mci-valid", {"ingressClassName": "nginx", "rules": [
            {"host": "shop.example.com", "http": {"paths": [
                {"path": "/", "pathType": "Prefix",
                 "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}, True,
            group="networking.karmada.io"),
        {"/spec/rules/0/host": "shop.example.com", "/spec/ingressClassName": "nginx"},
        obj("MultiClusterIngress", "mci-invalid", {"rules": [
            {"host": "010.0.0.1", "http": {"paths": [
                {"path": "/", "pathType": "Prefix",
                 "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}, True,
            group="networking.karmada.io"),
        "spec.rules[0].host", "MCI-5"),
    # MCS-1 is the one ObjectMeta rule reachable through the API server: it admits `mcs.invalid`
    # (a DNS-1123 subdomain), only the webhook refuses it (not a DNS-1035 label).
    "MultiClusterService": (
        obj("MultiClusterService", "mcs-valid", {"types": ["CrossCluster"], "ports": [
            {"name": "http", "port": 80}], "providerClusters": [{"name": "member1"}]}, True,
            group="networking.karmada.io"),
        {"/metadata/labels/multiclusterservice.karmada.io~1permanent-id": "<uuid>",
         "/spec/range": {}, "/spec/ports/0/name": "http"},
        obj("MultiClusterService", "mcs.invalid", {"types": ["CrossCluster"]}, True,
            group="networking.karmada.io"),
        "metadata.name", "MCS-1"),
    # FH-M1…FH-M4 fill the defaults; FH-M5 keeps the tolerance upstream's mutator drops (written
    # as Kubernetes writes a quantity: 0.05 is 50m). The invalid one breaks FH-4.
    "FederatedHPA": (
        obj("FederatedHPA", "fhpa-valid", {"scaleTargetRef": DEPLOYMENT, "maxReplicas": 10,
            "behavior": {"scaleUp": {"tolerance": "0.05", "policies": [
                {"type": "Pods", "value": 2, "periodSeconds": 30}]}}}, True,
            group="autoscaling.karmada.io"),
        {"/spec/minReplicas": 1, "/spec/metrics/0/resource/name": "cpu",
         "/spec/metrics/0/resource/target/averageUtilization": 80,
         "/spec/behavior/scaleUp/tolerance": "50m", "/spec/behavior/scaleUp/selectPolicy": "Max",
         "/spec/behavior/scaleUp/stabilizationWindowSeconds": 0,
         "/spec/behavior/scaleUp/policies": [{"type": "Pods", "value": 2, "periodSeconds": 30}],
         "/spec/behavior/scaleDown/policies/0/type": "Percent"},
        obj("FederatedHPA", "fhpa-invalid", {"scaleTargetRef": DEPLOYMENT, "minReplicas": 5,
            "maxReplicas": 2}, True, group="autoscaling.karmada.io"),
        "spec.maxReplicas", "FH-4"),
}


def fhpa(name, **spec):
    return obj("FederatedHPA", name, dict({"scaleTargetRef": DEPLOYMENT, "maxReplicas": 10},
                                          **spec), True, group="autoscaling.karmada.io")


def pods_metric(selector):
    return [{"type": "Pods", "pods": {"metric": {"name": "rps", "selector": selector},
                                      "target": {"type": "AverageValue", "averageValue": "1"}}}]


def mcs(name, **spec):
    return obj("MultiClusterService", name, dict({"types": ["CrossCluster"]}, **spec), True,
               group="networking.karmada.io")


def mci(name, path=None, **spec):
    rule = {"host": "web.example.com", "http": {"paths": [dict({
        "path": "/", "pathType": "Prefix",
        "backend": {"service": {"name": "web", "port": {"number": 80}}}}, **(path or {}))]}}
    return obj("MultiClusterIngress", name, dict({"rules": [rule]}, **spec), True,
               group="networking.karmada.io")


def riwc(object_name, **webhook):
    return {"apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterWebhookConfiguration", "metadata": {"name": object_name},
            "webhooks": [dict({"name": "replicas.interpreter.example.com",
                               "clientConfig": {"url": "https://interpreter.example.com/r"},
                               "interpreterContextVersions": ["v1alpha1"]}, **webhook)]}


def cfh(name, target=None, **rule):
    return obj("CronFederatedHPA", name, {
        "scaleTargetRef": target or {"apiVersion": "autoscaling.karmada.io/v1alpha1",
                                     "kind": "FederatedHPA", "name": "web"},
        "rules": [dict({"name": "up", "schedule": "0 8 * * *", "targetMinReplicas": 2,
                        "targetMaxReplicas": 5}, **rule)]}, True, group="autoscaling.karmada.io")


# Beyond the one invalid object of each kind: one per further rule family, each refused by our
# entry with kubectl's text naming the field (the API server's schema admits every one of them).
FAMILIES = {
    "MultiClusterService": [
        (mcs("mcs-mcs2", ports=[{"name": "HTTP_1", "port": 80}]), "spec.ports[0].name", "MCS-2"),
        (mcs("mcs-mcs3", ports=[{"name": "http", "port": 70000}]), "spec.ports[0].port", "MCS-3"),
        (mcs("mcs-mcs4", types=["NodePort"]), "spec.types[0]", "MCS-4"),
        (mcs("mcs-mcs5", types=["CrossCluster", "LoadBalancer"]), "spec.types", "MCS-5"),
        (mcs("mcs-mcs6", providerClusters=[{"name": "Member_1"}]),
         "spec.range.providerClusters[0]", "MCS-6"),
    ],
    "MultiClusterIngress": [
        (obj("MultiClusterIngress", "mci-mci1", {"ingressClassName": "nginx"}, True,
             group="networking.karmada.io"), "spec", "MCI-1"),
        (mci("mci-mci2", path={"backend": {}}), "spec.rules[0].http.paths[0].backend", "MCI-2"),
        (mci("mci-mci3", path={"backend": {"resource": {"apiGroup": "Bad_Group",
                                                         "kind": "Bucket", "name": "b"}}}),
         "spec.rules[0].http.paths[0].backend.resource.apiGroup", "MCI-3"),
        (mci("mci-mci4", path={"backend": {"service": {"name": "Web", "port": {"number": 80}}}}),
         "spec.rules[0].http.paths[0].backend.service.name", "MCI-4"),
        (mci("mci-mci7", path={"pathType": "Regex"}), "spec.rules[0].http.paths[0].pathType",
         "MCI-7"),
        (mci("mci-mci8", tls=[{"hosts": ["bad_host.example.com"], "secretName": "tls"}]),
         "spec.tls[0].hosts[0]", "MCI-8"),
    ],
    "ResourceInterpreterWebhookConfiguration": [
        (riwc("riwc-riwc1", name="replicas"), "webhooks[0].name", "RIWC-1"),
        (riwc("riwc-riwc3", rules=[{"operations": ["Scale"], "apiGroups": ["apps"],
                                    "apiVersions": ["v1"], "kinds": ["Deployment"]}]),
         "webhooks[0].rules[0].operations[0]", "RIWC-3"),
        (riwc("riwc-riwc7", timeoutSeconds=31), "webhooks[0].timeoutSeconds", "RIWC-7"),
        (riwc("riwc-riwc10", clientConfig={"service": {"name": "interpreter",
                                                       "namespace": "karmada-system",
                                                       "port": 70000}}),
         "webhooks[0].clientConfig.service.port", "RIWC-10"),
        (riwc("riwc-riwc11", interpreterContextVersions=["v1beta1"]),
         "webhooks[0].interpreterContextVersions", "RIWC-11"),
    ],
    "CronFederatedHPA": [
        (cfh("cfh-cfh2", target={"apiVersion": "autoscaling.karmada.io/v1alpha1",
                                  "kind": "Deployment", "name": "web"}),
         "spec.scaleTargetRef.kind", "CFH-2"),
        (cfh("cfh-cfh3", target={"apiVersion": "apps/v1", "kind": "Deployment", "name": "a/b"},
             targetReplicas=1), "spec.scaleTargetRef.name", "CFH-3"),
        (cfh("cfh-cfh6", timeZone="Mars/Olympus_Mons"), "spec.rules[0].timeZone", "CFH-6"),
        (cfh("cfh-cfh8", targetMinReplicas=0), "spec.rules[0].targetMinReplicas", "CFH-8"),
        (cfh("cfh-cfh10", targetMinReplicas=6), "spec.rules[0].targetMinReplicas", "CFH-10"),
        (cfh("cfh-cfh12", target=DEPLOYMENT, targetReplicas=-1),
         "spec.rules[0].targetReplicas", "CFH-12"),
        (cfh("cfh-dc2", schedule="0 0 * * 7"), "spec.rules[0].schedule", "D-C2"),
    ],
    "FederatedHPA": [
        (fhpa("fhpa-fh5", scaleTargetRef={"kind": "Deployment", "name": "a/b"}),
         "spec.scaleTargetRef.name", "FH-5"),
        (fhpa("fhpa-fh7", metrics=[{"type": "External", "external": {
            "metric": {"name": "queue"}, "target": {"type": "Value", "value": "10"}}}]),
         "spec.metrics[0].type", "FH-7"),
        (fhpa("fhpa-fh13", metrics=[{"type": "ContainerResource", "containerResource": {
            "name": "foo", "container": "app", "target": {"type": "AverageValue",
                                                          "averageValue": "1"}}}]),
         "spec.metrics[0].containerResource.name", "FH-13"),
        (fhpa("fhpa-fh14", metrics=[{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": 0}}}]),
         "spec.metrics[0].resource.target.averageUtilization", "FH-14"),
        (fhpa("fhpa-fh15", behavior={"scaleUp": {"policies": [
            {"type": "Pods", "value": 1, "periodSeconds": 1801}]}}),
         "spec.behavior.scaleUp.policies[0].periodSeconds", "FH-15"),
        (fhpa("fhpa-dh1", behavior={"scaleDown": {"tolerance": "-1"}}),
         "spec.behavior.scaleDown.tolerance", "D-H1"),
        (fhpa("fhpa-dh2", metrics=pods_metric({"matchExpressions": [
            {"key": "tier", "operator": "Equals", "values": ["a"]}]})),
         "spec.metrics[0].pods.metric.selector.matchExpressions[0].operator", "D-H2"),
    ],
}

# How kubectl begins the refusal of each kind: a denial (code 403) carries reason Forbidden; a
# mutating path that cannot decode a request refuses it with code 400 and no reason, as
# controller-runtime's Errored (upstream's 500 for the same Work prints the same way).
REFUSAL = {"Work": "Error from server: "}


def pointer_get(doc, pointer: str):
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(doc, list):
            doc = doc[int(token)]
        else:
            doc = doc[token]
    return doc


def entry_name(row) -> str:
    return row.kind.lower() + ENTRY_SUFFIX


def create_and_read(api, manifest: dict) -> dict:
    api.kubectl("create", "-f", "-", input=manifest)
    args = ["get", row_resource(manifest), manifest["metadata"]["name"]]
    if "namespace" in manifest["metadata"]:
        args += ["-n", manifest["metadata"]["namespace"]]
    return api.kubectl_json(*args)


def row_resource(manifest: dict) -> str:
    group = manifest["apiVersion"].split("/")[0]
    return "%s.%s" % (RESOURCES[manifest["kind"]], group)


RESOURCES = {}


def stored_problems(stored: dict, expect: dict) -> list:
    problems = []
    for pointer, want in expect.items():
        try:
            got = pointer_get(stored, pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            problems.append("%s absent" % pointer)
            continue
        if want == "<uuid>":
            if not isinstance(got, str) or not UUID.match(got):
                problems.append("%s = %r, not a v4 UUID" % (pointer, got))
        elif got != want:
            problems.append("%s = %r, want %r" % (pointer, got, want))
    return problems


def denial_problems(api, row, invalid: dict, field: str, entry: str | None = None) -> list:
    """Why `kubectl create` of the invalid object was not the denial we expect, or []. `entry`:
    the webhook entry that must deny it (default: ours for the row's kind, entry_name(row))."""
    proc = api.kubectl("create", "-f", "-", input=invalid, check=False)
    # Every ResourceInterpreterCustomization review warns that RIC-1 was not checked.
    text = "\n".join(line for line in proc.stderr.strip().splitlines()
                     if not line.startswith("Warning: RIC-1 not checked: "))
    want = 'admission webhook "%s" denied the request: ' % (entry or entry_name(row))
    if proc.returncode == 0:
        return ["%s was admitted: %s" % (invalid["metadata"]["name"], proc.stdout.strip())]
    problems = []
    start = REFUSAL.get(row.kind, "Error from server (Forbidden): ")
    if not text.startswith(start) or want not in text:
        problems.append("kubectl printed %r, want %r" % (text, start + "..." + want + "..."))
    elif (field + ":") not in text.split(want, 1)[1]:
        problems.append("the denial does not name %s: %r" % (field, text))
    return problems


def test_every_kind_has_a_case(api, webhook, rows):
    missing = [r.kind for r in rows if r.kind not in CASES]
    check(not missing, "kinds of the kind table without a case here: %s", missing)
    check(set(CASES) <= {r.kind for r in rows}, "cases for kinds the table lacks: %s",
          sorted(set(CASES) - {r.kind for r in rows}))


def test_valid_objects_are_stored_mutated(api, webhook, rows):
    problems = []
    for row in rows:
        valid, expect, _, _, _ = CASES[row.kind]
        stored = create_and_read(api, valid)
        got = stored_problems(stored, expect)
        problems += ["%s (%s): %s" % (row.kind, row.mutate_path or row.validate_path, p)
                     for p in got]
        if not got:
            print("  %-24s stored: %s" % (row.kind, json.dumps(
                {p: pointer_get(stored, p) for p in expect})[:160]), flush=True)
    check(not problems, "\n  ".join(problems))


def test_invalid_objects_are_refused_by_our_entry(api, webhook, rows):
    problems = []
    for row in rows:
        _, _, invalid, field, rule = CASES[row.kind]
        if invalid is None:
            check(not row.validate_path, "%s has %s but no invalid case here", row.kind,
                  row.validate_path)
            continue
        got = denial_problems(api, row, invalid, field)
        problems += ["%s (%s, %s): %s" % (row.kind, row.validate_path, rule, p) for p in got]
        if not got:
            print("  %-24s denied at %s [%s]" % (row.kind, field, rule), flush=True)
    check(not problems, "\n  ".join(problems))


def test_each_rule_family_is_refused(api, webhook, rows):
    problems = []
    for row in rows:
        for invalid, field, rule in FAMILIES.get(row.kind, []):
            got = denial_problems(api, row, invalid, field)
            problems += ["%s (%s, %s): %s" % (row.kind, row.validate_path, rule, p) for p in got]
            if not got:
                print("  %-24s denied at %s [%s]" % (row.kind, field, rule), flush=True)
    check(not problems, "\n  ".join(problems))


def test_metrics_count_what_the_api_server_sent(api, webhook, rows):
    """Every path saw at least one request, each denial counted under its rule."""
    status, body = harness_get(webhook.metrics_port, "/metrics")
    check(status == 200, "/metrics: HTTP %d", status)
    text = body.decode()
    for row in rows:
        for path in row.paths():
            check(re.search(r'controller_runtime_webhook_requests_total\{code="200",webhook="%s"\} [1-9]'
                            % re.escape(path), text),
                  "no request counted for %s:\n%s", path,
                  "\n".join(l for l in text.splitlines() if "requests_total" in l)[:3000])


def harness_get(port: int, path: str):
    import urllib.request
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as resp:
        return resp.status, resp.read()


def test_a_broken_manifest_is_caught(api, webhook, rows):
    """The probes above are what would catch a broken manifest: with the ClusterTaintPolicy entry
    pointed at a resource that does not exist, its invalid object is admitted and the probe says so."""
    rendered = api.render_manifests(webhook)
    broken = rendered.replace("- clustertaintpolicies\n", "- clustertaintpolicys\n", 1)
    check(broken != rendered, "the rendered manifests have no clustertaintpolicies rule")
    row = next(r for r in rows if r.kind == "ClusterTaintPolicy")
    _, _, invalid, field, _ = CASES[row.kind]
    try:
        api.apply_manifests(broken)
        # The API server picks the change up from a watch: wait until the probe stops seeing us.
        import time
        deadline = time.monotonic() + 30
        problems = []
        while time.monotonic() < deadline:
            problems = denial_problems(api, row, dict(invalid, metadata={"name": "ctp-broken"}),
                                       field)
            if problems:
                break
            time.sleep(0.2)
        check(problems and "was admitted" in problems[0],
              "a manifest that routes nothing to /validate-clustertaintpolicy went unnoticed: %s",
              problems)
        api.kubectl("delete", "clustertaintpolicies.policy.karmada.io", "ctp-broken")
    finally:
        api.apply_manifests(rendered)
        api.wait_webhooks_called()


def run(args, api):
    rows = harness.kind_table(args.binary)
    for row in rows:
        RESOURCES[row.kind] = row.resource
    certs = harness.make_certs(args.source)
    with harness.Server(args.binary, certs, "--default-rebalancer-ttl-seconds", str(TTL)) as webhook:
        api.register(webhook)
        try:
            return harness.run_tests([test_every_kind_has_a_case,
                                      test_valid_objects_are_stored_mutated,
                                      test_invalid_objects_are_refused_by_our_entry,
                                      test_each_rule_family_is_refused,
                                      test_metrics_count_what_the_api_server_sent,
                                      test_a_broken_manifest_is_caught], api, webhook, rows)
        finally:
            api.unregister()


if __name__ == "__main__":
    kube.main(run)
