/* co_rpt_gate: stampede report --fail-if, a regression gate for CI jobs
 * (docs/guide.md "Regression gates").
 *
 * --fail-if=FIGURE<-X% fails when the last group (or file) falls more than
 * X% below the baseline's (the first group, or --baseline=FILE); FIGURE>+X%
 * when it rises more than X% (a latency). FIGURE: tps, qps, p95, p99, tpmC.
 * With two or more runs on each side only a significant change fails
 * (Welch p < 0.05, co_rpt_stats); with one run on a side, the difference
 * alone decides (said so in the output). --junit=FILE writes each gate as a
 * JUnit test case, which CI systems display. */
#ifndef CO_RPT_GATE_H
#define CO_RPT_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "co_rpt_groups.h"
#include "pr_err.h"

struct co_rpt_gate {
    const char *expr;   /* as given (borrowed from argv) */
    const char *path;   /* the figure's JSON path */
    bool higher_better; /* tps, qps, tpmC */
    bool below;         /* '<': fails on a fall below -limit; '>': on a rise above +limit */
    double limit;       /* the % change that fails, signed as written */
    /* the outcome */
    bool evaluated, failed, significant_needed;
    double pct, p;
    char why[256];
};

/* Parse expr ("tps<-5%") into g. 0, or PR_EINVAL with err. */
int co_rpt_gate_parse(const char *expr, struct co_rpt_gate *g, struct pr_error *err);

/* Evaluate every gate: the last group against the first. */
void co_rpt_gates_eval(struct co_rpt_gate *g, size_t n, const struct co_rpt_group *groups,
                       size_t ng);

/* "Gates:" lines to out; returns how many failed. */
size_t co_rpt_gates_text(FILE *out, const struct co_rpt_gate *g, size_t n);

/* The JUnit XML of the gates to f (pr_write_atomic's writer shape). */
int co_rpt_gates_junit(FILE *f, const struct co_rpt_gate *g, size_t n);

#endif
