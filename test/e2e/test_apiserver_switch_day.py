#!/usr/bin/env python3
"""Switch day: objects stored under upstream's karmada-webhook keep working under ours.

docs/operations.md, "Switching by image", promises that a live federation can swap
upstream's webhook for ours with no object frozen: strict rules ratchet on UPDATE (an unchanged
violation is allowed with a warning) and never deny an object being deleted (docs/compatibility.md,
"Rule classes, ratcheting and --strict-rules"). This test does it on a real kube-apiserver
(test/e2e/kube.py), with kubectl, the user's tool:

1. Upstream's own karmada-webhook binary (`kube.upstream_webhook`) is started with a serving pair
   of certs/make-certs.sh and registered with ITS OWN webhook configuration (upstream's
   webhook-configuration.yaml, URLs pointed at 127.0.0.1:its port, caBundle filled: every entry,
   failurePolicy Fail), after Karmada's CRDs and, when a row is a ScheduleTrigger, our CRD for it
   (such a row is stored as sent: upstream has no webhook for that kind).
2. Every row that upstream admitted of test/e2e/upstream/recorded.jsonl and recorded-more.jsonl
   (the shared reference copy of a file the repository lacks) is created with `kubectl create`
   and must be admitted again and stored as recorded (this checks the replay, not our server).
3. The audit of docs/operations.md, step 1 (`kubectl get <kinds> -A -o yaml`, `karmada-policy-webhook
   check --strict-rules=deny`): nothing upstream stored may break a rule of class upstream; what
   only our strict rules deny is what our UPDATEs must ratchet. Then the swap, in one go: a copy of
   upstream's two configurations kept for a rollback, both deleted, ours applied (the url overlay,
   `ApiServer.register`) and called, upstream's process stopped. Steps 2 and 3 of that section
   (a week with --strict-rules=warn) are skipped: ours serves with default flags, deny.
4. Through ours, for every stored object: a label UPDATE (`kubectl label`), an unchanged `kubectl
   replace` of it as read back, and a delete (`kubectl delete`); an object with finalizers also
   has them removed (`kubectl patch --type=json`), put back as Karmada's controller does for a live
   policy, and removed again after the delete, as the controller does for an object being deleted.
   No call may be denied or fail ("failed calling webhook"); for each strict finding of the audit,
   and only for those, kubectl shows `<field>: ... [<rule>]; allowed because it is unchanged ...`
   (`allowed because the object is being deleted` for the last removal); nothing is left behind
   (`kubectl get <every kind we serve> -A` lists nothing).

Skips (exit 77) without upstream's binary, as without envtest. Failures name the object (its kind,
namespace, name and row), the step, and what kubectl printed.

    test_apiserver_switch_day.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

ROW_FILES = ("recorded.jsonl", "recorded-more.jsonl")
UPSTREAM_HOST = "https://karmada-webhook.karmada-system.svc:443/"
UPSTREAM_CONFIGS = ("mutatingwebhookconfiguration/mutating-config",
                    "validatingwebhookconfiguration/validating-config")
UPSTREAM_START_TIMEOUT = 30.0
LABEL = "kpw-switch-day"            # the label our UPDATE adds
RATCHET = "allowed because it is unchanged"
DELETING = "allowed because the object is being deleted"
FAILED_CALL = "failed calling webhook"
SHOWN_WARNINGS = 8
WORKERS = 4                          # kubectl processes at once (they mostly wait on the API server)
HOW_TO_GET_UPSTREAM = ("put the project beside ../shared/upstream (karmada-webhook.xz) or set "
                       "KPW_SHARED_DIR to a folder holding upstream/karmada-webhook.xz")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


# --- the rows ------------------------------------------------------------------------------------------

def row_file(source: str, name: str) -> str:
    """test/e2e/upstream/<name> when the repository has it, else ../shared/e2e-upstream/<name>."""
    own = os.path.join(source, "test", "e2e", "upstream", name)
    return own if os.path.isfile(own) else os.path.join(kube.shared_dir(source), "e2e-upstream", name)


class Obj:
    """One admitted row: its input, where it is stored, what upstream stored."""

    def __init__(self, row: dict, rows_file: str, resources: dict):
        self.id = row["id"]
        self.file = os.path.basename(rows_file)
        self.input = json.loads(json.dumps(row["input"]))
        self.recorded = row["upstream"]["stored"]
        self.kind = self.input["kind"]
        self.group = self.input["apiVersion"].split("/")[0]
        kind_row = resources.get((self.group, self.kind))
        check(kind_row is not None, "row %s of %s: %s/%s is not a kind we serve", self.id, self.file,
              self.group, self.kind)
        self.resource = "%s.%s" % (kind_row.resource, self.group)
        meta = self.input["metadata"]
        self.namespace = (meta.get("namespace") or "default") if kind_row.scope == "Namespaced" \
            else None
        self.name = meta.get("name")            # None until created when it has generateName
        self.renamed_from = None
        self.strict_findings = []               # the audit's strict-only errors for it
        self.finalizers = []                    # as stored, before ours removes them
        self.warnings = {}                      # step -> kubectl's "Warning:" lines

    def key(self):
        return (self.resource, self.namespace, self.name)

    def where(self) -> list:
        return ["-n", self.namespace] if self.namespace else []

    def __str__(self):
        name = self.name or self.input["metadata"].get("generateName", "?") + "*"
        ns = self.namespace + "/" if self.namespace else ""
        extra = " (renamed from %s)" % self.renamed_from if self.renamed_from else ""
        return "%s %s%s [row %s of %s%s]" % (self.kind, ns, name, self.id, self.file, extra)


def load_objects(source: str, resources: dict) -> list:
    """Every admitted row of both files. Rows recorded one at a time may share a name (two
    PropagationPolicies `foo`): the later one is renamed <name>-<id>, its spec untouched."""
    objs, taken = [], set()
    for name in ROW_FILES:
        path = row_file(source, name)
        check(os.path.isfile(path), "no %s (test/e2e/upstream/ or ../shared/e2e-upstream/)", path)
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        check(rows, "%s holds no row", path)
        for row in rows:
            if not row["upstream"]["admitted"]:
                continue
            obj = Obj(row, path, resources)
            if obj.name is not None and obj.key() in taken:
                obj.renamed_from = obj.name
                obj.name = "%s-%s" % (obj.name, re.sub(r"[^a-z0-9]+", "-", obj.id.lower()))[:63]
                obj.input["metadata"]["name"] = obj.name
            taken.add(obj.key())
            objs.append(obj)
    return objs


# --- upstream's webhook ---------------------------------------------------------------------------------

class Upstream:
    """Upstream's karmada-webhook on 127.0.0.1:<free port> (its README's command line)."""

    def __init__(self, binary: str, cert_dir: str, workdir: str):
        self.binary = binary
        self.cert_dir = cert_dir
        self.ca = os.path.join(cert_dir, "ca.crt")
        self.log = os.path.join(workdir, "karmada-webhook.log")
        self.port = None
        self.proc = None

    def start(self) -> "Upstream":
        for attempt in range(3):
            self.port = harness.free_port()
            self.proc = kube.spawn([self.binary, "--bind-address", "127.0.0.1", "--secure-port",
                                    str(self.port), "--cert-dir", self.cert_dir], self.log)
            deadline = time.monotonic() + UPSTREAM_START_TIMEOUT
            while time.monotonic() < deadline and self.proc.poll() is None:
                if self.ready():
                    return self
                time.sleep(0.1)
            kube.stop_process(self.proc)
            if attempt == 2 or "address already in use" not in kube.tail(self.log):
                raise AssertionError("upstream's karmada-webhook did not answer /readyz/ within "
                                     "%.0f s; log:\n%s" % (UPSTREAM_START_TIMEOUT,
                                                          kube.tail(self.log)))

    def ready(self) -> bool:
        return kube.webhook_ready(self.port, self.ca)

    def stop(self):
        kube.stop_process(self.proc)
        return self.proc.returncode

    def configuration(self, source: str) -> str:
        """Upstream's webhook-configuration.yaml, pointed at this process: every service URL and
        every {{caBundle}} replaced (text substitution, as a deployer's template does)."""
        path = os.path.join(kube.shared_dir(source), "upstream", "webhook-configuration.yaml")
        with open(path) as f:
            text = f.read()
        entries = len(re.findall(r"^  - name: ", text, re.M))
        urls, cas = text.count(UPSTREAM_HOST), text.count("{{caBundle}}")
        check(entries > 0 and urls == entries and cas == entries,
              "%s: %d entries, %d service URLs, %d {{caBundle}}: not one of each per entry",
              path, entries, urls, cas)
        with open(self.ca, "rb") as f:
            ca = base64.b64encode(f.read()).decode()
        return text.replace(UPSTREAM_HOST, "https://127.0.0.1:%d/" % self.port).replace(
            "{{caBundle}}", ca)


# --- kubectl --------------------------------------------------------------------------------------------

def warnings_of(stderr: str) -> list:
    return [line[len("Warning: "):] for line in stderr.splitlines() if line.startswith("Warning: ")]


def said(proc) -> str:
    return ("exit %d; stdout: %s; stderr: %s" % (proc.returncode, proc.stdout.strip()[:600],
                                                 proc.stderr.strip()[:1500]))


def step(api, obj: Obj, name: str, *args, input=None):
    """One kubectl call of step `name` for obj; raises with the object, the step and what kubectl
    printed when it fails, is denied or shows a failed webhook call. Returns the CompletedProcess."""
    proc = api.kubectl(*args, input=input, check=False)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0 or FAILED_CALL in out or "denied the request" in out:
        raise AssertionError("%s: %s (kubectl %s): %s" % (obj, name, " ".join(args), said(proc)))
    obj.warnings[name] = obj.warnings.get(name, []) + warnings_of(proc.stderr)
    return proc


def list_all(api, resources: list) -> list:
    return api.kubectl_json("get", ",".join(resources), "-A")["items"]


def object_key(item: dict, plural: dict):
    group = item["apiVersion"].split("/")[0]
    return ("%s.%s" % (plural[(group, item["kind"])], group),
            item["metadata"].get("namespace"), item["metadata"]["name"])


# --- the steps --------------------------------------------------------------------------------------------

def create_under_upstream(api, objs: list):
    """All inputs in one `kubectl create -f -`; every one must be admitted."""
    t0 = time.monotonic()
    # One document per object, as a user's file holds them: a v1 List would be validated by
    # kubectl's client-side schema, not by the API server's field validation the rows recorded.
    proc = api.kubectl("create", "-o", "name", "-f", "-", check=False,
                       input="\n---\n".join(json.dumps(o.input) for o in objs))
    created = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    names = {}
    for line in created:
        kind_group, name = line.split("/", 1)
        names.setdefault(kind_group, []).append(name)
    missing = []
    for obj in objs:
        kind_group = "%s.%s" % (obj.kind.lower(), obj.group)
        got = names.get(kind_group, [])
        if obj.name is None:
            prefix = obj.input["metadata"]["generateName"]
            named = {o.name for o in objs if o.kind == obj.kind and o.name}
            fresh = [n for n in got if n.startswith(prefix) and n not in named]
            if len(fresh) == 1:
                obj.name = fresh[0]
                continue
        elif obj.name in got:
            continue
        missing.append(str(obj))
    check(proc.returncode == 0 and not missing and len(created) == len(objs),
          "under upstream's webhook, %d of %d rows upstream admitted were not created: %s\n"
          "kubectl create: %s", len(missing), len(objs), "\n  ".join(missing), said(proc))
    print("  created %d objects under upstream's webhook in %.1f s (%s)" % (
        len(objs), time.monotonic() - t0, ", ".join("%d %s" % (n, k) for k, n in sorted(
            count_by(objs, lambda o: o.kind).items()))), flush=True)


def count_by(items, key) -> dict:
    out = {}
    for item in items:
        out[key(item)] = out.get(key(item), 0) + 1
    return out


def stored_as_recorded(api, objs: list, resources: list, plural: dict):
    """What the API server stored under upstream is what upstream stored when the rows were
    recorded (this checks the replay, not our server): labels, finalizers and the whole spec."""
    stored = {object_key(i, plural): i for i in list_all(api, resources)}
    problems = []
    for obj in objs:
        item = stored.get(obj.key())
        if item is None:
            problems.append("%s: not stored" % obj)
            continue
        want, meta = obj.recorded, item["metadata"]
        labels = dict(meta.get("labels") or {})
        want_labels = dict(want["metadata"].get("labels") or {})
        for k, v in want_labels.items():
            if v == "<uuid>" and UUID.match(labels.get(k, "")):
                labels[k] = v
        for what, got, exp in (("labels", labels, want_labels),
                               ("finalizers", meta.get("finalizers") or [],
                                want["metadata"].get("finalizers") or []),
                               ("spec", item.get("spec"), want.get("spec"))):
            if got != exp:
                problems.append("%s: %s %s, upstream stored %s" % (obj, what, json.dumps(got),
                                                                   json.dumps(exp)))
    check(not problems, "stored under upstream's webhook unlike the recording:\n  %s",
          "\n  ".join(problems))


def audit(api, binary: str, workdir: str, objs: list, resources: list):
    """docs/operations.md, "Audit, warn, then deny", step 1: every stored object through
    `check --strict-rules=deny`. Upstream admitted all of them: none may be denied by a rule of
    class upstream; the strict-only findings are what our UPDATE must ratchet."""
    policies = os.path.join(workdir, "policies.yaml")
    with open(policies, "w") as f:
        f.write(api.kubectl("get", ",".join(resources), "-A", "-o", "yaml").stdout)
    proc = run_command([binary, "check", "--strict-rules=deny", "-o", "json", policies])
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        raise AssertionError("check -o json %s: %s" % (policies, said(proc)))
    by_key = {(o.kind, o.namespace, o.name): o for o in objs}
    upstream_class, seen = [], 0
    for entry in report["objects"]:
        kind, ns, name = entry["kind"], entry.get("namespace"), entry["name"]
        obj = by_key.get((kind, ns, name))
        check(obj is not None, "the audit judged %s %s/%s, which no row made", kind, ns, name)
        seen += 1
        for err in entry["errors"]:
            if err["class"] == "strict":
                obj.strict_findings.append(err)
            else:
                upstream_class.append("%s: %s [%s]" % (obj, err["message"], err["rule"]))
    check(seen == len(objs), "the audit judged %d objects, %d are stored: %s", seen, len(objs),
          proc.stdout[:2000])
    check(not upstream_class, "the audit says upstream's rules deny objects upstream stored:\n  %s",
          "\n  ".join(upstream_class))
    flagged = [o for o in objs if o.strict_findings]
    print("  audit (check --strict-rules=deny): %d objects, %d only denied by our strict rules%s"
          % (seen, len(flagged), "".join("\n    %s: %s" % (o, "; ".join(
              "%s [%s]" % (e["message"], e["rule"])
              for e in o.strict_findings))[:400] for o in flagged)), flush=True)


def run_command(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


REMOVE_FINALIZERS = '[{"op":"remove","path":"/metadata/finalizers"}]'


def label(api, obj: Obj):
    """A label UPDATE (`kubectl label`)."""
    step(api, obj, "label", "label", obj.resource, obj.name, *obj.where(), "%s=ours" % LABEL)


def replace_and_delete(api, obj: Obj, current: dict):
    """The rest of what a federation does to one stored object after the switch, through ours:

    - an unchanged `kubectl replace` of `current`, the object as `kubectl get -o json` read it;
    - with finalizers: their removal (`kubectl patch --type=json`), then what Karmada's controller
      does to a live policy, putting its finalizer back (a metadata-only UPDATE);
    - `kubectl delete`; an object with finalizers stays, being deleted, until the controller
      removes them: that UPDATE of an object being deleted goes through ours too."""
    res = [obj.resource, obj.name] + obj.where()
    check(current["metadata"].get("labels", {}).get(LABEL) == "ours",
          "%s: label: the stored object has no %s=ours: %s", obj, LABEL,
          json.dumps(current["metadata"])[:600])
    replaced = json.loads(step(api, obj, "replace", "replace", "-o", "json", "-f", "-",
                               input=current).stdout)
    obj.finalizers = replaced["metadata"].get("finalizers") or []
    if obj.finalizers:
        patched = json.loads(step(api, obj, "finalizers", "patch", *res, "--type=json", "-o",
                                  "json", "-p", REMOVE_FINALIZERS).stdout)
        check(not patched["metadata"].get("finalizers"),
              "%s: finalizers: removed, but stored with %s", obj,
              patched["metadata"].get("finalizers"))
        step(api, obj, "finalizers back", "patch", *res, "--type=merge", "-p",
             json.dumps({"metadata": {"finalizers": obj.finalizers}}))
    step(api, obj, "delete", "delete", *res, "--wait=false")
    if obj.finalizers:
        last = json.loads(step(api, obj, "finalizers of the deleted", "patch", *res, "--type=json",
                               "-o", "json", "-p", REMOVE_FINALIZERS).stdout)
        check(last["metadata"].get("deletionTimestamp"),
              "%s: finalizers of the deleted: the object was not being deleted: %s", obj,
              json.dumps(last["metadata"])[:600])


def run_parallel(fn, objs: list) -> list:
    """fn(obj) for every object, WORKERS at once; the failures, one line each."""
    failures = []
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        futures = {pool.submit(fn, o): o for o in objs}
        for future in concurrent.futures.as_completed(futures):
            try:
                future.result()
            except AssertionError as e:
                failures.append(str(e))
            except Exception as e:  # noqa: BLE001
                failures.append("%s: %s: %s" % (futures[future], e.__class__.__name__, e))
    return failures


def nothing_left(api, objs: list, resources: list, plural: dict):
    """`kubectl get <every kind we serve> -A` lists nothing; what is left is named."""
    proc = api.kubectl("get", ",".join(resources), "-A")
    if not proc.stdout.strip() and "No resources found" in proc.stderr and proc.returncode == 0:
        return
    by_key = {o.key(): o for o in objs}
    left = ["%s: %s" % (by_key.get(object_key(i, plural), object_key(i, plural)),
                        json.dumps({k: i["metadata"].get(k) for k in
                                    ("deletionTimestamp", "finalizers")}))
            for i in list_all(api, resources)]
    raise AssertionError("left behind after the deletes:\n  %s\nkubectl get: %s"
                         % ("\n  ".join(left), said(proc)))


# --- the test -----------------------------------------------------------------------------------------

def switch_day(args, api):
    t_start = time.monotonic()
    build_dir = os.path.dirname(args.binary)
    upstream_binary, why = kube.upstream_webhook(args.source, build_dir)
    if upstream_binary is None:
        kube.skip(why, how=HOW_TO_GET_UPSTREAM)
    rows = harness.kind_table(args.binary)
    kinds = {(r.group, r.kind): r for r in rows}
    plural = {(r.group, r.kind): r.resource for r in rows}
    resources = ["%s.%s" % (r.resource, r.group) for r in rows]
    objs = load_objects(args.source, kinds)
    workdir = harness.temp_dir("switch-day")

    # 1. A federation running upstream's webhook.
    api.install_karmada_crds()
    if any(o.kind == "ScheduleTrigger" for o in objs):
        api.kubectl("apply", "-k", os.path.join(args.source, "manifests", "crds"))
        api.kubectl("wait", "--for", "condition=established", "--timeout", "60s",
                    "crd/scheduletriggers.policy.karmada.io", timeout=90)
    upstream_certs = tempfile.mkdtemp(prefix="upstream-certs-", dir=workdir)
    made = run_command([os.path.join(args.source, "certs", "make-certs.sh"), "--force",
                        upstream_certs])
    check(made.returncode == 0, "certs/make-certs.sh for upstream's webhook: %s", said(made))
    upstream = Upstream(upstream_binary, upstream_certs, workdir).start()
    try:
        api.kubectl("apply", "-f", "-", input=upstream.configuration(args.source))
        api.wait_webhooks_called(entry="propagationpolicy.karmada.io")
        print("  upstream's karmada-webhook on 127.0.0.1:%d, its configurations registered "
              "(%.1f s)" % (upstream.port, time.monotonic() - t_start), flush=True)

        # 2. Every row upstream admitted, admitted again and stored as recorded.
        create_under_upstream(api, objs)
        stored_as_recorded(api, objs, resources, plural)

        # 3. Audit, then swap in one go: upstream's configurations out (a copy kept for a
        #    rollback), ours in, upstream's process stopped.
        audit(api, args.binary, workdir, objs, resources)
        for config in UPSTREAM_CONFIGS:
            with open(os.path.join(workdir, config.replace("/", "-") + ".json"), "w") as f:
                f.write(api.kubectl("get", config, "-o", "json").stdout)
    except BaseException:
        upstream.stop()
        print("upstream's karmada-webhook log (last lines):\n" + kube.tail(upstream.log))
        raise

    certs = harness.make_certs(args.source)
    with harness.Server(args.binary, certs) as webhook:   # default flags: --strict-rules=deny
        try:
            t_swap = time.monotonic()
            api.kubectl("delete", *UPSTREAM_CONFIGS)
            api.register(webhook, crds=False)
            status = upstream.stop()
            print("  swapped: upstream's configurations deleted, ours applied and called, upstream "
                  "stopped (exit %s) in %.1f s" % (status, time.monotonic() - t_swap), flush=True)
            left = [c for c in UPSTREAM_CONFIGS
                    if api.kubectl("get", c, check=False).returncode == 0]
            check(not left, "upstream's configurations still registered: %s", left)

            # 4. Through ours, every object: label; one `kubectl get -o json` of them all; replace,
            #    finalizers, delete.
            t_steps = time.monotonic()
            failures = run_parallel(lambda o: label(api, o), objs)
            check(not failures, "%d of %d objects stored under upstream's webhook failed "
                  "through ours:\n  %s", len(failures), len(objs), "\n  ".join(sorted(failures)))
            stored = {object_key(i, plural): i for i in list_all(api, resources)}
            missing = [str(o) for o in objs if o.key() not in stored]
            check(not missing, "gone after the label UPDATE: %s", missing)
            failures = run_parallel(lambda o: replace_and_delete(api, o, stored[o.key()]), objs)
            check(not failures, "%d of %d objects stored under upstream's webhook failed "
                  "through ours:\n  %s", len(failures), len(objs), "\n  ".join(sorted(failures)))
            nothing_left(api, objs, resources, plural)
            report(objs, time.monotonic() - t_steps)
            check_warnings(objs)
        finally:
            api.unregister()
    print("switch day took %.1f s" % (time.monotonic() - t_start), flush=True)
    return 0


def report(objs, took):
    n = len(objs)
    held = sum(1 for o in objs if o.finalizers)
    print("  through ours in %.1f s: %d label updates, %d unchanged replaces, %d finalizer "
          "removals, %d finalizers put back, %d deletes, %d finalizer removals of objects being "
          "deleted" % (took, n, n, held, held, n, held), flush=True)
    # A few: the warnings of each object's label UPDATE (every step shows the same ones).
    shown, total = 0, sum(len(lines) for o in objs for lines in o.warnings.values())
    for o in objs:
        for line in o.warnings.get("label", []):
            if shown < SHOWN_WARNINGS:
                print("    %s: kubectl label: Warning: %s" % (o, line), flush=True)
                shown += 1
    print("  %d warnings shown by kubectl (%d ratcheting: %s; %d for objects being deleted: %s)"
          % (total, count_lines(objs, RATCHET), RATCHET, count_lines(objs, DELETING), DELETING),
          flush=True)


def count_lines(objs, needle) -> int:
    return sum(1 for o in objs for lines in o.warnings.values() for line in lines if needle in line)


def check_warnings(objs):
    """The objects the audit flagged, and only those, were let through by their strict rules:
    every UPDATE of a live one shows, for each finding, `<field>: ... [<rule>]; allowed because it
    is unchanged ...`; the finalizer removal of one being deleted, `...; allowed because the object
    is being deleted`."""
    problems = []
    for o in objs:
        for name, lines in o.warnings.items():
            if name == "delete":
                continue
            why = DELETING if name == "finalizers of the deleted" else RATCHET
            for err in o.strict_findings:
                if not any(w.startswith(err["field"] + ":") and "[%s]; %s" % (err["rule"], why) in w
                           for w in lines):
                    problems.append("%s: %s: the audit found %s [%s] but no warning says '%s': %s"
                                    % (o, name, err["field"], err["rule"], why, lines))
            let_through = [w for w in lines if RATCHET in w or DELETING in w]
            if let_through and not o.strict_findings:
                problems.append("%s: %s: let through by a strict rule the audit did not find: %s"
                                % (o, name, let_through))
    check(not problems, "ratcheting unlike the audit:\n  %s", "\n  ".join(problems))


def main():
    # Before kube.main starts an API server: without upstream's binary there is nothing to switch from.
    args = harness.parse_args(description=__doc__)
    xz_file = os.path.join(kube.shared_dir(args.source), "upstream", "karmada-webhook.xz")
    if not os.path.isfile(xz_file):
        kube.skip("no %s (upstream's karmada-webhook)" % xz_file, how=HOW_TO_GET_UPSTREAM)
    kube.main(switch_day)


if __name__ == "__main__":
    main()
