#!/usr/bin/python3
"""unit: co_steady (coordinator/core/co_steady.c) against SciPy.

steady_drive prints co_steady_judge's figures for points on stdin. For each
data set this test computes them again with SciPy (scipy.stats.linregress
for the least-squares slope and its standard error, scipy.stats.t.ppf for
the 95% quantile, numpy for the mean and sample standard deviation) and the
rules of docs/guide.md "Steady state" written anew here (which intervals
count, where the warm-up ends, what is steady), and compares them to 1e-9.
Known shapes are also checked by meaning: a falling run is not steady and
says "tps fell", a ramp is found as warm-up, a flat one is steady.
usage: test_co_steady.py STEADY_DRIVE
"""
import subprocess
import sys

import numpy as np
from scipy import stats

BAND, STAY, TREND_PCT, CV, MIN_N, WARMUP_MAX = 0.10, 0.90, 5.0, 0.10, 5, 3
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed += 1


def close(a, b):
    """Equal to 1e-7: GSL's and SciPy's t quantiles agree to about 1e-9."""
    return abs(a - b) <= 1e-7 * max(1.0, abs(a), abs(b))


def run(drive, pts):
    text = "".join("%.17g %.17g %.17g %.17g %d\n" % p for p in pts)
    out = subprocess.run([drive], input=text, capture_output=True, text=True, check=True).stdout
    line, verdict = out.split("\n")[0], out.split("\n")[1]
    got = {}
    for kv in line.split():
        k, v = kv.split("=", 1)
        got[k] = v
    got["verdict"] = verdict[len("verdict="):]
    return got


def trend(x, y):
    """(change_pct, lo, hi, significant) or None, by SciPy."""
    if len(x) < 3 or not np.mean(y) > 0:
        return None
    r = stats.linregress(x, y)
    span, mean = x[-1] - x[0], np.mean(y)
    q = stats.t.ppf(0.975, len(x) - 2)
    lo = (r.slope - q * r.stderr) * span / mean * 100
    hi = (r.slope + q * r.stderr) * span / mean * 100
    return (r.slope * span / mean * 100, lo, hi, lo > 0 or hi < 0)


def expected(pts):
    longest = max([p[1] for p in pts] + [0])
    q = [p for p in pts if not p[4] and p[1] > 0 and p[1] >= 0.5 * longest]
    e = {"intervals": len(q), "judged": len(q) >= MIN_N and any(p[2] > 0 for p in q)}
    if not e["judged"]:
        return e
    m = len(q)
    centre = float(np.median([p[2] for p in q[m // 2:]]))
    inb = [abs(p[2] - centre) <= BAND * centre for p in q]
    k0, settled = 0, False
    for k in range(min(m // WARMUP_MAX + 1, m)):
        if inb[k] and sum(inb[k:]) >= STAY * (m - k):
            k0, settled = k, True
            break
    e["warmup_n"] = k0
    e["warmup_s"] = q[k0][0] - q[k0][1] if k0 else 0.0
    meas = q[k0:]
    tps = np.array([p[2] for p in meas])
    e["mean"] = float(np.mean(tps))
    e["cv"] = float(np.std(tps, ddof=1) / e["mean"]) if len(tps) > 1 and e["mean"] > 0 else 0.0
    x = np.array([p[0] - p[1] / 2 for p in meas])
    e["tps"] = trend(x, tps)
    withp = [p for p in meas if p[3] >= 0]
    e["p95"] = trend(np.array([p[0] - p[1] / 2 for p in withp]), np.array([p[3] for p in withp]))

    def is_trend(t):
        return t is not None and t[3] and abs(t[0]) >= TREND_PCT

    e["steady"] = settled and e["cv"] <= CV and not is_trend(e["tps"]) and not is_trend(e["p95"])
    return e


def compare(name, got, e):
    ok = int(got["judged"]) == e["judged"] and int(got["intervals"]) == e["intervals"]
    why = "judged %s/%s intervals %s/%s" % (got["judged"], e["judged"], got["intervals"],
                                             e["intervals"])
    if ok and e["judged"]:
        ok = (int(got["steady"]) == e["steady"] and int(got["warmup_n"]) == e["warmup_n"]
              and close(float(got["warmup_s"]), e["warmup_s"])
              and close(float(got["mean"]), e["mean"]) and close(float(got["cv"]), e["cv"]))
        why += "; steady %s/%s warmup %s/%s mean %s/%r cv %s/%r" % (
            got["steady"], e["steady"], got["warmup_n"], e["warmup_n"], got["mean"], e["mean"],
            got["cv"], e["cv"])
        for key in ("tps", "p95"):
            t = e[key]
            if t is None:
                ok = ok and got[key] == "none"
                why += "; %s none/%s" % (key, got[key])
                continue
            g = got[key].split(",")
            ok = ok and g[0] != "none" and all(close(float(g[i]), t[i]) for i in range(3)) \
                and int(g[3]) == t[3]
            why += "; %s %s vs scipy %r" % (key, got[key], t)
    check(ok, "%s: %s" % (name, why))
    return ok


def series(tps, p95, length=1.0, start=0.0):
    return [(start + (i + 1) * length, length, float(tps[i]), float(p95[i]), 0)
            for i in range(len(tps))]


def main():
    drive = sys.argv[1]
    rng = np.random.default_rng(20261204)
    n = 60
    sets = {}
    sets["flat"] = series(rng.normal(1000, 20, n), rng.normal(5, 0.1, n))
    sets["falling"] = series(1000 - 5 * np.arange(n) + rng.normal(0, 15, n),
                             rng.normal(5, 0.1, n))
    ramp = np.concatenate([np.linspace(200, 800, 10), rng.normal(1000, 15, n - 10)])
    sets["warm-up"] = series(ramp, rng.normal(5, 0.1, n))
    sets["p95 rising"] = series(rng.normal(1000, 10, n), 5 + 0.05 * np.arange(n)
                                + rng.normal(0, 0.05, n))
    sets["jumpy"] = series(np.where(np.arange(n) % 2 == 0, 500.0, 1500.0), np.full(n, 5.0))
    sets["too few"] = series([10.0, 11, 12, 13], [1.0, 1, 1, 1])
    tail = series(rng.normal(800, 10, 20), rng.normal(3, 0.05, 20), length=2.0)
    tail.append((40.7, 0.7, 300.0, 9.0, 0))  # a short last interval: left out
    tail[5] = tail[5][:4] + (1,)  # a partial one: left out
    sets["tail and partial"] = tail
    nop95 = series(rng.normal(500, 5, 30), rng.normal(2, 0.02, 30))
    for i in (3, 7, 20):
        nop95[i] = nop95[i][:3] + (-1.0, 0)
    sets["intervals without a p95"] = nop95
    sets["random walk"] = series(1000 + np.cumsum(rng.normal(0, 20, n)), rng.normal(5, 0.2, n))
    sets["zero throughput"] = series(np.zeros(10), np.full(10, -1.0))
    got = {}
    for name, pts in sets.items():
        got[name] = run(drive, pts)
        compare(name, got[name], expected(pts))
        print("     verdict: " + got[name]["verdict"])
    check(got["flat"]["steady"] == "1" and got["flat"]["verdict"].startswith("steady:"),
          "a flat run is steady")
    check(got["falling"]["steady"] == "0" and "tps fell" in got["falling"]["verdict"],
          "a falling run says tps fell")
    check(got["warm-up"]["warmup_n"] == "10" and "the first 10 s were warm-up" in
          got["warm-up"]["verdict"], "a 10 s ramp is the warm-up")
    check("p95 rose" in got["p95 rising"]["verdict"], "a rising p95 is named")
    check("CV" in got["jumpy"]["verdict"] and got["jumpy"]["steady"] == "0",
          "a jumpy run is not steady")
    check(got["too few"]["judged"] == "0" and "not judged" in got["too few"]["verdict"],
          "4 intervals are not judged")
    check(got["falling"]["warmup_n"] == "0" and "did not settle" in got["falling"]["verdict"],
          "a falling run is not taken for a long warm-up")
    check(got["zero throughput"]["judged"] == "0" and "no transaction" in
          got["zero throughput"]["verdict"], "a run without transactions is not judged")
    check(got["tail and partial"]["intervals"] == "19", "the short tail and the partial interval "
          "are left out (19 of 21)")
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
