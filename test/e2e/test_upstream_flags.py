#!/usr/bin/env python3
"""Upstream's command line against upstream's own binary: the same argv accepted or refused.

Karmada's installers run `/bin/karmada-webhook` with upstream's flags, and an operator user can add
any of them (docs/operations.md, "Switching by image"). Upstream's binary as its image ships it
(../shared/karmada/karmada-webhook.xz, unpacked into <build>/envtest/karmada) is the judge of what
its command line takes:

- flag reading (pflag: spellings, bools, shorthands, repeats, unknown flags, gate names, value
  types): `karmada-webhook --help ARGS` exits 0 exactly when ARGS parse (cobra reads every flag
  before it prints the help), and so does ours; compared over a corpus of command lines, each
  installer's among them;
- the checks made once every flag is read (logging format and gates, flush frequency, bind
  address) and arguments that are no flag: both binaries started for real with a missing
  certificate and kubeconfig; upstream says `command failed` or `Error: ...` when the command line
  is refused, ours exits 2 before it reads a certificate or a kubeconfig.

The one difference on purpose (docs/compatibility.md, "Command line"): a --tls-min-version that
is none of 1.0-1.3 is ignored by upstream and refused here. Skips (exit 77) without upstream's
binary.

    test_upstream_flags.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

POD = "10.244.0.7"
INSTALLERS = {
    "dev artefacts": ["--kubeconfig=/etc/karmada/config/karmada.config", "--bind-address=" + POD,
                      "--metrics-bind-address=%s:8080" % POD,
                      "--health-probe-bind-address=%s:8000" % POD, "--secure-port=8443",
                      "--cert-dir=/etc/karmada/pki/server",
                      "--feature-gates=AllAlpha=true,AllBeta=true",
                      "--allow-no-execute-taint-policy=true", "--logging-format=json", "--v=4"],
    "Helm chart": ["--kubeconfig=/etc/kubeconfig", "--bind-address=" + POD,
                   "--metrics-bind-address=%s:8080" % POD,
                   "--health-probe-bind-address=%s:8000" % POD, "--secure-port=8443",
                   "--cert-dir=/var/serving-cert", "--v=2",
                   "--feature-gates=Failover=true,PropagationPolicyPreemption=false"],
    "karmadactl init": ["--kubeconfig=/etc/karmada/config/karmada.config",
                        "--bind-address=" + POD, "--metrics-bind-address=%s:8080" % POD,
                        "--health-probe-bind-address=%s:8000" % POD, "--secure-port=8443",
                        "--cert-dir=/var/serving-cert", "--v=2", "--enable-pprof",
                        "--log_file_max_size=10"],
    # The operator with extraArgs: the whole command rebuilt as sorted --key=value, an empty value
    # kept as `--key=`.
    "karmada-operator": ["--bind-address=fd00:10:244::7", "--cert-dir=/var/serving-cert",
                         "--enable-pprof=true", "--feature-gates=MultiClusterService=true",
                         "--health-probe-bind-address=fd00:10:244::7:8000",
                         "--kube-api-burst=100", "--kube-api-qps=50",
                         "--kubeconfig=/etc/karmada/config/karmada.config",
                         "--log-flush-frequency=10s",
                         "--metrics-bind-address=fd00:10:244::7:8080",
                         "--profiling-bind-address=", "--secure-port=8443", "--v=2"],
}
# Command lines whose flags both must read (or both refuse), beyond the installers'.
CORPUS = [
    ["-v=4"], ["-v4"], ["-v", "4"], ["--v", "4"], ["--v=2", "--v=5"], ["-v"], ["-v="],
    ["--log_dir=/var/log"], ["--bind_address=1.2.3.4"], ["--log-dir", "/x", "--log-dir", "/y"],
    ["--enable-pprof"], ["--enable-pprof=T"], ["--enable-pprof=0"], ["--enable-pprof="],
    ["--enable-pprof=yes"], ["--allow-no-execute-taint-policy=true"],
    ["--kubeconfig"], ["--kubeconfig", "--v=2"], ["--kubeconfig="], ["--nope"], ["--nope=1"],
    ["-kubeconfig=/x"], ["---v=2"], ["--=x"], ["--", ""],
    ["--feature-gates=AllAlpha=true"], ["--feature-gates=Nope=true"],
    ["--feature-gates=Failover"], ["--feature-gates= Failover = true ,,"],
    ["--feature-gates=failover=true"], ["--feature-gates=Failover=yes"],
    ["--feature-gates=A=true", "--feature-gates=Failover=true"],
    ["--secure-port=abc"], ["--secure-port=0x20FB"], ["--secure-port="], ["--v=-1"],
    ["--v=2147483648"], ["--kube-api-qps=abc"], ["--kube-api-qps=1.5"], ["--kube-api-burst=1.5"],
    ["--log-file-max-size=-1"], ["--log-file-max-size=100"], ["--stderrthreshold=loud"],
    ["--stderrthreshold=WARNING"], ["--stderrthreshold=2"], ["--alsologtostderrthreshold=info"],
    ["--log-backtrace-at=x"], ["--log-backtrace-at=a.go:12"], ["--log-backtrace-at="],
    ["--vmodule=a"], ["--vmodule=a=1,b=2,"], ["--vmodule=a=x"], ["--vmodule=a=1", "--vmodule=b=2"],
    ["--log-json-info-buffer-size=1Xi"], ["--log-text-info-buffer-size=2Ki"],
    ["--log-flush-frequency=abc"], ["--log-flush-frequency=1m30s"], ["--log-flush-frequency=5"],
    ["--logging-format=json"], ["--tls-min-version=1.0"],
    ["--tls-min-version=1.2"], ["--one-output", "--skip-headers", "--skip_log_headers",
                                "--add-dir-header", "--alsologtostderr", "--logtostderr=false",
                                "--legacy-stderr-threshold-behavior=false"],
    ["--profiling-bind-address=:6060", "--log-file=/tmp/x.log"],
    ["--metrics-bind-address=0", "--health-probe-bind-address=:8000"],
]
# Read by ours and refused by upstream, or the other way, on purpose (docs/compatibility.md).
DIFFERENT = {
    ("--tls-min-version=1.5",): "upstream ignores a TLS version it does not know; we refuse it",
}
# Flags that parse, refused (or not) once every flag is read; arguments that are no flag (cobra
# refuses them after the flags, so `--help` says nothing of them).
VALIDATED = [
    ["foo"], [""], ["--enable-pprof", "false"], ["--", "foo"], ["--logging-format=xml"],
    ["--log-flush-frequency=0s"], ["--log-flush-frequency=1s"],
    ["--vmodule=a=1", "--logging-format=json"], ["--vmodule=a=1", "--logging-format=text"],
    ["--logging-format=json", "--feature-gates=LoggingBetaOptions=false"],
    ["--log-json-split-stream"], ["--log-json-split-stream", "--feature-gates=LoggingAlphaOptions=true"],
    ["--log-text-info-buffer-size=1Ki"], ["--log-text-info-buffer-size=0"],
    ["--bind-address=not-an-ip"], ["--bind-address=::1"],
]


def image_binary(args):
    """Upstream's karmada-webhook as its image ships it, or None."""
    xz = os.path.join(kube.shared_dir(args.source), "karmada", "karmada-webhook.xz")
    if not os.path.isfile(xz):
        return None
    folder = os.path.join(os.path.dirname(args.binary), "envtest", "karmada")
    return kube._unpacked({"karmada-webhook": xz}, folder)["karmada-webhook"]


def parses(binary, argv, ours):
    cmd = [binary] + (["serve"] if ours else []) + ["--help"] + argv
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    return proc.returncode == 0, (proc.stderr or proc.stdout).strip().splitlines()[:1]


def test_flags_read_as_upstream_reads_them(env):
    problems = []
    cases = [(name, argv) for name, argv in INSTALLERS.items()] + \
            [(" ".join(argv) or '""', argv) for argv in CORPUS] + \
            [(" ".join(k), list(k)) for k in DIFFERENT]
    both = refused = 0
    for name, argv in cases:
        theirs, their_text = parses(env.upstream, argv, ours=False)
        mine, my_text = parses(env.binary, argv, ours=True)
        why = DIFFERENT.get(tuple(argv))
        if why:
            check(mine != theirs, "%s: the known difference is gone (%s)", name, why)
            print("  %-46s upstream %s, ours %s: %s" % (name[:46], "reads" if theirs else "refuses",
                                                        "reads" if mine else "refuses", why))
            continue
        if mine != theirs:
            problems.append("%s: upstream %s (%s), ours %s (%s)" % (
                name, "reads it" if theirs else "refuses it", their_text,
                "reads it" if mine else "refuses it", my_text))
        both += 1
        refused += not theirs
    print("  %d command lines read alike (%d refused by both), every installer's among them"
          % (both, refused), flush=True)
    check(not problems, "\n  ".join(problems))


def started(binary, argv, ours, workdir):
    """How a real start ends within 10 s: "refused" (the flags), "ran" (past the flags)."""
    cmd = [binary, "--secure-port=1", "--cert-dir=" + os.path.join(workdir, "none"),
           "--kubeconfig=" + os.path.join(workdir, "none", "kubeconfig"),
           "--metrics-bind-address=0", "--health-probe-bind-address=0"] + argv
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        return "ran", "still running after 10 s"
    text = proc.stderr.strip()
    if ours:
        flags_refused = proc.returncode == 2 and "cannot load" not in text and \
            "kubeconfig" not in text
    else:
        flags_refused = proc.returncode == 1 and ("command failed" in text or
                                                  text.startswith("Error: "))
    return ("refused" if flags_refused else "ran"), text.splitlines()[:1]


def test_flags_checked_as_upstream_checks_them(env):
    problems = []
    for argv in VALIDATED:
        theirs, their_text = started(env.upstream, argv, False, env.dir)
        mine, my_text = started(env.binary, argv, True, env.dir)
        if mine != theirs:
            problems.append("%s: upstream %s (%s), ours %s (%s)" % (" ".join(argv), theirs,
                                                                   their_text, mine, my_text))
        else:
            print("  %-62s both %s" % ((" ".join(argv) or '""')[:62], theirs))
    check(not problems, "\n  ".join(problems))


def main(args):
    upstream = image_binary(args)
    if upstream is None:
        print("SKIP upstream's karmada-webhook as its image ships it: no %s" % os.path.join(
            kube.shared_dir(args.source), "karmada", "karmada-webhook.xz"), flush=True)
        return kube.SKIP
    env = type("Env", (), {"upstream": upstream, "binary": args.binary,
                           "dir": harness.temp_dir("upstream-flags")})
    return harness.run_tests([test_flags_read_as_upstream_reads_them,
                              test_flags_checked_as_upstream_checks_them], env)


if __name__ == "__main__":
    harness.main(main)
