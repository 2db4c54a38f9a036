#!/usr/bin/env python3
"""The offline `check` command against test/fixtures/check/: exact output lines with positions,
exit codes, JSON/YAML output, stdin, and the same verdicts as the webhook paths give.

    test_check.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import copy
import json
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import check  # noqa: E402

NAMESPACE_RULE = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                  "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                  "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")

POLICIES_LINES = [
    'policies/cluster.json:11:19: ClusterPropagationPolicy/crds: spec.failover.cluster.purgeMode: '
    'Unsupported value: "Immediately": supported values: "Directly", "Gracefully" [K-S1]',
    'policies/cluster.json:7:7: ClusterPropagationPolicy/crds: spec.resourceSelectors[0].name: '
    'Required value: a selector must name its resource when preemption is Always [V-R1]',
    'policies/cluster.json:11:19: warning: ClusterPropagationPolicy/crds: spec.failover.cluster.purgeMode: '
    '"Immediately" is the old name of "Directly" (removed in Karmada v1.19); use "Directly"',
    'policies/rebalance.yaml:9:7: WorkloadRebalancer/rebalance-web: spec.workloads[0].namespace: '
    'Invalid value: "Team_A": ' + NAMESPACE_RULE + ' [W-3]',
    'policies/rebalance.yaml:11:3: WorkloadRebalancer/rebalance-web: spec.ttlSecondsAfterFinished: '
    'Invalid value: -1: must be greater than or equal to 0 [W-4]',
    'policies/team-a/propagation.yaml:31:9: PropagationPolicy/web: '
    'spec.placement.clusterAffinities[1].affinityName: Duplicate value: "primary" [V-P5]',
    'policies/team-a/propagation.yaml:36:9: PropagationPolicy/web: '
    'spec.placement.spreadConstraints[0].maxGroups: Invalid value: 1: must be greater than or equal to minGroups [V-S5]',
    'policies/team-a/propagation.yaml:33:5: PropagationPolicy/web: spec.placement.spreadConstraints: '
    'Required value: a constraint with spreadByField "cluster" is required when spreading by field [V-S7]',
    'policies/team-a/propagation.yaml:26:7: PropagationPolicy/web: spec.resourceSelectors[0].namespace: '
    'Invalid value: "team-b": must be the policy\'s namespace "team-a" [V-S1]',
]


class Env:
    def __init__(self, args):
        self.binary = args.binary
        self.source = args.source
        self.root = os.path.join(args.source, "test", "fixtures", "check")

    def check(self, *args, stdin=None, memory=None):
        """`check ARGS` in the fixture tree; `memory`: a limit of its address space, in bytes."""
        limit = None
        if memory is not None:
            def limit():
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        proc = subprocess.run([self.binary, "check"] + list(args), cwd=self.root, input=stdin,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                              preexec_fn=limit)
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()

    def review(self, path, review):
        proc = subprocess.run([self.binary, "review", "--path", path, "-"],
                              input=json.dumps(review).encode(), stdout=subprocess.PIPE, timeout=30)
        return json.loads(proc.stdout)["response"]


# Rules of the API server that check models and the webhook has not (docs/compatibility.md).
API_SERVER_RULES = ("K-U1", "K-S1")


def lines(text):
    return [l for l in text.splitlines() if l]


def test_directory_text_output(env):
    code, out, err = env.check("policies")
    check(code == 1, "exit %d, expected 1 (invalid objects); stderr: %s", code, err)
    want = POLICIES_LINES + ["7 objects: 3 valid, 3 invalid (2 denied by upstream too, 1 only by our "
                             "strict rules), 1 skipped, 1 warning"]
    check(lines(out) == want, "output:\n%s\nexpected:\n%s", out, "\n".join(want))


def test_quiet_prints_problems_only(env):
    code, out, _ = env.check("--quiet", "policies")
    check(code == 1 and lines(out) == POLICIES_LINES, "quiet output:\n%s", out)


def test_valid_file_exits_0(env):
    code, out, _ = env.check("policies/list.yaml")
    check(code == 0, "exit %d", code)
    check(lines(out) == ["2 objects: 1 valid, 0 invalid, 1 skipped, 0 warnings"], "%s", out)


def test_strict_makes_unknown_kinds_errors(env):
    code, out, _ = env.check("--strict", "policies/list.yaml")
    check(code == 1, "exit %d", code)
    check(lines(out) == ["policies/list.yaml:12:5: Deployment/not-a-policy: kind apps/v1 Deployment is not "
                         "served by this webhook", "2 objects: 1 valid, 1 invalid (1 denied by upstream too, 0 only by "
                         "our strict rules), 0 skipped, 0 warnings"], "%s", out)


def test_warnings_as_errors(env):
    code, _, _ = env.check("policies/cluster.json")
    check(code == 1, "cluster.json is invalid: exit %d", code)
    policy = json.load(open(os.path.join(env.root, "policies", "cluster.json")))
    policy["spec"]["resourceSelectors"][0]["name"] = "widgets.example.com"
    # The old purge-mode name the CRD refuses (K-S1) named by its current one; an unknown field
    # (K-U1) as a warning under --unknown-fields=warn.
    policy["spec"]["failover"]["cluster"]["purgeMode"] = "Directly"
    policy["spec"]["failover"]["cluster"]["purgMode"] = "Directly"
    body = json.dumps(policy).encode()
    code, out, _ = env.check("--unknown-fields=warn", "-", stdin=body)
    check(code == 0, "warnings alone must not fail: exit %d: %s", code, out)
    check(lines(out)[0].startswith("<stdin>:1:") and ": warning: ClusterPropagationPolicy/crds: "
          "spec.failover.cluster.purgMode:" in lines(out)[0], "stdin warning line: %s", out)
    code, _, _ = env.check("--unknown-fields=warn", "--warnings-as-errors", "-", stdin=body)
    check(code == 1, "--warnings-as-errors: exit %d", code)


def test_syntax_error_exit_2(env):
    code, out, _ = env.check("broken", "policies/list.yaml")
    check(code == 2, "exit %d, expected 2", code)
    check(lines(out) == ["broken/syntax.yaml:8:1: syntax error: end of map flow not found",
                         "2 objects: 1 valid, 0 invalid, 1 skipped, 0 warnings"], "%s", out)


def test_unreadable_path_exit_2(env):
    code, _, err = env.check("no-such-file.yaml")
    check(code == 2 and "no-such-file.yaml: cannot read" in err, "exit %d, stderr %r", code, err)
    code, _, err = env.check("-o", "xml", "policies")
    check(code == 2, "bad -o: exit %d", code)


def test_json_output(env):
    code, out, _ = env.check("-o", "json", "--show-defaults", "policies/team-a/propagation.yaml")
    check(code == 1, "exit %d", code)
    report = json.loads(out)
    objs = report["objects"]
    check([o["name"] for o in objs] == ["nginx", "web"], "names %s", [o["name"] for o in objs])
    check([o["verdict"] for o in objs] == ["valid", "invalid"], "verdicts")
    first = objs[1]["errors"][0]
    check(first == {"field": "spec.placement.clusterAffinities[1].affinityName", "line": 31, "column": 9,
                    "rule": "V-P5", "class": "upstream",
                    "message": 'spec.placement.clusterAffinities[1].affinityName: Duplicate value: "primary"'},
          "first error %s", first)
    stored = objs[0]["object"]
    check(stored["spec"]["resourceSelectors"][0]["namespace"] == "team-a", "selector namespace not defaulted")
    check(stored["spec"]["priority"] == 0 and stored["spec"]["preemption"] == "Never", "CRD defaults")
    check(len(stored["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"]) == 36, "permanent id")
    check(stored["metadata"]["finalizers"] == ["karmada.io/propagation-policy-controller"], "finalizer")
    check(report["summary"] == {"objects": 2, "valid": 1, "invalid": 1, "invalidUpstream": 1,
                                "invalidStrictOnly": 0, "skipped": 0, "warnings": 0},
          "summary %s", report["summary"])


def test_yaml_show_defaults(env):
    code, out, _ = env.check("-o", "yaml", "--show-defaults", "policies/list.yaml")
    check(code == 0, "exit %d", code)
    check(out.count("---") == 1 and "kind: ClusterPropagationPolicy" in out and "Deployment" not in out,
          "yaml output:\n%s", out)
    check("clusterpropagationpolicy.karmada.io/permanent-id:" in out and "schedulerName: default-scheduler" in out,
          "defaults missing:\n%s", out)


def test_same_verdicts_as_the_webhook(env):
    """Each object as check stores it, sent to the validating path, gets check's verdict and fields;
    and the object as written, through the mutating then validating path, gets the same fields."""
    _, out, _ = env.check("-o", "json", "--show-defaults", "policies")
    kinds = {k.kind: k for k in harness.kind_table(env.binary)}
    compared = 0
    for o in json.loads(out)["objects"]:
        if o["verdict"] == "skipped":
            continue
        kind = o["kind"]
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                  "request": {"uid": "check-%d" % compared,
                              "kind": {"group": kinds[kind].group, "version": kinds[kind].version,
                                       "kind": kind},
                              "namespace": o.get("namespace", ""), "name": o["name"], "operation": "CREATE",
                              "object": o["object"], "oldObject": None}}
        response = env.review(kinds[kind].validate_path, review)
        # The API server's own rules (the CRD's enums, K-S1) are check's alone: the rest is the same.
        want_fields = [e["field"] for e in o["errors"] if e.get("rule") not in API_SERVER_RULES]
        got_fields = [c["field"] for c in response.get("status", {}).get("details", {}).get("causes", [])]
        check(response["allowed"] == (not want_fields), "%s/%s: webhook allowed=%s, check says %s",
              kind, o["name"], response["allowed"], o["errors"])
        check(got_fields == want_fields, "%s/%s: webhook fields %s, check fields %s", kind, o["name"],
              got_fields, want_fields)
        # The stored object through the mutating path again changes nothing but the CREATE-only id.
        mutated = env.review(kinds[kind].mutate_path, review) if kinds[kind].mutate_path else {}
        if "patch" in mutated:
            ops = json.loads(base64.b64decode(mutated["patch"]))
            check(all(op["path"].endswith("permanent-id") for op in ops),
                  "%s/%s: the stored object still needed %s", kind, o["name"], ops)
        compared += 1
    check(compared == 6, "compared %d objects, expected 6", compared)


def test_ten_thousand_policies(env):
    """Scale: many documents in one stream (the figure itself is printed by test/bench/check_bench.sh)."""
    doc = open(os.path.join(env.root, "policies", "team-a", "propagation.yaml")).read().split("---")[0]
    stream = "".join(doc.replace("name: nginx\n", "name: nginx-%d\n" % i, 1) + "---\n" for i in range(10000))
    code, out, _ = env.check("--quiet", "-", stdin=stream.encode())
    check(code == 0 and out == "", "10 000 valid policies: exit %d, output %r", code, out[:300])


def test_a_file_that_cannot_be_loaded_is_one_error(env):
    """The recovery boundary of a file: one whose loading throws (std::bad_alloc here, a large file
    under a limit of memory) is one error for that file, and the other files are still judged."""
    # The least address space a small file is checked in (a sanitizer build needs terabytes of
    # it: nothing to test there), then 128 MiB more: plenty for the small file, not enough for a
    # list of 10 million items (16 bytes each as JSON values alone).
    base = None
    for mib in (32, 48, 64, 96, 128, 192, 256, 384, 512):
        code, _, _ = env.check("policies/list.yaml", memory=mib << 20)
        if code == 0:
            base = mib << 20
            break
    if base is None:
        print("  (no limit of memory lets this binary run: a sanitizer build? not tested)")
        return
    big = os.path.join(harness.temp_dir("check"), "big.yaml")
    with open(big, "w") as f:
        f.write("a: [" + "1," * 9_999_999 + "1]\n")
    code, out, err = env.check(big, "policies/list.yaml", memory=base + (128 << 20))
    check(code == 2, "exit %d, expected 2; stderr: %s", code, err)
    check(lines(err) == [big + ": cannot read: internal error while loading this file: std::bad_alloc"],
          "stderr: %r", err)
    check(lines(out) == ["2 objects: 1 valid, 0 invalid, 1 skipped, 0 warnings"], "output: %r", out)


AUDIT = "audit/kubectl-get.yaml"


def test_audit_of_a_kubectl_get_dump(env):
    """What `kubectl get pp,cpp -A -o yaml` prints is read without noise: one finding per real
    problem, each with its rule, and the summary splits upstream's denials from our strict ones."""
    code, out, err = env.check(AUDIT)
    check(code == 1, "exit %d; stderr %s", code, err)
    got = lines(out)
    want = [
        AUDIT + ':76:9: PropagationPolicy/batch: spec.placement.clusterAffinities[1].affinityName: '
        'Duplicate value: "primary" [V-P5]',
        AUDIT + ':107:7: ClusterPropagationPolicy/platform: spec.resourceSelectors[0].namespace: Required '
        'value: ',
        AUDIT + ':130:7: warning: ClusterPropagationPolicy/retired: spec.resourceSelectors[0].namespace: ',
        "4 objects: 2 valid, 2 invalid (1 denied by upstream too, 1 only by our strict rules), 0 skipped, "
        "1 warning",
    ]
    check(len(got) == len(want), "output:\n%s", out)
    for line, prefix in zip(got, want):
        check(line.startswith(prefix), "line %r, expected it to start with %r", line, prefix)
    check(got[1].endswith("[D-R2]"), "D-R2 names its rule: %r", got[1])
    check("allowed because the object is being deleted" in got[2], "deletion: %r", got[2])
    # -o json: rule and class on each error, and the split summary.
    code, out, _ = env.check("-o", "json", AUDIT)
    report = json.loads(out)
    rules = [(e["rule"], e["class"]) for o in report["objects"] for e in o["errors"]]
    check(rules == [("V-P5", "upstream"), ("D-R2", "strict")], "rules %s", rules)
    check(report["summary"]["invalidUpstream"] == 1 and report["summary"]["invalidStrictOnly"] == 1,
          "summary %s", report["summary"])
    # --strict-rules=warn: only what upstream denies too is an error.
    code, out, _ = env.check("--strict-rules=warn", "--quiet", AUDIT)
    check(code == 1 and len([l for l in lines(out) if "warning:" not in l]) == 1, "warn:\n%s", out)
    code, out, _ = env.check("--strict-rules=off", "--quiet", AUDIT)
    check(all("D-R2" not in l for l in lines(out)), "off:\n%s", out)


def test_unknown_fields_and_metadata(env):
    """Unknown fields are errors as under kubectl --validate=strict (or warnings, or ignored);
    metadata is validated as the API server does; generateName alone is fine."""
    obj = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
           "metadata": {"generateName": "web-", "namespace": "ns1",
                        "labels": {"Bad Key": "x", "ok": "-bad-"}, "finalizers": ["a/b/c"]},
           "spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "nmae": "c"}],
                    "placment": {}}}
    text = json.dumps(obj)
    code, out, _ = env.check("-o", "json", "-", stdin=text.encode())
    errors = json.loads(out)["objects"][0]["errors"]
    got = sorted((e["field"], e["rule"]) for e in errors)
    want = sorted([("metadata.labels[Bad Key]", "K-M2"), ("metadata.labels[ok]", "K-M2"),
                   ("metadata.finalizers[0]", "K-M4"), ("spec.resourceSelectors[0].nmae", "K-U1"),
                   ("spec.placment", "K-U1")])
    check(sorted(set(got)) == want, "errors %s, expected %s", got, want)
    code, out, _ = env.check("--unknown-fields=ignore", "-o", "json", "-", stdin=text.encode())
    fields = {e["field"] for e in json.loads(out)["objects"][0]["errors"]}
    check("spec.placment" not in fields, "ignored unknown fields: %s", fields)
    code, out, _ = env.check("--unknown-fields=warn", "-o", "json", "-", stdin=text.encode())
    o = json.loads(out)["objects"][0]
    check(any("spec.placment" in w["message"] for w in o["warnings"]), "warned: %s", o["warnings"])


def test_federated_resource_quota(env):
    """A kind without a mutating path: exact lines with positions (resource maps in sorted order),
    and the webhook gives each object the same verdict and fields."""
    code, out, _ = env.check("quota")
    check(code == 1, "exit %d, expected 1", code)
    want = [
        "quota/quota.yaml:22:7: FederatedResourceQuota/quota: spec.staticAssignments[1].extra: Forbidden: "
        "unknown field: the schema does not declare it [K-U1]",
        "quota/quota.yaml:13:5: FederatedResourceQuota/quota: spec.overall[memory]: Invalid value: \"abc\": "
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' [QS-2]",
        "quota/quota.yaml:12:5: FederatedResourceQuota/quota: spec.overall[pods]: Invalid value: 1.5: "
        "must be an integer [Q-6]",
        "quota/quota.yaml:18:9: FederatedResourceQuota/quota: spec.staticAssignments[0].hard[gpu]: "
        "Invalid value: \"gpu\": must be a standard resource type or fully qualified [Q-8]",
        "quota/quota.yaml:18:9: FederatedResourceQuota/quota: spec.staticAssignments[0].hard[gpu]: "
        "Invalid value: \"gpu\": must be a standard resource for quota [Q-8]",
        "quota/quota.yaml:19:7: FederatedResourceQuota/quota: spec.staticAssignments[1].clusterName: "
        "Duplicate value: \"member1\" [D-Q1]",
        "quota/quota.yaml:11:5: FederatedResourceQuota/quota: spec.overall[cpu]: Invalid value: \"1\": "
        "overall is less than assignments [Q-9]",
        "quota/quota.yaml:18:9: FederatedResourceQuota/quota: spec.staticAssignments[0].hard[gpu]: "
        "Invalid value: \"gpu\": assignment resourceName is not exist in overall [Q-10]",
        "2 objects: 1 valid, 1 invalid (1 denied by upstream too, 0 only by our strict rules), 0 skipped, "
        "0 warnings",
    ]
    check(lines(out) == want, "output:\n%s", out)
    _, out, _ = env.check("-o", "json", "--show-defaults", "quota")
    for o in json.loads(out)["objects"]:
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                  "request": {"uid": "quota-" + o["name"],
                              "kind": {"group": "policy.karmada.io", "version": "v1alpha1", "kind": o["kind"]},
                              "namespace": o.get("namespace", ""), "name": o["name"], "operation": "CREATE",
                              "object": o["object"], "oldObject": None}}
        response = env.review("/validate-federatedresourcequota", review)
        got = [c["field"] for c in response.get("status", {}).get("details", {}).get("causes", [])]
        want_fields = [e["field"] for e in o["errors"] if e["rule"] != "K-U1"]
        # The webhook has no K-U1 (the API server's): the rest is the same.
        check(response["allowed"] == (not want_fields), "%s: webhook allowed=%s, check says %s",
              o["name"], response["allowed"], o["verdict"])
        check(got == want_fields, "%s: webhook fields %s, check fields %s", o["name"], got, want_fields)
def test_allow_no_execute_taint_policy(env):
    """check takes --allow-no-execute-taint-policy as the server does: T-1 (an upstream rule, so
    not lifted by --strict-rules=off) denies a NoExecute ClusterTaintPolicy only without it."""
    path = "taints/clustertaintpolicies.yaml"
    t1 = (path + ":16:11: ClusterTaintPolicy/evict-unreachable: spec.taints[0]: Forbidden: "
          "Configuring taint with NoExecute effect is not allowed, this capability must be "
          "explicitly enabled by administrators through command-line flags [T-1]")
    for flags in ([], ["--strict-rules=off"], ["--allow-no-execute-taint-policy=false"]):
        code, out, _ = env.check(*(flags + [path]))
        check(code == 1 and lines(out) == [t1, "2 objects: 1 valid, 1 invalid (1 denied by upstream "
                                                "too, 0 only by our strict rules), 0 skipped, 0 "
                                                "warnings"], "%s: exit %d:\n%s", flags, code, out)
    code, out, _ = env.check("--allow-no-execute-taint-policy", path)
    check(code == 0 and lines(out) == ["2 objects: 2 valid, 0 invalid, 0 skipped, 0 warnings"],
          "with the flag: exit %d:\n%s", code, out)


def test_bindings(env):
    """ResourceBinding and ClusterResourceBinding: RB-1 always, RB-3 only under check's
    --feature-gates=MultiplePodTemplatesScheduling=true (as the server's); each binding stored with
    its permanent id (RB-M1, CRB-M1) and nothing else; the webhook gives the same verdicts."""
    path = "bindings/bindings.yaml"
    rb1 = (path + ':27:5: ResourceBinding/api-deployment: metadata.annotations.resourcebinding.'
           'karmada.io/dependencies: Invalid value: "{\\"apiVersion\\":\\"v1\\",\\"kind\\":'
           '\\"Secret\\",\\"name\\":\\"api\\"}": annotation value must be a valid JSON [RB-1]')
    rb3 = (path + ':53:7: ResourceBinding/flink-job: spec.components[2].name: Invalid value: '
           '"jobmanager": component names must be unique [RB-3]')
    code, out, _ = env.check(path)
    check(code == 1 and lines(out) == [rb1, "4 objects: 3 valid, 1 invalid (1 denied by upstream "
                                             "too, 0 only by our strict rules), 0 skipped, 0 "
                                             "warnings"], "no gate: exit %d:\n%s", code, out)
    gate = "--feature-gates=MultiplePodTemplatesScheduling=true"
    code, out, _ = env.check(gate, path)
    check(code == 1 and lines(out) == [rb1, rb3, "4 objects: 2 valid, 2 invalid (2 denied by "
                                                  "upstream too, 0 only by our strict rules), 0 "
                                                  "skipped, 0 warnings"],
          "with the gate: exit %d:\n%s", code, out)
    _, out, _ = env.check(gate, "-o", "json", "--show-defaults", path)
    for o in json.loads(out)["objects"]:
        labels = o["object"]["metadata"].get("labels", {})
        label = o["kind"].lower() + ".karmada.io/permanent-id"
        check(len(labels.get(label, "")) == 36, "%s/%s stored without its permanent id: %s",
              o["kind"], o["name"], labels)
        if o["name"] == "flink-job":
            check(labels[label] == "5e4c2bd0-8c3a-4d8f-9a51-2b6d7f0e1c3a", "flink-job: id changed")
        check("status" not in o["object"], "%s stored with a status", o["name"])
        if o["kind"] != "ResourceBinding":
            continue
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                  "request": {"uid": "rb-" + o["name"],
                              "kind": {"group": "work.karmada.io", "version": "v1alpha2",
                                       "kind": o["kind"]},
                              "namespace": o["namespace"], "name": o["name"], "operation": "CREATE",
                              "object": o["object"], "oldObject": None}}
        proc = subprocess.run([env.binary, "review", "--path", "/validate-resourcebinding", gate,
                               "-"], input=json.dumps(review).encode(), stdout=subprocess.PIPE,
                              timeout=30)
        response = json.loads(proc.stdout)["response"]
        got = [c["field"] for c in response.get("status", {}).get("details", {}).get("causes", [])]
        check(got == [e["field"] for e in o["errors"]], "%s: webhook fields %s, check's %s",
              o["name"], got, o["errors"])


def test_networking_and_interpreter_configurations(env):
    """MultiClusterService, MultiClusterIngress and ResourceInterpreterWebhookConfiguration files:
    judged as the webhook judges them (MCS-1 on a name the API server admits, RIWC-9), and a
    configuration's top-level `webhooks` is its schema's, not an unknown field (K-U1)."""
    code, out, _ = env.check("networking-config")
    check(code == 1, "exit %d, expected 1", code)
    want = [
        'networking-config/objects.yaml:19:3: MultiClusterService/storefront.v2: metadata.name: Invalid '
        'value: "storefront.v2": a DNS-1035 label must consist of lower case alphanumeric characters or '
        "'-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  "
        "or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?') [MCS-1]",
        "networking-config/objects.yaml:64:7: ResourceInterpreterWebhookConfiguration/broken-interpreter: "
        "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; "
        "desired format: https://host[/path] [RIWC-9]",
        "5 objects: 3 valid, 2 invalid (2 denied by upstream too, 0 only by our strict rules), 0 skipped, "
        "0 warnings",
    ]
    check(lines(out) == want, "output:\n%s", out)


def test_autoscaling(env):
    """FederatedHPA and CronFederatedHPA files. FederatedHPAs are mutated then judged as the
    webhook chain does: defaults filled (no error for an HPA without metrics or a scaleDown without
    policies), a quantity shown as the mutator writes it (-0.1 is -100m), upstream's rules (FH-4,
    FH-7) and ours (D-H1). CronFederatedHPAs (CFH-1…CFH-12, D-C2): a month 13 (CFH-5, upstream's
    too), a weekday 7 that upstream admits and the controller cannot run (D-C2, strict, with the
    reason), an unknown time zone (CFH-6); a realistic one of each kind is valid."""
    code, out, _ = env.check("autoscaling")
    check(code == 1, "exit %d, expected 1", code)
    want = [
        'autoscaling/cron-federated-hpas.yaml:38:7: CronFederatedHPA/yearly: spec.rules[0].schedule: '
        'Invalid value: "0 0 1 13 *": invalid cron format [CFH-5]',
        'autoscaling/cron-federated-hpas.yaml:53:7: CronFederatedHPA/sundays: spec.rules[0].schedule: '
        'Invalid value: "0 0 * * 7": the CronFederatedHPA controller cannot run this schedule: '
        'day-of-week "7": above the maximum 6 [D-C2]',
        'autoscaling/cron-federated-hpas.yaml:69:7: CronFederatedHPA/mars: spec.rules[0].timeZone: '
        'Invalid value: "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons [CFH-6]',
        "autoscaling/objects.yaml:51:3: FederatedHPA/search: spec.maxReplicas: Invalid value: 2: "
        "must be greater than or equal to `minReplicas` [FH-4]",
        'autoscaling/objects.yaml:53:7: FederatedHPA/search: spec.metrics[0].type: Unsupported '
        'value: "External": supported values: "ContainerResource", "Object", "Pods", "Resource" '
        "[FH-7]",
        'autoscaling/objects.yaml:62:7: FederatedHPA/search: spec.behavior.scaleUp.tolerance: '
        'Invalid value: "-100m": must be greater than or equal to zero [D-H1]',
        "7 objects: 3 valid, 4 invalid (3 denied by upstream too, 1 only by our strict rules), "
        "0 skipped, 0 warnings",
    ]
    check(lines(out) == want, "output:\n%s", out)


def test_works(env):
    """Works (/mutate-work, W-1…W-13): a manifest the webhook refuses (W-5, W-2: code 400) is an
    error at its field; a valid Work is stored as the webhook stores it, and the stored Work needs
    nothing more."""
    code, out, _ = env.check("works")
    check(code == 1, "exit %d, expected 1", code)
    want = [
        'works/works.yaml:64:11: Work/pi-5d8f7c9b6d: spec.workload.manifests[0].spec.parallelism: Invalid '
        'value: "two": must be an integer (a manifest of kind Job must decode as a batch/v1 Job)',
        'works/works.yaml:76:9: Work/broken: spec.workload.manifests[1]: Invalid value: "just a string": must '
        'be an object (a Kubernetes object with apiVersion and kind)',
        "3 objects: 1 valid, 2 invalid (2 denied by upstream too, 0 only by our strict rules), 0 skipped, "
        "0 warnings",
    ]
    check(lines(out) == want, "output:\n%s", out)
    _, out, _ = env.check("-o", "json", "--show-defaults", "works")
    objects = json.loads(out)["objects"]
    stored = objects[0]["object"]
    work_id = stored["metadata"]["labels"].get("work.karmada.io/permanent-id", "")
    check(len(work_id) == 36, "the Work's permanent id: %r", work_id)
    deployment, service = stored["spec"]["workload"]["manifests"]
    check(deployment["metadata"] == {
        "name": "nginx", "namespace": "default",
        "labels": {"app": "nginx", "work.karmada.io/permanent-id": work_id},
        "annotations": {"resourcetemplate.karmada.io/managed-annotations":
                        "resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels",
                        "resourcetemplate.karmada.io/managed-labels": "app,work.karmada.io/permanent-id"}},
        "deployment metadata: %s", deployment["metadata"])
    check("status" not in deployment and "clusterIP" not in service["spec"] and "clusterIPs" not in service["spec"],
          "pruned: %s %s", deployment, service)
    for o in objects:
        review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                  "request": {"uid": "work-" + o["name"],
                              "kind": {"group": "work.karmada.io", "version": "v1alpha1", "kind": "Work"},
                              "namespace": o["namespace"], "name": o["name"], "operation": "UPDATE",
                              "object": o["object"], "oldObject": o["object"]}}
        response = env.review("/mutate-work", review)
        if o["verdict"] == "valid":
            check(response["allowed"] and "patch" not in response, "%s: the stored Work needed %s", o["name"],
                  response)
        else:
            check(not response["allowed"] and response["status"]["code"] == 400 and
                  response["status"]["message"] == o["errors"][0]["message"],
                  "%s: webhook %s, check %s", o["name"], response, o["errors"])


# Issue 42, "check's rough edges".

def test_a_broken_document_is_one_error_and_the_others_are_judged(env):
    """A multi-document file with broken documents (bad indentation, an unclosed flow sequence):
    each is one syntax error at its line (file:line:col, exit 2), and the file's other documents
    are judged, with the file's line numbers."""
    path = "stream/policies.yaml"
    code, out, _ = env.check(path)
    check(code == 2, "exit %d, expected 2 (syntax errors)", code)
    want = [
        path + ":18:14: syntax error: illegal map value",
        path + ":42:62: syntax error: end of sequence flow not found",
        path + ":34:7: PropagationPolicy/web: spec.resourceSelectors[0].namespace: Invalid value: "
        "\"team-b\": must be the policy's namespace \"team-a\" [V-S1]",
        "3 objects: 2 valid, 1 invalid (1 denied by upstream too, 0 only by our strict rules), "
        "0 skipped, 0 warnings",
    ]
    check(lines(out) == want, "output:\n%s\nexpected:\n%s", out, "\n".join(want))
    _, out, _ = env.check("-o", "json", path)
    report = json.loads(out)
    check([(o["name"], o["document"]) for o in report["objects"]] ==
          [("nginx", 0), ("web", 2), ("last", 4)], "objects %s", report["objects"])
    check([(e["line"], e["column"]) for e in report["syntaxErrors"]] == [(18, 14), (42, 62)],
          "syntax errors %s", report["syntaxErrors"])


def duplicate_key_review(policy_text: str) -> bytes:
    """An AdmissionReview (CREATE) whose object is `policy_text`, JSON as written (keys and all)."""
    return ('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"dup",'
            '"kind":{"group":"policy.karmada.io","version":"v1alpha1","kind":"PropagationPolicy"},'
            '"namespace":"team-a","name":"web","operation":"CREATE","object":' + policy_text +
            ',"oldObject":null}}').encode()


def test_a_duplicate_key_is_refused_as_the_server_refuses_it(env):
    """A key written twice (YAML or JSON) is an error at its second place, with the message the
    server answers such a body with (code 400, before any rule: nothing else is judged)."""
    code, out, _ = env.check("duplicates")
    check(code == 1, "exit %d, expected 1", code)
    want = [
        'duplicates/labels.yaml:11:5: PropagationPolicy/web: cannot decode AdmissionReview: '
        'duplicate JSON key "app"',
        'duplicates/policy.json:10:5: ClusterPropagationPolicy/crds: cannot decode AdmissionReview: '
        'duplicate JSON key "priority"',
        "2 objects: 0 valid, 2 invalid (2 denied by upstream too, 0 only by our strict rules), "
        "0 skipped, 0 warnings",
    ]
    check(lines(out) == want, "output:\n%s\nexpected:\n%s", out, "\n".join(want))
    _, out, _ = env.check("-o", "json", "duplicates/labels.yaml")
    error = json.loads(out)["objects"][0]["errors"][0]
    check(error["field"] == "metadata.labels.app" and "rule" not in error, "error %s", error)
    # The server's answer to the same object, as JSON with the key twice.
    policy = ('{"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy",'
              '"metadata":{"name":"web","namespace":"team-a","labels":{"app":"web","tier":"frontend",'
              '"app":"shop"}},"spec":{"resourceSelectors":[{"apiVersion":"apps/v1",'
              '"kind":"Deployment","name":"web"}]}}')
    proc = subprocess.run([env.binary, "review", "--path", "/validate-propagationpolicy", "-"],
                          input=duplicate_key_review(policy), stdout=subprocess.PIPE, timeout=30)
    response = json.loads(proc.stdout)["response"]
    check(not response["allowed"] and response["status"]["code"] == 400 and
          response["status"]["message"] == error["message"],
          "the server answers %s, check says %r", response, error["message"])


def test_a_policy_without_a_namespace_is_judged_in_none(env):
    """A kustomize base (no metadata.namespace): no namespace is invented, so selectors that name
    one are not compared with it (V-S1, O-21) and none is given to those that do not (M-1);
    --namespace judges it in that namespace."""
    code, out, _ = env.check("kustomize-base")
    check(code == 0 and lines(out) == ["2 objects: 2 valid, 0 invalid, 0 skipped, 0 warnings"],
          "exit %d:\n%s", code, out)
    _, out, _ = env.check("-o", "json", "--show-defaults", "kustomize-base")
    for o in json.loads(out)["objects"]:
        check("namespace" not in o and "namespace" not in o["object"]["metadata"],
              "%s: a namespace was invented: %s", o["kind"], o)
        check("namespace" not in o["object"]["spec"]["resourceSelectors"][0] or o["kind"] != "PropagationPolicy",
              "M-1 filled a namespace: %s", o["object"]["spec"])
    path = "kustomize-base/policies.yaml"
    code, out, _ = env.check("--namespace", "team-b", "kustomize-base")
    want = [
        path + ':15:7: PropagationPolicy/web: spec.resourceSelectors[1].namespace: Invalid value: '
        '"team-a": must be the policy\'s namespace "team-b" [V-S1]',
        path + ':29:7: OverridePolicy/web: spec.resourceSelectors[0].namespace: Invalid value: '
        '"team-a": namespace of resource selector must be the same as the namespace of the policy '
        '[O-21]',
        "2 objects: 0 valid, 2 invalid (2 denied by upstream too, 0 only by our strict rules), "
        "0 skipped, 0 warnings",
    ]
    check(code == 1 and lines(out) == want, "--namespace team-b: exit %d:\n%s", code, out)
    code, out, _ = env.check("--namespace", "team-a", "-o", "json", "--show-defaults", "kustomize-base")
    objects = json.loads(out)["objects"]
    check(code == 0 and all(o["namespace"] == "team-a" for o in objects), "team-a: %s", out)
    check(objects[0]["object"]["spec"]["resourceSelectors"][0]["namespace"] == "team-a",
          "M-1 with --namespace: %s", objects[0]["object"]["spec"])


def test_old_purge_mode_names_are_refused_as_the_crds_refuse_them(env):
    """K-S1: Immediately and Graciously, which our webhook accepts with a warning and Karmada's
    CRDs no longer list, are errors with the API server's message (the CRD's values in its
    order; cluster failover has no Never), as upstream's recording of the same objects says."""
    path = "purge-modes/old-names.yaml"
    code, out, _ = env.check("--quiet", path)
    check(code == 1, "exit %d, expected 1", code)
    errors = [l for l in lines(out) if ": warning: " not in l]
    want = [
        path + ':18:7: PropagationPolicy/web: spec.failover.application.purgeMode: Unsupported '
        'value: "Immediately": supported values: "Directly", "Gracefully", "Never" [K-S1]',
        path + ':30:7: ClusterPropagationPolicy/namespaces: spec.failover.cluster.purgeMode: '
        'Unsupported value: "Graciously": supported values: "Directly", "Gracefully" [K-S1]',
    ]
    check(errors == want, "errors:\n%s\nexpected:\n%s", "\n".join(errors), "\n".join(want))
    # Upstream's recording (test/e2e/upstream/): the API server's 422 for the same objects.
    recorded = os.path.join(env.source, "test", "e2e", "upstream", "recorded.jsonl")
    rows = {r["id"]: r for r in map(json.loads, filter(str.strip, open(recorded)))}
    for rid in ("a05-purge-graciously-old", "a06-purge-immediately-old"):
        row = rows[rid]
        code, out, _ = env.check("-o", "json", "-", stdin=json.dumps(row["input"]).encode())
        messages = [e["message"] for e in json.loads(out)["objects"][0]["errors"]]
        upstream = row["upstream"]["error"]
        check(code == 1 and row["upstream"]["stage"] == "schema" and
              any(upstream.endswith(" is invalid: " + m) for m in messages),
              "%s: check %s, the API server %r", rid, messages, upstream)


TESTS = [
    test_networking_and_interpreter_configurations,
    test_autoscaling,
    test_works,
    test_allow_no_execute_taint_policy,
    test_bindings,
    test_audit_of_a_kubectl_get_dump,
    test_unknown_fields_and_metadata,
    test_directory_text_output,
    test_quiet_prints_problems_only,
    test_valid_file_exits_0,
    test_strict_makes_unknown_kinds_errors,
    test_warnings_as_errors,
    test_syntax_error_exit_2,
    test_unreadable_path_exit_2,
    test_json_output,
    test_yaml_show_defaults,
    test_same_verdicts_as_the_webhook,
    test_ten_thousand_policies,
    test_a_file_that_cannot_be_loaded_is_one_error,
    test_federated_resource_quota,
    test_a_broken_document_is_one_error_and_the_others_are_judged,
    test_a_duplicate_key_is_refused_as_the_server_refuses_it,
    test_a_policy_without_a_namespace_is_judged_in_none,
    test_old_purge_mode_names_are_refused_as_the_crds_refuse_them,
]


def run(args):
    return harness.run_tests(TESTS, Env(args))


if __name__ == "__main__":
    harness.main(run)
