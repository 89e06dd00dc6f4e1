/* co_rpt_gate: --fail-if regression gates and their JUnit file
 * (co_rpt_gate.h). */
#include "co_rpt_gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_draw.h"
#include "co_rpt_stats.h"

int co_rpt_gate_parse(const char *expr, struct co_rpt_gate *g, struct pr_error *err)
{
    *g = (struct co_rpt_gate){.expr = expr};
    size_t i = strcspn(expr, "<>");
    const struct co_rpt_figure *fig = co_rpt_figure_find(expr, i);
    if (fig != NULL) {
        g->path = fig->path;
        g->higher_better = fig->higher_better;
    }
    char *end = NULL;
    double v = expr[i] ? strtod(expr + i + 1, &end) : NAN;
    g->below = expr[i] == '<';
    if (g->path == NULL || end == NULL || end == expr + i + 1 || strcmp(end, "%") != 0 ||
        !isfinite(v) || (g->below && v >= 0) || (!g->below && v <= 0))
        return pr_error_set(err, PR_EINVAL,
                            "--fail-if='%s': write FIGURE<-X%% (fails on a fall of more than X%%) "
                            "or FIGURE>+X%% (a rise), FIGURE one of tps, qps, p95, p99, tpmC: "
                            "e.g. 'tps<-5%%', 'p99>+10%%'",
                            expr);
    g->limit = v;
    return 0;
}

static void eval_one(struct co_rpt_gate *g, const struct co_rpt_group *base,
                     const struct co_rpt_group *cand)
{
    size_t na, nb;
    double *a = co_rpt_group_values(base, g->path, &na);
    double *b = co_rpt_group_values(cand, g->path, &nb);
    struct co_rpt_sample sa, sb;
    co_rpt_stats_sample(a, na, &sa);
    co_rpt_stats_sample(b, nb, &sb);
    g->evaluated = na > 0 && nb > 0 && fabs(sa.mean) > 0;
    if (!g->evaluated) {
        g->failed = true;
        snprintf(g->why, sizeof(g->why), "no figure to compare (%zu and %zu runs have it)", na, nb);
    } else {
        g->pct = (sb.mean - sa.mean) / sa.mean * 100.0;
        bool beyond = g->below ? g->pct < g->limit : g->pct > g->limit;
        struct co_rpt_welch w = co_rpt_stats_welch(a, na, b, nb);
        g->significant_needed = na >= 2 && nb >= 2;
        g->p = w.ok ? w.p : NAN;
        if (g->significant_needed && w.ok)
            g->failed = beyond && w.p < 0.05;
        else
            g->failed = beyond;
        if (g->significant_needed && w.ok)
            snprintf(g->why, sizeof(g->why), "%s vs %s: %+.2f%% (n=%zu/%zu, Welch p=%.3g)",
                     cand->name, base->name, g->pct, na, nb, w.p);
        else
            snprintf(g->why, sizeof(g->why),
                     "%s vs %s: %+.2f%% (n=%zu/%zu: no test, the difference alone decides)",
                     cand->name, base->name, g->pct, na, nb);
    }
    free(a);
    free(b);
}

void co_rpt_gates_eval(struct co_rpt_gate *g, size_t n, const struct co_rpt_group *groups,
                       size_t ng)
{
    for (size_t i = 0; i < n; i++) {
        if (ng < 2) {
            g[i].evaluated = false;
            g[i].failed = true;
            snprintf(g[i].why, sizeof(g[i].why),
                     "nothing to compare: give --baseline=FILE and a file, or two --group's");
            continue;
        }
        eval_one(&g[i], &groups[0], &groups[ng - 1]);
    }
}

size_t co_rpt_gates_text(FILE *out, const struct co_rpt_gate *g, size_t n)
{
    size_t failed = 0;
    if (n > 0)
        fprintf(out, "\nGates:\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "    %-14s %-60s %s\n", g[i].expr, g[i].why, g[i].failed ? "FAILED" : "ok");
        failed += g[i].failed;
    }
    return failed;
}

int co_rpt_gates_junit(FILE *f, const struct co_rpt_gate *g, size_t n)
{
    size_t failed = 0;
    for (size_t i = 0; i < n; i++)
        failed += g[i].failed;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite "
            "name=\"stampede report\" tests=\"%zu\" failures=\"%zu\">\n",
            n, failed);
    for (size_t i = 0; i < n; i++) {
        fputs("  <testcase classname=\"stampede.gate\" name=\"", f);
        co_rpt_esc(f, g[i].expr);
        fputs("\">", f);
        if (g[i].failed) {
            fputs("<failure message=\"", f);
            co_rpt_esc(f, g[i].why);
            fputs("\"/>", f);
        } else {
            fputs("<system-out>", f);
            co_rpt_esc(f, g[i].why);
            fputs("</system-out>", f);
        }
        fputs("</testcase>\n", f);
    }
    fputs("</testsuite>\n</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}
