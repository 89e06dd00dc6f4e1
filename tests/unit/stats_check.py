#!/usr/bin/python3
"""unit: co_rpt_stats (coordinator/report/co_rpt_stats.c) against R and SciPy.

stats_drive prints the module's figures for fixed data sets (ties and none,
n from 2 to 60, skewed, equal means, a clear difference); each is compared
with:
  - R (Rscript, Debian r-base-core): t.test(b, a) for Welch's t, df, p and
    the 95% interval of the difference; wilcox.test(a, b) for W and p (exact
    without ties and n < 50, else the normal approximation with continuity
    correction), t.test(a) for the interval of a's mean;
  - SciPy: ttest_ind(b, a, equal_var=False) and mannwhitneyu(a, b) for the
    same p-values, numpy for mean, median and stddev, and
    scipy.stats.bootstrap (percentile, 20000 resamples) for the interval of
    the ratio of medians, which (random resamples on both sides) agrees to
    within 3% rather than exactly;
to 1e-7 relative (GSL's and R's distribution functions agree to ~1e-10).
A missing Rscript or SciPy fails the test.
usage: stats_check.py STATS_DRIVE
"""
import subprocess
import sys

import numpy as np
from scipy import stats

failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def close(a, b, rel=1e-7):
    return abs(a - b) <= rel * max(1e-12, abs(a), abs(b)) or (np.isnan(a) and np.isnan(b))


def rvals(a, b, exact):
    """R's figures for a and b."""
    va, vb = ",".join(repr(x) for x in a), ",".join(repr(x) for x in b)
    code = ("a <- c(%s); b <- c(%s); t <- t.test(b, a); w <- suppressWarnings(wilcox.test(a, b, "
            "exact=%s, correct=TRUE)); m <- t.test(a); cat(sprintf('%%.17g', c(t$statistic, "
            "t$parameter, t$p.value, t$conf.int[1], t$conf.int[2], w$statistic, w$p.value, "
            "m$conf.int[1], m$conf.int[2])), '\\n')" % (va, vb, "TRUE" if exact else "FALSE"))
    out = subprocess.run(["Rscript", "--vanilla", "-e", code], capture_output=True, text=True,
                         check=True).stdout.split()
    return [float(x) for x in out]


def main():
    drive = sys.argv[1]
    rng = np.random.default_rng(28)
    sets = {
        "n=3 clear": ([1000.0, 1010.0, 995.0], [1041.0, 1050.0, 1038.0]),
        "n=3 same": ([1000.0, 1010.0, 995.0], [1003.0, 998.0, 1007.0]),
        "n=2": ([5.1, 5.3], [5.0, 5.6]),
        "ties": ([1.0, 2.0, 2.0, 3.0, 4.0], [2.0, 3.0, 3.0, 5.0, 6.0, 7.0]),
        "n=10 normal": (list(rng.normal(500, 10, 10)), list(rng.normal(510, 10, 10))),
        "n=20 skewed": (list(rng.lognormal(1.0, 0.6, 20)), list(rng.lognormal(1.1, 0.6, 20))),
        "n=60 large": (list(rng.normal(100, 5, 60)), list(rng.normal(101, 5, 55))),
        "unequal n": (list(rng.normal(20, 1, 4)), list(rng.normal(22, 3, 9))),
    }
    text = "".join(" ".join(repr(x) for x in a) + " | " + " ".join(repr(x) for x in b) + "\n"
                   for a, b in sets.values())
    out = subprocess.run([drive], input=text, capture_output=True, text=True, check=True).stdout
    for (name, (a, b)), line in zip(sets.items(), out.splitlines()):
        g = {k: float(v) for k, v in (kv.split("=") for kv in line.split())}
        A, B = np.array(a), np.array(b)
        exact = bool(g["exact"])
        r = rvals(a, b, exact)
        ok = (close(g["mean"], A.mean()) and close(g["median"], float(np.median(A)))
              and close(g["sd"], A.std(ddof=1)) and close(g["ci_lo"], r[7])
              and close(g["ci_hi"], r[8]))
        check(ok, "%s: a's mean %.6g median %.6g sd %.6g CI [%.6g, %.6g] (R [%.6g, %.6g])"
              % (name, g["mean"], g["median"], g["sd"], g["ci_lo"], g["ci_hi"], r[7], r[8]))
        sp = stats.ttest_ind(B, A, equal_var=False)
        ok = (g["w_ok"] == 1 and close(g["t"], r[0]) and close(g["df"], r[1])
              and close(g["w_p"], r[2]) and close(g["w_lo"], r[3]) and close(g["w_hi"], r[4])
              and close(g["w_p"], sp.pvalue) and close(g["diff"], B.mean() - A.mean()))
        check(ok, "%s: Welch t %.6g df %.6g p %.6g CI [%.6g, %.6g] (R t %.6g df %.6g p %.6g "
              "CI [%.6g, %.6g]; SciPy p %.6g)" % (name, g["t"], g["df"], g["w_p"], g["w_lo"],
                                                  g["w_hi"], r[0], r[1], r[2], r[3], r[4],
                                                  sp.pvalue))
        mw = stats.mannwhitneyu(A, B, alternative="two-sided",
                                method="exact" if exact else "asymptotic", use_continuity=True)
        ok = close(g["u"], r[5]) and close(g["mw_p"], r[6]) and close(g["u"], mw.statistic) \
            and close(g["mw_p"], mw.pvalue)
        check(ok, "%s: Mann-Whitney U %.6g p %.6g (%s) (R W %.6g p %.6g; SciPy U %.6g p %.6g)"
              % (name, g["u"], g["mw_p"], "exact" if exact else "normal", r[5], r[6],
                 mw.statistic, mw.pvalue))
        if len(a) >= 3 and len(b) >= 3:
            bs = stats.bootstrap((A, B), lambda x, y, axis=-1: np.median(y, axis=axis)
                                 / np.median(x, axis=axis), vectorized=True, paired=False,
                                 n_resamples=20000, method="percentile",
                                 random_state=np.random.default_rng(1))
            lo, hi = bs.confidence_interval.low, bs.confidence_interval.high
            ratio = float(np.median(B) / np.median(A))
            ok = close(g["ratio"], ratio) and close(g["b_lo"], lo, 0.03) \
                and close(g["b_hi"], hi, 0.03) and g["b_lo"] <= ratio <= g["b_hi"]
            check(ok, "%s: ratio of medians %.6g, bootstrap [%.6g, %.6g] (SciPy [%.6g, %.6g])"
                  % (name, g["ratio"], g["b_lo"], g["b_hi"], lo, hi))
    again = subprocess.run([drive], input=text, capture_output=True, text=True,
                           check=True).stdout
    check(again == out, "the same data give the same figures (the bootstrap is seeded)")
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
