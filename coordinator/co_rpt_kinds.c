/* co_rpt_kinds: per-kind and TPC-C parts of the report (see
 * co_rpt_kinds.h). */
#include "co_rpt_kinds.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "co_rpt_section.h"
#include "co_rpt_text.h"

static const struct {
    const char *head, *path;
    int dec;
} kind_cols[] = {{"count", "count", 0},           {"errors", "errors", 0},
                 {"avg ms", "latency_ms.avg", 3}, {"p95 ms", "latency_ms.p95", 3},
                 {"p99 ms", "latency_ms.p99", 3}, {"max ms", "latency_ms.max", 3}};
#define N_KIND_COLS (sizeof(kind_cols) / sizeof(kind_cols[0]))

const char *const co__rpt_tc_types[CO__RPT_N_TC_TYPES] = {"new_order", "payment", "order_status",
                                                          "delivery", "stock_level"};
static const struct {
    const char *head, *path;
    int dec;
} tc_cols[] = {{"sc", "sc", 0},         {"lt", "lt", 0},         {"rt", "rt", 0},
               {"fl", "fl", 0},         {"avg ms", "avg_ms", 3}, {"p90 ms", "p90_ms", 3},
               {"p95 ms", "p95_ms", 3}, {"p99 ms", "p99_ms", 3}, {"max ms", "max_ms", 3}};
#define N_TC_COLS (sizeof(tc_cols) / sizeof(tc_cols[0]))

static json_t *num_or_null(const json_t *obj, const char *path)
{
    double v = co_rpt_num(obj, path);
    return isfinite(v) ? json_real(v) : json_null();
}

void co__rpt_kinds_data(json_t *r, const struct co_rpt_file *run)
{
    static const char *const qs[] = {"p95", "p99"};
    const json_t *ivs = json_object_get(run->root, "intervals");
    size_t n = json_array_size(ivs), i;
    json_t *kinds = json_object(), *iv;
    json_array_foreach(ivs, i, iv)
    {
        const char *name;
        json_t *k;
        json_object_foreach(json_object_get(iv, "kinds"), name, k)
        {
            json_t *o = json_object_get(kinds, name);
            if (o == NULL) {
                o = json_object();
                for (size_t q = 0; q < 2; q++) {
                    json_t *a = json_array();
                    for (size_t j = 0; j < n; j++)
                        json_array_append_new(a, json_null());
                    json_object_set_new(o, qs[q], a);
                }
                json_object_set_new(kinds, name, o);
            }
            for (size_t q = 0; q < 2; q++) {
                char path[32];
                snprintf(path, sizeof(path), "latency_ms.%s", qs[q]);
                json_array_set_new(json_object_get(o, qs[q]), i, num_or_null(k, path));
            }
        }
    }
    json_object_set_new(r, "kinds", kinds);
}

static void kinds_table(FILE *f, const json_t *kinds, size_t n)
{
    fprintf(f, "<table id=\"kinds-table-%zu\"><tr><th>kind</th>", n);
    for (size_t c = 0; c < N_KIND_COLS; c++)
        fprintf(f, "<th>%s</th>", kind_cols[c].head);
    fputs("</tr>\n", f);
    const char *name;
    json_t *k;
    json_object_foreach((json_t *)kinds, name, k)
    {
        fputs("<tr>", f);
        co__rpt_td_str(f, name);
        for (size_t c = 0; c < N_KIND_COLS; c++)
            co__rpt_td_num(f, kind_cols[c].path, co_rpt_num(k, kind_cols[c].path),
                           kind_cols[c].dec);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void tpcc_table(FILE *f, const json_t *tc, size_t n)
{
    fprintf(f,
            "<h3>TPC-C</h3><table id=\"tpcc-sum-%zu\"><tr><th>tpmC</th><th>New-Orders in the "
            "window</th><th>window s</th></tr>\n<tr>",
            n);
    co__rpt_td_num(f, "tpmC", co_rpt_num(tc, "tpmC"), 3);
    co__rpt_td_num(f, "new_orders", co_rpt_num(tc, "new_orders"), 0);
    co__rpt_td_num(f, "window_s", co_rpt_num(tc, "window_s"), 0);
    fputs("</tr></table>\n", f);
    fprintf(f, "<table id=\"tpcc-table-%zu\"><tr><th>transaction</th>", n);
    for (size_t c = 0; c < N_TC_COLS; c++)
        fprintf(f, "<th>%s</th>", tc_cols[c].head);
    fputs("</tr>\n", f);
    const json_t *tx = json_object_get(tc, "transactions");
    for (size_t t = 0; t < CO__RPT_N_TC_TYPES; t++) {
        const json_t *o = json_object_get(tx, co__rpt_tc_types[t]);
        if (o == NULL)
            continue;
        fputs("<tr>", f);
        co__rpt_td_str(f, co__rpt_tc_types[t]);
        for (size_t c = 0; c < N_TC_COLS; c++)
            co__rpt_td_num(f, tc_cols[c].path, co_rpt_num(o, tc_cols[c].path), tc_cols[c].dec);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

void co__rpt_kinds_run(FILE *f, const struct co_rpt_file *run, size_t n)
{
    const json_t *kinds = co_rpt_get(run->root, "totals.kinds");
    if (json_object_size(kinds) > 0) {
        char id[32];
        fputs("<h3>Per kind (whole run)</h3>\n", f);
        kinds_table(f, kinds, n);
        snprintf(id, sizeof(id), "kinds-lat-%zu", n);
        co__rpt_canvas(f, id, "Per kind: p95 and p99 latency over time (log axis)");
    }
    const json_t *tc = json_object_get(run->root, "tpcc");
    if (json_is_object(tc))
        tpcc_table(f, tc, n);
}

static void ratio_cell(FILE *f, double v, double first)
{
    char buf[64];
    fprintf(f, "<td>%s</td>", co_rpt_fmt_ratio(buf, sizeof(buf), v, first));
}

/* One row per kind (in the first run that has it) and run. */
static void kinds_cmp(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    fputs("<h3>Per kind</h3><table id=\"kinds-cmp-table\"><tr><th>kind</th><th>run</th>", f);
    for (size_t c = 0; c < N_KIND_COLS; c++)
        fprintf(f, "<th>%s</th><th>vs 1st</th>", kind_cols[c].head);
    fputs("</tr>\n", f);
    json_t *seen = json_object();
    for (size_t i = 0; i < n; i++) {
        const char *name;
        json_t *k;
        json_object_foreach(co_rpt_get(runs[i]->root, "totals.kinds"), name, k)
        {
            if (json_object_get(seen, name) != NULL)
                continue;
            json_object_set_new(seen, name, json_true());
            const json_t *k0 = json_object_get(co_rpt_get(runs[0]->root, "totals.kinds"), name);
            for (size_t r = 0; r < n; r++) {
                const json_t *kr = json_object_get(co_rpt_get(runs[r]->root, "totals.kinds"), name);
                fputs("<tr>", f);
                co__rpt_td_str(f, name);
                co__rpt_td_str(f, runs[r]->label);
                for (size_t c = 0; c < N_KIND_COLS; c++) {
                    double v = co_rpt_num(kr, kind_cols[c].path);
                    co__rpt_td_num(f, kind_cols[c].path, v, kind_cols[c].dec);
                    ratio_cell(f, v, co_rpt_num(k0, kind_cols[c].path));
                }
                fputs("</tr>\n", f);
            }
        }
    }
    json_decref(seen);
    fputs("</table>\n", f);
}

static void tpcc_cmp(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    fputs("<h3>TPC-C</h3><table id=\"tpcc-cmp-table\"><tr><th>run</th><th>tpmC</th>"
          "<th>vs 1st</th>",
          f);
    for (size_t t = 0; t < CO__RPT_N_TC_TYPES; t++)
        fprintf(f, "<th>%s p95 ms</th><th>vs 1st</th>", co__rpt_tc_types[t]);
    fputs("</tr>\n", f);
    const json_t *t0 = json_object_get(runs[0]->root, "tpcc");
    for (size_t r = 0; r < n; r++) {
        const json_t *tc = json_object_get(runs[r]->root, "tpcc");
        fputs("<tr>", f);
        co__rpt_td_str(f, runs[r]->label);
        double v = co_rpt_num(tc, "tpmC");
        co__rpt_td_num(f, "tpmC", v, 3);
        ratio_cell(f, v, co_rpt_num(t0, "tpmC"));
        for (size_t t = 0; t < CO__RPT_N_TC_TYPES; t++) {
            char path[64];
            snprintf(path, sizeof(path), "transactions.%s.p95_ms", co__rpt_tc_types[t]);
            v = co_rpt_num(tc, path);
            co__rpt_td_num(f, path, v, 3);
            ratio_cell(f, v, co_rpt_num(t0, path));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

void co__rpt_kinds_cmp(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    bool kinds = false, tpcc = false;
    for (size_t i = 0; i < n; i++) {
        kinds = kinds || json_object_size(co_rpt_get(runs[i]->root, "totals.kinds")) > 0;
        tpcc = tpcc || json_is_object(json_object_get(runs[i]->root, "tpcc"));
    }
    if (!kinds && !tpcc)
        return;
    fputs("<section id=\"kinds-cmp\"><h2>Comparison per kind</h2>\n", f);
    if (tpcc)
        tpcc_cmp(f, runs, n);
    if (kinds)
        kinds_cmp(f, runs, n);
    fputs("</section>\n", f);
}

void co__rpt_kinds_sweep(FILE *f, const struct co_rpt_file *sweep, size_t n)
{
    static const char *const stats[] = {"mean", "stddev", "min", "max"};
    const json_t *pts = json_object_get(sweep->root, "points");
    if (co_rpt_get(json_array_get(pts, 0), "tpmC") == NULL)
        return;
    char id[48];
    snprintf(id, sizeof(id), "sweep-%zu-tpmC", n);
    co__rpt_canvas(f, id, "TPC-C tpmC against threads: mean, min-max bars");
    fprintf(f, "<table id=\"sweep-tpmc-table-%zu\"><tr><th>threads</th>", n);
    for (size_t s = 0; s < 4; s++)
        fprintf(f, "<th>tpmC %s</th>", stats[s]);
    fputs("</tr>\n", f);
    size_t i;
    json_t *p;
    json_array_foreach(pts, i, p)
    {
        fputs("<tr>", f);
        co__rpt_td_num(f, "threads", co_rpt_num(p, "threads"), 0);
        for (size_t s = 0; s < 4; s++) {
            char path[32];
            snprintf(path, sizeof(path), "tpmC.%s", stats[s]);
            co__rpt_td_num(f, path, co_rpt_num(p, path), 3);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

const char co__rpt_kinds_js[] =
    "D.runs.forEach(function (r, n) {\n"
    "  const names = Object.keys(r.kinds || {});\n"
    "  if (!names.length) return;\n"
    "  const sets = [];\n"
    "  names.forEach(function (k, i) {\n"
    "    sets.push(ds(k + ' p95', xy(r.t, r.kinds[k].p95), i));\n"
    "    sets.push(ds(k + ' p99', xy(r.t, r.kinds[k].p99), i, {borderDash: [4, 3]}));\n"
    "  });\n"
    "  chart('kinds-lat-' + n, 'line', sets, 'seconds', 'ms (log)', {yType: 'logarithmic'});\n"
    "});\n"
    "D.sweeps.forEach(function (s, n) {\n"
    "  if (!s.tpmC) return;\n"
    "  chart('sweep-' + n + '-tpmC', 'bar', [\n"
    "    ds('tpmC mean', s.tpmC.mean, 2, {type: 'line', pointRadius: 4}),\n"
    "    ds('tpmC min-max', s.tpmC.min.map((v, i) => [v, s.tpmC.max[i]]), 2,\n"
    "      {backgroundColor: C[2] + '55', barPercentage: 0.15})],\n"
    "    'threads', 'tpmC', {labels: s.threads, xType: 'category', x: {}});\n"
    "});\n"
    "document.body.setAttribute('data-kinds-done', '1');\n";
