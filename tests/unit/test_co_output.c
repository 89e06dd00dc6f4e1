/* Tests for co_json, co_csv, co_hdrout and co_result_clear: the three
 * files of one run. The result of co_output_fixture.h is written to a
 * temporary directory. The JSON is read back by python3's strict json
 * module (non-finite constants rejected, strict UTF-8) and its figures are
 * compared with what pr_hist and the counters give, exactly: numbers are
 * written in a form that reads back to the same double. The CSV is parsed
 * here; the HdrHistogram log is decoded with pr_hdrlog back to the same
 * buckets. Frozen histograms give the same bytes. Error paths, the hdr-log
 * tags and long header lines, and the number and UTF-8 helpers are in
 * test_co_output_edges.c. */
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
#include "co_output_fixture.h"
#include "co_result.h"
#include "pr_hdrlog.h"
#include "pr_text.h"
#include "testlib.h"

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
    if (co_output_tmpdir_make() != 0)
        return 1;
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
    /* Writing again replaces the file whole. */
    CHECK_EQ_U64(co_json_write_file(&r, json, &err), 0);
    check_json(&r, json);
    test_json_empty();
    test_frozen(&r, json, csv, hlog);

    co_result_clear(&r);
    struct co_result zero = {0};
    CHECK(memcmp(&r, &zero, sizeof(r)) == 0);
    co_result_clear(&r); /* twice: a no-op */

    co_output_tmpdir_remove();
    free(json);
    free(csv);
    free(hlog);
    return TEST_END();
}
