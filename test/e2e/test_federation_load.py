#!/usr/bin/env python3
"""Load with faults inside a real federation: the latency a user feels, as the API server measures it.

One federation (test/e2e/federation.py, two members), two loads:

**Policies, against a floor.** 300 PropagationPolicies from 4 kubectl processes at once (each one
call of the mutating and one of the validating entry; $KPW_FEDERATION_POLICY_COUNT) per webhook
and round, $KPW_FEDERATION_ROUNDS rounds (2), the webhooks' order rotated each round, every
process running throughout:
- a **null** webhook (test/bench/ceiling_server --echo-uid --permanent-ids: our server library,
  every review allowed, nothing judged; a created policy, binding or Work gets the one patch
  every mutator of those paths sends, its permanent-id label), registered with upstream's
  configurations: the API server's own cost, the floor. It is sent the policies as our mutator
  leaves them (the selector's namespace, priority, preemption, the label, the finalizer), so that
  the controller-manager reconciles them as it does the others', on the same cores, while the
  calls are measured;
- **upstream's** karmada-webhook (its command line and configurations), sent the policies as a
  user writes them;
- **ours** (`serve`, the project's url overlay), sent them as a user writes them, and **ours, sent
  as mutated**: the null webhook's very requests, to which ours answers the same one-operation
  patch, so that what is left between the two is what judging costs the API server.
Each round's figures are printed against that round's floor, with the median over the rounds.

**Propagation, with faults.** Each phase creates N Deployments (500 by default,
$KPW_FEDERATION_LOAD_COUNT) in a namespace of its own, from 4 kubectl processes at once, as fast
as kubectl can, with one PropagationPolicy (a label selector, both members, Duplicated): the
detector, the scheduler and the binding controllers make a ResourceBinding and two Works per
Deployment through the webhook (/mutate-resourcebinding, /validate-resourcebinding, /mutate-work),
and the phase ends when all N are in both members and every Work exists:
- **upstream** (the first phase warms the controllers and the API server's caches: upstream's, at
  the same place in every run), then the **null** webhook (the floor of a propagation: the
  permanent-id labels, nothing else), then **ours**;
- **ours, restarted**: one replica of ours stopped (SIGTERM) and started again on its address
  while the Deployments are created: the calls of that window fail, the controllers retry, every
  Deployment still reaches both members and every Work exists (the failed calls counted);
- **ours, 2 replicas**: two replicas behind a relay in this process that does what a Service does
  (each connection to a replica whose readiness probe passes, a replica taken out when it fails),
  restarted one at a time with our SIGTERM sequence (`--shutdown-delay 3s`): 0 failed calls.
KPW_FEDERATION_LOAD_COUNT=0 runs the policies' load alone.

From karmada-apiserver's /metrics, per phase (the difference before and after):
`apiserver_admission_webhook_admission_duration_seconds` (calls, mean from _sum/_count, the share
under 5 ms from the 0.005 bucket, p99 as the bucket bound holding it) and
`apiserver_admission_webhook_rejection_count` (0 for every phase but "restarted"). Printed as two
tables, with the time for all N to reach both members and the webhooks' peak RSS (VmHWM); the figures
are the reference of docs/performance.md ("Inside a federation"). Checked: every Deployment in both
members in every phase, no rejection but calling errors in the restart window, 0 failed calls with
two replicas. No timing is asserted (a busy machine is slower, not wrong).

    [KPW_FEDERATION_LOAD_COUNT=500] test_federation_load.py --binary build/karmada-policy-webhook \
        --source .
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import federation  # noqa: E402
import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

COUNT = int(os.environ.get("KPW_FEDERATION_LOAD_COUNT", "500"))
# PropagationPolicies per webhook and round
POLICY_COUNT = int(os.environ.get("KPW_FEDERATION_POLICY_COUNT", "300"))
# rounds of the policies' load, the webhooks' order rotated each round (the first round null,
# upstream, ours; the second upstream, ours, null; ...): no webhook always runs on the emptiest store
ROUNDS = int(os.environ.get("KPW_FEDERATION_ROUNDS", "2"))
CLIENTS = 4                     # kubectl processes creating at once
REACH_TIMEOUT = float(os.environ.get("KPW_FEDERATION_LOAD_TIMEOUT", "600"))  # all N in both
DURATION = "apiserver_admission_webhook_admission_duration_seconds"
REJECTIONS = "apiserver_admission_webhook_rejection_count"
SHUTDOWN_DELAY = "3s"


# --- the null webhook -------------------------------------------------------------------------------

class NullWebhook:
    """test/bench/ceiling_server --echo-uid --permanent-ids: the same server library as ours (TLS,
    HTTP/1.1 keep-alive, the same threads), every review allowed with its uid, nothing decoded or
    judged; a created binding or Work gets its permanent-id labels, the one patch the controllers
    cannot propagate without."""

    def __init__(self, build_dir, cert_dir, workdir, source):
        self.source = source
        self.binary = os.path.join(build_dir, "test", "bench", "ceiling_server")
        self.cert_dir, self.ca = cert_dir, os.path.join(cert_dir, "ca.crt")
        self.comp = federation.Component("null-webhook", workdir)
        self.port = None

    def available(self) -> bool:
        return os.access(self.binary, os.X_OK)

    def start(self):
        for attempt in range(3):
            self.port = harness.free_port()
            try:
                self.comp.start([self.binary, "--echo-uid", "--permanent-ids",
                                 "--bind-address", "127.0.0.1",
                                 "--secure-port", str(self.port), "--cert-dir", self.cert_dir,
                                 "--threads", "2"],
                                lambda: harness.port_is_listening(self.port))
                return self
            except AssertionError:
                self.comp.stop()
                if attempt == 2:
                    raise
        return self

    def stop(self):
        self.comp.stop()

    configs = "upstream"      # registered with upstream's configurations (federation.register)

    def register(self, api):
        """Upstream's configurations pointed at it (no CRD patch: the controllers read and write
        the bindings at their storage version, no conversion is called). It never denies, so
        the API server's pick-up of the configurations is waited for by time alone."""
        api.kubectl("apply", "-f", "-", input=federation.upstream_configuration(
            self.source, self.port, self.ca))
        time.sleep(3)

    def unregister(self, api):
        api.kubectl("delete", "--ignore-not-found", *federation.UPSTREAM_CONFIGS)


# --- the relay: what a Service does ------------------------------------------------------------------

class Relay:
    """A TCP relay on 127.0.0.1: each new connection goes to the next replica whose readiness probe
    (plain HTTP GET /readyz on its probe port, every 0.1 s) passes; a connection stays on its
    replica until either end closes it, as kube-proxy keeps it."""

    def __init__(self, replicas):
        self.replicas = replicas          # harness.Server each (port, probe_port)
        self.ready = set()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.next = 0
        self.refused = 0                  # connections that found no ready replica
        self.running = True
        threading.Thread(target=self._probe, daemon=True).start()
        threading.Thread(target=self._accept, daemon=True).start()

    def _probe(self):
        while self.running:
            now = set()
            for i, r in enumerate(self.replicas):
                if r.alive() and _probe_ok(r.probe_port):
                    now.add(i)
            self.ready = now
            time.sleep(0.1)

    def _accept(self):
        while self.running:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            ready = sorted(self.ready)
            if not ready:
                self.refused += 1
                client.close()
                continue
            target = self.replicas[ready[self.next % len(ready)]]
            self.next += 1
            if harness.relay_connection(client, target.port) is None:
                self.refused += 1

    def stop(self):
        self.running = False
        self.sock.close()


def _probe_ok(port):
    import http.client
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        conn.request("GET", "/readyz")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


# --- measuring ---------------------------------------------------------------------------------------

def webhook_figures(samples):
    """What the API server counts of its webhook calls, summed over every entry: {"calls",
    "sum" (seconds), "buckets" ({le: cumulative calls}), "failed" (calling errors), "rejected"
    (every rejection), "admit"/"validating" ((calls, seconds) of each kind of entry)}."""
    out = {"calls": harness.metric_sum(samples, DURATION + "_count"),
           "sum": harness.metric_sum(samples, DURATION + "_sum"), "buckets": {},
           "failed": harness.metric_sum(samples, REJECTIONS, error_type="calling_webhook_error"),
           "rejected": harness.metric_sum(samples, REJECTIONS)}
    for kind in ("admit", "validating"):
        out[kind] = (harness.metric_sum(samples, DURATION + "_count", type=kind),
                     harness.metric_sum(samples, DURATION + "_sum", type=kind))
    for (name, labels), v in samples.items():
        if name == DURATION + "_bucket":
            le = dict(labels)["le"]
            out["buckets"][le] = out["buckets"].get(le, 0) + v
    return out


def combined(figures, sign=1):
    """The sum of figures (dicts of webhook_figures), each times its sign: [(f, +1), (g, -1)]."""
    out = {"calls": 0, "sum": 0.0, "buckets": {}, "failed": 0, "rejected": 0,
           "admit": (0, 0.0), "validating": (0, 0.0)}
    for f, sign in figures:
        for key in ("calls", "sum", "failed", "rejected"):
            out[key] += sign * f[key]
        for le, v in f["buckets"].items():
            out["buckets"][le] = out["buckets"].get(le, 0) + sign * v
        for kind in ("admit", "validating"):
            out[kind] = (out[kind][0] + sign * f[kind][0], out[kind][1] + sign * f[kind][1])
    return out


def delta(after, before):
    return combined([(after, 1), (before, -1)])


def p99(buckets, calls):
    for le in sorted(buckets, key=lambda b: float("inf") if b == "+Inf" else float(b)):
        if calls and buckets[le] >= 0.99 * calls:
            return "<= %s s" % le if le != "+Inf" else "> 25 s"
    return "-"


def rss_peak_mib(pids):
    """The peak RSS (VmHWM) of the processes `pids()` names now, summed; None without any."""
    total = 0
    for pid in pids():
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024.0 if total else None


def deployments_in(member_api, ns):
    status, body = member_api.request("GET", "/apis/apps/v1/namespaces/%s/deployments" % ns,
                                      timeout=60)
    return len(json.loads(body)["items"]) if status == 200 else 0


def works_for(api, ns):
    items = api.kubectl_json("get", "works", "-A")["items"]
    return sum(1 for w in items if any(m.get("metadata", {}).get("namespace") == ns
                                       for m in w["spec"]["workload"].get("manifests", [])))


def deployment(ns, i):
    name = "d%04d" % i
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": {"load": "yes"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def policy(ns, i):
    """A PropagationPolicy as a user writes one (it selects nothing here)."""
    return {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
            "metadata": {"name": "p%04d" % i, "namespace": ns},
            "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                            "name": "none-%04d" % i}],
                     "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]},
                                   "replicaScheduling": {"replicaSchedulingType": "Duplicated"}}}}


def policy_as_mutated(ns, i):
    """The same policy as our mutator leaves it (the selector's namespace, priority, preemption,
    the permanent-id label, the controller's finalizer): what the null webhook is sent, so that
    the controllers reconcile its policies as they reconcile the others', on the same cores, while
    the calls are measured; and what ours is sent in its phase against the floor, where its
    mutating answer is the floor's, the label's one operation (a CREATE mints a new ID), and
    the API server applies the same patch to the same object for both."""
    obj = policy(ns, i)
    obj["metadata"]["labels"] = {"propagationpolicy.karmada.io/permanent-id":
                                 "0e2e0e2e-0000-4000-8000-%012d" % i}
    obj["metadata"]["finalizers"] = ["karmada.io/propagation-policy-controller"]
    obj["spec"]["resourceSelectors"][0]["namespace"] = ns
    obj["spec"]["priority"] = 0
    obj["spec"]["preemption"] = "Never"
    return obj


def create_all(api, ns, count, make):
    """CLIENTS kubectl processes at once, each creating its share (make(ns, i)) in one
    `kubectl create -f -`."""
    procs = []
    for c in range(CLIENTS):
        items = [make(ns, i) for i in range(c, count, CLIENTS)]
        proc = subprocess.Popen(api.kubectl_command("create", "-f", "-"), stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        proc.stdin.write(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        proc.stdin.close()
        procs.append(proc)
    return procs


def wait_created(name, procs):
    for p in procs:
        err = p.stderr.read()
        p.wait()
        check(p.returncode == 0, "%s: kubectl create exited %d: %s", name, p.returncode,
              err[:1000])


def mean_ms(calls_and_seconds):
    calls, seconds = calls_and_seconds
    return 1000 * seconds / calls if calls else 0.0


def row_of(name, d, pids=lambda: (), **more):
    calls = d["calls"]
    row = {"phase": name, "calls": int(calls), "mean_ms": mean_ms((calls, d["sum"])),
           "admit_ms": mean_ms(d["admit"]), "validating_ms": mean_ms(d["validating"]),
           "under5": 100.0 * d["buckets"].get("0.005", 0) / calls if calls else 0,
           "p99": p99(d["buckets"], calls), "failed": int(d["failed"]),
           "rejected": int(d["rejected"]), "rss": rss_peak_mib(pids)}
    row.update(more)
    print("  %-22s %6d calls, mean %.2f ms (mutating %.2f, validating %.2f), %.0f %% under 5 ms, "
          "p99 %s, %d failed%s" % (
              name, row["calls"], row["mean_ms"], row["admit_ms"], row["validating_ms"],
              row["under5"], row["p99"], row["failed"],
              ", all in both members in %.1f s" % more["reached_s"] if "reached_s" in more
              else ""), flush=True)
    return row


def run_policies(fed, name, count, make=policy):
    """N PropagationPolicies from CLIENTS kubectl processes: each one call of the mutating and
    one of the validating entry, nothing else (the load the null webhook is a floor for).
    Returns the difference of the API server's figures."""
    api = fed.karmada
    ns = "policies-" + name
    api.kubectl("create", "namespace", ns)
    before = webhook_figures(api.metrics())
    wait_created(name, create_all(api, ns, count, make))
    time.sleep(1)
    return delta(webhook_figures(api.metrics()), before)


def run_phase(fed, name, count, during=None, pids=lambda: (), as_mutated=False):
    """One phase: namespace, policy (`as_mutated`: with what a mutator adds, for the null
    webhook), N Deployments; `during(t0)` runs while they propagate. Returns the row of the
    table."""
    api = fed.karmada
    ns = "load-" + name.replace(" ", "-").replace(",", "")
    api.kubectl("create", "namespace", ns)
    pp = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
          "metadata": {"name": "all", "namespace": ns},
          "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                          "labelSelector": {"matchLabels": {"load": "yes"}}}],
                   "placement": {"clusterAffinity": {"clusterNames": fed.member_names}}}}
    if as_mutated:
        pp["metadata"]["labels"] = {"propagationpolicy.karmada.io/permanent-id":
                                    "0e2e0e2e-0000-4000-8000-1e2e1e2e1e2e"}
        pp["metadata"]["finalizers"] = ["karmada.io/propagation-policy-controller"]
    api.kubectl("create", "-f", "-", input=pp)
    time.sleep(1)
    before = webhook_figures(api.metrics())
    t0 = time.monotonic()
    procs = create_all(api, ns, count, deployment)
    if during is not None:
        during(t0)
    wait_created(name, procs)
    deadline = t0 + REACH_TIMEOUT
    counts = {}
    while time.monotonic() < deadline:
        counts = {m: deployments_in(fed.members[m], ns) for m in fed.member_names}
        if all(c == count for c in counts.values()):
            break
        time.sleep(1)
    reached = time.monotonic() - t0
    if not all(c == count for c in counts.values()):
        rbs = api.kubectl_json("get", "resourcebindings", "-n", ns)["items"]
        raise AssertionError("%s: after %.0f s the members hold %s of %d; %d ResourceBindings "
                             "(%d scheduled), %d Works; the policy: %s" % (
                                 name, REACH_TIMEOUT, counts, count, len(rbs),
                                 sum(1 for b in rbs if b["spec"].get("clusters")),
                                 works_for(api, ns),
                                 json.dumps(api.kubectl_json("get", "pp", "all", "-n", ns)[
                                     "metadata"])[:600]) + "\n" + "\n".join(
                                         errors_about(fed, ns)[-8:]))
    time.sleep(2)                 # the last calls' samples
    d = delta(webhook_figures(api.metrics()), before)
    works = works_for(api, ns)
    check(works == count * len(fed.member_names), "%s: %d Works for %d Deployments in %d members",
          name, works, count, len(fed.member_names))
    return row_of(name, d, pids, reached_s=reached)


def errors_about(fed, ns):
    """The controllers' error lines that name the namespace."""
    out = []
    for comp in fed.components.values():
        out += [l[:600] for l in comp.lines(re.compile("^E.*" + ns))]
    return out


def print_rounds(deltas):
    """Each round's mean per call against that round's null webhook, and the median of those
    ratios: the phases of one round run minutes apart, the rounds further."""
    print("\nper round, mean per call (vs the null webhook of the round):")
    ratios = {who: [] for who in deltas if who != "null"}
    for i, floor in enumerate(deltas["null"]):
        floor_ms = mean_ms((floor["calls"], floor["sum"]))
        cells = ["null %.2f ms" % floor_ms]
        for who in ratios:
            ms = mean_ms((deltas[who][i]["calls"], deltas[who][i]["sum"]))
            ratios[who].append(ms / floor_ms - 1 if floor_ms else 0.0)
            cells.append("%s %.2f ms (%+.0f %%)" % (who, ms, 100 * ratios[who][-1]))
        print("  round %d: %s" % (i + 1, ", ".join(cells)))
    for who, r in ratios.items():
        r = sorted(r)
        median = (r[len(r) // 2] + r[(len(r) - 1) // 2]) / 2
        print("  %s: median %+.1f %% of the null webhook over %d rounds (%s)" % (
            who, 100 * median, len(r), ", ".join("%+.0f %%" % (100 * x) for x in r)))
    sys.stdout.flush()


def print_tables(policies, propagation):
    floor = policies[0]["mean_ms"] if policies[0]["phase"] == "null" else None
    print("\n%d PropagationPolicies from %d kubectl clients per webhook, %d rounds, the webhooks "
          "in turn, as karmada-apiserver measures its webhook calls (the null webhook: its own "
          "cost)" % (POLICY_COUNT, CLIENTS, ROUNDS))
    print("| webhook | calls | mean per call | mutating / validating | vs the null webhook | "
          "under 5 ms | p99 | failed calls |")
    print("|---|---|---|---|---|---|---|---|")
    for r in policies:
        print("| %s | %d | %.2f ms | %.2f / %.2f ms | %s | %.0f %% | %s | %d |" % (
            r["phase"], r["calls"], r["mean_ms"], r["admit_ms"], r["validating_ms"],
            "floor" if r["phase"] == "null" else "%+.0f %%" % (100 * (r["mean_ms"] / floor - 1))
            if floor else "-", r["under5"], r["p99"], r["failed"]))
    print("\n%d Deployments propagated to 2 members per phase (the controllers' calls: bindings "
          "and Works)" % COUNT)
    floor = next((r["mean_ms"] for r in propagation if r["phase"] == "null"), None)
    print("| phase | webhook calls | mean per call | mutating / validating | vs the null webhook | "
          "under 5 ms | p99 | failed calls | all in both members | webhook peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in propagation:
        print("| %s | %d | %.2f ms | %.2f / %.2f ms | %s | %.0f %% | %s | %d | %.1f s | %s |" % (
            r["phase"], r["calls"], r["mean_ms"], r["admit_ms"], r["validating_ms"],
            "floor" if r["phase"] == "null" else "%+.0f %%" % (100 * (r["mean_ms"] / floor - 1))
            if floor else "-", r["under5"], r["p99"], r["failed"],
            r["reached_s"], "%.0f MiB" % r["rss"] if r["rss"] else "-"))
    sys.stdout.flush()


# --- the test ----------------------------------------------------------------------------------------

def test_load_with_faults(fed, env):
    api, certs = fed.karmada, env.certs
    rows = []

    # The policies' load: the null webhook, upstream's and ours in turn, ROUNDS rounds, every
    # process running throughout (each registered as its installation registers it). Ours twice:
    # sent the policies as a user writes them (as upstream is), and sent them as the null webhook
    # is, as our mutator leaves them (the same requests, the same one-operation patch back).
    null = NullWebhook(os.path.dirname(env.args.binary), certs, fed.dir, env.args.source)
    up = federation.UpstreamWebhook(fed, env.args.karmada_bins["karmada-webhook"], certs).start()
    ours = federation.OurWebhook(fed, env.args.binary, certs).start()
    ours_pids = lambda: [ours.server.proc.pid]  # noqa: E731
    hooks = [("upstream", up, lambda: [up.comp.proc.pid], policy),
             ("ours", ours, ours_pids, policy)]
    if null.available():
        hooks.insert(0, ("null", null.start(), lambda: [null.comp.proc.pid], policy_as_mutated))
        hooks.append(("ours, sent as mutated", ours, ours_pids, policy_as_mutated))
    else:
        print("  no null webhook: %s is not built (KPW_BENCH=OFF); no floor" % null.binary,
              flush=True)
    deltas = {who: [] for who, _, _, _ in hooks}
    for rnd in range(ROUNDS):
        for who, hook, _, make in hooks[rnd % len(hooks):] + hooks[:rnd % len(hooks)]:
            fed.register(hook)
            deltas[who].append(run_policies(
                fed, "%s-%d" % (re.sub(r"[^a-z]+", "-", who), rnd + 1), POLICY_COUNT, make))
    policies = [row_of(who, combined([(d, 1) for d in deltas[who]]), pids)
                for who, _, pids, _ in hooks]
    if null.available():
        print_rounds(deltas)
    if COUNT <= 0:                  # the policies' load alone (KPW_FEDERATION_LOAD_COUNT=0)
        fed.register(ours)
        if null.available():
            null.stop()
        print_tables(policies, rows)
        for r in policies:
            check(r["failed"] == 0 and r["rejected"] == 0, "%s: %d failed calls, %d rejections",
                  r["phase"], r["failed"], r["rejected"])
        return

    # The first propagation phase warms what the later ones find warm (the controllers' queues
    # and the API server's caches of bindings and Works): upstream's, which is compared with ours
    # at the same place in every run; the floor comes second.
    fed.register(up)
    rows.append(run_phase(fed, "upstream", COUNT, pids=lambda: [up.comp.proc.pid]))

    if null.available():          # the floor of a propagation: only the permanent-id labels
        fed.register(null)
        up.stop()
        rows.append(run_phase(fed, "null", COUNT, pids=lambda: [null.comp.proc.pid],
                              as_mutated=True))

    fed.register(ours)
    up.stop()
    if null.available():
        null.stop()
    rows.append(run_phase(fed, "ours", COUNT, pids=lambda: [ours.server.proc.pid]))

    def restart(t0):
        time.sleep(2)
        ours.server.stop()
        ours.server.fixed_port = ours.server.port
        ours.server.start()
    row = run_phase(fed, "ours, restarted", COUNT, during=restart, pids=lambda: [ours.server.proc.pid])
    check(row["rejected"] == row["failed"], "restarted: %d rejections that are not failed calls",
          row["rejected"] - row["failed"])
    rows.append(row)

    replicas = [harness.Server(env.args.binary, certs, shutdown_delay=SHUTDOWN_DELAY).start()
                for _ in range(2)]
    relay = Relay(replicas)
    time.sleep(0.5)
    shim = type("Shim", (), {"cert_dir": certs, "port": relay.port})
    api.apply_manifests(api.render_manifests(shim))
    api.patch_crd_conversion()
    api.wait_webhooks_called()
    ours.stop()

    def rolling(t0):
        time.sleep(2)
        for i, r in enumerate(replicas):
            r.stop()                              # our SIGTERM sequence
            r.fixed_port = r.port
            r.start()
            deadline = time.monotonic() + 30
            while i not in relay.ready and time.monotonic() < deadline:
                time.sleep(0.1)
    row = run_phase(fed, "ours, 2 replicas", COUNT, during=rolling,
                    pids=lambda: [r.proc.pid for r in replicas])
    rows.append(row)
    for r in replicas:
        r.stop()
    relay.stop()
    print_tables(policies, rows)
    check(row["failed"] == 0 and row["rejected"] == 0 and relay.refused == 0,
          "2 replicas restarted one at a time: %d failed calls, %d rejections, %d connections "
          "the relay could not place", row["failed"], row["rejected"], relay.refused)
    for r in policies + rows:
        if r["phase"] != "ours, restarted":
            check(r["failed"] == 0 and r["rejected"] == 0, "%s: %d failed calls, %d rejections",
                  r["phase"], r["failed"], r["rejected"])


def run(args, fed):
    env = type("Env", (), {})()
    env.args = args
    env.certs = harness.make_certs(args.source)
    return harness.run_tests([test_load_with_faults], fed, env)


if __name__ == "__main__":
    federation.main(run)
