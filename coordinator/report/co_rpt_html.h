/* co_rpt_html: the report as one self-contained HTML page.
 *
 * Chart.js (Debian libjs-chart.js, CO_RPT_CHARTJS) is read at report time
 * and inlined, with the figures as one JSON block the page's script hands
 * to Chart.js: nothing is fetched when the page is viewed. Sections: the
 * comparison table (ratios to the first run), the groups compared (with
 * --group) and, for several runs, the
 * environment diff and overlaid throughput, p95 and spectra; per run: its
 * throughput (late and partial intervals marked), the server status rates
 * (when the JSON has intervals[].server_status), latency over time, per
 * agent totals (the JSON holds no per-agent time series), the percentile
 * spectrum (coarse: from the JSON's p50..p99.9 and max), the agents
 * table, the server cross-check, the environment and the options; per
 * sweep: throughput and p95 against threads with min-max bars.
 * Thread: the caller's.
 */
#ifndef CO_RPT_HTML_H
#define CO_RPT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "co_rpt_load.h"

/* Chart.js's text, read from path (CO_RPT_CHARTJS by default). Caller
 * frees; NULL with err naming the file and the package to install. */
char *co_rpt_html_chartjs(const char *path, struct pr_error *err);

/* Write the page for files[0..n) to f, chartjs inlined; groups: the
 * groups' comparison (co_rpt_groups_json) for its section, or NULL. 0 or
 * -EIO. */
int co_rpt_html_write(FILE *f, const struct co_rpt_file *files, size_t n, const char *chartjs,
                      const json_t *groups);

/* The figures d as the page's JSON block "stampede-data", which the page's
 * script reads; escaped so that nothing in it can end the block early. */
void co_rpt_html_data(FILE *f, const json_t *d);

#endif
