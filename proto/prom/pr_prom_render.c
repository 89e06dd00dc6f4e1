/* pr_prom_render: the text exposition format of a pr_prom snapshot (see
 * pr_prom.h). Pure: no lock, no I/O. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_prom.h"

/* A growing text buffer. */
struct buf {
    char *p;
    size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (n > 0 ? (size_t)n : 0) + 256;
        b->p = pr_xrealloc(b->p, b->cap);
    }
}

/* A label value: backslash, double quote and line feed escaped. */
static void put_label(struct buf *b, const char *v)
{
    for (const char *c = v ? v : ""; *c; c++) {
        if (*c == '\\' || *c == '"')
            put(b, "\\%c", *c);
        else if (*c == '\n')
            put(b, "\\n");
        else
            put(b, "%c", *c);
    }
}

static void help(struct buf *b, const char *name, const char *type, const char *text)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* A float sample value in Go's ParseFloat syntax (no locale comma). */
static void put_num(struct buf *b, double v)
{
    char tmp[40];
    if (!isfinite(v))
        v = 0;
    snprintf(tmp, sizeof(tmp), "%.9g", v);
    for (char *c = tmp; *c; c++)
        if (*c == ',')
            *c = '.';
    put(b, "%s\n", tmp);
}

static void totals(struct buf *b, const struct pr_counters *c)
{
    help(b, "stampede_transactions_total", "counter", "Completed transactions (events).");
    put(b, "stampede_transactions_total %" PRIu64 "\n", c->transactions);
    help(b, "stampede_queries_total", "counter", "Successful statements by type.");
    put(b, "stampede_queries_total{type=\"read\"} %" PRIu64 "\n", c->reads);
    put(b, "stampede_queries_total{type=\"write\"} %" PRIu64 "\n", c->writes);
    put(b, "stampede_queries_total{type=\"other\"} %" PRIu64 "\n", c->other);
    help(b, "stampede_errors_total", "counter", "Ignored errors (the event was restarted).");
    put(b, "stampede_errors_total %" PRIu64 "\n", c->errors);
    help(b, "stampede_reconnects_total", "counter", "Reconnections after a lost connection.");
    put(b, "stampede_reconnects_total %" PRIu64 "\n", c->reconnects);
    /* The events' outcomes (PR_COUNTERS_OPT_FIELDS): 0 from an agent that
     * does not send them. */
    help(b, "stampede_rolled_back_total", "counter",
         "Events that rolled back on purpose (counted in transactions too).");
    put(b, "stampede_rolled_back_total %" PRIu64 "\n", c->rolled_back);
    help(b, "stampede_failed_total", "counter",
         "Events the workload family gave up (retries exhausted, a fatal result).");
    put(b, "stampede_failed_total %" PRIu64 "\n", c->failed);
}

/* One series of the latency family. */
static void hist_series(struct buf *b, const char *family, const uint64_t *bounds, uint32_t n,
                        const uint64_t *bucket, uint64_t count, uint64_t sum_us, const char *kind)
{
    uint64_t cum = 0;
    for (uint32_t i = 0; i < n; i++) {
        cum += bucket[i];
        put(b, "%s_bucket{kind=\"", family);
        put_label(b, kind);
        put(b, "\",le=\"%" PRIu64 ".%06" PRIu64 "\"} %" PRIu64 "\n", bounds[i] / 1000000u,
            bounds[i] % 1000000u, cum);
    }
    cum += bucket[n];
    put(b, "%s_bucket{kind=\"", family);
    put_label(b, kind);
    put(b, "\",le=\"+Inf\"} %" PRIu64 "\n", cum);
    put(b, "%s_sum{kind=\"", family);
    put_label(b, kind);
    put(b, "\"} ");
    put_num(b, (double)sum_us / 1e6);
    put(b, "%s_count{kind=\"", family);
    put_label(b, kind);
    put(b, "\"} %" PRIu64 "\n", count);
}

static void histogram(struct buf *b, const struct pr__prom_snap *s, const char *kind)
{
    uint64_t bounds[PR_PROM_MAX_BUCKETS];
    uint32_t n = pr__prom_bounds(bounds);
    help(b, "stampede_latency_seconds", "histogram",
         "Transaction latency over all agents (from each event's intended start in rate mode).");
    hist_series(b, "stampede_latency_seconds", bounds, n, s->bucket, s->count, s->sum_us, kind);
    if (s->n_kinds == 0)
        return;
    /* A family of its own: a sum over kind of stampede_latency_seconds
     * stays the transactions' figure. */
    help(b, "stampede_kind_latency_seconds", "histogram",
         "Latency of one statement kind over all agents (READY.kinds).");
    for (uint32_t k = 0; k < s->n_kinds; k++)
        hist_series(b, "stampede_kind_latency_seconds", bounds, n, s->kinds[k].bucket,
                    s->kinds[k].count, s->kinds[k].sum_us, s->kinds[k].name);
}

/* The per-kind counters (none before the kinds are known). */
static void kind_counters(struct buf *b, const struct pr__prom_snap *s)
{
    if (s->n_kinds == 0)
        return;
    help(b, "stampede_kind_count_total", "counter",
         "Successful statements (events) of one kind over all agents.");
    for (uint32_t k = 0; k < s->n_kinds; k++) {
        put(b, "stampede_kind_count_total{kind=\"");
        put_label(b, s->kinds[k].name);
        put(b, "\"} %" PRIu64 "\n", s->kinds[k].ok);
    }
    help(b, "stampede_kind_errors_total", "counter",
         "Failed statements (ignored errors) of one kind over all agents.");
    for (uint32_t k = 0; k < s->n_kinds; k++) {
        put(b, "stampede_kind_errors_total{kind=\"");
        put_label(b, s->kinds[k].name);
        put(b, "\"} %" PRIu64 "\n", s->kinds[k].errors);
    }
}

/* One per-agent metric family. */
static void agent_family(struct buf *b, const struct pr__prom_snap *s, const char *name,
                         const char *type, const char *text, int which)
{
    help(b, name, type, text);
    for (uint32_t i = 0; i < s->n_agents; i++) {
        const struct pr__prom_agent *a = &s->agents[i];
        put(b, "%s{agent=\"", name);
        put_label(b, a->name);
        put(b, "\"} ");
        switch (which) {
        case 0:
            put(b, "%" PRIu64 "\n", a->ctr.transactions);
            break;
        case 1:
            put(b, "%" PRIu64 "\n", pr_counters_queries(&a->ctr));
            break;
        case 2:
            put(b, "%" PRIu64 "\n", a->ctr.errors);
            break;
        case 3:
            put(b, "%" PRIu64 "\n", a->ctr.reconnects);
            break;
        case 4:
            put(b, "%d\n", a->up ? 1 : 0);
            break;
        case 5:
            put_num(b, a->cpu_ratio);
            break;
        case 6:
            put_num(b, a->lag_max_s);
            break;
        case 8:
            put(b, "%" PRIu64 "\n", a->ctr.rolled_back);
            break;
        case 9:
            put(b, "%" PRIu64 "\n", a->ctr.failed);
            break;
        default:
            put_num(b, a->clock_offset_s);
            break;
        }
    }
}

char *pr__prom_render(const struct pr__prom_snap *s, const char *kind, size_t *len)
{
    struct buf b = {pr_xmalloc(8192), 0, 8192};
    help(&b, "stampede_run_info", "gauge", "The run being measured (always 1).");
    put(&b, "stampede_run_info{workload=\"");
    put_label(&b, s->workload);
    put(&b, "\",command=\"");
    put_label(&b, s->command);
    put(&b, "\",run_id=\"");
    put_label(&b, s->run_id);
    put(&b, "\",version=\"");
    put_label(&b, s->version);
    put(&b, "\"} 1\n");
    totals(&b, &s->ctr);
    histogram(&b, s, kind);
    kind_counters(&b, s);
    agent_family(&b, s, "stampede_agent_transactions_total", "counter",
                 "Completed transactions of one agent.", 0);
    agent_family(&b, s, "stampede_agent_queries_total", "counter",
                 "Successful statements of one agent.", 1);
    agent_family(&b, s, "stampede_agent_errors_total", "counter", "Ignored errors of one agent.",
                 2);
    agent_family(&b, s, "stampede_agent_reconnects_total", "counter", "Reconnections of one agent.",
                 3);
    agent_family(&b, s, "stampede_agent_rolled_back_total", "counter",
                 "Events of one agent that rolled back on purpose.", 8);
    agent_family(&b, s, "stampede_agent_failed_total", "counter",
                 "Events of one agent its workload family gave up.", 9);
    agent_family(&b, s, "stampede_agent_up", "gauge",
                 "1 while the agent is in the run, 0 once lost.", 4);
    agent_family(&b, s, "stampede_agent_cpu_ratio", "gauge",
                 "The agent process's CPU over its last interval, in cores.", 5);
    agent_family(&b, s, "stampede_agent_loop_lag_seconds", "gauge",
                 "Highest event-loop lag of the agent over its last interval.", 6);
    agent_family(&b, s, "stampede_agent_clock_offset_seconds", "gauge",
                 "Agent clock minus coordinator clock (lowest-RTT sample).", 7);
    *len = b.len;
    return b.p;
}
