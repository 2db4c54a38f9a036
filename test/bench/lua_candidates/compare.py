#!/usr/bin/env python3
"""How docs/compatibility.md's "RIC-2: the Lua parser" table was measured (2026-11-26): each of
Debian's Lua front ends (load.c built against liblua5.1-0-dev, liblua5.2-dev, liblua5.3-dev,
liblua5.4-dev, libluajit-5.1-dev; none of them but 5.2 is a dependency) loads every script of
corpus.py, and upstream's karmada-webhook judges the same script as a `retention` luaScript.

    apt-get install -y liblua5.1-0-dev liblua5.2-dev liblua5.3-dev liblua5.4-dev libluajit-5.1-dev
    for v in 5.1 5.2 5.3 5.4; do gcc -O2 -I/usr/include/lua$v load.c -o load$v -llua$v; done
    gcc -O2 -DJIT $(pkg-config --cflags luajit) load.c -o loadjit $(pkg-config --libs luajit)
    python3 corpus.py                       # writes corpus/<case>.lua
    karmada-webhook --bind-address 127.0.0.1 --secure-port PORT --cert-dir CERTS &   # upstream's
    compare.py --port PORT --ca CERTS/ca.crt  # the table, then each candidate's differences

A throwaway measurement kept for reproducibility; no test runs it.
"""

import argparse
import json
import os
import ssl
import subprocess
import time
import urllib.request

CANDIDATES = ["load5.1", "load5.2", "load5.3", "load5.4", "loadjit"]


def upstream(port, ca, script):
    ctx = ssl.create_default_context(cafile=ca)
    k = {"group": "config.karmada.io", "version": "v1alpha1",
         "kind": "ResourceInterpreterCustomization"}
    obj = {"apiVersion": "config.karmada.io/v1alpha1", "kind": k["kind"],
           "metadata": {"name": "ric"},
           "spec": {"target": {"apiVersion": "apps/v1", "kind": "Deployment"},
                    "customizations": {"retention": {"luaScript": script}}}}
    req = {"uid": "u1", "kind": k, "operation": "CREATE", "object": obj, "name": "ric",
           "resource": {"group": k["group"], "version": k["version"],
                        "resource": "resourceinterpretercustomizations"}}
    body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": req}).encode()
    r = urllib.request.urlopen(urllib.request.Request(
        "https://127.0.0.1:%d/validate-resourceinterpretercustomization" % port, data=body,
        headers={"Content-Type": "application/json"}), context=ctx, timeout=30)
    resp = json.loads(r.read())["response"]
    return "OK" if resp["allowed"] else "ERR"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    args = p.parse_args()
    names = sorted(f[:-4] for f in os.listdir("corpus"))
    up = {}
    for n in names:
        script = open("corpus/%s.lua" % n, "rb").read().decode("utf-8", "surrogateescape")
        t = time.monotonic()
        try:
            up[n] = upstream(args.port, args.ca, script)
        except OSError:
            up[n] = "TIMEOUT"
        print("upstream %-22s %-7s %.2f s" % (n, up[n], time.monotonic() - t), flush=True)
    res = {}
    for c in CANDIDATES:
        out = subprocess.run(["./" + c] + ["corpus/%s.lua" % n for n in names],
                             capture_output=True, text=True, errors="replace").stdout
        for line in out.splitlines():
            f = line.split("\t")
            res[(c, f[0][:-4])] = f[1:]
    print("%-22s %-7s " % ("case", "upstream") + " ".join("%-8s" % c[4:] for c in CANDIDATES))
    for n in names:
        row = [res[(c, n)][0] for c in CANDIDATES]
        print("%-22s %-7s " % (n, up[n]) + " ".join(
            "%-8s" % (v if v == up[n] else v + "*") for v in row))
    for c in CANDIDATES:
        diff = [n for n in names if res[(c, n)][0] != up[n]]
        print(c, len(diff), "differences:", " ".join(diff))


if __name__ == "__main__":
    main()
