#!/usr/bin/env python3
"""Upstream's recorded outcomes replayed through a real kube-apiserver with our webhook in its place.

test/e2e/upstream/recorded.jsonl and recorded-more.jsonl hold, for 121 objects of the six
policy.karmada.io kinds, what upstream Karmada's webhook behind kube-apiserver answered and
stored (test/e2e/upstream/README.md). Here the API server (test/e2e/kube.py) gets Karmada's CRDs
and our own manifests (`api.register(webhook)`), and each row's input is created as the user
would: `kubectl create -f -` (namespace `default` unless the object names one; kubectl's default
strict field validation). Then, per row:

- the verdict: admitted or not, and the stage, read from kubectl's error text: `decode` (the API
  server could not decode it, 400), `schema` (the CRD's schema, 422), `mutate` (a mutating
  webhook's 400), `validate` (a webhook's 403) or `ok`;
- admitted: the object as stored (`kubectl get -o json`, one call for every kind), reduced as the
  recording reduces it (test_upstream_parity.reduced: name, namespace, labels with the
  permanent id masked, finalizers, the whole spec). The `placement: {}` and `overriders: {}`
  upstream's re-marshal adds where the input has no such member are meaningless artefacts we do
  not add: they are left out of upstream's object; a generateName row compares the prefix;
- denied at the same stage: the message. `decode` and `schema` messages come from the API server
  and must be upstream's, error for error (a list compared as a set: upstream's B-10 lists the
  errors of one map in Go's random order); a webhook's denial (`validate`) must come from our
  entry for the kind upstream's came from and name, for each of upstream's errors, its field or
  a field below it (our paths are more precise, docs/rules.md principle 2), except where
  MESSAGE_DIFFERENCES says why not.

Everything else equal to upstream, except the deliberate differences listed below by id with
their reason (docs/compatibility.md, "End-to-end parity"). A listed difference that no longer
differs fails the test too, so the lists stay true.

The replay runs twice against one API server: our server with its default flags
(`--strict-rules=deny`), then with `--strict-rules=off`, under which every row must get
upstream's verdict (only stage, message and stored-object differences may remain, each listed).
Between the two nothing is left behind: finalizers (no controller runs here to remove them) are
stripped, every object deleted, and the test checks that none is left.

    test_apiserver_parity.py --binary build/karmada-policy-webhook --source .
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
from test_upstream_parity import FILES, load_rows, reduced, without_artefacts  # noqa: E402

GROUP = "policy.karmada.io"

# The server's flags per mode: the default run passes none (its default is deny).
MODES = (("deny", ()), ("off", ("--strict-rules", "off")))

# id -> (our stage, why), with --strict-rules=deny only. Where our strict rules deny what
# upstream admits, or where upstream's outcome is harmful (docs/compatibility.md).
DENY_VERDICT_DIFFERENCES = {
    "a17-cpp-preempt-always-deploy-no-ns": (
        "validate", "D-R2 (strict): a preempting ClusterPropagationPolicy must pin a Deployment to "
        "a namespace"),
    "m10-purgemode-empty": (
        "ok", "H7: purgeMode \"\" is judged as the Gracefully it is stored as and gets its grace "
        "period, not upstream's misleading 403 about gracePeriodSeconds: null"),
    "o26-legacy-fieldoverrider-with-rules": (
        "validate", "D-O1 (strict, B-1): a legacy fieldOverrider beside overrideRules, which "
        "upstream admits and then silently ignores"),
    "o28-null-rule-item": (
        "schema", "OS-3 (strict): a null override rule is left in place, so the CRD's schema "
        "names it (upstream's mutator replaces it with an empty rule)"),
    "o29-image-add-empty-value": (
        "validate", "D-O3 (strict): an imageOverrider add without a value (upstream's round trip "
        "drops the \"\" and the rule fails only when applied)"),
    "c07-explicit-empties": (
        "validate", "D-O3 (strict): an imageOverrider replace with an empty value"),
    "t04-same-key-different-effect": (
        "validate", "D-T1 (strict): effect \"noexecute\" is not a taint effect; a Cluster "
        "refuses it and the merged taint patch fails for every policy"),
    "t07-bad-key-and-value": (
        "validate", "D-T1 (strict): a taint key and value a Cluster refuses"),
    "t10-fieldselector-bad-key": (
        "validate", "D-T1 (strict): a targetClusters field selector key other than provider, "
        "region, zone (upstream does not check it for this kind)"),
    "t11-condition-operator-and-status": (
        "validate", "D-T1 (strict): condition operator Foo and statusValues Maybe"),
    "q08-duplicate-clustername": (
        "validate", "D-Q1 (strict): two staticAssignments for one cluster (upstream keeps "
        "whichever comes last)"),
}

# id -> (our stage, why), in both modes: both refuse, at different stages.
STAGE_DIFFERENCES = {
    "a32-wrong-type-clusternames": (
        "schema", "a wrong JSON type: our mutator never denies, so the CRD's schema refuses it "
        "(422, naming the field); upstream's mutator fails to decode it into its Go struct (400)"),
}

# id -> why the stored object differs while both admit, in both modes.
STORED_DIFFERENCES = {
    "m13-replicascheduling-type-empty": (
        "H1: replicaSchedulingType \"\" is stored as Divided with its Weighted preference; "
        "upstream stores Divided without one, which the scheduler refuses for every workload"),
}

# id -> why our denial does not name upstream's field (both deny at the validate stage).
MESSAGE_DIFFERENCES = {
    "a39-suspension": "V-X1: upstream names spec.suspension.suspension, a field that does not "
                      "exist; we name spec.suspension.dispatchingOnClusters",
}

STAGES = ("decode", "schema", "mutate", "validate", "ok")


# --- what kubectl said -------------------------------------------------------------------------------

def outcome(proc) -> tuple:
    """(stage, message) of one `kubectl create`: the message as the API server's Status says it
    (kubectl's own wrapping taken off), "" when admitted."""
    if proc.returncode == 0:
        return "ok", ""
    text = proc.stderr.strip()
    m = re.search(r'^Error from server \((\w+)\): error when creating "STDIN": (.*)$', text, re.S)
    if m:
        reason, message = m.groups()
        if "admission webhook" in message and "denied the request" in message:
            return ("validate" if reason == "Forbidden" else
                    "mutate" if reason == "BadRequest" else "webhook-" + reason), message
        if reason == "BadRequest" and "cannot be handled as a" in message:
            return "decode", message
        return "error-" + reason, message
    # 422: `The <Kind> "<name>" is invalid: <one error>` or `... is invalid: \n* e1\n* e2`.
    m = re.match(r'^The (\w+) "([^"]*)" is invalid: (.*)$', text, re.S)
    if m:
        return "schema", m.group(3)
    return "error", text


FIELD_START = re.compile(r", (?=(?:metadata|spec|status)[.\[:])")


def errors_of(message: str) -> list:
    """The errors one message lists: `[e1, e2]` (the Status.message of several), kubectl's
    `\\n* e1\\n* e2`, or one error."""
    message = message.strip()
    if message.startswith("* ") or "\n* " in message:
        return [e.strip() for e in message.lstrip("* ").split("\n* ")]
    if message.startswith("[") and message.endswith("]"):
        return FIELD_START.split(message[1:-1])
    return [message]


ENTRY = re.compile(r'admission webhook "([^"]+)" denied the request')
OUR_ENTRY_SUFFIX = ".karmada-policy-webhook.karmada.io"


def after(message: str, marker: str) -> str:
    return message.split(marker, 1)[1] if marker in message else message


def field_of(error: str) -> str:
    return error.split(": ", 1)[0]


def below(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent + ".") or path.startswith(parent + "[")


def message_problem(row: dict, stage: str, ours: str) -> str:
    """Why our denial's message is not upstream's at the same stage, or ""."""
    theirs = row["upstream"]["error"]
    if stage == "decode":
        marker = "strict decoding error: "
        mine = (ours.split(marker, 1)[0], set(after(ours, marker).split(", ")))
        up = (theirs.split(marker, 1)[0], set(after(theirs, marker).split(", ")))
        return "" if mine == up else "decode error %r, upstream %r" % (ours, theirs)
    if stage == "schema":
        want = set(errors_of(after(theirs, " is invalid: ")))
        got = set(errors_of(ours))
        return "" if got == want else "schema errors %s, upstream %s" % (sorted(got), sorted(want))
    if stage == "validate":
        # Upstream's entry `<kind>.karmada.io` is ours `<kind>.karmada-policy-webhook.karmada.io`.
        want = [n.replace(".karmada.io", OUR_ENTRY_SUFFIX) for n in ENTRY.findall(theirs)[:1]]
        if ENTRY.findall(ours)[:1] != want:
            return "denied by %s, upstream by %s" % (ENTRY.findall(ours)[:1],
                                                    ENTRY.findall(theirs)[:1])
        mine = [field_of(e) for e in errors_of(after(ours, "denied the request: "))]
        missing = [field_of(e) for e in errors_of(after(theirs, "denied the request: "))
                   if not any(below(p, field_of(e)) for p in mine)]
        return "" if not missing else "upstream's fields %s not named by ours: %s" % (
            missing, ours[:400])
    return ""


# --- what is stored --------------------------------------------------------------------------------

def stored_problem(row: dict, obj: dict) -> str:
    """Why our stored object is not upstream's, or ""."""
    mine = reduced(obj)
    theirs = without_artefacts(row["upstream"]["stored"], row["input"])
    generate = row["input"].get("metadata", {}).get("generateName")
    if generate and "name" not in row["input"]["metadata"]:
        # The API server completes generateName with 5 random characters.
        for who, o in (("upstream's", theirs), ("our", mine)):
            name = o["metadata"].pop("name", "")
            if not (name.startswith(generate) and len(name) == len(generate) + 5):
                return "%s name %r is not %r and 5 characters" % (who, name, generate)
    if mine == theirs:
        return ""
    return "stored objects differ\n      upstream %s\n      ours     %s" % (
        json.dumps(theirs, sort_keys=True), json.dumps(mine, sort_keys=True))


# --- the replay ------------------------------------------------------------------------------------

class Kinds:
    """Resource names and scopes from the kind table: `<resource>.policy.karmada.io`."""

    def __init__(self, binary: str):
        self.rows = {r.kind: r for r in harness.kind_table(binary) if r.group == GROUP}

    def resource(self, kind: str) -> str:
        return "%s.%s" % (self.rows[kind].resource, GROUP)

    def namespaced(self, kind: str) -> bool:
        return self.rows[kind].scope == "Namespaced"

    def all(self) -> str:
        return ",".join(self.resource(k) for k in self.rows)

    def key(self, kind: str, ns: str, name: str) -> tuple:
        return (kind, ns if self.namespaced(kind) else "", name)


def key_of_stored(kinds: Kinds, obj: dict) -> tuple:
    md = obj["metadata"]
    return kinds.key(obj["kind"], md.get("namespace", ""), md["name"])


def strip_finalizers(api, objects: list) -> None:
    """One `kubectl patch` for every object that has finalizers (no controller runs here)."""
    held = [o for o in objects if o["metadata"].get("finalizers")]
    if held:
        api.kubectl("patch", "-f", "-", "--type", "merge", "-p", '{"metadata":{"finalizers":null}}',
                    input={"apiVersion": "v1", "kind": "List", "items": held})


def remove(api, kinds: Kinds, objects: list) -> None:
    strip_finalizers(api, objects)
    if objects:
        api.kubectl("delete", "--wait=false", "-f", "-",
                    input={"apiVersion": "v1", "kind": "List", "items": objects})


def get_all(api, kinds: Kinds) -> dict:
    """Every object of the policy kinds, by key: one `kubectl get` for all of them."""
    items = api.kubectl_json("get", kinds.all(), "--all-namespaces")["items"]
    return {key_of_stored(kinds, o): o for o in items}


def replay(api, kinds: Kinds, rows: list) -> tuple:
    """Creates every row; returns ({id: (stage, message)}, {id: stored object})."""
    outcomes, stored = {}, {}
    created = {}  # key -> row id, for the rows admitted since the last read
    for row in rows:
        obj = row["input"]
        md = obj.get("metadata", {})
        key = kinds.key(obj["kind"], md.get("namespace", "default"), md.get("name"))
        if key in created:
            # A later row reuses the name (the recording started each row afresh): read what is
            # stored so far, then remove it.
            found = get_all(api, kinds)
            for k, rid in created.items():
                check(k in found, "%s was admitted but is not stored", rid)
                stored[rid] = found[k]
            remove(api, kinds, list(found.values()))
            created = {}
        proc = api.kubectl("create", "-f", "-", "-o", "json", input=obj, check=False)
        outcomes[row["id"]] = outcome(proc)
        if proc.returncode == 0:
            made = json.loads(proc.stdout)
            created[key_of_stored(kinds, made)] = row["id"]
    found = get_all(api, kinds)
    for k, rid in created.items():
        check(k in found, "%s was admitted but is not stored", rid)
        stored[rid] = found[k]
    return outcomes, stored


def judge(mode: str, rows: list, outcomes: dict, stored: dict) -> tuple:
    """(failures, agreed, listed differences seen) of one mode."""
    failures = []
    agreed = 0
    listed = 0
    verdict_differences = DENY_VERDICT_DIFFERENCES if mode == "deny" else {}
    for row in rows:
        rid = row["id"]
        up = row["upstream"]
        up_stage = up["stage"]
        stage, message = outcomes[rid]
        check(up_stage in STAGES, "%s: upstream's stage %r", rid, up_stage)
        admitted = stage == "ok"
        if rid in verdict_differences or rid in STAGE_DIFFERENCES:
            want, _ = verdict_differences.get(rid) or STAGE_DIFFERENCES[rid]
            if stage != want or stage == up_stage:
                failures.append("%s: listed difference (ours %s) but ours %s, upstream %s: %s"
                                % (rid, want, stage, up_stage, message[:300]))
            elif rid in STAGE_DIFFERENCES and admitted != up["admitted"]:
                failures.append("%s: a stage difference must keep upstream's verdict" % rid)
            else:
                listed += 1
            continue
        if stage != up_stage:
            failures.append("%s: upstream %s (%s), ours %s: %s" % (
                rid, up_stage, up["error"][:200], stage, message[:300]))
            continue
        if not admitted:
            problem = message_problem(row, stage, message)
            if rid in MESSAGE_DIFFERENCES:
                if not problem:
                    failures.append("%s: listed message difference but ours names upstream's "
                                    "fields: %s" % (rid, message[:300]))
                else:
                    listed += 1
            elif problem:
                failures.append("%s: %s" % (rid, problem))
            else:
                agreed += 1
            continue
        problem = stored_problem(row, stored[rid])
        if rid in STORED_DIFFERENCES:
            if not problem:
                failures.append("%s: listed stored difference but the objects are the same" % rid)
            elif problem.startswith("stored objects differ"):
                listed += 1
            else:
                failures.append("%s: %s" % (rid, problem))
            continue
        if problem:
            failures.append("%s: %s" % (rid, problem))
        else:
            agreed += 1
    return failures, agreed, listed


def run_mode(api, args, kinds: Kinds, rows: list, mode: str, flags: tuple, first: bool) -> list:
    t0 = time.monotonic()
    certs = harness.make_certs(args.source)
    with harness.Server(args.binary, certs, *flags) as webhook:
        api.register(webhook, crds=first)
        try:
            outcomes, stored = replay(api, kinds, rows)
        finally:
            # Leave nothing behind: without our configurations (failurePolicy Fail), strip the
            # finalizers and delete every object, so the next mode starts from nothing.
            api.unregister()
            remove(api, kinds, list(get_all(api, kinds).values()))
    left = api.kubectl("get", kinds.all(), "--all-namespaces", "-o", "name").stdout.split()
    failures, agreed, listed = judge(mode, rows, outcomes, stored)
    if left:
        failures.append("left behind: %s" % left)
    ids = {r["id"] for r in rows}
    lists = [STAGE_DIFFERENCES, STORED_DIFFERENCES, MESSAGE_DIFFERENCES] + (
        [DENY_VERDICT_DIFFERENCES] if mode == "deny" else [])
    for rid in sorted(set().union(*lists) - ids):
        failures.append("%s: listed difference has no row in %s" % (rid, " or ".join(FILES)))
    print("--strict-rules=%s: %d rows: %d the same verdict, stage and stored object or message, "
          "%d deliberate differences (%d verdict, %d stage, %d stored, %d message); %.1f s"
          % (mode, len(rows), agreed, listed,
             len(DENY_VERDICT_DIFFERENCES) if mode == "deny" else 0, len(STAGE_DIFFERENCES),
             len(STORED_DIFFERENCES), len(MESSAGE_DIFFERENCES), time.monotonic() - t0),
          flush=True)
    return ["--strict-rules=%s: %s" % (mode, f) for f in failures]


def run(args, api):
    t0 = time.monotonic()
    rows = load_rows(args.source)
    kinds = Kinds(args.binary)
    unknown = sorted({r["input"]["kind"] for r in rows} - set(kinds.rows))
    check(not unknown, "kinds of the recording the server does not serve: %s", unknown)
    failures = []
    for i, (mode, flags) in enumerate(MODES):
        failures += run_mode(api, args, kinds, rows, mode, flags, i == 0)
    for f in failures:
        print("FAIL " + f, flush=True)
    print("%s: %d rows x %d modes in %.1f s" % ("FAIL" if failures else "PASS", len(rows),
                                                len(MODES), time.monotonic() - t0), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    kube.main(run)
