/* co_rpt_page: the constant parts of the report page: its style sheet and
 * the script that hands the figures (the JSON block "stampede-data") to
 * Chart.js. Internal to co_rpt_html. */
#ifndef CO_RPT_PAGE_H
#define CO_RPT_PAGE_H

extern const char co__rpt_css[];
extern const char co__rpt_js[];
extern const char co__rpt_runs_js[];  /* after co__rpt_js */
extern const char co__rpt_sweep_js[]; /* after co__rpt_runs_js */

#endif
