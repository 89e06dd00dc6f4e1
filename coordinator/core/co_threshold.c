/* co_threshold: --threshold expressions parsed and evaluated against a
 * run's result (co_threshold.h). */
#include "co_threshold.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_family_summary.h"
#include "co_kinds.h"
#include "co_result.h"
#include "pr_hist.h"

#define HOW                                                                                        \
    "write [KIND.]METRIC OP VALUE[UNIT], OP one of < <= > >=, METRIC one of tps, qps, events, "    \
    "errors, reconnects, min, avg, max, pNN (latency in ms, or with us/ms/s), tpmC, e.g. "         \
    "'p99<20ms', 'tps>=1000', 'errors<0.1%%', 'new_order.p90<5s', 'tpmC>=5000'"

static const struct {
    const char *name;
    enum co_thr_metric metric;
    double pct;
    bool per_kind; /* a KIND. prefix is allowed */
} metrics[] = {
    {"tps", CO_THR_TPS, 0, false},
    {"qps", CO_THR_QPS, 0, false},
    {"events", CO_THR_EVENTS, 0, true},
    {"errors", CO_THR_ERRORS, 0, true},
    {"reconnects", CO_THR_RECONNECTS, 0, false},
    {"min", CO_THR_LATENCY, CO_THR_MIN, true},
    {"avg", CO_THR_LATENCY, CO_THR_AVG, true},
    {"max", CO_THR_LATENCY, CO_THR_MAX, true},
    {"tpmC", CO_THR_TPMC, 0, false},
};

/* name[0..len) as a metric: its entry index, or -1; a percentile pNN(.N)
 * gives the index of "max"'s slot + 1 with *pct set. */
static int metric_of(const char *name, size_t len, double *pct)
{
    for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
        if (strlen(metrics[i].name) == len && strncmp(name, metrics[i].name, len) == 0) {
            *pct = metrics[i].pct;
            return (int)i;
        }
    if (len < 2 || name[0] != 'p' || len > 16)
        return -1;
    char buf[17];
    memcpy(buf, name + 1, len - 1);
    buf[len - 1] = '\0';
    char *end;
    errno = 0;
    double p = strtod(buf, &end);
    if (errno != 0 || *end != '\0' || buf[0] < '0' || buf[0] > '9' || !(p > 0 && p <= 100))
        return -1;
    *pct = p;
    return (int)(sizeof(metrics) / sizeof(metrics[0]));
}

/* The operator at s: its length, or 0. */
static size_t op_of(const char *s, enum co_thr_op *op)
{
    if (s[0] == '<' || s[0] == '>') {
        bool eq = s[1] == '=';
        *op = s[0] == '<' ? (eq ? CO_THR_LE : CO_THR_LT) : (eq ? CO_THR_GE : CO_THR_GT);
        return eq ? 2 : 1;
    }
    return 0;
}

/* The left side: [KIND.]METRIC, the kind being everything before the
 * first dot after which a metric follows (a kind may hold dots). */
static int parse_lhs(const char *expr, size_t len, struct co_threshold *t, struct pr_error *err)
{
    double pct = 0;
    int m = metric_of(expr, len, &pct);
    size_t kind_len = 0;
    for (size_t i = 0; m < 0 && i < len; i++)
        if (expr[i] == '.' && i > 0 && (m = metric_of(expr + i + 1, len - i - 1, &pct)) >= 0)
            kind_len = i;
    if (m < 0)
        return pr_error_set(err, PR_EINVAL, "--threshold='%s': '%.*s' is not a metric; " HOW, expr,
                            (int)len, expr);
    bool pctl = m == (int)(sizeof(metrics) / sizeof(metrics[0]));
    t->metric = pctl ? CO_THR_LATENCY : metrics[m].metric;
    t->pct = pct;
    if (kind_len > 0 && !pctl && !metrics[m].per_kind)
        return pr_error_set(err, PR_EINVAL,
                            "--threshold='%s': %s is a figure of the whole run, not of a kind "
                            "(a kind has events, errors and latencies)",
                            expr, metrics[m].name);
    if (kind_len > 0) {
        t->kind = pr_xmalloc(kind_len + 1);
        memcpy(t->kind, expr, kind_len);
        t->kind[kind_len] = '\0';
    }
    return 0;
}

/* The right side: VALUE[UNIT], into t->limit in the metric's unit. */
static int parse_rhs(const char *expr, const char *s, struct co_threshold *t, struct pr_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !isfinite(v) || v < 0)
        return pr_error_set(err, PR_EINVAL,
                            "--threshold='%s': '%s' is not a number of 0 or more; " HOW, expr, s);
    double scale = 1.0;
    if (t->metric == CO_THR_LATENCY && (strcmp(end, "") == 0 || strcmp(end, "ms") == 0))
        scale = 1.0;
    else if (t->metric == CO_THR_LATENCY && strcmp(end, "us") == 0)
        scale = 0.001;
    else if (t->metric == CO_THR_LATENCY && strcmp(end, "s") == 0)
        scale = 1000.0;
    else if (t->metric == CO_THR_ERRORS && strcmp(end, "%") == 0)
        t->metric = CO_THR_ERRORS_PCT;
    else if (t->metric == CO_THR_ERRORS && strcmp(end, "/s") == 0)
        scale = 1.0;
    else if (*end != '\0')
        return pr_error_set(err, PR_EINVAL,
                            "--threshold='%s': unit '%s' does not go with this metric (latencies "
                            "take us, ms or s; errors take %% or /s; the others none)",
                            expr, end);
    t->limit = v * scale;
    return 0;
}

int co_threshold_parse(const char *expr, struct co_threshold *t, struct pr_error *err)
{
    *t = (struct co_threshold){0};
    size_t i = strcspn(expr, "<>");
    enum co_thr_op op;
    size_t oplen = expr[i] ? op_of(expr + i, &op) : 0;
    if (oplen == 0 || i == 0)
        return pr_error_set(err, PR_EINVAL, "--threshold='%s': no comparison; " HOW, expr);
    t->op = op;
    int rc = parse_lhs(expr, i, t, err);
    if (rc == 0)
        rc = parse_rhs(expr, expr + i + oplen, t, err);
    if (rc == 0)
        t->expr = pr_xstrdup(expr);
    else
        co_threshold_clear(t);
    return rc;
}

void co_threshold_clear(struct co_threshold *t)
{
    free(t->expr);
    free(t->kind);
    *t = (struct co_threshold){0};
}

/* Latency statistic pct of h in ms (the JSON's: µs / 1000), or NAN. */
static double lat_ms(const pr_hist *h, double pct)
{
    if (h == NULL || pr_hist_count(h) == 0)
        return NAN;
    if (pct == CO_THR_MIN)
        return (double)pr_hist_min(h) / 1000.0;
    if (pct == CO_THR_AVG)
        return pr_hist_mean(h) / 1000.0;
    if (pct == CO_THR_MAX)
        return (double)pr_hist_max(h) / 1000.0;
    return (double)pr_hist_value_at_percentile(h, pct) / 1000.0;
}

static double per_s(uint64_t n, double s)
{
    return s > 0 ? (double)n / s : NAN;
}

/* The figure of the whole run. */
static double run_value(const struct co_threshold *t, const struct co_result *r)
{
    const struct pr_counters *c = &r->total;
    switch (t->metric) {
    case CO_THR_TPS:
        return per_s(c->transactions, r->time_s);
    case CO_THR_QPS:
        return per_s(pr_counters_queries(c), r->time_s);
    case CO_THR_EVENTS:
        return (double)c->transactions;
    case CO_THR_ERRORS:
        return per_s(c->errors, r->time_s);
    case CO_THR_ERRORS_PCT:
        return c->transactions ? 100.0 * (double)c->errors / (double)c->transactions : NAN;
    case CO_THR_RECONNECTS:
        return (double)c->reconnects;
    case CO_THR_LATENCY:
        return lat_ms(r->lat, t->pct);
    case CO_THR_TPMC:
        return r->fam_summary && r->fam_summary->figure
                   ? r->fam_summary->figure(r->fam_state, "tpmC")
                   : NAN;
    }
    return NAN;
}

/* The figure of kind t->kind over its family's measured window; *window
 * false when the family has none for it. */
static double window_value(const struct co_threshold *t, const struct co_result *r, bool *window)
{
    struct co_kind_window w;
    const struct co_family_summary *fs = r->fam_summary;
    *window = fs != NULL && fs->kind_window != NULL && fs->kind_window(r->fam_state, t->kind, &w);
    if (!*window)
        return NAN;
    uint64_t all = w.count + w.errors;
    switch (t->metric) {
    case CO_THR_EVENTS:
        return (double)w.count;
    case CO_THR_ERRORS:
        return per_s(w.errors, w.time_s);
    case CO_THR_ERRORS_PCT:
        return all ? 100.0 * (double)w.errors / (double)all : NAN;
    case CO_THR_LATENCY:
        return lat_ms(w.lat, t->pct);
    default:
        return NAN; /* refused by the parser */
    }
}

/* The figure of kind t->kind, NAN when the run has no such kind. */
static double kind_value(const struct co_threshold *t, const struct co_result *r)
{
    const struct co_kind_result *k = NULL;
    for (uint32_t i = 0; r->kinds != NULL && i < r->n_kinds && k == NULL; i++)
        if (r->kinds[i].name != NULL && strcmp(r->kinds[i].name, t->kind) == 0)
            k = &r->kinds[i];
    if (k == NULL)
        return NAN;
    uint64_t all = k->count + k->errors;
    switch (t->metric) {
    case CO_THR_EVENTS:
        return (double)k->count;
    case CO_THR_ERRORS:
        return per_s(k->errors, co_result_whole_time_s(r)); /* kinds: whole run */
    case CO_THR_ERRORS_PCT:
        return all ? 100.0 * (double)k->errors / (double)all : NAN;
    case CO_THR_LATENCY: {
        pr_hist *scratch = pr_hist_new();
        double v = lat_ms(co_kind_lat(k, scratch), t->pct);
        pr_hist_destroy(&scratch);
        return v;
    }
    default:
        return NAN; /* refused by the parser */
    }
}

bool co_threshold_live(const struct co_threshold *t)
{
    bool count = t->metric == CO_THR_EVENTS || t->metric == CO_THR_RECONNECTS;
    return t->metric != CO_THR_TPMC && !(count && (t->op == CO_THR_GT || t->op == CO_THR_GE));
}

struct co_thr_result co_threshold_eval(const struct co_threshold *t, const struct co_result *r)
{
    bool window = false;
    double v = t->kind ? window_value(t, r, &window) : run_value(t, r);
    if (t->kind && !window)
        v = kind_value(t, r);
    struct co_thr_result res = {.t = t, .measured = isfinite(v), .value = v, .window = window};
    if (res.measured)
        switch (t->op) {
        case CO_THR_LT:
            res.passed = v < t->limit;
            break;
        case CO_THR_LE:
            res.passed = v <= t->limit;
            break;
        case CO_THR_GT:
            res.passed = v > t->limit;
            break;
        case CO_THR_GE:
            res.passed = v >= t->limit;
            break;
        }
    return res;
}

const char *co_threshold_unit(const struct co_threshold *t)
{
    switch (t->metric) {
    case CO_THR_TPS:
        return "tps";
    case CO_THR_QPS:
        return "qps";
    case CO_THR_ERRORS:
        return "/s";
    case CO_THR_ERRORS_PCT:
        return "%";
    case CO_THR_LATENCY:
        return "ms";
    case CO_THR_TPMC:
        return "tpmC";
    default:
        return "";
    }
}

const char *co_threshold_metric_name(const struct co_threshold *t, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
        if (metrics[i].metric == t->metric &&
            (t->metric != CO_THR_LATENCY || metrics[i].pct == t->pct))
            return snprintf(buf, len, "%s", metrics[i].name), buf;
    if (t->metric == CO_THR_ERRORS_PCT)
        return snprintf(buf, len, "errors%%"), buf;
    snprintf(buf, len, "p%g", t->pct);
    return buf;
}
