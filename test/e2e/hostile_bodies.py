#!/usr/bin/env python3
"""The most expensive review bodies we can construct, per path, at a given size (AdmissionReviews,
and ConversionReviews for /convert).

Each shape fills one list (or one string, or one map) of an otherwise ordinary review until the
body reaches the size asked for: many elements, all duplicates, all invalid, deep-but-legal
nesting, long strings, many keys. The rules must be linear in the body, so the cost of a 3 MiB
body is at most ~48x that of a 64 KiB one (docs/performance.md, "Worst case per request").

Used by the worst-case benchmark (test/bench/run.sh), the hostile e2e suite
(test_hostile_clients.py) and the fuzz seeds (test/fuzz/run.sh):

    hostile_bodies.py --out DIR [--sizes 65536,1048576,3145728]   # DIR/<path>/<shape>-<size>.json
    hostile_bodies.py --list                                      # one "path shape" per line

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

KIB = 1024
MIB = 1024 * KIB
SIZES = (64 * KIB, 1 * MIB, 3 * MIB)  # 3 MiB: the API server's request limit

PP = ("policy.karmada.io", "v1alpha1", "PropagationPolicy", "propagationpolicies")
CPP = ("policy.karmada.io", "v1alpha1", "ClusterPropagationPolicy", "clusterpropagationpolicies")
WR = ("apps.karmada.io", "v1alpha1", "WorkloadRebalancer", "workloadrebalancers")
ST = ("policy.karmada.io", "v1alpha1", "ScheduleTrigger", "scheduletriggers")
FRQ = ("policy.karmada.io", "v1alpha1", "FederatedResourceQuota", "federatedresourcequotas")
CTP = ("policy.karmada.io", "v1alpha1", "ClusterTaintPolicy", "clustertaintpolicies")
OP = ("policy.karmada.io", "v1alpha1", "OverridePolicy", "overridepolicies")
COP = ("policy.karmada.io", "v1alpha1", "ClusterOverridePolicy", "clusteroverridepolicies")
RB = ("work.karmada.io", "v1alpha2", "ResourceBinding", "resourcebindings")
CRB = ("work.karmada.io", "v1alpha2", "ClusterResourceBinding", "clusterresourcebindings")
WORK = ("work.karmada.io", "v1alpha1", "Work", "works")
MCS = ("networking.karmada.io", "v1alpha1", "MultiClusterService", "multiclusterservices")
MCI = ("networking.karmada.io", "v1alpha1", "MultiClusterIngress", "multiclusteringresses")
FHPA = ("autoscaling.karmada.io", "v1alpha1", "FederatedHPA", "federatedhpas")
RIWC = ("config.karmada.io", "v1alpha1", "ResourceInterpreterWebhookConfiguration",
        "resourceinterpreterwebhookconfigurations")
CFH = ("autoscaling.karmada.io", "v1alpha1", "CronFederatedHPA", "cronfederatedhpas")
RIC = ("config.karmada.io", "v1alpha1", "ResourceInterpreterCustomization",
       "resourceinterpretercustomizations")

UID = "00000000-0000-4000-8000-000000000000"  # request.uid of every body

PP_ID = "propagationpolicy.karmada.io/permanent-id"
CPP_ID = "clusterpropagationpolicy.karmada.io/permanent-id"


def review(kind, obj, namespace=None):
    group, version, name, resource = kind
    request = {
        "uid": UID,
        "kind": {"group": group, "version": version, "kind": name},
        "resource": {"group": group, "version": version, "resource": resource},
        "name": obj["metadata"]["name"],
        "operation": "CREATE",
        "userInfo": {"username": "tenant"},
        "object": obj,
        "oldObject": None,
        "dryRun": False,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
    }
    if namespace is not None:
        request["namespace"] = namespace
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def policy(cluster, spec, labels=None):
    metadata = {"name": "hostile", "labels": {(CPP_ID if cluster else PP_ID): "0b0c7e4e-5f3a-4b8e-9d7e-2f1a3c4d5e6f"}}
    if labels:
        metadata["labels"].update(labels)
    if not cluster:
        metadata["namespace"] = "tenant"
    base = {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "tenant",
                                   "name": "web"}]}
    base.update(spec)
    obj = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": CPP[2] if cluster else PP[2],
           "metadata": metadata, "spec": base}
    return review(CPP if cluster else PP, obj, None if cluster else "tenant")


# --- shapes: each takes (n, cluster) and returns a review whose size grows linearly with n -------

def affinity_names_unique(n, cluster):
    """n valid terms with unique names (the duplicate-name rule's best case to be quadratic in)."""
    return policy(cluster, {"placement": {"clusterAffinities": [
        {"affinityName": "t%07d" % i, "clusterNames": ["member1"]} for i in range(n)]}})


def affinity_names_alike(n, cluster):
    """n terms all named alike: a Duplicate value error for every term after the first."""
    return policy(cluster, {"placement": {"clusterAffinities": [
        {"affinityName": "dc", "clusterNames": ["member1"]} for _ in range(n)]}})


def affinity_names_invalid(n, cluster):
    """n terms whose names break every qualified-name rule, each a different value."""
    return policy(cluster, {"placement": {"clusterAffinities": [
        {"affinityName": "-%d.%s-" % (i, "x" * 40)} for i in range(n)]}})


def overflow_names_alike(n, cluster):
    """One term with n overflow affinities all named as the term: n duplicates within a term."""
    return policy(cluster, {"placement": {
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
        "clusterAffinities": [{"affinityName": "dc", "clusterNames": ["member1"],
                               "overflowAffinities": [{"affinityName": "dc", "clusterNames": ["m"]}
                                                      for _ in range(n)]}]}})


def empty_selectors(n, cluster):
    """n empty resource selectors with preemption Always: every selector rule fires on each."""
    return policy(cluster, {"resourceSelectors": [{} for _ in range(n)], "preemption": "Always"})


def unnamed_deployments(n, cluster):
    """n Deployment selectors without name or namespace, preemption Always (V-R1, D-R2, V-S1)."""
    return policy(cluster, {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}
                                                  for _ in range(n)], "preemption": "Always"})


def spread_constraints_alike(n, cluster):
    """n spread constraints, each breaking every rule and spreading by the same field."""
    return policy(cluster, {"placement": {"spreadConstraints": [
        {"spreadByField": "region", "spreadByLabel": "x", "minGroups": -1, "maxGroups": -2}
        for _ in range(n)]}})


def spread_constraints_bare(n, cluster):
    """n empty spread constraints: the mutator defaults two fields in each."""
    return policy(cluster, {"placement": {"spreadConstraints": [{} for _ in range(n)]}})


def field_selector_invalid(n, cluster):
    """A field selector of n expressions, each with an unsupported key and operator."""
    return policy(cluster, {"placement": {"clusterAffinity": {"fieldSelector": {"matchExpressions": [
        {"key": "k%d" % i, "operator": "Op", "values": ["v"]} for i in range(n)]}}}})


def tolerations_lt(n, cluster):
    """n cluster tolerations with an operator upstream refuses."""
    return policy(cluster, {"placement": {"clusterTolerations": [
        {"key": "k", "operator": "Lt", "value": "v", "effect": "NoSchedule"} for _ in range(n)]}})


def state_preservation_invalid(n, cluster):
    """Application failover with n state-preservation rules, each with an invalid alias name."""
    return policy(cluster, {"propagateDeps": True, "failover": {"application": {
        "decisionConditions": {"tolerationSeconds": 30}, "purgeMode": "Directly",
        "statePreservation": {"rules": [{"aliasLabelName": "Bad Alias %d" % i, "jsonPath": "{.x}"}
                                        for i in range(n)]}}}})


def wrong_types(n, cluster):
    """n spread constraints whose every field has the wrong JSON type."""
    return policy(cluster, {"placement": {"spreadConstraints": [
        {"spreadByField": 1, "spreadByLabel": [], "minGroups": "x", "maxGroups": {}} for _ in range(n)]}})


def long_strings(n, cluster):
    """One affinity name and one spread label of n characters each: values echoed in messages."""
    return policy(cluster, {"placement": {
        "clusterAffinities": [{"affinityName": "a" * n, "clusterNames": ["member1"]}],
        "spreadConstraints": [{"spreadByLabel": "b" * n, "spreadByField": "cluster"}]}})


def many_labels(n, cluster):
    """n distinct metadata labels (duplicate-key detection in one big object)."""
    return policy(cluster, {}, labels={"l%07d" % i: "v" for i in range(n)})


def many_unknown_keys(n, cluster):
    """n distinct unknown fields in spec.placement (the schema walker meets each once)."""
    return policy(cluster, {"placement": {"u%07d" % i: 0 for i in range(n)}})


def deep_nesting(n, cluster):
    """n copies of a 100-deep array (legal: the limit is 128) under an unknown field."""
    deep = 0
    for _ in range(100):
        deep = [deep]
    return policy(cluster, {"placement": {"nested": [deep for _ in range(n)]}})


def explicit_empties(n, cluster):
    """n selectors full of explicit empty values that upstream's round trip drops: the mutator
    removes three members of each (end-to-end parity)."""
    return policy(cluster, {"resourceSelectors": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "", "namespace": "tenant" if not cluster else "",
         "labelSelector": {"matchLabels": {}, "matchExpressions": []}} for _ in range(n)]})


def as_update(r, old_spec_change):
    """`r` as an UPDATE whose oldObject is its object with `old_spec_change` applied to spec."""
    req = r["request"]
    old = json.loads(json.dumps(req["object"]))
    old["spec"].update(old_spec_change)
    req["operation"] = "UPDATE"
    req["oldObject"] = old
    req["options"] = {"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"}
    return r


def strict_violations(n):
    return {"placement": {"spreadConstraints": [{"spreadByField": "cluster"}] + [
        {"spreadByField": "planet-%d" % i} for i in range(n)]}}


def update_strict_changed(n, cluster):
    """UPDATE of a spec that changed elsewhere, with n strict (SC-4) violations: each is looked up
    in oldObject to ratchet it, up to the bound, and the rest deny."""
    return as_update(policy(cluster, strict_violations(n)), {"priority": 7})


def update_strict_unchanged(n, cluster):
    """UPDATE with n unchanged strict violations (only a label differs): all ratchet, as warnings."""
    r = as_update(policy(cluster, strict_violations(n)), {})
    r["request"]["oldObject"]["metadata"]["labels"]["team"] = "a"
    return r


def resource(kind_name, ns="tenant", name="web"):
    return {"apiVersion": "apps/v1", "kind": kind_name, "namespace": ns, "name": name}


def rebalancer(workloads):
    obj = {"apiVersion": "apps.karmada.io/v1alpha1", "kind": "WorkloadRebalancer",
           "metadata": {"name": "hostile"}, "spec": {"workloads": workloads}}
    return review(WR, obj)


def workloads_alike(n, _):
    """n identical workloads: a warning for each repeat."""
    return rebalancer([resource("Deployment") for _ in range(n)])


def workloads_invalid(n, _):
    """n workloads breaking every reference rule."""
    return rebalancer([{"apiVersion": "a/b/c", "kind": "1", "namespace": "Bad_NS"} for _ in range(n)])


def workloads_unique(n, _):
    """n distinct valid workloads."""
    return rebalancer([resource("Deployment", name="w%07d" % i) for i in range(n)])


def trigger(policies, resources):
    obj = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "ScheduleTrigger",
           "metadata": {"name": "hostile"}, "spec": {"targetRefPolicy": policies, "targetRefResource": resources}}
    return review(ST, obj)


def targets_alike(n, _):
    """n identical policy targets and n identical resource targets: a warning for each repeat."""
    return trigger([{"name": "p", "namespace": "tenant"} for _ in range(n)],
                   [resource("Deployment") for _ in range(n)])


def targets_invalid(n, _):
    """n invalid policy targets and n invalid resource targets."""
    return trigger([{"name": "Bad_Name", "namespace": "Bad_NS"} for _ in range(n)],
                   [{"apiVersion": "", "kind": "", "name": ""} for _ in range(n)])


def quota(overall, assignments):
    obj = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "FederatedResourceQuota",
           "metadata": {"name": "hostile", "namespace": "tenant"},
           "spec": {"overall": overall, "staticAssignments": assignments}}
    return review(FRQ, obj, "tenant")


def resources_invalid(n, _):
    """n resource names breaking Q-2 and Q-4, with negative fractional quantities (Q-5, Q-9), sorted
    before they are reported."""
    return quota({"bad~%07d" % (n - i): "-1.5" for i in range(n)}, [])


def assignments_alike(n, _):
    """n assignments to one cluster (D-Q1 for each repeat), summed for Q-9."""
    return quota({"cpu": "1"}, [{"clusterName": "member", "hard": {"cpu": "1m"}} for _ in range(n)])


def assignments_outside_overall(n, _):
    """n assignments, each with a resource overall lacks (Q-10) and one it has (a sum of n terms)."""
    return quota({"cpu": "1"}, [{"clusterName": "c%07d" % i, "hard": {"x.io/r%07d" % i: "1", "cpu": "1n"}}
                                for i in range(n)])


def resources_summed(n, _):
    """n resources in overall, each assigned to its own cluster: n exact sums, all valid."""
    return quota({"x.io/r%07d" % i: "1Gi" for i in range(n)},
                 [{"clusterName": "c%07d" % i, "hard": {"x.io/r%07d" % i: "1024Mi"}} for i in range(n)])
def taint_policy(taints):
    obj = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "ClusterTaintPolicy",
           "metadata": {"name": "hostile"}, "spec": {"taints": taints}}
    return review(CTP, obj)


def taints_alike(n, _):
    """n identical taints: T-2 for all but the last (a quadratic duplicate check's worst case)."""
    return taint_policy([{"key": "k", "effect": "NoSchedule"} for _ in range(n)])


def taints_invalid(n, _):
    """n taints breaking T-1 and every D-T1 taint check, all with one key and effect (T-2 too)."""
    return taint_policy([{"key": "Bad Key", "value": "bad value!", "effect": "NoExecute"} for _ in range(n)])


def taints_unique(n, _):
    """n distinct valid taints."""
    return taint_policy([{"key": "k%07d" % i, "effect": "NoSchedule"} for i in range(n)])


def override_policy(cluster, spec):
    """An OverridePolicy (namespace tenant) or a ClusterOverridePolicy with one ordinary selector
    and `spec` over it."""
    metadata = {"name": "hostile"}
    if not cluster:
        metadata["namespace"] = "tenant"
    base = {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "tenant",
                                   "name": "web"}]}
    base.update(spec)
    obj = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": COP[2] if cluster else OP[2],
           "metadata": metadata, "spec": base}
    return review(COP if cluster else OP, obj, None if cluster else "tenant")


def rule(overriders, target=None):
    r = {"overriders": overriders}
    if target is not None:
        r["targetCluster"] = target
    return r


def rules_many_labels(n, cluster):
    """n override rules, each adding 16 labels and 16 annotations (valid; keys in reverse order, so
    each map is sorted before it is judged)."""
    keys = {"example.com/k%02d" % (15 - i): "v" for i in range(16)}
    return override_policy(cluster, {"overrideRules": [
        rule({"labelsOverrider": [{"operator": "add", "value": keys}],
              "annotationsOverrider": [{"operator": "add", "value": keys}]},
             {"clusterNames": ["member%d" % (i % 8)]}) for i in range(n)]})


def labels_invalid_sorted(n, cluster):
    """One rule whose label and annotation maps hold n keys each, none a qualified name, in reverse
    order: O-5 and O-7 for every key, reported in sorted order (a sort: n log n), O-6 past 256 KiB."""
    keys = {"Bad~%07d" % (n - i): "v" for i in range(n)}
    return override_policy(cluster, {"overrideRules": [
        rule({"labelsOverrider": [{"operator": "add", "value": keys}],
              "annotationsOverrider": [{"operator": "add", "value": keys}]})]})


def field_overriders_many(n, cluster):
    """n field overriders, half JSON and half YAML ops, all valid."""
    return override_policy(cluster, {"overrideRules": [rule({"fieldOverrider": [
        {"fieldPath": "/data/c%07d" % i,
         ("json" if i % 2 else "yaml"): [{"subPath": "/a/b", "operator": "replace", "value": i}]}
        for i in range(n)]})]})


def field_ops_invalid(n, cluster):
    """One field overrider with n JSON and n YAML ops, each breaking O-13 and O-14 (and O-10 for the
    overrider): 2n+1 errors, capped."""
    ops = [{"subPath": "x", "operator": "add"} for _ in range(n)]
    return override_policy(cluster, {"overrideRules": [rule({"fieldOverrider": [
        {"fieldPath": "/data/x", "json": ops, "yaml": ops}]})]})


def cluster_selector_invalid(n, cluster):
    """spec.targetCluster.fieldSelector with n expressions, every one with a bad key and operator:
    O-1 and O-2 for each (every expression reported, so the error cap must bound the answer)."""
    return override_policy(cluster, {"targetCluster": {"fieldSelector": {"matchExpressions": [
        {"key": "k", "operator": "Gt", "values": ["1"]} for _ in range(n)]}}})


def rule_selectors_invalid(n, cluster):
    """n override rules, each with a target cluster's field selector of 8 bad expressions (O-19,
    O-20)."""
    target = {"fieldSelector": {"matchExpressions": [{"key": "k", "operator": "Gt"} for _ in range(8)]}}
    return override_policy(cluster, {"overrideRules": [rule({"plaintext": []}, target) for _ in range(n)]})


def legacy_overriders_invalid(n, cluster):
    """The legacy spec.overriders (beside a legacy targetCluster) with n plaintext ops and n image
    overriders, all invalid (D-O2, D-O3), and n bad label keys (O-7 under spec.overriders)."""
    return override_policy(cluster, {
        "targetCluster": {"clusterNames": ["member1"]},
        "overriders": {"plaintext": [{"path": "x", "operator": "add"} for _ in range(n)],
                       "imageOverrider": [{"component": "Tag", "operator": "replace",
                                           "predicate": {"path": "x"}} for _ in range(n)],
                       "labelsOverrider": [{"operator": "add",
                                            "value": {"Bad~%07d" % (n - i): "v" for i in range(n)}}]}})


def selectors_no_namespace(n, cluster):
    """n resource selectors without a namespace: OM-1 adds one op each (the patch grows with n, to
    its cap), O-21 denies each on the validating path (capped); a ClusterOverridePolicy admits them."""
    return override_policy(cluster, {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap"}
                                                           for _ in range(n)]})


def selectors_empty_namespace(n, cluster):
    """n resource selectors with namespace "" (OM-1 replaces each; O-21 for each)."""
    return override_policy(cluster, {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap",
                                                            "namespace": ""} for _ in range(n)]})


def identity_warnings(n, cluster):
    """n plaintext ops removing /kind: one identity-path warning each (~85 000 at 3 MiB; the warnings
    must be capped)."""
    return override_policy(cluster, {"overrideRules": [rule({"plaintext": [
        {"path": "/kind", "operator": "remove"} for _ in range(n)]})]})


def rules_explicit_empties(n, cluster):
    """n override rules whose overrider lists are all explicit empties: the mutator removes each
    (OM-2, two ops a rule, the patch to its cap)."""
    return override_policy(cluster, {"overrideRules": [rule({"plaintext": [], "imageOverrider": []})
                                                       for _ in range(n)]})


def binding(cluster, spec=None, annotations=None, labels=None):
    """A ResourceBinding (or ClusterResourceBinding) as the controllers write it, without its
    permanent id (so the mutating paths add one), with `spec` members and metadata added."""
    metadata = {"name": "hostile"}
    if not cluster:
        metadata["namespace"] = "tenant"
    if annotations:
        metadata["annotations"] = annotations
    if labels:
        metadata["labels"] = labels
    base = {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "replicas": 1, "clusters": [{"name": "member1", "replicas": 1}]}
    if not cluster:
        base["resource"]["namespace"] = "tenant"
    base.update(spec or {})
    kind = CRB if cluster else RB
    obj = {"apiVersion": "work.karmada.io/v1alpha2", "kind": kind[2], "metadata": metadata,
           "spec": base}
    return review(kind, obj, None if cluster else "tenant")


DEPENDENCIES = "resourcebinding.karmada.io/dependencies"


def reference(i):
    return {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "tenant", "name": "cm-%d" % i,
            "labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["a", "b"]}]}}


def components_alike(n, cluster):
    """n components with one name (RB-3 under MultiplePodTemplatesScheduling: n-1 repeats, each an
    error, capped; the names hashed, never compared pairwise)."""
    return binding(cluster, {"components": [{"name": "main", "replicas": 1} for _ in range(n)]})


def components_unique(n, cluster):
    """n components with distinct names (RB-3's hash table at its largest)."""
    return binding(cluster, {"components": [{"name": "c-%07d" % i, "replicas": 1}
                                            for i in range(n)]})


def components_unnamed(n, cluster):
    """n components without a name (RB-3: n `must be non-empty` errors, capped)."""
    return binding(cluster, {"components": [{"replicas": 1} for _ in range(n)]})


def dependencies_valid(n, cluster):
    """A dependencies annotation of n references with label selectors, valid: RB-1 decodes all of
    it, as Go's encoding/json would."""
    return binding(cluster, annotations={DEPENDENCIES: json.dumps([reference(i) for i in range(n)])})


def dependencies_bad_last(n, cluster):
    """The same, its last element a number: RB-1 scans to the end, then echoes the value cut."""
    return binding(cluster, annotations={
        DEPENDENCIES: json.dumps([reference(i) for i in range(n)] + [1])})


def dependencies_deep(n, cluster):
    """n references, each an unknown member nesting arrays 9 998 deep (10 000 in all, Go's limit):
    RB-1's scanner at its deepest, over and over."""
    deep = "[" * 9998 + "]" * 9998
    return binding(cluster, annotations={
        DEPENDENCIES: "[" + ",".join('{"x":%s}' % deep for _ in range(n)) + "]"})


def clusters_many(n, cluster):
    """n target clusters: a binding no rule reads beyond its metadata (decoding and the label)."""
    return binding(cluster, {"clusters": [{"name": "member-%07d" % i, "replicas": 1}
                                          for i in range(n)]})


def binding_many_labels(n, cluster):
    """n labels, none the permanent id: the mutators look the label up once among them."""
    return binding(cluster, labels={"l-%07d" % i: "v" for i in range(n)})


BINDING_SHAPES = [components_alike, components_unique, components_unnamed, dependencies_valid,
                  dependencies_bad_last, dependencies_deep, clusters_many, binding_many_labels]

DELETION_PROTECTED = "resourcetemplate.karmada.io/deletion-protected"
CM = ("", "v1", "ConfigMap", "configmaps")


def deletion(labels):
    """A DELETE of a ConfigMap whose oldObject carries `labels` (/validate-resourcedeletionprotection
    takes any kind and reads only oldObject)."""
    r = review(CM, {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "hostile", "namespace": "tenant", "labels": labels},
                    "data": {"key": "value"}}, "tenant")
    request = r["request"]
    request.update(operation="DELETE", oldObject=request["object"], object=None,
                   options={"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions"})
    return r


def protected_many_labels(n, _):
    """An oldObject of n labels, the protection label (Always) last: every key is read (and its
    duplicates looked for) before the one lookup; denied."""
    labels = {"k%07d" % i: "v" for i in range(n)}
    labels[DELETION_PROTECTED] = "Always"
    return deletion(labels)


def unprotected_many_labels(n, _):
    """The same n labels with the protection label's value `always` (which protects nothing):
    allowed."""
    labels = {"k%07d" % i: "v" for i in range(n)}
    labels[DELETION_PROTECTED] = "always"
    return deletion(labels)


# --- /convert: ConversionReviews (apiextensions.k8s.io/v1) of ResourceBindings ---------------------

V1ALPHA1 = "work.karmada.io/v1alpha1"
V1ALPHA2 = "work.karmada.io/v1alpha2"


def conversion(objects, desired=V1ALPHA2):
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": UID, "desiredAPIVersion": desired, "objects": objects}}


def binding_at(spec=None, status=None, metadata=None, version=V1ALPHA1, kind="ResourceBinding"):
    obj = {"apiVersion": version, "kind": kind,
           "metadata": metadata or {"name": "web-deployment", "namespace": "tenant"},
           "spec": spec or {"resource": {"apiVersion": "apps/v1", "kind": "Deployment",
                                         "namespace": "tenant", "name": "web", "replicas": 3}}}
    if status is not None:
        obj["status"] = status
    return obj


def convert_many_objects(n, _):
    """n ordinary bindings at v1alpha1 (resource, requests, two clusters, a condition), each
    converted to v1alpha2."""
    spec = {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "tenant", "name": "web",
                         "replicas": 3, "resourcePerReplicas": {"cpu": "250m", "memory": "64Mi"}},
            "clusters": [{"name": "member1", "replicas": 2}, {"name": "member2", "replicas": 1}]}
    status = {"conditions": [{"type": "Scheduled", "status": "True", "reason": "Success", "message": "ok",
                              "lastTransitionTime": "2026-01-02T03:04:05Z"}]}
    return conversion([binding_at(spec, status) for _ in range(n)])


def convert_many_clusters(n, _):
    """One binding with n target clusters (100 000 at 3 MiB)."""
    return conversion([binding_at({"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                                "clusters": [{"name": "m%d" % i, "replicas": 1} for i in range(n)]})])


def convert_empty_clusters(n, _):
    """One binding with n empty clusters: each `{}` is written `{"name":""}`, the answer's largest
    growth over the body."""
    return conversion([binding_at({"resource": {}, "clusters": [{} for _ in range(n)]})])


def convert_many_labels(n, _):
    """A binding with n labels in reverse order (the encoder sorts them) and n annotations."""
    labels = {"l%07d" % (n - i): "v" for i in range(n)}
    return conversion([binding_at(metadata={"name": "web", "namespace": "tenant", "labels": labels,
                                         "annotations": dict(labels)})])


def convert_many_quantities(n, _):
    """A binding (v1alpha2 to v1alpha1) whose resourceRequest holds n quantities none of which is
    canonical (each rewritten: 0.1 is 100m, 1.5Gi 1536Mi)."""
    request = {"example.com/r%07d" % (n - i): ("0.1" if i % 2 else "1.5Gi") for i in range(n)}
    return conversion([binding_at({"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                                "replicaRequirements": {"resourceRequest": request}}, version=V1ALPHA2)],
                      V1ALPHA1)


def convert_many_times(n, _):
    """n conditions whose times carry offsets and fractions (each parsed and written in UTC)."""
    return conversion([binding_at(status={"conditions": [
        {"type": "C%d" % i, "status": "True", "reason": "R", "message": "m",
         "lastTransitionTime": "2026-01-02T03:04:05.123456789+05:30"} for i in range(n)]})])


def convert_deep_status(n, _):
    """n aggregatedStatus items whose status (kept as it is) nests as deep as a review may (128
    levels in all: 119 inside each status)."""
    deep = {}
    for _ in range(119):
        deep = {"d": deep}
    return conversion([binding_at(status={"aggregatedStatus": [{"clusterName": "m%d" % i, "status": deep}
                                                            for i in range(n)]})])


def convert_unknown_keys(n, _):
    """A binding whose spec holds n keys neither version has (read and skipped)."""
    spec = {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}
    spec.update({"u%07d" % i: i for i in range(n)})
    return conversion([binding_at(spec)])


def convert_type_errors(n, _):
    """n clusters whose replicas are strings: the first type error is the answer (Failure), every
    other element is still read, as Go's decoder reads on."""
    return conversion([binding_at({"resource": {}, "clusters": [{"name": "m", "replicas": "1"} for _ in range(n)]})])


CONVERT_SHAPES = [convert_many_objects, convert_many_clusters, convert_empty_clusters, convert_many_labels,
                  convert_many_quantities, convert_many_times, convert_deep_status, convert_unknown_keys,
                  convert_type_errors]


def work(manifests):
    """A Work (namespace karmada-es-tenant, with its permanent ID) holding `manifests`."""
    obj = {"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
           "metadata": {"name": "hostile", "namespace": "karmada-es-tenant",
                        "labels": {"work.karmada.io/permanent-id": "0b0c7e4e-5f3a-4b8e-9d7e-2f1a3c4d5e6f"}},
           "spec": {"workload": {"manifests": manifests}}}
    return review(WORK, obj, "karmada-es-tenant")


def manifests_many(n, _):
    """n small ConfigMaps (10 000 and more at 3 MiB): each gets the Work's ID and both managed
    annotations (W-10…W-12), three ops a manifest, the patch to its cap."""
    return work([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c%07d" % i}}
                 for i in range(n)])


# One manifest of each kind a step prunes, with everything each step removes (W-3…W-9).
EVERY_STEP = [
    {"apiVersion": "apps/v1", "kind": "Deployment",
     "metadata": {"name": "d", "uid": "u", "resourceVersion": "1", "generation": 2, "finalizers": ["f"],
                  "annotations": {"deployment.kubernetes.io/revision": "3", "deployment.kubernetes.io/revision-history": "1",
                                  "a": "1"}},
     "status": {"replicas": 1}},
    {"apiVersion": "batch/v1", "kind": "Job",
     "metadata": {"name": "j", "creationTimestamp": "2024-01-01T00:00:00Z", "labels": {"app": "j"}},
     "spec": {"parallelism": 1, "ttlSecondsAfterFinished": 5,
              "selector": {"matchLabels": {"controller-uid": "u", "batch.kubernetes.io/controller-uid": "u"}},
              "template": {"metadata": {"labels": {"controller-uid": "u", "job-name": "j",
                                                   "batch.kubernetes.io/controller-uid": "u",
                                                   "batch.kubernetes.io/job-name": "j"}},
                           "spec": {"containers": [{"name": "c", "image": "i",
                                                    "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
                                    "restartPolicy": "Never"}}}},
    {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token", "data": {"token": "eA=="},
     "metadata": {"name": "s", "annotations": {"kubernetes.io/service-account.uid": "u"}}},
    {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa", "managedFields": []},
     "secrets": [{"name": "sa-token-a"}, {"name": "sa-token-b"}, {"name": "sa-dockercfg"}]},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "selfLink": "x"},
     "spec": {"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"]}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
     "metadata": {"name": "p", "ownerReferences": [], "annotations": {"volume.kubernetes.io/selected-node": "n"}}},
]


def manifests_every_step(n, _):
    """6n manifests, n of each of the six kinds W-4…W-9 prune, every step firing on each."""
    return work([m for _ in range(n) for m in EVERY_STEP])


def manifest_keys_many(n, _):
    """One Deployment with n labels and n annotations in reverse order: W-10 and W-12 sort them
    (n log n), W-4 removes two of them."""
    keys = {"example.com/k%07d" % (n - i): "v" for i in range(n)}
    annotations = dict(keys, **{"deployment.kubernetes.io/revision": "1"})
    return work([{"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "d", "labels": keys, "annotations": annotations}}])


def manifest_nulls_many(n, _):
    """One manifest whose n labels and n annotations are null: upstream writes them back as "";
    each map is rewritten by one op, not one per key."""
    keys = {"k%07d" % i: None for i in range(n)}
    return work([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": keys,
                                                                         "annotations": keys}}])


def token_secrets_many(n, _):
    """One ServiceAccount with n token secrets: W-7 removes each (n ops, the patch to its cap)."""
    return work([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"},
                  "secrets": [{"name": "sa-token-%07d" % i} for i in range(n)]}])


def job_containers_many(n, _):
    """One Job with n containers, each field of each one typed: W-5 decodes it all as batch/v1."""
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", "true"],
                 "ports": [{"containerPort": 80, "protocol": "TCP"}],
                 "env": [{"name": "A", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}}],
                 "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": 0.1}},
                 "livenessProbe": {"httpGet": {"port": "http", "path": "/"}, "periodSeconds": 10},
                 "securityContext": {"runAsUser": 1000, "readOnlyRootFilesystem": True}}
    return work([{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                  "spec": {"template": {"metadata": {"creationTimestamp": "2024-01-02T03:04:05Z"},
                                        "spec": {"containers": [container] * n}}}}])


def manifests_deep(n, _):
    """2n manifests: n Jobs whose template carries an unknown field nested 100 levels deep (legal:
    the reader's limit is 128) and n ConfigMaps as deep."""
    deep = "x"
    for _ in range(100):
        deep = {"a": deep}
    pair = [{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
             "spec": {"template": {"spec": {"containers": [{"name": "c", "deep": deep}]}}}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": deep}]
    return work([m for _ in range(n) for m in pair])


WORK_SHAPES = [manifests_many, manifests_every_step, manifest_keys_many, manifest_nulls_many,
               token_secrets_many, job_containers_many, manifests_deep]

OVERRIDE_SHAPES = [rules_many_labels, labels_invalid_sorted, field_overriders_many, field_ops_invalid,
                   cluster_selector_invalid, rule_selectors_invalid, legacy_overriders_invalid,
                   selectors_no_namespace, selectors_empty_namespace, identity_warnings,
                   rules_explicit_empties]

POLICY_SHAPES = [affinity_names_unique, affinity_names_alike, affinity_names_invalid, overflow_names_alike,
                 empty_selectors, unnamed_deployments, spread_constraints_alike, spread_constraints_bare,
                 field_selector_invalid, tolerations_lt, state_preservation_invalid, wrong_types, long_strings,
                 many_labels, many_unknown_keys, deep_nesting, explicit_empties, update_strict_changed,
                 update_strict_unchanged]

def multi_cluster_service(spec, labels=None):
    obj = {"apiVersion": "networking.karmada.io/v1alpha1", "kind": "MultiClusterService",
           "metadata": {"name": "hostile", "namespace": "tenant", "labels": labels or {}},
           "spec": spec}
    return review(MCS, obj, "tenant")


def ports_alike(n, _):
    """n ports of one name (MCS-2: a Duplicate for every repeat, a quadratic check's worst case)."""
    return multi_cluster_service({"types": ["CrossCluster"],
                                  "ports": [{"name": "http", "port": 80} for _ in range(n)]})


def ports_invalid(n, _):
    """n ports breaking MCS-2 (a dotted name: the label check, then the subdomain one) and MCS-3."""
    return multi_cluster_service({"types": ["CrossCluster"],
                                  "ports": [{"name": "p.%07d" % i, "port": 70000 + i}
                                            for i in range(n)]})


def types_many(n, _):
    """n types alternating two valid values and an invalid one (MCS-4 each, MCS-5 with the whole
    list as its value)."""
    return multi_cluster_service({"types": [("CrossCluster", "LoadBalancer", "Bad")[i % 3]
                                            for i in range(n)]})


def clusters_invalid(n, _):
    """n provider and n consumer clusters whose names break MCS-6 (dots, upper case, too long)."""
    return multi_cluster_service({"types": ["CrossCluster"],
                                  "providerClusters": [{"name": "M.%07d" % i} for i in range(n)],
                                  "consumerClusters": [{"name": "m" * 49} for _ in range(n)]})


def mcs_explicit_empties(n, _):
    """n ports with an explicit empty name (MCS-M2 drops each) beside empty lists."""
    return multi_cluster_service({"types": ["CrossCluster"], "providerClusters": [],
                                  "ports": [{"name": "", "port": 80} for _ in range(n)]})


MCS_SHAPES = [ports_alike, ports_invalid, types_many, clusters_invalid, mcs_explicit_empties]


def multi_cluster_ingress(spec):
    obj = {"apiVersion": "networking.karmada.io/v1alpha1", "kind": "MultiClusterIngress",
           "metadata": {"name": "hostile", "namespace": "tenant"}, "spec": spec}
    return review(MCI, obj, "tenant")


def ingress_paths_invalid(n, _):
    """n paths each breaking every MCI-7 check (relative, all five sequences, a bad suffix) with a
    backend breaking MCI-4 (a bad service name, a port name breaking all five port-name rules)."""
    backend = {"service": {"name": "1svc", "port": {"name": "-HTTP--PORT-NAME-XX"}}}
    return multi_cluster_ingress({"rules": [{"host": "shop.example.com", "http": {"paths": [
        {"path": "a//b/./c/../%2f%2F/..", "pathType": "Prefix", "backend": backend}
        for _ in range(n)]}}]})


def ingress_hosts_invalid(n, _):
    """n rules whose hosts are IPv6 addresses with a trailing IPv4 (the IP parser's longest path)
    and n TLS hosts that are bad wildcards."""
    return multi_cluster_ingress({"rules": [{"host": "1:2:3:4:5:6:%d.%d.%d.%d" % (i % 256, 2, 3, 4)}
                                            for i in range(n)],
                                  "tls": [{"hosts": ["*.Bad%d" % i for i in range(n)]}]})


def ingress_paths_valid(n, _):
    """n valid paths with resource backends: the whole walk, nothing to report."""
    return multi_cluster_ingress({"rules": [{"host": "shop.example.com", "http": {"paths": [
        {"path": "/p%07d" % i, "pathType": "Exact",
         "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "Bucket", "name": "b%d" % i}}}
        for i in range(n)]}}]})


MCI_SHAPES = [ingress_paths_invalid, ingress_hosts_invalid, ingress_paths_valid]


def interpreter_webhooks(hooks):
    obj = {"apiVersion": "config.karmada.io/v1alpha1",
           "kind": "ResourceInterpreterWebhookConfiguration", "metadata": {"name": "hostile"},
           "webhooks": hooks}
    return review(RIWC, obj)


def webhooks_alike(n, _):
    """n webhooks of one name (RIWC-2 for every repeat: a quadratic check's worst case), each with
    a URL breaking every RIWC-9 check that parses."""
    return interpreter_webhooks([{"name": "w.example.com",
                                  "clientConfig": {"url": "http://u:p@/x?q=1#f"},
                                  "interpreterContextVersions": ["v1alpha1"]} for _ in range(n)])


def webhook_lists_long(n, _):
    """One webhook whose rule lists and versions hold n items each: '*' among others, empty kinds,
    unsupported operations, repeated versions (RIWC-3…RIWC-6, RIWC-11)."""
    return interpreter_webhooks([{"name": "w.example.com",
                                  "clientConfig": {"service": {"name": "s", "namespace": "n",
                                                               "path": "/" + "a/" * n}},
                                  "interpreterContextVersions": ["v1alpha1"] * n,
                                  "rules": [{"operations": ["*"] + ["Prune"] * n,
                                             "apiGroups": ["*"] * n, "apiVersions": ["*"] + [""] * n,
                                             "kinds": [""] * n}]}])


def webhook_urls_long(n, _):
    """n webhooks whose URLs are long, escaped and bracketed (the URL parser's longest paths)."""
    return interpreter_webhooks([{"name": "w%d.example.com" % i,
                                  "clientConfig": {"url": "https://[2001:db8::%x]:8443/%s%%zz" % (
                                      i % 65536, "p%41/" * 20)},
                                  "interpreterContextVersions": ["v1alpha1"]} for i in range(n)])


RIWC_SHAPES = [webhooks_alike, webhook_lists_long, webhook_urls_long]

def federated_hpa(spec):
    obj = {"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "FederatedHPA",
           "metadata": {"name": "hostile", "namespace": "tenant"},
           "spec": dict({"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                            "name": "web"}, "maxReplicas": 10}, **spec)}
    return review(FHPA, obj, "tenant")


def fh_metrics_invalid(n, _):
    """n metrics each breaking many rules: type Pods with an object source too (FH-8, FH-9), the
    object judged: a bad described object (FH-10), a bad metric name, a selector breaking D-H2, a
    target of an unknown type with negative quantities (FH-14)."""
    return federated_hpa({"metrics": [{"type": "Pods", "object": {
        "describedObject": {"kind": "..", "name": "a/b%"}, "metric": {"name": "m/%", "selector": {
            "matchLabels": {"Bad Key": "bad value"}, "matchExpressions": [
                {"key": "a/b/c", "operator": "Equals", "values": ["x y"]}]}},
        "target": {"type": "Bad", "value": "-1.5Gi", "averageValue": "-0.5"}},
        "resource": {"name": "", "target": {"type": ""}}} for _ in range(n)]})


def fh_metrics_valid(n, _):
    """n valid metrics of the four sources (50 000 in 3 MiB): the whole walk, nothing to report;
    the mutator rewrites every quantity ("1000m" is "1")."""
    kinds = [{"type": "Resource", "resource": {"name": "cpu", "target": {
                 "type": "Utilization", "averageUtilization": 60}}},
             {"type": "Pods", "pods": {"metric": {"name": "rps", "selector": {"matchLabels": {
                 "app": "web"}}}, "target": {"type": "AverageValue", "averageValue": "1000m"}}},
             {"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "web"},
                 "metric": {"name": "rps"}, "target": {"type": "Value", "value": "0.5"}}},
             {"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app",
                 "target": {"type": "AverageValue", "averageValue": "512Mi"}}}]
    return federated_hpa({"metrics": [kinds[i % 4] for i in range(n)]})


def fh_policies_invalid(n, _):
    """behavior with n policies in each direction, each breaking every FH-15 check, a negative
    tolerance (D-H1), and the defaults to fill in."""
    bad = [{"type": "X", "value": 0, "periodSeconds": 1801} for _ in range(n)]
    return federated_hpa({"behavior": {"scaleUp": {"policies": bad, "tolerance": "-1"},
                                       "scaleDown": {"policies": bad, "selectPolicy": "Foo"}}})


FHPA_SHAPES = [fh_metrics_invalid, fh_metrics_valid, fh_policies_invalid]
def cron_hpa(rules, ref=None):
    obj = {"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "CronFederatedHPA",
           "metadata": {"name": "hostile", "namespace": "default"},
           "spec": {"scaleTargetRef": ref or {"apiVersion": "autoscaling.karmada.io/v1alpha1",
                                              "kind": "FederatedHPA", "name": "web"},
                    "rules": rules}}
    return review(CFH, obj, namespace="default")


def cron_rules_alike(n, _):
    """n rules of one name (CFH-4 for every repeat), each schedule valid for gronx up to its last
    item (every item read: D-C1), an unknown time zone and no replicas (CFH-5, CFH-6, CFH-7)."""
    return cron_hpa([{"name": "r", "schedule": "0-59/7,1,2,3 0-23 1-31,L 1-12 0-7,99",
                      "timeZone": "Mars/Olympus_Mons"} for _ in range(n)])


def cron_schedules_long(n, _):
    """Two rules whose day-of-month fields hold n items: one valid for gronx but not for the
    controller (a last `0`, D-C2 reads every item too), one with a bad item last (CFH-5)."""
    days = ",".join(str(1 + i % 31) for i in range(n))
    return cron_hpa([{"name": "a", "schedule": "0 8 %s,0 * *" % days, "targetMinReplicas": 1},
                     {"name": "b", "schedule": "0 8 %s,32 * *" % days, "targetMinReplicas": 1}])


def cron_time_zones_many(n, _):
    """n rules with time zones: known names (binary search over the built-in list), names with
    `..`, and unknown ones, each a distinct error text; weekday ranges `7-…` and a Deployment
    target without targetReplicas (CFH-11)."""
    zones = ["America/Argentina/Buenos_Aires", "right/Europe/Berlin", "Zone/../x", "Zone/%d"]
    return cron_hpa([{"name": "r%d" % i, "schedule": "0 8 * * 7-7,7-6,SUN-SAT",
                      "timeZone": zones[i % 4] % i if "%d" in zones[i % 4] else zones[i % 4]}
                     for i in range(n)],
                    ref={"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"})


def cron_names_long(n, _):
    """One rule whose time zone and the reference's kind are n bytes each (CFH-6, CFH-11 quote
    them in their details: cut as echoed values; kept whole, the one error was too long to show
    and the review was allowed)."""
    return cron_hpa([{"name": "r", "schedule": "0 8 * * *", "timeZone": "Zone/" + "z" * n}],
                    ref={"apiVersion": "apps/v1", "kind": "K" * n, "name": "web"})


CFH_SHAPES = [cron_rules_alike, cron_schedules_long, cron_time_zones_many, cron_names_long]
def interpreter_customization(customizations):
    obj = {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
           "metadata": {"name": "hostile"},
           "spec": {"target": {"apiVersion": "apps.example.io/v1", "kind": "Workload"},
                    "customizations": {k: {"luaScript": v} for k, v in customizations.items()}}}
    return review(RIC, obj)


LUA_FUNCTION = """function F%d(desired, items)
  local replicas = 0
  for i = 1, #items do
    if items[i].status == nil then goto continue end
    replicas = replicas + items[i].status.replicas
    ::continue::
  end
  desired.status = {replicas = replicas, name = 'f%d'}
  return desired
end
"""

RIC_OPERATIONS = ["retention", "replicaResource", "componentResource", "replicaRevision",
                  "statusReflection", "statusAggregation", "healthInterpretation",
                  "dependencyInterpretation"]


def lua_functions_long(n, _):
    """n realistic functions dealt over the eight scripts, the last (InterpretDependency, judged
    last) broken at its very end: every script is parsed and compiled whole (RIC-2's longest
    work)."""
    scripts = {op: "" for op in RIC_OPERATIONS}
    for i in range(n):
        scripts[RIC_OPERATIONS[i % 8]] += LUA_FUNCTION % (i, i)
    scripts["dependencyInterpretation"] += "x = 1 & 2\n"
    return interpreter_customization(scripts)


def lua_nesting_deep(n, _):
    """n statements each nested 49 closures in tables in parentheses deep (just under Lua's 200 C
    levels), then one nested 1 000 levels: answered at Lua's limit, after the n."""
    deep = "x = " + "({function() return " * 49 + "1" + " end})" * 49 + "\n"
    return interpreter_customization({"retention": deep * n + "y = " + "(" * 1000 + "1"})


def lua_constants_many(n, _):
    """One table of n distinct number constants (Lua's constant table and its memory): past the
    64 MiB cap at 3 MiB, a clear message."""
    return interpreter_customization({"statusReflection": "t = {" + ",".join(
        "1%06d.5" % i for i in range(n)) + "}"})


RIC_SHAPES = [lua_functions_long, lua_nesting_deep, lua_constants_many]

# (webhook path, cluster-scoped policy?, shapes)
CATALOGUE = [
    ("/validate-propagationpolicy", False, POLICY_SHAPES),
    ("/mutate-propagationpolicy", False, POLICY_SHAPES),
    ("/validate-clusterpropagationpolicy", True, POLICY_SHAPES),
    ("/mutate-clusterpropagationpolicy", True, POLICY_SHAPES),
    ("/validate-workloadrebalancer", None, [workloads_alike, workloads_invalid, workloads_unique]),
    ("/mutate-workloadrebalancer", None, [workloads_alike, workloads_invalid, workloads_unique]),
    ("/validate-scheduletrigger", None, [targets_alike, targets_invalid]),
    ("/mutate-scheduletrigger", None, [targets_alike, targets_invalid]),
    ("/validate-federatedresourcequota", None,
     [resources_invalid, assignments_alike, assignments_outside_overall, resources_summed]),
    ("/validate-clustertaintpolicy", None, [taints_alike, taints_invalid, taints_unique]),
    ("/validate-overridepolicy", False, OVERRIDE_SHAPES),
    ("/mutate-overridepolicy", False, OVERRIDE_SHAPES),
    ("/validate-clusteroverridepolicy", True, OVERRIDE_SHAPES),
    # RB-3's shapes count only under --feature-gates=MultiplePodTemplatesScheduling=true, which the
    # hostile e2e server and the worst-case bench turn on.
    ("/validate-resourcebinding", False, BINDING_SHAPES),
    ("/mutate-resourcebinding", False, BINDING_SHAPES),
    ("/mutate-clusterresourcebinding", True,
     [components_alike, dependencies_valid, clusters_many, binding_many_labels]),
    ("/validate-resourcedeletionprotection", None, [protected_many_labels, unprotected_many_labels]),
    ("/convert", None, CONVERT_SHAPES),
    ("/mutate-work", None, WORK_SHAPES),
    ("/validate-multiclusteringress", None, MCI_SHAPES),
    ("/validate-resourceinterpreterwebhookconfiguration", None, RIWC_SHAPES),
    ("/validate-cronfederatedhpa", None, CFH_SHAPES),
    ("/validate-resourceinterpretercustomization", None, RIC_SHAPES),
    ("/validate-multiclusterservice", None, MCS_SHAPES),
    ("/mutate-multiclusterservice", None, MCS_SHAPES),
    ("/validate-federatedhpa", None, FHPA_SHAPES),
    ("/mutate-federatedhpa", None, FHPA_SHAPES),
]


def shape_name(shape) -> str:
    return shape.__name__.replace("_", "-")


def encode(r) -> bytes:
    return json.dumps(r, separators=(",", ":")).encode()


def build(shape, cluster, size: int) -> bytes:
    """The body of `shape` whose size is the largest not above `size` (sizes grow linearly in n)."""
    one, two = len(encode(shape(1, cluster))), len(encode(shape(2, cluster)))
    step = max(1, two - one)
    n = max(1, (size - one) // step + 1)
    body = encode(shape(n, cluster))
    while len(body) > size and n > 1:
        n -= max(1, (len(body) - size) // step)
        body = encode(shape(n, cluster))
    return body


def catalogue():
    """(path, shape name, shape, cluster) for every body."""
    for path, cluster, shapes in CATALOGUE:
        for shape in shapes:
            yield path, shape_name(shape), shape, cluster


def bodies(sizes=SIZES, paths=None):
    """(path, shape name, size, body) for every shape of every path at every size."""
    for path, name, shape, cluster in catalogue():
        if paths is not None and path not in paths:
            continue
        for size in sizes:
            yield path, name, size, build(shape, cluster, size)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="directory to write <path>/<shape>-<size>.json into")
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES),
                        help="body sizes in bytes, comma-separated")
    parser.add_argument("--list", action="store_true", help="print 'path shape' lines and exit")
    args = parser.parse_args(argv)
    if args.list:
        for path, name, _, _ in catalogue():
            print(path, name)
        return 0
    if not args.out:
        parser.error("--out or --list is required")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    for path, name, size, body in bodies(sizes):
        folder = os.path.join(args.out, path.strip("/"))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "%s-%d.json" % (name, size)), "wb") as f:
            f.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
