#!/usr/bin/env python3
"""CFH-5's cron grammar against upstream's own webhook: random schedules, the same verdict.

Schedules are drawn (a fixed seed) from numbers in and out of every field's bounds, `*`, `?`,
names, `L`, `W`, `#`, ranges, steps, lists, 4 to 8 fields and macros, 25 to a CronFederatedHPA, and
posted to upstream's karmada-webhook binary (../shared/upstream, `kube.upstream_webhook`) and to
ours. For each schedule, `invalid cron format` must be in both answers or in neither, except one
way only, D-C1 (docs/compatibility.md, "CronFederatedHPA"): we may refuse a schedule upstream
admits when its verdict can depend on the clock (a field of several items, where upstream stops at
the one matching now; a non-numeric item in the second, minute or hour field, which upstream skips
while that field's value is 0). A schedule upstream refuses and we admit always fails. No negative
step is ever sent: upstream's step loop never ends on one. Skips (exit 77) without upstream's
binary.

    test_upstream_cron.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import check  # noqa: E402
from test_upstream_fixtures import post, run_beside_upstream  # noqa: E402

PATH = "/validate-cronfederatedhpa"
SEED = 20261126
BATCHES = 120
PER_BATCH = 25  # well under the 100 errors an answer shows

ATOMS = ["*", "?", "0", "1", "5", "7", "12", "13", "23", "24", "31", "32", "59", "60", "2026",
         "10000", "L", "W", "15W", "5L", "1#2", "7#1", "MON", "jan", "SUN", "FRI", "+3", "00", "x",
         ""]


def item(rnd):
    a = rnd.choice(ATOMS)
    r = rnd.random()
    if r < 0.3:
        return a
    if r < 0.55:
        return a + "-" + rnd.choice(ATOMS)
    if r < 0.75:
        step = rnd.choice(["1", "2", "5", "0", "15", "x", "+2", ""])
        return rnd.choice(["*", "0", a, a + "-" + rnd.choice(ATOMS)]) + "/" + step
    return a


def schedule(rnd):
    if rnd.random() < 0.05:
        return rnd.choice(["@daily", "@DAILY", "@5minutes", "@midnight", "@every 1h", "@weekly",
                           "@EverySecond", "@always", "@reboot"])
    fields = [",".join(item(rnd) for _ in range(rnd.choice([1, 1, 1, 2, 3])))
              for _ in range(rnd.choice([4, 5, 5, 5, 6, 6, 7, 8]))]
    return rnd.choice([" ", "  ", "\t"]).join(fields)


def clock_dependent(text: str) -> bool:
    """Whether upstream's verdict on `text` can depend on the time it is asked."""
    fields = text.split()
    if any("," in f for f in fields):
        return True
    # With 5 fields (or a sixth holding four digits: a year) gronx prepends the second: the first
    # 2 are minute and hour, else the first 3 are second, minute and hour. While such a field's
    # value is 0, upstream admits any item in it without `/` or `-`.
    prepended = len(fields) == 5 or (len(fields) == 6 and re.search(r"\d{4}", fields[5]))
    timed = fields[:2] if prepended else fields[:3]
    return any("/" not in f and "-" not in f and f not in ("*", "?") for f in timed)


def review(schedules, uid):
    rules = [{"name": "r%d" % i, "schedule": s, "targetMinReplicas": 1}
             for i, s in enumerate(schedules)]
    obj = {"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "CronFederatedHPA",
           "metadata": {"name": "random", "namespace": "default", "resourceVersion": "1"},
           "spec": {"scaleTargetRef": {"apiVersion": "autoscaling.karmada.io/v1alpha1",
                                       "kind": "FederatedHPA", "name": "web"}, "rules": rules}}
    kind = {"group": "autoscaling.karmada.io", "version": "v1alpha1", "kind": "CronFederatedHPA"}
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": {"uid": uid, "kind": kind,
                                   "resource": {"group": kind["group"], "version": "v1alpha1",
                                                "resource": "cronfederatedhpas"},
                                   "name": "random", "namespace": "default",
                                   "operation": "CREATE", "object": obj}}).encode()


def refused(answer, index: int) -> bool:
    """Whether the answer's message holds CFH-5 for rule `index` (upstream's answers have no
    causes: its message is the aggregate, `[e1, e2, ...]`)."""
    message = answer["response"].get("status", {}).get("message") or ""
    key = "spec.rules[%d].schedule: Invalid value: " % index
    if key not in message:
        return False
    return message.split(key, 1)[1].split(", spec.rules[", 1)[0].rstrip("]").endswith(
        "invalid cron format")


def test_same_verdicts(env):
    rnd = random.Random(SEED)
    problems, compared, stricter = [], 0, 0
    for batch in range(BATCHES):
        schedules = [s for s in (schedule(rnd) for _ in range(PER_BATCH)) if "/-" not in s]
        body = review(schedules, "00000000-0000-4000-8000-%012d" % batch)
        theirs, ours = (post(port, env.ca, PATH, body) for port in (env.upstream_port, env.ours))
        for i, s in enumerate(schedules):
            compared += 1
            up, us = refused(theirs, i), refused(ours, i)
            if up and not us:
                problems.append("upstream refuses %r, we admit it" % s)
            elif us and not up:
                stricter += 1
                if not clock_dependent(s):
                    problems.append("we refuse %r, upstream admits it (not a clock case)" % s)
    print("  %d schedules, %d refused by us only (D-C1: upstream's clock)" % (compared, stricter),
          flush=True)
    check(not problems, "\n  ".join(problems[:20]))


def main(args):
    return run_beside_upstream(args, "upstream-cron", [test_same_verdicts])


if __name__ == "__main__":
    harness.main(main)
