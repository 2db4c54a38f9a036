#!/usr/bin/env python3
"""The docs against the binary: what README.md and docs/ restate of what the binary knows.

Each list or table below is checked against the binary's own tables (`routes`, `kinds`, `serve
--help`, `check --help`, `version`); a difference fails with the fix to make. The other restated
tables have their own tests: the flags of docs/operations.md (test_startup.py, "flags
documented"), its metrics and upgrade loop (test_docs_operations.py), the manifests
(test_manifests.py).

- README.md's first paragraph names every kind `kinds` prints;
- README.md "What it serves": one row per path of `routes`, and the count of upstream's paths;
- the kinds `check` judges (README.md, docs/check.md) are every kind of `kinds`;
- every audit line (`kubectl get <resources> -A` in README.md and docs/) lists exactly the
  resources of `kinds`;
- docs/compatibility.md's first table: each kind's group, versions and paths as `kinds` and
  `routes` say;
- every rule ID a route reports is written down in docs/rules.md and docs/compatibility.md;
- README.md "Running it": every flag named exists in `serve --help`; docs/check.md's flags
  exist in `check --help`;
- README.md's Compatibility table names the Karmada version `version` prints, and the
  kube-apiserver and kubectl versions the suite runs (when it finds them);
- .pre-commit-hooks.yaml runs `check`.

    test_docs.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import doc_tables  # noqa: E402
import harness  # noqa: E402
import kube  # noqa: E402
from doc_tables import named, section, table_rows  # noqa: E402
from harness import check  # noqa: E402


Env = doc_tables.Docs


# --- kinds and paths --------------------------------------------------------------------------------

def test_readme_first_paragraph_names_every_kind(env):
    first = env.doc("README.md").split("\n## ", 1)[0]
    kinds = [k["kind"] for k in env.kinds]
    missing = [k for k in kinds if k not in named(first, kinds)]
    check(not missing, "README.md's first paragraph does not name %s (every kind `kinds` prints "
          "is served)", ", ".join(missing))


def test_readme_paths_table(env):
    text, _ = section(env.doc("README.md"), "What it serves")
    documented = [re.sub(r"`", "", row[0]) for row in table_rows(text)]
    served = [r["path"] for r in env.routes]
    check(sorted(documented) == sorted(served) and len(documented) == len(set(documented)),
          "README.md \"What it serves\": add rows for %s; remove rows for %s (`routes` serves "
          "%d paths)", sorted(set(served) - set(documented)) or "none",
          sorted(set(documented) - set(served)) or "none", len(served))
    upstream = [r for r in env.routes if r.get("upstreamEntry") or r["takes"] != "AdmissionReview"]
    ours_only = len(served) - len(upstream)
    m = re.search(r"every one of the (\d+) paths upstream's `karmada-webhook` serves", text)
    check(m is not None and int(m.group(1)) == len(upstream),
          "README.md \"What it serves\": say \"every one of the %d paths upstream's "
          "`karmada-webhook` serves\" (%d paths, %d of them ours only)", len(upstream),
          len(served), ours_only)


def test_check_judges_every_kind(env):
    """`check` judges every kind the server serves (src/check/judge.cpp finds the kind in the
    same table `kinds` prints): README.md and docs/check.md name each one."""
    kinds = [k["kind"] for k in env.kinds]
    for rel, heading in (("README.md", "Checking policy files offline"),
                         ("docs/check.md", "What is judged")):
        paragraph = section(env.doc(rel), heading)[0].strip().split("\n\n")
        text = "\n".join(p for p in paragraph[:3])
        missing = [k for k in kinds if k not in named(text, kinds)]
        check(not missing, "%s \"%s\": name %s among the kinds `check` judges", rel, heading,
              ", ".join(missing))


def test_audit_lines_list_every_kind(env):
    """An audit exports every kind the strict rules judge whose CRD Karmada installs: `kubectl
    get` of the resources `kinds` prints, in its order, but those whose CRD only we ship
    (manifests/crds/: kubectl refuses a type the cluster lacks), wherever the docs give the
    command."""
    ours_only = {name.split("_", 1)[1].split(".")[0] for name in
                 os.listdir(os.path.join(env.source, "manifests", "crds"))
                 if name.endswith(".yaml") and "_" in name}
    check(ours_only, "no CRD of our own found in manifests/crds")
    want = ",".join(k["resource"] for k in env.kinds if k["resource"] not in ours_only)
    found = 0
    for rel, text in env.docs():
        for m in re.finditer(r"kubectl(?: --context \S+)? get ([a-z0-9.,]+)", text):
            resources = m.group(1).split(",")
            if not {"pp", "propagationpolicies"} & set(resources):
                continue
            found += 1
            line = text[:m.start()].count("\n") + 1
            check(m.group(1) == want, "%s:%d: the audit's resources are not every kind's: "
                  "write `kubectl get %s -A -o yaml`", rel, line, want)
    check(found >= 3, "%d audit lines found (README.md, docs/check.md, docs/operations.md)", found)


def test_compatibility_table(env):
    """docs/compatibility.md's first table: one row per kind of `kinds` (its group and versions,
    its validating and mutating paths as `routes` says), one for deletion protection."""
    rows = table_rows(env.doc("docs/compatibility.md"))
    by_kind = {row[0]: row for row in rows}
    problems = []
    for k in env.kinds:
        paths = {"validating": "none", "mutating": "none"}
        entries = set()
        for r in env.routes:
            if r["takes"] == "AdmissionReview" and any(
                    x["kind"] == k["kind"] and x["group"] == k["group"] for x in r["kinds"]):
                paths[r["type"]] = r["path"]
                if r.get("upstreamEntry"):
                    entries.add(r["upstreamEntry"])
        row = by_kind.get(k["kind"])
        want = "%s/%s" % (k["group"], ", ".join(k["versions"]))
        if row is None:
            problems.append("add a row: | %s | `%s` | `%s` | `%s` | … |" % (
                k["kind"], want, paths["validating"], paths["mutating"]))
            continue
        cells = [re.sub(r"`|\s*\(.*?\)", "", c) for c in row]
        if cells[1] != want or cells[2] != paths["validating"] or cells[3] != paths["mutating"]:
            problems.append("row %s: `%s`, validating %s, mutating %s" % (
                k["kind"], want, paths["validating"], paths["mutating"]))
        upstream = row[4] if len(row) > 4 else ""
        if (entries and not all("`%s`" % e in upstream for e in entries)) or (
                not entries and not upstream.startswith("none")):
            problems.append("row %s, upstream's entries: %s" % (
                k["kind"], ", ".join("`%s`" % e for e in sorted(entries)) or "none"))
    any_kind = [r["path"] for r in env.routes if r["takes"] == "AdmissionReview" and not r["kinds"]]
    for path in any_kind:
        if not any(path in " ".join(row) for row in rows):
            problems.append("add the row of %s (any kind)" % path)
    extra = set(by_kind) - {k["kind"] for k in env.kinds} - {
        row[0] for row in rows if any(p in " ".join(row) for p in any_kind)}
    if extra:
        problems.append("remove the rows of %s (no such kind served)" % ", ".join(sorted(extra)))
    check(not problems, "docs/compatibility.md, the first table:\n  %s", "\n  ".join(problems))


RULE_ID = r"([A-Z][A-Z0-9]*(?:-[A-Z]*)?-?[A-Z]*)(\d+)"


def documented_ids(text):
    """The rule IDs text names: each one written out (`V-P5`), and each of a range of one prefix
    (`V-P1 … V-P10`, `O-1…O-21`, `MCI-1...MCI-9`, `W-4…W-9`)."""
    out = set(re.findall(r"(?<![\w-])([A-Z][A-Z0-9-]*\d+)(?![\w-])", text))
    for m in re.finditer(r"(?<![\w-])%s\s*(?:…|\.\.\.|\.\.)\s*%s(?![\w-])" % (RULE_ID, RULE_ID),
                         text):
        if m.group(1) == m.group(3):
            out |= {"%s%d" % (m.group(1), n) for n in range(int(m.group(2)), int(m.group(4)) + 1)}
    return out


def test_every_rule_id_is_documented(env):
    """Every rule ID a route reports (`routes`) is written down, alone or in a range of its
    prefix, in docs/rules.md (the rules) and docs/compatibility.md (their class and upstream's
    answer)."""
    ids = {rule for r in env.routes for rule in r.get("rules") or []}
    for rel in ("docs/rules.md", "docs/compatibility.md"):
        missing = sorted(ids - documented_ids(env.doc(rel)))
        check(not missing, "%s does not write down the rule IDs %s", rel, ", ".join(missing))


# --- flags ------------------------------------------------------------------------------------------

def help_flags(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def test_readme_flags_exist(env):
    block = section(env.doc("README.md"), "Running it")[0].split("```")[1]
    named_flags = help_flags(block)
    serve = help_flags(env.run("serve", "--help"))
    unknown = sorted(named_flags - serve)
    check(not unknown, "README.md \"Running it\" names flags `serve --help` does not list: %s",
          ", ".join(unknown))
    check(len(named_flags) >= 20, "README.md \"Running it\": %d flags found", len(named_flags))


def test_check_md_flags_exist(env):
    text = env.doc("docs/check.md")
    check_flags = help_flags(env.run("check", "--help"))
    serve_flags = help_flags(env.run("serve", "--help"))
    # A flag of `check` in its command lines and its flag list; `serve`'s only where the text
    # says so (the server's flags, the image's).
    named_flags = set()
    for m in re.finditer(r"check\b[^\n`]*", text):
        named_flags |= help_flags(m.group(0))
    unknown = sorted(named_flags - check_flags - serve_flags - {"--help"})
    check(not unknown, "docs/check.md names flags of check that `check --help` does not list: "
          "%s", ", ".join(unknown))


# --- provenance -------------------------------------------------------------------------------------

def test_version_and_compatibility_table(env):
    out = env.run("version")
    m = re.match(r"karmada-policy-webhook (\d+\.\d+\.\d+) \(commit ([0-9a-f]{7,}(?:-dirty)?|unknown)"
                 r"\)\nmatches Karmada's karmada-webhook at (.+) \(commit ([0-9a-f]+)\)\n$", out)
    check(m is not None, "`version` prints %r", out)
    check(env.run("--version") == out, "`--version` and `version` differ")
    cmake = env.doc("CMakeLists.txt")
    check(re.search(r"project\(karmada-policy-webhook VERSION %s\b" % re.escape(m.group(1)), cmake),
          "`version` prints %s, CMakeLists.txt's project version differs", m.group(1))
    table, _ = section(env.doc("README.md"), "Compatibility")
    check(m.group(3) in table and m.group(4) in table,
          "README.md \"Compatibility\": name the Karmada version `version` prints: %s (commit %s)",
          m.group(3), m.group(4))
    binaries, why = kube.find_binaries(env.source, os.path.dirname(env.args.binary))
    if binaries is None:
        print("  the kube-apiserver version of README.md's Compatibility not checked: %s" % why)
    else:
        for name, path in (("kube-apiserver", binaries.kube_apiserver),
                           ("kubectl", binaries.kubectl)):
            argv = [path, "--version"] if name != "kubectl" else [path, "version", "--client"]
            out = subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
            version = re.search(r"v\d+\.\d+\.\d+", out)
            check(version and "%s %s" % (name, version.group(0)) in table,
                  "README.md \"Compatibility\": the suite runs %s %s", name,
                  version.group(0) if version else out)
    changelog = env.doc("CHANGELOG.md")
    check("## [%s]" % m.group(1) in changelog,
          "CHANGELOG.md has no section for %s", m.group(1))
    check("Apache License" in env.doc("LICENSE") and "Version 2.0" in env.doc("LICENSE"),
          "LICENSE is not Apache-2.0")


TESTS = [test_readme_first_paragraph_names_every_kind, test_readme_paths_table,
         test_check_judges_every_kind, test_audit_lines_list_every_kind, test_compatibility_table,
         test_every_rule_id_is_documented, test_readme_flags_exist, test_check_md_flags_exist,
         test_version_and_compatibility_table]

if __name__ == "__main__":
    harness.main(lambda args: harness.run_tests(TESTS, Env(args)))
