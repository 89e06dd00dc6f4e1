/* co_rpt_section: a run's and a sweep's part of the page (see
 * co_rpt_section.h). */
#include "co_rpt_section.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_draw.h"
#include "co_rpt_env.h"
#include "co_rpt_kinds.h"
#include "co_rpt_series.h"

static bool any_status(const json_t *ivs)
{
    size_t i;
    json_t *iv;
    json_array_foreach(ivs, i, iv) if (json_object_size(json_object_get(iv, "server_status")) >
                                       0) return true;
    return false;
}

/* One small chart per server status counter (srv-N-I, data-status=NAME):
 * counters a thousand times apart stay readable. */
static void status_grid(FILE *f, const json_t *ivs, size_t n)
{
    json_t *names = json_object();
    size_t i, k = 0;
    json_t *iv;
    json_array_foreach(ivs, i, iv)
    {
        const char *name;
        json_t *v;
        if (json_is_false(json_object_get(iv, "printed")))
            continue; /* not charted */
        json_object_foreach(json_object_get(iv, "server_status"), name, v)
        {
            if (json_object_get(names, name) == NULL)
                json_object_set_new(names, name, json_true());
        }
    }
    fputs("<h3>Server status per interval (SHOW GLOBAL STATUS: rates per second, gauges as "
          "levels)</h3>\n<div class=\"grid\">\n",
          f);
    const char *name;
    json_t *v;
    json_object_foreach(names, name, v)
    {
        fputs("<div><h4>", f);
        co_rpt_esc(f, name);
        fprintf(f,
                "</h4><div class=\"chart small\"><canvas id=\"srv-%zu-%zu\" data-run=\"%zu\" "
                "data-status=\"",
                n, k++, n);
        co_rpt_esc(f, name);
        fputs("\"></canvas></div></div>\n", f);
    }
    fputs("</div>\n", f);
    json_decref(names);
}

static void run_header(FILE *f, const struct co_rpt_file *run)
{
    const json_t *r = run->root;
    char buf[64];
    fputs("<p>", f);
    co_rpt_esc(f, json_string_value(json_object_get(r, "workload")));
    fputs(" ", f);
    co_rpt_esc(f, json_string_value(json_object_get(r, "command")));
    fprintf(f, ", %s threads, %s s (file ",
            co_rpt_fmt(buf, sizeof(buf), co_rpt_num(r, "threads"), 0),
            co_rpt_fmt(buf + 32, 32, co_rpt_num(r, "totals.time_s"), 2));
    co_rpt_esc(f, run->path);
    fputs("); exit: ", f);
    const char *why = json_string_value(co_rpt_get(r, "exit.reason"));
    co_rpt_esc(f, why && *why ? why : "ok");
    fputs("</p>\n", f);
}

static void late_note(FILE *f, const json_t *ivs)
{
    size_t i, marked = 0;
    json_t *iv;
    fputs("<p class=\"note late-list\">Late or partial intervals (triangles): ", f);
    json_array_foreach(ivs, i, iv)
    {
        bool late = json_is_true(json_object_get(iv, "late"));
        bool partial = json_is_true(json_object_get(iv, "partial"));
        if (late || partial)
            fprintf(f, "%s%.0f s (%s)", marked++ ? ", " : "", co_rpt_num(iv, "t_s"),
                    late && partial ? "late, partial"
                    : late          ? "late"
                                    : "partial");
    }
    fputs(marked ? "" : "none", f);
    size_t tail = 0;
    json_array_foreach(ivs, i, iv) tail += json_is_false(json_object_get(iv, "printed"));
    if (tail > 0)
        fprintf(f,
                ". The %zu interval(s) after the stop (printed false: a remainder of a "
                "fraction of a second) are in the JSON but left out of the charts",
                tail);
    fputs("</p>\n", f);
}

static void agents_table(FILE *f, const json_t *r, size_t n)
{
    static const struct {
        const char *head, *path;
        int dec;
    } cols[] = {{"threads", "threads", 0},
                {"transactions", "transactions", 0},
                {"tps", "tps", 2},
                {"p50 ms", "latency_ms.p50", 3},
                {"p95 ms", "latency_ms.p95", 3},
                {"p99 ms", "latency_ms.p99", 3},
                {"max ms", "latency_ms.max", 3},
                {"CPU avg %", "cpu_pct.avg", 1},
                {"late intervals", "late_intervals", 0}};
    fprintf(f,
            "<h3>Agents</h3><table class=\"agents\" id=\"agents-table-%zu\"><tr><th>name</th>"
            "<th>host</th>",
            n);
    for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
        fprintf(f, "<th>%s</th>", cols[c].head);
    fputs("<th>state</th></tr>\n", f);
    size_t i;
    json_t *ag;
    json_array_foreach(json_object_get(r, "agents"), i, ag)
    {
        fputs("<tr>", f);
        co_rpt_td_str(f, json_string_value(json_object_get(ag, "name")));
        co_rpt_td_str(f, json_string_value(json_object_get(ag, "host")));
        for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
            co_rpt_td_num(f, cols[c].path, co_rpt_num(ag, cols[c].path), cols[c].dec);
        co_rpt_td_str(f, json_is_true(json_object_get(ag, "lost"))   ? "lost"
                         : json_is_true(json_object_get(ag, "done")) ? "done"
                                                                     : "not done");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void server_table(FILE *f, const json_t *r, size_t n)
{
    const json_t *s = json_object_get(r, "server");
    char buf[64];
    fprintf(f, "<h3>Server cross-check</h3><p id=\"server-check-%zu\">", n);
    if (!json_is_true(json_object_get(s, "checked"))) {
        fputs("not checked (no server samples from the lead agent)</p>\n", f);
    } else {
        fprintf(f, "client statements %s, server %s: ",
                co_rpt_fmt(buf, 32, co_rpt_num(s, "client_statements"), 0),
                json_is_true(json_object_get(s, "match")) ? "match" : "differ");
        fprintf(f, "difference %s</p>\n", co_rpt_fmt(buf + 32, 32, co_rpt_num(s, "diff"), 0));
    }
    fprintf(f,
            "<table id=\"server-table-%zu\"><tr><th>counter</th><th>start</th><th>end</th>"
            "<th>delta</th></tr>\n",
            n);
    const char *name;
    json_t *c;
    json_object_foreach(json_object_get(s, "counters"), name, c)
    {
        fputs("<tr>", f);
        co_rpt_td_str(f, name);
        co_rpt_td_num(f, "start", co_rpt_num(c, "start"), 0);
        co_rpt_td_num(f, "end", co_rpt_num(c, "end"), 0);
        co_rpt_td_num(f, "delta", co_rpt_num(c, "delta"), 0);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The environment (every flattened line but the options), then the options. */
static void env_tables(FILE *f, const json_t *r, size_t n)
{
    struct co_rpt_env env;
    co_rpt_env_read(r, &env);
    fprintf(f, "<h3>Environment</h3>\n");
    if (!env.has_env)
        fputs("<p class=\"note\">Not in this JSON (written before environment capture).</p>\n", f);
    fprintf(f, "<table class=\"diff\" id=\"env-table-%zu\">\n", n);
    for (size_t i = 0; i < env.n; i++)
        if (strncmp(env.kv[i].key, "option ", 7) != 0) {
            fputs("<tr>", f);
            co_rpt_td_str(f, env.kv[i].key);
            co_rpt_td_str(f, env.kv[i].val);
            fputs("</tr>\n", f);
        }
    fprintf(f, "</table>\n<h3>Options</h3><table class=\"diff\" id=\"options-table-%zu\">\n", n);
    for (size_t i = 0; i < env.n; i++)
        if (strncmp(env.kv[i].key, "option ", 7) == 0) {
            fputs("<tr>", f);
            co_rpt_td_str(f, env.kv[i].key + 7);
            co_rpt_td_str(f, env.kv[i].val);
            fputs("</tr>\n", f);
        }
    fputs("</table>\n", f);
    co_rpt_env_clear(&env);
}

/* The run's steady-state verdict (steady_state.verdict), the warm-up
 * shaded in the charts below; nothing for a JSON written before it. */
static void steady_note(FILE *f, const json_t *root, size_t n)
{
    const json_t *s = json_object_get(root, "steady_state");
    const char *v = json_string_value(json_object_get(s, "verdict"));
    if (v == NULL)
        return;
    fprintf(f, "<p class=\"steady\" id=\"steady-%zu\" data-steady=\"%s\">Steady state: ", n,
            !json_is_true(json_object_get(s, "judged"))  ? "unjudged"
            : json_is_true(json_object_get(s, "steady")) ? "yes"
                                                         : "no");
    co_rpt_esc(f, v);
    if (co_rpt_num(s, "warmup_s") > 0)
        fputs(" (the warm-up is shaded in the charts)", f);
    fputs("</p>\n", f);
}

void co__rpt_run(FILE *f, const struct co_rpt_file *run, size_t n)
{
    const json_t *ivs = json_object_get(run->root, "intervals");
    char id[32];
    fprintf(f, "<section class=\"run\" id=\"run-%zu\"><h2>Run ", n);
    co_rpt_esc(f, run->label);
    fputs("</h2>\n", f);
    run_header(f, run);
    steady_note(f, run->root, n);
    snprintf(id, sizeof(id), "tput-%zu", n);
    co_rpt_canvas(f, id, "Throughput over time (tps, qps, reads/writes/other per second)");
    late_note(f, ivs);
    if (any_status(ivs)) {
        status_grid(f, ivs, n);
    } else {
        fputs("<p class=\"note\">No server status series in this JSON "
              "(intervals[].server_status).</p>\n",
              f);
    }
    snprintf(id, sizeof(id), "lat-%zu", n);
    co_rpt_canvas(f, id, "Latency over time (p50, p95, p99, max)");
    snprintf(id, sizeof(id), "agents-%zu", n);
    co_rpt_canvas(f, id, "Per agent: tps and p95 over the whole run");
    co__rpt_series_agents(f, run, n);
    snprintf(id, sizeof(id), "spec-%zu", n);
    co_rpt_canvas(f, id, "Percentile spectrum (latency by percentile, log axes)");
    if (json_is_string(co_rpt_get(run->root, "totals.histogram")))
        fputs("<p class=\"note\">All agents: every bucket of the run's whole histogram "
              "(totals.histogram); each agent: the percentiles the JSON holds.</p>\n",
              f);
    else
        fputs("<p class=\"note\">Coarse: drawn from the percentiles the JSON holds (totals: min, "
              "p50, p95, p99, p99.9 and max, max at 99.99 %; no p90); the --hdr-log file has the "
              "full histogram.</p>\n",
              f);
    co__rpt_kinds_run(f, run, n);
    co__rpt_series_run(f, run, n);
    agents_table(f, run->root, n);
    server_table(f, run->root, n);
    env_tables(f, run->root, n);
    fputs("</section>\n", f);
}

void co__rpt_sweep(FILE *f, const struct co_rpt_file *sweep, size_t n)
{
    static const char *const keys[] = {"tps", "qps", "p95_ms", "p99_ms"};
    static const char *const stats[] = {"mean", "stddev", "min", "max"};
    char id[48];
    fprintf(f, "<section class=\"sweep\" id=\"sweep-%zu\"><h2>Sweep ", n);
    co_rpt_esc(f, sweep->label);
    fputs("</h2>\n", f);
    snprintf(id, sizeof(id), "sweep-%zu-tps", n);
    co_rpt_canvas(f, id, "Throughput (tps) against threads: mean, min-max bars");
    snprintf(id, sizeof(id), "sweep-%zu-p95_ms", n);
    co_rpt_canvas(f, id, "p95 latency (ms) against threads: mean, min-max bars");
    fprintf(f, "<table id=\"sweep-table-%zu\"><tr><th>threads</th><th>runs</th>", n);
    for (size_t k = 0; k < 4; k++)
        for (size_t s = 0; s < 4; s++)
            fprintf(f, "<th>%s %s</th>", keys[k], stats[s]);
    fputs("</tr>\n", f);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(sweep->root, "points"), i, p)
    {
        fputs("<tr>", f);
        co_rpt_td_num(f, "threads", co_rpt_num(p, "threads"), 0);
        co_rpt_td_num(f, "runs", co_rpt_num(p, "runs"), 0);
        for (size_t k = 0; k < 4; k++)
            for (size_t s = 0; s < 4; s++) {
                char path[64];
                snprintf(path, sizeof(path), "%s.%s", keys[k], stats[s]);
                co_rpt_td_num(f, path, co_rpt_num(p, path), k < 2 ? 2 : 3);
            }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    co__rpt_kinds_sweep(f, sweep, n);
    const char *stopped = json_string_value(json_object_get(sweep->root, "stopped"));
    if (stopped != NULL) {
        fputs("<p class=\"note\">Stopped early: ", f);
        co_rpt_esc(f, stopped);
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}
