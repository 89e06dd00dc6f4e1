/* co_rpt_capacity: `stampede report` of a capacity search's JSON (the file
 * `run --find-capacity --json=FILE` writes; kind "capacity", its keys in
 * docs/reference.md "Capacity JSON"): the capacity with its bracket and
 * every step as text, or as one HTML page with the steps table and the
 * rate -> latency curve (p50/p95/p99 per offered rate, the steps that met
 * the SLO and those that missed marked, the SLO's latency bound and the
 * capacity drawn as lines). Every figure is the JSON's; nothing is
 * re-measured or derived but the sort by rate for the curve.
 * Thread: the caller's; writes only to the FILE given.
 */
#ifndef CO_RPT_CAPACITY_H
#define CO_RPT_CAPACITY_H

#include <stdio.h>

#include "co_rpt_load.h"

/* The text report of f (kind CO_RPT_CAPACITY) to out. 0 or -EIO. */
int co_rpt_capacity_text(FILE *out, const struct co_rpt_file *f);

/* The HTML page of f to out, chartjs inlined. 0 or -EIO. */
int co_rpt_capacity_html(FILE *out, const struct co_rpt_file *f, const char *chartjs);

#endif
