/* co_rpt_section: the HTML of one run's and one sweep's section of the
 * report, and the small writers the page shares. Internal to
 * co_rpt_html. Thread: the caller's. */
#ifndef CO_RPT_SECTION_H
#define CO_RPT_SECTION_H

#include <stddef.h>
#include <stdio.h>

#include "co_rpt_load.h"

/* s with &, <, >, " escaped (NULL writes nothing). */
void co__rpt_esc(FILE *f, const char *s);

/* A cell with v to decimals digits ("-" when not finite), data-k="key". */
void co__rpt_td_num(FILE *f, const char *key, double v, int decimals);

/* A cell with s escaped. */
void co__rpt_td_str(FILE *f, const char *s);

/* A heading and a canvas with id for the page's script to draw on. */
void co__rpt_canvas(FILE *f, const char *id, const char *title);

/* Run run's section; n is its index among the runs (the canvases'
 * ids: tput-n, srv-n, lat-n, agents-n, spec-n). */
void co__rpt_run(FILE *f, const struct co_rpt_file *run, size_t n);

/* A sweep's section; n its index among the sweeps (sweep-n-tps,
 * sweep-n-p95_ms). */
void co__rpt_sweep(FILE *f, const struct co_rpt_file *sweep, size_t n);

#endif
