/* co_rpt_text: the plain-text report: the comparison table of the runs
 * given (tps, qps, p95, p99, max, errors/s, each with its ratio to the
 * first run), as a Markdown pipe table with aligned columns (pastes into a
 * wiki), then the environment lines that differ ("NAME  1 → 2"). A sweep
 * file prints its per-point summary. Also the metric list the HTML
 * comparison shares. Thread: the caller's.
 */
#ifndef CO_RPT_TEXT_H
#define CO_RPT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "co_rpt_load.h"

/* One compared figure of a run's totals. */
struct co_rpt_metric {
    const char *head; /* column heading */
    const char *path; /* dotted path in the run JSON */
    int decimals;     /* digits after the point when shown */
};

extern const struct co_rpt_metric co_rpt_metrics[];
extern const size_t co_rpt_n_metrics;

/* Print a sweep JSON's per-point summary table, headed "Sweep LABEL:". */
void co_rpt_text_sweep(FILE *out, const json_t *sweep, const char *label);

/* Print the report of files[0..n) to out. 0, or -1 on a write error. */
int co_rpt_text_write(FILE *out, const struct co_rpt_file *files, size_t n);

#endif
