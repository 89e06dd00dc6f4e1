/* co_rpt_html: the HTML report (see co_rpt_html.h). */
#include "co_rpt_html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_draw.h"
#include "co_rpt_env.h"
#include "co_rpt_family.h"
#include "co_rpt_groups_html.h"
#include "co_rpt_kinds.h"
#include "co_rpt_page.h"
#include "co_rpt_section.h"
#include "co_rpt_series.h"
#include "co_rpt_text.h"
#include "pr_hdrlog.h"

char *co_rpt_html_chartjs(const char *path, struct pr_error *err)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        int e = errno;
        pr_error_set(err, PR_EINVAL,
                     "cannot read Chart.js from %s: %s (install Debian's libjs-chart.js: "
                     "deploy/install-deps)",
                     path, strerror(e));
        return NULL;
    }
    size_t cap = 1 << 18, len = 0, got;
    char *buf = pr_xmalloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, in)) > 0) {
        len += got;
        if (cap - len < 2) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL)
                abort();
            buf = nb;
        }
    }
    bool bad = ferror(in) != 0;
    fclose(in);
    buf[len] = '\0';
    if (bad || len == 0 || strstr(buf, "</script") != NULL) {
        pr_error_set(err, PR_EINVAL, "%s: %s", path,
                     bad ? "read error" : "not a script this page can inline");
        free(buf);
        return NULL;
    }
    return buf;
}

/* A spectrum: [1/(1-p), ms] from a latency object's p50..p99_9 and max
 * (max drawn at 99.99 %: the JSON has nothing finer). */
static json_t *spectrum(const json_t *lat)
{
    static const struct {
        const char *key;
        double p;
    } pts[] = {{"min", 0},  {"p50", 50},     {"p90", 90},   {"p95", 95},
               {"p99", 99}, {"p99_9", 99.9}, {"max", 99.99}};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
        double v = co_rpt_num(lat, pts[i].key);
        if (isfinite(v) && v > 0)
            json_array_append_new(a, json_pack("[f,f]", 1.0 / (1.0 - pts[i].p / 100.0), v));
    }
    return a;
}

/* The run's spectrum from its whole histogram (totals.histogram, V2
 * base64): one point per occupied bucket, [1/(1-p), ms] where p is the
 * fraction of samples below the bucket and ms its highest value (so the
 * point at p = 50% is the JSON's p50, as value_at_percentile gives it).
 * NULL when b64 is NULL or does not decode (the caller falls back on the
 * percentiles). */
static json_t *spectrum_of_hist(const char *b64)
{
    if (b64 == NULL)
        return NULL;
    pr_hist *h = pr_hist_new();
    struct pr_error err = {0};
    json_t *a = NULL;
    if (pr_hdrlog_decode(h, b64, strlen(b64), &err) == 0 && pr_hist_count(h) > 0) {
        a = json_array();
        uint64_t total = pr_hist_count(h), below = 0;
        struct pr_hist_iter it = PR_HIST_ITER_INIT;
        while (pr_hist_next(h, &it)) {
            double p = (double)below / (double)total;
            json_array_append_new(a, json_pack("[f,f]", 1.0 / (1.0 - p), it.value_us / 1000.0));
            below += it.count;
        }
    }
    pr_hist_destroy(&h);
    return a;
}

/* The rates of intervals[].server_status, one array per counter. */
static json_t *status_series(const json_t *ivs)
{
    json_t *st = json_object();
    size_t i, n = json_array_size(ivs);
    json_t *iv;
    json_array_foreach(ivs, i, iv)
    {
        const char *name;
        json_t *v;
        json_object_foreach(json_object_get(iv, "server_status"), name, v)
        {
            json_array_set_new(co_rpt_series_at(st, name, n), i,
                               json_is_number(v) ? json_real(json_number_value(v)) : json_null());
        }
    }
    return st;
}

/* The run as the charts see it: its intervals without the tail after the
 * stop (printed false: a remainder whose rates and percentiles are noise).
 * A shallow copy; json_decref its root. */
static struct co_rpt_file charted(const struct co_rpt_file *f)
{
    struct co_rpt_file c = *f;
    json_t *ivs = json_array(), *iv;
    size_t i;
    json_array_foreach(json_object_get(f->root, "intervals"), i, iv)
    {
        if (!json_is_false(json_object_get(iv, "printed")))
            json_array_append(ivs, iv);
    }
    c.root = json_copy(f->root);
    json_object_set_new(c.root, "intervals", ivs);
    return c;
}

static json_t *run_data(const struct co_rpt_file *whole)
{
    struct co_rpt_file shown = charted(whole), *f = &shown;
    static const struct {
        const char *key, *path;
    } series[] = {{"t", "t_s"},
                  {"tps", "tps"},
                  {"qps", "qps"},
                  {"reads", "reads_s"},
                  {"writes", "writes_s"},
                  {"other", "other_s"},
                  {"p50", "latency_ms.p50"},
                  {"p95", "latency_ms.p95"},
                  {"p99", "latency_ms.p99"},
                  {"max", "latency_ms.max"}};
    const json_t *ivs = json_object_get(f->root, "intervals");
    json_t *r = json_pack("{s:s}", "label", f->label);
    for (size_t s = 0; s < sizeof(series) / sizeof(series[0]); s++) {
        json_t *a = json_array();
        size_t i;
        json_t *iv;
        json_array_foreach(ivs, i, iv)
            json_array_append_new(a, co_rpt_num_or_null(iv, series[s].path));
        json_object_set_new(r, series[s].key, a);
    }
    json_t *marks = json_array();
    size_t i;
    json_t *iv;
    json_array_foreach(ivs, i, iv) if (json_is_true(json_object_get(iv, "late")) ||
                                       json_is_true(json_object_get(iv, "partial")))
        json_array_append_new(marks, json_integer((json_int_t)i));
    json_object_set_new(r, "marks", marks);
    double warm = co_rpt_num(json_object_get(f->root, "steady_state"), "warmup_s");
    json_object_set_new(r, "warmup_s", json_real(isfinite(warm) && warm > 0 ? warm : 0.0));
    json_object_set_new(r, "status", status_series(ivs));
    json_t *agents = json_array();
    json_t *ag;
    json_array_foreach(json_object_get(f->root, "agents"), i, ag)
    {
        const char *name = json_string_value(json_object_get(ag, "name"));
        json_t *o = json_pack("{s:s}", "name", name ? name : "?");
        json_object_set_new(o, "tps", co_rpt_num_or_null(ag, "tps"));
        json_object_set_new(o, "p95", co_rpt_num_or_null(ag, "latency_ms.p95"));
        json_object_set_new(o, "spectrum", spectrum(json_object_get(ag, "latency_ms")));
        json_array_append_new(agents, o);
    }
    json_object_set_new(r, "agents", agents);
    json_t *full = spectrum_of_hist(json_string_value(co_rpt_get(f->root, "totals.histogram")));
    json_object_set_new(r, "spectrum_full", json_boolean(full != NULL));
    json_object_set_new(r, "spectrum",
                        full ? full : spectrum(co_rpt_get(f->root, "totals.latency_ms")));
    co__rpt_kinds_data(r, f);
    co__rpt_series_data(r, f);
    json_decref(shown.root);
    return r;
}

/* A family's headline (tpmC) of sweep point p into the chart data s:
 * s[head] = {"mean": [...], "min": [...], "max": [...]}. */
static void headline_point(json_t *s, const json_t *p, const char *head)
{
    static const char *const stats[] = {"mean", "min", "max"};
    json_t *o = json_object_get(s, head);
    if (o == NULL) {
        o = json_pack("{s:[],s:[],s:[]}", "mean", "min", "max");
        json_object_set_new(s, head, o);
    }
    for (size_t j = 0; j < 3; j++) {
        char path[64];
        snprintf(path, sizeof(path), "%s.%s", head, stats[j]);
        json_array_append_new(json_object_get(o, stats[j]), co_rpt_num_or_null(p, path));
    }
}

static json_t *sweep_data(const struct co_rpt_file *f)
{
    static const char *const keys[] = {"tps", "p95_ms"};
    static const char *const stats[] = {"mean", "min", "max"};
    json_t *s = json_pack("{s:s,s:[]}", "label", f->label, "threads");
    for (size_t k = 0; k < 2; k++) {
        json_t *o = json_object();
        for (size_t j = 0; j < 3; j++)
            json_object_set_new(o, stats[j], json_array());
        json_object_set_new(s, keys[k], o);
    }
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(f->root, "points"), i, p)
    {
        char lab[32];
        co_rpt_fmt(lab, sizeof(lab), co_rpt_num(p, "threads"), 0);
        json_array_append_new(json_object_get(s, "threads"), json_string(lab));
        for (size_t k = 0; k < 2; k++)
            for (size_t j = 0; j < 3; j++) {
                char path[64];
                snprintf(path, sizeof(path), "%s.%s", keys[k], stats[j]);
                json_array_append_new(co_rpt_get(json_object_get(s, keys[k]), stats[j]),
                                      co_rpt_num_or_null(p, path));
            }
        const struct co_rpt_family *fam;
        for (size_t fi = 0; (fam = co_rpt_family_at(fi)) != NULL; fi++)
            if (fam->headline && co_rpt_get(p, fam->headline) != NULL)
                headline_point(s, p, fam->headline);
    }
    return s;
}

/* JSON text for inside a <script> element: '<', '>' and '&' in any
 * string as \u003c, \u003e, \u0026 (so no "</script" and no "<!--", which
 * would start the script-data escaped state and swallow the page's own
 * scripts), and, with JSON_ENSURE_ASCII, U+2028/U+2029 as \u escapes. JSON
 * syntax outside strings has none of the three characters. */
static void write_script_json(FILE *f, const json_t *d)
{
    char *text = json_dumps(d, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ESCAPE_SLASH);
    for (const char *p = text; p && *p; p++) {
        if (*p == '<')
            fputs("\\u003c", f);
        else if (*p == '>')
            fputs("\\u003e", f);
        else if (*p == '&')
            fputs("\\u0026", f);
        else
            fputc(*p, f);
    }
    free(text);
}

void co_rpt_html_data(FILE *f, const json_t *d)
{
    fputs("<script type=\"application/json\" id=\"stampede-data\">", f);
    write_script_json(f, d);
    fputs("</script>\n", f);
}

/* The figures block (write_script_json: nothing in it can end it early). */
static void write_data(FILE *f, const struct co_rpt_file *files, size_t n, const json_t *groups)
{
    json_t *d = json_pack("{s:[],s:[]}", "runs", "sweeps");
    if (groups != NULL)
        json_object_set_new(d, "groups", json_deep_copy(groups));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(json_object_get(d, files[i].kind == CO_RPT_RUN ? "runs" : "sweeps"),
                              files[i].kind == CO_RPT_RUN ? run_data(&files[i])
                                                          : sweep_data(&files[i]));
    co_rpt_html_data(f, d);
    json_decref(d);
}

/* The comparison (one row per run; ratios to the first when several). */
static void write_comparison(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    fputs(
        "<section id=\"comparison\"><h2>Comparison</h2>\n<table id=\"cmp-table\"><tr><th>run</th>",
        f);
    for (size_t m = 0; m < co_rpt_n_metrics; m++) {
        fprintf(f, "<th>%s</th>", co_rpt_metrics[m].head);
        if (n > 1)
            fputs("<th>vs 1st</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        fputs("<tr>", f);
        co_rpt_td_str(f, runs[i]->label);
        for (size_t m = 0; m < co_rpt_n_metrics; m++) {
            double v = co_rpt_num(runs[i]->root, co_rpt_metrics[m].path);
            co_rpt_td_num(f, co_rpt_metrics[m].path, v, co_rpt_metrics[m].decimals);
            if (n > 1)
                co_rpt_td_ratio(f, v, co_rpt_num(runs[0]->root, co_rpt_metrics[m].path));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n", f);
}

/* A diff table with id: a row per key, a value per run, the change. */
static void write_env_table(FILE *f, const char *id, const struct co_rpt_file **runs, size_t n,
                            const struct co_rpt_env *envs, const char **keys, size_t nk)
{
    fprintf(f, "<table class=\"diff\" id=\"%s\"><tr><th>what</th>", id);
    for (size_t i = 0; i < n; i++) {
        fputs("<th>", f);
        co_rpt_esc(f, runs[i]->label);
        fputs("</th>", f);
    }
    fputs("<th>change</th></tr>\n", f);
    for (size_t k = 0; k < nk; k++) {
        fputs("<tr>", f);
        co_rpt_td_str(f, keys[k]);
        for (size_t i = 0; i < n; i++) {
            const char *v = co_rpt_env_get(&envs[i], keys[k]);
            co_rpt_td_str(f, v ? v : "(absent)");
        }
        fputs("<td class=\"change\">", f);
        co_rpt_esc(f, keys[k]);
        for (size_t i = 0; i < n; i++) {
            const char *v = co_rpt_env_get(&envs[i], keys[k]);
            fputs(i ? " \xe2\x86\x92 " : " ", f);
            co_rpt_esc(f, v ? v : "(absent)");
        }
        fputs("</td></tr>\n", f);
    }
    if (nk == 0)
        fprintf(f, "<tr><td colspan=\"%zu\">none</td></tr>\n", n + 2);
    fputs("</table>\n", f);
}

/* The configuration that differs, then the data set's drift apart
 * (co_rpt_env_part_of). */
static void write_env_diff(FILE *f, const struct co_rpt_file **runs, size_t n)
{
    struct co_rpt_env *envs = co_rpt_envs_read(runs, n);
    size_t nk = 0, nd = 0;
    const char **keys = co_rpt_env_diff(envs, n, CO_RPT_ENV_CONFIG, &nk);
    const char **drift = co_rpt_env_diff(envs, n, CO_RPT_ENV_DATA, &nd);
    fputs("<section id=\"env-diff\"><h2>Environment and options that differ</h2>\n", f);
    for (size_t i = 0; i < n; i++)
        if (!envs[i].has_env) {
            fputs("<p class=\"note\">", f);
            co_rpt_esc(f, runs[i]->label);
            fputs(" has no environment (an older JSON): only its options are compared.</p>\n", f);
        }
    write_env_table(f, "env-diff-table", runs, n, envs, keys, nk);
    if (nd > 0) {
        fputs("<h3>Data set drift</h3>\n<p class=\"note\">Row counts and sizes that the runs, "
              "or the time between them, changed: not configuration.</p>\n",
              f);
        write_env_table(f, "data-drift-table", runs, n, envs, drift, nd);
    }
    fputs("</section>\n", f);
    free(keys);
    free(drift);
    co_rpt_envs_free(envs, n);
}

int co_rpt_html_write(FILE *f, const struct co_rpt_file *files, size_t n, const char *chartjs,
                      const json_t *groups)
{
    const struct co_rpt_file **runs = pr_xcalloc(n, sizeof(*runs));
    size_t nr = 0, ns = 0;
    for (size_t i = 0; i < n; i++)
        if (files[i].kind == CO_RPT_RUN)
            runs[nr++] = &files[i];
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>stampede "
          "report: ",
          f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        co_rpt_esc(f, files[i].label);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n<script>\n%s\n</script>\n</head><body>\n",
            co__rpt_css, chartjs);
    fprintf(f,
            "<h1>stampede report</h1>\n<p class=\"note\">Made by stampede %s from %zu "
            "file(s). Self-contained: Chart.js %s is inlined, nothing is fetched.</p>\n",
            STAMPEDE_VERSION, n, "(Debian libjs-chart.js)");
    write_data(f, files, n, groups);
    if (nr > 0)
        write_comparison(f, runs, nr);
    co__rpt_groups_section(f, groups);
    if (nr > 1) {
        write_env_diff(f, runs, nr);
        co__rpt_kinds_cmp(f, runs, nr);
        fputs("<section id=\"overlay\"><h2>Runs overlaid</h2>\n", f);
        co_rpt_canvas(f, "cmp-tps", "Throughput (tps) over time");
        co_rpt_canvas(f, "cmp-p95", "p95 latency over time");
        co_rpt_canvas(f, "cmp-spec", "Percentile spectrum (all agents)");
        co__rpt_series_cmp(f, runs, nr);
        fputs("</section>\n", f);
    }
    for (size_t i = 0; i < n; i++) {
        if (files[i].kind == CO_RPT_SWEEP)
            co__rpt_sweep(f, &files[i], ns++);
    }
    for (size_t i = 0; i < nr; i++)
        co__rpt_run(f, runs[i], i);
    fprintf(f, "<script>\n%s%s%s%s%s", co__rpt_js, co__rpt_runs_js, co__rpt_groups_js,
            co__rpt_sweep_js, co__rpt_kinds_js);
    const struct co_rpt_family *fam;
    for (size_t i = 0; (fam = co_rpt_family_at(i)) != NULL; i++)
        if (fam->js)
            fputs(fam->js, f);
    fprintf(f, "%s</script>\n</body></html>\n", co__rpt_series_js);
    free(runs);
    return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
