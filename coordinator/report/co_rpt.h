/* co_rpt: `stampede report FILE.json [FILE.json ...] [-o report.html]`.
 *
 * Reads every file (co_rpt_load.h; any bad one: its name and problem on
 * stderr, exit 1, nothing written), then either writes one self-contained
 * HTML page (co_rpt_html.h: Chart.js inlined, no URL fetched at view
 * time; written to FILE.tmp and renamed) or, without -o, prints the
 * comparison table and the environment diff as text on stdout
 * (co_rpt_text.h). Thread: the caller's.
 */
#ifndef CO_RPT_H
#define CO_RPT_H

#include <stddef.h>

#include "co_rpt_load.h"

/* argv[0] is "report". Returns the process exit status: 0, 1 (bad input
 * or an output that cannot be written), 2 (usage). */
int co_rpt_main(int argc, char **argv);

#endif
