/* co_rpt_family: a workload family's part of the report tool (`stampede
 * report`, co_rpt*.c, co_sweep.c). A family that writes its own --json
 * member (co_family_summary.json_key) says here how the report tool draws
 * it; the generic code walks the registry (co_registry_at) and names no
 * family. Every op is optional. Each is called only for a run (or runs)
 * whose JSON has the member json_key as an object, except sweep_html,
 * which is handed every sweep and draws nothing when the points lack the
 * headline. An op draws with co_rpt_draw.h (cells, canvases, series), the
 * API the report tool publishes to the families; never with its internals
 * (co__rpt_*). Thread: the caller's; ops write only to the FILE given.
 */
#ifndef CO_RPT_FAMILY_H
#define CO_RPT_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "co_rpt_draw.h"
#include "co_rpt_load.h"

struct co_rpt_family {
    const char *json_key; /* the run JSON's member the family owns ("tpcc") */
    /* The headline figure (json_key.headline in a run JSON, "tpmC"): a
     * column of the text comparison and of a sweep (its runs[] and its
     * points' {mean, stddev, min, max}), or NULL. */
    const char *headline;
    int headline_dec; /* decimals the text tables print it with */
    /* Run n's tables after its per-kind table; obj is root[json_key]. */
    void (*run_html)(FILE *f, const json_t *obj, size_t n);
    /* The comparison tables of n runs (n > 1; some may lack the member),
     * before the per-kind comparison. */
    void (*cmp_html)(FILE *f, const struct co_rpt_file **runs, size_t n);
    /* Add the family's series to run's chart data r; names: the kinds the
     * run's charted intervals have (keys). */
    void (*series_data)(json_t *r, const struct co_rpt_file *run, const json_t *names);
    /* Run n's canvases after its per-kind rate chart. */
    void (*series_run)(FILE *f, const json_t *names, size_t n);
    /* The overlaid canvases of several runs, before the per-kind grid;
     * names: the kinds of every run. */
    void (*series_cmp)(FILE *f, const json_t *names);
    /* A sweep's section: the headline's table and canvas. */
    void (*sweep_html)(FILE *f, const struct co_rpt_file *sweep, size_t n);
    /* The page script drawing the family's canvases, run after the
     * generic kinds script (co__rpt_kinds_js) and before the series one,
     * which draws the overlaid grid through KSER[what] (r, kind) ->
     * series and KUNIT[what] (the y axis) for the data-what values the
     * family's grid canvases use (co_rpt_grid_canvas). */
    const char *js;
};

/* The i-th family that has report-tool ops (0, 1, ...), NULL past the
 * last (co_registry order). */
const struct co_rpt_family *co_rpt_family_at(size_t i);

/* The family owning root's member (root[f->json_key] is an object). */
bool co_rpt_family_in(const struct co_rpt_family *f, const json_t *root);

#endif
