#!/usr/bin/env python3
"""e2e: --threshold, pass/fail criteria for CI pipelines (issue 28 §4).

Real runs against the sandbox:
  - thresholds that hold: exit 0; the summary's "Thresholds:" block says
    ok; the JSON's thresholds[] has passed true and measured equal to the
    JSON's own figure (totals.tps, totals.latency_ms.p99, a kind's p95,
    errors per 100 transactions);
  - one crossed: exit 3, the JSON's exit.status 3, stderr names it, the
    summary says CROSSED, every file is still written;
  - a kind the run does not have: not measured, crossed;
  - --report-format=sysbench: stdout has no Thresholds block (it stays
    sysbench's), stderr still names the crossed one, exit 3;
  - a sweep (--threads=1,2) with one crossed threshold: exit 3, both runs
    included in the sweep's summary;
  - --abort-on-threshold: a crossed threshold stops a 30 s run at its 2 s
    line (exit 3, stderr and the JSON say when and which); holding ones
    let the run end at its time; a kind's threshold (point_selects.p99)
    stops a run live too; it needs a --threshold and intervals;
  - bad expressions: exit 2 before anything runs, the message names the
    expression and says how to write it.
"""
import json
import os
import time

import e2elib as e

BASE = ["oltp_read_write", "--tables=1", "--table-size=1000"]


def run(extra, name, want_rc):
    j = e.path(name + ".json")
    p = e.stampede(BASE + ["--threads=2", "--time=2", "--json=" + j] + extra + e.local_opts()
                   + e.db_opts() + ["run"])
    rc = p.wait(120)
    e.check(rc == want_rc, "%s: exit %s (want %d); stderr %r" % (name, rc, want_rc,
                                                                p.text("err")[-300:]))
    return p, (e.load_json(j) if os.path.exists(j) else None)


def holding():
    p, d = run(["--threshold=p99<10s", "--threshold=tps>=1", "--threshold=point_selects.p95<5s",
                "--threshold=errors<50%", "--threshold=qps>0"], "hold", 0)
    if d is None:
        return
    tot = d["totals"]
    th = {t["expr"]: t for t in d["thresholds"]}
    want = {"p99<10s": tot["latency_ms"]["p99"], "tps>=1": tot["tps"],
            "point_selects.p95<5s": tot["kinds"]["point_selects"]["latency_ms"]["p95"],
            "errors<50%": 100.0 * tot["ignored_errors"] / tot["transactions"],
            "qps>0": tot["qps"]}
    for expr, v in want.items():
        t = th.get(expr, {})
        e.check(t.get("passed") is True and abs(t.get("measured", -1) - v) <= 1e-9 * max(1, v)
                and t.get("scope") == "run",
                "%s: passed, measured %r == the JSON's own figure %r, scope %r (want run)"
                % (expr, t.get("measured"), v, t.get("scope")))
    out = p.text("out")
    e.check("Thresholds:" in out and out.count(" ok\n") >= 5 and "CROSSED" not in out,
            "the summary lists the 5 thresholds as ok")
    e.check(d["exit"]["status"] == 0, "JSON exit status 0")


def crossed():
    p, d = run(["--threshold=tps>=100000000", "--threshold=p99<10s",
                "--threshold=no_such_kind.p99<1"], "cross", 3)
    if d is None:
        e.check(False, "the crossed run's JSON is written")
        return
    th = {t["expr"]: t for t in d["thresholds"]}
    e.check(th["tps>=100000000"]["passed"] is False and th["p99<10s"]["passed"] is True
            and th["no_such_kind.p99<1"]["passed"] is False
            and th["no_such_kind.p99<1"]["measured"] is None,
            "JSON: tps crossed, p99 held, the missing kind not measured: %r" % d["thresholds"])
    e.check(d["exit"]["status"] == 3, "JSON exit status 3: %r" % d["exit"])
    err = p.text("err")
    e.check("threshold crossed: tps>=100000000" in err and
            "threshold crossed: no_such_kind.p99<1 (measured: not measured)" in err,
            "stderr names both crossed thresholds: %r" % err[-300:])
    e.check(p.text("out").count("CROSSED") == 2, "the summary says CROSSED twice")


def sysbench_format():
    p, d = run(["--report-format=sysbench", "--threshold=tps>=100000000"], "sbfmt", 3)
    e.check("Thresholds:" not in p.text("out") and "threshold crossed" in p.text("err"),
            "sysbench format: no block on stdout, the crossed one on stderr")


def sweep():
    j = e.path("sweep.json")
    p = e.stampede(BASE + ["--threads=1,2", "--time=1", "--json=" + j,
                           "--threshold=tps>=100000000"] + e.local_opts() + e.db_opts() + ["run"])
    rc = p.wait(120)
    sw = e.path("sweep-sweep.json")
    d = json.load(open(sw)) if os.path.exists(sw) else {}
    runs = d.get("runs", [])
    e.check(rc == 3 and len(runs) == 2 and all(r["status"] == 3 and r["included"] for r in runs),
            "a sweep whose runs cross a threshold exits 3, both runs included: rc %s, %r"
            % (rc, runs))


def bad():
    for expr, word in (("p99<<1", "not a number"), ("tps<5ms", "unit 'ms'"),
                       ("k.tps<5", "not of a kind"), ("p99", "no comparison"),
                       ("latency<5", "not a metric"), ("p101<5", "not a metric")):
        j = e.path("bad.json")
        p = e.stampede(BASE + ["--time=1", "--json=" + j, "--threshold=" + expr]
                       + e.local_opts() + e.db_opts() + ["run"])
        rc = p.wait(30)
        err = p.text("err")
        e.check(rc == 2 and ("--threshold='%s'" % expr) in err and word in err,
                "--threshold=%s: exit 2 naming it (%s): rc %s, %r" % (expr, word, rc, err[-200:]))
        e.check(not os.path.exists(j), "--threshold=%s: nothing ran (no JSON)" % expr)


def not_run():
    p = e.stampede(BASE + ["--threshold=p99<1"] + e.local_opts() + e.db_opts() + ["prepare"])
    rc = p.wait(30)
    e.check(rc == 2 and "--threshold checks a run's figures" in p.text("err"),
            "--threshold on prepare: exit 2, refused (not parsed and ignored): rc %s, %r"
            % (rc, p.text("err")[-200:]))


def abort_live():
    """--abort-on-threshold=2 with p99<1us on a 30 s run: stopped at its
    2 s line (or the next), exit 3, stderr says when and which, the JSON's
    thresholds[] says which stopped it and with what figure, its run time
    is that short; thresholds that hold let a 3 s run end at its time.
    Without a --threshold or a report interval: exit 2, said."""
    t0 = time.monotonic()
    p, d = run(["--time=30", "--report-interval=1", "--threshold=p99<0.001ms",
                "--threshold=tps>0", "--abort-on-threshold=2"], "abort", 3)
    took = time.monotonic() - t0
    err = p.text("err")
    th = {t["expr"]: t for t in (d or {}).get("thresholds", [])}
    stop = th.get("p99<0.001ms", {})
    e.check(d is not None and stop.get("passed") is False
            and stop.get("stopped_run_at_s") in (2, 3) and stop.get("measured_at_stop", 0) > 0.001
            and th.get("tps>0", {}).get("stopped_run_at_s") is None
            and d["exit"]["status"] == 3 and "--abort-on-threshold" in d["exit"]["reason"]
            and d["totals"]["time_s"] < 6,
            "stopped live: %r; exit %r; run time %s s" % (stop, d and d["exit"],
                                                          d and d["totals"]["time_s"]))
    e.check("threshold crossed at " in err and "p99<0.001ms" in err and took < 20,
            "stderr says when and which, the 30 s run took %.1f s: %r" % (took, err[-300:]))
    # A kind's threshold, judged live on the kinds summed so far.
    p, d = run(["--time=30", "--report-interval=1", "--threshold=p99<10s",
                "--threshold=point_selects.p99<0.001ms", "--abort-on-threshold=2"],
               "abort-kind", 3)
    th = {t["expr"]: t for t in (d or {}).get("thresholds", [])}
    stop = th.get("point_selects.p99<0.001ms", {})
    kind = ((d or {}).get("totals", {}).get("kinds") or {}).get("point_selects") or {}
    e.check(d is not None and stop.get("stopped_run_at_s") in (2, 3)
            and 0.001 < stop.get("measured_at_stop", 0) <= kind.get("latency_ms", {}).get("max", 0)
            and th.get("p99<10s", {}).get("stopped_run_at_s") is None
            and d["totals"]["time_s"] < 6
            and "point_selects.p99<0.001ms" in p.text("err"),
            "a kind's threshold stopped the run live: %r (kind max %s ms), run time %s s"
            % (stop, kind.get("latency_ms", {}).get("max"), d and d["totals"]["time_s"]))
    p, d = run(["--time=3", "--report-interval=1", "--threshold=p99<10s",
                "--abort-on-threshold=1"], "abort-holds", 0)
    e.check(d is not None and d["totals"]["time_s"] >= 2.9 and d["exit"]["status"] == 0,
            "thresholds that hold: the run ends at its --time: %s s"
            % (d and d["totals"]["time_s"]))
    for extra, word in ((["--abort-on-threshold=2"], "give one"),
                        (["--report-interval=0", "--threshold=p99<1", "--abort-on-threshold=2"],
                         "--report-interval")):
        p = e.stampede(BASE + ["--time=1"] + extra + e.local_opts() + e.db_opts() + ["run"])
        rc = p.wait(30)
        e.check(rc == 2 and word in p.text("err"),
                "%s: exit 2, said (%s): rc %s, %r" % (extra, word, rc, p.text("err")[-200:]))


def main():
    e.need_sandbox()
    e.prepare(tables=1, table_size=1000)
    holding()
    crossed()
    sysbench_format()
    sweep()
    abort_live()
    bad()
    not_run()
    e.finish()


if __name__ == "__main__":
    main()
