/* bench_hist: what pr_hist costs on the hot path and on the wire.
 *
 * Prints ns per pr_hist_record() (typical log-normal latencies around 2 ms,
 * and values spread over the whole range), µs per pr_hist_add() of two
 * typical one-second interval histograms, and the encoded size of such an
 * interval (sparse msgpack, HdrHistogram V2 raw and base64). Goals from the
 * design: <= 10 ns per record, <= 50 µs per merge. Asserts nothing; build
 * with optimisation (meson --buildtype=release) before believing figures.
 * Times are thread CPU time, not wall time.
 *
 * Usage: bench_hist [samples_per_interval]   (default 50000) */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pr_hdrlog.h"
#include "pr_hist.h"

#define TESTRNG_SEED 0x243f6a8885a308d3ULL
#include "testrng.h"

#define NVALUES (1 << 20)

/* Thread CPU time: on a shared, busy machine it is far steadier than the
 * wall clock (time spent preempted is not counted). */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per record over `rounds` passes of the value table. */
static double bench_record(const uint64_t *v, int rounds)
{
    pr_hist *h = pr_hist_new();
    double t0 = now_ns();
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < NVALUES; i++)
            pr_hist_record(h, v[i], 1);
    double ns = (now_ns() - t0) / ((double)rounds * NVALUES);
    if (pr_hist_count(h) != (uint64_t)rounds * NVALUES) /* keeps the loop alive */
        fprintf(stderr, "count mismatch\n");
    pr_hist_destroy(&h);
    return ns;
}

static void fill_interval(pr_hist *h, long samples)
{
    for (long i = 0; i < samples; i++)
        pr_hist_record(h, lognormal_us(2000, 0.5), 1);
}

/* µs per pr_hist_add(dst, b) with dst starting as a copy of a: the
 * coordinator's pattern of adding each agent's interval into a total. */
static double bench_merge(const pr_hist *a, const pr_hist *b, int *iters)
{
    pr_hist *dst = pr_hist_new();
    pr_hist_copy(dst, a);
    double t0 = now_ns(), t;
    int n = 0;
    do {
        for (int k = 0; k < 1000; k++, n++)
            pr_hist_add(dst, b);
        t = now_ns() - t0;
    } while (t < 1e9);
    if (pr_hist_count(dst) != pr_hist_count(a) + (uint64_t)n * pr_hist_count(b))
        fprintf(stderr, "merge count mismatch\n");
    pr_hist_destroy(&dst);
    *iters = n;
    return t / n / 1000.0;
}

static void print_sizes(const pr_hist *h)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    uint8_t *raw = NULL;
    char *b64 = NULL;
    size_t raw_len = 0, b64_len = 0, buckets = 0;
    struct pr_hist_iter it = PR_HIST_ITER_INIT;
    while (pr_hist_next(h, &it))
        buckets++;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    if (pr_hist_pack(h, &pk) != 0 || pr_hdrlog_encode_raw(h, &raw, &raw_len) != 0 ||
        pr_hdrlog_encode(h, &b64, &b64_len) != 0) {
        fprintf(stderr, "encode failed\n");
        exit(1);
    }
    printf("interval: %" PRIu64 " samples, %zu non-empty buckets, p50 %" PRIu64 " us, p99 %" PRIu64
           " us, max %" PRIu64 " us\n",
           pr_hist_count(h), buckets, pr_hist_value_at_percentile(h, 50),
           pr_hist_value_at_percentile(h, 99), pr_hist_max(h));
    printf("encoded: msgpack sparse %zu bytes, V2 compressed %zu bytes, V2 base64 %zu bytes\n",
           sb.size, raw_len, b64_len);
    msgpack_sbuffer_destroy(&sb);
    free(raw);
    free(b64);
}

int main(int argc, char **argv)
{
    long samples = argc > 1 ? strtol(argv[1], NULL, 10) : 50000;
    uint64_t *v = malloc(NVALUES * sizeof(*v));
    for (size_t i = 0; i < NVALUES; i++)
        v[i] = lognormal_us(2000, 0.5);
    printf("record, log-normal ~2 ms: %.2f ns/record (goal <= 10)\n", bench_record(v, 100));
    for (size_t i = 0; i < NVALUES; i++)
        v[i] = 1 + (rng_next() >> (rng_next() % 32)) % PR_HIST_MAX_US;
    printf("record, whole 1 us..1 h range: %.2f ns/record\n", bench_record(v, 20));
    free(v);

    pr_hist *a = pr_hist_new(), *b = pr_hist_new();
    fill_interval(a, samples);
    fill_interval(b, samples);
    int iters;
    double merge_us = bench_merge(a, b, &iters);
    printf("merge of two 1 s intervals (%ld samples each): %.2f us/merge over %d merges (goal "
           "<= 50)\n",
           samples, merge_us, iters);
    print_sizes(a);
    pr_hist_destroy(&a);
    pr_hist_destroy(&b);
    return 0;
}
