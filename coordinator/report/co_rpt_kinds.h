/* co_rpt_kinds: the report's per-kind parts and the families' own
 * sections (README "Reports and comparisons"). Per run: a table of each
 * kind's whole-run figures (totals.kinds: count, errors, avg, p95, p99,
 * max), a chart of each kind's p95 and p99 over time (intervals[].kinds),
 * and the tables of each family whose --json member the run has
 * (co_rpt_family.h: the tpcc family's tpmC and per-transaction-type
 * figures). With several runs: the families' comparisons and a per-kind
 * comparison, with the ratio to the first run. A run without kinds or a
 * family member gets nothing.
 * Thread: the caller's; writes only to the FILE given.
 */
#ifndef CO_RPT_KINDS_H
#define CO_RPT_KINDS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "co_rpt_load.h"

/* Add "kinds" ({name: {"p95": [...], "p99": [...]}}, one entry per
 * interval, null where the interval lacks the kind) to the run's chart
 * data r. */
void co__rpt_kinds_data(json_t *r, const struct co_rpt_file *run);

/* Run n's per-kind table and chart canvas and its families' tables. */
void co__rpt_kinds_run(FILE *f, const struct co_rpt_file *run, size_t n);

/* The families' and the per-kind comparisons of n runs (n > 1), each
 * only when a run has the family's member / kinds. */
void co__rpt_kinds_cmp(FILE *f, const struct co_rpt_file **runs, size_t n);

/* Each family's sweep section (co_rpt_family.sweep_html: the tpcc
 * family's tpmC per point); nothing for a sweep without a headline. */
void co__rpt_kinds_sweep(FILE *f, const struct co_rpt_file *sweep, size_t n);

/* The page script drawing the per-kind charts (after co__rpt_js); it
 * declares KSER and KUNIT for the families' scripts (co_rpt_family.h). */
extern const char co__rpt_kinds_js[];

#endif
