/* co_steady: is a run steady? From its intervals' throughput and p95:
 * the coefficient of variation of interval tps, the trend of tps and of p95
 * over the run (least-squares slope with its 95% interval, as a change in
 * % of the mean over the measured span) and the warm-up detected at its
 * start (docs/guide.md "Steady state" gives the rules and their reasons).
 *
 * The run keeps one small point per interval (co_steady_add, as each
 * interval is released: 40 bytes, however long the run) and judges them
 * once at the end (co_steady_judge). Numbers come from GSL (least squares,
 * Student's t quantile).
 */
#ifndef CO_STEADY_H
#define CO_STEADY_H

#include <stdbool.h>
#include <stdint.h>

#include "pr_counters.h"
#include "pr_hist.h"

/* One interval, as its JSON line and live line show it. */
struct co_steady_point {
    double t_s;    /* end of the interval, s since t0 */
    double len_s;  /* its length */
    double tps;    /* transactions / len_s */
    double p95_ms; /* its latency p95, ms (has_p95) */
    bool has_p95;  /* it had a transaction */
    bool partial;  /* an agent's figures are missing: left out */
};

struct co_steady_series {
    struct co_steady_point *p;
    uint32_t n, cap;
};

/* Append one interval: its counters, length and latency histogram (NULL or
 * empty: no p95). */
void co_steady_add(struct co_steady_series *s, double t_s, double len_s,
                   const struct pr_counters *ctr, const pr_hist *lat, bool partial);
void co_steady_series_clear(struct co_steady_series *s);

/* A trend: the least-squares line of a figure against time over the
 * measured intervals, as the change it makes over their span in % of the
 * figure's mean, with the 95% interval of that change (t with n-2 degrees
 * of freedom); significant when the interval excludes 0. */
struct co_trend {
    bool has;          /* at least 3 points with a positive mean */
    double change_pct; /* slope * span / mean * 100 */
    double lo_pct, hi_pct;
    bool significant;
};

/* Limits of the judgement (docs/guide.md "Steady state"). */
#define CO_STEADY_MIN_INTERVALS 5    /* fewer: not judged */
#define CO_STEADY_BAND          0.10 /* warm-up: within ±10% of the settled median */
#define CO_STEADY_STAY          0.90 /* ... for at least 90% of the later intervals */
#define CO_STEADY_WARMUP_MAX    3 /* a warm-up is at most 1/3 of the run: later, it never settled */
#define CO_STEADY_TREND_PCT     5.0  /* a significant change of 5% or more is a trend */
#define CO_STEADY_CV            0.10 /* a CV above 10% is not steady */

struct co_steady {
    bool judged;         /* enough intervals (CO_STEADY_MIN_INTERVALS), some throughput */
    bool settled;        /* tps stayed in the band from an interval of the first third on */
    uint32_t intervals;  /* intervals considered (full length, not partial) */
    uint32_t warmup_n;   /* the first warmup_n of them were warm-up */
    double warmup_s;     /* warm-up's end, s since t0 (0: none detected) */
    uint32_t measured_n; /* intervals after the warm-up */
    double tps_mean;     /* over the measured intervals */
    double tps_cv;       /* stddev / mean over the measured intervals */
    struct co_trend tps; /* over the measured intervals */
    struct co_trend p95; /* over the measured intervals that had a p95 */
    bool steady;         /* judged, settled, CV and both trends within the limits */
    char verdict[512];   /* one line: "steady: ..." / "not steady: ..." */
};

/* Judge a run from its points (in time order). */
void co_steady_judge(const struct co_steady_point *p, uint32_t n, struct co_steady *out);

#endif
