/* test_co_summary: the end of a run — totals summed from the agents, the
 * saturation rule, the server cross-check, the sysbench final report's
 * per-connection fairness, and the stampede section (agents table, server
 * lines, warnings). Every expected figure is worked out here from the
 * inputs, not read back from the module. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_summary.h"
#include "testlib.h"

/* An agent with tx transactions of lat_us each (n of them recorded), reads
 * and writes from tx, on threads connections. */
static void agent(struct co_agent_result *a, const char *name, uint32_t threads, uint64_t tx,
                  uint64_t lat_us)
{
    memset(a, 0, sizeof(*a));
    a->name = pr_xstrdup(name);
    a->host = pr_xstrdup("host-of-");
    a->region = pr_xstrdup("");
    a->reason = pr_xstrdup("");
    a->cores = 2;
    a->threads = threads;
    a->ctr.transactions = tx;
    a->ctr.reads = tx * 10;
    a->ctr.writes = tx * 4;
    a->ctr.other = tx * 2;
    a->ctr.errors = 1;
    a->lat = pr_hist_new();
    pr_hist_record(a->lat, lat_us, tx);
}

/* Lead agent's server counters: start 1000 each, end as given. */
static void server(struct co_result *r, const uint64_t delta[6], bool with_commit)
{
    static const char *const names[6] = {"Com_select", "Com_insert", "Com_update",
                                         "Com_delete", "Com_begin",  "Com_commit"};
    uint32_t n = with_commit ? 6 : 5;
    r->server = pr_xcalloc(n + 1, sizeof(*r->server));
    for (uint32_t i = 0; i < n; i++)
        r->server[i] = (struct co_server_delta){pr_xstrdup(names[i]), 1000, 1000 + delta[i]};
    r->server[n] = (struct co_server_delta){pr_xstrdup("Questions"), 5, 5 + 3000};
    r->n_server = n + 1;
}

static void result(struct co_result *r)
{
    memset(r, 0, sizeof(*r));
    r->n_agents = 3;
    r->agents = pr_xcalloc(3, sizeof(*r->agents));
    agent(&r->agents[0], "ag-1", 2, 10, 2000);
    agent(&r->agents[1], "ag-2", 1, 4, 3000);
    agent(&r->agents[2], "ag-3", 3, 0, 0);
    r->time_s = 2.0;
    r->exit_reason = pr_xstrdup("");
}

/* Totals, statements, the saturation rule at and below its thresholds. */
static void test_totals(void)
{
    struct co_result r;
    result(&r);
    r.agents[0].cpu_pct_avg = 0.85 * 100.0 * 2; /* 85% of 2 cores: saturated */
    r.agents[1].cpu_pct_avg = 0.84 * 100.0 * 2;
    r.agents[1].lag_p99_us = 9999; /* just under 10 ms: not */
    r.agents[2].lag_p99_us = 10000;
    const uint64_t d[6] = {140, 28, 14, 14, 14, 14 + 3}; /* 224 + 3 statements */
    server(&r, d, true);
    co_summary_totals(&r);
    CHECK_EQ_U64(r.total.transactions, 14);
    CHECK_EQ_U64(r.total.reads, 140);
    CHECK_EQ_U64(r.total.writes, 56);
    CHECK_EQ_U64(r.total.other, 28);
    CHECK_EQ_U64(r.total.errors, 3);
    CHECK(r.lat != NULL && pr_hist_count(r.lat) == 14);
    CHECK_EQ_U64(pr_hist_sum(r.lat), 10 * 2000 + 4 * 3000);
    CHECK(r.agents[0].saturated && !r.agents[1].saturated && r.agents[2].saturated);
    /* reads + writes + other + ignored errors */
    CHECK_EQ_U64(r.client_statements, 140 + 56 + 28 + 3);
    uint64_t srv = 0;
    CHECK(co_summary_server_statements(&r, &srv) && srv == 227);
    CHECK(r.server_checked && r.server_match && r.server_diff == 0);
    co_result_clear(&r);

    /* The server counted 5 statements more; and a run's latency left as is. */
    result(&r);
    const uint64_t more[6] = {145, 28, 14, 14, 14, 17};
    server(&r, more, true);
    r.lat = pr_hist_new();
    pr_hist_record(r.lat, 77, 1);
    co_summary_totals(&r);
    CHECK(pr_hist_count(r.lat) == 1 && pr_hist_max(r.lat) == 77);
    CHECK(r.server_checked && !r.server_match && r.server_diff == 5);
    co_result_clear(&r);

    /* Without Com_commit there is no check. */
    result(&r);
    server(&r, d, false);
    co_summary_totals(&r);
    CHECK(!co_summary_server_statements(&r, &srv));
    CHECK(!r.server_checked && !r.server_match);
    co_result_clear(&r);
}

/* Population standard deviation of v[0..n), as "%3.2f" prints it. */
static double stddev(const double *v, size_t n)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        m += v[i] / (double)n;
    for (size_t i = 0; i < n; i++)
        s += (v[i] - m) * (v[i] - m);
    return sqrt(s / (double)n);
}

/* Fairness over connections: each agent's events and latency sum spread
 * over its connections (ag-1: 10 over 2 = 5, 5; ag-2: 4; ag-3: 0, 0, 0). */
static void test_final(void)
{
    const char *argv[] = {"stampede", "oltp_read_write", "run", "--threads=6", "--percentile=99"};
    struct co_args a;
    struct pr_error err = {0};
    CHECK(co_args_parse(&a, 5, (char **)argv, NULL, &err) == 0);
    struct co_result r;
    result(&r);
    co_summary_totals(&r);
    struct cap c;
    CHECK(co_summary_print_final(cap_open(&c), &a, &r) == 0);
    char *text = cap_text(&c);

    const double ev[6] = {5, 5, 4, 0, 0, 0};
    const double secs[6] = {0.01, 0.01, 0.012, 0, 0, 0}; /* 10 x 2 ms over 2; 4 x 3 ms */
    char want[256];
    snprintf(want, sizeof(want), "    events (avg/stddev):           %.4f/%3.2f\n", 14.0 / 6,
             stddev(ev, 6));
    CHECK_MSG(strstr(text, want) != NULL, "want %s in\n%s", want, text);
    snprintf(want, sizeof(want), "    execution time (avg/stddev):   %.4f/%3.2f\n", 0.032 / 6,
             stddev(secs, 6));
    CHECK_MSG(strstr(text, want) != NULL, "want %s in\n%s", want, text);
    CHECK(strstr(text, "    transactions:                        14     (7.00 per sec.)\n"));
    CHECK(strstr(text, "    total time:                          2.0000s\n"));
    CHECK(strstr(text, "         99th percentile:                        3.00\n"));
    CHECK(strstr(text, "         sum:                                   32.00\n"));
    CHECK(strstr(text, "Agents:") == NULL); /* the stampede section is not in it */
    free(text);
    co_result_clear(&r);
    co_args_clear(&a);
}

/* The line of the agents table that starts with the agent's name. */
static const char *row_of(const char *text, const char *name)
{
    char key[64];
    snprintf(key, sizeof(key), "\n    %s ", name);
    const char *p = strstr(text, key);
    return p ? p + 1 : NULL;
}

static void test_agents_section(void)
{
    struct co_result r;
    result(&r);
    r.agents[0].cpu_pct_avg = 190.0;
    r.agents[1].lost = true;
    r.agents[1].lost_at_s = 1.5;
    free(r.agents[1].reason);
    r.agents[1].reason = pr_xstrdup("silent for 2.5 s");
    r.agents[2].status = -5;
    r.agents[2].late_intervals = 3;
    r.agents[0].has_start_skew = true; /* agent 2's workers never all started: "-" */
    r.agents[0].start_skew_us = 1500;
    r.agents[1].has_start_skew = true;
    r.agents[1].start_skew_us = 250;
    const uint64_t more[6] = {145, 28, 14, 14, 14, 17};
    server(&r, more, true);
    co_summary_totals(&r);
    struct cap c;
    co_summary_print_agents(cap_open(&c), &r);
    char *text = cap_text(&c);

    CHECK(strncmp(text, "Agents:\n    name ", 17) == 0);
    /* name host conns tps p95 CPU lag99 offset skew late [mark]; tps over
     * the run time (10 / 2 s, 4 / 2 s, 0), p95 2 and 3 ms. */
    struct {
        const char *name;
        unsigned conns;
        double tps, p95, cpu;
        const char *skew;
        unsigned late;
        const char *mark;
    } want[3] = {{"ag-1", 2, 5.0, 2.0, 190.0, "1.500", 0, ""},
                 {"ag-2", 1, 2.0, 3.0, 0.0, "0.250", 0, "LOST"},
                 {"ag-3", 3, 0.0, 0.0, 0.0, "-", 3, "FAILED"}};
    for (int i = 0; i < 3; i++) {
        const char *row = row_of(text, want[i].name);
        char name[32] = "", host[32] = "", mark[16] = "", skew[16] = "";
        unsigned conns = 99, late = 99;
        double tps = -1, p95 = -1, cpu = -1, lag = -1, off = -1;
        int n = row ? sscanf(row, "%31s %31s %u %lf %lf %lf %lf %lf %15s %u %15[A-Z]", name, host,
                             &conns, &tps, &p95, &cpu, &lag, &off, skew, &late, mark)
                    : 0;
        CHECK_MSG(n >= 10 && strcmp(name, want[i].name) == 0 && strcmp(host, "host-of-") == 0 &&
                      conns == want[i].conns && fabs(tps - want[i].tps) < 1e-9 &&
                      fabs(p95 - want[i].p95) < 1e-9 && fabs(cpu - want[i].cpu) < 1e-9 &&
                      strcmp(skew, want[i].skew) == 0 && late == want[i].late &&
                      strcmp(mark, want[i].mark) == 0,
                  "row %d: %.140s", i, row ? row : "(none)");
    }
    /* 227 client statements, 232 on the server; Questions 3000 over 2 s. */
    CHECK(strstr(text, "    queries/s:   client 113.50, server 1500.00 (Questions)\n"));
    CHECK(strstr(text, "    statements:  client 227, server 232 "
                       "(Com_select+insert+update+delete+begin+commit): differ by +5 "));
    CHECK(strstr(text, "WARNING: agent ag-1 looks saturated (mean CPU 190% of its 2 cores)"));
    CHECK(strstr(text, "WARNING: agent ag-2 was lost at 1.5 s (silent for 2.5 s)"));
    CHECK(strstr(text, "ag-3 looks saturated") == NULL);
    CHECK(strstr(text, "Control channel:") == NULL);
    free(text);

    /* No server samples; frames ignored and agents refused are told. */
    for (uint32_t i = 0; i < r.n_server; i++)
        free(r.server[i].name);
    free(r.server);
    r.server = NULL;
    r.n_server = 0;
    r.bad_frames = 2;
    r.refused_agents = 1;
    co_summary_totals(&r);
    co_summary_print_agents(cap_open(&c), &r);
    text = cap_text(&c);
    CHECK(strstr(text, "    not available (no server samples from the lead agent)\n"));
    CHECK(strstr(text, "Control channel: 2 malformed frames ignored, 1 agents refused\n"));
    free(text);
    co_result_clear(&r);
}

int main(void)
{
    test_totals();
    test_final();
    test_agents_section();
    return TEST_END();
}
