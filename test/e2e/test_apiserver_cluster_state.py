#!/usr/bin/env python3
"""RIC-1's cluster state against a real kube-apiserver (test/e2e/kube.py): the watch cache of
ResourceInterpreterCustomizations (src/kube/ric_cache.*) and the rule that reads it.

Our server reads the API server through a TCP relay this test controls (`Relay`), so that its
connection can be cut while kubectl goes on writing: a network partition, not a stopped server.
kube-apiserver runs without its watch cache (`--watch-cache=false`, below): every watch is served
from etcd, so a compacted resourceVersion is 410 Gone and a resumed watch goes on from ours.

- the cache sees RICs created, changed and deleted by kubectl within a second (printed: how long);
- with the webhook registered for real, a conflicting RIC created with kubectl is refused with
  upstream's message, InterpretDependency twice is not a conflict, and after the first is deleted
  the same create passes;
- the API server restarted (the same etcd): the cache resumes from its resourceVersion, without a
  new list, and a change made while its watch was down is seen; a review while the API server is
  down is answered from the cache;
- a resourceVersion compacted away while the watch was cut (etcd compacted through its HTTP
  gateway): 410 Gone, a new list, no object lost or kept;
- readiness never depends on the API server (docs/operations.md, "Readiness"): a server started
  while the API server is unreachable is ready at once and refuses a RIC review (code 503) naming
  the API server and why, as kubectl shows it; a cache that has heard nothing for
  --cluster-state-stale-after judges from what it has and says so in a warning;
- credentials rejected (401: a wrong token; 403: a user without the ClusterRole): ready, one clear
  log line, RIC reviews refused naming the cause; judged once the token file holds the right token
  or the ClusterRole of manifests/ is bound;
- no API server configured: the server starts, says once that RIC-1 is off, and every RIC review
  warns;
- 10 000 RICs: the first list's time and the server's RSS, printed.

    test_apiserver_cluster_state.py --binary build/karmada-policy-webhook --source .
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import sys
import threading
import time
import concurrent.futures
import http.client
import ssl
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kube  # noqa: E402
from harness import check  # noqa: E402

ENTRY = "resourceinterpretercustomization.karmada-policy-webhook.karmada.io"
RESOURCE = "/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations"
SEEN_WITHIN = 1.0            # seconds for a change to reach the cache (the bound)
WAIT = 30.0
MANY = int(os.environ.get("KPW_MANY_RICS", "10000"))
CONFLICT = ("conflicting with InterpreterOperation(Retain) of existing "
            "ResourceInterpreterCustomization(%s)")


# --- a TCP relay between our server and the API server ----------------------------------------

class Relay:
    """127.0.0.1:<port> → the API server. `cut()` closes every connection and refuses new ones
    (closed at once) until `restore()`."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.open = True
        self.lock = threading.Lock()
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            upstream = harness.relay_connection(client, self.target_port)
            if upstream is not None:
                with self.lock:
                    self.conns += [client, upstream]

    def cut(self):
        self.open = False
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def restore(self):
        self.open = True


# --- objects, our server, its metrics ---------------------------------------------------------

def ric(name, kind="Deployment", api_version="apps/v1", operations=("retention",)):
    script = "function Retain(desired, observed) return desired end"
    return {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": name},
            "spec": {"target": {"apiVersion": api_version, "kind": kind},
                     "customizations": {op: {"luaScript": script} for op in operations}}}


def kubeconfig(path, server_port, ca, token=None, token_file=None):
    user = {"token": token} if token is not None else {"tokenFile": token_file}
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Config",
                   "clusters": [{"name": "c", "cluster": {
                       "server": "https://127.0.0.1:%d" % server_port,
                       "certificate-authority": ca}}],
                   "users": [{"name": "u", "user": user}],
                   "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                   "current-context": "c"}, f)
    return path


def webhook(args, certs, *flags):
    return harness.Server(args.binary, certs, "--cluster-state-stale-after", "5m", *flags)


def http_get(port, path):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def ready(server) -> bool:
    return http_get(server.probe_port, "/readyz")[0] == 200


def synced(server) -> bool:
    """The cache has listed once (its gauge); readiness says nothing of it."""
    return gauge(server, "synced") == 1


def not_listed_refusal(server, obj):
    """The refusal of a RIC review before the first list (code 503 and its message), or None."""
    response = review(server, obj)
    status = response.get("status", {})
    if response["allowed"] or status.get("code") != 503:
        return None
    return status.get("message", "")


def gauge(server, name):
    samples = harness.scrape_metrics(server.metrics_port)
    return harness.metric_sum(samples, "karmada_policy_webhook_cluster_state_" + name)


def wait_for(what, predicate, timeout=WAIT, every=0.02):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if predicate():
            return time.monotonic() - t0
        time.sleep(every)
    raise AssertionError("not within %.0f s: %s" % (timeout, what))


def review(server, obj, operation="CREATE"):
    """Our verdict on `obj`, posted to the webhook as the API server would."""
    body = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "e2e", "operation": operation, "name": obj["metadata"]["name"],
                        "kind": {"group": "config.karmada.io", "version": "v1alpha1",
                                 "kind": "ResourceInterpreterCustomization"},
                        "resource": {"group": "config.karmada.io", "version": "v1alpha1",
                                     "resource": "resourceinterpretercustomizations"},
                        "userInfo": {"username": "e2e"}, "object": obj}}
    with harness.Client(server.port, server.ca) as client:
        answer = client.post("/validate-resourceinterpretercustomization",
                             json.dumps(body).encode())
    return json.loads(answer.body)["response"]


def denied_by_conflict(server, obj, other):
    response = review(server, obj)
    message = response.get("status", {}).get("message", "")
    return not response["allowed"] and (CONFLICT % other) in message


def delete_all(api):
    api.kubectl("delete", "resourceinterpretercustomizations", "--all", "--wait=false")


# --- the tests ----------------------------------------------------------------------------------

def test_cache_sees_changes_within_a_second(api, env):
    """From kubectl's return (the write is stored) until our server's index holds the change."""
    server = env.server
    wait_for("the first list", lambda: synced(server))
    base = gauge(server, "objects")
    api.kubectl("create", "-f", "-", input=ric("seen-a"))
    created = wait_for("the creation", lambda: gauge(server, "objects") == base + 1)
    # Changed: from retention to healthInterpretation; the cache's index follows.
    probe = ric("seen-probe", operations=("healthInterpretation",))
    check(review(server, probe)["allowed"], "a conflict before any change")
    api.kubectl("replace", "-f", "-", input=ric("seen-a", operations=("healthInterpretation",)))
    changed = wait_for("the change", lambda: not review(server, probe)["allowed"])
    api.kubectl("delete", "resourceinterpretercustomization", "seen-a")
    deleted = wait_for("the deletion", lambda: gauge(server, "objects") == base)
    print("  cache: after kubectl returned, a creation was seen in %.3f s, a change in %.3f s, a "
          "deletion in %.3f s" % (created, changed, deleted), flush=True)
    for what, seconds in (("created", created), ("changed", changed), ("deleted", deleted)):
        check(seconds <= SEEN_WITHIN, "%s seen after %.2f s", what, seconds)


def test_conflict_refused_through_kubectl(api, env):
    server = env.server
    wait_for("the first list", lambda: synced(server))
    api.kubectl("create", "-f", "-", input=ric("first"))
    wait_for("first in the cache", lambda: denied_by_conflict(server, ric("x"), "first"))
    proc = api.kubectl("create", "-f", "-", input=ric("second"), check=False)
    check(proc.returncode != 0, "the conflicting RIC was created: %s", proc.stdout)
    expected = 'admission webhook "%s" denied the request: ' % ENTRY
    check(expected in proc.stderr and (CONFLICT % "first") in proc.stderr,
          "kubectl's text: %s", proc.stderr)
    print("  kubectl: %s" % proc.stderr.strip(), flush=True)
    # InterpretDependency may be defined by several customizations; another kind is no conflict.
    api.kubectl("create", "-f", "-", input=ric("dep-1", operations=("dependencyInterpretation",)))
    api.kubectl("create", "-f", "-", input=ric("dep-2", operations=("dependencyInterpretation",)))
    api.kubectl("create", "-f", "-", input=ric("other-kind", kind="StatefulSet"))
    # An UPDATE of the first never conflicts with itself.
    api.kubectl("apply", "-f", "-", input=ric("first", operations=("retention", "replicaResource")))
    api.kubectl("delete", "resourceinterpretercustomization", "first")
    wait_for("first gone from the cache", lambda: not denied_by_conflict(server, ric("x"), "first"))
    api.kubectl("create", "-f", "-", input=ric("second"))
    delete_all(api)


def test_apiserver_restarted_cache_resumes(api, env):
    """The API server restarted on the same etcd, and a change made while our watch was down (the
    relay cut from before the stop until after the create): the watch resumes from its
    resourceVersion, without a new list, and brings the change."""
    server, relay = env.server, env.relay
    wait_for("the first list", lambda: synced(server))
    api.kubectl("create", "-f", "-", input=ric("before-restart"))
    wait_for("before-restart", lambda: denied_by_conflict(server, ric("x"), "before-restart"))
    lists0, restarts0 = gauge(server, "lists_total"), gauge(server, "watch_restarts_total")
    relay.cut()
    try:
        api.stop_apiserver()
        try:
            # Answered from the cache while the API server is down; still ready (not stale yet).
            check(denied_by_conflict(server, ric("x"), "before-restart"),
                  "a review while the API server is down was not answered from the cache")
            check(ready(server), "not ready right after the API server went away")
        finally:
            api.start_apiserver()
        api.kubectl("create", "-f", "-", input=ric("while-down", kind="DaemonSet"))
        check(not denied_by_conflict(server, ric("y", kind="DaemonSet"), "while-down"),
              "seen through a cut relay")
    finally:
        relay.restore()
    took = wait_for("while-down", lambda: denied_by_conflict(
        server, ric("y", kind="DaemonSet"), "while-down"))
    lists, restarts = gauge(server, "lists_total"), gauge(server, "watch_restarts_total")
    print("  restart: a change made while the watch was down seen %.2f s after the relay came "
          "back; watch restarts %+d, lists %+d" % (took, restarts - restarts0, lists - lists0),
          flush=True)
    check(restarts > restarts0, "the watch was not resumed")
    check(lists == lists0, "the cache listed again instead of resuming from its resourceVersion")
    check(denied_by_conflict(server, ric("x"), "before-restart"), "before-restart was lost")
    check(ready(server), "not ready after the restart")
    delete_all(api)


def etcd_call(api, path, body):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (api.etcd_port, path),
                                 data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_compacted_resource_version_relists(api, env):
    server, relay = env.server, env.relay
    try:
        wait_for("the first list", lambda: synced(server))
        api.kubectl("create", "-f", "-", input=ric("kept"))
        api.kubectl("create", "-f", "-", input=ric("removed", kind="Job", api_version="batch/v1"))
        wait_for("both", lambda: denied_by_conflict(
            server, ric("x", kind="Job", api_version="batch/v1"), "removed"))
        restarts0 = gauge(server, "list_restarts_total")
        gone0 = harness.metric_sum(harness.scrape_metrics(server.metrics_port),
                                   "karmada_policy_webhook_cluster_state_api_errors_total",
                                   code="410")
        relay.cut()
        api.kubectl("delete", "resourceinterpretercustomization", "removed")
        api.kubectl("create", "-f", "-", input=ric("added", kind="CronJob",
                                                   api_version="batch/v1"))
        for i in range(5):   # revisions past the cache's resourceVersion, then compacted away
            api.kubectl("create", "configmap", "filler-%d" % i)
        revision = int(etcd_call(api, "/v3/kv/range",
                                 {"key": base64.b64encode(b"/").decode()})["header"]["revision"])
        etcd_call(api, "/v3/kv/compaction", {"revision": revision, "physical": True})
        relay.restore()
        took = wait_for("the relist", lambda: gauge(server, "list_restarts_total") > restarts0)
        wait_for("added", lambda: denied_by_conflict(
            server, ric("y", kind="CronJob", api_version="batch/v1"), "added"))
        check(not denied_by_conflict(server, ric("x", kind="Job", api_version="batch/v1"),
                                     "removed"), "removed is still in the cache after the relist")
        check(denied_by_conflict(server, ric("z"), "kept"), "kept was lost in the relist")
        gone = harness.metric_sum(harness.scrape_metrics(server.metrics_port),
                                  "karmada_policy_webhook_cluster_state_api_errors_total",
                                  code="410")
        check(gone > gone0, "no 410 counted")
        check("410 Gone" in server.stderr(), "no log line about 410 Gone")
        print("  compaction: 410 Gone, listed again %.2f s after the relay came back" % took,
              flush=True)
        for i in range(5):
            api.kubectl("delete", "configmap", "filler-%d" % i)
        delete_all(api)
    finally:
        relay.restore()


def test_unreachable_apiserver_ready_refused_then_judged(api, env):
    """Readiness never waits for the API server: started while it is unreachable (the relay cut),
    the server is ready at once; a RIC review is refused with code 503 naming the API server and
    the failure, through kubectl too; the other paths answer as always. Once the API server is
    reachable the review is judged. Then silent past --cluster-state-stale-after: still ready,
    judged from the cache, with a warning saying how long it has been."""
    relay = Relay(api.port)
    relay.cut()
    config = kubeconfig(os.path.join(env.dir, "cut.kubeconfig"), relay.port, api.ca,
                        token=kube.TOKEN)
    server = webhook(env.args, env.certs, "--kubeconfig", config, "--cluster-state-stale-after",
                     "2s").start()
    try:
        check(ready(server), "not ready while the API server is unreachable")
        message = not_listed_refusal(server, ric("early"))
        check(message and message.startswith("RIC-1 cannot be judged yet: this webhook has not "
                                              "listed the cluster's "
                                              "ResourceInterpreterCustomizations from "
                                              "https://127.0.0.1:%d" % relay.port),
              "the review before the first list: %s", review(server, ric("early")))
        print("  unreachable: ready; a RIC review refused: %s" % message, flush=True)
        api.register(server, crds=False)
        try:
            proc = api.kubectl("create", "-f", "-", input=ric("early"), check=False)
            check(proc.returncode != 0 and ('admission webhook "%s" denied the request: RIC-1 '
                                            "cannot be judged yet" % ENTRY) in proc.stderr,
                  "kubectl: %s", proc.stderr)
            print("  kubectl: %s" % proc.stderr.strip(), flush=True)
        finally:
            api.unregister()
        relay.restore()
        took = wait_for("the first list once reachable", lambda: synced(server))
        response = review(server, ric("early"))
        check(response["allowed"] and not response.get("warnings"),
              "judged once listed: %s", response)
        print("  reachable: listed %.2f s after the relay came back; the review judged" % took,
              flush=True)
        relay.cut()
        wait_for("stale", lambda: gauge(server, "ready") == 0, timeout=60)
        check(ready(server), "not ready with a silent API server")
        warnings = review(server, ric("late")).get("warnings", [])
        check(any(w.startswith("RIC-1 judged from a cache that has heard nothing from https://")
                  for w in warnings), "no staleness warning: %s", warnings)
        print("  silent: ready; judged with the warning %r" % warnings, flush=True)
    finally:
        relay.restore()
        server.stop()


def test_credentials_rejected_then_fixed(api, env):
    token_file = os.path.join(env.dir, "token")
    with open(token_file, "w") as f:
        f.write("not-the-token\n")
    config = kubeconfig(os.path.join(env.dir, "bad-token.kubeconfig"), api.port, api.ca,
                        token_file=token_file)
    with webhook(env.args, env.certs, "--kubeconfig", config) as server:
        wait_for("the 401 log line", lambda: "rejects the credentials" in server.stderr())
        check(ready(server), "not ready with a rejected token")
        message = not_listed_refusal(server, ric("401"))
        check(message and "HTTP 401" in message, "the refusal does not say 401: %s", message)
        check(harness.metric_sum(harness.scrape_metrics(server.metrics_port),
                                 "karmada_policy_webhook_cluster_state_api_errors_total",
                                 code="401") >= 1, "no 401 counted")
        with open(token_file, "w") as f:
            f.write(kube.TOKEN + "\n")
        took = wait_for("listed after the token was fixed", lambda: synced(server), timeout=90)
        check(review(server, ric("401"))["allowed"], "not judged once listed")
        print("  401: ready, RIC reviews refused (%s); listed %.1f s after the token file was "
              "fixed" % (message, took), flush=True)
        lines = [l for l in server.stderr().splitlines() if "rejects the credentials" in l]
        check(len(lines) == 1, "the 401 was logged %d times (once expected)", len(lines))

    config = kubeconfig(os.path.join(env.dir, "reader.kubeconfig"), api.port, api.ca,
                        token=kube.READER_TOKEN)
    with webhook(env.args, env.certs, "--kubeconfig", config) as server:
        wait_for("the 403 log line", lambda: "may not list and watch" in server.stderr())
        check(ready(server), "not ready while forbidden")
        message = not_listed_refusal(server, ric("403"))
        check(message and "HTTP 403" in message, "the refusal does not say 403: %s", message)
        # The ClusterRole of manifests/, bound to this user, is all it takes.
        role = api.kubectl("kustomize", os.path.join(env.args.source, "manifests", "base")).stdout
        docs = [d for d in role.split("\n---\n") if re.search(r"^kind: ClusterRole$", d, re.M)]
        check(len(docs) == 1, "manifests/base holds %d ClusterRoles (one expected)", len(docs))
        api.kubectl("apply", "-f", "-", input=docs[0])
        name = [l.split(":", 1)[1].strip() for l in docs[0].splitlines()
                if l.startswith("  name:")][0]
        api.kubectl("create", "clusterrolebinding", "e2e-reader", "--clusterrole", name,
                    "--user", kube.READER_USER)
        try:
            took = wait_for("listed once the ClusterRole is bound", lambda: synced(server),
                            timeout=90)
            print("  403: ready, RIC reviews refused; listed %.1f s after the ClusterRole was "
                  "bound" % took, flush=True)
        finally:
            api.kubectl("delete", "clusterrolebinding", "e2e-reader")


def test_no_apiserver_configured(api, env):
    with harness.Server(env.args.binary, env.certs) as server:
        check(ready(server), "not ready without an API server")
        lines = [l for l in server.stderr().splitlines() if "RIC-1 is not judged" in l]
        check(len(lines) == 1, "RIC-1 off logged %d times", len(lines))
        response = review(server, ric("alone"))
        check(response["allowed"] and any("RIC-1 not checked" in w
                                          for w in response.get("warnings", [])),
              "no RIC-1 warning: %s", response)


def test_many_rics_list_time_and_rss(api, env):
    """The last test: the API server is stopped after it, with its 10 000 objects."""
    local = threading.local()

    def create(i):
        if getattr(local, "conn", None) is None:   # one keep-alive connection per thread
            ctx = ssl.create_default_context(cafile=api.ca)
            local.conn = http.client.HTTPSConnection("127.0.0.1", api.port, context=ctx,
                                                     timeout=60)
        body = json.dumps(ric("many-%05d" % i, kind="Kind%05d" % i))
        local.conn.request("POST", RESOURCE, body=body,
                           headers={"Authorization": "Bearer " + kube.TOKEN,
                                    "Content-Type": "application/json"})
        resp = local.conn.getresponse()
        text = resp.read()
        if resp.status != 201:
            raise AssertionError("create many-%05d: HTTP %d %s" % (i, resp.status, text[:200]))
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        list(pool.map(create, range(MANY)))
    made = time.monotonic() - t0
    config = kubeconfig(os.path.join(env.dir, "admin.kubeconfig"), api.port, api.ca,
                        token=kube.TOKEN)
    with webhook(env.args, env.certs, "--kubeconfig", config) as server:
        t1 = time.monotonic()
        wait_for("listed %d RICs" % MANY, lambda: synced(server), timeout=120, every=0.05)
        listed = time.monotonic() - t1
        check(gauge(server, "objects") == MANY, "objects %s, not %d", gauge(server, "objects"), MANY)
        status = open("/proc/%d/status" % server.proc.pid).read()
        rss = {l.split(":")[0]: l.split(":")[1].strip() for l in status.splitlines()
               if l.startswith(("VmRSS", "VmHWM"))}
        # A change among 10 000 still reaches the index quickly (published at most every 100 ms).
        api.kubectl("create", "-f", "-", input=ric("many-extra", kind="Kind00007"))
        extra = wait_for("the extra", lambda: gauge(server, "objects") == MANY + 1)
        check(extra <= SEEN_WITHIN, "a change among %d seen after %.2f s", MANY, extra)
        print("  %d RICs: created in %.1f s; from start to the first list %.2f s; RSS %s "
              "(peak %s); a change seen %.3f s after kubectl returned"
              % (MANY, made, listed, rss["VmRSS"], rss["VmHWM"], extra), flush=True)


class Env:
    pass


def run(args, api):
    api.install_karmada_crds()
    env = Env()
    env.args, env.dir = args, harness.temp_dir("cluster-state")
    env.certs = harness.make_certs(args.source)
    env.relay = Relay(api.port)
    config = kubeconfig(os.path.join(env.dir, "relay.kubeconfig"), env.relay.port, api.ca,
                        token=kube.TOKEN)
    env.server = webhook(args, env.certs, "--kubeconfig", config).start()
    try:
        api.register(env.server, crds=False)
        try:
            status = harness.run_tests([test_cache_sees_changes_within_a_second,
                                        test_conflict_refused_through_kubectl,
                                        test_apiserver_restarted_cache_resumes,
                                        test_compacted_resource_version_relists],
                                       api, env)
        finally:
            api.unregister()
        if env.server.alive():
            env.server.stop()
        status |= harness.run_tests([test_unreachable_apiserver_ready_refused_then_judged,
                                     test_credentials_rejected_then_fixed,
                                     test_no_apiserver_configured,
                                     test_many_rics_list_time_and_rss], api, env)
    finally:
        if env.server.alive():
            env.server.stop()
    return status


if __name__ == "__main__":
    # Without its watch cache, kube-apiserver serves every watch from etcd: a resourceVersion
    # compacted away is 410 Gone (with the cache, its window in memory would serve it), and a
    # watch resumed after a restart goes on from our resourceVersion instead of the new cache's
    # start. The default watch cache is what the other real-API-server tests run.
    kube.main(run, extra_flags=["--watch-cache=false"])
