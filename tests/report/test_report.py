"""stampede report and sweeps, end to end: real runs against the sandbox
MariaDB, the page opened from disk by a real headless Chromium (DevTools
protocol, cdp.py), a --threads=2,4 --repeat=2 sweep (its repeats compared
as groups per point), and bad input.

    python3 test_report.py STAMPEDE STAMPEDE_AGENT ARTIFACT_DIR

Saves report-one.png, report-compare.png and report-sweep.png in
ARTIFACT_DIR (the build directory). Exit 0, 1 (a check failed) or 77."""
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
import e2elib as t  # noqa: E402
import cdp  # noqa: E402
from test_report_common import CHARTJS, report, run, setup  # noqa: E402

ARTIFACTS = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else os.getcwd()


def rounded(v, d):
    return "-" if v is None else "%.*f" % (d, v)


# ------------------------------------------------------------ the page

PAGE_JS = r"""(() => {
  const charts = Array.from(document.querySelectorAll('canvas')).map(c => {
    const ch = Chart.getChart(c);
    return {id: c.id, ok: !!ch, sets: ch ? ch.data.datasets.map(d => ({label: d.label,
      n: d.data.filter(v => v !== null && (typeof v !== 'object' ||
         (Array.isArray(v) ? v[0] !== null : v.y !== null))).length})) : [],
      drawn: ch ? ch.getSortedVisibleDatasetMetas().every(m => m.data.length > 0) : false};
  });
  const tables = {};
  document.querySelectorAll('table[id]').forEach(tb => {
    tables[tb.id] = Array.from(tb.rows).map(r => Array.from(r.cells).map(c => c.textContent));
  });
  return {charts: charts, tables: tables, done: document.body.getAttribute('data-charts-done'),
    sections: Array.from(document.querySelectorAll('section[id]')).map(s => s.id)};
})()"""


def static_checks(html_path):
    """No URL the page could fetch: nothing outside the inlined Chart.js says
    http, and inside Chart.js only its comments do."""
    page = open(html_path, encoding="utf-8").read()
    js = open(CHARTJS, encoding="utf-8").read()
    t.check(page.count(js) == 1, "%s inlines %s verbatim once" % (os.path.basename(html_path), CHARTJS))
    rest = page.replace(js, "")
    hits = [m.start() for m in re.finditer("http", rest)]
    t.check(not hits, "outside Chart.js the page has no 'http' (found %d)" % len(hits))
    code = re.sub(r"/\*.*?\*/", "", js, flags=re.S)
    t.check("http" not in code, "Chart.js says 'http' only in its comments")
    for pat in (r"\bsrc\s*=", r"\bhref\s*=", r"fetch\(", "XMLHttpRequest", "@import", r"url\("):
        t.check(not re.search(pat, page), "the page has no %s" % pat)


def open_page(browser, html_path, shot, want_sections):
    browser.events.clear()
    browser.open("file://" + html_path)
    got = browser.eval(PAGE_JS)
    errs = browser.errors()
    t.check(not errs, "%s: no console error or exception: %s" % (shot, errs[:5]))
    reqs = browser.requests()
    t.check(reqs == ["file://" + html_path], "%s: the only request is the page itself: %s"
            % (shot, reqs[:5]))
    t.check(got["done"] == "1", "%s: the page script ran to its end" % shot)
    missing = [s for s in want_sections if s not in got["sections"]]
    t.check(not missing, "%s: sections %s present (missing %s)" % (shot, want_sections, missing))
    for c in got["charts"]:
        empty = [s["label"] for s in c["sets"] if s["n"] == 0]
        t.check(c["ok"] and c["sets"] and not empty and c["drawn"],
                "%s: chart %s drawn by Chart.js with data: %s"
                % (shot, c["id"], [(s["label"], s["n"]) for s in c["sets"]]))
    png = os.path.join(ARTIFACTS, shot)
    browser.screenshot(png)
    t.check(os.path.getsize(png) > 10000, "%s saved (%d bytes)" % (png, os.path.getsize(png)))
    return got


def check_tables(got, runs, names):
    """The comparison and agents tables show the JSON's figures."""
    cmp = got["tables"]["cmp-table"]
    head = cmp[0]
    for i, (d, name) in enumerate(zip(runs, names)):
        row = cmp[i + 1]
        t.check(row[0] == name, "comparison row %d is %s (%s)" % (i + 1, name, row[0]))
        for col, path, dec in (("tps", ("tps",), 2), ("qps", ("qps",), 2),
                               ("p95 ms", ("latency_ms", "p95"), 3),
                               ("p99 ms", ("latency_ms", "p99"), 3),
                               ("max ms", ("latency_ms", "max"), 3), ("err/s", ("err_s",), 2)):
            v = d["totals"]
            for k in path:
                v = v[k]
            cell = row[head.index(col)]
            t.check(cell == rounded(v, dec), "%s %s: page %s, JSON %s" % (name, col, cell, v))
        if i > 0:
            r = row[head.index("tps") + 1]
            want = rounded(d["totals"]["tps"] / runs[0]["totals"]["tps"], 3)
            t.check(r == want, "%s tps ratio to the first: page %s, JSON %s" % (name, r, want))
        srv = d["server"]
        sc = got["tables"]["server-table-%d" % i]
        rows = {r[0]: r[1:] for r in sc[1:]}
        t.check(srv["checked"] and rows and all(
            rows.get(k) == [rounded(c["start"], 0), rounded(c["end"], 0), rounded(c["delta"], 0)]
            for k, c in srv["counters"].items()),
            "%s server cross-check counters: page %s, JSON %s" % (name, rows, srv["counters"]))
        ag = got["tables"]["agents-table-%d" % i]
        for j, a in enumerate(d["agents"]):
            cells = ag[j + 1]
            t.check(cells[0] == a["name"] and cells[ag[0].index("tps")] == rounded(a["tps"], 2) and
                    cells[ag[0].index("p95 ms")] == rounded(a["latency_ms"]["p95"], 3),
                    "%s agent %s: page tps %s p95 %s, JSON %s %s"
                    % (name, a["name"], cells[ag[0].index("tps")], cells[ag[0].index("p95 ms")],
                       a["tps"], a["latency_ms"]["p95"]))


AGENT_JS = r"""(() => ['tps', 'p95'].map(w => Array.from(document.querySelectorAll(
  'canvas[id^="agent-' + w + '-"]')).map(c => ({id: c.id, sets: Chart.getChart(c).data.datasets.map(
  d => ({label: d.label, y: d.data.map(p => p.y)}))}))))()"""


def check_agent_series(browser, runs):
    """Per agent tps and p95 over time: one line per agent holding the JSON's
    intervals[].per_agent figures, and the agents' tps add up to the
    interval's."""
    tps_charts, p95_charts = browser.eval(AGENT_JS)
    t.check([c["id"] for c in tps_charts] == ["agent-tps-%d" % i for i in range(len(runs))] and
            [c["id"] for c in p95_charts] == ["agent-p95-%d" % i for i in range(len(runs))],
            "per-agent charts for every run: %s" % [c["id"] for c in tps_charts + p95_charts])
    for n, d in enumerate(runs):
        names = [a["name"] for a in d["agents"]]
        ivs = d["intervals"]
        t.check(all(len(iv.get("per_agent") or []) == len(names) for iv in ivs),
                "run %d: every interval has per_agent figures for its %d agents" % (n, len(names)))
        tc, pc = tps_charts[n], p95_charts[n]
        t.check([s["label"] for s in tc["sets"]] == names, "%s: one line per agent %s"
                % (tc["id"], [s["label"] for s in tc["sets"]]))
        drawn = [iv for iv in ivs if iv["printed"]]  # the tail after the stop is left out
        tput = browser.eval("Chart.getChart('tput-%d').data.datasets[0].data.map(p => [p.x, p.y])"
                            % n)
        t.check(tput == [[iv["t_s"], iv["tps"]] for iv in drawn],
                "run %d: the tps chart draws the %d printed intervals of %d (t, tps): %s"
                % (n, len(drawn), len(ivs), tput))
        tail = len(ivs) - len(drawn)
        note = browser.eval("document.querySelector('#run-%d .late-list').textContent" % n)
        t.check(("The %d interval(s) after the stop" % tail in note) == (tail > 0),
                "run %d: the note names the %d tail interval(s) left out: %s" % (n, tail, note))
        for j, (st, sp) in enumerate(zip(tc["sets"], pc["sets"])):
            want_t = [(iv["per_agent"][j] or {}).get("tps") for iv in drawn]
            want_p = [(iv["per_agent"][j] or {}).get("p95_ms") for iv in drawn]
            t.check(st["y"] == want_t and sp["y"] == want_p, "run %d agent %s: page tps %s p95 %s, "
                    "JSON %s %s" % (n, names[j], st["y"][:3], sp["y"][:3], want_t[:3], want_p[:3]))
        bad = [(iv["k"], iv["tps"], [a["tps"] for a in iv["per_agent"] if a])
               for iv in ivs if iv["tps"] is not None and
               abs(sum(a["tps"] for a in iv["per_agent"] if a) - iv["tps"]) > 1e-6 * max(1, iv["tps"])]
        t.check(not bad, "run %d: the agents' tps add up to each interval's tps (off: %s)"
                % (n, bad[:3]))
        t.info("run %d interval 1: tps %s = agents %s; p95 %s, agents %s"
               % (n, ivs[1]["tps"], [a["tps"] for a in ivs[1]["per_agent"] if a],
                  ivs[1]["latency_ms"]["p95"], [a["p95_ms"] for a in ivs[1]["per_agent"] if a]))


MARKS_JS = r"""(() => {
  const ch = Chart.getChart('tput-0');
  const m = ch.data.datasets.find(d => d.label === 'late/partial interval');
  return {points: m ? m.data.map(p => [p.x, p.y]) : null,
    note: document.querySelector('#run-0 .late-list').textContent};
})()"""


def check_spectrum(browser, d):
    """The run's spectrum is drawn from its whole histogram (totals.histogram,
    issue 28 §2): one point per occupied bucket, x = 1/(1-p) and y = ms both
    non-decreasing, the point at p = 50% the JSON's p50, the last the
    bucket of its max; the chart 'spec-0' holds every point."""
    full, pts = browser.eval("[D.runs[0].spectrum_full, D.runs[0].spectrum]")
    n_chart = browser.eval("Chart.getChart('spec-0').data.datasets[0].data.length")
    lat = d["totals"]["latency_ms"]
    mono = all(pts[i][0] < pts[i + 1][0] and pts[i][1] < pts[i + 1][1]
               for i in range(len(pts) - 1))
    # A point is (1/(1-below/total), its bucket's value): the p50 (rank
    # ceil(total/2), proto/hist) is the last bucket with fewer than half
    # below it; "<= 2.0" took the next bucket when exactly half were below.
    at50 = [p for p in pts if p[0] < 2.0][-1][1] if pts else None
    t.check(full is True and len(pts) > 7 and mono and n_chart == len(pts),
            "spectrum from the whole histogram: %s points (the chart %s), increasing: %s"
            % (len(pts), n_chart, mono))
    t.check(at50 == lat["p50"] and pts and abs(pts[-1][1] - lat["max"]) <= lat["max"] / 1024 + 0.001,
            "spectrum at 50%%: %s ms (JSON p50 %s); last %s ms (JSON max %s)"
            % (at50, lat["p50"], pts and pts[-1][1], lat["max"]))


def check_marks(browser, good):
    """Late and partial intervals are marked on the throughput chart and
    listed: a real run's JSON with interval 2 set late and 3 partial."""
    d = t.load_json(good)
    ivs = [iv for iv in d["intervals"] if iv["printed"]]
    if not t.check(len(ivs) >= 3, "the run has 3 printed intervals (%d)" % len(ivs)):
        return
    ivs[1]["late"], ivs[2]["partial"] = True, True
    marked = t.path("marked.json")
    json.dump(d, open(marked, "w"))
    html = t.path("marked.html")
    report([marked, "-o", html], "report of a run with a late and a partial interval")
    browser.open("file://" + html)
    got = browser.eval(MARKS_JS)
    want = [[ivs[1]["t_s"], ivs[1]["tps"]], [ivs[2]["t_s"], ivs[2]["tps"]]]
    t.check(got["points"] == want, "triangles at the late and the partial interval: page %s, "
            "JSON %s" % (got["points"], want))
    t.check("%.0f s (late)" % ivs[1]["t_s"] in got["note"] and
            "%.0f s (partial)" % ivs[2]["t_s"] in got["note"], "the note lists them: %s" % got["note"])


# ------------------------------------------------------------ the sweep

def check_sweep(base):
    sw = t.path("sw")
    os.makedirs(sw)
    p = t.run_ok(["oltp_read_write", "--tables=2", "--table-size=2000", "--agents=1",
                  "--threads=2,4", "--repeat=2", "--time=2", "--report-interval=1",
                  "--json=" + os.path.join(sw, "run.json"), "--csv=" + os.path.join(sw, "run.csv")]
                 + t.local_opts() + t.db_opts() + ["run"], "sweep --threads=2,4 --repeat=2",
                 timeout=240)
    files = sorted(os.listdir(sw))
    want = sorted(["run-t%d-r%d.%s" % (th, r, ext) for th in (2, 4) for r in (1, 2)
                   for ext in ("json", "csv")] + ["run-sweep.json"])
    t.check(files == want, "the sweep wrote %s" % files)
    out = p.text("out")
    t.check(out.count("=== sweep run ") == 4, "4 runs announced on stdout")
    sweep = t.load_json(os.path.join(sw, "run-sweep.json"))
    t.check(sweep.get("kind") == "sweep" and len(sweep["runs"]) == 4,
            "sweep JSON lists %d runs" % len(sweep.get("runs", [])))
    for pt in sweep["points"]:
        th = pt["threads"]
        runs = [t.load_json(os.path.join(sw, "run-t%d-r%d.json" % (th, r))) for r in (1, 2)]
        t.check(all(r["threads"] == th for r in runs), "t%d runs ran %s threads"
                % (th, [r["threads"] for r in runs]))
        for key, path in (("tps", ("tps",)), ("qps", ("qps",)), ("p95_ms", ("latency_ms", "p95")),
                          ("p99_ms", ("latency_ms", "p99"))):
            vals = []
            for r in runs:
                v = r["totals"]
                for k in path:
                    v = v[k]
                vals.append(v)
            mean = sum(vals) / 2
            sd = math.sqrt(sum((v - mean) ** 2 for v in vals))  # n-1 = 1
            s = pt[key]
            t.check(math.isclose(s["mean"], mean, rel_tol=1e-9) and
                    math.isclose(s["stddev"], sd, rel_tol=1e-9, abs_tol=1e-12) and
                    s["min"] == min(vals) and s["max"] == max(vals),
                    "t%d %s: summary mean %.4f sd %.4f min %s max %s; runs %s"
                    % (th, key, s["mean"], s["stddev"], s["min"], s["max"], vals))
        row = [l for l in out.splitlines() if re.match(r"\| %d +\|" % th, l)]
        t.check(row and ("%.2f" % pt["tps"]["mean"]) in row[0],
                "stdout summary row for %d threads shows tps mean %.2f: %s"
                % (th, pt["tps"]["mean"], row[:1]))
    return os.path.join(sw, "run-sweep.json"), sweep


def check_sweep_groups(sweep_path, sweep):
    """A sweep of repeats is compared as groups, one per --threads point
    (issue 28 §1): on stdout, in --json=FILE (each group's values its runs'
    JSON tps, in the sweep's order), and a run file gone is an error naming
    it (exit 1), not a comparison without it."""
    j = t.path("sweep-groups.json")
    p = report([sweep_path, "--json=" + j], "report of the sweep --json")
    out = p.stdout
    t.check("Groups compared (the unit is one run; baseline threads=2)" in out
            and "threads=4 vs threads=2: " in out,
            "the sweep's repeats compared on stdout: %s" % out[out.find("Groups compared"):][:300])
    d = t.load_json(j)
    tps = [f for f in d["figures"] if f["figure"] == "tps"][0]
    sw = os.path.dirname(sweep_path)
    want = [["threads=%d" % th, [t.load_json(os.path.join(sw, r["json"].split("/")[-1]))
                                 ["totals"]["tps"] for r in sweep["runs"] if r["threads"] == th]]
            for th in sweep["threads"]]
    got = [[g["group"], g["values"]] for g in tps["groups"]]
    t.check(got == want and tps["comparisons"][0]["group"] == "threads=4",
            "--json: the groups are the sweep's points with their runs' tps: %s (want %s)"
            % (got, want))
    gone = os.path.join(sw, "run-t4-r2.json")
    os.rename(gone, gone + ".away")
    p = report([sweep_path], "report of the sweep with a run file gone", want_rc=1)
    t.check("run-t4-r2.json" in p.stderr and "beside" in p.stderr,
            "a run file gone is named: %r" % p.stderr.strip()[-300:])
    os.rename(gone + ".away", gone)


# ------------------------------------------------------------ bad input

def check_bad_input(good):
    d = t.load_json(good)
    cases = []
    p = t.path("notjson.json")
    open(p, "w").write("hello, this is not JSON\n")
    cases.append((p, "not JSON"))
    p = t.path("other.json")
    json.dump({"tool": "sysbench", "version": "1.0"}, open(p, "w"))
    cases.append((p, "not a stampede JSON"))
    p = t.path("newer.json")
    d2 = dict(d, version="999.0.0")
    json.dump(d2, open(p, "w"))
    cases.append((p, "newer than this stampede"))
    p = t.path("trunc.json")
    text = open(good).read()
    open(p, "w").write(text[:len(text) // 2])
    cases.append((p, "truncated"))
    for path, want in cases:
        out = t.path("bad-out.html")
        r = report([good, path, "-o", out], "report with %s" % os.path.basename(path), want_rc=1)
        t.check(path in r.stderr and want in r.stderr, "stderr names %s and says '%s': %s"
                % (os.path.basename(path), want, r.stderr.strip()))
        t.check(not os.path.exists(out) and not os.path.exists(out + ".tmp"),
                "nothing written for %s" % os.path.basename(path))


def main():
    exe = setup()
    a, b = t.path("base.json"), t.path("more.json")
    run(a, threads=2)
    run(b, threads=4)
    da, db = t.load_json(a), t.load_json(b)
    text = report([a, b], "text comparison").stdout
    print(text)
    rows = [l for l in text.splitlines() if l.startswith("| base ") or l.startswith("| more ")]
    t.check(len(rows) == 2 and ("%.2f" % da["totals"]["tps"]) in rows[0] and
            ("%.2f" % db["totals"]["tps"]) in rows[1], "text table rows show each run's tps")
    t.check("option threads 2 → 4" in text, "text diff names the changed option (threads 2 → 4)")
    sweep_path, sweep = check_sweep(a)
    check_sweep_groups(sweep_path, sweep)
    one, two, swp = t.path("one.html"), t.path("two.html"), t.path("sweep.html")
    report([a, "-o", one], "report of one run")
    report([a, b, "-o", two], "report of two runs")
    report([sweep_path, "-o", swp], "report of the sweep")
    for h in (one, two, swp):
        static_checks(h)
    browser = cdp.Browser(exe)
    try:
        got = open_page(browser, one, "report-one.png", ["comparison", "run-0"])
        check_tables(got, [da], ["base"])
        got = open_page(browser, two, "report-compare.png",
                        ["comparison", "env-diff", "overlay", "run-0", "run-1"])
        check_tables(got, [da, db], ["base", "more"])
        check_agent_series(browser, [da, db])
        for cid, key in (("cmp-tps", ("tps",)), ("cmp-p95", ("latency_ms", "p95"))):
            sets = browser.eval("Chart.getChart('%s').data.datasets.map(d => [d.label, "
                                "d.data.map(p => [p.x, p.y])])" % cid)
            want = []
            for name, d in (("base", da), ("more", db)):
                pts = []
                for iv in d["intervals"]:
                    if iv["printed"]:
                        v = iv
                        for k in key:
                            v = v[k]
                        pts.append([iv["t_s"], v])
                want.append([name, pts])
            t.check(sets == want, "%s overlays both runs' printed intervals: page %s, JSON %s"
                    % (cid, sets, want))
        diff = got["tables"]["env-diff-table"]
        t.check(any(r[0] == "option threads" and r[-1] == "option threads 2 → 4" for r in diff),
                "page diff shows option threads 2 → 4: %s" % diff[1:4])
        check_marks(browser, a)
        check_spectrum(browser, da)
        # A run file whose name opens an HTML comment in the page's data
        # block (issue 27 §4: 0 of 20 charts drew): every string embedded
        # escapes < > & (and U+2028/9); the label shows as text.
        evil = t.path("evil<!--<script>.json")
        shutil.copyfile(b, evil)
        evil_html = t.path("evil.html")
        report([a, evil, "-o", evil_html], "report of a run file named evil<!--<script>.json")
        page = open(evil_html, encoding="utf-8").read()
        t.check("<!--<script>" not in page.split('id="stampede-data">', 1)[-1].split("</script>")[0],
                "the data block holds no '<!--<script>'")
        got = open_page(browser, evil_html, "report-evil.png",
                        ["comparison", "env-diff", "overlay", "run-0", "run-1"])
        cells = [c for r in got["tables"].get("cmp-table", []) for c in r]
        t.check(any("evil<!--<script>" in c for c in cells),
                "the label shows as text in the comparison table: %s" % cells[:12])
        got = open_page(browser, swp, "report-sweep.png", ["groups", "sweep-0"])
        ids = [c["id"] for c in got["charts"]]
        t.check(ids == ["grp-tps", "grp-qps", "grp-p95", "grp-p99", "sweep-0-tps",
                        "sweep-0-p95_ms"], "sweep page charts (its repeats' groups, then "
                "the sweep's): %s" % ids)
    finally:
        browser.close()
    check_bad_input(a)
    t.finish()


if __name__ == "__main__":
    main()
