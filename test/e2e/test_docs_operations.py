#!/usr/bin/env python3
"""docs/operations.md against the binary: what it restates of what the binary knows.

- Metrics: every family `/metrics` exposes has exactly one table row ``| `name{labels}` | type |
  … |`` with the binary's type and labels, and every `karmada_policy_webhook_*` /
  `controller_runtime_webhook_*` name of a table row is exposed. Two servers are read: a plain
  one, and one with an API server configured and FederatedQuotaEnforcement on, which alone
  renders the cluster-state and quota families.
- "Next to upstream Karmada's webhook": the upgrade loop (`for e in TYPE/ENTRY …`) drops exactly
  upstream's entries (`routes`' upstreamEntry, per type); the numbered table says each entry, its
  configuration, path and our entry as `routes` does; every `move`/`add`/`drop`/`back` of the
  section names entries that exist, rows 1-22 move every upstream entry, and each entry that
  upstream names otherwise has its `back`.
- The counts and kinds said in prose: the paths served ("Is every path served?"), upstream's
  entries per configuration and the kinds taken over.

A difference fails with the fix. The flags tables are test_startup.py's ("flags table is the
binary's"), the audit's `kubectl get` lines test_docs.py's.

    test_docs_operations.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import collections
import http.client
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import doc_tables  # noqa: E402
import harness  # noqa: E402
from harness import PP_PATH, check  # noqa: E402

DOC = os.path.join("docs", "operations.md")
# The namespaces of our metrics: a table row naming one of these must be a metric the binary has.
PREFIXES = ("karmada_policy_webhook_", "controller_runtime_webhook_")
UPSTREAM_SUFFIX = ".karmada.io"
OURS_SUFFIX = ".karmada-policy-webhook.karmada.io"
NEXT_TO_UPSTREAM = "Next to upstream Karmada's webhook"


class Env(doc_tables.Docs):
    def __init__(self, args):
        super().__init__(args)
        self.certs = harness.make_certs(args.source)
        self.doc_text = self.doc(DOC)

    def section(self, heading) -> tuple:
        """(text, line number of its heading) under `## heading` of docs/operations.md."""
        return doc_tables.section(self.doc_text, heading)

    def upstream_routes(self) -> list:
        return [r for r in self.routes if r.get("upstreamEntry")]


def short(entry: str, suffix: str) -> str:
    check(entry.endswith(suffix), "entry %r does not end with %s", entry, suffix)
    return entry[:-len(suffix)]


# --- metrics ------------------------------------------------------------------------------------

def exposition(port) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        resp = conn.getresponse()
        body = resp.read().decode("utf-8", "replace")
        check(resp.status == 200, "GET /metrics: HTTP %d", resp.status)
        return body
    finally:
        conn.close()


def families(text) -> dict:
    """{name: {"type", "help", "labels" (label names of its samples, `le` aside, or None when it
    has no sample)}} of a text exposition."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^# (TYPE|HELP) (\S+) ?(.*)$", line)
        if m:
            family = out.setdefault(m.group(2), {"type": None, "help": "", "labels": None})
            family["type" if m.group(1) == "TYPE" else "help"] = m.group(3)
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$", line)
        if not m:
            continue
        name = m.group(1)
        if name not in out:   # a histogram's _bucket, _sum, _count
            name = re.sub(r"_(bucket|sum|count)$", "", name)
        if name in out:
            labels = set(re.findall(r'(\w+)="', m.group(2) or "")) - {"le"}
            out[name]["labels"] = (out[name]["labels"] or set()) | labels
    return out


def unreachable_kubeconfig(ca) -> str:
    """A kubeconfig of an API server at 127.0.0.1 on a port nothing listens on."""
    path = os.path.join(harness.temp_dir("kubeconfig"), "unreachable.kubeconfig")
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Config",
                   "clusters": [{"name": "c", "cluster": {
                       "server": "https://127.0.0.1:%d" % harness.free_port(),
                       "certificate-authority": ca}}],
                   "users": [{"name": "u", "user": {"token": "unused"}}],
                   "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                   "current-context": "c"}, f)
    return path


def served_families(env) -> dict:
    """The families of both servers. The second one's API server is unreachable: it starts all
    the same (readiness never depends on the API server, docs/operations.md "Readiness"), and
    renders the cluster-state and quota families from the start."""
    denied = harness.load_fixture_body(env.source, PP_PATH, "C08-selector-namespace-mismatch.json")
    with harness.Server(env.binary, env.certs) as server:
        # A denied review, so that the per-review families have samples whose labels show.
        with harness.Client(server.port, server.ca) as client:
            answer = client.post(PP_PATH, denied)
            check(answer.status == 200 and answer.response().get("allowed") is False,
                  "C08 was not denied: %r", answer)
        plain = families(exposition(server.metrics_port))
    kubeconfig = unreachable_kubeconfig(os.path.join(env.certs, "ca.crt"))
    with harness.Server(env.binary, env.certs, "--kubeconfig", kubeconfig,
                        "--feature-gates=FederatedQuotaEnforcement=true") as server:
        with_state = families(exposition(server.metrics_port))
    for part in ("karmada_policy_webhook_cluster_state_", "karmada_policy_webhook_quota_"):
        check(any(n.startswith(part) for n in with_state), "the server with --kubeconfig and "
              "FederatedQuotaEnforcement renders no %s* family", part)
        check(not any(n.startswith(part) for n in plain), "the server without an API server "
              "renders %s* families", part)
    out = dict(with_state)
    for name, family in plain.items():
        if name in out and out[name]["labels"] is None:
            out[name] = family
        out.setdefault(name, family)
    return out


def documented_metrics(doc) -> dict:
    """{name: [(line number, labels or None, type cell)]} of every table row
    ``| `name{labels}` | type | … |`` whose name is one of ours or a family the server has."""
    out = collections.defaultdict(list)
    for number, line in enumerate(doc.splitlines(), 1):
        m = re.match(r"^\| `([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}`]*)\})?`[^|]*\|([^|]*)\|", line)
        if m:
            labels = {x.strip() for x in m.group(3).split(",")} if m.group(2) else set()
            out[m.group(1)].append((number, labels, m.group(4).strip()))
    return out


def row_text(name, family) -> str:
    labels = "{%s}" % ",".join(sorted(family["labels"])) if family["labels"] else ""
    return "| `%s%s` | %s | %s |" % (name, labels, family["type"], family["help"])


def test_every_metric_documented_once(env):
    """Every family the binary exposes has one row in a table of docs/operations.md, with its
    type and its labels; every row of one of our names is a family the binary exposes."""
    served = served_families(env)
    check(len(served) >= 30, "read %d metric families from /metrics", len(served))
    rows = documented_metrics(env.doc_text)
    problems = []
    for name, family in sorted(served.items()):
        found = rows.get(name, [])
        if not found:
            problems.append("not documented: add to a table (\"## Metrics\", or the section of "
                            "its part):\n    %s" % row_text(name, family))
            continue
        if len(found) > 1:
            problems.append("%s is documented in %d rows (lines %s): keep one" % (
                name, len(found), ", ".join(str(n) for n, _, _ in found)))
        for number, labels, kind in found:
            if kind != family["type"]:
                problems.append("line %d: %s has type %r, the binary says %s" % (
                    number, name, kind, family["type"]))
            if family["labels"] is not None and labels != family["labels"]:
                problems.append("line %d: write `%s{%s}` (the labels of its samples), not "
                                "`%s{%s}`" % (number, name, ",".join(sorted(family["labels"])),
                                               name, ",".join(sorted(labels))))
    for name, found in sorted(rows.items()):
        if name.startswith(PREFIXES) and name not in served:
            problems.append("line %s: `%s` is not a metric of the binary: remove the row, or "
                            "name the metric the binary exposes" % (
                                ", ".join(str(n) for n, _, _ in found), name))
    check(not problems, "%s, the metrics:\n  %s", DOC, "\n  ".join(problems))
    print("  %d metric families, each documented once" % len(served), flush=True)


# --- next to upstream's webhook -------------------------------------------------------------------

def test_upgrade_loop_drops_every_upstream_entry(env):
    """The loop run after a Karmada upgrade drops upstream's entries: every one, named as `drop`
    takes them (upstream's entry without .karmada.io), of its configuration type."""
    want = {(r["type"], short(r["upstreamEntry"], UPSTREAM_SUFFIX)) for r in env.upstream_routes()}
    loops = list(re.finditer(r"\bfor e in (.*?);\s*do\b", env.doc_text, re.S))
    check(loops, "%s: no upgrade loop (`for e in TYPE/ENTRY …; do drop …`)", DOC)
    problems, listed = [], []
    for loop in loops:
        line = env.doc_text[:loop.start()].count("\n") + 1
        for token in loop.group(1).replace("\\", " ").split():
            m = re.fullmatch(r"(mutating|validating)/([a-z0-9-]+)", token)
            if m is None:
                problems.append("line %d: %r is not TYPE/ENTRY" % (line, token))
            else:
                listed.append((m.group(1), m.group(2)))
        dupes = sorted(p for p, n in collections.Counter(listed).items() if n > 1)
        missing, extra = sorted(want - set(listed)), sorted(set(listed) - want)
        if missing:
            problems.append("line %d: add %s (upstream's entries the loop leaves in place)" % (
                line, " ".join("%s/%s" % p for p in missing)))
        if extra:
            problems.append("line %d: remove %s (no entry of upstream's by that name)" % (
                line, " ".join("%s/%s" % p for p in extra)))
        if dupes:
            problems.append("line %d: listed twice: %s" % (line, " ".join("%s/%s" % p
                                                                        for p in dupes)))
        listed = []
    check(not problems, "%s, the upgrade loop (%d entries of upstream's: %d mutating, %d "
          "validating):\n  %s", DOC, len(want), sum(t == "mutating" for t, _ in want),
          sum(t == "validating" for t, _ in want), "\n  ".join(problems))


def test_entry_table_is_the_routes(env):
    """The numbered table of "Next to upstream Karmada's webhook": each row's upstream entry,
    configuration, path and our entry as `routes` says, numbered 1, 2, …"""
    text, first = env.section(NEXT_TO_UPSTREAM)
    by_path = {r["path"]: r for r in env.routes}
    rows = [(first + i, [c.strip() for c in line.strip().strip("|").split("|")])
            for i, line in enumerate(text.splitlines()) if re.match(r"^\| \d+ \|", line)]
    check(rows, "%s \"%s\": no numbered table", DOC, NEXT_TO_UPSTREAM)
    problems = []
    for index, (line, cells) in enumerate(rows, 1):
        if cells[0] != str(index):
            problems.append("line %d: numbered %s, the row before is %d" % (line, cells[0],
                                                                           index - 1))
        path = cells[3].strip("`")
        route = by_path.get(path)
        if route is None or not route.get("upstreamEntry"):
            problems.append("line %d: %s is not a path of upstream's (`routes`)" % (line, path))
            continue
        want = ["`%s`" % route["upstreamEntry"], "`%s-config`" % route["type"],
                "`%s`" % path, "`%s`, %s" % (route["entry"], route["type"])]
        if cells[1:5] != want:
            problems.append("line %d: write | %s | %s |" % (line, index, " | ".join(want)))
    check(not problems, "%s \"%s\", the table:\n  %s", DOC, NEXT_TO_UPSTREAM,
          "\n  ".join(problems))


def test_move_commands_name_real_entries(env):
    """Every `move`/`add`/`drop`/`back` of the section names an entry that exists (`add` and
    `back` ours, `drop` upstream's, `move` both by one name, with the kind's resource); the
    moves and drops of rows 1-22 cover every upstream entry; an entry upstream names otherwise
    than ours has a `back` with upstream's name third."""
    text, _ = env.section(NEXT_TO_UPSTREAM)
    flat = re.sub(r"\s+", " ", text)   # a command in prose may wrap inside its backticks
    resources = {(k["group"], k["kind"]): k["resource"] for k in env.kinds}
    ours, upstream = {}, {}
    for r in env.routes:
        if r["takes"] != "AdmissionReview":
            continue
        ours[(r["type"], short(r["entry"], OURS_SUFFIX))] = r
        if r.get("upstreamEntry"):
            upstream[(r["type"], short(r["upstreamEntry"], UPSTREAM_SUFFIX))] = r
    problems, moved, backs = [], set(), set()
    commands = list(re.finditer(r"\b(move|add|drop|back) (mutating|validating) ([a-z0-9-]+)"
                                r"(?: ('\*'|[a-z0-9-]+))?", flat))
    for m in commands:
        verb, key, third = m.group(1), (m.group(2), m.group(3)), m.group(4)
        said = m.group(0)
        if verb in ("add", "back") and key not in ours:
            problems.append("`%s`: we have no %s entry %s%s" % (said, key[0], key[1], OURS_SUFFIX))
        if verb in ("move", "drop") and key not in upstream:
            problems.append("`%s`: upstream has no %s entry %s%s" % (said, key[0], key[1],
                                                                   UPSTREAM_SUFFIX))
        if verb == "move" and key in upstream and key not in ours:
            problems.append("`%s`: ours is named otherwise (%s): `add %s %s && drop %s %s`" % (
                said, upstream[key]["entry"], key[0],
                short(upstream[key]["entry"], OURS_SUFFIX), key[0], key[1]))
        if verb == "move" and key in upstream:
            route = upstream[key]
            want = [resources[(k["group"], k["kind"])] for k in route["kinds"]] or ["*"]
            if third is None or third.strip("'") not in want:
                problems.append("`%s`: its resource is %s" % (said, " or ".join(want)))
        if verb in ("move", "drop") and key in upstream:
            moved.add(key)
        if verb == "back" and key in ours:
            route, name = ours[key], (third or key[1]) + UPSTREAM_SUFFIX
            if not route.get("upstreamEntry"):
                problems.append("`%s`: upstream has no entry for %s" % (said, route["path"]))
            elif route["upstreamEntry"] != name:
                problems.append("`%s`: upstream's entry of %s is %s: `back %s %s %s`" % (
                    said, route["path"], route["upstreamEntry"], key[0], key[1],
                    short(route["upstreamEntry"], UPSTREAM_SUFFIX)))
            backs.add(key)
    check(len(commands) >= 22, "%s \"%s\": %d move/add/drop/back commands found", DOC,
          NEXT_TO_UPSTREAM, len(commands))
    missing = sorted(set(upstream) - moved)
    if missing:
        problems.append("rows 1-22 move no entry %s" % ", ".join(
            "%s %s%s" % (t, n, UPSTREAM_SUFFIX) for t, n in missing))
    helper = re.search(r"^back\(\) \{.*?^\}", text, re.S | re.M)
    if helper is None or not re.search(r"\$\{?3\b", helper.group(0)):
        problems.append("the `back` helper does not take upstream's entry name as its third "
                        "argument (`--arg e \"${3:-$2}.karmada.io\"`)")
    for key, route in sorted(upstream.items()):
        own = short(route["entry"], OURS_SUFFIX)
        if own != key[1] and (key[0], own) not in backs:
            problems.append("no way back shown for %s (upstream's %s): `back %s %s %s`" % (
                route["path"], route["upstreamEntry"], key[0], own, key[1]))
    check(not problems, "%s \"%s\", the commands:\n  %s", DOC, NEXT_TO_UPSTREAM,
          "\n  ".join(problems))


# --- counts and kinds said in prose ---------------------------------------------------------------

def test_counts_and_kinds_in_prose(env):
    problems = []
    admission = [r for r in env.routes if r["takes"] == "AdmissionReview"]
    conversion = [r["path"] for r in env.routes if r["takes"] == "ConversionReview"]
    m = re.search(r"This server serves (\d+) AdmissionReview paths and `([^`]+)`", env.doc_text)
    if m is None or int(m.group(1)) != len(admission) or [m.group(2)] != conversion:
        problems.append("\"Is every path served?\": write \"This server serves %d AdmissionReview "
                        "paths and `%s`\"" % (len(admission), "`, `".join(conversion)))
    upstream = env.upstream_routes()
    counts = {t: sum(r["type"] == t for r in upstream) for t in ("mutating", "validating")}
    text, _ = env.section(NEXT_TO_UPSTREAM)
    flat = re.sub(r"\s+", " ", text)
    said = re.search(r"Upstream has (\d+) entries for them, in karmada-apiserver's "
                     r"`MutatingWebhookConfiguration mutating-config` \((\d+)\) and "
                     r"`ValidatingWebhookConfiguration validating-config` \((\d+)\)", flat)
    want = (len(upstream), counts["mutating"], counts["validating"])
    if said is None or tuple(int(x) for x in said.groups()) != want:
        problems.append("\"%s\": write \"Upstream has %d entries for them, in karmada-apiserver's "
                        "`MutatingWebhookConfiguration mutating-config` (%d) and "
                        "`ValidatingWebhookConfiguration validating-config` (%d)\"" % (
                            (NEXT_TO_UPSTREAM,) + want))
    takeover = re.search(r"Upstream's `karmada-webhook` serves many kinds.*?Upstream has", text,
                         re.S)
    if takeover is None:
        problems.append("\"%s\": no sentence \"Upstream's `karmada-webhook` serves many "
                        "kinds; …\" before \"Upstream has\"" % NEXT_TO_UPSTREAM)
    else:
        paragraph = takeover.group(0)
        kinds = [k["kind"] for k in env.kinds]
        unnamed = [k for k in kinds if not re.search(r"(?<![\w-])%s(?![\w-])" % k, paragraph)]
        if unnamed:
            problems.append("\"%s\": the kinds taken over do not name %s" % (
                NEXT_TO_UPSTREAM, ", ".join(unnamed)))
        n = re.search(r"lists all (\d+)", re.sub(r"\s+", " ", paragraph))
        if n is None or int(n.group(1)) != len(kinds):
            problems.append("\"%s\": write \"`karmada-policy-webhook kinds` lists all %d\"" % (
                NEXT_TO_UPSTREAM, len(kinds)))
    check(not problems, "%s:\n  %s", DOC, "\n  ".join(problems))


TESTS = [test_every_metric_documented_once, test_upgrade_loop_drops_every_upstream_entry,
         test_entry_table_is_the_routes, test_move_commands_name_real_entries,
         test_counts_and_kinds_in_prose]

if __name__ == "__main__":
    harness.main(lambda args: harness.run_tests(TESTS, Env(args)))
