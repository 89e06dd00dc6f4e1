"""The stampede image under podman (issue 29): a coordinator container and
two agent containers, host network, CURVE keys mounted read-only, against the
sandbox MariaDB of tests/run.

Usage: test_podman.py STAMPEDE STAMPEDE_AGENT (the host's build: only its
`stampede keygen` is used; the containers run the image's release build).

The image is built with deploy/image unless the one of this tree (podlib's
tree key) is loaded; the release build stays in build-image/ for the next run.
Then, each step with a fresh coordinator container and two agent containers
(`--entrypoint stampede-agent --read-only`, the image's user 10001, `--once`):

  1. oltp_read_write prepare (2 x 10000 rows);
  2. oltp_read_write run, 4 s, --json on a mounted dir, --prometheus: the
     host scrapes /metrics during the run; the run's statements equal the
     server's Com_* deltas measured around the container
     (e2elib.check_server, the same checks as e2e_correctness);
  3. a 60 s run whose coordinator container is killed (podman kill, SIGKILL)
     once the agents load the server: both agents must end the run and exit
     within the lease (docs/design.md section 3.4: 3 s) plus 2 s, and the
     server must hold no sbtest session any more;
  4. a run against a port no server listens on: the coordinator fails;
  5. oltp_read_write cleanup (one agent does it, the other is idle);
  6. tpcc prepare (1 warehouse: several runs in one command) and a 3 s tpcc
     run, with its JSON.

Agents run with --once (agent/control/ag_ctl.c): an agent serves one
coordinator's command and exits when that coordinator is done with it (its
BYE, also when idle) or gone (the lease); exit status 1 when a run failed or
the coordinator was lost, else 0. Every agent container's status is checked:
0 in steps 1, 2, 5, 6 and 1 in steps 3 and 4.
"""
import os
import threading
import time
import urllib.request

import e2elib as e
import podlib as pl

SERVER_COUNTERS, check_server = e.SERVER_COUNTERS, e.check_server

LEASE_S = 3.0  # AG_CTL_LEASE_MS, docs/design.md §3.4
TIMES = []  # (what, seconds), printed at the end


def timed(what, t0):
    TIMES.append((what, time.monotonic() - t0))


class Fleet:
    """Keys, password file and output dir, and the port the coordinator
    listens on; starts one step's containers."""

    def __init__(self, image):
        self.image = image
        self.keys = e.path("keys")
        os.mkdir(self.keys)
        self.co_sec, self.co_pub = pl.keygen(e.STAMPEDE, self.keys, "coordinator")
        self.agents = []
        pubs = []
        for i in (1, 2):
            sec, pub = pl.keygen(e.STAMPEDE, self.keys, "agent%d" % i)
            self.agents.append(sec)
            with open(pub) as f:
                pubs.append(f.read().strip())
        self.authorized = os.path.join(self.keys, "authorized_keys")
        with open(self.authorized, "w") as f:
            f.write("\n".join(pubs) + "\n")
        self.pw = os.path.join(self.keys, "db-password")
        with open(self.pw, "w") as f:
            f.write(e.env("PASSWORD") + "\n")
        for p in (self.authorized, self.pw):
            os.chown(p, pl.UID, pl.UID)
            os.chmod(p, 0o600)
        self.out = e.path("out")
        os.mkdir(self.out)
        os.chown(self.out, pl.UID, pl.UID)
        self.n = 0

    def start(self, args, tag, db=None, db_port=None):
        """Coordinator container (args after its options) and the two agents;
        (coordinator name, [agent names], zmq port)."""
        self.n += 1
        port = e.free_port()
        co = "stampede-co-%d-%s" % (os.getpid(), tag)
        ro = lambda src, dst: ["-v", "%s:%s:ro" % (src, dst)]
        extra = (["--read-only"] + ro(self.co_sec, "/keys/coordinator.secret") +
                 ro(self.authorized, "/keys/authorized_keys") + ro(self.pw, "/keys/db-password") +
                 ["-v", "%s:/out" % self.out])
        co_args = args + ["--listen=tcp://127.0.0.1:%d" % port, "--agents=2",
                          "--secret-key-file=/keys/coordinator.secret",
                          "--authorized-keys=/keys/authorized_keys",
                          "--mysql-password-file=/keys/db-password"] + e.db_opts(port=db_port, db=db)
        pl.run(self.image, co_args, co, extra=extra)
        names = []
        for i, sec in enumerate(self.agents, 1):
            name = "stampede-ag%d-%d-%s" % (i, os.getpid(), tag)
            extra = (["--entrypoint", "stampede-agent", "--read-only"] +
                     ro(sec, "/keys/agent.secret") + ro(self.co_pub, "/keys/coordinator.pub"))
            pl.run(self.image, ["--coordinator=tcp://127.0.0.1:%d" % port,
                                "--coordinator-key=/keys/coordinator.pub",
                                "--secret-key-file=/keys/agent.secret", "--name=agent%d" % i,
                                "--once"], name, extra=extra)
            names.append(name)
        return co, names, port

    def finish(self, co, agents, what, timeout, want_agents=0):
        """Wait for the step's containers; check exit statuses 0 (agents:
        want_agents); the coordinator's stdout."""
        rc = pl.wait(co, timeout)
        out, err = pl.logs(co)
        if not e.check(rc == 0, "%s: coordinator container exit status %s (want 0)" % (what, rc)):
            print(out[-3000:] + "\n" + err[-3000:])
        for a in agents:
            arc = pl.wait(a, 15)
            aout, aerr = pl.logs(a)
            if not e.check(arc == want_agents, "%s: agent container %s exit status %s (want %d, "
                           "--once)" % (what, a, arc, want_agents)):
                print(aout[-2000:] + "\n" + aerr[-2000:])
        return out


def step(fleet, args, what, timeout=120, db=None):
    t = time.monotonic()
    co, agents, _ = fleet.start(args, what.split()[0] + str(fleet.n), db=db)
    out = fleet.finish(co, agents, what, timeout)
    timed(what, t)
    return out


def scrape_during(port, stop, found):
    """Poll http://127.0.0.1:port/metrics until stop; found gets the first
    body that names a stampede metric."""
    while not stop.is_set() and not found:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=2) as r:
                body = r.read().decode()
            if r.status == 200 and "stampede_" in body:
                found.append((time.monotonic(), body))
        except OSError:
            pass
        time.sleep(0.2)


def run_step(fleet):
    """oltp_read_write run with --json and --prometheus; server deltas."""
    prom = e.free_port()
    before = e.status(*SERVER_COUNTERS)
    t = time.monotonic()
    co, agents, _ = fleet.start(["oltp_read_write", "run", "--tables=2", "--table-size=10000",
                                 "--threads=4", "--time=4", "--report-interval=1",
                                 "--json=/out/run.json", "--prometheus=127.0.0.1:%d" % prom],
                                "run")
    stop, found = threading.Event(), []
    th = threading.Thread(target=scrape_during, args=(prom, stop, found), daemon=True)
    th.start()
    fleet.finish(co, agents, "oltp_read_write run 4 s", 90)
    stop.set()
    th.join()
    timed("oltp_read_write run (4 s)", t)
    after = e.status(*SERVER_COUNTERS)
    if e.check(found, "Prometheus /metrics of the coordinator container answered the host "
               "during the run"):
        at, body = found[0]
        e.info("first scrape %.1f s after the containers started: %d lines, e.g. %s" %
               (at - t, len(body.splitlines()),
                next((l for l in body.splitlines() if l.startswith("stampede_")), "")))
    jp = os.path.join(fleet.out, "run.json")
    if not e.check(os.path.exists(jp), "the coordinator wrote /out/run.json on the mounted dir"):
        return
    d = e.load_json(jp)
    tot = d["totals"]
    e.info("run: %d transactions, %d statements in %.2f s (%.1f tps), agents %s" %
           (tot["transactions"], tot["queries"]["total"], tot["time_s"], tot["tps"],
            [a.get("name") for a in d["agents"]]))
    e.check(d["exit"]["status"] == 0 and len(d["agents"]) == 2 and tot["transactions"] > 0,
            "JSON exit status %r, %d agents, %d transactions" %
            (d["exit"]["status"], len(d["agents"]), tot["transactions"]))
    check_server(d, {k: after[k] - before[k] for k in after})


def kill_step(fleet):
    """A long run; podman kill of the coordinator once the agents load the
    server; the agents' exit and the server's sessions, timed."""
    t = time.monotonic()
    co, agents, _ = fleet.start(["oltp_read_write", "run", "--tables=2", "--table-size=10000",
                                 "--threads=4", "--time=60", "--report-interval=1"], "kill")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and e.sbtest_sessions() < 4:
        time.sleep(0.2)
    sessions = e.sbtest_sessions()
    if not e.check(sessions >= 4, "the agents hold %d sbtest sessions before the kill" % sessions):
        return
    time.sleep(1.0)
    pl.podman("kill", co)
    killed = time.monotonic()
    ends = {}
    gone = None
    while time.monotonic() - killed < LEASE_S + 10 and (len(ends) < 2 or gone is None):
        for a in agents:
            if a not in ends:
                _, out, _ = pl.podman("inspect", "--format", "{{.State.Running}}", a, check=False)
                if out.strip() == "false":
                    ends[a] = time.monotonic() - killed
        if gone is None and e.sbtest_sessions() == 0:
            gone = time.monotonic() - killed
        time.sleep(0.1)
    e.info("after podman kill of the coordinator: agent containers exited after %s s, the "
           "server's last sbtest session closed after %s s (lease %.0f s)" %
           ({a.split("-")[1]: round(s, 2) for a, s in ends.items()}, gone and round(gone, 2), LEASE_S))
    e.check(len(ends) == 2 and max(ends.values()) <= LEASE_S + 2.0,
            "both agent containers exited within the lease + 2 s (%.1f s) of the kill" %
            (LEASE_S + 2.0))
    e.check(gone is not None and gone <= LEASE_S + 2.0,
            "no sbtest session left on the server within the lease + 2 s of the kill")
    agents_exit_1(agents, 5, "after its coordinator was killed (want 1: --once, lease expired)")
    timed("coordinator-kill run", t)


def agents_exit_1(agents, timeout, why):
    """Each agent container ends with exit status 1; its logs shown if not."""
    for a in agents:
        arc = pl.wait(a, timeout)
        aout, aerr = pl.logs(a)
        if not e.check(arc == 1, "agent container %s exit status %s %s" % (a, arc, why)):
            print(aout[-2000:] + "\n" + aerr[-2000:])


def unreachable_step(fleet):
    """A run against a port nothing listens on: the coordinator fails, and
    each --once agent, whose run failed, exits 1."""
    t = time.monotonic()
    co, agents, _ = fleet.start(["oltp_read_write", "run", "--tables=2", "--table-size=10000",
                                 "--threads=2", "--time=2"], "nodb", db_port=e.free_port())
    rc = pl.wait(co, 60)
    out, err = pl.logs(co)
    if not e.check(rc not in (None, 0), "run against an unreachable database: coordinator "
                   "container exit status %s (want non-zero)" % rc):
        print(out[-2000:] + "\n" + err[-2000:])
    agents_exit_1(agents, 15, "in a run against an unreachable database (want 1: --once, its "
                  "run failed)")
    timed("unreachable-database run", t)


def main():
    pl.need_podman()
    e.need_sandbox()
    t_all = time.monotonic()
    t = time.monotonic()
    image = pl.ensure_image(os.path.join(pl.TOP, "build-image"))
    timed("image (deploy/image or already loaded)", t)
    fleet = Fleet(image)
    db = e.env("DB", "sbtest")
    e.sql("DROP TABLE IF EXISTS %s.sbtest1, %s.sbtest2" % (db, db))
    sb = ["--tables=2", "--table-size=10000"]
    step(fleet, ["oltp_read_write", "prepare"] + sb, "oltp_read_write prepare")
    if not e.sql("SHOW TABLES FROM %s LIKE 'sbtest2'" % db):
        e.finish()
    n = int(e.sql("SELECT COUNT(*) FROM %s.sbtest2" % db)[0][0])
    e.check(n == 10000, "sbtest2 holds %d rows after the containers' prepare (want 10000)" % n)
    run_step(fleet)
    kill_step(fleet)
    unreachable_step(fleet)
    step(fleet, ["oltp_read_write", "cleanup"] + sb, "oltp_read_write cleanup")
    left = e.sql("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='%s' AND "
                 "TABLE_NAME LIKE 'sbtest%%'" % db)[0][0]
    e.check(left == "0", "cleanup left %s sbtest tables (want 0)" % left)

    tdb = "tpcc_podman"
    user = e.env("USER", "sbtest")
    e.sql("DROP DATABASE IF EXISTS %s; CREATE DATABASE %s; GRANT ALL ON %s.* TO '%s'@'%%'; "
          "GRANT ALL ON %s.* TO '%s'@'localhost'" % (tdb, tdb, tdb, user, tdb, user))
    tc = ["--warehouses=1"]
    step(fleet, ["tpcc", "prepare", "--foreign-keys=off"] + tc, "tpcc prepare 1 warehouse", db=tdb)
    step(fleet, ["tpcc", "run", "--threads=2", "--warmup-time=0", "--time=3",
                 "--json=/out/tpcc.json"] + tc, "tpcc run 3 s", db=tdb)
    jp = os.path.join(fleet.out, "tpcc.json")
    if e.check(os.path.exists(jp), "the tpcc run wrote /out/tpcc.json"):
        d = e.load_json(jp)
        e.check(d["exit"]["status"] == 0 and d["totals"]["transactions"] > 0,
                "tpcc JSON: exit status %r, %d transactions" %
                (d["exit"]["status"], d["totals"]["transactions"]))
    e.sql("DROP DATABASE IF EXISTS %s" % tdb)
    timed("total", t_all)
    for what, s in TIMES:
        e.info("time: %-40s %6.1f s" % (what, s))
    pl.cleanup()
    _, out, _ = pl.podman("ps", "-aq", "--filter", "label=" + pl.LABEL)
    e.check(out.strip() == "", "no container of this test left")
    e.finish()


main()
