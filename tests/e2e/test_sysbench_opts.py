#!/usr/bin/env python3
"""e2e: the sysbench options stampede used to list and refuse.

  - --mysql-dry-run: a run against a port where nothing listens completes
    with transactions (every statement counted as other, as sysbench's dry
    run), and one against the sandbox leaves its statement and connection
    counters where they were; the dry-run rate is printed (the client's own
    cost per event);
  - --report-checkpoints=4,2: the header line, one "[ Ns ] Checkpoint
    report:" at 2 s and at 4 s, each covering exactly the JSON intervals
    since the previous one, the final report the rest (the three add up to
    the run's totals), and the JSON checkpoints array;
  - --forced-shutdown=1 with a table locked by another session (every
    statement blocks): sysbench's "Forcing shutdown in 3 seconds", the
    FATAL line a little after 3 s, "Number of unfinished transactions on
    forced shutdown: 3" (the 3 blocked connections), exit 2, the JSON
    written (exit.status 2, forced_shutdown, unfinished 3), the agent gone;
    a run without the lock does not trip it.
"""
import os
import re
import subprocess
import time

import e2elib as e


def load(j, what):
    """The JSON a run wrote, or None (a failed check) when it wrote none."""
    if e.check(os.path.exists(j), "%s: JSON written" % what):
        return e.load_json(j)
    return None


def run(args, timeout=60):
    p = e.stampede(args + e.local_opts() + e.db_opts())
    rc = p.wait(timeout)
    return p, rc


def dry_run():
    j = e.path("dry.json")
    port = e.free_port()  # nothing listens there
    p = e.stampede(["oltp_read_write", "run", "--mysql-dry-run", "--time=2", "--threads=2",
                    "--json=" + j, "--mysql-host=127.0.0.1", "--mysql-port=%d" % port] +
                   e.local_opts())
    rc = p.wait(60)
    e.check(rc == 0, "dry run against port %d (nothing listening): exit %s" % (port, rc))
    if rc != 0:
        p.dump("dry run")
        return
    t = e.load_json(j)["totals"]  # exit 0: the JSON is there
    q = t["queries"]
    e.check(t["transactions"] > 0 and q["read"] == 0 and q["write"] == 0 and
            q["other"] == 20 * t["transactions"],
            "dry run: %d transactions, r/w/o %d/%d/%d (every call 'succeeds' with no result: "
            "other, 20 per oltp_read_write event)" %
            (t["transactions"], q["read"], q["write"], q["other"]))
    e.info("dry run figure: %.0f tps, %.0f qps with 2 connections on one local agent "
           "(the client's own cost, no server)" % (t["tps"], t["qps"]))

    watch = ("Com_select", "Com_stmt_execute", "Com_stmt_prepare", "Connections")
    before = e.status(*watch)
    p, rc = run(["oltp_point_select", "run", "--mysql-dry-run", "--time=1", "--threads=4"])
    after = e.status(*watch)
    delta = {k: after[k] - before[k] for k in watch}
    tx = re.search(r"transactions:\s+(\d+)", p.text("out"))
    e.check(rc == 0 and tx and int(tx.group(1)) > 0,
            "dry run against the sandbox: exit %s, %s transactions" % (rc, tx and tx.group(1)))
    # The one connection counted is the status query's own (mariadb client).
    e.check(delta["Com_select"] == 0 and delta["Com_stmt_execute"] == 0 and
            delta["Com_stmt_prepare"] == 0 and delta["Connections"] <= 1,
            "dry run: the server saw nothing: %r" % delta)


def checkpoints():
    j = e.path("cp.json")
    p, rc = run(["oltp_point_select", "run", "--table-size=5000", "--time=5", "--threads=2",
                 "--report-interval=1", "--report-checkpoints=4,2", "--json=" + j])
    out = p.text("out")
    e.check(rc == 0, "checkpoint run: exit %s" % rc)
    e.check("\nReport checkpoint(s) at 2, 4 seconds\n" in out,
            "header: 'Report checkpoint(s) at 2, 4 seconds' (sorted, as sysbench)")
    stamps = re.findall(r"^\[ (\d+)s \] Checkpoint report:$", out, re.M)
    e.check(stamps == ["2", "4"], "checkpoint reports at %r s (want 2, 4)" % stamps)
    # Each report's transactions: the two checkpoints, then the final one.
    reports = [int(x) for x in re.findall(r"^    transactions:\s+(\d+) ", out, re.M)]
    d = load(j, "checkpoint run")
    if d is None:
        return
    ivs = d["intervals"]
    ivsum = lambda lo, hi: sum(iv["counters"]["transactions"] for iv in ivs if lo <= iv["k"] <= hi)
    want = [ivsum(0, 1), ivsum(2, 3), ivsum(4, 10 ** 9)]
    cps = d.get("checkpoints", [])
    late = [iv["k"] for iv in ivs if iv["late"]]
    if not late:
        e.check(len(reports) == 3 and reports == want and all(x > 0 for x in reports),
                "reports cover disjoint windows: %r, JSON intervals 0-1, 2-3, 4-: %r" %
                (reports, want))
    else:
        # A STATS that came after the checkpoint covering its interval is
        # carried into the next report (late_in_transactions), never lost.
        carried = [c.get("late_in_transactions", 0) for c in cps]
        e.check(len(reports) == 3 and len(cps) == 2 and
                all(reports[i] - carried[i] <= want[i] for i in range(2)),
                "late intervals %r: reports %r less what they carried in %r stay within the "
                "JSON windows %r" % (late, reports, carried, want))
    e.check(sum(reports) == d["totals"]["transactions"],
            "checkpoints + final = the run's total: %d = %d" %
            (sum(reports), d["totals"]["transactions"]))
    e.check([(c["at_s"], c["t_s"], c["k_first"], c["k_last"], c["transactions"]) for c in cps] ==
            [(2, 2.0, 0, 1, (reports + [-1, -1])[0]), (4, 4.0, 2, 3, (reports + [-1, -1])[1])],
            "JSON checkpoints: %r" % [(c["at_s"], c["t_s"], c["transactions"]) for c in cps])
    m = re.findall(r"^    total time:\s+([0-9.]+)s$", out, re.M)
    e.check(len(m) == 3 and [float(x) for x in m[:2]] == [2.0, 4.0] and float(m[2]) >= 5.0,
            "total time counts from the start, as sysbench: %r" % m)


def forced():
    db = e.env("DB", "sbtest")
    locker = subprocess.Popen(
        ["mariadb", "--no-defaults", "-uroot", "-S", e.env("SOCKET"), db, "-e",
         "LOCK TABLES sbtest1 WRITE; SELECT SLEEP(15);"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not e.sql(
                "SHOW OPEN TABLES FROM %s WHERE `Table`='sbtest1' AND In_use > 0" % db):
            time.sleep(0.05)
        j = e.path("forced.json")
        t = time.monotonic()
        p = e.stampede(["oltp_point_select", "run", "--table-size=5000", "--time=2",
                        "--threads=3", "--report-interval=1", "--forced-shutdown=1",
                        "--json=" + j] + e.local_opts() + e.db_opts())
        agents = set()
        while p.alive() and time.monotonic() - t < 30:
            agents.update(p.agent_children())
            time.sleep(0.1)
        rc = p.wait(30)
        dt = time.monotonic() - t
        out = p.text("out")
        e.info("forced shutdown run: exit %s after %.2f s" % (rc, dt))
        e.check(rc == 2, "forced shutdown: exit %s (want sysbench's 2)" % rc)
        e.check("\nForcing shutdown in 3 seconds\n" in out, "header: 'Forcing shutdown in 3 seconds'")
        fatal = p.wait_line(r"^FATAL: The --max-time limit has expired, forcing shutdown\.\.\.$",
                            which="out", timeout=1)
        e.check(fatal and fatal[0] - t >= 3.0,
                "FATAL line at %.2f s after the start (>= --time + 1 s, setup included)" %
                (fatal[0] - t if fatal else -1))
        e.check(re.search(r"^Number of unfinished transactions on forced shutdown: 3$", out, re.M),
                "report: 'Number of unfinished transactions on forced shutdown: 3'")
        e.check(dt < 12, "the run ended %.2f s after it began (the lock holds for 15 s)" % dt)
        e.check(agents and not any(e.pid_alive(x) for x in agents),
                "the local agent(s) %r exited" % sorted(agents))
        d = load(j, "forced shutdown") or {"exit": {"status": None, "forced_shutdown": None},
                                           "totals": {"counters": {"unfinished": None}}}
        e.check(d["exit"]["status"] == 2 and d["exit"]["forced_shutdown"] and
                d["totals"]["counters"]["unfinished"] == 3,
                "JSON: exit %r, unfinished %s" % (d["exit"], d["totals"]["counters"]["unfinished"]))
    finally:
        locker.kill()
        locker.wait(10)
    deadline = time.monotonic() + 20
    while e.sbtest_sessions() > 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    e.check(e.sbtest_sessions() == 0, "no sbtest session left once the lock is gone")

    # Without a lock the run ends by itself: no FATAL, exit 0.
    p, rc = run(["oltp_point_select", "run", "--table-size=5000", "--time=2", "--threads=3",
                 "--forced-shutdown=1"])
    e.check(rc == 0 and "FATAL" not in p.text("out") and "unfinished" not in p.text("out"),
            "an unobstructed run with --forced-shutdown=1: exit %s, no FATAL line" % rc)


def main():
    e.need_sandbox()
    e.prepare(tables=1, table_size=5000)
    dry_run()
    checkpoints()
    forced()
    e.finish()


main()
