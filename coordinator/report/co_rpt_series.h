/* co_rpt_series: the report's per-kind series over time (README
 * "Reports and comparisons"), drawn from the run JSON's intervals[].kinds
 * (count and latency per statement kind per interval), and the families'
 * series (co_rpt_family.h: the tpcc family's rate per minute and p95 per
 * transaction type).
 *
 * One run: each agent's tps and p95 over time (intervals[].per_agent;
 * agent-tps-N, agent-p95-N), each kind's count per second over time
 * (chart krate-N), then each family's canvases. Several runs: the same
 * overlaid run by run, the families' overlaid canvases, then one small
 * chart per kind (cmp-krate-I).
 *
 * An interval that has kinds but not a given one counted none of it (the
 * JSON leaves unused kinds out): its rate is 0; its latency is null. An
 * interval without kinds is null throughout. The series cover the whole
 * run, the warm-up included.
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
 * and each family's own (co_rpt_family.series_data; tpcc: "tc"). */
void co__rpt_series_data(json_t *r, const struct co_rpt_file *run);

/* Run n's canvases: krate-n when it has kinds, then its families'. */
void co__rpt_series_run(FILE *f, const struct co_rpt_file *run, size_t n);

/* Run n's per-agent series canvases (agent-tps-n, agent-p95-n) when its
 * intervals carry per_agent figures; else a note that the JSON (an older
 * one) has per-agent totals only. */
void co__rpt_series_agents(FILE *f, const struct co_rpt_file *run, size_t n);

/* The overlaid canvases for n runs (n > 1): the families' (a family's
 * run is in the set), then one per kind any run has (data-what="krate",
 * data-kind=NAME). */
void co__rpt_series_cmp(FILE *f, const struct co_rpt_file **runs, size_t n);

/* The page script drawing them (after co__rpt_js). */
extern const char co__rpt_series_js[];

#endif
