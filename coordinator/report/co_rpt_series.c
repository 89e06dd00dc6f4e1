/* co_rpt_series: per-kind and the families' series over time (see
 * co_rpt_series.h). */
#include "co_rpt_series.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "co_rpt_draw.h"
#include "co_rpt_family.h"

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
            json_array_append_new(tps, co_rpt_num_or_null(ai, "tps"));
            json_array_append_new(p95, co_rpt_num_or_null(ai, "p95_ms"));
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
    co_rpt_canvas(f, id, "Per agent: tps over time");
    snprintf(id, sizeof(id), "agent-p95-%zu", n);
    co_rpt_canvas(f, id, "Per agent: p95 latency over time");
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
    json_object_foreach(names, name, v)
        json_object_set_new(krate, name, co_rpt_rate_series(ivs, name, 1));
    json_object_set_new(r, "krate", krate);
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++)
        if (fam->series_data && co_rpt_family_in(fam, run->root))
            fam->series_data(r, run, names);
    json_decref(names);
}

void co__rpt_series_run(FILE *f, const struct co_rpt_file *run, size_t n)
{
    json_t *names = json_object();
    kind_names(names, run->root);
    char id[32];
    if (json_object_size(names) > 0) {
        snprintf(id, sizeof(id), "krate-%zu", n);
        co_rpt_canvas(f, id, "Per kind: count per second over time");
    }
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++)
        if (fam->series_run && co_rpt_family_in(fam, run->root))
            fam->series_run(f, names, n);
    json_decref(names);
}

void co__rpt_series_cmp(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    json_t *names = json_object();
    for (size_t i = 0; i < n; i++)
        kind_names(names, runs[i]->root);
    char id[48];
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++) {
        bool in = false;
        for (size_t r = 0; r < n; r++)
            in = in || co_rpt_family_in(fam, runs[r]->root);
        if (fam->series_cmp && in)
            fam->series_cmp(f, names);
    }
    if (json_object_size(names) > 0) {
        fputs("<h3>Per kind: count per second over time</h3>\n<div class=\"grid\">\n", f);
        size_t k = 0;
        const char *name;
        json_t *v;
        json_object_foreach(names, name, v)
        {
            snprintf(id, sizeof(id), "cmp-krate-%zu", k++);
            co_rpt_grid_canvas(f, id, "krate", name, "per second");
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
    "  return KSER[what] ? KSER[what](r, k) : null;\n"
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
    "});\n"
    "if (D.runs.length > 1) {\n"
    "  document.querySelectorAll('canvas[data-what]').forEach(function (c) {\n"
    "    const what = c.getAttribute('data-what'), k = c.getAttribute('data-kind');\n"
    "    const sets = [];\n"
    "    D.runs.forEach(function (r, i) {\n"
    "      const y = kser(r, what, k);\n"
    "      if (y) sets.push(ds(r.label, xy(r.t, y), i));\n"
    "    });\n"
    "    chart(c.id, 'line', sets, 'seconds', KUNIT[what] || 'per second');\n"
    "  });\n"
    "}\n"
    "document.body.setAttribute('data-series-done', '1');\n";
