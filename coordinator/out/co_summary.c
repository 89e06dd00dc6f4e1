/* co_summary: the end of a run: totals, the sysbench final report and the stampede section
 * (contract: co_summary.h). */
#include "co_summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "co_family.h"
#include "co_sbfmt.h"

/* Saturation thresholds: mean CPU above this share of the agent's cores,
 * or event-loop lag p99 above this, says the client was the limit. */
#define SATURATED_CPU_SHARE CO_SUMMARY_SATURATED_CPU_SHARE
#define SATURATED_LAG_US    10000

static bool server_value(const struct co_result *res, const char *name, uint64_t *delta)
{
    for (uint32_t i = 0; i < res->n_server; i++)
        if (strcmp(res->server[i].name, name) == 0) {
            *delta = res->server[i].end - res->server[i].start;
            return true;
        }
    return false;
}

/* The server counts every statement the agents executed under its own
 * Com_<kind>, prepared or not, including a failed one whose error was
 * ignored (proto/msg/pr_msg.h, READY): so the agents' reads + writes + other +
 * errors equals the sum of these deltas when the agents are the server's
 * only clients. */
static const char *const statement_counters[] = {"Com_select", "Com_insert", "Com_update",
                                                 "Com_delete", "Com_begin",  "Com_commit"};

bool co_summary_server_statements(const struct co_result *res, uint64_t *statements)
{
    uint64_t sum = 0, v = 0;
    for (size_t i = 0; i < sizeof(statement_counters) / sizeof(*statement_counters); i++) {
        if (!server_value(res, statement_counters[i], &v))
            return false;
        sum += v;
    }
    *statements = sum;
    return true;
}

void co_summary_totals(struct co_result *res)
{
    bool from_agents = res->lat == NULL; /* a run sums its intervals instead */
    memset(&res->total, 0, sizeof(res->total));
    if (from_agents)
        res->lat = pr_hist_new();
    for (uint32_t i = 0; i < res->n_agents; i++) {
        struct co_agent_result *ag = &res->agents[i];
        pr_counters_add(&res->total, &ag->ctr);
        if (ag->lat && from_agents)
            pr_hist_add(res->lat, ag->lat);
        double cores = ag->cores ? ag->cores : 1;
        ag->saturated = ag->cpu_pct_avg >= SATURATED_CPU_SHARE * 100.0 * cores ||
                        ag->lag_p99_us >= SATURATED_LAG_US;
    }
    res->client_statements = pr_counters_queries(&res->total) + res->total.errors;
    uint64_t srv = 0;
    if (res->fam_summary != NULL && res->fam_summary->server_check != NULL) /* its formula */
        res->server_checked = res->fam_summary->server_check(res, &res->client_statements, &srv);
    else
        res->server_checked = co_summary_server_statements(res, &srv);
    if (res->server_checked) {
        res->server_diff = (int64_t)(srv - res->client_statements);
        res->server_match = res->server_diff == 0;
    }
}

size_t co_summary_conn_units(const struct pr_msg_conn *now, uint32_t n,
                             const struct pr_msg_conn *base, uint32_t n_base,
                             struct co_sbfmt_unit *out)
{
    for (uint32_t j = 0; j < n; j++) {
        /* Both lists come from the same agent's workers in the same order. */
        const struct pr_msg_conn *b = j < n_base && base[j].index == now[j].index ? &base[j] : NULL;
        out[j].events = now[j].events - (b && b->events <= now[j].events ? b->events : 0);
        out[j].lat_sum_us = now[j].lat_us - (b && b->lat_us <= now[j].lat_us ? b->lat_us : 0);
    }
    return n;
}

/* Threads fairness per connection, as sysbench per thread: each
 * connection's events and latency sum as its agent measured them
 * (DONE.conns), over the whole run, or since the last checkpoint when
 * since_cp (sysbench's final report after checkpoints). An agent without
 * them (lost before its DONE, more than PR_MSG_MAX_CONNS connections): its
 * totals spread evenly over its connections. */
static struct co_sbfmt_unit *fairness_units(const struct co_result *res, bool since_cp, size_t *n)
{
    size_t total = 0, k = 0;
    for (uint32_t i = 0; i < res->n_agents; i++) {
        const struct co_agent_result *ag = &res->agents[i];
        total += ag->n_conns ? ag->n_conns : ag->threads ? ag->threads : 1;
    }
    struct co_sbfmt_unit *u = pr_xcalloc(total + 1, sizeof(*u));
    for (uint32_t i = 0; i < res->n_agents; i++) {
        const struct co_agent_result *ag = &res->agents[i];
        if (ag->n_conns > 0) { /* measured per connection (DONE.conns) */
            k += co_summary_conn_units(ag->conns, ag->n_conns, since_cp ? ag->cp_conns : NULL,
                                       since_cp ? ag->n_cp_conns : 0, u + k);
            continue;
        }
        /* No per connection figures (a lost agent; more connections than
         * a DONE carries): its totals as one even share per connection. */
        uint64_t c = ag->threads ? ag->threads : 1;
        uint64_t sum = ag->lat ? pr_hist_sum(ag->lat) : 0;
        uint64_t ev = ag->ctr.transactions;
        uint64_t ev0 = since_cp ? ag->cp_events : 0, sum0 = since_cp ? ag->cp_lat_us : 0;
        sum = sum > sum0 ? sum - sum0 : 0;
        ev = ev > ev0 ? ev - ev0 : 0;
        for (uint64_t j = 0; j < c; j++, k++) {
            u[k].events = ev / c + (j < ev % c);
            u[k].lat_sum_us = sum / c + (j < sum % c);
        }
    }
    *n = total;
    return u;
}

bool co_summary_fairness(const struct co_result *res, struct co_sbfmt_fairness *out)
{
    size_t n = 0;
    bool measured = true;
    struct co_sbfmt_unit *units = fairness_units(res, false, &n);
    co_sbfmt_fairness_of(units, n, out);
    free(units);
    for (uint32_t i = 0; i < res->n_agents; i++)
        measured = measured && res->agents[i].n_conns > 0;
    return measured;
}

int co_summary_print_final(FILE *out, const struct co_args *a, const struct co_result *res)
{
    size_t n_units = 0;
    struct co_sbfmt_unit *units = fairness_units(res, res->n_checkpoints > 0, &n_units);
    struct co_sbfmt_opts o = {
        .threads = a->cfg.threads,
        .rate = a->cfg.rate,
        .report_interval_s = (uint32_t)a->cfg.report_interval_s,
        .percentile = a->cfg.percentile,
        .histogram = a->cfg.histogram,
    };
    struct co_sbfmt_final fin = {
        .counters = res->total,
        .hist = res->lat,
        .total_time_s = res->time_s,
        .units = units,
        .n_units = n_units,
        .unfinished = res->forced_shutdown ? res->total.unfinished : 0,
    };
    pr_hist *since = NULL;
    if (res->n_checkpoints > 0) {
        /* As sysbench: the final report covers the time since the last
         * checkpoint (the intervals after it, the tail included). */
        const struct co_checkpoint_result *last = &res->checkpoints[res->n_checkpoints - 1];
        pr_hist *scratch = pr_hist_new();
        since = pr_hist_new();
        memset(&fin.counters, 0, sizeof(fin.counters));
        if (res->has_since_cp) { /* a run: summed as its intervals were written out */
            pr_counters_add(&fin.counters, &res->since_cp_ctr);
            pr_hist_add(since, res->since_cp_lat);
        }
        for (uint32_t k = 0; k < res->n_intervals; k++) {
            if (res->intervals[k].k <= last->k_last)
                continue;
            pr_counters_add(&fin.counters, &res->intervals[k].ctr);
            pr_hist_add(since, co_interval_lat(&res->intervals[k], scratch));
        }
        pr_hist_destroy(&scratch);
        if (res->cp_late_lat != NULL) { /* late STATS of intervals a checkpoint covered */
            pr_counters_add(&fin.counters, &res->cp_late_ctr);
            pr_hist_add(since, res->cp_late_lat);
        }
        fin.hist = since;
        fin.rate_time_s = res->time_s - last->t_s;
        if (fin.unfinished)
            fin.unfinished = fin.counters.unfinished;
    }
    int rc = co_sbfmt_final(out, &o, &fin);
    pr_hist_destroy(&since);
    free(units);
    return rc;
}

static double ms(uint64_t us)
{
    return (double)us / 1000.0;
}

static void print_agent_row(FILE *out, const struct co_agent_result *ag, double time_s)
{
    double tps = time_s > 0 ? (double)ag->ctr.transactions / time_s : 0.0;
    uint64_t p95 = ag->lat ? pr_hist_value_at_percentile(ag->lat, 95.0) : 0;
    char skew[32] = "-"; /* unknown: its workers never all started */
    if (ag->has_start_skew)
        snprintf(skew, sizeof(skew), "%.3f", (double)ag->start_skew_us / 1000.0);
    fprintf(out, "    %-16s %-20s %6" PRIu32 " %11.2f %9.2f %7.1f %9.2f %9.3f %8s %5" PRIu32 "%s\n",
            ag->name, ag->host, ag->threads, tps, ms(p95), ag->cpu_pct_avg, ms(ag->lag_p99_us),
            (double)ag->clock_offset_ns / 1e6, skew, ag->late_intervals,
            ag->lost     ? "  LOST"
            : ag->status ? "  FAILED"
                         : "");
}

/* Rate mode: the latency from each event's intended start (coordinated
 * omission corrected: what a client arriving on schedule sees) beside the
 * service time from its actual start (what the server took). */
static void print_service(FILE *out, const struct co_result *res)
{
    const pr_hist *lat = res->lat, *svc = res->svc;
    if (svc == NULL || pr_hist_count(svc) == 0 || lat == NULL || pr_hist_count(lat) == 0)
        return;
    fprintf(out, "Rate mode (ms):                       p50       p95       p99       max\n");
    fprintf(out, "    latency, from intended start %9.3f %9.3f %9.3f %9.3f (CO-corrected)\n",
            ms(pr_hist_value_at_percentile(lat, 50.0)), ms(pr_hist_value_at_percentile(lat, 95.0)),
            ms(pr_hist_value_at_percentile(lat, 99.0)), ms(pr_hist_max(lat)));
    fprintf(out, "    service, from actual start   %9.3f %9.3f %9.3f %9.3f\n\n",
            ms(pr_hist_value_at_percentile(svc, 50.0)), ms(pr_hist_value_at_percentile(svc, 95.0)),
            ms(pr_hist_value_at_percentile(svc, 99.0)), ms(pr_hist_max(svc)));
}

static void print_server(FILE *out, const struct co_result *res)
{
    uint64_t questions = 0, srv = 0;
    fprintf(out, "Server cross-check (lead agent, SHOW GLOBAL STATUS):\n");
    if (!res->server_checked) {
        fprintf(out, "    not available (no server samples from the lead agent)\n\n");
        return;
    }
    double t = co_result_whole_time_s(res) > 0 ? co_result_whole_time_s(res) : 1.0;
    const struct co_family_summary *fr = res->fam_summary;
    if (fr != NULL && fr->server_check != NULL) { /* the family's formula (co_family.h) */
        uint64_t queries = pr_counters_queries(&res->total) + res->total.errors;
        if (server_value(res, "Questions", &questions))
            fprintf(out, "    queries/s:   client %.2f, server %.2f (Questions)\n",
                    (double)queries / t, (double)questions / t);
        fr->server_check(res, &queries, &srv);
        fprintf(out, "    statements:  client %" PRIu64 ", server %" PRIu64 " (%s): ",
                res->client_statements, srv, fr->server_formula);
        if (res->server_match)
            fprintf(out, "match\n");
        else
            fprintf(out, "differ by %+" PRId64 "\n", res->server_diff);
        fprintf(out, "    (%s; reconnects: %" PRIu64 ")\n\n", fr->server_caveat,
                res->total.reconnects);
        return;
    }
    if (server_value(res, "Questions", &questions))
        fprintf(out, "    queries/s:   client %.2f, server %.2f (Questions)\n",
                (double)res->client_statements / t, (double)questions / t);
    co_summary_server_statements(res, &srv);
    fprintf(out,
            "    statements:  client %" PRIu64 ", server %" PRIu64
            " (Com_select+insert+update+delete+begin+commit): ",
            res->client_statements, srv);
    if (res->server_match)
        fprintf(out, "match\n\n");
    else
        fprintf(out,
                "differ by %+" PRId64 " (other clients on the server, or statements the "
                "agents did not count)\n\n",
                res->server_diff);
}

static const char *saturation_why(const struct co_agent_result *ag, char *buf, size_t len)
{
    double cores = ag->cores ? ag->cores : 1;
    if (ag->cpu_pct_avg >= SATURATED_CPU_SHARE * 100.0 * cores)
        snprintf(buf, len, "mean CPU %.0f%% of its %" PRIu32 " cores", ag->cpu_pct_avg, ag->cores);
    else
        snprintf(buf, len, "event-loop lag p99 %.1f ms, above %.0f ms", ms(ag->lag_p99_us),
                 ms(SATURATED_LAG_US));
    return buf;
}

/* The steady-state judgement (co_steady), when the run had intervals. */
static void print_steady(FILE *out, const struct co_result *res)
{
    const struct co_steady *s = &res->steady;
    if (s->verdict[0] == '\0')
        return;
    fprintf(out, "Steady state:\n    %s\n", s->verdict);
    if (s->judged)
        fprintf(out,
                "    intervals %u (warm-up %u), tps mean %.2f, CV %.1f%%; trend over the run: "
                "tps %s, p95 %s\n",
                s->intervals, s->warmup_n, s->tps_mean, 100.0 * s->tps_cv,
                s->tps.has ? (s->tps.significant ? "significant" : "none") : "-",
                s->p95.has ? (s->p95.significant ? "significant" : "none") : "-");
    fprintf(out, "\n");
}

void co_summary_print_warmcut(FILE *out, const struct co_result *res)
{
    const struct co_warmcut *w = &res->warmcut;
    char mode[16] = "auto";
    if (w->opt.mode == CO_WARMUP_OFF)
        return;
    if (w->opt.mode == CO_WARMUP_FIXED)
        snprintf(mode, sizeof(mode), "%u", w->opt.s);
    if (!w->applied) {
        fprintf(out, "Warm-up: %s; the totals are the whole run's\n\n", w->note);
        return;
    }
    fprintf(out,
            "Warm-up left out of the totals (--warmup=%s): the first %.1f s (%u intervals, "
            "%" PRIu64 " transactions, %" PRIu64 " queries); whole run %.4fs, %" PRIu64
            " transactions, %" PRIu64 " queries.\n"
            "    The server cross-check, per-agent and per-kind figures and threads fairness "
            "cover the whole run.\n\n",
            mode, w->cut_s, w->cut_intervals, w->cut_ctr.transactions,
            pr_counters_queries(&w->cut_ctr), w->whole_time_s, w->whole_ctr.transactions,
            pr_counters_queries(&w->whole_ctr));
}

void co_summary_print_agents(FILE *out, const struct co_result *res)
{
    char why[128];
    fprintf(out, "Agents:\n");
    fprintf(out, "    %-16s %-20s %6s %11s %9s %7s %9s %9s %8s %5s\n", "name", "host", "conns",
            "tps", "p95 ms", "CPU %", "lag99 ms", "offset ms", "skew ms", "late");
    for (uint32_t i = 0; i < res->n_agents; i++)
        print_agent_row(out, &res->agents[i], co_result_whole_time_s(res));
    fprintf(out, "\n");
    print_service(out, res);
    print_server(out, res);
    print_steady(out, res);
    co_summary_print_warmcut(out, res);
    for (uint32_t i = 0; i < res->n_agents; i++) {
        const struct co_agent_result *ag = &res->agents[i];
        if (ag->saturated)
            fprintf(out,
                    "WARNING: agent %s looks saturated (%s): the client, not the server, may "
                    "have limited this run; use more or bigger client machines\n",
                    ag->name, saturation_why(ag, why, sizeof(why)));
        if (ag->lost)
            fprintf(out,
                    "WARNING: agent %s was lost at %.1f s (%s); its totals are the "
                    "intervals it reported\n",
                    ag->name, ag->lost_at_s, ag->reason);
    }
    if (res->bad_frames || res->refused_agents)
        fprintf(out,
                "Control channel: %" PRIu64 " malformed frames ignored, %" PRIu64
                " agents refused\n",
                res->bad_frames, res->refused_agents);
}
