/* co_hdrout_gen DIR [WORKLOAD]: builds a run result (three agents, one with a name
 * HdrHistogram tags cannot hold raw, one lost after three intervals, a
 * short last interval), writes DIR/run.hlog with co_hdrout_write_file()
 * and DIR/expected.jsonl: one JSON line per interval line of the log, in
 * order, with the tag co_hdrout gives and what pr_hist itself reports.
 * co_hdrout_interop.js decodes the log with hdr-histogram-js and compares;
 * co_hdrout_java.py reads it with Java's HistogramLogProcessor (the
 * "java" member: percentiles as bucket tops, unclamped, for 50, 90, 99,
 * 99.9 and 99.99, and on untagged lines the same of every untagged line so
 * far, "cum"). WORKLOAD (default oltp_read_only) goes into the header
 * comment: a long one tests the header's line limit. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_hdrout.h"
#include "pr_hdrlog.h"

#define TESTRNG_SEED 0x0ddba11cafef00dULL
#include "testrng.h"

#define START_MS    1712345678901ULL
#define N_AGENTS    3
#define N_INTERVALS 6

/* Agent a's latencies in interval k: log-normal around 1.5 ms * (a + 1),
 * with a tail out to seconds for agent 0. */
static pr_hist *agent_hist(uint32_t a, uint32_t k)
{
    pr_hist *h = pr_hist_new();
    int n = 20000 + 5000 * (int)a - 1000 * (int)k;
    for (int i = 0; i < n; i++)
        pr_hist_record(h, (uint64_t)llround(1500.0 * (a + 1) * exp(0.6 * rng_normal())), 1);
    if (a == 0)
        for (int i = 0; i < 40; i++)
            pr_hist_record(h, (uint64_t)llround(200000.0 * exp(1.5 * fabs(rng_normal()))), 1);
    return h;
}

static void build(struct co_result *r, const char *workload)
{
    static const char *const names[N_AGENTS] = {"eu-1", "us east,2 \xc3\xa9", "ap-3"};
    r->version = pr_xstrdup("0.1.0");
    r->workload = pr_xstrdup(workload);
    r->command = pr_xstrdup("run");
    r->n_agents = N_AGENTS;
    r->agents = pr_xcalloc(N_AGENTS, sizeof(*r->agents));
    for (uint32_t a = 0; a < N_AGENTS; a++)
        r->agents[a].name = pr_xstrdup(names[a]);
    r->n_intervals = N_INTERVALS;
    r->intervals = pr_xcalloc(N_INTERVALS, sizeof(*r->intervals));
    for (uint32_t k = 0; k < N_INTERVALS; k++) {
        struct co_interval_result *iv = &r->intervals[k];
        iv->k = k;
        iv->len_s = k == N_INTERVALS - 1 ? 0.4 : 1.0;
        iv->t_s = (double)k + iv->len_s;
        iv->lat = pr_hist_new();
        iv->agent_lat = pr_xcalloc(N_AGENTS, sizeof(*iv->agent_lat));
        for (uint32_t a = 0; a < N_AGENTS; a++) {
            if (a == 2 && k >= 3)
                continue; /* lost */
            iv->agent_lat[a] = agent_hist(a, k);
            pr_hist_add(iv->lat, iv->agent_lat[a]);
        }
    }
}

static const double percentiles[] = {50, 90, 95, 99, 99.9, 100};
static const double java_percentiles[] = {50, 90, 99, 99.9, 99.99};

/* {"count":N,"max":M,"p":{"50":V,...}}: what HistogramLogProcessor shows
 * of h (values are bucket tops: it does not clamp to the exact max). */
static void put_java(FILE *f, const pr_hist *h)
{
    fprintf(f, "{\"count\":%" PRIu64 ",\"max\":%" PRIu64 ",\"p\":{", pr_hist_count(h),
            pr_hist_count(h) ? pr_hist_highest_equivalent(pr_hist_max(h)) : 0);
    for (size_t i = 0; i < sizeof(java_percentiles) / sizeof(java_percentiles[0]); i++)
        fprintf(f, "%s\"%g\":%" PRIu64, i ? "," : "", java_percentiles[i],
                pr_hist_highest_equivalent(pr_hist_value_at_percentile(h, java_percentiles[i])));
    fputc('}', f);
    fputc('}', f);
}

/* JSON string of a tag (tags hold no control characters). */
static void put_tag(FILE *f, const char *tag)
{
    fputc('"', f);
    for (const char *c = tag; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\')
            fputc('\\', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

static void write_expected(FILE *f, const char *tag, const struct co_interval_result *iv,
                           const pr_hist *h, const pr_hist *cum)
{
    uint64_t max = pr_hist_max(h);
    fputs("{\"tag\":", f);
    put_tag(f, tag);
    fprintf(f,
            ",\"start_ms\":%" PRIu64 ",\"length_ms\":%" PRIu64 ",\"count\":%" PRIu64
            ",\"max\":%" PRIu64 ",\"min_equiv\":%" PRIu64 ",\"max_equiv\":%" PRIu64
            ",\"max_field\":\"%" PRIu64 ".%03u\",\"p\":{",
            (uint64_t)START_MS + (uint64_t)llround((iv->t_s - iv->len_s) * 1000),
            (uint64_t)llround(iv->len_s * 1000), pr_hist_count(h), max,
            pr_hist_lowest_equivalent(pr_hist_min(h)), pr_hist_highest_equivalent(max),
            max / PR_HDRLOG_MAX_DIVISOR, (unsigned)(max % PR_HDRLOG_MAX_DIVISOR));
    for (size_t i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++)
        fprintf(f, "%s\"%g\":%" PRIu64, i ? "," : "", percentiles[i],
                pr_hist_value_at_percentile(h, percentiles[i]));
    fprintf(f, "},\"t0_ms\":%" PRIu64 ",\"java\":", (uint64_t)START_MS);
    put_java(f, h);
    if (cum != NULL) {
        fputs(",\"cum\":", f);
        put_java(f, cum);
    }
    fprintf(f, "}\n");
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: co_hdrout_gen DIR [WORKLOAD]\n");
        return 2;
    }
    char log_path[4096], exp_path[4096];
    snprintf(log_path, sizeof(log_path), "%s/run.hlog", argv[1]);
    snprintf(exp_path, sizeof(exp_path), "%s/expected.jsonl", argv[1]);
    struct co_result r = {0};
    build(&r, argc == 3 ? argv[2] : "oltp_read_only");
    struct pr_error err = {0};
    if (co_hdrout_write_file(&r, START_MS, log_path, &err) != 0) {
        fprintf(stderr, "co_hdrout_gen: %s\n", err.msg);
        return 1;
    }
    FILE *f = fopen(exp_path, "w");
    if (f == NULL) {
        fprintf(stderr, "co_hdrout_gen: %s: %s\n", exp_path, strerror(errno));
        return 1;
    }
    char *tags[N_AGENTS];
    for (uint32_t a = 0; a < N_AGENTS; a++)
        tags[a] = co_hdrout_agent_tag(&r, a);
    pr_hist *cum = pr_hist_new();
    for (uint32_t k = 0; k < r.n_intervals; k++) {
        const struct co_interval_result *iv = &r.intervals[k];
        pr_hist_add(cum, iv->lat);
        write_expected(f, "", iv, iv->lat, cum);
        for (uint32_t a = 0; a < N_AGENTS; a++)
            if (iv->agent_lat[a] != NULL)
                write_expected(f, tags[a], iv, iv->agent_lat[a], NULL);
    }
    pr_hist_destroy(&cum);
    for (uint32_t a = 0; a < N_AGENTS; a++)
        free(tags[a]);
    co_result_clear(&r);
    if (fclose(f) != 0) {
        fprintf(stderr, "co_hdrout_gen: %s: %s\n", exp_path, strerror(errno));
        return 1;
    }
    return 0;
}
