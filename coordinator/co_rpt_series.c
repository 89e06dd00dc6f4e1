/* co_rpt_series: per-kind and per-transaction-type series over time (see
 * co_rpt_series.h). */
#include "co_rpt_series.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "co_rpt_kinds.h"
#include "co_rpt_section.h"

/* The kinds any charted interval of run has (the tail after the stop,
 * printed false, is not drawn), in the order they first appear, as the
 * keys of names (values true). */
static void kind_names(json_t *names, const json_t *root)
{
    size_t i;
    json_t *iv;
    json_array_foreach(json_object_get(root, "intervals"), i, iv)
    {
        const char *name;
        json_t *k;
        if (json_is_false(json_object_get(iv, "printed")))
            continue;
        json_object_foreach(json_object_get(iv, "kinds"), name, k)
        {
            if (json_object_get(names, name) == NULL)
                json_object_set_new(names, name, json_true());
        }
    }
}

/* Kind name's count per interval times scale, divided by the interval's
 * length: 0 where the interval has kinds but not this one, null where it
 * has none or no length. */
static json_t *rate_series(const json_t *ivs, const char *name, double scale)
{
    json_t *a = json_array();
    size_t i;
    json_t *iv;
    json_array_foreach(ivs, i, iv)
    {
        const json_t *kinds = json_object_get(iv, "kinds");
        double len = co_rpt_num(iv, "len_s");
        if (!json_is_object(kinds) || !isfinite(len) || len <= 0) {
            json_array_append_new(a, json_null());
            continue;
        }
        double c = co_rpt_num(json_object_get(kinds, name), "count");
        json_array_append_new(a, json_real((isfinite(c) ? c : 0.0) * scale / len));
    }
    return a;
}

/* Kind name's p95 per interval, null where the interval lacks it. */
static json_t *p95_series(const json_t *ivs, const char *name)
{
    json_t *a = json_array();
    size_t i;
    json_t *iv;
    json_array_foreach(ivs, i, iv)
    {
        double v =
            co_rpt_num(json_object_get(json_object_get(iv, "kinds"), name), "latency_ms.p95");
        json_array_append_new(a, isfinite(v) ? json_real(v) : json_null());
    }
    return a;
}

static bool is_tpcc(const json_t *root)
{
    return json_is_object(json_object_get(root, "tpcc"));
}

static bool has_per_agent(const json_t *ivs)
{
    size_t i;
    json_t *iv;
    json_array_foreach(ivs, i, iv) if (json_is_array(json_object_get(iv, "per_agent"))) return true;
    return false;
}

/* Per agent of the run: its tps and p95 per interval, null where the
 * interval has no figures of it. */
static json_t *agent_series(const json_t *root)
{
    const json_t *ivs = json_object_get(root, "intervals");
    json_t *out = json_array();
    for (size_t a = 0; a < json_array_size(json_object_get(root, "agents")); a++) {
        json_t *tps = json_array(), *p95 = json_array();
        size_t i;
        json_t *iv;
        json_array_foreach(ivs, i, iv)
        {
            const json_t *ai = json_array_get(json_object_get(iv, "per_agent"), a);
            double t = co_rpt_num(ai, "tps"), p = co_rpt_num(ai, "p95_ms");
            json_array_append_new(tps, isfinite(t) ? json_real(t) : json_null());
            json_array_append_new(p95, isfinite(p) ? json_real(p) : json_null());
        }
        json_array_append_new(out, json_pack("{s:o,s:o}", "tps", tps, "p95", p95));
    }
    return out;
}

void co__rpt_series_agents(FILE *f, const struct co_rpt_file *run, size_t n)
{
    char id[32];
    if (!has_per_agent(json_object_get(run->root, "intervals"))) {
        fputs("<p class=\"note\">This JSON (an older one) holds per-agent totals only, no "
              "per-agent time series (intervals[].per_agent).</p>\n",
              f);
        return;
    }
    snprintf(id, sizeof(id), "agent-tps-%zu", n);
    co__rpt_canvas(f, id, "Per agent: tps over time");
    snprintf(id, sizeof(id), "agent-p95-%zu", n);
    co__rpt_canvas(f, id, "Per agent: p95 latency over time");
}

void co__rpt_series_data(json_t *r, const struct co_rpt_file *run)
{
    const json_t *ivs = json_object_get(run->root, "intervals");
    if (has_per_agent(ivs))
        json_object_set_new(r, "agent_t", agent_series(run->root));
    json_t *names = json_object(), *krate = json_object();
    kind_names(names, run->root);
    const char *name;
    json_t *v;
    json_object_foreach(names, name, v) json_object_set_new(krate, name, rate_series(ivs, name, 1));
    json_object_set_new(r, "krate", krate);
    if (is_tpcc(run->root)) {
        json_t *tc = json_object();
        for (size_t t = 0; t < CO__RPT_N_TC_TYPES; t++) {
            const char *ty = co__rpt_tc_types[t];
            if (json_object_get(names, ty) == NULL)
                continue;
            json_object_set_new(tc, ty,
                                json_pack("{s:o,s:o}", "rate", rate_series(ivs, ty, 60), "p95",
                                          p95_series(ivs, ty)));
        }
        json_object_set_new(r, "tc", tc);
    }
    json_decref(names);
}

void co__rpt_series_run(FILE *f, const struct co_rpt_file *run, size_t n)
{
    json_t *names = json_object();
    kind_names(names, run->root);
    char id[32];
    if (json_object_size(names) > 0) {
        snprintf(id, sizeof(id), "krate-%zu", n);
        co__rpt_canvas(f, id, "Per kind: count per second over time");
    }
    if (is_tpcc(run->root) && json_object_get(names, "new_order") != NULL) {
        snprintf(id, sizeof(id), "tc-rate-%zu", n);
        co__rpt_canvas(f, id,
                       "TPC-C: transactions per minute by type over time (new_order: tpmC over "
                       "time)");
        snprintf(id, sizeof(id), "tc-p95-%zu", n);
        co__rpt_canvas(f, id, "TPC-C: p95 latency by transaction type over time");
        fputs("<p class=\"note\">Over time the warm-up is included; the tpmC in the tables counts "
              "the measured window only.</p>\n",
              f);
    }
    json_decref(names);
}

/* A small chart of the grid: its id, which series the script draws
 * (series: krate, tc-rate, tc-p95) for which kind, under a title of the
 * kind's name and unit. */
static void grid_canvas(FILE *f, const char *id, const char *series, const char *kind,
                        const char *unit)
{
    fputs("<div><h4>", f);
    co__rpt_esc(f, kind);
    fprintf(f,
            ": %s</h4><div class=\"chart small\"><canvas id=\"%s\" data-what=\"%s\" data-kind=\"",
            unit, id, series);
    co__rpt_esc(f, kind);
    fputs("\"></canvas></div></div>\n", f);
}

void co__rpt_series_cmp(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    json_t *names = json_object();
    bool tpcc = false;
    for (size_t i = 0; i < n; i++) {
        kind_names(names, runs[i]->root);
        tpcc = tpcc || is_tpcc(runs[i]->root);
    }
    char id[48];
    if (tpcc && json_object_get(names, "new_order") != NULL) {
        co__rpt_canvas(f, "cmp-tpmc", "TPC-C: tpmC over time (new_order per minute)");
        fputs("<h3>TPC-C by transaction type over time: rate (left), p95 (right)</h3>\n"
              "<div class=\"grid pairs\">\n",
              f);
        for (size_t t = 0; t < CO__RPT_N_TC_TYPES; t++) {
            if (json_object_get(names, co__rpt_tc_types[t]) == NULL)
                continue;
            snprintf(id, sizeof(id), "cmp-tc-rate-%zu", t);
            grid_canvas(f, id, "tc-rate", co__rpt_tc_types[t], "per minute");
            snprintf(id, sizeof(id), "cmp-tc-p95-%zu", t);
            grid_canvas(f, id, "tc-p95", co__rpt_tc_types[t], "p95 ms");
        }
        fputs("</div>\n", f);
    }
    if (json_object_size(names) > 0) {
        fputs("<h3>Per kind: count per second over time</h3>\n<div class=\"grid\">\n", f);
        size_t k = 0;
        const char *name;
        json_t *v;
        json_object_foreach(names, name, v)
        {
            snprintf(id, sizeof(id), "cmp-krate-%zu", k++);
            grid_canvas(f, id, "krate", name, "per second");
        }
        fputs("</div>\n", f);
    }
    json_decref(names);
}

const char co__rpt_series_js[] =
    "function kser(r, what, k) {\n"
    "  if (what === 'krate') {\n"
    "    if (!r.krate) return null;\n"
    "    if (r.krate[k]) return r.krate[k];\n"
    "    /* a run without this kind: 0 where it has other kinds (as rate_series) */\n"
    "    const any = Object.values(r.krate)[0];\n"
    "    return any ? any.map(v => v === null ? null : 0) : null;\n"
    "  }\n"
    "  const o = r.tc && r.tc[k];\n"
    "  return o && (what === 'tc-rate' ? o.rate : o.p95);\n"
    "}\n"
    "D.runs.forEach(function (r, n) {\n"
    "  if (r.agent_t) {\n"
    "    chart('agent-tps-' + n, 'line', r.agent_t.map((a, i) => ds(r.agents[i].name,\n"
    "      xy(r.t, a.tps), i)), 'seconds', 'tps');\n"
    "    chart('agent-p95-' + n, 'line', r.agent_t.map((a, i) => ds(r.agents[i].name + ' p95',\n"
    "      xy(r.t, a.p95), i)), 'seconds', 'ms');\n"
    "  }\n"
    "  const names = Object.keys(r.krate || {});\n"
    "  if (names.length) chart('krate-' + n, 'line', names.map((k, i) => ds(k, xy(r.t, "
    "r.krate[k]),\n"
    "    i)), 'seconds', 'per second');\n"
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
    "  document.querySelectorAll('canvas[data-what]').forEach(function (c) {\n"
    "    const what = c.getAttribute('data-what'), k = c.getAttribute('data-kind');\n"
    "    const sets = [];\n"
    "    D.runs.forEach(function (r, i) {\n"
    "      const y = kser(r, what, k);\n"
    "      if (y) sets.push(ds(r.label, xy(r.t, y), i));\n"
    "    });\n"
    "    chart(c.id, 'line', sets, 'seconds', what === 'tc-p95' ? 'ms' : what === 'tc-rate' ?\n"
    "      'per minute' : 'per second');\n"
    "  });\n"
    "}\n"
    "document.body.setAttribute('data-series-done', '1');\n";
