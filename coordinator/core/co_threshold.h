/* co_threshold: --threshold=EXPR, a pass/fail criterion on a run's
 * measured figures, for CI pipelines (docs/guide.md "Thresholds").
 *
 * EXPR is [KIND.]METRIC OP VALUE[UNIT], OP one of < <= > >=:
 *   tps, qps             per second over the run (the summary's figures)
 *   events               the run's transactions (a kind's: its count)
 *   errors               ignored errors per second; with '%': per 100
 *                        transactions (a kind's: per 100 of its statements)
 *   reconnects           the run's reconnects (count)
 *   min avg max p50 p90 p95 p99 p99.9 (or pNN.N)
 *                        latency, VALUE in ms unless UNIT is us, ms or s
 *   tpmC                 a tpcc run's tpmC (its summary's; not measured in
 *                        other runs)
 * KIND. names one statement kind of the run's per-kind figures (a sysbench
 * kind, a Lua script's kind, a TPC-C transaction type): point_selects.p99,
 * new_order.p90. The figures are read from the same totals and histograms
 * that the summary and the JSON print (co_result), never recomputed
 * otherwise. Parsed once, by the command line (cli/); evaluated at the end
 * of the run (co_threshold_eval), and with --abort-on-threshold also on
 * the figures so far at each interval (co_threshold_live says which).
 */
#ifndef CO_THRESHOLD_H
#define CO_THRESHOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "pr_err.h"

struct co_result;

enum co_thr_metric {
    CO_THR_TPS,
    CO_THR_QPS,
    CO_THR_EVENTS,
    CO_THR_ERRORS,     /* per second */
    CO_THR_ERRORS_PCT, /* per 100 transactions */
    CO_THR_RECONNECTS,
    CO_THR_LATENCY, /* pct: the percentile, or CO_THR_MIN/AVG/MAX */
    CO_THR_TPMC,    /* TPC-C's New-Orders per minute (the family's figure "tpmC") */
};
#define CO_THR_MIN (-1.0)
#define CO_THR_AVG (-2.0)
#define CO_THR_MAX (-3.0)

enum co_thr_op { CO_THR_LT, CO_THR_LE, CO_THR_GT, CO_THR_GE };

struct co_threshold {
    char *expr; /* as given */
    char *kind; /* NULL: the whole run */
    enum co_thr_metric metric;
    double pct; /* CO_THR_LATENCY: 0..100, or CO_THR_MIN/AVG/MAX */
    enum co_thr_op op;
    double limit; /* in the metric's unit: ms for latencies, % for errors% */
};

/* The outcome of one threshold on one run. */
struct co_thr_result {
    const struct co_threshold *t; /* borrowed from the configuration */
    bool measured;                /* the figure exists (the kind ran, a latency was recorded) */
    double value;                 /* in the threshold's unit */
    bool passed;                  /* measured and the comparison holds */
    bool window;                  /* a kind's figure over its family's measured window
                                     (co_family_summary.kind_window), not the whole run */
};

/* Parse expr into *t (its strings owned, co_threshold_clear). 0, or
 * PR_EINVAL with err saying what is wrong in expr and how to write it. */
int co_threshold_parse(const char *expr, struct co_threshold *t, struct pr_error *err);
void co_threshold_clear(struct co_threshold *t);

/* The figure t names in r, and whether it passes. */
struct co_thr_result co_threshold_eval(const struct co_threshold *t, const struct co_result *r);

/* Whether t can be judged on the figures so far, before the run ends
 * (--abort-on-threshold): a whole-run figure, and not a lower bound on a
 * count (events>=N, reconnects>N: they only grow, so only the end can
 * tell), nor tpmC (its family's figure over the measured window). A
 * kind's figures are judged on the released intervals' kinds summed so
 * far (co_live). */
bool co_threshold_live(const struct co_threshold *t);

/* The unit a threshold's value is in ("ms", "tps", "qps", "/s", "%", ""). */
const char *co_threshold_unit(const struct co_threshold *t);

/* The metric's name as in EXPR ("p99", "tps", "errors%" ...), into buf. */
const char *co_threshold_metric_name(const struct co_threshold *t, char *buf, size_t len);

#endif
