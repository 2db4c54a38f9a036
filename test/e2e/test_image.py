#!/usr/bin/env python3
"""End to end: the image's root filesystem (image/make-rootfs.sh, what the Dockerfile copies onto
`scratch`) holds the binary under both names, the shared objects its ELF needs, /etc/passwd and
/etc/group, and nothing else (no shell, no package manager); the binary runs from it alone.

From a private copy of that filesystem (test/e2e/rootfs.py: chroot as root, else an unprivileged
user namespace), as a uid no file belongs to and with nothing in the environment but what a pod
spec gives: `/bin/karmada-webhook --help` and `/bin/karmada-policy-webhook routes` exit 0 as
OpenShift's arbitrary uid 1000370000; the Helm chart's exact command (test/e2e/installers.py,
`$(POD_IP)` = 127.0.0.1) as the image's USER 65532 (no installer sets runAsUser), with its Secrets
at their mount paths (an RSA 3072 PKCS#1 serving pair, an inline kubeconfig whose API server is
down), serves: the kubelet's readiness probe (HTTPS
/readyz on 8443, certificate not verified), /healthz on 8000 and /metrics on 8080 answer, SIGTERM
stops it with status 0, and it wrote no file; without tls.key it fails with one line and status 2.

The Helm command fixes 127.0.0.1:8443, :8000 and :8080: the test fails naming the port when one is
in use. Without chroot or user namespaces it prints one SKIP line and exits 77 (a failure with
KPW_REQUIRE_ENVTEST=1).

    test_image.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import ssl
import stat
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import installers  # noqa: E402
import rootfs  # noqa: E402
from harness import check  # noqa: E402

SKIP = 77
NAME = "karmada-policy-webhook"
UPSTREAM_NAME = "karmada-webhook"
OPENSHIFT_UID = 1000370000     # from a namespace's uid range; in no /etc/passwd, group root (0)
START_TIMEOUT = 30.0           # seconds until "serving https://"
STOP_TIMEOUT = 60.0            # SIGTERM to exit: --shutdown-delay (5 s by default) and the drain
RUN_TIMEOUT = 30.0             # --help, routes, a failing start
SHELLS_AND_PACKAGERS = ("sh", "bash", "dash", "ash", "busybox", "apt", "apt-get", "dpkg", "rpm")

POD_IP = "127.0.0.1"
HELM = installers.INSTALLERS["H"]     # the Helm chart's command, PKI and Secrets
HELM_PORTS = (installers.WEBHOOK_PORT, installers.HEALTH_PORT, installers.METRICS_PORT)


def skip(reason: str) -> None:
    """One line and exit 77 (skipped), or 1 when KPW_REQUIRE_ENVTEST=1, as kube.skip does."""
    if os.environ.get("KPW_REQUIRE_ENVTEST") == "1":
        print("FAIL KPW_REQUIRE_ENVTEST=1 but %s" % reason, flush=True)
        sys.exit(1)
    print("SKIP image test: cannot run a container here: %s; run as root, or allow unprivileged "
          "user namespaces" % reason, flush=True)
    sys.exit(SKIP)


# --- ELF and ldd ----------------------------------------------------------------------------------

def elf_header(path: str) -> tuple:
    """(class 32/64, byte order "<"/">", e_type) of an ELF file, or None."""
    with open(path, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    order = "<" if head[5] == 1 else ">"
    return (32 if head[4] == 1 else 64), order, struct.unpack_from(order + "H", head, 16)[0]


def elf_interp(path: str) -> str | None:
    """The PT_INTERP path of an ELF executable (None for a static one), read from its program
    headers, independently of the script's readelf."""
    bits, order, _ = elf_header(path)
    with open(path, "rb") as f:
        data = f.read()
    if bits == 64:
        phoff, = struct.unpack_from(order + "Q", data, 32)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 54)
        fields = order + "II Q QQ Q"     # type, flags, offset, vaddr, paddr, filesz
        pick = lambda v: (v[0], v[2], v[5])  # noqa: E731
    else:
        phoff, = struct.unpack_from(order + "I", data, 28)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 42)
        fields = order + "I I II I"      # type, offset, vaddr, paddr, filesz
        pick = lambda v: (v[0], v[1], v[4])  # noqa: E731
    for i in range(phnum):
        p_type, offset, size = pick(struct.unpack_from(fields.replace(" ", ""), data,
                                                       phoff + i * phentsize))
        if p_type == 3:  # PT_INTERP
            return data[offset:offset + size].rstrip(b"\0").decode()
    return None


def ldd_paths(binary: str) -> tuple:
    """(library paths, loader path or None) as ldd resolves them on this machine."""
    proc = subprocess.run(["ldd", binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=dict(os.environ, LC_ALL="C"))
    text = proc.stdout.decode("utf-8", "replace")
    if "not a dynamic executable" in text or "statically linked" in text:
        return [], None
    check(proc.returncode == 0 and "not found" not in text, "ldd %s: %s", binary, text)
    libs, loader = [], None
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 3 and words[1] == "=>" and words[2].startswith("/"):
            libs.append(words[2])
        elif words and words[0].startswith("/"):
            loader = words[0]
    return libs, loader


# --- the root filesystem -------------------------------------------------------------------------

def listing(root: str) -> dict:
    """{"/path": (kind "f"/"l"/"d", size, mode, uid, mtime_ns, link target)} of everything under
    root, root itself as "/"."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in [""] + dirs + files if folder == root else dirs + files:
            path = os.path.join(folder, name) if name else folder
            st = os.lstat(path)
            kind = "l" if stat.S_ISLNK(st.st_mode) else "d" if stat.S_ISDIR(st.st_mode) else \
                "f" if stat.S_ISREG(st.st_mode) else "?"
            rel = "/" + os.path.relpath(path, root) if path != root else "/"
            out[rel] = (kind, st.st_size, stat.S_IMODE(st.st_mode), st.st_uid, st.st_mtime_ns,
                        os.readlink(path) if kind == "l" else None)
    return out


def print_listing(entries: dict) -> None:
    total = 0
    for path in sorted(entries):
        kind, size, mode, _, _, target = entries[path]
        if kind == "d":
            continue
        total += size if kind == "f" else 0
        print("  %04o %10d  %s%s" % (mode, size, path, " -> " + target if target else ""))
    print("  %d bytes in %d files" % (total, sum(1 for e in entries.values() if e[0] != "d")),
          flush=True)


class Env:
    def __init__(self, args, mode: str):
        self.binary, self.source, self.mode = args.binary, args.source, mode
        t0 = time.monotonic()
        self.root = rootfs.make_rootfs(self.source, self.binary, harness.temp_dir("rootfs"))
        print("rootfs: made in %.1f s; containers run by %s" % (time.monotonic() - t0, mode),
              flush=True)
        # The chart's auto mode: one RSA 3072 PKCS#1 pair, CN system:admin in system:masters,
        # serving and in the kubeconfig alike (test/e2e/installers.py).
        pki = installers.make_pki(HELM, harness.temp_dir("helm-pki"))
        # Nothing listens there: the server must start and serve while its watch retries.
        self.api_server = "https://127.0.0.1:%d" % harness.free_port()
        self.secrets = installers.container_files(HELM, pki, self.api_server, pki.ca_pem())

    def container(self, argv: list, files: dict | None = None, **kwargs) -> rootfs.Container:
        return rootfs.Container(self.root, argv, files or {}, harness.temp_dir("container"),
                                **kwargs)


def helm_argv() -> list:
    return installers.argv(HELM, POD_IP)


def check_ports_free() -> None:
    for port in HELM_PORTS:
        check(not harness.port_is_listening(port),
              "127.0.0.1:%d is in use: the Helm chart's command fixes ports %s; stop what listens "
              "there", port, ", ".join(map(str, HELM_PORTS)))


def proc_ids(pid: int) -> dict:
    """{"Uid": [...], "Gid": [...], "Groups": [...]} of /proc/<pid>/status."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("Uid", "Gid", "Groups"):
                out[key] = [int(v) for v in value.split()]
    return out


def get(port: int, path: str, tls: bool = False) -> int:
    """The status of GET path, as the kubelet's probe asks (no certificate verification, no
    redirect followed); 0 when the connection fails."""
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection(POD_IP, port, context=ctx, timeout=5)
    else:
        conn = http.client.HTTPConnection(POD_IP, port, timeout=5)
    try:
        conn.request("GET", path, headers={"User-Agent": "kube-probe/1.36", "Accept": "*/*"})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        conn.close()


def wait_status(port: int, path: str, ok, tls: bool = False, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while True:
        status = get(port, path, tls)
        if ok(status) or time.monotonic() > deadline:
            return status
        time.sleep(0.2)


def run_to_exit(test_env: Env, argv: list, **kwargs) -> tuple:
    """(exit status, stderr) of argv run in a container to its end."""
    with test_env.container(argv, **kwargs) as c:
        status = c.wait_exit(RUN_TIMEOUT)
        check(status is not None, "%s still runs after %.0f s; stderr: %s", " ".join(argv),
              RUN_TIMEOUT, c.stderr())
        return status, c.stderr()


# --- tests ----------------------------------------------------------------------------------------

def test_rootfs_holds_the_binary_its_libraries_and_nothing_else(env):
    entries = listing(env.root)
    print_listing(entries)
    libs, loader = ldd_paths(env.binary)
    interp = elf_interp(env.binary)
    check(loader == interp, "ldd's loader %s, the ELF's PT_INTERP %s", loader, interp)
    expected = {"/bin/" + NAME, "/bin/" + UPSTREAM_NAME, "/etc/passwd", "/etc/group"} | set(libs)
    if interp:
        expected.add(interp)
    files = {p for p, e in entries.items() if e[0] != "d"}
    check(files == expected, "the root filesystem holds %s beyond and lacks %s of: the binary, "
          "its symlink, /etc/passwd, /etc/group and ldd's %s", sorted(files - expected),
          sorted(expected - files), libs)
    folders = {p for p, e in entries.items() if e[0] == "d"}
    parents = {"/"} | {os.path.dirname(p) for p in files | folders}
    check(folders == parents, "folders holding nothing: %s", sorted(folders - parents))
    bad = [p for p in entries if os.path.basename(p) in SHELLS_AND_PACKAGERS]
    check(not bad, "a shell or package manager in the image: %s", bad)

    check(entries["/bin/" + UPSTREAM_NAME][5] == NAME,
          "/bin/%s should be a relative symlink to %s: %s", UPSTREAM_NAME, NAME,
          entries["/bin/" + UPSTREAM_NAME])
    check(entries["/bin/" + NAME][0] == "f" and entries["/bin/" + NAME][2] == 0o755,
          "/bin/%s: %s", NAME, entries["/bin/" + NAME])
    with open(env.binary, "rb") as a, open(os.path.join(env.root, "bin", NAME), "rb") as b:
        check(a.read() == b.read(), "/bin/%s is not a copy of %s", NAME, env.binary)
    for path in files - {"/bin/" + NAME, "/bin/" + UPSTREAM_NAME, "/etc/passwd", "/etc/group"}:
        kind, _, mode, _, _, _ = entries[path]
        header = elf_header(os.path.join(env.root, path.lstrip("/")))
        check(kind == "f" and header is not None and header[2] == 3,  # ET_DYN
              "%s is not a shared object as a real file: %s", path, entries[path])
        check(mode & 0o444 == 0o444 and not mode & 0o022, "%s: mode %04o", path, mode)
    if interp:
        check(entries[interp][2] & 0o111, "the loader %s is not executable", interp)
    check(entries["/"][2] == 0o755, "/ has mode %04o", entries["/"][2])
    if os.geteuid() == 0:
        check(all(e[3] == 0 for e in entries.values()), "files not owned by root: %s",
              [p for p, e in entries.items() if e[3] != 0])

    with open(os.path.join(env.root, "etc", "passwd")) as f:
        passwd = [line.split(":") for line in f.read().splitlines()]
    with open(os.path.join(env.root, "etc", "group")) as f:
        group = [line.split(":") for line in f.read().splitlines()]
    check([(p[0], p[2], p[3], p[5]) for p in passwd] == [("root", "0", "0", "/root"),
                                                         ("nonroot", "65532", "65532",
                                                          "/nonexistent")],
          "/etc/passwd: %s", passwd)
    check([(g[0], g[2]) for g in group] == [("root", "0"), ("nonroot", "65532")],
          "/etc/group: %s", group)

    # --force again makes the same tree (a build step may rerun).
    rootfs.make_rootfs(env.source, env.binary, env.root)
    again = listing(env.root)
    check({p: e[:4] + e[5:] for p, e in again.items()} == {p: e[:4] + e[5:] for p, e in
                                                           entries.items()},
          "make-rootfs.sh --force made another tree the second time")


def test_help_and_routes_as_an_arbitrary_uid(env):
    """OpenShift runs an image as a uid from the namespace's range, in group root, in no passwd."""
    for argv in (["/bin/" + UPSTREAM_NAME, "--help"], ["/bin/" + NAME, "routes"]):
        status, stderr = run_to_exit(env, argv, uid=OPENSHIFT_UID, gid=0)
        check(status == 0, "%s as uid %d: exit status %s; stderr: %s", " ".join(argv),
              OPENSHIFT_UID, status, stderr)


def dockerfile_entrypoint(source: str) -> list:
    """The runtime stage's ENTRYPOINT (its exec form), as docker runs it."""
    with open(os.path.join(source, "Dockerfile")) as f:
        m = re.search(r"^ENTRYPOINT\s+(\[.*\])\s*$", f.read(), re.M)
    check(m is not None, "the Dockerfile has no ENTRYPOINT in exec form")
    return json.loads(m.group(1))


GOOD_POLICY = b"""apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: team-a}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
"""
BAD_POLICY = GOOD_POLICY.replace(b"name: web}]", b"name: web, namespace: team-b}]")


def test_entrypoint_runs_commands(env):
    """`docker run IMAGE check FILE` and `docker run IMAGE version`: the entrypoint is the binary,
    so a command is the first argument (docs/check.md, "In CI"); with flags only it serves (the
    Helm test above runs upstream's command, our Deployment passes flags as args)."""
    entry = dockerfile_entrypoint(env.source)
    check(entry == ["/bin/" + NAME], "ENTRYPOINT %s", entry)
    files = {"/work/good.yaml": GOOD_POLICY, "/work/bad.yaml": BAD_POLICY}
    for args, want in ((["version"], 0), (["--version"], 0),
                       (["check", "/work/good.yaml"], 0), (["check", "/work/bad.yaml"], 1),
                       (["check", "--quiet", "/work/good.yaml", "/work/bad.yaml"], 1)):
        status, stderr = run_to_exit(env, entry + args, files=files)
        check(status == want, "ENTRYPOINT + %s: exit status %s, not %d; stderr: %s", args, status,
              want, stderr)


def test_helm_command_serves(env):
    """The chart's command and Secrets, the image's default user: probes, metrics, SIGTERM."""
    check_ports_free()
    argv = helm_argv()
    c = env.container(argv, env.secrets, env={"POD_IP": POD_IP})
    before = listing(c.root)
    with c:
        serving = c.wait_for("serving https://", START_TIMEOUT)
        check(serving, "no \"serving https://\" line %s; stderr: %s",
              "within %.0f s" % START_TIMEOUT if c.alive() else
              "before it exited with status %s" % c.wait_exit(5), c.stderr())
        ready = wait_status(8443, "/readyz", lambda s: 200 <= s < 400, tls=True)
        check(200 <= ready < 400, "readiness probe: HTTPS GET /readyz on 8443: %s", ready)
        healthz = wait_status(8000, "/healthz", lambda s: s == 200)
        check(healthz == 200, "GET /healthz on 8000: %s", healthz)
        metrics = wait_status(8080, "/metrics", lambda s: s == 200)
        check(metrics == 200, "GET /metrics on 8080: %s", metrics)

        # It is the rootfs's binary, in the private root, as the uid asked for, with POD_IP only.
        check(os.readlink("/proc/%d/root" % c.pid) == c.root, "its root is %s, not %s",
              os.readlink("/proc/%d/root" % c.pid), c.root)
        check(os.readlink("/proc/%d/exe" % c.pid) == os.path.join(c.root, "bin", NAME),
              "it runs %s", os.readlink("/proc/%d/exe" % c.pid))
        with open("/proc/%d/environ" % c.pid, "rb") as f:
            environ = f.read()
        check(environ == b"POD_IP=%s\0" % POD_IP.encode(), "its environment: %r", environ)
        ids = proc_ids(c.pid)
        if c.mode == "chroot":
            check(ids["Uid"] == [65532] * 4 and ids["Gid"] == [65532] * 4 and not ids["Groups"],
                  "it runs as %s, not 65532:65532 without groups", ids)
        else:
            print("  (user namespace: it runs as the namespace's root, uid %s outside; the uid "
                  "asked for is not exercised)" % ids["Uid"][0], flush=True)

        t0 = time.monotonic()
        status = c.stop(STOP_TIMEOUT)
        took = time.monotonic() - t0
        check(status == 0, "exit status %s %.1f s after SIGTERM (-9: killed after %.0f s); "
              "stderr: %s", status, took, STOP_TIMEOUT, c.stderr())
        print("  serving, probes answered; stopped %.1f s after SIGTERM" % took, flush=True)
        after = listing(c.root)
        changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
        check(not changed, "the root filesystem changed while it ran: %s", changed)
        check(not harness.port_is_listening(8443), "8443 still listening after exit")


def test_helm_command_without_key_fails_in_one_line(env):
    check_ports_free()
    files = dict(env.secrets)
    del files["/var/serving-cert/tls.key"]
    status, stderr = run_to_exit(env, helm_argv(), files=files, env={"POD_IP": POD_IP})
    lines = stderr.splitlines()
    check(status == 2, "exit status %s, expected 2; stderr: %s", status, stderr)
    check(len(lines) == 1 and re.match(r"^karmada(-policy)?-webhook: ", lines[0]),
          "stderr should be one line naming the program: %r", stderr)
    check("tls.key" in lines[0], "the line does not name tls.key: %r", lines[0])
    check(not harness.port_is_listening(8443), "8443 is listening after a failed start")
    print("  %s" % lines[0], flush=True)


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)   # atexit handlers (and the with-blocks) run


def run(args) -> int:
    mode, why = rootfs.isolation()
    if mode is None:
        skip(why)
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, _exit_on_signal)
    env = Env(args, mode)
    return harness.run_tests([test_rootfs_holds_the_binary_its_libraries_and_nothing_else,
                              test_help_and_routes_as_an_arbitrary_uid,
                              test_entrypoint_runs_commands,
                              test_helm_command_serves,
                              test_helm_command_without_key_fails_in_one_line], env)


if __name__ == "__main__":
    harness.main(run)
