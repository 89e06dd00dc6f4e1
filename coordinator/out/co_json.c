/* co_json: the --json=FILE report (see co_json.h and README "JSON output"). */
#include "co_json.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "co_env.h"
#include "co_family.h"
#include "co_kinds_out.h"
#include "co_sbfmt.h"
#include "co_srvstat.h"
#include "co_summary.h"
#include "co_threshold.h"
#include "pr_file.h"
#include "pr_hdrlog.h"
#include "pr_text.h"

/* A streaming JSON emitter: pretty-printed, except that containers deeper
 * than flat_depth go on one line (one interval per line keeps long runs
 * readable and greppable). Stream errors are checked once, at the end. */
struct jw {
    FILE *f;
    int depth;      /* containers open */
    bool first;     /* nothing written yet in the innermost container */
    int flat_depth; /* containers deeper than this are written on one line */
};

/* Separator and indentation before a member or element. */
static void jw_sep(struct jw *w)
{
    if (!w->first)
        fputc(',', w->f);
    if (w->depth > w->flat_depth) {
        if (!w->first)
            fputc(' ', w->f);
    } else {
        fprintf(w->f, "\n%*s", 2 * w->depth, "");
    }
    w->first = false;
}

/* Start a member (key not NULL, inside an object) or an element (NULL). */
static void jw_member(struct jw *w, const char *key)
{
    if (w->depth == 0)
        return;
    jw_sep(w);
    if (key != NULL) {
        pr_json_string(w->f, key);
        fputs(": ", w->f);
    }
}

static void jw_open(struct jw *w, const char *key, char bracket)
{
    jw_member(w, key);
    fputc(bracket, w->f);
    w->depth++;
    w->first = true;
}

static void jw_close(struct jw *w, char bracket)
{
    bool flat = w->depth > w->flat_depth;
    w->depth--;
    if (!w->first && !flat)
        fprintf(w->f, "\n%*s", 2 * w->depth, "");
    fputc(bracket, w->f);
    w->first = false;
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
    jw_member(w, key);
    if (s == NULL)
        fputs("null", w->f);
    else
        pr_json_string(w->f, s);
}

static void jw_u64(struct jw *w, const char *key, uint64_t v)
{
    jw_member(w, key);
    fprintf(w->f, "%" PRIu64, v);
}

static void jw_i64(struct jw *w, const char *key, int64_t v)
{
    jw_member(w, key);
    fprintf(w->f, "%" PRId64, v);
}

static void jw_null(struct jw *w, const char *key)
{
    jw_member(w, key);
    fputs("null", w->f);
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
    jw_member(w, key);
    fputs(v ? "true" : "false", w->f);
}

/* A number, or null when it is not finite. */
static void jw_num(struct jw *w, const char *key, double v)
{
    char buf[40];
    jw_member(w, key);
    fputs(pr_fmt_double(buf, sizeof(buf), v) ? buf : "null", w->f);
}

/* count per second over len_s; NaN (written null) when len_s is not a
 * positive finite length. */
static double per_s(uint64_t count, double len_s)
{
    return isfinite(len_s) && len_s > 0 ? (double)count / len_s : NAN;
}

static double us_to_ms(uint64_t us)
{
    return (double)us / 1000.0;
}

/* Latency statistics. */
enum {
    LAT_MIN = 1 << 0,
    LAT_AVG = 1 << 1,
    LAT_MAX = 1 << 2,
    LAT_P50 = 1 << 3,
    LAT_P90 = 1 << 4,
    LAT_P95 = 1 << 5,
    LAT_P99 = 1 << 6,
    LAT_P99_9 = 1 << 7,
};

static const struct {
    unsigned bit;
    const char *key;
    double p;
} lat_pcts[] = {
    {LAT_P50, "p50", 50.0}, {LAT_P90, "p90", 90.0},     {LAT_P95, "p95", 95.0},
    {LAT_P99, "p99", 99.0}, {LAT_P99_9, "p99_9", 99.9},
};

/* Object of the chosen latency statistics in ms; each null when h is NULL
 * or empty (no sample, no latency). */
static void jw_latency(struct jw *w, const char *key, const pr_hist *h, unsigned which)
{
    bool has = h != NULL && pr_hist_count(h) > 0;
    jw_open(w, key, '{');
    if (which & LAT_MIN)
        jw_num(w, "min", has ? us_to_ms(pr_hist_min(h)) : NAN);
    if (which & LAT_AVG)
        jw_num(w, "avg", has ? pr_hist_mean(h) / 1000.0 : NAN);
    if (which & LAT_MAX)
        jw_num(w, "max", has ? us_to_ms(pr_hist_max(h)) : NAN);
    for (size_t i = 0; i < sizeof(lat_pcts) / sizeof(lat_pcts[0]); i++)
        if (which & lat_pcts[i].bit)
            jw_num(w, lat_pcts[i].key,
                   has ? us_to_ms(pr_hist_value_at_percentile(h, lat_pcts[i].p)) : NAN);
    jw_close(w, '}');
}

/* Service time (rate mode: from the actual start, beside the latency from
 * the intended start), or null when there is none (closed loop). */
static void jw_service(struct jw *w, const char *key, const pr_hist *h, unsigned which)
{
    if (h == NULL)
        jw_null(w, key);
    else
        jw_latency(w, key, h, which);
}

static void jw_counters(struct jw *w, const char *key, const struct pr_counters *c)
{
    jw_open(w, key, '{');
#define CO__JSON_COUNTER(name) jw_u64(w, #name, c->name);
    PR_COUNTERS_FIELDS(CO__JSON_COUNTER)
    PR_COUNTERS_OPT_FIELDS(CO__JSON_COUNTER) /* rolled_back, failed */
#undef CO__JSON_COUNTER
    jw_close(w, '}');
}

static void write_header(struct jw *w, const struct co_result *r)
{
    jw_str(w, "tool", r->tool);
    jw_str(w, "version", r->version);
    jw_str(w, "workload", r->workload);
    jw_str(w, "command", r->command);
    jw_open(w, "options", '{');
    for (uint32_t i = 0; i < r->n_opts; i++)
        if (r->opt_names != NULL && r->opt_names[i] != NULL)
            jw_str(w, r->opt_names[i], r->opt_values != NULL ? r->opt_values[i] : NULL);
    jw_close(w, '}');
    jw_u64(w, "threads", r->threads);
    jw_u64(w, "report_interval_s", r->report_interval_s);
    jw_u64(w, "percentile", r->percentile);
    if (r->run_id != NULL)
        jw_str(w, "run_id", r->run_id); /* the id every message of the run carries */
}

static void write_agent(struct jw *w, const struct co_agent_result *a, double time_s)
{
    jw_open(w, NULL, '{');
    jw_str(w, "name", a->name);
    jw_str(w, "host", a->host);
    jw_str(w, "region", a->region);
    jw_u64(w, "cores", a->cores);
    jw_u64(w, "threads", a->threads);
    jw_u64(w, "rate", a->rate);
    jw_u64(w, "transactions", a->ctr.transactions);
    jw_u64(w, "queries", pr_counters_queries(&a->ctr));
    jw_num(w, "tps", per_s(a->ctr.transactions, time_s));
    jw_latency(w, "latency_ms", a->lat,
               LAT_MIN | LAT_AVG | LAT_MAX | LAT_P50 | LAT_P95 | LAT_P99 | LAT_P99_9);
    jw_service(w, "service_ms", a->svc,
               LAT_MIN | LAT_AVG | LAT_MAX | LAT_P50 | LAT_P95 | LAT_P99 | LAT_P99_9);
    jw_open(w, "cpu_pct", '{');
    jw_num(w, "avg", a->cpu_pct_avg);
    jw_num(w, "max", a->cpu_pct_max);
    jw_close(w, '}');
    jw_open(w, "loop_lag_ms", '{');
    jw_num(w, "max", us_to_ms(a->lag_max_us));
    jw_num(w, "p99", us_to_ms(a->lag_p99_us));
    jw_close(w, '}');
    jw_num(w, "slip_max_ms", us_to_ms(a->slip_max_us));
    jw_num(w, "clock_offset_ms", (double)a->clock_offset_ns / 1e6);
    jw_num(w, "clock_rtt_ms", (double)a->clock_rtt_ns / 1e6);
    jw_num(w, "db_rtt_ms", a->has_db_rtt ? us_to_ms(a->db_rtt_us) : NAN);
    jw_num(w, "start_skew_ms", a->has_start_skew ? (double)a->start_skew_us / 1000.0 : NAN);
    jw_u64(w, "intervals", a->intervals);
    jw_u64(w, "late_intervals", a->late_intervals);
    jw_bool(w, "saturated", a->saturated);
    jw_bool(w, "done", a->done);
    jw_bool(w, "lost", a->lost);
    jw_num(w, "lost_at_s", a->lost ? a->lost_at_s : NAN);
    jw_i64(w, "status", a->status);
    jw_str(w, "reason", a->reason != NULL ? a->reason : "");
    jw_open(w, "conns", '['); /* [events, latency sum ms] per connection (DONE.conns) */
    for (uint32_t i = 0; i < a->n_conns; i++) {
        jw_open(w, NULL, '[');
        jw_u64(w, NULL, a->conns[i].events);
        jw_num(w, NULL, us_to_ms(a->conns[i].lat_us));
        jw_close(w, ']');
    }
    jw_close(w, ']');
    jw_open(w, "notes", '['); /* DONE.notes: a command's informational lines */
    for (uint32_t i = 0; i < a->n_notes; i++)
        jw_str(w, NULL, a->notes[i]);
    jw_close(w, ']');
    jw_counters(w, "counters", &a->ctr);
    jw_close(w, '}');
}

/* "Threads fairness" (co_sbfmt_fairness_of), and whether it was measured
 * per connection. */
static void jw_fairness(struct jw *w, const struct co_sbfmt_fairness *f, bool per_conn)
{
    jw_open(w, "fairness", '{');
    jw_num(w, "events_avg", f->events_avg);
    jw_num(w, "events_stddev", f->events_stddev);
    jw_num(w, "execution_time_avg_s", f->time_avg_s);
    jw_num(w, "execution_time_stddev_s", f->time_stddev_s);
    jw_bool(w, "per_connection", per_conn);
    jw_close(w, '}');
}

/* scratch: where a frozen histogram is expanded (co_interval_lat). */
static void write_interval(struct jw *w, const struct co_interval_result *iv, pr_hist *scratch)
{
    const struct pr_counters *c = &iv->ctr;
    double len = iv->len_s;
    jw_open(w, NULL, '{');
    jw_u64(w, "k", iv->k);
    jw_num(w, "t_s", iv->t_s);
    jw_num(w, "len_s", len);
    jw_u64(w, "threads", iv->threads);
    jw_num(w, "tps", per_s(c->transactions, len));
    jw_num(w, "qps", per_s(pr_counters_queries(c), len));
    jw_num(w, "reads_s", per_s(c->reads, len));
    jw_num(w, "writes_s", per_s(c->writes, len));
    jw_num(w, "other_s", per_s(c->other, len));
    jw_latency(w, "latency_ms", co_interval_lat(iv, scratch),
               LAT_MIN | LAT_AVG | LAT_MAX | LAT_P50 | LAT_P90 | LAT_P95 | LAT_P99 | LAT_P99_9);
    jw_service(w, "service_ms", co_interval_svc(iv, scratch),
               LAT_MIN | LAT_AVG | LAT_MAX | LAT_P50 | LAT_P90 | LAT_P95 | LAT_P99 | LAT_P99_9);
    jw_num(w, "err_s", per_s(c->errors, len));
    jw_num(w, "reconn_s", per_s(c->reconnects, len));
    jw_u64(w, "agents_reporting", iv->agents_reporting);
    jw_u64(w, "agents_expected", iv->agents_expected);
    jw_bool(w, "late", iv->late);
    jw_bool(w, "partial", iv->partial);
    jw_bool(w, "printed", iv->printed);
    jw_num(w, "cpu_pct_max", iv->cpu_pct_max);
    jw_num(w, "loop_lag_max_ms", us_to_ms(iv->lag_max_us));
    jw_num(w, "server_qps", iv->has_server ? iv->server_qps : NAN);
    co_srvstat_json(w->f, iv); /* ', "server_status": {...}' */
    jw_counters(w, "counters", c);
    if (iv->n_kinds > 0) /* per statement kind (co_kinds_out.h) */
        jw_member(w, "kinds"), co_kinds_out_json(w->f, iv->kinds, iv->n_kinds, scratch);
    if (iv->agent_iv != NULL) { /* per agent, agents[] order: the report's series */
        jw_open(w, "per_agent", '[');
        for (uint32_t a = 0; a < iv->n_agent_iv; a++) {
            const struct co_agent_interval *ai = &iv->agent_iv[a];
            if (!ai->reported) {
                jw_member(w, NULL), fputs("null", w->f);
                continue;
            }
            jw_open(w, NULL, '{');
            jw_num(w, "tps", per_s(ai->transactions, len));
            jw_num(w, "p95_ms", ai->p95_us ? us_to_ms(ai->p95_us) : NAN);
            jw_close(w, '}');
        }
        jw_close(w, ']');
    }
    jw_close(w, '}');
}

static void write_totals(struct jw *w, const struct co_result *r)
{
    const struct pr_counters *c = &r->total;
    jw_open(w, "totals", '{');
    jw_u64(w, "transactions", c->transactions);
    jw_open(w, "queries", '{');
    jw_u64(w, "read", c->reads);
    jw_u64(w, "write", c->writes);
    jw_u64(w, "other", c->other);
    jw_u64(w, "total", pr_counters_queries(c));
    jw_close(w, '}');
    jw_u64(w, "ignored_errors", c->errors);
    jw_u64(w, "reconnects", c->reconnects);
    jw_num(w, "time_s", r->time_s);
    jw_num(w, "tps", per_s(c->transactions, r->time_s));
    jw_num(w, "qps", per_s(pr_counters_queries(c), r->time_s));
    jw_num(w, "err_s", per_s(c->errors, r->time_s));
    jw_num(w, "reconn_s", per_s(c->reconnects, r->time_s));
    jw_latency(w, "latency_ms", r->lat,
               LAT_MIN | LAT_AVG | LAT_MAX | LAT_P50 | LAT_P95 | LAT_P99 | LAT_P99_9);
    jw_member(w, "histogram"), pr_hdrlog_json(w->f, r->lat); /* every bucket (µs) */
    bool has = r->lat != NULL && pr_hist_count(r->lat) > 0 && r->percentile > 0;
    jw_num(w, "latency_at_percentile_ms",
           has ? us_to_ms(pr_hist_value_at_percentile(r->lat, r->percentile)) : NAN);
    jw_service(w, "service_ms", r->svc,
               LAT_MIN | LAT_AVG | LAT_MAX | LAT_P50 | LAT_P95 | LAT_P99 | LAT_P99_9);
    jw_counters(w, "counters", c);
    struct co_sbfmt_fairness f;
    bool measured = co_summary_fairness(r, &f); /* "Threads fairness", per connection */
    jw_fairness(w, &f, measured);
    if (r->kinds != NULL) /* per statement kind (co_kinds_out.h) */
        jw_member(w, "kinds"), co_kinds_out_json_hist(w->f, r->kinds, r->n_kinds);
    jw_close(w, '}');
}

/* --report-checkpoints: one object per report printed, what it covered. */
static void write_checkpoints(struct jw *w, const struct co_result *r)
{
    jw_open(w, "checkpoints", '[');
    for (uint32_t i = 0; i < r->n_checkpoints; i++) {
        const struct co_checkpoint_result *cp = &r->checkpoints[i];
        const struct pr_counters *c = &cp->ctr;
        jw_open(w, NULL, '{');
        jw_u64(w, "at_s", cp->at_s);
        jw_num(w, "t_s", cp->t_s);
        jw_num(w, "len_s", cp->len_s);
        jw_u64(w, "k_first", cp->k_first);
        jw_u64(w, "k_last", cp->k_last);
        jw_u64(w, "transactions", c->transactions);
        jw_u64(w, "late_in_transactions", cp->late_in);
        jw_num(w, "tps", per_s(c->transactions, cp->len_s));
        jw_num(w, "qps", per_s(pr_counters_queries(c), cp->len_s));
        jw_latency(w, "latency_ms", cp->lat,
                   LAT_MIN | LAT_AVG | LAT_MAX | LAT_P50 | LAT_P95 | LAT_P99 | LAT_P99_9);
        jw_counters(w, "counters", c);
        jw_fairness(w, &cp->fairness, cp->fairness_per_conn);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static void write_server(struct jw *w, const struct co_result *r)
{
    jw_open(w, "server", '{');
    jw_bool(w, "checked", r->server_checked);
    if (r->fam_summary != NULL && r->fam_summary->server_check != NULL) /* the family's */
        jw_str(w, "formula", r->fam_summary->server_formula);
    jw_u64(w, "client_statements", r->client_statements);
    if (r->server_checked) {
        jw_bool(w, "match", r->server_match);
        jw_i64(w, "diff", r->server_diff);
    } else {
        jw_null(w, "match");
        jw_null(w, "diff");
    }
    jw_open(w, "counters", '{');
    for (uint32_t i = 0; i < r->n_server; i++) {
        const struct co_server_delta *s = &r->server[i];
        if (s->name == NULL)
            continue;
        jw_open(w, s->name, '{');
        jw_u64(w, "start", s->start);
        jw_u64(w, "end", s->end);
        /* Signed: a FLUSH STATUS or a restart makes a counter go back. */
        jw_i64(w, "delta", (int64_t)(s->end - s->start));
        jw_close(w, '}');
    }
    jw_close(w, '}');
    jw_close(w, '}');
}

/* --threshold outcomes ([] without any). */
static void write_thresholds(struct jw *w, const struct co_result *r)
{
    static const char *const ops[] = {"<", "<=", ">", ">="};
    char name[32];
    jw_open(w, "thresholds", '[');
    for (uint32_t i = 0; i < r->n_thr; i++) {
        const struct co_thr_result *t = &r->thr[i];
        jw_open(w, NULL, '{');
        jw_str(w, "expr", t->t->expr);
        if (t->t->kind != NULL)
            jw_str(w, "kind", t->t->kind);
        else
            jw_null(w, "kind");
        jw_str(w, "metric", co_threshold_metric_name(t->t, name, sizeof(name)));
        jw_str(w, "op", ops[t->t->op]);
        jw_num(w, "limit", t->t->limit);
        jw_str(w, "unit", co_threshold_unit(t->t));
        jw_num(w, "measured", t->measured ? t->value : NAN);
        jw_bool(w, "passed", t->passed);
        jw_str(w, "scope", t->window ? "window" : "run");
        bool stopped = r->thr_stop == t->t; /* --abort-on-threshold: it stopped the run */
        jw_num(w, "stopped_run_at_s", stopped ? r->thr_stop_at_s : NAN);
        jw_num(w, "measured_at_stop", stopped ? r->thr_stop_value : NAN);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

/* A trend (co_steady): null when there were too few points. */
static void write_trend(struct jw *w, const char *key, const struct co_trend *t)
{
    if (!t->has) {
        jw_null(w, key);
        return;
    }
    jw_open(w, key, '{');
    jw_num(w, "change_pct", t->change_pct);
    jw_num(w, "ci_low_pct", t->lo_pct);
    jw_num(w, "ci_high_pct", t->hi_pct);
    jw_bool(w, "significant", t->significant);
    jw_close(w, '}');
}

/* The steady-state judgement (co_steady.h), null without intervals. */
static void write_steady(struct jw *w, const struct co_result *r)
{
    const struct co_steady *s = &r->steady;
    if (s->verdict[0] == '\0') {
        jw_null(w, "steady_state");
        return;
    }
    jw_open(w, "steady_state", '{');
    jw_bool(w, "judged", s->judged);
    if (s->judged)
        jw_bool(w, "steady", s->steady);
    else
        jw_null(w, "steady");
    jw_u64(w, "intervals", s->intervals);
    jw_u64(w, "warmup_intervals", s->warmup_n);
    jw_num(w, "warmup_s", s->warmup_s);
    jw_num(w, "tps_mean", s->judged ? s->tps_mean : NAN);
    jw_num(w, "tps_cv", s->judged ? s->tps_cv : NAN);
    write_trend(w, "tps_trend", &s->tps);
    write_trend(w, "p95_trend", &s->p95);
    jw_str(w, "verdict", s->verdict);
    jw_close(w, '}');
}

/* --warmup (co_warmcut.h): null when not given. */
static void write_warmcut(struct jw *w, const struct co_result *r)
{
    const struct co_warmcut *c = &r->warmcut;
    if (c->opt.mode == CO_WARMUP_OFF) {
        jw_null(w, "warmup_cut");
        return;
    }
    jw_open(w, "warmup_cut", '{');
    jw_str(w, "mode", c->opt.mode == CO_WARMUP_AUTO ? "auto" : "seconds");
    if (c->opt.mode == CO_WARMUP_FIXED)
        jw_u64(w, "asked_s", c->opt.s);
    jw_bool(w, "applied", c->applied);
    if (!c->applied) {
        jw_str(w, "note", c->note);
        jw_close(w, '}');
        return;
    }
    jw_num(w, "cut_s", c->cut_s);
    jw_u64(w, "intervals", c->cut_intervals);
    jw_open(w, "left_out", '{');
    jw_u64(w, "transactions", c->cut_ctr.transactions);
    jw_u64(w, "queries", pr_counters_queries(&c->cut_ctr));
    jw_u64(w, "errors", c->cut_ctr.errors);
    jw_u64(w, "latency_samples", c->cut_lat_count);
    jw_close(w, '}');
    jw_open(w, "whole_run", '{');
    jw_num(w, "time_s", c->whole_time_s);
    jw_u64(w, "transactions", c->whole_ctr.transactions);
    jw_u64(w, "queries", pr_counters_queries(&c->whole_ctr));
    jw_u64(w, "errors", c->whole_ctr.errors);
    jw_u64(w, "latency_samples", c->whole_lat_count);
    jw_close(w, '}');
    jw_close(w, '}');
}

/* The environment (co_env), its agents named as r's. */
static void write_env(struct jw *w, const struct co_result *r)
{
    uint32_t n = r->agents != NULL ? r->n_agents : 0;
    const char **names = pr_xcalloc(n + 1, sizeof(*names));
    for (uint32_t i = 0; i < n; i++)
        names[i] = r->agents[i].name;
    co_env_json_write(r->env, names, n, w->f, w->depth);
    free(names);
}

/* Everything after "intervals", from totals on (shared by the stream). */
static void write_tail(struct jw *w, const struct co_result *r)
{
    write_totals(w, r);
    write_checkpoints(w, r);
    write_server(w, r);
    write_steady(w, r);
    write_warmcut(w, r);
    write_thresholds(w, r);
    if (r->fam_summary != NULL && r->fam_summary->json != NULL) { /* co_family.h */
        jw_member(w, r->fam_summary->json_key);
        r->fam_summary->json(w->f, r->fam_state, r);
    }
    write_env(w, r); /* ",\n  \"environment\": {...}" */
    jw_open(w, "control", '{');
    jw_u64(w, "bad_frames", r->bad_frames);
    jw_u64(w, "refused_agents", r->refused_agents);
    jw_close(w, '}');
    jw_open(w, "exit", '{');
    jw_i64(w, "status", r->exit_status);
    jw_str(w, "reason", r->exit_reason != NULL ? r->exit_reason : "");
    jw_bool(w, "forced_shutdown", r->forced_shutdown);
    jw_close(w, '}');
}

int co_json_write(const struct co_result *r, FILE *f)
{
    struct jw w = {.f = f, .depth = 0, .first = true, .flat_depth = INT_MAX};
    jw_open(&w, NULL, '{');
    write_header(&w, r);
    jw_open(&w, "agents", '[');
    for (uint32_t i = 0; i < r->n_agents; i++)
        write_agent(&w, &r->agents[i], co_result_whole_time_s(r));
    jw_close(&w, ']');
    jw_open(&w, "intervals", '[');
    w.flat_depth = w.depth;
    pr_hist *scratch = pr_hist_new();
    for (uint32_t i = 0; i < r->n_intervals; i++)
        write_interval(&w, &r->intervals[i], scratch);
    pr_hist_destroy(&scratch);
    w.flat_depth = INT_MAX;
    jw_close(&w, ']');
    write_tail(&w, r);
    jw_close(&w, '}');
    fputc('\n', f);
    if (fflush(f) != 0 || ferror(f))
        return -EIO;
    return 0;
}

struct co_json_stream {
    struct jw w; /* inside "intervals": [ */
};

co_json_stream *co_json_stream_begin(const struct co_result *r, FILE *f)
{
    co_json_stream *s = pr_xcalloc(1, sizeof(*s));
    s->w = (struct jw){.f = f, .depth = 0, .first = true, .flat_depth = INT_MAX};
    jw_open(&s->w, NULL, '{');
    write_header(&s->w, r);
    jw_open(&s->w, "intervals", '[');
    s->w.flat_depth = s->w.depth;
    fflush(f);
    return s;
}

void co_json_stream_interval(co_json_stream *s, const struct co_interval_result *iv,
                             pr_hist *scratch)
{
    write_interval(&s->w, iv, scratch);
    fflush(s->w.f);
}

int co_json_stream_end(co_json_stream **sp, const struct co_result *r)
{
    co_json_stream *s = *sp;
    struct jw *w = &s->w;
    w->flat_depth = INT_MAX;
    jw_close(w, ']');
    jw_open(w, "agents", '[');
    for (uint32_t i = 0; i < r->n_agents; i++)
        write_agent(w, &r->agents[i], co_result_whole_time_s(r));
    jw_close(w, ']');
    write_tail(w, r);
    jw_close(w, '}');
    fputc('\n', w->f);
    int rc = fflush(w->f) != 0 || ferror(w->f) ? -EIO : 0;
    free(s);
    *sp = NULL;
    return rc;
}

static int json_write_cb(FILE *f, const void *arg)
{
    return co_json_write(arg, f);
}

int co_json_write_file(const struct co_result *r, const char *path, struct pr_error *err)
{
    return pr_write_atomic(path, "--json", json_write_cb, r, err);
}
