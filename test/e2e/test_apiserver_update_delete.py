#!/usr/bin/env python3
"""UPDATE and DELETE behind a real kube-apiserver, driven with kubectl: ratcheting, deletion, --strict-rules.

The API server (test/e2e/kube.py) gets Karmada's CRDs and our url overlay pointed at a webhook on a
fixed port, so that the webhook can be restarted with other flags while the registered
configurations keep calling the same address (docs/compatibility.md, "Rule classes, ratcheting and
--strict-rules"):

1. `--strict-rules=off`: one object per kind that breaks a strict rule is stored, as a platform
   running upstream's verdicts stores it: a PropagationPolicy with an affinityName of 40 characters
   (SC-5), a ClusterPropagationPolicy with preemption Always and a Deployment selector without
   namespace (D-R2), a ClusterTaintPolicy with a taint key of 300 bytes (D-T1), an OverridePolicy
   with a plaintext path `no-slash` (D-O3), a FederatedResourceQuota assigning to one cluster twice
   (D-Q1). Every SC- rule of PropagationPolicy is in Karmada's CRD too, which the API server checks
   before any validating webhook, so the CRD's maxLength of affinityName is lifted while these are
   created (a CRD edited by hand, or of a release without the bound) and put back afterwards; on
   UPDATE the API server then ratchets its own schema as we ratchet SC-5.
2. The webhook restarted with the default `deny` (the platform tightens its policy): an UPDATE that
   leaves the violation as it is (`kubectl label`, `kubectl annotate`, an unchanged `kubectl
   replace`) is admitted and kubectl prints the warning whole, `Warning: <error> [<ID>]; allowed
   because it is unchanged: fix it at its next change` (for the 300-byte key too: the key is cut,
   never that ending, and the warning stays within 256 bytes); changing the offending value to
   another bad one is denied naming the field; fixing it is admitted without any warning.
3. Deletion: `kubectl delete --wait=false` of a violating object holding a finalizer (our
   mutator's `karmada.io/propagation-policy-controller`, or a user's), then the finalizer removed
   with `kubectl patch --type=json` (an UPDATE carrying deletionTimestamp): admitted with `…;
   allowed because the object is being deleted`, and the object is gone. An UPDATE of an object
   being deleted that brings a new violation is admitted too (and denied on the same object before
   its deletion).
4. The webhook restarted with `--strict-rules=warn`: a CREATE breaking a strict rule is admitted and
   stored, kubectl printing `Warning: <error> [<ID>]; allowed by --strict-rules=warn`; an upstream
   violation is still denied.

    test_apiserver_update_delete.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

ENTRY_SUFFIX = ".karmada-policy-webhook.karmada.io"
MAX_WARNING_BYTES = 256           # each warning, as the API server shows it
UNCHANGED = "allowed because it is unchanged: fix it at its next change"
DELETING = "allowed because the object is being deleted"
WARN_MODE = "allowed by --strict-rules=warn"

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}
LONG_KEY = "k" * 300
PP_CRD = "propagationpolicies.policy.karmada.io"
# Where the PropagationPolicy CRD bounds clusterAffinities[].affinityName.
AFFINITY_NAME_MAX = ("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/placement/"
                     "properties/clusterAffinities/items/properties/affinityName/maxLength")


def obj(kind, name, spec, namespaced, group="policy.karmada.io", finalizers=None):
    meta = {"name": name}
    if namespaced:
        meta["namespace"] = "default"
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": group + "/v1alpha1", "kind": kind, "metadata": meta, "spec": spec}


def pp(name, affinity_name):
    return obj("PropagationPolicy", name, {"resourceSelectors": [DEPLOYMENT], "placement": {
        "clusterAffinities": [{"affinityName": affinity_name, "clusterNames": ["member1"]}]}}, True)


def cpp(name, selector, preemption="Always"):
    return obj("ClusterPropagationPolicy", name, {"resourceSelectors": [selector],
                                                  "preemption": preemption}, False)


def ctp(name, key, effect="NoSchedule", finalizers=None):
    return obj("ClusterTaintPolicy", name, {"taints": [{"key": key, "effect": effect}]}, False,
               finalizers=finalizers)


def op(name, path):
    rule = {"targetCluster": {"clusterNames": ["member1"]},
            "overriders": {"plaintext": [{"path": path, "operator": "remove"}]}}
    selector = dict(DEPLOYMENT, namespace="default")
    return obj("OverridePolicy", name, {"resourceSelectors": [selector], "overrideRules": [rule]},
               True)


def frq(name, clusters):
    return obj("FederatedResourceQuota", name, {
        "overall": {"cpu": "4"},
        "staticAssignments": [{"clusterName": c, "hard": {"cpu": "1"}} for c in clusters]}, True)


class Case:
    """One object breaking one rule: the error our webhook reports (without `[<ID>]; <why>`), where
    the offending value is, and the other bad value and the fixed value it can be given."""

    def __init__(self, manifest, rule, field, error="", path=None, bad=None, fixed=None,
                 denied_by="webhook"):
        self.manifest = manifest
        self.rule = rule
        self.field = field            # the field the error names
        self.error = error            # `<field>: <body>` as a regex (a long value is cut)
        self.path = path              # keys and indexes of the offending value in the object
        self.bad = bad                # another bad value for it
        self.fixed = fixed            # a good value for it
        self.denied_by = denied_by    # "webhook", or "schema" when the CRD refuses first

    def renamed(self, suffix):
        """The same case for a copy of the object named <name><suffix>."""
        manifest = json.loads(json.dumps(self.manifest))
        manifest["metadata"]["name"] += suffix
        return Case(manifest, self.rule, self.field, self.error, self.path, self.bad, self.fixed,
                    self.denied_by)

    @property
    def kind(self):
        return self.manifest["kind"]

    @property
    def name(self):
        return self.manifest["metadata"]["name"]


def value_at(doc, path):
    for step in path:
        doc = doc[step]
    return doc


def with_value(doc, path, value):
    """A copy of `doc` with the value at `path` (keys and indexes) replaced."""
    out = json.loads(json.dumps(doc))
    value_at(out, path[:-1])[path[-1]] = value
    return out


def quoted(text):
    return re.escape(json.dumps(text))


AFFINITY = ["spec", "placement", "clusterAffinities", 0, "affinityName"]
TAINT_KEY = ["spec", "taints", 0, "key"]
PLAINTEXT_PATH = ["spec", "overrideRules", 0, "overriders", "plaintext", 0, "path"]
SELECTOR = ["spec", "resourceSelectors", 0]
ASSIGNMENTS = ["spec", "staticAssignments"]

CASES = [
    Case(pp("pp-ratchet", "a" * 40), "SC-5", "spec.placement.clusterAffinities[0].affinityName",
         re.escape("spec.placement.clusterAffinities[0].affinityName: Invalid value: ")
         + quoted("a" * 40) + re.escape(": must be no more than 32 characters long"),
         AFFINITY, "b" * 41, "east", denied_by="schema"),
    Case(cpp("cpp-ratchet", DEPLOYMENT), "D-R2", "spec.resourceSelectors[0].namespace",
         re.escape("spec.resourceSelectors[0].namespace: Required value: Deployment is namespaced: "
                   "a ClusterPropagationPolicy with preemption Always must name its namespace"),
         SELECTOR, dict(DEPLOYMENT, kind="StatefulSet"), dict(DEPLOYMENT, namespace="default")),
    # The key of 300 bytes is cut in the warning: `"kkk…"... (300 bytes)`, 32 bytes at least.
    Case(ctp("ctp-ratchet", LONG_KEY), "D-T1", "spec.taints[0].key",
         re.escape('spec.taints[0].key: Invalid value: "') + "k{32,}"
         + re.escape('"... (300 bytes): name part must be no more than 63 bytes'),
         TAINT_KEY, "Bad Key", "maintenance"),
    Case(op("op-ratchet", "no-slash"), "D-O3", "spec.overrideRules[0].overriders.plaintext[0].path",
         re.escape('spec.overrideRules[0].overriders.plaintext[0].path: Invalid value: "no-slash": '
                   'JSON pointer must be empty or start with a "/"'),
         PLAINTEXT_PATH, "still-no-slash", "/spec/replicas"),
    Case(frq("frq-ratchet", ["member1", "member1"]), "D-Q1",
         "spec.staticAssignments[1].clusterName",
         re.escape('spec.staticAssignments[1].clusterName: Duplicate value: "member1"'),
         ASSIGNMENTS, [{"clusterName": "member2", "hard": {"cpu": "1"}},
                       {"clusterName": "member2", "hard": {"cpu": "1"}}],
         [{"clusterName": "member1", "hard": {"cpu": "1"}},
          {"clusterName": "member2", "hard": {"cpu": "1"}}]),
]

# Stored while --strict-rules=off, deleted while deny: a PropagationPolicy (our mutator gives it
# its finalizer) and a ClusterTaintPolicy with a user's finalizer and the key of 300 bytes.
PP_DELETED = Case(pp("pp-deleted", "d" * 40), "SC-5", CASES[0].field,
                  re.escape("spec.placement.clusterAffinities[0].affinityName: Invalid value: ")
                  + quoted("d" * 40) + re.escape(": must be no more than 32 characters long"))
HOLD = "kpw.example.com/hold"
CTP_DELETED = Case(ctp("ctp-deleted", LONG_KEY, finalizers=[HOLD]), "D-T1", CASES[2].field,
                   CASES[2].error)


# --- kubectl --------------------------------------------------------------------------------------

RESOURCES = {}   # kind -> plural.group, from the kind table


def resource(kind):
    return RESOURCES[kind]


def ref(case):
    """kubectl arguments naming the case's object: resource, name, and -n for a namespaced one."""
    meta = case.manifest["metadata"]
    args = [resource(case.kind), meta["name"]]
    if "namespace" in meta:
        args += ["-n", meta["namespace"]]
    return args


def run_kubectl(api, *args, input=None):
    return api.kubectl(*args, input=input, check=False)


def warnings_of(proc):
    """The warnings kubectl printed (stderr lines `Warning: <text>`), texts only."""
    return [line[len("Warning: "):] for line in proc.stderr.splitlines()
            if line.startswith("Warning: ")]


def show(proc):
    return "exit %d, stdout %r, stderr %r" % (proc.returncode, proc.stdout.strip()[:600],
                                              proc.stderr.strip()[:1500])


def whole_warning(case, why):
    """The regex of the one warning kubectl must print: the error, its rule ID and why, whole."""
    return re.compile(case.error + re.escape(" [%s]; %s" % (case.rule, why)) + "$")


def check_admitted(what, proc, case=None, why=None):
    """Admitted; with `case` kubectl printed exactly its one warning, whole and within 256 bytes,
    else no warning at all."""
    check(proc.returncode == 0, "%s was refused: %s", what, show(proc))
    got = warnings_of(proc)
    if case is None:
        check(not got and "Warning" not in proc.stderr, "%s printed warnings: %s", what, show(proc))
        return
    check(len(got) == 1, "%s: want one warning ending `[%s]; %s`, kubectl printed %s",
          what, case.rule, why, show(proc))
    check(whole_warning(case, why).match(got[0]),
          "%s: the warning is not the whole `<error> [%s]; %s`:\n  got  %r\n  want /%s/",
          what, case.rule, why, got[0], whole_warning(case, why).pattern)
    check(len(got[0].encode()) <= MAX_WARNING_BYTES, "%s: a warning of %d bytes (at most %d): %r",
          what, len(got[0].encode()), MAX_WARNING_BYTES, got[0])


def check_denied(what, proc, case):
    """Refused naming the field: by our entry, or (denied_by "schema") by the CRD's schema."""
    check(proc.returncode != 0, "%s was admitted: %s", what, show(proc))
    text = proc.stderr
    if case.denied_by == "webhook":
        want = 'admission webhook "%s%s" denied the request: ' % (case.kind.lower(), ENTRY_SUFFIX)
        check(want in text and (case.field + ":") in text.split(want, 1)[1],
              "%s: want %r naming %s, kubectl printed %s", what, want, case.field, show(proc))
    else:
        want = 'The %s "%s" is invalid: %s:' % (case.kind, case.name, case.field)
        check(want in text, "%s: want the API server's %r, kubectl printed %s", what, want,
              show(proc))


def get(api, case):
    return api.kubectl_json("get", *ref(case))


def check_gone(api, case):
    proc = run_kubectl(api, "get", *ref(case))
    check(proc.returncode != 0 and "(NotFound)" in proc.stderr,
          "%s %s is still there: %s", case.kind, case.name, show(proc))


# --- the webhook, restarted on one port -----------------------------------------------------------

class Webhook:
    """Our server on a fixed port; `restart(flags)` stops it and starts it again with other flags,
    the registered configurations still pointing at it."""

    def __init__(self, args, certs):
        self.args = args
        self.certs = certs
        self.server = None
        self.port = harness.free_port()

    def start(self, *flags):
        self.server = harness.Server(self.args.binary, self.certs, *flags, port=self.port).start()
        return self.server

    def restart(self, *flags):
        self.server.stop()
        t0 = time.monotonic()
        self.start(*flags)
        print("  webhook restarted with %s in %.2f s" % (" ".join(flags) or "the default flags",
                                                         time.monotonic() - t0), flush=True)

    def stop(self):
        if self.server is not None and self.server.alive():
            self.server.stop()


# --- the CRD's bound on affinityName --------------------------------------------------------------

def affinity_name_bound(api):
    crd = api.kubectl_json("get", "crd", PP_CRD)
    node = crd
    for token in AFFINITY_NAME_MAX.split("/")[1:]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def wait_schema(api, refuses: bool):
    """Until a server-side dry run of a PropagationPolicy with a long affinityName is refused by the
    schema (refuses) or not: the API server reloads a changed CRD from a watch."""
    probe = pp("kpw-schema-probe", "p" * 40)
    deadline = time.monotonic() + 30
    while True:
        proc = run_kubectl(api, "create", "--dry-run=server", "-f", "-", input=probe)
        refused = "Too long" in proc.stderr
        if refused == refuses and (refuses or proc.returncode == 0):
            return
        check(time.monotonic() < deadline, "the API server did not %s the affinityName bound: %s",
              "apply" if refuses else "drop", show(proc))
        time.sleep(0.1)


# --- the tests ------------------------------------------------------------------------------------

def test_violations_are_stored_while_off(api, webhook):
    """--strict-rules=off gives upstream's verdicts: every violating object is created (no warning)
    and stored as sent, with our mutator's finalizer on the PropagationPolicy."""
    bound = affinity_name_bound(api)
    api.kubectl("patch", "crd", PP_CRD, "--type=json", "-p",
                json.dumps([{"op": "remove", "path": AFFINITY_NAME_MAX}]))
    try:
        wait_schema(api, refuses=False)
        for case in CASES + [PP_DELETED, CTP_DELETED]:
            proc = run_kubectl(api, "create", "-f", "-", input=case.manifest)
            check_admitted("CREATE of %s %s under --strict-rules=off" % (case.kind, case.name),
                           proc)
    finally:
        api.kubectl("patch", "crd", PP_CRD, "--type=json", "-p",
                    json.dumps([{"op": "add", "path": AFFINITY_NAME_MAX, "value": bound}]))
    wait_schema(api, refuses=True)
    stored = get(api, PP_DELETED)
    check(stored["metadata"].get("finalizers") == ["karmada.io/propagation-policy-controller"],
          "pp-deleted has finalizers %s", stored["metadata"].get("finalizers"))
    check(get(api, CASES[2])["spec"]["taints"][0]["key"] == LONG_KEY, "the long key was not stored")


def test_a_new_violation_is_denied(api, webhook):
    """With the default `deny` the same violations are refused on CREATE: what follows is
    ratcheting, not a webhook still running `off`."""
    for case in [c.renamed("-again") for c in CASES[1:]]:
        check_denied("CREATE of %s %s" % (case.kind, case.name),
                     run_kubectl(api, "create", "-f", "-", input=case.manifest), case)


def test_an_unchanged_violation_ratchets(api, webhook):
    """kubectl label, annotate and an unchanged replace: admitted, stored, the warning whole."""
    for case in CASES:
        what = "%s %s (%s)" % (case.kind, case.name, case.rule)
        proc = run_kubectl(api, "label", *ref(case), "team=a")
        check_admitted("kubectl label of " + what, proc, case, UNCHANGED)
        if case.rule == "D-T1":
            print("  kubectl label printed (%d bytes after `Warning: `):\n    %s"
                  % (len(warnings_of(proc)[0].encode()), proc.stderr.strip()), flush=True)
        check_admitted("kubectl annotate of " + what,
                       run_kubectl(api, "annotate", *ref(case), "note=kept"), case, UNCHANGED)
        stored = get(api, case)
        check(stored["metadata"].get("labels", {}).get("team") == "a"
              and stored["metadata"].get("annotations", {}).get("note") == "kept",
              "%s: the label and annotation were not stored: %s", what, stored["metadata"])
        check_admitted("an unchanged kubectl replace of " + what,
                       run_kubectl(api, "replace", "-f", "-", input=stored), case, UNCHANGED)
        print("  %-24s %-5s ratcheted: label, annotate, replace" % (case.kind, case.rule),
              flush=True)


def test_a_changed_violation_is_denied(api, webhook):
    """The offending value changed to another bad one: refused naming the field, nothing stored."""
    for case in CASES:
        stored = get(api, case)
        proc = run_kubectl(api, "replace", "-f", "-", input=with_value(stored, case.path, case.bad))
        check_denied("a replace of %s %s with another bad value" % (case.kind, case.name), proc,
                     case)
        after = get(api, case)
        check(after["spec"] == stored["spec"], "%s %s changed although refused: %s", case.kind,
              case.name, json.dumps(after["spec"])[:400])
        print("  %-24s %-5s changed: denied by the %s" % (case.kind, case.rule, case.denied_by),
              flush=True)


def test_a_fixed_violation_is_admitted_without_warning(api, webhook):
    """The offending value fixed: admitted and stored, no warning; nor on a later label."""
    for case in CASES:
        what = "%s %s" % (case.kind, case.name)
        fixed = with_value(get(api, case), case.path, case.fixed)
        check_admitted("the fix of " + what, run_kubectl(api, "replace", "-f", "-", input=fixed))
        stored = value_at(get(api, case), case.path)
        check(stored == case.fixed, "%s: %r stored, not the fix %r", what, stored, case.fixed)
        check_admitted("kubectl label of the fixed " + what,
                       run_kubectl(api, "label", "--overwrite", *ref(case), "team=b"))


def delete_and_release(api, case, finalizers):
    """kubectl delete --wait=false (deletionTimestamp set, `finalizers` kept), then the finalizers
    removed: admitted with the case's warning ending `allowed because the object is being deleted`;
    then NotFound."""
    what = "%s %s" % (case.kind, case.name)
    api.kubectl("delete", *ref(case), "--wait=false")
    stored = get(api, case)
    check(stored["metadata"].get("deletionTimestamp") and
          stored["metadata"].get("finalizers") == finalizers,
          "%s: after kubectl delete, deletionTimestamp %r and finalizers %r (want %r)", what,
          stored["metadata"].get("deletionTimestamp"), stored["metadata"].get("finalizers"),
          finalizers)
    proc = run_kubectl(api, "patch", *ref(case), "--type=json", "-p",
                       json.dumps([{"op": "remove", "path": "/metadata/finalizers"}]))
    check_admitted("the finalizer removal of " + what, proc, case, DELETING)
    check_gone(api, case)


def test_a_violating_object_is_deleted(api, webhook):
    """Our mutator's finalizer (PropagationPolicy, SC-5) and a user's (ClusterTaintPolicy with the
    300-byte key, D-T1): the removal is admitted with the deletion warning whole; then it is
    gone."""
    delete_and_release(api, PP_DELETED, ["karmada.io/propagation-policy-controller"])
    delete_and_release(api, CTP_DELETED, [HOLD])


def test_a_new_violation_while_deleting_is_admitted(api, webhook):
    """A valid ClusterPropagationPolicy: making it preempt (a new D-R2 violation) is denied, until
    it is being deleted; then admitted with the deletion warning, and its finalizer removal too."""
    manifest = cpp("cpp-deleting", DEPLOYMENT, preemption="Never")
    case = Case(manifest, "D-R2", CASES[1].field, CASES[1].error)
    check_admitted("CREATE of cpp-deleting", run_kubectl(api, "create", "-f", "-", input=manifest))
    preempt = json.dumps({"spec": {"preemption": "Always"}})
    check_denied("preemption Always on cpp-deleting before its deletion",
                 run_kubectl(api, "patch", *ref(case), "--type=merge", "-p", preempt), case)
    api.kubectl("delete", *ref(case), "--wait=false")
    check_admitted("preemption Always on cpp-deleting being deleted",
                   run_kubectl(api, "patch", *ref(case), "--type=merge", "-p", preempt), case,
                   DELETING)
    stored = get(api, case)
    check(stored["spec"]["preemption"] == "Always" and stored["metadata"].get("deletionTimestamp"),
          "cpp-deleting: preemption %r, deletionTimestamp %r", stored["spec"]["preemption"],
          stored["metadata"].get("deletionTimestamp"))
    proc = run_kubectl(api, "patch", *ref(case), "--type=json", "-p",
                       json.dumps([{"op": "remove", "path": "/metadata/finalizers"}]))
    check_admitted("the finalizer removal of cpp-deleting", proc, case, DELETING)
    check_gone(api, case)


def test_warn_mode_admits_strict_violations(api, webhook):
    """--strict-rules=warn: a CREATE breaking a strict rule is admitted, stored and warned about;
    an upstream violation is still denied."""
    webhook.restart("--strict-rules=warn")
    for case in [c.renamed("-warn") for c in CASES[1:]]:
        check_admitted("CREATE of %s %s under --strict-rules=warn" % (case.kind, case.name),
                       run_kubectl(api, "create", "-f", "-", input=case.manifest), case, WARN_MODE)
        stored = value_at(get(api, case), case.path)
        want = value_at(case.manifest, case.path)
        check(stored == want, "%s %s: %r stored, %r sent", case.kind, case.name, stored, want)
        print("  %-24s %-5s created with the warning" % (case.kind, case.rule), flush=True)
    upstream = [
        Case(ctp("ctp-no-execute-warn", "maintenance", effect="NoExecute"), "T-1",
             "spec.taints[0]"),
        Case(obj("PropagationPolicy", "pp-duplicate-warn", {
            "resourceSelectors": [DEPLOYMENT], "placement": {"clusterAffinities": [
                {"affinityName": "east"}, {"affinityName": "east"}]}}, True),
             "V-P5", "spec.placement.clusterAffinities[1].affinityName"),
    ]
    for case in upstream:
        check_denied("CREATE of %s %s (%s) under --strict-rules=warn" % (case.kind, case.name,
                                                                        case.rule),
                     run_kubectl(api, "create", "-f", "-", input=case.manifest), case)
        check_gone(api, case)


def run(args, api):
    t0 = time.monotonic()
    for row in harness.kind_table(args.binary):
        RESOURCES[row.kind] = row.resource
    certs = harness.make_certs(args.source)
    webhook = Webhook(args, certs)
    webhook.start("--strict-rules=off")
    try:
        api.register(webhook.server)
        print("  registered in %.1f s" % (time.monotonic() - t0), flush=True)
        status = harness.run_tests([test_violations_are_stored_while_off], api, webhook)
        if status == 0:
            webhook.restart()   # the default: --strict-rules=deny
            status = harness.run_tests([test_a_new_violation_is_denied,
                                        test_an_unchanged_violation_ratchets,
                                        test_a_changed_violation_is_denied,
                                        test_a_fixed_violation_is_admitted_without_warning,
                                        test_a_violating_object_is_deleted,
                                        test_a_new_violation_while_deleting_is_admitted,
                                        test_warn_mode_admits_strict_violations], api, webhook)
        api.unregister()
        webhook.stop()
    finally:
        if webhook.server is not None and webhook.server.alive():
            webhook.server.proc.kill()
    print("test_apiserver_update_delete: %.1f s in all" % (time.monotonic() - t0), flush=True)
    return status


if __name__ == "__main__":
    kube.main(run)
