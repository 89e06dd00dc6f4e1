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
    return s


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


def main():
    e.need_sandbox()
    histograms()
    flat = one("flat", FLAT, 8, 4, ["--rate=100", "--rate-mode=uniform"])
    e.check(flat.get("judged") is True and flat.get("steady") is True
            and flat.get("verdict", "").startswith("steady:"),
            "flat: steady (%r)" % flat.get("verdict"))
    falling = one("falling", FALLING, 8)
    t = falling.get("tps_trend") or {}
    e.check(falling.get("steady") is False and "tps fell" in falling.get("verdict", "")
            and t.get("significant") is True and t.get("change_pct", 0) <= -20,
            "falling: not steady, tps fell (%r, trend %r)" % (falling.get("verdict"), t))
    warm = one("warmup", WARMUP, 12)
    e.check(warm.get("warmup_intervals") in (2, 3) and 1.5 <= warm.get("warmup_s", 0) <= 3.5
            and "were warm-up" in warm.get("verdict", ""),
            "warm-up: 2 or 3 intervals (about 2 s) found: %r" % warm.get("verdict"))
    page(e.path("warmup.json"), warm)
    e.finish()


if __name__ == "__main__":
    main()
