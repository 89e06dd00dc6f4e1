"""Ctrl-C (SIGINT) during a sweep's --sweep-pause, end to end against the
sandbox MariaDB: a --threads=2,4 sweep with --sweep-pause=60 is interrupted
in the pause after its first run. Expected: the pause is cut short (the
process ends in seconds, not after the 60 s), no second run starts, exit
status 1 (as for Ctrl-C during a run), stderr says where the sweep stopped
("in the pause after run 1 of 2"), the finished run's JSON is kept and the sweep JSON
lists it, its point summarised from it and the unrun point empty.

    python3 test_report_pause.py STAMPEDE STAMPEDE_AGENT ARTIFACT_DIR

Exit 0, 1 (a check failed) or 77."""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
import e2elib as t  # noqa: E402

PAUSE_S = 60


def main():
    t.need_sandbox()
    t.prepare(tables=2, table_size=2000)
    d = t.path("pause")
    os.makedirs(d)
    first = os.path.join(d, "run-t2-r1.json")
    p = t.stampede(["oltp_read_write", "--tables=2", "--table-size=2000", "--agents=1",
                    "--threads=2,4", "--time=2", "--report-interval=1",
                    "--sweep-pause=%d" % PAUSE_S, "--json=" + os.path.join(d, "run.json")]
                   + t.local_opts() + t.db_opts() + ["run"])
    deadline = time.monotonic() + 120
    while not os.path.exists(first) and p.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    t.check(os.path.exists(first), "the first run wrote %s" % os.path.basename(first))
    time.sleep(1.0)  # inside the 60 s pause now
    t.check("=== sweep run 2 of 2" not in p.text("out"), "the second run has not started")
    sent = time.monotonic()
    os.kill(p.pid, signal.SIGINT)
    rc = p.wait(30)
    took = time.monotonic() - sent
    err, out = p.text("err"), p.text("out")
    t.info("SIGINT in the pause: exit %s after %.2f s; stderr: %s" % (rc, took, err.strip()[-300:]))
    t.check(rc == 1, "exit status 1 after SIGINT in the pause, as during a run (got %s)" % rc)
    t.check(took < PAUSE_S / 2, "the pause was cut short: ended %.2f s after SIGINT" % took)
    t.check("=== sweep run 2 of 2" not in out, "no second run started")
    want = ("sweep interrupted in the pause after run 1 of 2 (--threads=2, repeat 1): 1 finished "
            "run(s) kept, 1 not started")
    t.check(want in err, "stderr says where the sweep stopped: '%s'" % want)
    kept = t.load_json(first)
    t.check(kept["threads"] == 2 and kept["totals"]["tps"] > 0 and not kept["exit"].get("reason"),
            "the finished run's JSON is kept whole (threads %s, tps %s, exit %s)"
            % (kept["threads"], kept["totals"]["tps"], kept["exit"]))
    t.check(not os.path.exists(os.path.join(d, "run-t4-r1.json")), "no file for the unrun point")
    sweep = t.load_json(os.path.join(d, "run-sweep.json"))
    t.check(sweep["stopped"] is not None and "pause after run 1 of 2" in sweep["stopped"],
            "sweep JSON: stopped %s" % sweep["stopped"])
    t.check([r["threads"] for r in sweep["runs"]] == [2] and sweep["runs"][0]["included"],
            "sweep JSON lists the one finished run: %s" % sweep["runs"])
    pts = {pt["threads"]: pt for pt in sweep["points"]}
    t.check(pts[2]["runs"] == 1 and pts[2]["tps"]["mean"] == kept["totals"]["tps"],
            "point 2 is the finished run (tps %s, run %s)" % (pts[2]["tps"]["mean"],
                                                             kept["totals"]["tps"]))
    t.check(pts[4]["runs"] == 0 and pts[4]["tps"]["mean"] is None, "point 4 has no runs: %s"
            % pts[4])
    t.check("summary" in out, "the sweep summary is printed on stdout")
    t.finish()


main()
