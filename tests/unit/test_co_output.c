/* Tests for co_json, co_csv, co_hdrout and co_result_clear. A realistic
 * result (three agents, one with a name full of characters JSON and
 * HdrHistogram tags cannot hold raw, one lost; a late, two partial and a
 * short unprinted tail interval; server counters, one going back) is written
 * to a temporary directory. The JSON is read back by python3's strict json
 * module (non-finite constants rejected, strict UTF-8) and its figures are
 * compared with what pr_hist and the counters give, exactly: numbers are
 * written in a form that reads back to the same double. The CSV is parsed
 * here; the HdrHistogram log is decoded with pr_hdrlog back to the same
 * buckets. Error paths: a missing directory, a directory as the target,
 * /dev/full. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "co_csv.h"
#include "co_hdrout.h"
#include "co_json.h"
#include "co_result.h"
#include "pr_hdrlog.h"
#include "pr_text.h"
#include "testlib.h"

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

static char *path_in(const char *name)
{
    char *p = pr_xmalloc(strlen(tmpdir) + strlen(name) + 2);
    sprintf(p, "%s/%s", tmpdir, name);
    return p;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ---- the result ---------------------------------------------------- */

static void fill_agent(struct co_agent_result *a, uint32_t i)
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
static void agent_interval(struct co_result *r, uint32_t k, uint32_t a, pr_hist *h,
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

static void fill_interval(struct co_result *r, uint32_t k)
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

static void fill_server(struct co_result *r)
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

static void build_result(struct co_result *r)
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

/* ---- JSON, read back by python3 ------------------------------------ */

static const char query_py[] = "import json, sys\n"
                               "def reject(c):\n"
                               "    raise ValueError('non-finite number ' + c)\n"
                               "with open(sys.argv[1], encoding='utf-8', errors='strict') as f:\n"
                               "    doc = json.load(f, parse_constant=reject)\n"
                               "for p in sys.argv[2:]:\n"
                               "    v = doc\n"
                               "    for k in p.split('/'):\n"
                               "        v = v[int(k)] if isinstance(v, list) else v[k]\n"
                               "    print(json.dumps(v))\n";

#define MAX_QUERIES 200

/* Paths to read from the JSON and what each must be; checked after one
 * python3 run. */
struct query {
    char *paths[MAX_QUERIES];      /* '/'-separated, list indexes as numbers */
    char *values[MAX_QUERIES];     /* json.dumps of each path's value */
    double nums[MAX_QUERIES];      /* wanted number (NaN: null) when strs[i] is NULL */
    const char *strs[MAX_QUERIES]; /* else the wanted json.dumps text */
    int n;
};

static void q_vadd(struct query *q, double num, const char *str, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static void q_vadd(struct query *q, double num, const char *str, const char *fmt, va_list ap)
{
    char buf[128];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (q->n >= MAX_QUERIES)
        abort();
    q->paths[q->n] = pr_xstrdup(buf);
    q->nums[q->n] = num;
    q->strs[q->n] = str;
    q->n++;
}

static void q_num(struct query *q, double want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void q_str(struct query *q, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The value at the path is the number want exactly (null for NaN). */
static void q_num(struct query *q, double want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    q_vadd(q, want, NULL, fmt, ap);
    va_end(ap);
}

/* The value at the path, as python's json.dumps writes it, is want. */
static void q_str(struct query *q, const char *want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    q_vadd(q, 0, want, fmt, ap);
    va_end(ap);
}

static void q_check(const struct query *q, int i)
{
    const char *v = q->values[i];
    if (q->strs[i] != NULL) {
        CHECK_MSG(strcmp(v, q->strs[i]) == 0, "%s: %s, want %s", q->paths[i], v, q->strs[i]);
    } else if (isnan(q->nums[i])) {
        CHECK_MSG(strcmp(v, "null") == 0, "%s: %s, want null", q->paths[i], v);
    } else {
        char *end;
        double got = strtod(v, &end);
        CHECK_MSG(*end == '\0' && got == q->nums[i], "%s: %s, want %.17g", q->paths[i], v,
                  q->nums[i]);
    }
}

/* Run the script on json_path once for every queued path, check each value
 * and forget the queue. The script rejects NaN/Infinity and bad UTF-8. */
static void q_run(struct query *q, const char *json_path)
{
    char *script = path_in("query.py");
    FILE *f = fopen(script, "w");
    if (f == NULL || fputs(query_py, f) < 0 || fclose(f) != 0)
        abort();
    size_t len = strlen(script) + strlen(json_path) + 32;
    for (int i = 0; i < q->n; i++)
        len += strlen(q->paths[i]) + 3;
    char *cmd = pr_xmalloc(len);
    int off = sprintf(cmd, "python3 %s %s", script, json_path);
    for (int i = 0; i < q->n; i++)
        off += sprintf(cmd + off, " '%s'", q->paths[i]);
    FILE *p = popen(cmd, "r");
    char line[512];
    int got = 0;
    while (p != NULL && got < q->n && fgets(line, sizeof(line), p) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        q->values[got++] = pr_xstrdup(line);
    }
    int st = p != NULL ? pclose(p) : -1;
    CHECK_MSG(st == 0 && got == q->n, "python3 on %s: %d of %d values, status %d", json_path, got,
              q->n, st);
    for (int i = 0; i < got; i++)
        q_check(q, i);
    for (int i = 0; i < q->n; i++) {
        free(q->paths[i]);
        free(q->values[i]);
        q->values[i] = NULL;
    }
    q->n = 0;
    free(cmd);
    free(script);
}

static double ms_at(const pr_hist *h, double p)
{
    return (double)pr_hist_value_at_percentile(h, p) / 1000.0;
}

static const char *json_bool(bool b)
{
    return b ? "true" : "false";
}

static void queue_interval_checks(struct query *q, const struct co_result *r, uint32_t k)
{
    const struct co_interval_result *iv = &r->intervals[k];
    const struct pr_counters *c = &iv->ctr;
    q_num(q, iv->t_s, "intervals/%u/t_s", k);
    q_num(q, iv->len_s, "intervals/%u/len_s", k);
    q_num(q, iv->threads, "intervals/%u/threads", k);
    q_num(q, (double)c->transactions / iv->len_s, "intervals/%u/tps", k);
    q_num(q, (double)pr_counters_queries(c) / iv->len_s, "intervals/%u/qps", k);
    q_num(q, (double)c->writes / iv->len_s, "intervals/%u/writes_s", k);
    q_num(q, (double)c->errors / iv->len_s, "intervals/%u/err_s", k);
    q_num(q, (double)c->reconnects / iv->len_s, "intervals/%u/reconn_s", k);
    q_num(q, ms_at(iv->lat, 50), "intervals/%u/latency_ms/p50", k);
    q_num(q, ms_at(iv->lat, 95), "intervals/%u/latency_ms/p95", k);
    q_num(q, ms_at(iv->lat, 99.9), "intervals/%u/latency_ms/p99_9", k);
    q_num(q, (double)pr_hist_max(iv->lat) / 1000, "intervals/%u/latency_ms/max", k);
    q_num(q, iv->agents_reporting, "intervals/%u/agents_reporting", k);
    q_str(q, json_bool(iv->late), "intervals/%u/late", k);
    q_str(q, json_bool(iv->partial), "intervals/%u/partial", k);
    q_str(q, json_bool(iv->printed), "intervals/%u/printed", k);
    q_num(q, iv->has_server ? iv->server_qps : NAN, "intervals/%u/server_qps", k);
    q_num(q, c->transactions, "intervals/%u/counters/transactions", k);
    q_num(q, ms_at(iv->svc, 50), "intervals/%u/service_ms/p50", k);
    q_num(q, ms_at(iv->svc, 99), "intervals/%u/service_ms/p99", k);
    q_num(q, (double)pr_hist_max(iv->svc) / 1000, "intervals/%u/service_ms/max", k);
}

static void check_json(const struct co_result *r, const char *json_path)
{
    struct query q = {0};
    for (uint32_t k = 0; k < r->n_intervals; k++)
        queue_interval_checks(&q, r, k);
    const struct co_agent_result *a1 = &r->agents[1], *a2 = &r->agents[2];
    q_str(&q, "\"stampede\"", "tool");
    q_str(&q, "\"run\"", "command");
    q_str(&q, WEIRD_JSON, "agents/1/name");
    q_str(&q, "\"ag-1\"", "agents/0/name");
    q_str(&q, "\"eu-west\"", "agents/0/region");
    q_num(&q, NAN, "agents/1/cpu_pct/avg");
    q_num(&q, a1->cpu_pct_max, "agents/1/cpu_pct/max");
    q_num(&q, a1->ctr.transactions, "agents/1/transactions");
    q_num(&q, pr_counters_queries(&a1->ctr), "agents/1/queries");
    q_num(&q, ms_at(a1->lat, 95), "agents/1/latency_ms/p95");
    q_num(&q, pr_hist_mean(a1->lat) / 1000.0, "agents/1/latency_ms/avg");
    q_num(&q, NAN, "agents/0/lost_at_s");
    q_num(&q, 3.5, "agents/2/lost_at_s");
    q_str(&q, "true", "agents/2/lost");
    q_str(&q, "false", "agents/2/done");
    q_num(&q, a2->status, "agents/2/status");
    q_str(&q, "\"silent for 3 s\"", "agents/2/reason");
    q_num(&q, -1.234567, "agents/2/clock_offset_ms");
    q_num(&q, 1.502, "agents/2/loop_lag_ms/max");
    q_num(&q, 1, "agents/0/late_intervals");
    q_num(&q, 0.095, "agents/0/db_rtt_ms");
    q_num(&q, NAN, "agents/1/db_rtt_ms"); /* unknown, not 0 */
    q_num(&q, 0.042, "agents/1/start_skew_ms");
    q_num(&q, NAN, "agents/2/start_skew_ms");
    q_num(&q, ms_at(r->agents[0].svc, 95), "agents/0/service_ms/p95");
    q_num(&q, ms_at(r->svc, 50), "totals/service_ms/p50");
    q_num(&q, ms_at(r->svc, 99.9), "totals/service_ms/p99_9");
    q_num(&q, pr_hist_mean(r->svc) / 1000.0, "totals/service_ms/avg");
    q_str(&q, "\"1\"", "options/report-interval");
    q_str(&q, "\"127.0.0.1\"", "options/db-host");
    q_num(&q, r->total.transactions, "totals/transactions");
    q_num(&q, pr_counters_queries(&r->total), "totals/queries/total");
    q_num(&q, r->total.writes, "totals/queries/write");
    q_num(&q, r->total.errors, "totals/ignored_errors");
    q_num(&q, (double)r->total.transactions / 4.4, "totals/tps");
    q_num(&q, ms_at(r->lat, 95), "totals/latency_ms/p95");
    q_num(&q, ms_at(r->lat, 99.9), "totals/latency_ms/p99_9");
    q_num(&q, 250.0, "totals/latency_ms/max");
    q_num(&q, (double)r->client_statements + 7, "server/counters/Questions/delta");
    q_num(&q, -5, "server/counters/Com_select/delta");
    q_str(&q, "false", "server/match");
    q_num(&q, 7, "server/diff");
    q_num(&q, 2, "control/bad_frames");
    q_num(&q, 1, "exit/status");
    q_str(&q, "\"agent ag-3 lost at 3.5 s\"", "exit/reason");
    q_run(&q, json_path);
}

/* A zeroed result with one empty zero-length interval: still valid JSON,
 * and every figure without a value is null. */
static void test_json_empty(void)
{
    struct co_result r = {0};
    r.n_intervals = 1;
    r.intervals = pr_xcalloc(1, sizeof(*r.intervals));
    r.intervals[0].lat = pr_hist_new();
    char *p = path_in("empty.json");
    struct pr_error err = {0};
    CHECK_EQ_U64(co_json_write_file(&r, p, &err), 0);
    struct query q = {0};
    const char *nulls[] = {"tool",
                           "intervals/0/tps",
                           "intervals/0/latency_ms/p95",
                           "intervals/0/service_ms", /* closed loop: no service time */
                           "totals/tps",
                           "totals/latency_ms/min",
                           "totals/service_ms",
                           "server/match"};
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
        q_num(&q, NAN, "%s", nulls[i]);
    q_str(&q, "[]", "agents");
    q_str(&q, "{}", "options");
    q_run(&q, p);
    char *c = path_in("empty.csv");
    CHECK_EQ_U64(co_csv_write_file(&r, c, &err), 0);
    FILE *f = fopen(c, "r");
    char line[2048] = "", want[256] = "0,0,0,,,,,,,,,,,,0,0,0,,0,,,";
    CHECK(f != NULL && fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f));
    for (int i = 0; i < CO_SRVSTAT_N; i++) /* server status: unknown */
        strcat(want, ",");
    strcat(want, ",,\n"); /* outcomes per second: no length, no rate */
    CHECK_MSG(strcmp(line, want) == 0, "row %s", line);
    if (f != NULL)
        fclose(f);
    free(c);
    free(p);
    co_result_clear(&r);
}

/* ---- CSV ------------------------------------------------------------ */

static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *s = line;; s++) {
        char *comma = strchr(s, ',');
        if (n < max)
            fields[n] = s;
        n++;
        if (comma == NULL)
            break;
        *comma = '\0';
        s = comma;
    }
    return n;
}

static void check_csv_row(const struct co_result *r, uint32_t k, char **fld)
{
    const struct co_interval_result *iv = &r->intervals[k];
    CHECK(strtod(fld[0], NULL) == iv->t_s);
    CHECK(strtod(fld[1], NULL) == iv->len_s);
    CHECK_EQ_U64(strtoull(fld[2], NULL, 10), iv->threads);
    CHECK(strtod(fld[3], NULL) == (double)iv->ctr.transactions / iv->len_s);
    CHECK(strtod(fld[4], NULL) == (double)pr_counters_queries(&iv->ctr) / iv->len_s);
    CHECK(strtod(fld[5], NULL) == (double)iv->ctr.reads / iv->len_s);
    CHECK(strtod(fld[9], NULL) == ms_at(iv->lat, 95));
    CHECK(strtod(fld[11], NULL) == (double)pr_hist_max(iv->lat) / 1000.0);
    CHECK(strtod(fld[12], NULL) == (double)iv->ctr.errors / iv->len_s);
    CHECK_EQ_U64(strtoull(fld[14], NULL, 10), iv->agents_reporting);
    CHECK(strcmp(fld[15], iv->late ? "1" : "0") == 0);
    CHECK(strcmp(fld[16], iv->partial ? "1" : "0") == 0);
    if (iv->has_server)
        CHECK(strtod(fld[17], NULL) == iv->server_qps);
    else
        CHECK(fld[17][0] == '\0');
    CHECK(strcmp(fld[18], iv->printed ? "1" : "0") == 0);
    CHECK(strtod(fld[19], NULL) == ms_at(iv->svc, 50));
    CHECK(strtod(fld[20], NULL) == ms_at(iv->svc, 95));
    CHECK(strtod(fld[21], NULL) == ms_at(iv->svc, 99));
    /* the outcome columns, last */
    CHECK(iv->ctr.rolled_back > 0);
    CHECK(strtod(fld[CO_CSV_COLUMNS - 2], NULL) == (double)iv->ctr.rolled_back / iv->len_s);
    CHECK(strtod(fld[CO_CSV_COLUMNS - 1], NULL) == (double)iv->ctr.failed / iv->len_s);
}

static void check_csv(const struct co_result *r, const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    char line[2048];
    char *fld[CO_CSV_COLUMNS];
    uint32_t rows = 0;
    CHECK(fgets(line, sizeof(line), f) != NULL);
    static const char old[] = "t_s,len_s,threads,tps,qps,reads_s,writes_s,other_s,lat_p50_ms,"
                              "lat_p95_ms,lat_p99_ms,lat_max_ms,err_s,reconn_s,agents_reporting,"
                              "late,partial,server_qps,printed,svc_p50_ms,svc_p95_ms,svc_p99_ms";
    CHECK(strncmp(line, old, sizeof(old) - 1) == 0); /* co_srvstat's columns follow */
    CHECK(strncmp(line + sizeof(old) - 1, ",srv_threads_running,", 21) == 0);
    static const char outcomes[] = ",rolled_back_s,failed_s\n";
    size_t ll = strlen(line);
    CHECK(ll > sizeof(outcomes) &&
          strcmp(line + ll - (sizeof(outcomes) - 1), outcomes) == 0); /* the last columns */
    while (fgets(line, sizeof(line), f) != NULL) {
        int n = split_csv(line, fld, CO_CSV_COLUMNS);
        CHECK_EQ_U64(n, CO_CSV_COLUMNS);
        if (n == CO_CSV_COLUMNS && rows < r->n_intervals)
            check_csv_row(r, rows, fld);
        rows++;
    }
    CHECK_EQ_U64(rows, r->n_intervals);
    fclose(f);
}

/* ---- HdrHistogram log ----------------------------------------------- */

/* The next interval line of f (comments and the column header skipped). */
static bool next_hdr_line(FILE *f, char *line, size_t len)
{
    while (fgets(line, (int)len, f) != NULL)
        if (line[0] != '#' && line[0] != '"')
            return true;
    return false;
}

/* line is "[Tag=tag,]start,length,max,base64": check it against want. */
static void check_hdr_line(char *line, const char *tag, const struct co_interval_result *iv,
                           const pr_hist *want)
{
    line[strcspn(line, "\n")] = '\0';
    char *s = line;
    if (tag != NULL) {
        size_t tl = strlen(tag);
        CHECK_MSG(strncmp(s, "Tag=", 4) == 0 && strncmp(s + 4, tag, tl) == 0 && s[4 + tl] == ',',
                  "line %s, want tag %s", line, tag);
        s += 4 + tl + 1;
    } else {
        CHECK_MSG(strncmp(s, "Tag=", 4) != 0, "untagged line %s", line);
    }
    char start[32], length[32];
    snprintf(start, sizeof(start), "%.3f,", iv->t_s - iv->len_s);
    snprintf(length, sizeof(length), "%.3f,", iv->len_s);
    CHECK_MSG(strncmp(s, start, strlen(start)) == 0, "%s: start, want %s", s, start);
    s += strlen(start);
    CHECK_MSG(strncmp(s, length, strlen(length)) == 0, "%s: length, want %s", s, length);
    char *b64 = strrchr(s, ',') + 1;
    pr_hist *got = pr_hist_new();
    struct pr_error err = {0};
    CHECK_EQ_U64(pr_hdrlog_decode(got, b64, strlen(b64), &err), 0);
    CHECK(pr_hist_same_buckets(got, want));
    CHECK_EQ_U64(pr_hist_count(got), pr_hist_count(want));
    pr_hist_destroy(&got);
}

static void check_hdr(const struct co_result *r, const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    char line[1 << 16];
    CHECK(fgets(line, sizeof(line), f) != NULL && strncmp(line, "#[stampede 0.1.0 ", 17) == 0);
    /* the comment goes on over lines short enough for HdrHistogram_c */
    while (fgets(line, sizeof(line), f) && strncmp(line, "#[Histogram log format", 22) != 0)
        CHECK_MSG(strncmp(line, "#[", 2) == 0 && strlen(line) <= PR_HDRLOG_LINE_MAX + 1, "%s",
                  line);
    CHECK(strcmp(line, "#[Histogram log format version 1.3]\n") == 0);
    CHECK(fgets(line, sizeof(line), f) && strncmp(line, "#[StartTime: 1700000000.250 ", 28) == 0);
    CHECK(fgets(line, sizeof(line), f) && strncmp(line, "#[BaseTime: 1700000000.250 ", 27) == 0);
    char *tags[N_AGENTS];
    for (uint32_t a = 0; a < N_AGENTS; a++)
        tags[a] = co_hdrout_agent_tag(r, a);
    CHECK(strcmp(tags[1], WEIRD_TAG) == 0);
    int lines = 0, want_lines = 0;
    for (uint32_t k = 0; k < r->n_intervals; k++) {
        const struct co_interval_result *iv = &r->intervals[k];
        want_lines++;
        if (next_hdr_line(f, line, sizeof(line)) && ++lines)
            check_hdr_line(line, NULL, iv, iv->lat);
        for (uint32_t a = 0; a < r->n_agents; a++) {
            if (iv->agent_lat[a] == NULL)
                continue;
            want_lines++;
            if (next_hdr_line(f, line, sizeof(line)) && ++lines)
                check_hdr_line(line, tags[a], iv, iv->agent_lat[a]);
        }
    }
    CHECK(!next_hdr_line(f, line, sizeof(line)));
    CHECK_EQ_U64(lines, want_lines);
    CHECK_EQ_U64(want_lines, 5 + 3 * 3 + 2 * 2);
    for (uint32_t a = 0; a < N_AGENTS; a++)
        free(tags[a]);
    fclose(f);
}

/* A long workload name (a script path, say) leaves every header line of
 * the hdr-log under HdrHistogram_c's 127-byte limit, and is all there. */
static void test_hdr_long_workload(const struct co_result *base)
{
    struct co_result r = *base;
    char name[400] = "/home/someone/benchmarks/", *text = NULL;
    while (strlen(name) < 300)
        strcat(name, "very_long_directory_name/");
    strcat(name, "script.lua");
    r.workload = name;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK_EQ_U64(co_hdrout_write(&r, START_MS, f), 0);
    fclose(f);
    char joined[2048] = "";
    size_t longest = 0;
    for (char *line = strtok(text, "\n"); line && line[0] == '#'; line = strtok(NULL, "\n")) {
        longest = strlen(line) > longest ? strlen(line) : longest;
        if (strncmp(line, "#[Histogram log format", 22) == 0)
            break;
        strncat(joined, line + 2, strlen(line) - 3);
    }
    CHECK_MSG(longest <= PR_HDRLOG_LINE_MAX, "longest header line %zu", longest);
    CHECK_MSG(strstr(joined, name) != NULL, "comment %s", joined);
    free(text);
}

static void test_tags(void)
{
    struct co_result r = {0};
    struct co_agent_result agents[4] = {{.name = "a b"}, {.name = "a,b"}, {.name = ""}, {0}};
    r.agents = agents;
    r.n_agents = 4;
    const char *want[] = {"a_b", "a_b~1", "agent2", "agent3"};
    for (uint32_t i = 0; i < 4; i++) {
        char *t = co_hdrout_agent_tag(&r, i);
        CHECK_MSG(t != NULL && strcmp(t, want[i]) == 0, "tag %u: %s", i, t);
        free(t);
    }
    CHECK(co_hdrout_agent_tag(&r, 4) == NULL);
}

/* ---- errors ---------------------------------------------------------- */

typedef int (*write_file_fn)(const struct co_result *r, const char *path, struct pr_error *err);

static int hdr_write_file(const struct co_result *r, const char *path, struct pr_error *err)
{
    return co_hdrout_write_file(r, START_MS, path, err);
}

static void check_error(const struct co_result *r, write_file_fn fn, const char *path)
{
    struct pr_error err = {0};
    size_t len = strlen(path);
    char *tmp = pr_xmalloc(len + 5);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    struct stat before, after;
    bool existed = lstat(path, &before) == 0;
    int rc = fn(r, path, &err);
    CHECK_MSG(rc < 0, "%s: rc %d", path, rc);
    CHECK_MSG(err.code == rc && strstr(err.msg, path) != NULL, "%s: message '%s'", path, err.msg);
    CHECK_MSG(!exists(tmp), "%s left behind", tmp);
    if (existed)
        CHECK(lstat(path, &after) == 0 && after.st_ino == before.st_ino &&
              S_ISDIR(after.st_mode) == S_ISDIR(before.st_mode));
    else
        CHECK(!exists(path));
    printf("expected error: %s\n", err.msg);
    free(tmp);
}

static void test_errors(const struct co_result *r)
{
    write_file_fn fns[] = {co_json_write_file, co_csv_write_file, hdr_write_file};
    char *missing = path_in("no-such-dir/out");
    char *dir = path_in("a-dir");
    CHECK(mkdir(dir, 0700) == 0);
    for (size_t i = 0; i < 3; i++) {
        check_error(r, fns[i], missing);
        check_error(r, fns[i], dir); /* the rename fails: .tmp removed */
        struct pr_error err = {0};
        CHECK_EQ_U64(fns[i](r, "", &err), PR_EINVAL);
    }
    rmdir(dir);
    free(dir);
    free(missing);

    /* A full device: the stream writers report -EIO. */
    FILE *f = fopen("/dev/full", "w");
    if (f == NULL)
        return;
    CHECK_EQ_U64(co_json_write(r, f), -EIO);
    clearerr(f);
    CHECK_EQ_U64(co_csv_write(r, f), -EIO);
    clearerr(f);
    CHECK_EQ_U64(co_hdrout_write(r, START_MS, f), -EIO);
    fclose(f);
}

/* ---- internals and co_result_clear ---------------------------------- */

static void test_helpers(void)
{
    char buf[40];
    CHECK(pr_fmt_double(buf, sizeof(buf), 0.1) && strcmp(buf, "0.1") == 0);
    CHECK(pr_fmt_double(buf, sizeof(buf), 1250.0) && strcmp(buf, "1250") == 0);
    CHECK(pr_fmt_double(buf, sizeof(buf), 1.0 / 3) && strtod(buf, NULL) == 1.0 / 3);
    CHECK(pr_fmt_double(buf, sizeof(buf), -1e300) && strtod(buf, NULL) == -1e300);
    CHECK(!pr_fmt_double(buf, sizeof(buf), NAN) && buf[0] == '\0');
    CHECK(!pr_fmt_double(buf, sizeof(buf), -INFINITY));
    const struct {
        const char *s;
        size_t len;
    } seqs[] = {
        {"a", 1},
        {"\xc3\xa9", 2},
        {"\xe2\x80\xa8", 3},
        {"\xf0\x9f\x98\x80", 4},
        {"\xc0\x80", 0},
        {"\xe0\x80\x80", 0},
        {"\xed\xa0\x80", 0},
        {"\xf4\x90\x80\x80", 0},
        {"\xc3", 0},
        {"\xc3(", 0},
        {"\x80", 0},
        {"\xff", 0},
        {"\xf0\x9f\x98", 0},
    };
    for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
        CHECK_MSG(pr_utf8_seq_len((const unsigned char *)seqs[i].s, strlen(seqs[i].s)) ==
                      seqs[i].len,
                  "sequence %zu", i);
}

/* ---- frozen histograms read the same ------------------------------- */

/* Move iv's histograms to the frozen form, as co_merge does for old
 * intervals (the merged one) and for every per-agent one. */
static void freeze_interval(struct co_interval_result *iv, uint32_t n_agents)
{
    iv->lat_frozen = pr_hist_freeze(iv->lat);
    pr_hist_destroy(&iv->lat);
    iv->svc_frozen = pr_hist_freeze(iv->svc);
    pr_hist_destroy(&iv->svc);
    iv->agent_lat_frozen = pr_xcalloc(n_agents, sizeof(*iv->agent_lat_frozen));
    for (uint32_t a = 0; a < n_agents; a++) {
        if (iv->agent_lat[a] != NULL)
            iv->agent_lat_frozen[a] = pr_hist_freeze(iv->agent_lat[a]);
        pr_hist_destroy(&iv->agent_lat[a]);
    }
    free(iv->agent_lat);
    iv->agent_lat = NULL;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = pr_xmalloc(1 << 20);
    *len = f ? fread(buf, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static void check_same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    CHECK_MSG(na > 0 && na == nb && memcmp(x, y, na) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

/* The writers give byte-identical files when some intervals' histograms
 * are frozen (one expanded at a time through co_interval_lat). */
static void test_frozen(struct co_result *r, const char *json, const char *csv, const char *hlog)
{
    for (uint32_t k = 0; k < 3; k++)
        freeze_interval(&r->intervals[k], r->n_agents);
    CHECK(r->intervals[0].lat == NULL && r->intervals[3].lat != NULL);
    char *fj = path_in("frozen.json"), *fc = path_in("frozen.csv"), *fh = path_in("frozen.hlog");
    struct pr_error err = {0};
    CHECK_EQ_U64(co_json_write_file(r, fj, &err), 0);
    CHECK_EQ_U64(co_csv_write_file(r, fc, &err), 0);
    CHECK_EQ_U64(co_hdrout_write_file(r, START_MS, fh, &err), 0);
    check_same_file(json, fj);
    check_same_file(csv, fc);
    check_same_file(hlog, fh);
    free(fj);
    free(fc);
    free(fh);
}

int main(void)
{
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_helpers();
    test_tags();
    struct co_result r = {0};
    build_result(&r);
    char *json = path_in("run.json"), *csv = path_in("run.csv"), *hlog = path_in("run.hlog");
    struct pr_error err = {0};
    CHECK_EQ_U64(co_json_write_file(&r, json, &err), 0);
    CHECK_EQ_U64(co_csv_write_file(&r, csv, &err), 0);
    CHECK_EQ_U64(co_hdrout_write_file(&r, START_MS, hlog, &err), 0);
    char *tmp = path_in("run.json.tmp");
    CHECK(!exists(tmp));
    free(tmp);
    check_json(&r, json);
    check_csv(&r, csv);
    check_hdr(&r, hlog);
    test_hdr_long_workload(&r);
    /* Writing again replaces the file whole. */
    CHECK_EQ_U64(co_json_write_file(&r, json, &err), 0);
    check_json(&r, json);
    test_json_empty();
    test_errors(&r);
    test_frozen(&r, json, csv, hlog);

    co_result_clear(&r);
    struct co_result zero = {0};
    CHECK(memcmp(&r, &zero, sizeof(r)) == 0);
    co_result_clear(&r); /* twice: a no-op */

    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (getenv("TEST_CO_OUTPUT_KEEP") != NULL) /* to look at the files */
        printf("kept %s\n", tmpdir);
    else if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    free(json);
    free(csv);
    free(hlog);
    return TEST_END();
}
