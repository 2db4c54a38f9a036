"""The image's root filesystem for the end-to-end tests: the binary run from it alone, as a kubelet
runs the container, without a container registry or daemon.

    def run(args):
        mode, why = rootfs.isolation()                  # ("chroot" | "userns" | None, why)
        root = rootfs.make_rootfs(args.source, args.binary, harness.temp_dir("rootfs"))
        with rootfs.Container(root, ["/bin/karmada-webhook", "--secure-port=8443", ...],
                              {"/var/serving-cert/tls.crt": crt, ...},
                              harness.temp_dir("container"), uid=1000370000) as c:
            harness.check(c.wait_for("serving https://", 30), "stderr: %s", c.stderr())
            ...
            status = c.stop(60)                         # SIGTERM, then SIGKILL

`make_rootfs` runs image/make-rootfs.sh, which the Dockerfile's runtime stage copies onto `scratch`
as it is: what runs here is what the image holds. `Container` gives the binary a private copy of
that root filesystem (hard links where possible) with the Secrets' files written in at their mount
paths, and starts it there with the exact argv, an empty environment but for what the test gives
(a kubelet passes only what the pod spec says: the installers set POD_IP), a non-root uid that
owns nothing, and no shell: a library, a file or a writable path the binary needs and the image
lacks fails the test.

Stricter than a container runtime: there is no /proc, /dev or /sys inside (a runtime mounts them,
the kubelet adds /etc/hosts and /etc/resolv.conf), so the binary must not need them to start and
serve on addresses given as IPs.

`isolation()` says how: as root, `chroot` (the child chroots, drops its groups and takes the uid
and gid asked for before exec); otherwise through an unprivileged user namespace, `unshare --user
--map-root-user chroot ROOT ...`, where the binary runs as the namespace's root, which is our own
uid outside: the private root is then ours and writable to it, and the uid is not the one asked
for, so the uid half of the test is not exercised there. Every child gets PR_SET_PDEATHSIG (set
after the uid change, which would clear it) and is stopped at exit, so none outlives the test.

Python 3 standard library only.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kube  # noqa: E402

__all__ = ["make_rootfs", "isolation", "Container"]

STOP_TIMEOUT = 15.0

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)
_children = []          # every Popen this module started, stopped at exit


def make_rootfs(source: str, binary: str, dest: str) -> str:
    """<source>/image/make-rootfs.sh --force binary dest; returns dest. AssertionError with the
    script's output when it fails."""
    cmd = [os.path.join(source, "image", "make-rootfs.sh"), "--force", binary, dest]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120)
    if proc.returncode != 0:
        raise AssertionError("%s exited %d: %s" % (" ".join(cmd), proc.returncode,
                                                   proc.stdout.decode("utf-8", "replace").strip()))
    return dest


def _chroot_here():
    os.chroot("/")


_isolation = None


def isolation() -> tuple:
    """(mode, why): ("chroot", ...) when we may chroot (root), ("userns", ...) when `unshare --user
    --map-root-user` works, else (None, why neither does). Probed once per process."""
    global _isolation
    if _isolation is None:
        _isolation = _probe_isolation()
    return _isolation


def _probe_isolation() -> tuple:
    why = []
    if os.geteuid() == 0:
        # Root without CAP_SYS_CHROOT (a locked-down container) is not enough: try it.
        try:
            proc = subprocess.run(["true"], preexec_fn=_chroot_here, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
            if proc.returncode == 0:
                return "chroot", "running as root"
            why.append("chroot(2) as root exited %d" % proc.returncode)
        except (OSError, subprocess.SubprocessError) as e:
            why.append("chroot(2) as root failed: %s" % e)
    else:
        why.append("not root (no chroot)")
    if shutil.which("unshare") is None or shutil.which("chroot") is None:
        why.append("no unshare or chroot program (Debian: util-linux, coreutils)")
        return None, "; ".join(why)
    proc = subprocess.run(["unshare", "--user", "--map-root-user", "chroot", "/", "true"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=30)
    if proc.returncode == 0:
        return "userns", "unprivileged user namespaces (the uid asked for is not used)"
    why.append("`unshare --user --map-root-user chroot / true` exited %d: %s"
               % (proc.returncode, proc.stderr.decode("utf-8", "replace").strip()))
    return None, "; ".join(why)


def _link_or_copy(src: str, dst: str):
    # Hard links cost nothing; the child cannot write through them (root owns them, the uid does
    # not), and a file the test writes in is unlinked first. Another filesystem: copy.
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
    return dst


def _stop(proc: subprocess.Popen, timeout: float) -> int:
    """SIGTERM, then SIGKILL after timeout; by PID; the exit status."""
    kube.stop_process(proc, timeout)
    return proc.wait()


def _stop_all():
    for proc in reversed(_children):
        _stop(proc, 5)


atexit.register(_stop_all)


class Container:
    """The binary run from a private copy of a root filesystem, as a kubelet runs a container: the
    Secrets' files at their mount paths, the exact argv, a non-root uid that owns nothing (the root
    filesystem is read-only to it), no shell.

    `argv[0]` is the path inside the container ("/bin/karmada-webhook"). `files` maps absolute
    paths inside it to bytes, written mode 0644 in folders 0755 owned by root, as Secret volumes
    are (any uid reads them). The private copy is made under `workdir` (`root` names it);
    `pid` is the binary's process id (under "userns" too: unshare and chroot exec, not fork);
    `mode` is isolation()'s. Used as a context manager it is started on entry and stopped on exit,
    with no check of the exit status."""

    def __init__(self, rootfs: str, argv: list, files: dict, workdir: str, uid: int = 65532,
                 gid: int = 65532, env: dict | None = None):
        self.mode, why = isolation()
        if self.mode is None:
            raise RuntimeError("cannot isolate a container here: %s" % why)
        if not argv or not argv[0].startswith("/"):
            raise ValueError("argv[0] must be an absolute path inside the container: %r" % argv)
        self.argv = list(argv)
        self.uid, self.gid = uid, gid
        self.env = dict(env or {})
        self.root = os.path.join(tempfile.mkdtemp(prefix="container-", dir=workdir), "root")
        shutil.copytree(rootfs, self.root, symlinks=True, copy_function=_link_or_copy)
        os.chmod(self.root, 0o755)  # "/" of a container; mkdtemp-made roots are 0700
        for path, data in files.items():
            self._write(path, data)
        self.proc = None
        self._lines = []
        self._cond = threading.Condition()
        self._eof = False
        self._reader = None

    def _write(self, path: str, data: bytes):
        parts = path.split("/")
        if not path.startswith("/") or ".." in parts:
            raise ValueError("files: %r is not an absolute path inside the container" % path)
        target = os.path.join(self.root, path.lstrip("/"))
        folder = self.root
        for part in parts[1:-1]:
            folder = os.path.join(folder, part)
            if not os.path.isdir(folder):
                os.mkdir(folder)
                os.chmod(folder, 0o755)
        if os.path.lexists(target):
            os.unlink(target)  # a hard link into the shared root filesystem: never write through
        with open(target, "wb") as f:
            f.write(data)
        os.chmod(target, 0o644)

    # -- the child

    def _enter_container(self):
        # Between fork and exec, in this order: chroot needs root, the uid change comes last but
        # one, and it clears the parent-death signal, so that is set after it.
        os.chroot(self.root)
        os.chdir("/")
        os.setgroups([])
        os.setgid(self.gid)
        os.setuid(self.uid)
        self._die_with_parent()

    def _die_with_parent(self):
        # SIGKILL when the test process goes away, even by SIGKILL (ctest's timeout).
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != self._parent:
            os._exit(1)  # the parent died before prctl: nobody would stop this one

    def start(self) -> "Container":
        """Starts it; waits for nothing."""
        if self.proc is not None:
            raise RuntimeError("already started")
        self._parent = os.getpid()
        if self.mode == "chroot":
            cmd, preexec = self.argv, self._enter_container
        else:
            # Absolute paths: the environment is the container's, with no PATH to search.
            cmd, preexec = [shutil.which("unshare"), "--user", "--map-root-user",
                            shutil.which("chroot"), self.root] + self.argv, self._die_with_parent
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=self.env, preexec_fn=preexec,
                                     close_fds=True)
        _children.append(self.proc)
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        return self

    # stderr, collected by a thread so the pipe never fills up
    def _read_stderr(self):
        for raw in self.proc.stderr:
            with self._cond:
                self._lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _started(self):
        if self.proc is None:
            raise RuntimeError("the container was not started")

    def stderr(self) -> str:
        """All of stderr so far."""
        with self._cond:
            return "".join(line + "\n" for line in self._lines)

    def wait_for(self, text: str, timeout: float) -> bool:
        """True once a stderr line holds `text`; False on timeout or when the process exits (its
        stderr closes) first."""
        self._started()
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for line in self._lines[seen:]:
                    if text in line:
                        return True
                seen = len(self._lines)
                left = deadline - time.monotonic()
                if self._eof or left <= 0:
                    return False
                self._cond.wait(left)

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status, or None if it still runs after `timeout` seconds."""
        self._started()
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        self._reader.join(5)
        return status

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM, then SIGKILL after `timeout` seconds; the exit status (-9 when killed)."""
        self._started()
        status = _stop(self.proc, timeout)
        self._reader.join(5)
        return status

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def returncode(self):
        return None if self.proc is None else self.proc.poll()

    @property
    def pid(self):
        return None if self.proc is None else self.proc.pid

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        if self.proc is not None:
            self.stop()
        return False
