/* co_rpt_kinds: per-kind parts of the report and the families' sections
 * (see co_rpt_kinds.h). */
#include "co_rpt_kinds.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "co_rpt_draw.h"
#include "co_rpt_family.h"

static const struct {
    const char *head, *path;
    int dec;
} kind_cols[] = {{"count", "count", 0},           {"errors", "errors", 0},
                 {"avg ms", "latency_ms.avg", 3}, {"p95 ms", "latency_ms.p95", 3},
                 {"p99 ms", "latency_ms.p99", 3}, {"max ms", "latency_ms.max", 3}};
#define N_KIND_COLS (sizeof(kind_cols) / sizeof(kind_cols[0]))

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
                json_object_set_new(kinds, name, o);
            }
            for (size_t q = 0; q < 2; q++) {
                char path[32];
                snprintf(path, sizeof(path), "latency_ms.%s", qs[q]);
                json_array_set_new(co_rpt_series_at(o, qs[q], n), i, co_rpt_num_or_null(k, path));
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
        co_rpt_td_str(f, name);
        for (size_t c = 0; c < N_KIND_COLS; c++)
            co_rpt_td_num(f, kind_cols[c].path, co_rpt_num(k, kind_cols[c].path), kind_cols[c].dec);
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
        co_rpt_canvas(f, id, "Per kind: p95 and p99 latency over time (log axis)");
    }
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++) /* a family's own member */
        if (fam->run_html && co_rpt_family_in(fam, run->root))
            fam->run_html(f, json_object_get(run->root, fam->json_key), n);
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
                co_rpt_td_str(f, name);
                co_rpt_td_str(f, runs[r]->label);
                for (size_t c = 0; c < N_KIND_COLS; c++) {
                    double v = co_rpt_num(kr, kind_cols[c].path);
                    co_rpt_td_num(f, kind_cols[c].path, v, kind_cols[c].dec);
                    co_rpt_td_ratio(f, v, co_rpt_num(k0, kind_cols[c].path));
                }
                fputs("</tr>\n", f);
            }
        }
    }
    json_decref(seen);
    fputs("</table>\n", f);
}

/* Whether a family owns a member of root. */
static bool any_family(const json_t *root)
{
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++)
        if (co_rpt_family_in(fam, root))
            return true;
    return false;
}

static bool family_in_any(const struct co_rpt_family *fam, const struct co_rpt_file **runs,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (co_rpt_family_in(fam, runs[i]->root))
            return true;
    return false;
}

void co__rpt_kinds_cmp(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    bool kinds = false, fams = false;
    for (size_t i = 0; i < n; i++) {
        kinds = kinds || json_object_size(co_rpt_get(runs[i]->root, "totals.kinds")) > 0;
        fams = fams || any_family(runs[i]->root);
    }
    if (!kinds && !fams)
        return;
    fputs("<section id=\"kinds-cmp\"><h2>Comparison per kind</h2>\n", f);
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++)
        if (fam->cmp_html && family_in_any(fam, runs, n))
            fam->cmp_html(f, runs, n);
    if (kinds)
        kinds_cmp(f, runs, n);
    fputs("</section>\n", f);
}

void co__rpt_kinds_sweep(FILE *f, const struct co_rpt_file *sweep, size_t n)
{
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++)
        if (fam->sweep_html)
            fam->sweep_html(f, sweep, n);
}

const char co__rpt_kinds_js[] =
    "const KSER = {}, KUNIT = {krate: 'per second'};\n"
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
    "document.body.setAttribute('data-kinds-done', '1');\n";
