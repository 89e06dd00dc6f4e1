/* co_output_fixture: the result test_co_output and test_co_output_edges
 * write. Three agents, one with a name full of characters JSON and
 * HdrHistogram tags cannot hold raw, one lost; a late, two partial and a
 * short unprinted tail interval; server counters, one going back
 * (build_result). The files go to a temporary directory
 * (co_output_tmpdir_make, path_in, co_output_tmpdir_remove). */
#ifndef CO_OUTPUT_FIXTURE_H
#define CO_OUTPUT_FIXTURE_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "co_result.h"

#define TESTRNG_SEED 0x9e3779b97f4a7c15ULL
#include "testrng.h"

#define N_AGENTS    3
#define N_INTERVALS 5
#define START_MS    1700000000250ULL

/* Quote, backslash, newline, tab, a byte that is not UTF-8, U+2028, é, a
 * comma and a space. */
#define WEIRD_NAME "ag\"2\\x\n\t\xff\xe2\x80\xa8\xc3\xa9, y"
/* What python's json.dumps (ensure_ascii) gives for its JSON decoding. */
#define WEIRD_JSON "\"ag\\\"2\\\\x\\n\\t\\ufffd\\u2028\\u00e9, y\""
/* Its HdrHistogram tag. */
#define WEIRD_TAG "ag\"2\\x___\xe2\x80\xa8\xc3\xa9__y"

static char tmpdir[] = "/tmp/test_co_output.XXXXXX";

static inline char *path_in(const char *name)
{
    char *p = pr_xmalloc(strlen(tmpdir) + strlen(name) + 2);
    sprintf(p, "%s/%s", tmpdir, name);
    return p;
}

static inline bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ---- the result ---------------------------------------------------- */

static inline void fill_agent(struct co_agent_result *a, uint32_t i)
{
    static const char *const names[N_AGENTS] = {"ag-1", WEIRD_NAME, "ag-3"};
    a->name = pr_xstrdup(names[i]);
    a->host = pr_xstrdup(i == 0 ? "db-client-1" : i == 1 ? "db-client-2" : "db-client-3");
    a->region = pr_xstrdup(i == 0 ? "eu-west" : "");
    a->cores = 4;
    a->threads = 4;
    a->lat = pr_hist_new();
    a->cpu_pct_avg = i == 1 ? NAN : 35.5 + i; /* NaN must come out null */
    a->cpu_pct_max = 61.25 + i;
    a->lag_max_us = 1500 + i;
    a->lag_p99_us = 700 + i;
    a->slip_max_us = 20;
    a->clock_offset_ns = i == 2 ? -1234567 : 250000;
    a->clock_rtt_ns = 180000;
    a->db_rtt_us = 95;
    a->has_db_rtt = i != 1; /* agent 1: every ping failed */
    a->start_skew_us = 42;
    a->has_start_skew = i != 2; /* agent 2 (lost): its DONE never came */
    a->svc = pr_hist_new();
    a->done = i != 2;
    a->lost = i == 2;
    a->lost_at_s = i == 2 ? 3.5 : 0;
    a->status = i == 2 ? -ETIMEDOUT : 0;
    a->reason = pr_xstrdup(i == 2 ? "silent for 3 s" : "");
    a->intervals = i == 2 ? 3 : N_INTERVALS;
    a->late_intervals = i == 0;
}

/* Agent a's figures for interval k: n transactions of 16 statements. */
static inline void agent_interval(struct co_result *r, uint32_t k, uint32_t a, pr_hist *h,
                                  struct pr_counters *c)
{
    uint64_t n = 200 + 50 * a + 10 * k;
    for (uint64_t s = 0; s < n; s++)
        pr_hist_record(h, 800 + 500 * a + rng_next() % (2000 + 1000 * k), 1);
    if (k == 1 && a == 0)
        pr_hist_record(h, 250000, 1); /* one slow transaction */
    c->transactions = pr_hist_count(h);
    /* Service time (rate mode): under the latency, as from the actual start. */
    pr_hist *svc = pr_hist_new();
    for (uint64_t s = 0; s < c->transactions; s++)
        pr_hist_record(svc, 300 + 200 * a + rng_next() % (500 + 100 * k), 1);
    if (r->intervals[k].svc == NULL)
        r->intervals[k].svc = pr_hist_new();
    pr_hist_add(r->intervals[k].svc, svc);
    pr_hist_add(r->agents[a].svc, svc);
    if (r->svc == NULL)
        r->svc = pr_hist_new();
    pr_hist_add(r->svc, svc);
    pr_hist_destroy(&svc);
    c->reads = 10 * c->transactions;
    c->writes = 4 * c->transactions;
    c->other = 2 * c->transactions;
    c->errors = k;
    c->reconnects = k == 2;
    c->rolled_back = 3 * k + a + 1; /* outcomes: distinct per interval and agent */
    c->failed = k + 2 * a;
    pr_counters_add(&r->agents[a].ctr, c);
    pr_hist_add(r->agents[a].lat, h);
}

static inline void fill_interval(struct co_result *r, uint32_t k)
{
    struct co_interval_result *iv = &r->intervals[k];
    iv->k = k;
    iv->len_s = k == N_INTERVALS - 1 ? 0.4 : 1.0;
    iv->t_s = k == N_INTERVALS - 1 ? 4.4 : (double)(k + 1);
    iv->lat = pr_hist_new();
    iv->agent_lat = pr_xcalloc(N_AGENTS, sizeof(*iv->agent_lat));
    for (uint32_t a = 0; a < N_AGENTS; a++) {
        if (a == 2 && k >= 3)
            continue; /* lost at 3.5 s */
        struct pr_counters c = {0};
        iv->agent_lat[a] = pr_hist_new();
        agent_interval(r, k, a, iv->agent_lat[a], &c);
        pr_counters_add(&iv->ctr, &c);
        pr_hist_add(iv->lat, iv->agent_lat[a]);
        iv->agents_reporting++;
        iv->threads += r->agents[a].threads;
    }
    iv->agents_expected = k >= 3 ? 2 : 3;
    iv->late = k == 2;
    iv->partial = k >= 3;
    iv->printed = k < N_INTERVALS - 1;
    iv->cpu_pct_max = 60.0 + k;
    iv->lag_max_us = 900 + k;
    iv->has_server = k != N_INTERVALS - 1;
    iv->server_qps = (double)(pr_counters_queries(&iv->ctr) + 3) / iv->len_s;
    pr_counters_add(&r->total, &iv->ctr);
    pr_hist_add(r->lat, iv->lat);
}

static inline void fill_server(struct co_result *r)
{
    r->n_server = 2;
    r->server = pr_xcalloc(2, sizeof(*r->server));
    r->server[0].name = pr_xstrdup("Questions");
    r->server[0].start = 1000;
    r->server[0].end = 1000 + pr_counters_queries(&r->total) + 7;
    r->server[1].name = pr_xstrdup("Com_select");
    r->server[1].start = 10;
    r->server[1].end = 5; /* a FLUSH STATUS: the delta goes negative */
    r->client_statements = pr_counters_queries(&r->total);
    r->server_checked = true;
    r->server_match = false;
    r->server_diff = 7;
}

static inline void build_result(struct co_result *r)
{
    static const char *const opts[][2] = {
        {"threads", "12"}, {"time", "5"}, {"report-interval", "1"}, {"db-host", "127.0.0.1"}};
    r->tool = pr_xstrdup("stampede");
    r->version = pr_xstrdup("0.1.0");
    r->workload = pr_xstrdup("oltp_read_write");
    r->command = pr_xstrdup("run");
    r->n_opts = 4;
    r->opt_names = pr_xcalloc(4, sizeof(char *));
    r->opt_values = pr_xcalloc(4, sizeof(char *));
    for (uint32_t i = 0; i < 4; i++) {
        r->opt_names[i] = pr_xstrdup(opts[i][0]);
        r->opt_values[i] = pr_xstrdup(opts[i][1]);
    }
    r->threads = 12;
    r->report_interval_s = 1;
    r->percentile = 95;
    r->n_agents = N_AGENTS;
    r->agents = pr_xcalloc(N_AGENTS, sizeof(*r->agents));
    for (uint32_t a = 0; a < N_AGENTS; a++)
        fill_agent(&r->agents[a], a);
    r->lat = pr_hist_new();
    r->n_intervals = N_INTERVALS;
    r->intervals = pr_xcalloc(N_INTERVALS, sizeof(*r->intervals));
    for (uint32_t k = 0; k < N_INTERVALS; k++)
        fill_interval(r, k);
    r->time_s = 4.4;
    fill_server(r);
    r->exit_status = CO_EXIT_FAILED;
    r->exit_reason = pr_xstrdup("agent ag-3 lost at 3.5 s");
    r->bad_frames = 2;
}

/* Make tmpdir; 0, or -1 (perror). */
static inline int co_output_tmpdir_make(void)
{
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* Remove tmpdir and what is in it, unless TEST_CO_OUTPUT_KEEP is set (to
 * look at the files). */
static inline void co_output_tmpdir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (getenv("TEST_CO_OUTPUT_KEEP") != NULL) /* to look at the files */
        printf("kept %s\n", tmpdir);
    else if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}

#endif
