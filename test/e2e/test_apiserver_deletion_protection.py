#!/usr/bin/env python3
"""Deletion protection (RDP-1) behind a real kube-apiserver, registered with our generated url overlay.

The API server (test/e2e/kube.py) gets Karmada's CRDs and our manifests as a user applies them
(`api.register`): the ValidatingWebhookConfiguration's entry for /validate-resourcedeletionprotection
takes DELETE of any kind (`*/*/*`, scope `*`) of objects carrying the label
resourcetemplate.karmada.io/deletion-protected (objectSelector, Exists). Then, for a Namespace, a
ConfigMap and a custom object (a PropagationPolicy):

- labelled `Always`, `kubectl delete` is refused and kubectl prints upstream's line,
  `Error from server (Forbidden): admission webhook "<our entry>" denied the request: <upstream's
  message>` (the answer carries reason Forbidden); the object stays;
- labelled `always` (the comparison is case-sensitive) or not labelled, it is deleted;
- once the label is removed (`kubectl label ... key-`), it is deleted;
- our /metrics counted one review per DELETE of a labelled object and none for the unlabelled ones
  (the objectSelector keeps them from us); the refused ones as denied DELETEs
  (`karmada_policy_webhook_admission_total{allowed="false"}`) and as RDP-1 denials
  (`karmada_policy_webhook_rule_violations_total{rule="RDP-1",action="deny"}`), and our log (`-v 2`)
  has an `admission denied` line naming RDP-1 for each, as for every other denial.

    test_apiserver_deletion_protection.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

PATH = "/validate-resourcedeletionprotection"
ENTRY = "resourcedeletionprotection.karmada-policy-webhook.karmada.io"
LABEL = "resourcetemplate.karmada.io/deletion-protected"
MESSAGE = "This resource is protected, please make sure to remove the label: " + LABEL
DENIED = 'Error from server (Forbidden): admission webhook "%s" denied the request: %s' % (
    ENTRY, MESSAGE)

# (resource for kubectl, namespace or None, a manifest without metadata.name and labels)
KINDS = [
    ("namespaces", None, {"apiVersion": "v1", "kind": "Namespace"}),
    ("configmaps", "default", {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}}),
    ("propagationpolicies.policy.karmada.io", "default",
     {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
      "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                      "name": "web"}]}}),
]


def short(resource):
    return resource.split(".")[0][:-1]   # "namespace", "configmap", "propagationpolicie"


def create(api, resource, namespace, manifest, name, label_value):
    obj = dict(manifest, metadata={"name": name})
    if namespace:
        obj["metadata"]["namespace"] = namespace
    if label_value is not None:
        obj["metadata"]["labels"] = {LABEL: label_value}
    api.kubectl("create", "-f", "-", input=obj)


def where(namespace):
    return ["-n", namespace] if namespace else []


def delete(api, resource, namespace, name):
    # --wait=false: envtest runs no controllers, so a Namespace (finalizer kubernetes) and a
    # PropagationPolicy (our mutator's finalizer) stay Terminating once the DELETE is admitted.
    return api.kubectl("delete", resource, name, "--wait=false", *where(namespace), check=False)


def state(api, resource, namespace, name) -> str:
    """"present", "terminating" (the DELETE was admitted) or "gone"."""
    proc = api.kubectl("get", resource, name, "-o", "jsonpath={.metadata.deletionTimestamp}",
                       *where(namespace), check=False)
    if proc.returncode != 0:
        check("NotFound" in proc.stderr, "kubectl get %s %s: %s", resource, name, proc.stderr)
        return "gone"
    return "terminating" if proc.stdout.strip() else "present"


def test_always_cannot_be_deleted(api, env):
    problems = []
    for resource, namespace, manifest in KINDS:
        name = "rdp-%s-always" % short(resource)
        create(api, resource, namespace, manifest, name, "Always")
        proc = delete(api, resource, namespace, name)
        if proc.returncode == 0 or DENIED not in proc.stderr:
            problems.append("%s %s: kubectl delete exited %d: %s%s (want %r)" % (
                resource, name, proc.returncode, proc.stdout, proc.stderr, DENIED))
        elif state(api, resource, namespace, name) != "present":
            problems.append("%s %s: denied, yet %s" % (resource, name,
                                                       state(api, resource, namespace, name)))
        else:
            print("  %-40s %s" % (resource, proc.stderr.strip()[:160]), flush=True)
        env.reviews += 1
        env.denials += 1
    check(not problems, "\n  ".join(problems))


def test_always_lowercase_or_unlabelled_can_be_deleted(api, env):
    problems = []
    for resource, namespace, manifest in KINDS:
        for value in ("always", None):
            name = "rdp-%s-%s" % (short(resource), "lowercase" if value else "unlabelled")
            create(api, resource, namespace, manifest, name, value)
            proc = delete(api, resource, namespace, name)
            got = state(api, resource, namespace, name)
            if proc.returncode != 0 or got == "present":
                problems.append("%s %s: kubectl delete exited %d (%s), the object %s" % (
                    resource, name, proc.returncode, proc.stderr.strip(), got))
            env.reviews += value is not None
    check(not problems, "\n  ".join(problems))


def test_removing_the_label_then_deleting_works(api, env):
    problems = []
    for resource, namespace, _ in KINDS:
        name = "rdp-%s-always" % short(resource)
        api.kubectl("label", resource, name, LABEL + "-", *where(namespace))
        proc = delete(api, resource, namespace, name)
        got = state(api, resource, namespace, name)
        if proc.returncode != 0 or got == "present":
            problems.append("%s %s: kubectl delete exited %d (%s), the object %s" % (
                resource, name, proc.returncode, proc.stderr.strip(), got))
    check(not problems, "\n  ".join(problems))


def test_only_labelled_deletes_reach_us(api, env):
    """One review per DELETE of a labelled object; the unlabelled ones never reach us."""
    samples = harness.scrape_metrics(env.webhook.metrics_port)
    got = harness.metric_sum(samples, "controller_runtime_webhook_requests_total", webhook=PATH)
    check(got == env.reviews, "%s answered %d requests, %d DELETEs of labelled objects were sent",
          PATH, got, env.reviews)


def test_denials_are_counted_and_logged(api, env):
    """A refused DELETE is a denial like any other: counted by verdict and by rule, and logged."""
    samples = harness.scrape_metrics(env.webhook.metrics_port)
    denied = harness.metric_sum(samples, "karmada_policy_webhook_admission_total", webhook=PATH,
                                operation="DELETE", allowed="false")
    by_rule = harness.metric_sum(samples, "karmada_policy_webhook_rule_violations_total",
                                 webhook=PATH, rule="RDP-1", action="deny")
    logged = [l for l in env.webhook.stderr().splitlines()
              if "admission denied" in l and PATH in l and "RDP-1" in l]
    check(denied == env.denials and by_rule == env.denials and len(logged) == env.denials,
          "%d DELETEs were refused: admission_total{allowed=false} %d, rule_violations_total"
          "{rule=RDP-1,action=deny} %d, %d `admission denied` log lines naming RDP-1",
          env.denials, denied, by_rule, len(logged))


def run(args, api):
    certs = harness.make_certs(args.source)
    t0 = time.monotonic()
    with harness.Server(args.binary, certs, "-v", "2") as webhook:
        api.register(webhook)
        env = type("Env", (), {"webhook": webhook, "reviews": 0, "denials": 0})
        try:
            status = harness.run_tests([test_always_cannot_be_deleted,
                                        test_always_lowercase_or_unlabelled_can_be_deleted,
                                        test_removing_the_label_then_deleting_works,
                                        test_only_labelled_deletes_reach_us,
                                        test_denials_are_counted_and_logged], api, env)
        finally:
            api.unregister()
    print("deletion protection through the API server: %.1f s (webhook registered to stopped)"
          % (time.monotonic() - t0), flush=True)
    return status


if __name__ == "__main__":
    kube.main(run)
