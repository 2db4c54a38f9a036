#!/usr/bin/env python3
"""/mutate-work against upstream's own karmada-webhook (../shared/upstream), on its own and behind
a real kube-apiserver (docs/compatibility.md, "Work").

1. Every fixture of test/fixtures/mutate-work is posted to upstream's binary. A fixture whose
   description says it differs on purpose must still differ (upstream's verdict, or the object its
   patch makes, is not the fixture's); every other one must be upstream's answer: the same verdict
   and, applied, upstream's patch makes the fixture's object (but for upstream's `status: {}`,
   which the API server drops).
2. Works are created through kube-apiserver with upstream's webhook registered, then with ours
   (a configuration of one entry each, pointing at /mutate-work): the same verdicts and the same
   stored objects (UUIDs aside), but for the differences listed below, each of which must still
   differ.

    test_apiserver_work_parity.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import copy
import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fixture_check  # noqa: E402
import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402
from test_apiserver_switch_day import HOW_TO_GET_UPSTREAM, Upstream  # noqa: E402

PATH = "/mutate-work"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
ID = {"work.karmada.io/permanent-id": "11111111-2222-4333-8444-555555555555"}


def post(port: int, ca: str, body: bytes) -> dict:
    request = urllib.request.Request("https://127.0.0.1:%d%s?timeout=10s" % (port, PATH), data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=ca),
                                timeout=15) as resp:
        return json.loads(resp.read())["response"]


def test_fixtures_are_upstream_answers(env):
    """Each fixture against upstream's live handler."""
    root = os.path.join(env.source, "test", "fixtures", PATH.lstrip("/"))
    agree = differ = 0
    problems = []
    for name in sorted(os.listdir(root)):
        fixture = fixture_check.load_fixture(os.path.join(root, name))
        review = copy.deepcopy(fixture["review"])
        review["apiVersion"] = "admission.k8s.io/v1"  # upstream's entries take v1 only
        response = post(env.upstream.port, env.upstream.ca, json.dumps(review).encode())
        expect = fixture["expect"]
        got = []
        if response.get("allowed") != expect["allowed"]:
            got.append("allowed %s (code %s: %s), the fixture %s" % (
                response.get("allowed"), response.get("status", {}).get("code"),
                response.get("status", {}).get("message"), expect["allowed"]))
        elif not expect["allowed"] and response.get("status", {}).get("code") != expect["code"]:
            got.append("code %s (%s), the fixture %d" % (response.get("status", {}).get("code"),
                                                         response.get("status", {}).get("message"),
                                                         expect["code"]))
        elif expect["allowed"]:
            ops = json.loads(base64.b64decode(response["patch"])) if "patch" in response else []
            obj = fixture_check.apply_patch(review["request"]["object"], ops)
            if obj.get("status") == {} and "status" not in review["request"]["object"]:
                del obj["status"]  # upstream's artefact (W-13)
            got = fixture_check._same(expect["object"], obj)
        if "differs" in fixture["description"]:
            differ += 1
            if not got:
                problems.append("%s: listed as a difference, but upstream answers the same" % name)
        else:
            agree += 1
            problems += ["%s: %s" % (name, p) for p in got]
    check(not problems, "\n  ".join(problems))
    env.note = "%d fixtures upstream's answers, %d listed differences still differ" % (agree, differ)


def work(name, manifests, labels=None, spec=True):
    w = {"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
         "metadata": {"name": name, "namespace": "default"}}
    if labels is not None:
        w["metadata"]["labels"] = dict(labels)
    if spec:
        w["spec"] = {"workload": {"manifests": manifests}}
    return w


def cm(**metadata):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}


# name -> (manifests (None: no spec), the Work's labels)
WORKS = {
    "empty": ([], ID),
    "no-labels": ([cm(name="a")], None),
    "null-values": ([cm(name="a", labels={"a": None}, annotations={"x": None})], ID),
    "bad-label-map": ([cm(name="a", labels={"a": 1, "b": "c"})], ID),
    "null-metadata": ([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": None}], ID),
    "deployment": ([{"apiVersion": "apps/v1", "kind": "Deployment",
                     "metadata": {"name": "d", "uid": "u",
                                  "annotations": {"deployment.kubernetes.io/revision": 1, "a": "b"}},
                     "status": {"replicas": 1}}], ID),
    "token-secret": ([{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
                       "metadata": {"name": "s", "annotations": {"kubernetes.io/service-account.uid": "u"}}}], ID),
    "one-token": ([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"},
                    "secrets": [{"name": "o"}, {"name": "sa-token-1"}]}], ID),
    "two-tokens": ([{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"},
                     "secrets": [{"name": "sa-token-0"}, {"name": "sa-token-1"}]}], ID),
    "job": ([{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
              "spec": {"ttlSecondsAfterFinished": 1,
                       "template": {"metadata": {"labels": {"job-name": "j", "app": "j"}},
                                    "spec": {"containers": [{"name": "c", "image": "i"}],
                                             "restartPolicy": "Never"}}}}], ID),
    "service": ([{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                  "spec": {"clusterIP": "10.0.0.9", "clusterIPs": ["10.0.0.9"], "ports": [{"port": 80}]}}], ID),
    "no-spec": (None, ID),
    "job-not-batch-v1": ([{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                           "spec": {"parallelism": "x"}}], ID),
    "string-manifest": (["x"], ID),
    "no-kind": ([{"apiVersion": "v1", "metadata": {"name": "a"}}], ID),
}
# Still different on purpose (docs/compatibility.md, "Work"): name -> why.
DIFFERENCES = {
    "two-tokens": "W-7: every token secret removed (upstream skips one)",
    "job-not-batch-v1": "W-5: 400 naming the field (upstream 500)",
    "string-manifest": "W-2: 400 naming the manifest (upstream 500)",
    "no-kind": "W-2: 400 naming the kind (upstream 500)",
}


def create_all(api, port: int, ca: str, tag: str) -> dict:
    """The Works created with one webhook registered: name -> (HTTP status, stored object or the
    message)."""
    with open(ca, "rb") as f:
        bundle = base64.b64encode(f.read()).decode()
    config = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
              "metadata": {"name": "work-parity"},
              "webhooks": [{"name": "work.karmada.io",
                            "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["work.karmada.io"],
                                       "apiVersions": ["*"], "resources": ["works"], "scope": "Namespaced"}],
                            "clientConfig": {"url": "https://127.0.0.1:%d%s" % (port, PATH), "caBundle": bundle},
                            "failurePolicy": "Fail", "sideEffects": "None",
                            "admissionReviewVersions": ["v1"], "timeoutSeconds": 10}]}
    api.kubectl("apply", "-f", "-", input=json.dumps(config))
    probe = work("probe-" + tag, [cm(name="p")])
    deadline = time.monotonic() + 30
    while True:  # until the API server calls the webhook (the configuration comes by a watch)
        status, body = api.request("POST", "/apis/work.karmada.io/v1alpha1/namespaces/default/works",
                                   json.dumps(probe).encode())
        labels = json.loads(body).get("metadata", {}).get("labels", {}) if status < 300 else {}
        if status < 300 and "work.karmada.io/permanent-id" in labels:
            break
        check(time.monotonic() < deadline, "the API server does not call %s: %s", PATH, body[:300])
        if status < 300:
            api.request("DELETE", "/apis/work.karmada.io/v1alpha1/namespaces/default/works/" +
                        probe["metadata"]["name"])
        time.sleep(0.3)
    out = {}
    for name, (manifests, labels) in WORKS.items():
        obj = work("%s-%s" % (name, tag), manifests, labels, spec=manifests is not None)
        status, body = api.request("POST", "/apis/work.karmada.io/v1alpha1/namespaces/default/works",
                                   json.dumps(obj).encode())
        answer = json.loads(body)
        if status < 300:
            for k in ("name", "uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"):
                answer["metadata"].pop(k, None)
            out[name] = (status, json.loads(UUID.sub("<uuid>", json.dumps(answer, sort_keys=True))))
        else:
            out[name] = (status, answer.get("message", ""))
    api.kubectl("delete", "mutatingwebhookconfiguration", "work-parity")
    return out


def test_stored_through_the_api_server(env):
    """The same Works, created with upstream's webhook, then with ours."""
    upstream = create_all(env.api, env.upstream.port, env.upstream.ca, "up")
    ours = create_all(env.api, env.ours.port, env.ours.ca, "ours")
    problems = []
    for name in WORKS:
        (s_up, up), (s_ours, got) = upstream[name], ours[name]
        same = (s_up < 300) == (s_ours < 300) and (s_up >= 300 or up == got)
        if name in DIFFERENCES:
            refused_both = s_up >= 300 and s_ours >= 300
            if same and not refused_both:
                problems.append("%s: listed as a difference (%s), but stored the same" % (name, DIFFERENCES[name]))
            elif refused_both and (s_ours != 400 or "spec.workload.manifests[0]" not in got):
                problems.append("%s: ours refused with %d %r, want 400 naming the manifest" % (name, s_ours, got))
        elif not same:
            problems.append("%s: upstream %d %s\n    ours %d %s" % (name, s_up, json.dumps(up)[:600], s_ours,
                                                                   json.dumps(got)[:600]))
    check(not problems, "\n  ".join(problems))
    env.note = "%d Works: %d stored or refused alike, %d listed differences" % (
        len(WORKS), len(WORKS) - len(DIFFERENCES), len(DIFFERENCES))


class Env:
    def __init__(self, source, api, upstream, ours):
        self.source, self.api, self.upstream, self.ours = source, api, upstream, ours
        self.note = ""


def report(env):
    if env.note:
        print("     " + env.note, flush=True)
    env.note = ""


def run(args, api):
    upstream_binary, why = kube.upstream_webhook(args.source, os.path.dirname(args.binary))
    if upstream_binary is None:
        kube.skip(why, how=HOW_TO_GET_UPSTREAM)
    workdir = harness.temp_dir("work-parity")
    upstream_certs = tempfile.mkdtemp(prefix="upstream-certs-", dir=workdir)
    subprocess.run([os.path.join(args.source, "certs", "make-certs.sh"), "--force", upstream_certs],
                   check=True, capture_output=True, timeout=60)
    api.install_karmada_crds()
    upstream = Upstream(upstream_binary, upstream_certs, workdir).start()
    try:
        with harness.Server(args.binary, harness.make_certs(args.source)) as ours:
            env = Env(args.source, api, upstream, ours)
            return harness.run_tests([test_fixtures_are_upstream_answers, test_stored_through_the_api_server],
                                     env, after_each=report)
    finally:
        upstream.stop()


if __name__ == "__main__":
    kube.main(run)
