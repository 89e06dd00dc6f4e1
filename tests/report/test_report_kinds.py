"""stampede report's per-kind and TPC-C parts, and Ctrl-C during a sweep,
end to end: real runs against the sandbox MariaDB, the pages opened by a
real headless Chromium (cdp.py).

  - two oltp_read_write runs: each run's per-kind table holds the JSON's
    totals.kinds figures, its per-kind p95/p99 chart is drawn with data,
    and the per-kind comparison shows each kind's figures and ratios;
  - a tpcc sweep (`stampede tpcc run --threads=1,2`, 1 warehouse): each
    run's JSON has tpmC, the sweep JSON has tpmC per point (= the run's),
    the page shows tpmC per run, its ratio, and tpmC against threads;
  - the per-kind count per second over time (one run, and overlaid per
    kind for two) and, for tpcc, each type's rate per minute (new_order:
    tpmC over time) and p95 over time hold the intervals' figures, and the
    tpmC series sums over the measured window to the tpcc object's
    New-Orders;
  - SIGINT during the second run of a sweep: exit 1, a message naming
    where it stopped, the first run's JSON kept and in the sweep JSON.

    python3 test_report_kinds.py STAMPEDE STAMPEDE_AGENT ARTIFACT_DIR

Exit 0, 1 (a check failed) or 77."""
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
import e2elib as t  # noqa: E402
import cdp  # noqa: E402
from test_report import open_page, rounded, static_checks  # noqa: E402
from test_report_common import report, run, setup  # noqa: E402

TPCC_DB = "tpcc_rpt"


SERIES_JS = r"""(() => {
  const out = {};
  document.querySelectorAll('canvas').forEach(c => {
    const ch = Chart.getChart(c);
    if (!ch) return;
    out[c.id] = {kind: c.getAttribute('data-kind'), src: c.getAttribute('data-what'),
      sets: ch.data.datasets.map(d => ({label: d.label, y: d.data.map(p => p.y)}))};
  });
  return {charts: out, done: document.body.getAttribute('data-series-done')};
})()"""


def shown(d):
    """The intervals the charts draw: all but the tail after the stop."""
    return [iv for iv in d["intervals"] if iv.get("printed", True)]


def rates(d, kind, scale=1.0):
    """A kind's count per interval over its length, as the JSON gives them."""
    out = []
    for iv in shown(d):
        ks = iv.get("kinds")
        if ks is None or not iv["len_s"]:
            out.append(None)
        else:
            out.append(ks.get(kind, {}).get("count", 0) * scale / iv["len_s"])
    return out


def p95s(d, kind):
    return [iv.get("kinds", {}).get(kind, {}).get("latency_ms", {}).get("p95")
            for iv in shown(d)]


def same(page, want):
    """Equal series: None where the JSON has none, else within 1e-9."""
    return len(page) == len(want) and all(
        (a is None and b is None) or (a is not None and b is not None and
                                      abs(a - b) <= 1e-9 * max(1.0, abs(b)))
        for a, b in zip(page, want))


def check_series(browser, runs, labels, tpcc):
    """The per-kind rate charts (one run and overlaid) and, for tpcc runs,
    the per-type rate and p95 charts hold the JSON's figures."""
    got = browser.eval(SERIES_JS)
    t.check(got["done"] == "1", "the series script ran to its end")
    ch = got["charts"]
    kinds = []
    for d in runs:
        for iv in shown(d):
            for k in iv.get("kinds", {}):
                if k not in kinds:
                    kinds.append(k)
    for n, d in enumerate(runs):
        c = ch.get("krate-%d" % n)
        own = [k for k in kinds if any(k in iv.get("kinds", {}) for iv in shown(d))]
        t.check(c is not None and [x["label"] for x in c["sets"]] == own,
                "krate-%d: one line per kind %s" % (n, own))
        for x in (c["sets"] if c else []):
            want = rates(d, x["label"])
            t.check(same(x["y"], want), "krate-%d %s per second = count / len_s: page %s, JSON %s"
                    % (n, x["label"], x["y"][:4], want[:4]))
        if tpcc:
            for cid, scale in (("tc-rate-%d" % n, 60.0), ("tc-p95-%d" % n, None)):
                c = ch.get(cid)
                t.check(c is not None and len(c["sets"]) == 5, "%s: five transaction types: %s"
                        % (cid, [x["label"] for x in c["sets"]] if c else None))
                for x in (c["sets"] if c else []):
                    ty = x["label"].split(" ")[0]
                    want = rates(d, ty, scale) if scale else p95s(d, ty)
                    t.check(same(x["y"], want), "%s %s: page %s, JSON %s"
                            % (cid, x["label"], x["y"][:4], want[:4]))
            w0, w1 = d["tpcc"]["window_s"], None
            ws = d["options"].get("warmup-time", d["options"].get("warmup_time"))
            ivs = [iv for iv in d["intervals"]
                   if ws is not None and float(ws) - 1e-6 <= iv["t_s"] - iv["len_s"]
                   < float(ws) + w0 - 1e-6]
            in_window = sum(iv.get("kinds", {}).get("new_order", {}).get("count", 0) for iv in ivs)
            t.info("run %d: new_order in the window's %d intervals %s, tpcc.new_orders %s"
                   % (n, len(ivs), in_window, d["tpcc"]["new_orders"]))
            t.check(ivs and in_window == d["tpcc"]["new_orders"],
                    "run %d: the tpmC-over-time series sums to the window's New-Orders" % n)
    if len(runs) < 2:
        return
    grid = {c["kind"]: c for cid, c in ch.items() if c["src"] == "krate"}
    t.check(sorted(grid) == sorted(kinds), "one overlaid per-kind chart per kind: %s" % sorted(grid))
    for k, c in grid.items():
        t.check([x["label"] for x in c["sets"]] == labels, "overlaid %s: one line per run %s"
                % (k, [x["label"] for x in c["sets"]]))
        for x, d in zip(c["sets"], runs):
            t.check(same(x["y"], rates(d, k)), "overlaid %s %s equals the run's rates" % (k, x["label"]))
    if tpcc:
        c = ch.get("cmp-tpmc")
        t.check(c is not None and [x["label"] for x in c["sets"]] == labels, "cmp-tpmc overlays %s"
                % labels)
        for x, d in zip(c["sets"] if c else [], runs):
            t.check(same(x["y"], rates(d, "new_order", 60.0)), "cmp-tpmc %s" % x["label"])
        for src in ("tc-rate", "tc-p95"):
            tys = sorted(c["kind"] for c in ch.values() if c["src"] == src)
            t.check(len(tys) == 5, "overlaid %s charts for the five types: %s" % (src, tys))


def check_kinds_pages(browser):
    a, b = t.path("ka.json"), t.path("kb.json")
    run(a, threads=2)
    run(b, threads=4)
    da, db = t.load_json(a), t.load_json(b)
    t.check(len(da["totals"].get("kinds", {})) > 0, "run JSON has totals.kinds: %s"
            % sorted(da["totals"].get("kinds", {})))
    html = t.path("kinds.html")
    report([a, b, "-o", html], "report of two runs with kinds")
    static_checks(html)
    got = open_page(browser, html, "report-kinds.png", ["kinds-cmp", "run-0", "run-1"])
    ids = [c["id"] for c in got["charts"]]
    t.check("kinds-lat-0" in ids and "kinds-lat-1" in ids, "per-kind charts present: %s" % ids)
    for c in got["charts"]:
        if c["id"].startswith("kinds-lat-"):
            labels = sorted(s["label"] for s in c["sets"])
            want = sorted(k + q for k in da["totals"]["kinds"] for q in (" p95", " p99"))
            t.check(labels == want, "%s: one p95 and one p99 line per kind: %s" % (c["id"], labels))
    cols = (("count", ("count",), 0), ("errors", ("errors",), 0),
            ("avg ms", ("latency_ms", "avg"), 3), ("p95 ms", ("latency_ms", "p95"), 3),
            ("p99 ms", ("latency_ms", "p99"), 3), ("max ms", ("latency_ms", "max"), 3))
    for n, d in enumerate((da, db)):
        tb = got["tables"]["kinds-table-%d" % n]
        head = tb[0]
        rows = {r[0]: r for r in tb[1:]}
        t.check(sorted(rows) == sorted(d["totals"]["kinds"]), "run %d kinds table rows %s"
                % (n, sorted(rows)))
        for kind, k in d["totals"]["kinds"].items():
            for col, path, dec in cols:
                v = k
                for p in path:
                    v = v[p]
                cell = rows.get(kind, [""] * len(head))[head.index(col)]
                t.check(cell == rounded(v, dec), "run %d %s %s: page %s, JSON %s"
                        % (n, kind, col, cell, v))
    cmp = got["tables"]["kinds-cmp-table"]
    head = cmp[0]
    for r in cmp[1:]:
        kind, label = r[0], r[1]
        d = da if label == "ka" else db
        k, k0 = d["totals"]["kinds"][kind], da["totals"]["kinds"][kind]
        i = head.index("p95 ms")
        t.check(r[i] == rounded(k["latency_ms"]["p95"], 3), "cmp %s %s p95: %s" % (kind, label, r[i]))
        want = rounded(k["latency_ms"]["p95"] / k0["latency_ms"]["p95"], 3) \
            if k0["latency_ms"]["p95"] else "-"
        t.check(r[i + 1] == want, "cmp %s %s p95 ratio: page %s, JSON %s"
                % (kind, label, r[i + 1], want))
    t.check(len(cmp) - 1 == 2 * len(da["totals"]["kinds"]), "cmp has one row per kind and run")
    check_series(browser, [da, db], ["ka", "kb"], tpcc=False)


def tpcc(cmd, *extra):
    return ["tpcc", cmd, "--agents=1"] + list(extra) + t.local_opts() + t.db_opts(db=TPCC_DB)


def check_tpcc(browser):
    t.sql("DROP DATABASE IF EXISTS %s" % TPCC_DB)
    user = t.env("MYSQL_USER", "sbtest")
    t.sql("CREATE DATABASE %s; GRANT ALL ON %s.* TO '%s'@'%%'; GRANT ALL ON %s.* TO '%s'@'localhost'"
          % (TPCC_DB, TPCC_DB, user, TPCC_DB, user))
    t.run_ok(tpcc("prepare", "--warehouses=1", "--threads=2"), "tpcc prepare 1 warehouse",
             timeout=300)
    d = t.path("tc")
    os.makedirs(d)
    p = t.run_ok(tpcc("run", "--warehouses=1", "--threads=1,2", "--time=3", "--warmup-time=1",
                      "--report-interval=1", "--json=" + os.path.join(d, "tc.json")), "tpcc run --threads=1,2",
                 timeout=240)
    files = sorted(os.listdir(d))
    t.check(files == ["tc-sweep.json", "tc-t1-r1.json", "tc-t2-r1.json"], "tpcc sweep files %s"
            % files)
    runs = [t.load_json(os.path.join(d, "tc-t%d-r1.json" % th)) for th in (1, 2)]
    sweep = t.load_json(os.path.join(d, "tc-sweep.json"))
    for th, r, pt in zip((1, 2), runs, sweep["points"]):
        tm = r.get("tpcc", {}).get("tpmC")
        t.info("tpcc %d threads: tpmC %s" % (th, tm))
        t.check(tm is not None and tm > 0, "t%d run has a tpmC > 0: %s" % (th, tm))
        t.check(pt.get("tpmC", {}).get("mean") == tm and pt["tpmC"]["min"] == tm,
                "sweep point t%d tpmC %s equals its run's %s" % (th, pt.get("tpmC"), tm))
    t.check("tpmC" in p.text("out"), "the sweep summary on stdout shows tpmC")
    html = t.path("tpcc.html")
    a, b = os.path.join(d, "tc-t1-r1.json"), os.path.join(d, "tc-t2-r1.json")
    report([a, b, os.path.join(d, "tc-sweep.json"), "-o", html], "report of the tpcc sweep")
    static_checks(html)
    got = open_page(browser, html, "report-tpcc.png", ["kinds-cmp", "sweep-0", "run-0", "run-1"])
    ids = [c["id"] for c in got["charts"]]
    t.check("sweep-0-tpmC" in ids, "tpmC against threads chart: %s" % ids)
    cmp = got["tables"]["tpcc-cmp-table"]
    t.check(cmp[1][1] == rounded(runs[0]["tpcc"]["tpmC"], 3) and
            cmp[2][1] == rounded(runs[1]["tpcc"]["tpmC"], 3),
            "tpmC comparison %s equals the runs' %s" % ([r[1] for r in cmp[1:]],
                                                        [r["tpcc"]["tpmC"] for r in runs]))
    if not t.check(runs[0]["tpcc"]["tpmC"] > 0, "the first tpcc run has a tpmC"):
        t.finish()
    t.check(cmp[2][2] == rounded(runs[1]["tpcc"]["tpmC"] / runs[0]["tpcc"]["tpmC"], 3),
            "tpmC ratio %s" % cmp[2][2])
    for n, r in enumerate(runs):
        sm = got["tables"]["tpcc-sum-%d" % n]
        want = [rounded(r["tpcc"]["tpmC"], 3), rounded(r["tpcc"]["new_orders"], 0),
                rounded(r["tpcc"]["window_s"], 0)]
        t.check(sm[1] == want, "run %d tpmC, New-Orders, window: page %s, JSON %s"
                % (n, sm[1], want))
        tb = got["tables"]["tpcc-table-%d" % n]
        rows = {x[0]: x for x in tb[1:]}
        for ty, o in r["tpcc"]["transactions"].items():
            t.check(ty in rows and rows[ty][tb[0].index("sc")] == rounded(o["sc"], 0) and
                    rows[ty][tb[0].index("p95 ms")] == rounded(o["p95_ms"], 3),
                    "run %d %s: page %s, JSON sc %s p95 %s" % (n, ty, rows.get(ty), o["sc"],
                                                               o["p95_ms"]))
    check_series(browser, runs, ["tc-t1-r1", "tc-t2-r1"], tpcc=True)
    text = report([a, b], "text comparison of the tpcc runs").stdout
    lines = text.splitlines()
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in lines[2:4]]
    t.check(head[-2:] == ["tpmC", "vs 1st"] and
            [r[-2] for r in rows] == [rounded(r["tpcc"]["tpmC"], 3) for r in runs] and
            rows[1][-1] == rounded(runs[1]["tpcc"]["tpmC"] / runs[0]["tpcc"]["tpmC"], 3),
            "text comparison ends with tpmC and its ratio: %s %s" % (head[-2:], [r[-2:] for r in rows]))
    st = got["tables"]["sweep-tpmc-table-0"]
    t.check([x[1] for x in st[1:]] == [rounded(r["tpcc"]["tpmC"], 3) for r in runs],
            "sweep tpmC table %s" % st[1:])


def check_sigint():
    d = t.path("int")
    os.makedirs(d)
    p = t.stampede(["oltp_read_write", "--tables=2", "--table-size=2000", "--agents=1",
                    "--threads=2,4", "--time=3", "--report-interval=1",
                    "--json=" + os.path.join(d, "run.json")] + t.local_opts() + t.db_opts()
                   + ["run"])
    hit = p.wait_line(r"=== sweep run 2 of 2", which="out", timeout=120)
    t.check(hit is not None, "the sweep reached its second run")
    hit = p.wait_line(r"^\[ 1s \]", which="out", timeout=60, after=hit[0] if hit else 0)
    os.kill(p.pid, signal.SIGINT)
    rc = p.wait(60)
    err = p.text("err")
    t.info("after SIGINT: exit %s, stderr: %s" % (rc, err.strip()[-300:]))
    t.check(rc == 1, "exit status 1 after SIGINT (got %s)" % rc)
    t.check("sweep interrupted during run 2 of 2 (--threads=4, repeat 1): 1 finished run(s) kept"
            in err, "stderr says where the sweep stopped")
    kept = t.load_json(os.path.join(d, "run-t2-r1.json"))
    t.check(kept["threads"] == 2 and kept["totals"]["tps"] > 0, "the finished run's JSON is kept")
    sweep = t.load_json(os.path.join(d, "run-sweep.json"))
    t.check(sweep["stopped"] and "run 2 of 2" in sweep["stopped"], "sweep JSON: stopped %s"
            % sweep["stopped"])
    pts = {pt["threads"]: pt for pt in sweep["points"]}
    t.check(pts[2]["runs"] == 1 and pts[2]["tps"]["mean"] == kept["totals"]["tps"],
            "point 2 keeps the finished run (tps %s)" % pts[2]["tps"]["mean"])
    t.check(pts[4]["runs"] == 0, "the interrupted run is left out of the summary")


def main():
    exe = setup()
    check_sigint()
    browser = cdp.Browser(exe)
    try:
        check_kinds_pages(browser)
        check_tpcc(browser)
    finally:
        browser.close()
    t.finish()


main()
