/* co_rpt_groups: repeat groups compared with confidence (co_rpt_groups.h). */
#include "co_rpt_groups.h"

#include <math.h>
#include <stdbool.h>
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

static void print_sample(FILE *out, const char *fig, const char *group, const double *v, size_t n)
{
    struct co_rpt_sample s;
    co_rpt_stats_sample(v, n, &s);
    fprintf(out, "    %-7s %-12s %3zu %12.3f %12.3f %10.3f", fig, group, n, s.median, s.mean, s.sd);
    if (n >= 2)
        fprintf(out, "   %.3f to %.3f\n", s.ci_lo, s.ci_hi);
    else
        fprintf(out, "   -\n");
}

/* "faster"/"slower" for a rate, "lower"/"higher" for a latency. */
static const char *direction(bool higher_better, double diff)
{
    if (higher_better)
        return diff > 0 ? "faster" : "slower";
    return diff < 0 ? "lower" : "higher";
}

/* The lines of group b against the baseline a on one figure. */
static void compare(FILE *out, const char *fig, bool higher_better, const char *an, const double *a,
                    size_t na, const char *bn, const double *b, size_t nb)
{
    struct co_rpt_sample sa;
    co_rpt_stats_sample(a, na, &sa);
    double base = sa.mean;
    if (na == 0 || nb == 0 || !(fabs(base) > 0)) {
        fprintf(out, "            %s vs %s: no figure to compare\n", bn, an);
        return;
    }
    struct co_rpt_sample sb;
    co_rpt_stats_sample(b, nb, &sb);
    double pct = (sb.mean - base) / base * 100.0;
    if (na < 2 || nb < 2) {
        fprintf(out,
                "            %s vs %s: %+.1f%% (one run on a side: the difference only, no "
                "verdict; repeat the runs)\n",
                bn, an, pct);
        return;
    }
    struct co_rpt_welch w = co_rpt_stats_welch(a, na, b, nb);
    struct co_rpt_mw mw = co_rpt_stats_mann_whitney(a, na, b, nb);
    struct co_rpt_boot bt = co_rpt_stats_boot_ratio(a, na, b, nb, BOOT_RESAMPLES, BOOT_SEED);
    if (!w.ok) {
        fprintf(out, "            %s vs %s: %+.1f%% (no spread on either side: no test)\n", bn, an,
                pct);
        return;
    }
    double lo = w.ci_lo / base * 100.0, hi = w.ci_hi / base * 100.0;
    fprintf(out, "            %s vs %s: %+.1f%% (95%% CI %+.1f%% to %+.1f%%), Welch p=%.3g", bn, an,
            pct, lo, hi, w.p);
    fprintf(out, "; Mann-Whitney p=%.3g (%s)", mw.p, mw.exact ? "exact" : "normal approx.");
    if (bt.ok)
        fprintf(out, "; ratio of medians %.3f (bootstrap 95%% CI %.3f to %.3f)", bt.ratio, bt.lo,
                bt.hi);
    fputc('\n', out);
    const char *what = higher_better ? "" : fig;
    if (w.p < 0.05) {
        fprintf(out,
                "            verdict: %s%s%s is %s by %.1f%% (95%% CI %.1f%% to %.1f%%, Welch "
                "p=%.3g)",
                bn, higher_better ? "" : "'s ", what, direction(higher_better, pct), fabs(pct),
                fmin(fabs(lo), fabs(hi)), fmax(fabs(lo), fabs(hi)), w.p);
        if (bt.ok && bt.lo <= 1.0 && bt.hi >= 1.0)
            fprintf(out, "; the medians' bootstrap interval includes no change: read with care");
        fputc('\n', out);
    } else {
        unsigned need = co_rpt_stats_runs_needed(a, na, b, nb, RESOLVE);
        fprintf(out, "            verdict: no significant difference at n=%zu/%zu (Welch p=%.3g)",
                na, nb, w.p);
        if (need > 0)
            fprintf(out, "; about %u runs per side would resolve a %.0f%% difference", need,
                    RESOLVE * 100);
        fputc('\n', out);
    }
}

static bool every_run_has(const struct co_rpt_group *g, size_t ng, const char *path)
{
    for (size_t i = 0; i < ng; i++)
        for (size_t j = 0; j < g[i].n; j++)
            if (!isfinite(co_rpt_num(g[i].runs[j]->root, path)))
                return false;
    return true;
}

void co_rpt_groups_text(FILE *out, const struct co_rpt_group *g, size_t ng)
{
    if (ng == 0)
        return;
    fprintf(out,
            "\nGroups compared (the unit is one run; baseline %s). Welch's t-test on the runs' "
            "means decides;\nthe rank test (Mann-Whitney) and a bootstrap interval of the ratio "
            "of medians are shown beside it:\n",
            g[0].name);
    fprintf(out, "    %-7s %-12s %3s %12s %12s %10s   %s\n", "figure", "group", "n", "median",
            "mean", "stddev", "95% CI of the mean");
    for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++) {
        if (figures[f].optional && !every_run_has(g, ng, figures[f].path))
            continue;
        size_t na;
        double *a = co_rpt_group_values(&g[0], figures[f].path, &na);
        print_sample(out, figures[f].name, g[0].name, a, na);
        for (size_t i = 1; i < ng; i++) {
            size_t nb;
            double *b = co_rpt_group_values(&g[i], figures[f].path, &nb);
            print_sample(out, figures[f].name, g[i].name, b, nb);
            compare(out, figures[f].word, figures[f].higher_better, g[0].name, a, na, g[i].name, b,
                    nb);
            free(b);
        }
        free(a);
    }
}
