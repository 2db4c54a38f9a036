"""What the doc tests (test_docs.py, test_docs_operations.py) share: the binary's tables and the
markdown of README.md and docs/, read one way.

    env = doc_tables.Docs(args)          # args.binary, args.source
    env.routes, env.kinds                # `routes`, `kinds` of the binary
    text, line = section(env.doc("docs/operations.md"), "Metrics")
    for cells in table_rows(text): ...
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import harness
from harness import check


class Docs:
    def __init__(self, args):
        self.args = args
        self.binary = args.binary
        self.source = args.source
        self.routes = harness.route_table(args.binary)
        self.kinds = json.loads(self.run("kinds"))

    def run(self, *argv) -> str:
        """The binary's standard output for argv; a failure fails the test."""
        proc = subprocess.run([self.binary, *argv], capture_output=True, text=True, timeout=60)
        check(proc.returncode == 0, "%s %s: exit %d: %s", self.binary, " ".join(argv),
              proc.returncode, proc.stderr)
        return proc.stdout

    def doc(self, rel) -> str:
        with open(os.path.join(self.source, rel), encoding="utf-8") as f:
            return f.read()

    def docs(self):
        """(relative path, text) of README.md and every docs/*.md."""
        out = [("README.md", self.doc("README.md"))]
        for name in sorted(os.listdir(os.path.join(self.source, "docs"))):
            if name.endswith(".md"):
                out.append(("docs/" + name, self.doc("docs/" + name)))
        return out


def section(text, heading) -> tuple:
    """(the text under the markdown heading `heading`, of any level, up to the next heading of the
    same or a higher level, outside fenced code, where `# ` is a comment; the line number of the
    heading)."""
    lines = text.split("\n")
    fenced, start, level = False, None, 0
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"(#+) (.*?)[ \t]*$", line)
        if m is None:
            continue
        if start is None:
            if m.group(2) == heading:
                start, level = i, len(m.group(1))
        elif len(m.group(1)) <= level:
            return "\n".join(lines[start + 1:i]), start + 1
    check(start is not None, "no heading %r", heading)
    return "\n".join(lines[start + 1:]), start + 1


def table_rows(text):
    """The rows of the first markdown table in text, as lists of stripped cells (the header and
    the separator row left out)."""
    rows, started = [], False
    for line in text.splitlines():
        if line.startswith("|"):
            started = True
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif started:
            break
    return rows[2:]


def named(text, names):
    """The names of `names` that text mentions as whole words."""
    return {n for n in names if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(n), text)}
