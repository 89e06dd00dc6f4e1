#!/usr/bin/env python3
"""container: deploy/kubernetes (the example overlay) rendered with kubectl
kustomize and played with `podman kube play` against the sandbox MariaDB, so
the manifests' args, env, securityContext, volumes and ports run for real.

podman 4.3 plays Pods, not Jobs or Services, so the rendered objects are
translated; translate() is the whole translation and docs/kubernetes.md
lists it:
  - each Job becomes its pod template as a Pod (the coordinator Job one Pod,
    the Indexed agents Job one Pod per completion index, named
    stampede-agents-I, with JOB_COMPLETION_INDEX=I in the agent container's
    env as the Job controller sets it), hostNetwork: true;
  - the Service is dropped: the agents' --coordinator=tcp://stampede-
    coordinator:5555 becomes tcp://127.0.0.1:PORT (and the coordinator's
    --listen=tcp://0.0.0.0:5555 that address), PORT a free one;
  - the coordinator's --mysql-host=mysql.example becomes the sandbox's
    127.0.0.1 plus --mysql-port; --prometheus=0.0.0.0:9100 becomes
    127.0.0.1:FREE; --time=60 becomes 3, --prometheus-linger=30 becomes 0;
  - the namespace is dropped, and every Secret, ConfigMap and Pod name gets
    the suffix -tPID (podman's storage is shared on this box);
  - the three Secrets the docs have you make with kubectl (stampede-db,
    stampede-coordinator-keys, stampede-agent-keys) are added as Secret
    objects holding keys from `stampede keygen` and the sandbox password;
  - $(VAR) in args is expanded from the container's env, as the kubelet
    does (podman 4.3 leaves it as is): agent-$(JOB_COMPLETION_INDEX);
  - the containers' `ports` are dropped: podman 4.3 refuses port mappings
    on the host network (there the container's ports are the host's);
  - secret volumes get optional: false (podman 4.3 panics on a nil
    `optional`);
  - emptyDir volumes get the suffix too (podman makes a named volume of
    each, by the volume's name);
  - podman 4.3 writes a Secret volume's files as the base64 text of the
    Secret's data, root:root 0644 whatever defaultMode says: the pods are
    created with --start=false and the files rewritten to what the kubelet
    writes for defaultMode 0400 with fsGroup 10001 (the decoded bytes,
    root:10001, 0440) before the pods start.
Everything else (images, args, env, securityContext: uid 10001, read-only
root, no capabilities; resources; volumeMounts; emptyDirs; the ConfigMap;
ports) is played as rendered.

Checks: the coordinator pod exits 0 and the four --once agent pods exit 0;
the agents are named agent-0..agent-3 (the $(JOB_COMPLETION_INDEX)
expansion); the coordinator's /metrics answers from the host during the
run; the run's JSON (read from its results emptyDir) has four agents and
its statements equal the server's Com_* deltas measured around it.
"""
import base64
import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import e2elib as e
import podlib as pl

SUFFIX = "-t%d" % os.getpid()
COUNTERS = ("Com_stmt_execute", "Com_select", "Com_begin", "Com_commit")
AGENTS = 4  # the example overlay's completions


def render():
    out = subprocess.run(["kubectl", "kustomize",
                          os.path.join(pl.TOP, "deploy", "kubernetes", "overlays", "example")],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        e.check(False, "kubectl kustomize: %s" % out.stderr.strip())
        e.finish()
    import yaml  # python3-yaml, with python3-kubernetes (deploy/install-deps)
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def sub_args(args, subs):
    """args with each --NAME=... whose NAME is in subs replaced (None: kept)."""
    res = []
    for a in args:
        name = a.split("=", 1)[0]
        res.append(subs.get(name, a) if subs.get(name) is not None else a)
    return res


def pod_of(job, name, ports, index=None):
    spec = json.loads(json.dumps(job["spec"]["template"]["spec"]))
    spec["hostNetwork"] = True
    for v in spec.get("volumes", []):
        if "secret" in v:
            v["secret"]["secretName"] += SUFFIX
            v["secret"]["optional"] = False
        if "configMap" in v:
            v["configMap"]["name"] += SUFFIX
    c = spec["containers"][0]
    for v in spec.get("volumes", []):  # podman names an emptyDir's volume after it
        if "emptyDir" in v:
            for m in c.get("volumeMounts", []):
                if m["name"] == v["name"]:
                    m["name"] += SUFFIX
            v["name"] += SUFFIX
    c.pop("ports", None)  # podman 4.3 refuses port mappings on the host network
    if index is None:
        c["args"] = sub_args(c["args"], {
            "--listen": "--listen=tcp://127.0.0.1:%d" % ports["zmq"],
            "--mysql-host": "--mysql-host=127.0.0.1",
            "--prometheus": "--prometheus=127.0.0.1:%d" % ports["metrics"],
            "--time": "--time=3", "--prometheus-linger": "--prometheus-linger=0",
            "--agent-wait": "--agent-wait=60"}) + ["--mysql-port=" + e.env("PORT")]
    else:
        c["args"] = sub_args(c["args"], {
            "--coordinator": "--coordinator=tcp://127.0.0.1:%d" % ports["zmq"]})
        c.setdefault("env", []).append({"name": "JOB_COMPLETION_INDEX", "value": str(index)})
    # The kubelet expands $(VAR) in args from the container's env; podman
    # 4.3 does not, so it is done here.
    env = {v["name"]: v["value"] for v in c.get("env", []) if "value" in v}
    c["args"] = [re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1), m.group(0)), a)
                 for a in c["args"]]
    meta = {"name": name + SUFFIX, "labels": dict(job["spec"]["template"]["metadata"]["labels"])}
    meta["labels"]["stampede-test"] = str(os.getpid())
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def secrets(fl_dir):
    """The Secrets of docs/kubernetes.md step 2, as objects."""
    def key(name):
        subprocess.run([e.STAMPEDE, "keygen", fl_dir, name], check=True, capture_output=True)
        with open(os.path.join(fl_dir, name + ".secret"), "rb") as f:
            sec = f.read()
        with open(os.path.join(fl_dir, name + ".pub"), "rb") as f:
            return sec, f.read()
    co_sec, co_pub = key("coordinator")
    # Every pod of the Job mounts the same Secret: one key pair for all.
    ag = [key("agent")]
    b64 = lambda b: base64.b64encode(b).decode()
    mk = lambda name, data: {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                             "metadata": {"name": name + SUFFIX},
                             "data": {k: b64(v) for k, v in data.items()}}
    return [mk("stampede-coordinator-keys", {"coordinator.key": co_sec,
                                             "authorized_keys": ag[0][1]}),
            mk("stampede-agent-keys", {"agent.key": ag[0][0], "coordinator.pub": co_pub}),
            mk("stampede-db", {"password": (e.env("PASSWORD") + "\n").encode()})]


def translate(docs, ports, fl_dir):
    out = secrets(fl_dir)
    kinds = sorted((d["kind"], d["metadata"]["name"]) for d in docs)
    e.info("rendered: %r" % kinds)
    for d in docs:
        if d["kind"] == "ConfigMap":
            d = json.loads(json.dumps(d))
            d["metadata"] = {"name": d["metadata"]["name"] + SUFFIX}
            out.append(d)
        elif d["kind"] == "Job" and d["metadata"]["name"] == "stampede-coordinator":
            out.append(pod_of(d, "stampede-coordinator", ports))
        elif d["kind"] == "Job" and d["metadata"]["name"] == "stampede-agents":
            e.check(d["spec"]["completionMode"] == "Indexed" and
                    d["spec"]["completions"] == AGENTS,
                    "agents Job: Indexed, %r completions" % d["spec"]["completions"])
            out += [pod_of(d, "stampede-agents-%d" % i, ports, i)
                    for i in range(d["spec"]["completions"])]
    return out


def kubelet_modes(objs):
    """What the kubelet writes for defaultMode 0400 with fsGroup 10001."""
    for o in objs:
        if o["kind"] != "Secret":
            continue
        _, src, _ = pl.podman("volume", "inspect", "--format", "{{.Mountpoint}}",
                              o["metadata"]["name"])
        for f in os.listdir(src.strip()):
            p = os.path.join(src.strip(), f)
            with open(p, "rb") as fh:
                data = fh.read()
            want = base64.b64decode(o["data"][f])
            if data == o["data"][f].encode():  # podman 4.3 writes the base64 text
                with open(p, "wb") as fh:
                    fh.write(want)
            e.check(open(p, "rb").read() == want, "Secret %s: %s holds the Secret's bytes" %
                    (o["metadata"]["name"], f))
            os.chown(p, 0, pl.UID)
            os.chmod(p, 0o440)


def main():
    e.need_sandbox()
    pl.need_podman()
    t0 = time.monotonic()
    image = pl.ensure_image(os.environ.get("STAMPEDE_TEST_IMAGE_DIR") or
                            os.path.join(pl.TOP, "build-image"))
    t_image = time.monotonic() - t0
    e.prepare(tables=1, table_size=10000)  # the base's oltp_read_only run: sbtest1, 10000 rows
    ports = {"zmq": e.free_port(), "metrics": e.free_port()}
    objs = translate(render(), ports, e.tmpdir())
    for o in objs:
        for c in o.get("spec", {}).get("containers", []):
            c["image"] = image
    play = e.path("play.yaml")
    with open(play, "w") as f:
        f.write("\n---\n".join(json.dumps(o) for o in objs) + "\n")
    pods = [o["metadata"]["name"] for o in objs if o["kind"] == "Pod"]
    try:
        run(play, objs, pods, ports)
    finally:
        pl.podman("kube", "down", play, check=False, timeout=120)
        pl.podman("pod", "rm", "-f", *pods, check=False, timeout=120)
        for o in objs:
            if o["kind"] == "Secret":
                pl.podman("secret", "rm", o["metadata"]["name"], check=False)
                pl.podman("volume", "rm", "-f", o["metadata"]["name"], check=False)
            if o["kind"] == "ConfigMap":
                pl.podman("volume", "rm", "-f", o["metadata"]["name"], check=False)
    e.info("time: image %.1f s, total %.1f s" % (t_image, time.monotonic() - t0))
    e.finish()


def run(play, objs, pods, ports):
    t = time.monotonic()
    pl.podman("kube", "play", "--start=false", play, timeout=180)
    kubelet_modes(objs)
    before = e.status(*COUNTERS)
    found = []
    stop = threading.Event()

    def scrape():
        while not stop.is_set() and not found:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % ports["metrics"],
                                            timeout=2) as r:
                    body = r.read().decode()
                if all(re.search(r'stampede_agent_up\{[^}]*agent="agent-%d"[^}]*\} 1' % i, body)
                       for i in range(AGENTS)):
                    found.append(body)
            except OSError:
                pass
            time.sleep(0.2)
    th = threading.Thread(target=scrape, daemon=True)
    th.start()
    for p in pods:  # the coordinator's pod first: it listens
        pl.podman("pod", "start", p, timeout=60)
    co = "stampede-coordinator%s-coordinator" % SUFFIX
    rc = pl.wait(co, 120)
    arcs = [pl.wait("stampede-agents-%d%s-agent" % (i, SUFFIX), 30) for i in range(AGENTS)]
    stop.set()
    th.join(5)
    after = e.status(*COUNTERS)
    e.info("kube play: pods created, started and run in %.1f s" % (time.monotonic() - t))
    ok = e.check(rc == 0, "coordinator pod's container exit status %r (want 0)" % rc)
    ok &= e.check(arcs == [0] * AGENTS, "agent pods' containers (--once) exit %r (want 0)" % arcs)
    if not ok:
        for n in [co] + ["stampede-agents-%d%s-agent" % (i, SUFFIX) for i in range(AGENTS)]:
            out, err = pl.logs(n)
            print("----- %s\n%s%s" % (n, out[-3000:], err[-3000:]))
    co_out, co_err = pl.logs(co)
    e.check("readable by group or others" not in co_out + co_err,
            "no mode warning from the coordinator (the Secret files root:10001 0440 are "
            "taken): %r" % re.findall(r".*readable by group.*", co_out + co_err))
    e.check(bool(found), "the coordinator pod's /metrics (--prometheus) answered from the host "
            "with stampede_agent_up 1 for agent-0..agent-%d" % (AGENTS - 1))
    _, mounts, _ = pl.podman("inspect", "--format", "{{json .Mounts}}", co)
    res = [m["Source"] for m in json.loads(mounts) if m["Destination"] == "/results"]
    path = os.path.join(res[0], "run.json") if res else ""
    if not e.check(os.path.exists(path), "run.json in the results emptyDir (%s)" % path):
        return
    d = e.load_json(path)
    tot, srv = d["totals"], d["server"]
    if not e.check(rc == 0 and tot["transactions"], "the run has transactions"):
        return
    names = sorted(a["name"] for a in d["agents"])
    e.check(names == ["agent-%d" % i for i in range(AGENTS)] and
            all(a["done"] and not a["lost"] and a["transactions"] > 0 for a in d["agents"]),
            "agents named from $(JOB_COMPLETION_INDEX), all done with work: %r" %
            [(a["name"], a["transactions"]) for a in d["agents"]])
    delta = {k: after[k] - before[k] for k in after}
    sent = tot["queries"]["total"] + tot["ignored_errors"]
    e.info("oltp_read_only: %d transactions, %d statements, %.1f tps; server deltas %r" %
           (tot["transactions"], tot["queries"]["total"], tot["tps"], delta))
    e.check(delta["Com_stmt_execute"] == sent and tot["reconnects"] == 0,
            "server Com_stmt_execute delta %d == client statements %d + ignored errors %d" %
            (delta["Com_stmt_execute"], tot["queries"]["total"], tot["ignored_errors"]))
    co_d = {k: srv["counters"].get(k, {}).get("delta") for k in COUNTERS}
    e.check(co_d == delta and srv["match"] is True,
            "JSON server counter deltas %r == the test's, match %r" % (co_d, srv["match"]))


if __name__ == "__main__":
    main()
