/* hdr_interop_gen DIR: writes two HdrHistogram interval logs of the same
 * histograms (DIR/rel.hlog with a BaseTime and relative timestamps,
 * DIR/abs.hlog with absolute ones) and DIR/expected.jsonl, one JSON line
 * per interval with what pr_hist itself reports. hdr_interop.js decodes the
 * logs with hdr-histogram-js and compares. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_hdrlog.h"

#define TESTRNG_SEED 0x1234abcd9876ef01ULL
#include "testrng.h"

#define START_MS 1700000000123ULL

static uint64_t us(double v)
{
    return v < 0.5 ? 0 : (uint64_t)llround(v);
}

/* Interval k's histogram: a different shape each time. */
static const char *fill(pr_hist *h, int k)
{
    switch (k) {
    case 0: /* one second of log-normal latencies around 2 ms */
        for (int i = 0; i < 200000; i++)
            pr_hist_record(h, us(2000.0 * exp(0.5 * rng_normal())), 1);
        return "";
    case 1: /* bimodal, 1000x apart */
        for (int i = 0; i < 100000; i++)
            pr_hist_record(h,
                           rng_next() % 10 ? us(100 + 10 * rng_normal())
                                           : us(100000 + 10000 * rng_normal()),
                           1);
        return "bimodal";
    case 2: /* uniform, with repeated counts */
        for (int i = 0; i < 50000; i++)
            pr_hist_record(h, 1 + rng_next() % 1000000, 1 + rng_next() % 4);
        return "uniform";
    case 3: /* a single value */
        pr_hist_record(h, 777777, 1);
        return "single";
    case 4: /* empty */
        return "empty";
    case 5: /* clamped at both ends, big counts */
        pr_hist_record(h, 0, 3);
        pr_hist_record(h, 5000000000ULL, 2);
        pr_hist_record(h, 42, 4000000000ULL);
        pr_hist_record(h, 123456789, 1000000000000ULL);
        return "edges";
    default: /* long tail, out to minutes */
        for (int i = 0; i < 100000; i++)
            pr_hist_record(h, us(50.0 * exp(3.5 * fabs(rng_normal()))), 1);
        return "tail";
    }
}

static const double percentiles[] = {50, 90, 99, 99.9, 99.99, 100};

static void write_expected(FILE *f, const pr_hist *h, const char *tag, uint64_t start_ms)
{
    uint64_t max = pr_hist_max(h);
    fprintf(
        f,
        "{\"tag\":\"%s\",\"start_ms\":%" PRIu64 ",\"length_ms\":1000,\"count\":%" PRIu64
        ",\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"min_equiv\":%" PRIu64 ",\"max_equiv\":%" PRIu64
        ",\"max_field\":\"%" PRIu64 ".%03u\",\"stddev\":%.17g,\"p\":{",
        tag, start_ms, pr_hist_count(h), pr_hist_min(h), max,
        pr_hist_lowest_equivalent(pr_hist_min(h)), max ? pr_hist_highest_equivalent(max) : 0,
        max / PR_HDRLOG_MAX_DIVISOR, (unsigned)(max % PR_HDRLOG_MAX_DIVISOR), pr_hist_stddev(h));
    for (size_t i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++)
        fprintf(f, "%s\"%g\":%" PRIu64, i ? "," : "", percentiles[i],
                pr_hist_value_at_percentile(h, percentiles[i]));
    fprintf(f, "}}\n");
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "hdr_interop_gen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return f;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hdr_interop_gen DIR\n");
        return 2;
    }
    FILE *rel = open_in(argv[1], "rel.hlog"), *abs_f = open_in(argv[1], "abs.hlog");
    FILE *exp_f = open_in(argv[1], "expected.jsonl");
    pr_hdrlog *wr = pr_hdrlog_new(rel), *wa = pr_hdrlog_new(abs_f);
    pr_hist *h = pr_hist_new();
    int rc = pr_hdrlog_write_header(wr, "Logged with stampede hdr_interop_gen", START_MS, true);
    rc |= pr_hdrlog_write_header(wa, NULL, START_MS, false);
    for (int k = 0; k < 7 && rc == 0; k++) {
        pr_hist_reset(h);
        const char *tag = fill(h, k);
        uint64_t off_ms = 1000ULL * (uint64_t)k;
        rc |= pr_hdrlog_write_interval(wr, tag, off_ms, 1000, h);
        rc |= pr_hdrlog_write_interval(wa, tag, START_MS + off_ms, 1000, h);
        write_expected(exp_f, h, tag, START_MS + off_ms);
    }
    pr_hdrlog_destroy(&wr);
    pr_hdrlog_destroy(&wa);
    pr_hist_destroy(&h);
    if (fclose(rel) != 0 || fclose(abs_f) != 0 || fclose(exp_f) != 0 || rc != 0) {
        fprintf(stderr, "hdr_interop_gen: writing failed (%d)\n", rc);
        return 1;
    }
    return 0;
}
