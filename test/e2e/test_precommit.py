#!/usr/bin/env python3
"""`check` as a pre-commit hook: the repository's .pre-commit-hooks.yaml, run by Debian's pre-commit.

A scratch hook repository holds this repository's .pre-commit-hooks.yaml (committed there, as a
user's `rev:` pins it); a scratch project uses its `karmada-policy-check` hook (`language:
system`: the binary under test on PATH as `karmada-policy-webhook`) and commits:
- a valid PropagationPolicy beside a YAML file of no Karmada kind: the commit passes;
- a PropagationPolicy whose selector names another namespace: the commit fails, and pre-commit's
  output names the file, the line, the field and the rule (V-S1);
- the policy fixed (the selector's namespace the policy's): the commit passes.

Needs git and pre-commit (Debian: git, pre-commit; `make deps` installs them); a missing one FAILS
the test, it never passes without running the hook. The image's hook (`language: docker_image`)
needs docker, which the suite does not have: test_image.py runs the image's entrypoint with
`check` instead.

    test_precommit.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import check  # noqa: E402

GOOD = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: team-a
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
  placement:
    clusterAffinity:
      clusterNames: [member1]
"""
BAD = GOOD.replace("      name: web\n", "      name: web\n      namespace: team-b\n")
FIXED = GOOD.replace("      name: web\n", "      name: web\n      namespace: team-a\n")
OTHER = "name: build\non: [push]\njobs: {}\n"


class Env:
    def __init__(self, args):
        self.args = args
        for tool in ("git", "pre-commit"):
            check(shutil.which(tool), "%s is not installed (Debian: apt-get install %s; `make "
                  "deps` installs it)", tool, tool)
        self.dir = harness.temp_dir("precommit")
        bin_dir = os.path.join(self.dir, "bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(args.binary), os.path.join(bin_dir, "karmada-policy-webhook"))
        self.env = {"PATH": bin_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
                    "HOME": self.dir, "PRE_COMMIT_HOME": os.path.join(self.dir, "cache"),
                    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
                    "LANG": "C.UTF-8"}

    def run(self, cwd, *argv):
        return subprocess.run(list(argv), cwd=cwd, env=self.env, capture_output=True, text=True,
                              timeout=300)

    def git(self, cwd, *argv):
        proc = self.run(cwd, "git", *argv)
        check(proc.returncode == 0, "git %s: %s%s", " ".join(argv), proc.stdout, proc.stderr)
        return proc.stdout.strip()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def test_hook_fails_a_bad_policy_and_passes_a_good_one(env):
    hooks = os.path.join(env.dir, "hooks")
    os.mkdir(hooks)
    env.git(hooks, "init", "-q")
    shutil.copy(os.path.join(env.args.source, ".pre-commit-hooks.yaml"), hooks)
    env.git(hooks, "add", ".pre-commit-hooks.yaml")
    env.git(hooks, "commit", "-q", "-m", "hooks")
    rev = env.git(hooks, "rev-parse", "HEAD")

    project = os.path.join(env.dir, "project")
    os.mkdir(project)
    env.git(project, "init", "-q")
    write(os.path.join(project, ".pre-commit-config.yaml"),
          "repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: karmada-policy-check\n" % (hooks, rev))
    proc = env.run(project, "pre-commit", "install")
    check(proc.returncode == 0, "pre-commit install: %s%s", proc.stdout, proc.stderr)

    os.makedirs(os.path.join(project, "policies"))
    write(os.path.join(project, "policies", "web.yaml"), GOOD)
    write(os.path.join(project, "workflow.yaml"), OTHER)
    env.git(project, "add", ".")
    proc = env.run(project, "git", "commit", "-m", "good")
    check(proc.returncode == 0, "a valid policy: the commit failed:\n%s%s", proc.stdout,
          proc.stderr)
    check("karmada policy check" in proc.stdout + proc.stderr,
          "the hook did not run on the commit:\n%s%s", proc.stdout, proc.stderr)

    write(os.path.join(project, "policies", "web.yaml"), BAD)
    env.git(project, "add", ".")
    proc = env.run(project, "git", "commit", "-m", "bad")
    out = proc.stdout + proc.stderr
    check(proc.returncode != 0, "an invalid policy: the commit passed:\n%s", out)
    check("policies/web.yaml:" in out and "spec.resourceSelectors[0].namespace" in out
          and "[V-S1]" in out, "the hook's output does not name the file, field and rule:\n%s",
          out)
    check(env.git(project, "rev-list", "--count", "HEAD") == "1", "the bad commit was made")

    write(os.path.join(project, "policies", "web.yaml"), FIXED)
    env.git(project, "add", ".")
    proc = env.run(project, "git", "commit", "-m", "fixed")
    check(proc.returncode == 0, "the fixed policy: the commit failed:\n%s%s", proc.stdout,
          proc.stderr)


if __name__ == "__main__":
    harness.main(lambda args: harness.run_tests([test_hook_fails_a_bad_policy_and_passes_a_good_one],
                                                Env(args)))
