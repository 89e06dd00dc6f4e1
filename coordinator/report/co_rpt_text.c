/* co_rpt_text: the comparison table as text (see co_rpt_text.h). */
#include "co_rpt_text.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_draw.h"
#include "co_rpt_env.h"
#include "co_rpt_family.h"

const struct co_rpt_metric co_rpt_metrics[] = {
    {"tps", "totals.tps", 2},
    {"qps", "totals.qps", 2},
    {"p95 ms", "totals.latency_ms.p95", 3},
    {"p99 ms", "totals.latency_ms.p99", 3},
    {"max ms", "totals.latency_ms.max", 3},
    {"err/s", "totals.err_s", 2},
};
const size_t co_rpt_n_metrics = sizeof(co_rpt_metrics) / sizeof(co_rpt_metrics[0]);

#define MAX_COLS 24
#define CELL     48

/* A table of text cells, printed with every column padded to its widest
 * cell, numbers right-aligned. */
struct table {
    size_t rows, cols;
    char (*cell)[MAX_COLS][CELL];
};

static void put_row(FILE *out, const struct table *t, size_t r, const size_t *w)
{
    for (size_t c = 0; c < t->cols; c++)
        fprintf(out, c == 0 ? "| %-*s |" : " %*s |", (int)w[c], t->cell[r][c]);
    fputc('\n', out);
}

static void table_print(FILE *out, const struct table *t)
{
    assert(t->cols <= MAX_COLS);
    size_t w[MAX_COLS] = {0};
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++) {
            size_t len = strlen(t->cell[r][c]);
            w[c] = len > w[c] ? len : w[c];
        }
    put_row(out, t, 0, w);
    fputc('|', out);
    for (size_t c = 0; c < t->cols; c++) {
        for (size_t i = 0; i < w[c] + 1; i++)
            fputc('-', out);
        fputs(c == 0 ? "-|" : ":|", out);
    }
    fputc('\n', out);
    for (size_t r = 1; r < t->rows; r++)
        put_row(out, t, r, w);
}

/* A family's headline (fam->json_key.headline, tpcc's tpmC) and its
 * ratio as the last two columns, when a run has it. */
static void headline_cols(struct table *t, const struct co_rpt_family *fam,
                          const struct co_rpt_file **runs, size_t n)
{
    char path[96];
    snprintf(path, sizeof(path), "%s.%s", fam->json_key, fam->headline);
    bool has = false;
    for (size_t i = 0; i < n; i++)
        has = has || co_rpt_get(runs[i]->root, path) != NULL;
    if (!has || t->cols + 2 > MAX_COLS)
        return;
    size_t c = t->cols;
    t->cols += 2;
    snprintf(t->cell[0][c], CELL, "%s", fam->headline);
    snprintf(t->cell[0][c + 1], CELL, "vs 1st");
    double first = co_rpt_num(runs[0]->root, path);
    for (size_t i = 0; i < n; i++) {
        double v = co_rpt_num(runs[i]->root, path);
        co_rpt_fmt(t->cell[i + 1][c], CELL, v, fam->headline_dec);
        co_rpt_fmt_ratio(t->cell[i + 1][c + 1], CELL, v, first);
    }
}

static void print_runs(FILE *out, const struct co_rpt_file **runs, size_t n)
{
    struct table t = {.rows = n + 1, .cols = 1 + 2 * co_rpt_n_metrics};
    t.cell = pr_xcalloc(t.rows, sizeof(*t.cell));
    snprintf(t.cell[0][0], CELL, "run");
    for (size_t m = 0; m < co_rpt_n_metrics; m++) {
        snprintf(t.cell[0][1 + 2 * m], CELL, "%s", co_rpt_metrics[m].head);
        snprintf(t.cell[0][2 + 2 * m], CELL, "vs 1st");
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(t.cell[i + 1][0], CELL, "%s", runs[i]->label);
        for (size_t m = 0; m < co_rpt_n_metrics; m++) {
            double v = co_rpt_num(runs[i]->root, co_rpt_metrics[m].path);
            double first = co_rpt_num(runs[0]->root, co_rpt_metrics[m].path);
            co_rpt_fmt(t.cell[i + 1][1 + 2 * m], CELL, v, co_rpt_metrics[m].decimals);
            co_rpt_fmt_ratio(t.cell[i + 1][2 + 2 * m], CELL, v, first);
        }
    }
    const struct co_rpt_family *fam;
    for (size_t f = 0; (fam = co_rpt_family_at(f)) != NULL; f++)
        if (fam->json_key && fam->headline)
            headline_cols(&t, fam, runs, n);
    table_print(out, &t);
    free(t.cell);
}

/* One line per key: "KEY v1 → v2 → ...". */
static void print_env_keys(FILE *out, const struct co_rpt_env *envs, size_t n, const char **keys,
                           size_t nk)
{
    for (size_t k = 0; k < nk; k++) {
        fprintf(out, "    %s ", keys[k]);
        for (size_t i = 0; i < n; i++) {
            const char *v = co_rpt_env_get(&envs[i], keys[k]);
            fprintf(out, "%s%s", i ? " → " : "", v ? v : "(absent)");
        }
        fputc('\n', out);
    }
}

static void print_labels(FILE *out, const struct co_rpt_file **runs, size_t n)
{
    fprintf(out, "%s", runs[0]->label);
    for (size_t i = 1; i < n; i++)
        fprintf(out, " → %s", runs[i]->label);
}

static void print_env_diff(FILE *out, const struct co_rpt_file **runs, size_t n)
{
    struct co_rpt_env *envs = co_rpt_envs_read(runs, n);
    size_t nk = 0, nd = 0;
    const char **keys = co_rpt_env_diff(envs, n, CO_RPT_ENV_CONFIG, &nk);
    const char **drift = co_rpt_env_diff(envs, n, CO_RPT_ENV_DATA, &nd);
    fprintf(out, "\nEnvironment and options that differ (");
    print_labels(out, runs, n);
    fprintf(out, "):\n");
    for (size_t i = 0; i < n; i++)
        if (!envs[i].has_env)
            fprintf(out,
                    "    (%s has no \"environment\": an older JSON; only its options are "
                    "compared)\n",
                    runs[i]->label);
    if (nk == 0)
        fprintf(out, "    none\n");
    print_env_keys(out, envs, n, keys, nk);
    if (nd > 0) {
        fprintf(out, "\nData set drift (");
        print_labels(out, runs, n);
        fprintf(out, "; row counts and sizes the runs, or the time between them, changed):\n");
        print_env_keys(out, envs, n, drift, nd);
    }
    free(keys);
    free(drift);
    co_rpt_envs_free(envs, n);
}

static const char *const sweep_stats[] = {"mean", "stddev", "min", "max"};
#define N_SWEEP_KEYS 6 /* the four below and at most two families' headlines */

void co_rpt_text_sweep(FILE *out, const json_t *sweep, const char *label)
{
    const json_t *points = json_object_get(sweep, "points");
    const char *sweep_keys[N_SWEEP_KEYS] = {"tps", "qps", "p95_ms", "p99_ms"};
    int dec[N_SWEEP_KEYS] = {2, 2, 3, 3};
    size_t nk = 4;
    const struct co_rpt_family *fam;
    for (size_t f = 0; (fam = co_rpt_family_at(f)) != NULL && nk < N_SWEEP_KEYS; f++)
        if (fam->headline && co_rpt_get(json_array_get(points, 0), fam->headline) != NULL) {
            dec[nk] = fam->headline_dec; /* a family's sweep has its headline too */
            sweep_keys[nk++] = fam->headline;
        }
    struct table t = {.rows = json_array_size(points) + 1, .cols = 2 + nk * 4};
    t.cell = pr_xcalloc(t.rows, sizeof(*t.cell));
    snprintf(t.cell[0][0], CELL, "threads");
    snprintf(t.cell[0][1], CELL, "runs");
    for (size_t k = 0; k < nk; k++)
        for (size_t s = 0; s < 4; s++)
            snprintf(t.cell[0][2 + 4 * k + s], CELL, "%s %s", sweep_keys[k], sweep_stats[s]);
    size_t i;
    json_t *p;
    json_array_foreach(points, i, p)
    {
        co_rpt_fmt(t.cell[i + 1][0], CELL, co_rpt_num(p, "threads"), 0);
        co_rpt_fmt(t.cell[i + 1][1], CELL, co_rpt_num(p, "runs"), 0);
        for (size_t k = 0; k < nk; k++)
            for (size_t s = 0; s < 4; s++) {
                char path[64];
                snprintf(path, sizeof(path), "%s.%s", sweep_keys[k], sweep_stats[s]);
                co_rpt_fmt(t.cell[i + 1][2 + 4 * k + s], CELL, co_rpt_num(p, path), dec[k]);
            }
    }
    fprintf(out, "Sweep %s:\n", label);
    table_print(out, &t);
    const char *stopped = json_string_value(json_object_get(sweep, "stopped"));
    if (stopped != NULL)
        fprintf(out, "stopped early: %s\n", stopped);
    free(t.cell);
}

/* Each run's steady-state verdict (its JSON's steady_state), when it has one. */
static void print_steady(FILE *out, const struct co_rpt_file **runs, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const char *v = json_string_value(co_rpt_get(runs[i]->root, "steady_state.verdict"));
        if (v == NULL)
            continue;
        if (!any)
            fprintf(out, "\nSteady state:\n");
        any = true;
        fprintf(out, "    %s: %s\n", runs[i]->label, v);
    }
}

int co_rpt_text_write(FILE *out, const struct co_rpt_file *files, size_t n)
{
    const struct co_rpt_file **runs = pr_xcalloc(n, sizeof(*runs));
    size_t nr = 0;
    for (size_t i = 0; i < n; i++) {
        if (files[i].kind == CO_RPT_RUN)
            runs[nr++] = &files[i];
        else
            co_rpt_text_sweep(out, files[i].root, files[i].label);
    }
    if (nr > 0)
        print_runs(out, runs, nr);
    print_steady(out, runs, nr);
    if (nr > 1)
        print_env_diff(out, runs, nr);
    free(runs);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
