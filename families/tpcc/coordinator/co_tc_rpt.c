/* co_tc_rpt: the tpcc family's part of the report tool (co_rpt_family.h):
 * its "tpcc" --json member as tables (tpmC, per transaction type), tpmC
 * as the headline of the text comparison and of a sweep, and each
 * transaction type's rate per minute (new_order's: tpmC over time) and
 * p95 over time from the run's intervals[].kinds. The series cover the
 * whole run, the warm-up included: the tables' tpmC counts the measured
 * window only. */
#include "co_tc_rpt.h"

#include <stdbool.h>
#include <string.h>

#include "co_rpt_draw.h"
#include "co_rpt_family.h"

/* The five TPC-C transaction types, as the "tpcc" object and the kinds
 * name them, in tpcc-mysql's order. */
#define N_TC_TYPES 5
static const char *const tc_types[N_TC_TYPES] = {"new_order", "payment", "order_status", "delivery",
                                                 "stock_level"};
static const struct {
    const char *head, *path;
    int dec;
} tc_cols[] = {{"sc", "sc", 0},         {"lt", "lt", 0},         {"rt", "rt", 0},
               {"fl", "fl", 0},         {"avg ms", "avg_ms", 3}, {"p90 ms", "p90_ms", 3},
               {"p95 ms", "p95_ms", 3}, {"p99 ms", "p99_ms", 3}, {"max ms", "max_ms", 3}};
#define N_TC_COLS (sizeof(tc_cols) / sizeof(tc_cols[0]))

static void tc_run_html(FILE *f, const json_t *tc, size_t n)
{
    fprintf(f,
            "<h3>TPC-C</h3><table id=\"tpcc-sum-%zu\"><tr><th>tpmC</th><th>New-Orders in the "
            "window</th><th>window s</th></tr>\n<tr>",
            n);
    co_rpt_td_num(f, "tpmC", co_rpt_num(tc, "tpmC"), 3);
    co_rpt_td_num(f, "new_orders", co_rpt_num(tc, "new_orders"), 0);
    co_rpt_td_num(f, "window_s", co_rpt_num(tc, "window_s"), 0);
    fputs("</tr></table>\n", f);
    fprintf(f, "<table id=\"tpcc-table-%zu\"><tr><th>transaction</th>", n);
    for (size_t c = 0; c < N_TC_COLS; c++)
        fprintf(f, "<th>%s</th>", tc_cols[c].head);
    fputs("</tr>\n", f);
    const json_t *tx = json_object_get(tc, "transactions");
    for (size_t t = 0; t < N_TC_TYPES; t++) {
        const json_t *o = json_object_get(tx, tc_types[t]);
        if (o == NULL)
            continue;
        fputs("<tr>", f);
        co_rpt_td_str(f, tc_types[t]);
        for (size_t c = 0; c < N_TC_COLS; c++)
            co_rpt_td_num(f, tc_cols[c].path, co_rpt_num(o, tc_cols[c].path), tc_cols[c].dec);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void tc_cmp_html(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    fputs("<h3>TPC-C</h3><table id=\"tpcc-cmp-table\"><tr><th>run</th><th>tpmC</th>"
          "<th>vs 1st</th>",
          f);
    for (size_t t = 0; t < N_TC_TYPES; t++)
        fprintf(f, "<th>%s p95 ms</th><th>vs 1st</th>", tc_types[t]);
    fputs("</tr>\n", f);
    const json_t *t0 = json_object_get(runs[0]->root, "tpcc");
    for (size_t r = 0; r < n; r++) {
        const json_t *tc = json_object_get(runs[r]->root, "tpcc");
        fputs("<tr>", f);
        co_rpt_td_str(f, runs[r]->label);
        double v = co_rpt_num(tc, "tpmC");
        co_rpt_td_num(f, "tpmC", v, 3);
        co_rpt_td_ratio(f, v, co_rpt_num(t0, "tpmC"));
        for (size_t t = 0; t < N_TC_TYPES; t++) {
            char path[64];
            snprintf(path, sizeof(path), "transactions.%s.p95_ms", tc_types[t]);
            v = co_rpt_num(tc, path);
            co_rpt_td_num(f, path, v, 3);
            co_rpt_td_ratio(f, v, co_rpt_num(t0, path));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void tc_series_data(json_t *r, const struct co_rpt_file *run, const json_t *names)
{
    const json_t *ivs = json_object_get(run->root, "intervals");
    json_t *tc = json_object();
    for (size_t t = 0; t < N_TC_TYPES; t++) {
        const char *ty = tc_types[t];
        if (json_object_get(names, ty) == NULL)
            continue;
        json_object_set_new(tc, ty,
                            json_pack("{s:o,s:o}", "rate", co_rpt_rate_series(ivs, ty, 60), "p95",
                                      co_rpt_p95_series(ivs, ty)));
    }
    json_object_set_new(r, "tc", tc);
}

static void tc_series_run(FILE *f, const json_t *names, size_t n)
{
    char id[32];
    if (json_object_get(names, "new_order") == NULL)
        return;
    snprintf(id, sizeof(id), "tc-rate-%zu", n);
    co_rpt_canvas(f, id,
                  "TPC-C: transactions per minute by type over time (new_order: tpmC over "
                  "time)");
    snprintf(id, sizeof(id), "tc-p95-%zu", n);
    co_rpt_canvas(f, id, "TPC-C: p95 latency by transaction type over time");
    fputs("<p class=\"note\">Over time the warm-up is included; the tpmC in the tables counts "
          "the measured window only.</p>\n",
          f);
}

static void tc_series_cmp(FILE *f, const json_t *names)
{
    char id[48];
    if (json_object_get(names, "new_order") == NULL)
        return;
    co_rpt_canvas(f, "cmp-tpmc", "TPC-C: tpmC over time (new_order per minute)");
    fputs("<h3>TPC-C by transaction type over time: rate (left), p95 (right)</h3>\n"
          "<div class=\"grid pairs\">\n",
          f);
    for (size_t t = 0; t < N_TC_TYPES; t++) {
        if (json_object_get(names, tc_types[t]) == NULL)
            continue;
        snprintf(id, sizeof(id), "cmp-tc-rate-%zu", t);
        co_rpt_grid_canvas(f, id, "tc-rate", tc_types[t], "per minute");
        snprintf(id, sizeof(id), "cmp-tc-p95-%zu", t);
        co_rpt_grid_canvas(f, id, "tc-p95", tc_types[t], "p95 ms");
    }
    fputs("</div>\n", f);
}

static void tc_sweep_html(FILE *f, const struct co_rpt_file *sweep, size_t n)
{
    static const char *const stats[] = {"mean", "stddev", "min", "max"};
    const json_t *pts = json_object_get(sweep->root, "points");
    if (co_rpt_get(json_array_get(pts, 0), "tpmC") == NULL)
        return;
    char id[48];
    snprintf(id, sizeof(id), "sweep-%zu-tpmC", n);
    co_rpt_canvas(f, id, "TPC-C tpmC against threads: mean, min-max bars");
    fprintf(f, "<table id=\"sweep-tpmc-table-%zu\"><tr><th>threads</th>", n);
    for (size_t s = 0; s < 4; s++)
        fprintf(f, "<th>tpmC %s</th>", stats[s]);
    fputs("</tr>\n", f);
    size_t i;
    json_t *p;
    json_array_foreach(pts, i, p)
    {
        fputs("<tr>", f);
        co_rpt_td_num(f, "threads", co_rpt_num(p, "threads"), 0);
        for (size_t s = 0; s < 4; s++) {
            char path[32];
            snprintf(path, sizeof(path), "tpmC.%s", stats[s]);
            co_rpt_td_num(f, path, co_rpt_num(p, path), 3);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static const char tc_js[] =
    "D.sweeps.forEach(function (s, n) {\n"
    "  if (!s.tpmC) return;\n"
    "  chart('sweep-' + n + '-tpmC', 'bar', [\n"
    "    ds('tpmC mean', s.tpmC.mean, 2, {type: 'line', pointRadius: 4}),\n"
    "    ds('tpmC min-max', s.tpmC.min.map((v, i) => [v, s.tpmC.max[i]]), 2,\n"
    "      {backgroundColor: C[2] + '55', barPercentage: 0.15})],\n"
    "    'threads', 'tpmC', {labels: s.threads, xType: 'category', x: {}});\n"
    "});\n"
    "KSER['tc-rate'] = (r, k) => r.tc && r.tc[k] && r.tc[k].rate;\n"
    "KSER['tc-p95'] = (r, k) => r.tc && r.tc[k] && r.tc[k].p95;\n"
    "KUNIT['tc-rate'] = 'per minute';\n"
    "KUNIT['tc-p95'] = 'ms';\n"
    "D.runs.forEach(function (r, n) {\n"
    "  const types = Object.keys(r.tc || {});\n"
    "  if (!types.length) return;\n"
    "  chart('tc-rate-' + n, 'line', types.map((k, i) => ds(k === 'new_order' ? 'new_order "
    "(tpmC)' : k,\n"
    "    xy(r.t, r.tc[k].rate), i)), 'seconds', 'per minute');\n"
    "  chart('tc-p95-' + n, 'line', types.map((k, i) => ds(k + ' p95', xy(r.t, r.tc[k].p95), "
    "i)),\n"
    "    'seconds', 'ms');\n"
    "});\n"
    "if (D.runs.length > 1) {\n"
    "  const tm = D.runs.filter(r => r.tc && r.tc.new_order);\n"
    "  if (tm.length) chart('cmp-tpmc', 'line', D.runs.map((r, i) => r.tc && r.tc.new_order ?\n"
    "    ds(r.label, xy(r.t, r.tc.new_order.rate), i) : null).filter(d => d), 'seconds', "
    "'tpmC');\n"
    "}\n";

const struct co_rpt_family co_tc_rpt_family = {
    .json_key = "tpcc",
    .headline = "tpmC",
    .headline_dec = 3,
    .run_html = tc_run_html,
    .cmp_html = tc_cmp_html,
    .series_data = tc_series_data,
    .series_run = tc_series_run,
    .series_cmp = tc_series_cmp,
    .sweep_html = tc_sweep_html,
    .js = tc_js,
};
