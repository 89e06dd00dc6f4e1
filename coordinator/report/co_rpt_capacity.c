/* co_rpt_capacity: a capacity search's report (see co_rpt_capacity.h). */
#include "co_rpt_capacity.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "co_rpt_draw.h"
#include "co_rpt_html.h"
#include "co_rpt_page.h"

static const char *workload(const json_t *root)
{
    const char *w = json_string_value(json_object_get(root, "workload"));
    return w != NULL && w[0] ? w : "(workload not named)";
}

static bool flag(const json_t *step, const char *key)
{
    return json_is_true(json_object_get(step, key));
}

/* What a step's verdict says: met, missed, failed, with its notes. */
static const char *verdict(const json_t *s)
{
    json_int_t status = json_integer_value(json_object_get(s, "status"));
    if (status != 0 && status != 3)
        return "failed";
    if (flag(s, "retried"))
        return "missed, run again";
    return flag(s, "ok") ? "met" : "missed";
}

static const char *notes(const json_t *s)
{
    if (flag(s, "client_busy"))
        return "client saturated";
    if (flag(s, "saturated"))
        return "client lag";
    return "";
}

/* Why a step missed: the SLO terms with their measured values, or the rate
 * it fell short of (the JSON's "why"; older files: the reason alone). */
static const char *why(const json_t *s)
{
    if (flag(s, "ok"))
        return "";
    const char *w = json_string_value(json_object_get(s, "why"));
    if (w != NULL)
        return w;
    return flag(s, "passed") ? "the open loop fell behind (< 90% of arrivals completed)" : "";
}

/* "p99<=50ms, errors<=0.1%" from capacity.slo[]. */
static void print_slo(FILE *out, const json_t *slo)
{
    size_t i;
    json_t *t;
    json_array_foreach(slo, i, t)
    {
        const char *term = json_string_value(t);
        fprintf(out, "%s%s", i ? ", " : "", term ? term : "?");
    }
}

static void print_headline(FILE *out, const json_t *cap)
{
    double rate = co_rpt_num(cap, "rate");
    const json_t *br = json_object_get(cap, "bracket");
    double bad = json_number_value(json_array_get(br, 1));
    const char *stopped = json_string_value(json_object_get(cap, "stopped"));
    if (isfinite(rate) && json_is_number(json_array_get(br, 1)))
        fprintf(out, "capacity: %.0f/s (bracket %.0f..%.0f/s)\n", rate, rate, bad);
    else if (isfinite(rate))
        fprintf(out, "capacity: at least %.0f/s (no step above it missed the SLO)\n", rate);
    else
        fprintf(out, "capacity: none found (no step met the SLO)\n");
    if (stopped != NULL)
        fprintf(out, "stopped early: %s\n", stopped);
}

int co_rpt_capacity_text(FILE *out, const struct co_rpt_file *f)
{
    const json_t *cap = json_object_get(f->root, "capacity");
    const json_t *steps = json_object_get(f->root, "steps");
    char b[5][32];
    fprintf(out, "== %s: capacity search of %s under the SLO ", f->label, workload(f->root));
    print_slo(out, json_object_get(cap, "slo"));
    fprintf(out, " (precision %s%%)\n",
            co_rpt_fmt(b[0], sizeof(b[0]), co_rpt_num(cap, "precision_pct"), 1));
    print_headline(out, cap);
    fprintf(out, "%4s %10s %11s %9s %9s %9s %7s  %s\n", "step", "offered/s", "achieved/s", "p50 ms",
            "p95 ms", "p99 ms", "errors", "SLO");
    size_t i;
    json_t *s;
    json_array_foreach(steps, i, s)
    {
        const char *n = notes(s), *w = why(s);
        fprintf(out, "%4zu %10s %11s %9s %9s %9s %7s  %s%s%s%s%s%s\n", i + 1,
                co_rpt_fmt(b[0], sizeof(b[0]), co_rpt_num(s, "rate"), 0),
                co_rpt_fmt(b[1], sizeof(b[1]), co_rpt_num(s, "achieved"), 1),
                co_rpt_fmt(b[2], sizeof(b[2]), co_rpt_num(s, "latency_ms.p50"), 2),
                co_rpt_fmt(b[3], sizeof(b[3]), co_rpt_num(s, "latency_ms.p95"), 2),
                co_rpt_fmt(b[4], sizeof(b[4]), co_rpt_num(s, "latency_ms.p99"), 2),
                co_rpt_fmt((char[32]){0}, 32, co_rpt_num(s, "errors"), 0), verdict(s),
                w[0] ? ": " : "", w, n[0] ? " [" : "", n, n[0] ? "]" : "");
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
}

/* The curve: steps sorted by rate in the page's script. */
static const char capacity_js[] =
    "(function () {\n"
    "  const c = D.capacity, st = D.steps.filter(s => !s.retried && s.latency_ms.p99 != null)\n"
    "    .slice().sort((a, b) => a.rate - b.rate);\n"
    "  const pt = (s, k) => ({x: s.rate, y: s.latency_ms[k]});\n"
    "  const sets = ['p50', 'p95', 'p99'].map((k, i) => ds(k + ' ms', st.map(s => pt(s, k)), i,\n"
    "    {pointRadius: 2}));\n"
    "  sets.push(ds('met the SLO', st.filter(s => s.ok).map(s => pt(s, 'p99')), 2,\n"
    "    {type: 'scatter', showLine: false, pointRadius: 6}));\n"
    "  sets.push(ds('missed the SLO', st.filter(s => !s.ok).map(s => pt(s, 'p99')), 1,\n"
    "    {type: 'scatter', showLine: false, pointRadius: 8, pointStyle: 'crossRot',\n"
    "     borderWidth: 2}));\n"
    "  const xs = st.map(s => s.rate), ys = [].concat(...sets.map(d => d.data.map(p => p.y)));\n"
    "  const x0 = Math.min(...xs), x1 = Math.max(...xs);\n"
    "  /* A latency term of the SLO (pNN<=Xms, pNN<Xs) as a horizontal line. */\n"
    "  const unit = {us: 0.001, ms: 1, s: 1000};\n"
    "  c.slo.forEach(function (t) {\n"
    "    const m = /^p[0-9.]+<=?([0-9.]+)(us|ms|s)$/.exec(t.replace(/\\s/g, ''));\n"
    "    if (!m) return;\n"
    "    const v = parseFloat(m[1]) * unit[m[2]];\n"
    "    ys.push(v);\n"
    "    sets.push(ds('SLO ' + t, [{x: x0, y: v}, {x: x1, y: v}], 3, {borderDash: [6, 4]}));\n"
    "  });\n"
    "  if (c.rate != null) sets.push(ds('capacity ' + c.rate + '/s', [{x: c.rate,\n"
    "    y: Math.min(...ys)}, {x: c.rate, y: Math.max(...ys)}], 4, {borderDash: [2, 2]}));\n"
    "  chart('cap-curve', 'line', sets, 'offered rate (events/s)', 'latency ms',\n"
    "    {yType: 'logarithmic'});\n"
    "  document.body.setAttribute('data-charts-done', '1');\n"
    "})();\n";

/* The steps table's numbers: data-k key, the step's member, decimals. */
static const struct {
    const char *key, *path;
    int decimals;
} step_cols[] = {{"rate", "rate", 0},          {"achieved", "achieved", 1},
                 {"p50", "latency_ms.p50", 2}, {"p95", "latency_ms.p95", 2},
                 {"p99", "latency_ms.p99", 2}, {"errors", "errors", 0}};

static void write_steps(FILE *out, const json_t *steps)
{
    fputs("<table id=\"cap-steps\"><tr><th>step</th><th>offered/s</th><th>achieved/s</th>"
          "<th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>errors</th><th>SLO</th>"
          "<th>why missed</th><th>notes</th><th>run JSON</th></tr>\n",
          out);
    size_t i;
    json_t *s;
    json_array_foreach(steps, i, s)
    {
        fprintf(out, "<tr data-step=\"%zu\" data-ok=\"%d\"><td>%zu</td>", i + 1, flag(s, "ok"),
                i + 1);
        for (size_t c = 0; c < sizeof(step_cols) / sizeof(step_cols[0]); c++)
            co_rpt_td_num(out, step_cols[c].key, co_rpt_num(s, step_cols[c].path),
                          step_cols[c].decimals);
        co_rpt_td_str(out, verdict(s));
        co_rpt_td_str(out, why(s));
        co_rpt_td_str(out, notes(s));
        co_rpt_td_str(out, json_string_value(json_object_get(s, "file")));
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

int co_rpt_capacity_html(FILE *out, const struct co_rpt_file *f, const char *chartjs)
{
    const json_t *cap = json_object_get(f->root, "capacity");
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>stampede "
          "capacity: ",
          out);
    co_rpt_esc(out, f->label);
    fprintf(out, "</title>\n<style>\n%s</style>\n<script>\n%s\n</script>\n</head><body>\n",
            co__rpt_css, chartjs);
    fprintf(out, "<h1>stampede capacity search</h1>\n<p class=\"note\">Made by stampede %s from ",
            STAMPEDE_VERSION);
    co_rpt_esc(out, f->path);
    fputs(". Self-contained: Chart.js (Debian libjs-chart.js) is inlined, nothing is "
          "fetched.</p>\n",
          out);
    json_t *d = json_pack("{s:O,s:O}", "capacity", cap, "steps", json_object_get(f->root, "steps"));
    co_rpt_html_data(out, d);
    json_decref(d);
    fputs("<section id=\"capacity\"><h2>Capacity under the SLO</h2>\n<pre id=\"cap-headline\">",
          out);
    char *head = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&head, &len);
    if (mem != NULL) {
        fputs("workload ", mem);
        fputs(workload(f->root), mem);
        fputs(", SLO ", mem);
        print_slo(mem, json_object_get(cap, "slo"));
        fputc('\n', mem);
        print_headline(mem, cap);
        fclose(mem);
        co_rpt_esc(out, head);
    }
    free(head);
    fputs("</pre>\n", out);
    co_rpt_canvas(out, "cap-curve", "Latency against the offered rate (steps run again left out)");
    write_steps(out, json_object_get(f->root, "steps"));
    fprintf(out, "</section>\n<script>\n%s%s</script>\n</body></html>\n", co__rpt_js, capacity_js);
    return fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
}
