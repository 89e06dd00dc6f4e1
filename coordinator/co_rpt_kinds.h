/* co_rpt_kinds: the report's per-kind and TPC-C parts (README "Reports and
 * comparisons"). Per run: a table of each kind's whole-run figures
 * (totals.kinds: count, errors, avg, p95, p99, max), a chart of each
 * kind's p95 and p99 over time (intervals[].kinds), and for a tpcc run
 * its tpmC and per-transaction-type figures (the "tpcc" object). With
 * several runs: a per-kind comparison and a tpmC comparison, each with
 * the ratio to the first run. A run without kinds or tpcc gets nothing.
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

/* Run n's per-kind table and chart canvas and its TPC-C table. */
void co__rpt_kinds_run(FILE *f, const struct co_rpt_file *run, size_t n);

/* The per-kind and tpmC comparisons of n runs (n > 1), each only when a
 * run has kinds / a tpcc object. */
void co__rpt_kinds_cmp(FILE *f, const struct co_rpt_file **runs, size_t n);

/* A tpcc sweep's tpmC per point (table and chart canvas); nothing for
 * a sweep without tpmC. */
void co__rpt_kinds_sweep(FILE *f, const struct co_rpt_file *sweep, size_t n);

/* The five TPC-C transaction types, as the "tpcc" object and the kinds
 * name them, in tpcc-mysql's order. */
#define CO__RPT_N_TC_TYPES 5
extern const char *const co__rpt_tc_types[CO__RPT_N_TC_TYPES];

/* The page script drawing the per-kind charts (after co__rpt_js). */
extern const char co__rpt_kinds_js[];

#endif
