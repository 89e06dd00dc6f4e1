/* co_rpt_draw: the small pieces every part of the report draws with, the
 * families' parts included (co_rpt_family.h): a figure as text, the HTML
 * page's cells and canvases, and the chart data's series over time. The
 * bottom of the report tool: it includes none of its other modules but
 * co_rpt_load.
 *
 * Family-facing: a family's report part (the tpcc family's co_tc_rpt.c)
 * writes its tables and canvases and builds its series with these, so
 * they look and behave like the generic ones.
 * Thread: the caller's; the writers write only to the FILE given.
 */
#ifndef CO_RPT_DRAW_H
#define CO_RPT_DRAW_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "co_rpt_load.h"

/* v with decimals digits, or "-" when not finite. buf is returned. */
char *co_rpt_fmt(char *buf, size_t len, double v, int decimals);

/* The ratio v / first as text ("1.000"), or "-". buf is returned. */
char *co_rpt_fmt_ratio(char *buf, size_t len, double v, double first);

/* s with &, <, >, " escaped (NULL writes nothing). */
void co_rpt_esc(FILE *f, const char *s);

/* A table cell with v to decimals digits ("-" when not finite), marked
 * data-k="key" for the page's tests and scripts. key is written as is. */
void co_rpt_td_num(FILE *f, const char *key, double v, int decimals);

/* A table cell with s escaped. */
void co_rpt_td_str(FILE *f, const char *s);

/* A table cell with the ratio v / first (co_rpt_fmt_ratio). */
void co_rpt_td_ratio(FILE *f, double v, double first);

/* A heading (title, written as is) and a canvas with id for the page's
 * script to draw on. */
void co_rpt_canvas(FILE *f, const char *id, const char *title);

/* A small chart of the overlaid grid of several runs: its id, which
 * series the page's script draws (series: "krate", or a family's KSER
 * key, co_rpt_family.js) for which kind, under a title of the kind's name
 * (escaped) and unit. */
void co_rpt_grid_canvas(FILE *f, const char *id, const char *series, const char *kind,
                        const char *unit);

/* The number at a dotted path under obj (co_rpt_num) as a JSON number, or
 * a JSON null when it is not finite. Caller owns. */
json_t *co_rpt_num_or_null(const json_t *obj, const char *path);

/* obj[key], an array of n nulls added first when obj lacks it: a series
 * with one entry per interval, filled in as the intervals are read.
 * Borrowed. */
json_t *co_rpt_series_at(json_t *obj, const char *key, size_t n);

/* Kind name's count per interval of ivs (a run's intervals[]) times
 * scale, divided by the interval's length: 0 where the interval has kinds
 * but not this one, null where it has none or no length. Caller owns. */
json_t *co_rpt_rate_series(const json_t *ivs, const char *name, double scale);

/* Kind name's p95 per interval of ivs, null where the interval lacks it.
 * Caller owns. */
json_t *co_rpt_p95_series(const json_t *ivs, const char *name);

#endif
