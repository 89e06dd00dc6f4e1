/* co_rpt_series: the report's per-kind and per-transaction-type figures
 * over time (README "Reports and comparisons"), drawn from the run JSON's
 * intervals[].kinds (count and latency per statement kind per interval).
 *
 * One run: each agent's tps and p95 over time (intervals[].per_agent;
 * agent-tps-N, agent-p95-N), each kind's count per second over time (chart krate-N); for a
 * tpcc run also each transaction type's rate per minute over time
 * (new_order's is tpmC over time; tc-rate-N) and its p95 over time
 * (tc-p95-N). Several runs: the same overlaid run by run, one small chart
 * per kind (cmp-krate-I), tpmC over time (cmp-tpmc) and one chart per
 * transaction type for its rate and its p95 (cmp-tc-rate-T, cmp-tc-p95-T).
 *
 * An interval that has kinds but not a given one counted none of it (the
 * JSON leaves unused kinds out): its rate is 0; its latency is null. An
 * interval without kinds is null throughout. The series cover the whole
 * run, the warm-up included: tpcc's tpmC in the tables counts the
 * measured window only.
 *
 * Internal to co_rpt_html. Thread: the caller's; writes only to the FILE
 * given.
 */
#ifndef CO_RPT_SERIES_H
#define CO_RPT_SERIES_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "co_rpt_load.h"

/* Add to the run's chart data r: "agent_t" (per agent, agents[] order:
 * {"tps": [...], "p95": [...]} from intervals[].per_agent; absent when the
 * JSON has none), "krate" ({kind: [per second, one entry per interval]})
 * and, for a tpcc run, "tc" ({type: {"rate": [per
 * minute], "p95": [ms]}} for the five transaction types it has). */
void co__rpt_series_data(json_t *r, const struct co_rpt_file *run);

/* Run n's canvases: krate-n when it has kinds, tc-rate-n and tc-p95-n
 * when it is a tpcc run. */
void co__rpt_series_run(FILE *f, const struct co_rpt_file *run, size_t n);

/* Run n's per-agent series canvases (agent-tps-n, agent-p95-n) when its
 * intervals carry per_agent figures; else a note that the JSON (an older
 * one) has per-agent totals only. */
void co__rpt_series_agents(FILE *f, const struct co_rpt_file *run, size_t n);

/* The overlaid canvases for n runs (n > 1): one per kind any run has
 * (data-what="krate", data-kind=NAME), and for tpcc runs cmp-tpmc and one
 * per transaction type (data-what="tc-rate" / "tc-p95"). */
void co__rpt_series_cmp(FILE *f, const struct co_rpt_file **runs, size_t n);

/* The page script drawing them (after co__rpt_js). */
extern const char co__rpt_series_js[];

#endif
