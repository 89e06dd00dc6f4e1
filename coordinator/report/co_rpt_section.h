/* co_rpt_section: the HTML of one run's and one sweep's section of the
 * report. Internal to co_rpt_html. Thread: the caller's. */
#ifndef CO_RPT_SECTION_H
#define CO_RPT_SECTION_H

#include <stddef.h>
#include <stdio.h>

#include "co_rpt_load.h"

/* Run run's section; n is its index among the runs (the canvases'
 * ids: tput-n, srv-n, lat-n, agents-n, spec-n). */
void co__rpt_run(FILE *f, const struct co_rpt_file *run, size_t n);

/* A sweep's section; n its index among the sweeps (sweep-n-tps,
 * sweep-n-p95_ms). */
void co__rpt_sweep(FILE *f, const struct co_rpt_file *sweep, size_t n);

#endif
