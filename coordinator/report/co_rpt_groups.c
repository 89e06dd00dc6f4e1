/* co_rpt_groups: repeat groups compared with confidence (co_rpt_groups.h). */
#include "co_rpt_groups.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_stats.h"
#include "pr_err.h"

#define BOOT_RESAMPLES 10000
#define BOOT_SEED      28
#define RESOLVE        0.02 /* the difference "runs needed" is said for */

static const struct co_rpt_figure figures[] = {
    {"tps", "tps", "totals.tps", true, false},
    {"qps", "qps", "totals.qps", true, false},
    {"p95 ms", "p95", "totals.latency_ms.p95", false, false},
    {"p99 ms", "p99", "totals.latency_ms.p99", false, false},
    {"tpmC", "tpmC", "tpcc.tpmC", true, true},
};

const struct co_rpt_figure *co_rpt_figure_find(const char *word, size_t len)
{
    for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++)
        if (strlen(figures[f].word) == len && strncmp(figures[f].word, word, len) == 0)
            return &figures[f];
    return NULL;
}

double *co_rpt_group_values(const struct co_rpt_group *g, const char *path, size_t *n)
{
    double *v = pr_xcalloc(g->n ? g->n : 1, sizeof(*v));
    *n = 0;
    for (size_t i = 0; i < g->n; i++) {
        double x = co_rpt_num(g->runs[i]->root, path);
        if (isfinite(x))
            v[(*n)++] = x;
    }
    return v;
}

/* A number for the JSON: null when not finite. */
static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* One group's sample on one figure: {"group", "n", "values", "median", "mean",
 * "stddev", "ci_low", "ci_high"} (the interval null below 2 runs). */
static json_t *sample_json(const char *group, const double *v, size_t n)
{
    struct co_rpt_sample s;
    co_rpt_stats_sample(v, n, &s);
    json_t *values = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(values, num(v[i]));
    return json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "group", group, "n", (json_int_t)n,
                     "values", values, "median", num(s.median), "mean", num(s.mean), "stddev",
                     num(s.sd), "ci_low", num(n >= 2 ? s.ci_lo : NAN), "ci_high",
                     num(n >= 2 ? s.ci_hi : NAN));
}

/* "faster"/"slower" for a rate, "lower"/"higher" for a latency. */
static const char *direction(bool higher_better, double diff)
{
    if (higher_better)
        return diff > 0 ? "faster" : "slower";
    return diff < 0 ? "lower" : "higher";
}

/* The verdict of a tested comparison, in words. */
static void verdict(char *v, size_t cap, const struct co_rpt_figure *fig, const char *bn, size_t na,
                    size_t nb, double pct, double lo, double hi, const struct co_rpt_welch *w,
                    const struct co_rpt_boot *bt, unsigned need)
{
    if (w->p < 0.05) {
        int len =
            snprintf(v, cap, "%s%s%s is %s by %.1f%% (95%% CI %.1f%% to %.1f%%, Welch p=%.3g)", bn,
                     fig->higher_better ? "" : "'s ", fig->higher_better ? "" : fig->word,
                     direction(fig->higher_better, pct), fabs(pct), fmin(fabs(lo), fabs(hi)),
                     fmax(fabs(lo), fabs(hi)), w->p);
        if (bt->ok && bt->lo <= 1.0 && bt->hi >= 1.0 && len > 0 && (size_t)len < cap)
            snprintf(v + len, cap - (size_t)len,
                     "; the medians' bootstrap interval includes no change: read with care");
        return;
    }
    int len =
        snprintf(v, cap, "no significant difference at n=%zu/%zu (Welch p=%.3g)", na, nb, w->p);
    if (need > 0 && len > 0 && (size_t)len < cap)
        snprintf(v + len, cap - (size_t)len,
                 "; about %u runs per side would resolve a %.0f%% difference", need, RESOLVE * 100);
}

/* Group b against the baseline a on one figure: {"group", "baseline",
 * "diff_pct", "tested", "summary"} and, when tested, the interval of the
 * difference, both tests' p, the bootstrap ratio of medians,
 * "significant", "runs_needed" and "verdict". */
static json_t *compare(const struct co_rpt_figure *fig, const char *an, const double *a, size_t na,
                       const char *bn, const double *b, size_t nb)
{
    struct co_rpt_sample sa, sb;
    co_rpt_stats_sample(a, na, &sa);
    co_rpt_stats_sample(b, nb, &sb);
    double base = sa.mean, pct = (sb.mean - base) / base * 100.0;
    json_t *c = json_pack("{s:s,s:s,s:b}", "group", bn, "baseline", an, "tested", 0);
    char line[512];
    if (na == 0 || nb == 0 || !(fabs(base) > 0)) {
        json_object_set_new(c, "diff_pct", json_null());
        json_object_set_new(c, "summary", json_string("no figure to compare"));
        return c;
    }
    json_object_set_new(c, "diff_pct", num(pct));
    if (na < 2 || nb < 2) {
        snprintf(line, sizeof(line),
                 "%+.1f%% (one run on a side: the difference only, no verdict; repeat the runs)",
                 pct);
        json_object_set_new(c, "summary", json_string(line));
        return c;
    }
    struct co_rpt_welch w = co_rpt_stats_welch(a, na, b, nb);
    if (!w.ok) {
        snprintf(line, sizeof(line), "%+.1f%% (no spread on either side: no test)", pct);
        json_object_set_new(c, "summary", json_string(line));
        return c;
    }
    struct co_rpt_mw mw = co_rpt_stats_mann_whitney(a, na, b, nb);
    struct co_rpt_boot bt = co_rpt_stats_boot_ratio(a, na, b, nb, BOOT_RESAMPLES, BOOT_SEED);
    unsigned need = w.p < 0.05 ? 0 : co_rpt_stats_runs_needed(a, na, b, nb, RESOLVE);
    double lo = w.ci_lo / base * 100.0, hi = w.ci_hi / base * 100.0;
    int len =
        snprintf(line, sizeof(line),
                 "%+.1f%% (95%% CI %+.1f%% to %+.1f%%), Welch p=%.3g; Mann-Whitney p=%.3g (%s)",
                 pct, lo, hi, w.p, mw.p, mw.exact ? "exact" : "normal approx.");
    if (bt.ok && len > 0 && (size_t)len < sizeof(line))
        snprintf(line + len, sizeof(line) - (size_t)len,
                 "; ratio of medians %.3f (bootstrap 95%% CI %.3f to %.3f)", bt.ratio, bt.lo,
                 bt.hi);
    char v[384];
    verdict(v, sizeof(v), fig, bn, na, nb, pct, lo, hi, &w, &bt, need);
    json_object_set_new(c, "tested", json_true());
    json_object_set_new(c, "summary", json_string(line));
    json_object_set_new(c, "ci_low_pct", num(lo));
    json_object_set_new(c, "ci_high_pct", num(hi));
    json_object_set_new(c, "welch_p", num(w.p));
    json_object_set_new(c, "welch_df", num(w.df));
    json_object_set_new(c, "mann_whitney_p", num(mw.ok ? mw.p : NAN));
    json_object_set_new(c, "mann_whitney_exact", json_boolean(mw.exact));
    json_object_set_new(c, "median_ratio", num(bt.ok ? bt.ratio : NAN));
    json_object_set_new(c, "median_ratio_ci_low", num(bt.ok ? bt.lo : NAN));
    json_object_set_new(c, "median_ratio_ci_high", num(bt.ok ? bt.hi : NAN));
    json_object_set_new(c, "significant", json_boolean(w.p < 0.05));
    json_object_set_new(c, "better", json_boolean(w.p < 0.05 && (fig->higher_better == (pct > 0))));
    json_object_set_new(c, "runs_needed", need > 0 ? json_integer(need) : json_null());
    json_object_set_new(c, "verdict", json_string(v));
    return c;
}

static bool every_run_has(const struct co_rpt_group *g, size_t ng, const char *path)
{
    for (size_t i = 0; i < ng; i++)
        for (size_t j = 0; j < g[i].n; j++)
            if (!isfinite(co_rpt_num(g[i].runs[j]->root, path)))
                return false;
    return true;
}

json_t *co_rpt_groups_json(const struct co_rpt_group *g, size_t ng)
{
    json_t *figs = json_array();
    for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++) {
        if (figures[f].optional && !every_run_has(g, ng, figures[f].path))
            continue;
        json_t *samples = json_array(), *cmps = json_array();
        size_t na;
        double *a = co_rpt_group_values(&g[0], figures[f].path, &na);
        json_array_append_new(samples, sample_json(g[0].name, a, na));
        for (size_t i = 1; i < ng; i++) {
            size_t nb;
            double *b = co_rpt_group_values(&g[i], figures[f].path, &nb);
            json_array_append_new(samples, sample_json(g[i].name, b, nb));
            json_array_append_new(cmps, compare(&figures[f], g[0].name, a, na, g[i].name, b, nb));
            free(b);
        }
        free(a);
        json_array_append_new(
            figs, json_pack("{s:s,s:s,s:s,s:b,s:o,s:o}", "figure", figures[f].word, "name",
                            figures[f].name, "path", figures[f].path, "higher_better",
                            figures[f].higher_better, "groups", samples, "comparisons", cmps));
    }
    return json_pack("{s:s,s:s,s:s,s:f,s:o}", "baseline", ng ? g[0].name : "", "unit", "run",
                     "decides", "welch", "alpha", 0.05, "figures", figs);
}

static void print_sample(FILE *out, const char *fig, const json_t *s)
{
    json_int_t n = json_integer_value(json_object_get(s, "n"));
    fprintf(out, "    %-7s %-12s %3lld %12.3f %12.3f %10.3f", fig,
            json_string_value(json_object_get(s, "group")), (long long)n, co_rpt_num(s, "median"),
            co_rpt_num(s, "mean"), co_rpt_num(s, "stddev"));
    if (n >= 2)
        fprintf(out, "   %.3f to %.3f\n", co_rpt_num(s, "ci_low"), co_rpt_num(s, "ci_high"));
    else
        fprintf(out, "   -\n");
}

void co_rpt_groups_text(FILE *out, const json_t *cmp)
{
    const json_t *figs = json_object_get(cmp, "figures"), *fig;
    size_t f;
    fprintf(out,
            "\nGroups compared (the unit is one run; baseline %s). Welch's t-test on the runs' "
            "means decides;\nthe rank test (Mann-Whitney) and a bootstrap interval of the ratio "
            "of medians are shown beside it:\n",
            json_string_value(json_object_get(cmp, "baseline")));
    fprintf(out, "    %-7s %-12s %3s %12s %12s %10s   %s\n", "figure", "group", "n", "median",
            "mean", "stddev", "95% CI of the mean");
    json_array_foreach(figs, f, fig)
    {
        const char *name = json_string_value(json_object_get(fig, "name"));
        const json_t *samples = json_object_get(fig, "groups");
        print_sample(out, name, json_array_get(samples, 0));
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(fig, "comparisons"), i, c)
        {
            print_sample(out, name, json_array_get(samples, i + 1));
            fprintf(out, "            %s vs %s: %s\n",
                    json_string_value(json_object_get(c, "group")),
                    json_string_value(json_object_get(c, "baseline")),
                    json_string_value(json_object_get(c, "summary")));
            if (json_is_true(json_object_get(c, "tested")))
                fprintf(out, "            verdict: %s\n",
                        json_string_value(json_object_get(c, "verdict")));
        }
    }
}

/* The run file of a sweep's entry: its base name beside the sweep's file
 * (the sweep writes them side by side; they are moved together). */
static char *run_path(const char *sweep_path, const char *json)
{
    const char *slash = strrchr(sweep_path, '/'), *base = strrchr(json, '/');
    base = base ? base + 1 : json;
    if (slash == NULL)
        return pr_xstrdup(base);
    size_t dir = (size_t)(slash - sweep_path), len = dir + 1 + strlen(base) + 1;
    char *p = pr_xmalloc(len);
    snprintf(p, len, "%.*s/%s", (int)dir, sweep_path, base);
    return p;
}

int co_rpt_sweep_groups(const struct co_rpt_file *sweep, struct co_rpt_sweep_groups *out,
                        struct pr_error *err)
{
    const json_t *runs = json_object_get(sweep->root, "runs"), *r;
    size_t n = json_array_size(runs), i;
    memset(out, 0, sizeof(*out));
    if (co_rpt_num(sweep->root, "repeat") < 2)
        return 0;
    out->files = pr_xcalloc(n ? n : 1, sizeof(*out->files));
    out->groups = pr_xcalloc(n ? n : 1, sizeof(*out->groups));
    out->names = pr_xcalloc(n ? n : 1, sizeof(*out->names));
    json_array_foreach(runs, i, r)
    {
        const char *json = json_string_value(json_object_get(r, "json"));
        if (!json_is_true(json_object_get(r, "included")) || json == NULL)
            continue;
        char *path = run_path(sweep->path, json);
        int rc = co_rpt_load(path, &out->files[out->n_files], err);
        free(path);
        if (rc != 0) {
            co_rpt_sweep_groups_clear(out);
            return rc;
        }
        double threads = co_rpt_num(r, "threads");
        char name[32];
        snprintf(name, sizeof(name), "threads=%.0f", threads);
        size_t k = 0;
        while (k < out->n_groups && strcmp(out->groups[k].name, name) != 0)
            k++;
        if (k == out->n_groups) {
            out->names[k] = pr_xstrdup(name);
            out->groups[k].name = out->names[k];
            out->groups[k].runs = pr_xcalloc(n, sizeof(*out->groups[k].runs));
            out->n_groups++;
        }
        out->groups[k].runs[out->groups[k].n++] = &out->files[out->n_files++];
    }
    if (out->n_groups < 2)
        co_rpt_sweep_groups_clear(out);
    return 0;
}

void co_rpt_sweep_groups_clear(struct co_rpt_sweep_groups *sg)
{
    for (size_t i = 0; i < sg->n_files; i++)
        co_rpt_file_clear(&sg->files[i]);
    for (size_t i = 0; i < sg->n_groups; i++) {
        free(sg->groups[i].runs);
        free(sg->names[i]);
    }
    free(sg->files);
    free(sg->groups);
    free(sg->names);
    memset(sg, 0, sizeof(*sg));
}
