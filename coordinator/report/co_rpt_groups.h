/* co_rpt_groups: stampede report --group=NAME FILE... --group=NAME FILE...:
 * repeat groups of runs compared with confidence (docs/guide.md "Comparing
 * with confidence"). Per headline figure (tps, qps, p95, p99, and tpmC when
 * every run has one) each group's n, median, mean, stddev and the 95%
 * interval of its mean; each later group against the first (the baseline):
 * the difference in % with its interval, Welch's p, the rank test's p, the
 * bootstrap interval of the ratio of medians, and a verdict in words. The
 * unit is the run (co_rpt_stats.h). */
#ifndef CO_RPT_GROUPS_H
#define CO_RPT_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "co_rpt_load.h"

struct co_rpt_group {
    const char *name;
    const struct co_rpt_file **runs; /* borrowed */
    size_t n;
};

/* A headline figure groups are compared on: its short name ("tps",
 * "p99"), its JSON path, and whether higher is better. */
struct co_rpt_figure {
    const char *name, *word, *path;
    bool higher_better;
    bool optional; /* shown only when every run has it (tpmC) */
};

/* The figure whose word is word[0..len), or NULL. */
const struct co_rpt_figure *co_rpt_figure_find(const char *word, size_t len);

/* Group g's values at path: *n of them (the runs that have it). Caller
 * frees. */
double *co_rpt_group_values(const struct co_rpt_group *g, const char *path, size_t *n);

/* The comparison as data, computed once (ng >= 1; g[0] the baseline):
 * {"baseline", "unit": "run", "decides": "welch", "alpha": 0.05,
 *  "figures": [{"figure", "name", "path", "higher_better",
 *    "groups": [{"group", "n", "values" (each run's), "median", "mean", "stddev", "ci_low",
 *                "ci_high"}, ...],                  (interval null below n=2)
 *    "comparisons": [{"group", "baseline", "diff_pct", "tested", "summary",
 *      and when tested: "ci_low_pct", "ci_high_pct", "welch_p", "welch_df",
 *      "mann_whitney_p", "mann_whitney_exact", "median_ratio",
 *      "median_ratio_ci_low", "median_ratio_ci_high", "significant",
 *      "better", "runs_needed", "verdict"}, ...]}, ...]}
 * (docs/reference.md "stampede report --json"). Caller decrefs. */
json_t *co_rpt_groups_json(const struct co_rpt_group *g, size_t ng);

/* That comparison as text to out. */
void co_rpt_groups_text(FILE *out, const json_t *cmp);

/* A sweep's repeats as groups, one per --threads point ("threads=8"), in
 * the sweep's order: the run files of its included runs, read from beside
 * the sweep's file (their base names). */
struct co_rpt_sweep_groups {
    struct co_rpt_file *files; /* the runs read */
    size_t n_files;
    struct co_rpt_group *groups;
    char **names;
    size_t n_groups; /* 0: not a sweep of repeats over 2 or more points */
};

/* Read sweep's groups into *out (empty unless "repeat" >= 2 and 2 or
 * more points have runs). 0, or co_rpt_load's error for a run file that
 * cannot be read (err names it); *out is then empty. */
int co_rpt_sweep_groups(const struct co_rpt_file *sweep, struct co_rpt_sweep_groups *out,
                        struct pr_error *err);
void co_rpt_sweep_groups_clear(struct co_rpt_sweep_groups *sg);

#endif
