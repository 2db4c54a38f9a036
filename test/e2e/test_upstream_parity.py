#!/usr/bin/env python3
"""End-to-end parity with upstream's webhook behind a real API server (test/e2e/upstream/).

Every row of recorded.jsonl and recorded-more.jsonl goes through `karmada-policy-webhook check -o
json --show-defaults` (our offline model of that admission chain: null pruning, CRD defaults, our
mutator, defaults again, our validator); the verdict and the stored object must be upstream's,
except for the deliberate differences listed below by id, each with its reason
(docs/compatibility.md, "End-to-end parity"). A listed difference that no longer differs fails too,
so the list stays true. This is the test for machines without the API server's binaries;
test_apiserver_parity.py replays the same rows through a real kube-apiserver.

    test_upstream_parity.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

FILES = ("recorded.jsonl", "recorded-more.jsonl")
PERMANENT_IDS = ("propagationpolicy.karmada.io/permanent-id",
                 "clusterpropagationpolicy.karmada.io/permanent-id")

# id -> (our verdict: "admitted" or "denied", why we differ). Verdict differences only where our
# strict rules deny more, or where upstream's outcome is harmful (docs/compatibility.md).
VERDICT_DIFFERENCES = {
    "a17-cpp-preempt-always-deploy-no-ns": ("denied", "D-R2 (strict): a preempting CPP must pin a "
                                            "Deployment to a namespace"),
    "m10-purgemode-empty": ("admitted", "H7: purgeMode \"\" is judged as the Gracefully it is stored "
                            "as and gets its grace period, not upstream's misleading 403"),
    # recorded-more.jsonl
    "o26-legacy-fieldoverrider-with-rules": ("denied", "D-O1 (strict, B-1): a legacy fieldOverrider "
                                             "beside overrideRules, which upstream ignores"),
    "o28-null-rule-item": ("denied", "OS-3 (strict): a null override rule is named (upstream's "
                           "mutator stores an empty rule in its place)"),
    "o29-image-add-empty-value": ("denied", "D-O3 (strict): an imageOverrider add without a value"),
    "c07-explicit-empties": ("denied", "D-O3 (strict): an imageOverrider replace with an empty "
                             "value"),
    "t04-same-key-different-effect": ("denied", "D-T1 (strict): effect \"noexecute\" is not a taint "
                                      "effect"),
    "t07-bad-key-and-value": ("denied", "D-T1 (strict): a taint key and value a Cluster refuses"),
    "t10-fieldselector-bad-key": ("denied", "D-T1 (strict): a targetClusters field selector key "
                                  "other than provider, region, zone"),
    "t11-condition-operator-and-status": ("denied", "D-T1 (strict): condition operator Foo, "
                                          "statusValues Maybe"),
    "q08-duplicate-clustername": ("denied", "D-Q1 (strict): two staticAssignments for one "
                                  "cluster"),
    "q20-status-on-create": ("denied", "check only: check judges status as written (Q-11...Q-13), "
                             "as an audit of stored objects needs (every UPDATE sends the stored "
                             "status to the webhook); on CREATE the API server drops status (a "
                             "status subresource) before any webhook, so behind it both admit"),
}

# id -> why the stored object differs while both admit.
STORED_DIFFERENCES = {
    "m13-replicascheduling-type-empty": "H1: replicaSchedulingType \"\" is stored as Divided with its "
                                        "Weighted preference; upstream stores Divided without one, "
                                        "which the scheduler refuses for every workload",
}


def run_check(binary: str, obj: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "object.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f)
        # The rows were recorded in the namespace `default`; check invents none (a kustomize base).
        proc = subprocess.run([binary, "check", "-o", "json", "--show-defaults",
                               "--namespace", "default", path],
                              capture_output=True, text=True, timeout=30)
    if proc.returncode not in (0, 1):
        raise AssertionError(f"check exited {proc.returncode}: {proc.stderr}")
    report = json.loads(proc.stdout)
    objects = report["objects"]
    if report["syntaxErrors"] or len(objects) != 1:
        raise AssertionError(f"check did not judge one object: {proc.stdout}")
    return objects[0]


def reduced(stored: dict) -> dict:
    """An object as recorded.jsonl keeps it: metadata reduced, the permanent id masked."""
    metadata = stored.get("metadata", {})
    out_meta = {k: copy.deepcopy(metadata[k])
                for k in ("name", "namespace", "labels", "finalizers") if k in metadata}
    for key in PERMANENT_IDS:
        if key in out_meta.get("labels", {}):
            out_meta["labels"][key] = "<uuid>"
    out = {"apiVersion": stored.get("apiVersion"), "kind": stored.get("kind"),
           "metadata": out_meta}
    if "spec" in stored:
        out["spec"] = copy.deepcopy(stored["spec"])
    return out


def without_artefacts(stored: dict, given: dict) -> dict:
    """Upstream's stored object without the `placement: {}` / `overriders: {}` its re-marshal adds
    where the input has no such member (meaningless artefacts we do not add)."""
    out = copy.deepcopy(stored)
    spec = out.get("spec", {})
    given_spec = given.get("spec") if isinstance(given.get("spec"), dict) else {}
    for key in ("placement", "overriders"):
        if spec.get(key) == {} and given_spec.get(key) is None:
            del spec[key]
    return out


def load_rows(source: str) -> list:
    rows = []
    for name in FILES:
        with open(os.path.join(source, "test", "e2e", "upstream", name), encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    rows = load_rows(args.source)
    failures = []
    seen = set()
    agreed = 0
    for row in rows:
        rid = row["id"]
        seen.add(rid)
        upstream = row["upstream"]
        ours = run_check(args.binary, row["input"])
        admitted = ours["verdict"] == "valid"
        expected = upstream["admitted"]
        if rid in VERDICT_DIFFERENCES:
            want, _ = VERDICT_DIFFERENCES[rid]
            if admitted != (want == "admitted") or admitted == expected:
                failures.append(f"{rid}: listed difference ({want}) but ours "
                                f"{'admitted' if admitted else 'denied'}, upstream "
                                f"{'admitted' if expected else 'denied'}: {ours['errors']}")
            continue
        if admitted != expected:
            failures.append(f"{rid}: upstream {'admitted' if expected else 'denied'} "
                            f"({upstream['stage']} {upstream['error'][:200]}), ours "
                            f"{'admitted' if admitted else 'denied'}: "
                            f"{[e['message'] for e in ours['errors']][:3]}")
            continue
        if not admitted:
            agreed += 1
            continue
        mine = reduced(ours["object"])
        theirs = without_artefacts(upstream["stored"], row["input"])
        generate = row["input"].get("metadata", {}).get("generateName")
        if generate and "name" not in row["input"]["metadata"]:
            # The API server completes generateName with 5 random characters.
            name = theirs["metadata"].pop("name", "")
            if not name.startswith(generate):
                failures.append(f"{rid}: upstream's name {name!r} does not start with {generate!r}")
        same = mine == theirs
        if rid in STORED_DIFFERENCES:
            if same:
                failures.append(f"{rid}: listed stored difference but the objects are the same")
            continue
        if not same:
            failures.append(f"{rid}: stored objects differ\n    upstream {json.dumps(theirs, sort_keys=True)}"
                            f"\n    ours     {json.dumps(mine, sort_keys=True)}")
            continue
        agreed += 1
    for rid in list(VERDICT_DIFFERENCES) + list(STORED_DIFFERENCES):
        if rid not in seen:
            failures.append(f"{rid}: listed difference has no row in {' or '.join(FILES)}")
    print(f"{len(rows)} rows: {agreed} the same verdict and stored object, "
          f"{len(VERDICT_DIFFERENCES)} deliberate verdict differences, "
          f"{len(STORED_DIFFERENCES)} deliberate stored differences")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
