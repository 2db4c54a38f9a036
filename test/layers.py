#!/usr/bin/env python3
"""The layers of the source tree, from its #include graph (docs/architecture.md, "Layers").

Each top-level folder (src/main.cpp, src/<dir>/, validators/, mutators/, converters/) is a unit;
LAYERS lists them from the top down, siblings on one line. A file may include its own unit and
any unit on a lower line; an include of a sibling or of a unit above is a back-edge, printed, and
the exit status is 1.

    test/layers.py --source .            # check; exit 1 on a back-edge
    test/layers.py --source . --graph    # also print which unit includes which
    test/layers.py --source . --why src/check validators/   # the includes behind these edges

Only #include "…" lines are read (system headers are no unit). What the graph cannot see: a
function declared below and defined above (routes(): admission/route.hpp declares it, the route
table in src/table/ defines it), which docs/architecture.md names.
"""

import argparse
import collections
import os
import re
import sys

# From the top down; units on one line know nothing of each other.
LAYERS = [
    ["src/main.cpp"],
    ["src/cli"],
    ["src/check"],
    ["src/table"],
    ["src/server", "src/kube"],
    ["validators", "mutators", "converters"],
    ["src/admission"],
    ["src/api"],
    ["src/json"],
    ["src/util"],
]
ROOTS = ["src", "validators", "mutators", "converters"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit(rel: str) -> str:
    parts = rel.split("/")
    if parts[0] == "src":
        return rel if len(parts) == 2 else "src/" + parts[1]
    return parts[0]


def edges(source: str):
    """{(from unit, to unit): ["file -> included file", ...]} over every .cpp and .hpp."""
    out = collections.defaultdict(list)
    for root in ROOTS:
        for dirpath, _, names in os.walk(os.path.join(source, root)):
            for name in sorted(names):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), source)
                with open(os.path.join(source, rel), encoding="utf-8") as f:
                    text = f.read()
                for m in INCLUDE.finditer(text):
                    # The include directories are src/ and the root (CMakeLists.txt), then the
                    # file's own folder.
                    candidates = [os.path.join("src", m.group(1)), m.group(1),
                                  os.path.join(os.path.dirname(rel), m.group(1))]
                    target = next((os.path.normpath(c) for c in candidates
                                   if os.path.isfile(os.path.join(source, c))), None)
                    if target is None:
                        continue  # generated elsewhere or a third-party header
                    a, b = unit(rel), unit(target)
                    if a != b:
                        out[(a, b)].append("%s -> %s" % (rel, target))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=".", help="the repository's root")
    parser.add_argument("--graph", action="store_true", help="print which unit includes which")
    parser.add_argument("--why", nargs="+", metavar="UNIT",
                        help="print the includes of the edges from these units")
    args = parser.parse_args()
    tier = {u: i for i, line in enumerate(LAYERS) for u in line}
    graph = edges(args.source)
    unknown = sorted({u for e in graph for u in e} - set(tier))
    if unknown:
        print("units LAYERS does not place: %s" % ", ".join(unknown))
        return 1
    if args.graph:
        for line in LAYERS:
            for a in line:
                below = sorted({b for (x, b) in graph if x == a}, key=lambda u: (tier[u], u))
                print("%-14s -> %s" % (a, ", ".join(below) or "(nothing)"))
    if args.why:
        for (a, b), includes in sorted(graph.items()):
            if a in args.why:
                print("%s -> %s:\n  %s" % (a, b, "\n  ".join(includes)))
    back = {e: v for e, v in graph.items() if tier[e[1]] <= tier[e[0]]}
    for (a, b), includes in sorted(back.items()):
        print("back-edge %s -> %s:\n  %s" % (a, b, "\n  ".join(includes)))
    print("%d unit edges, %d back-edges" % (len(graph), len(back)))
    return 1 if back else 0


if __name__ == "__main__":
    sys.exit(main())
