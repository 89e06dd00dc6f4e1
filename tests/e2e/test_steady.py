#!/usr/bin/env python3
"""e2e: each run says whether it was steady (issue 28 §2).

Three Lua scripts, --report-interval=1, whose events are
server sleeps (so their throughput hardly depends on the box's load):
  - flat: DO SLEEP(0.02) at a uniform --rate=100 on 4 connections (half
    busy) for 8 s: steady (the summary's "Steady state:"
    verdict and the JSON's steady_state agree, steady true);
  - falling: each connection's sleep grows with its events (4 ms + 20 us
    per event so far: about 4 to 14 ms), 8 s: tps falls to about a third
    (a TSan agent's millisecond per event does not hide it): not steady, "tps fell",
    a significant tps trend of -20% or less;
  - warm-up: each connection's first 20 events sleep 100 ms (about 2 s),
    the rest 15 ms, 12 s: 2 or 3 intervals of warm-up are found and named.
The warm-up run's page (stampede report -o), opened in headless Chromium,
shows the verdict and shades the warm-up in its throughput and latency
charts (the charts' warm-up plugin covers [0, steady_state.warmup_s]).
The figures themselves are checked against SciPy in the unit test
test_co_steady; this one shows the judgement on real runs.

And the whole distribution is in the JSON: an oltp_read_write run's
totals.histogram and each totals.kinds.K.histogram (HdrHistogram V2
compressed, base64, µs) are read by Java's HdrHistogram
(HistogramLogProcessor, Debian libhdrhistogram-java): its total count is the
run's transactions (each kind's: its count, the statements that succeeded), its 50% row the JSON's
p50, its max the JSON's max to the bucket.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
import cdp  # noqa: E402

import e2elib as e
import hdrlog

# Sleeps of 15-100 ms: a busy CI box (TSan, two tests at once) adds
# milliseconds to a statement as other tests start and end, a change that
# a 5 ms sleep's p95 trend took for a real one (CI of stop 36). The flat run
# is open loop at a uniform rate: a closed loop's interval counts (40 of
# 50 ms sleeps) moved by 12% when TSan's agent stalled, out of the band.
FLAT = """
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("DO SLEEP(0.02)") end
"""
FALLING = """
function thread_init() con = sysbench.sql.driver():connect() n = 0 end
function event()
  n = n + 1
  con:query(string.format("DO SLEEP(%.6f)", 0.004 + 0.00002 * n))
end
"""
WARMUP = """
function thread_init() con = sysbench.sql.driver():connect() n = 0 end
function event()
  n = n + 1
  if n <= 20 then con:query("DO SLEEP(0.1)") else con:query("DO SLEEP(0.015)") end
end
"""


def one(name, script, seconds, threads=2, extra=()):
    path = e.path(name + ".lua")
    with open(path, "w") as f:
        f.write(script)
    j = e.path(name + ".json")
    p = e.run_ok([path, "run", "--threads=%d" % threads, "--time=%d" % seconds,
                  "--report-interval=1", *extra,
                  "--json=" + j] + e.local_opts() + e.db_opts(), name + " run")
    d = e.load_json(j)
    s = d.get("steady_state") or {}
    m = re.search(r"^Steady state:\n    (.*)$", p.text("out"), re.M)
    e.info("%s: %s" % (name, s))
    e.check(m is not None and m.group(1) == s.get("verdict"),
            "%s: the summary's steady-state line is the JSON's verdict: %r"
            % (name, m and m.group(1)))
    return s, d, p.text("out")


JAR = "/usr/share/java/hdrhistogram.jar"


def java_read(name, b64, length_s):
    """(total count, {percentile: ms}, max ms) as HistogramLogProcessor
    reads b64 written as a one-interval hlog."""
    log = e.path(name + ".hlog")
    with open(log, "w") as f:
        f.write("#[StartTime: 0.000 (seconds since epoch)]\n\"StartTimestamp\",\"Interval_Length\","
                "\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")
        f.write("0.000,%.3f,0.000,%s\n" % (length_s, b64))
    p = subprocess.run(["java", "-cp", JAR, "org.HdrHistogram.HistogramLogProcessor", "-i", log,
                        "-outputValueUnitRatio", "1000"], capture_output=True, text=True,
                       timeout=120)
    e.check(p.returncode == 0, "%s: HistogramLogProcessor exit %d %s" % (name, p.returncode,
                                                                       p.stderr[:300]))
    rows = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and not line.startswith("#") and re.match(r"^[0-9.]+$", f[0]):
            rows.setdefault(f[1], float(f[0]))
    foot = re.search(r"Max\s*=\s*([0-9.]+), Total count\s*=\s*([0-9]+)", p.stdout)
    return (int(foot.group(2)) if foot else -1), rows, (float(foot.group(1)) if foot else -1)


def histograms():
    if not e.check(os.path.exists(JAR), "%s is installed (deploy/install-deps)" % JAR):
        return
    j = e.path("hist.json")
    e.prepare(tables=1, table_size=1000)
    e.run_ok(["oltp_read_write", "run", "--tables=1", "--table-size=1000", "--threads=2",
              "--time=2", "--json=" + j] + e.local_opts() + e.db_opts(), "oltp_read_write run")
    tot = e.load_json(j)["totals"]
    n, rows, mx = java_read("totals", tot["histogram"], tot["time_s"])
    lat = tot["latency_ms"]
    e.check(n == tot["transactions"] and rows.get("0.500000000000") == lat["p50"]
            and abs(mx - lat["max"]) <= max(0.001, lat["max"] / 1024),
            "totals.histogram read by Java: count %d (transactions %d), 50%% %s ms (p50 %s), "
            "max %s (max %s)" % (n, tot["transactions"], rows.get("0.500000000000"), lat["p50"],
                                 mx, lat["max"]))
    bad = []
    for name, k in tot["kinds"].items():
        n, rows, mx = java_read("kind-" + name, k["histogram"], tot["time_s"])
        if n != k["count"] or rows.get("0.500000000000") is None:
            bad.append((name, n, k["count"], k["errors"]))
    e.check(tot["kinds"] and not bad, "each of %d kinds' histogram read by Java holds its "
            "count: %s" % (len(tot["kinds"]), bad))


def page(json_path, s):
    exe = cdp.find_chromium()
    if not e.check(exe is not None, "chromium is installed (deploy/install-deps)"):
        return
    html = e.path("warmup.html")
    p = subprocess.run([e.STAMPEDE, "report", json_path, "-o", html], capture_output=True,
                       text=True, timeout=60)
    e.check(p.returncode == 0, "report -o: exit %d %s" % (p.returncode, p.stderr[:300]))
    browser = cdp.Browser(exe)
    try:
        browser.open("file://" + html)
        e.check(not browser.errors(), "no console error: %s" % browser.errors()[:3])
        got = browser.eval("[document.getElementById('steady-0').textContent, "
                           "document.getElementById('steady-0').getAttribute('data-steady'), "
                           "['tput-0', 'lat-0'].map(id => Chart.getChart(id).config.plugins"
                           ".map(p => p.id)), D.runs[0].warmup_s]")
        e.check(got[0].startswith("Steady state: " + s["verdict"])
                and got[1] == ("yes" if s["steady"] else "no")
                and got[2] == [["warmup"], ["warmup"]] and got[3] == s["warmup_s"],
                "the page shows the verdict and shades the warm-up (0 to %s s) in both charts: "
                "%r" % (s["warmup_s"], got))
    finally:
        browser.close()


def warmup_cut(s, d, out):
    """--warmup=auto: the totals are the intervals after the detected
    warm-up, every figure of the cut adds up to the whole run."""
    c = d.get("warmup_cut") or {}
    t = d["totals"]
    e.info("warmup_cut: %r" % c)
    if not e.check(c.get("applied") is True and c.get("mode") == "auto"
                   and abs(c.get("cut_s", -1) - s.get("warmup_s", -2)) < 1e-6,
                   "--warmup=auto cut the detected warm-up (%s s): %r" % (s.get("warmup_s"), c)):
        return
    cut = c["cut_s"]
    ivs = d["intervals"]
    before = [iv for iv in ivs if iv["t_s"] <= cut + 1e-6]
    after = [iv for iv in ivs if iv["t_s"] > cut + 1e-6]
    tx = [iv["counters"]["transactions"] for iv in ivs]
    n_before = sum(iv["counters"]["transactions"] for iv in before)
    n_after = sum(iv["counters"]["transactions"] for iv in after)
    lo, whole = c["left_out"], c["whole_run"]
    e.check(len(before) == c["intervals"] and lo["transactions"] == n_before
            and t["transactions"] == n_after and whole["transactions"] == sum(tx)
            and whole["transactions"] == lo["transactions"] + t["transactions"],
            "the cut's %d intervals hold %d transactions, the rest %d = totals %d, whole %d"
            % (len(before), n_before, n_after, t["transactions"], whole["transactions"]))
    e.check(abs(t["time_s"] - (whole["time_s"] - cut)) < 1e-6,
            "totals.time_s %s = whole %s - cut %s" % (t["time_s"], whole["time_s"], cut))
    h = hdrlog.decode(t["histogram"])
    e.check(h.total() == t["transactions"] and lo["latency_samples"] == lo["transactions"]
            and whole["latency_samples"] == whole["transactions"],
            "totals.histogram holds the %d transactions after the cut (%d)"
            % (t["transactions"], h.total()))
    # The warm-up's events sleep 100 ms, the rest 15 ms: the whole run's
    # p95 per kind (whole-run) is 100 ms, the totals' p95 after the cut 15.
    k = (t.get("kinds") or {}).get("other") or {}
    e.check(t["latency_ms"]["p95"] < 30 and k.get("count") == whole["queries"],
            "totals p95 %.3f ms without the 100 ms warm-up; kinds stay whole-run (%s of %s)"
            % (t["latency_ms"]["p95"], k.get("count"), whole["queries"]))
    ag = d["agents"][0]
    e.check(abs(ag["tps"] - whole["transactions"] / whole["time_s"]) < 1e-3 * ag["tps"],
            "per-agent tps is whole-run: %s" % ag["tps"])
    m = re.search(r"^Warm-up left out of the totals \(--warmup=auto\): the first ([0-9.]+) s "
                  r"\((\d+) intervals, (\d+) transactions", out, re.M)
    e.check(m is not None and abs(float(m.group(1)) - cut) < 0.05
            and int(m.group(2)) == c["intervals"] and int(m.group(3)) == lo["transactions"],
            "the summary says what was left out: %r" % (m and m.group(0)))
    tx_line = re.search(r"^    transactions: +(\d+) ", out, re.M)
    e.check(tx_line is not None and int(tx_line.group(1)) == t["transactions"],
            "the printed transactions are the totals after the cut: %r"
            % (tx_line and tx_line.group(0)))


def bad_warmup():
    """Bad --warmup: refused before anything runs, exit 2, said why."""
    lua = e.path("warmup.lua")
    for extra, want in ((["--warmup=soon"], "give 'auto'"),
                        (["--warmup=3", "--report-interval=2"], "not a multiple"),
                        (["--warmup=auto", "--report-interval=0"], "--report-interval=N"),
                        (["--warmup=auto", "--report-checkpoints=2"], "one or the other")):
        p = e.stampede([lua, "run", "--time=2", "--report-interval=1", *extra]
                       + e.local_opts() + e.db_opts())
        rc = p.wait(30)
        e.check(rc == 2 and want in p.text("err"),
                "%s: exit %s, %r" % (" ".join(extra), rc, p.text("err").strip()[:200]))


def main():
    e.need_sandbox()
    histograms()
    flat, _, _ = one("flat", FLAT, 8, 4, ["--rate=100", "--rate-mode=uniform"])
    e.check(flat.get("judged") is True and flat.get("steady") is True
            and flat.get("verdict", "").startswith("steady:"),
            "flat: steady (%r)" % flat.get("verdict"))
    falling, _, _ = one("falling", FALLING, 8)
    t = falling.get("tps_trend") or {}
    e.check(falling.get("steady") is False and "tps fell" in falling.get("verdict", "")
            and t.get("significant") is True and t.get("change_pct", 0) <= -20,
            "falling: not steady, tps fell (%r, trend %r)" % (falling.get("verdict"), t))
    warm, d, out = one("warmup", WARMUP, 12, extra=["--warmup=auto"])
    e.check(warm.get("warmup_intervals") in (2, 3) and 1.5 <= warm.get("warmup_s", 0) <= 3.5
            and "were warm-up" in warm.get("verdict", ""),
            "warm-up: 2 or 3 intervals (about 2 s) found: %r" % warm.get("verdict"))
    warmup_cut(warm, d, out)
    page(e.path("warmup.json"), warm)
    bad_warmup()
    e.finish()


if __name__ == "__main__":
    main()
