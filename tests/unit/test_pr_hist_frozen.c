/* Tests for pr_hist's frozen form (pr_hist_frozen: round trips, sums,
 * compaction) and its running sum (pr_hist_acc) against the dense sum. */
#include <stdbool.h>
#include <stdint.h>

#include "pr_hist.h"
#include "testlib.h"

#define TESTRNG_SEED 0x5eed5eed12345678ULL
#include "hist_shapes.h"
#include "testrng.h"

/* Frozen form: exact round trip and sums, through edges, clamps, big counts,
 * disjoint and overlapping ranges; compact. */
static void test_frozen(void)
{
    pr_hist *sum = pr_hist_new(), *back = pr_hist_new(), *h = pr_hist_new();
    pr_hist *ref = pr_hist_new();
    pr_hist_frozen *acc = NULL, *f, *macc = NULL; /* macc: frozen + frozen (merge) */

    pr_hist_frozen_add(&acc, h); /* NULL + empty */
    CHECK(acc != NULL && pr_hist_frozen_count(acc) == 0);
    pr_hist_record(back, 5, 1);
    pr_hist_thaw(back, acc);
    CHECK(pr_hist_equal(back, h));
    pr_hist_frozen_add(&acc, h); /* empty + empty */
    CHECK(pr_hist_frozen_count(acc) == 0);
    for (int round = 0; round < 200; round++) {
        pr_hist_reset(h);
        int kind = round % 5;
        uint64_t base = kind == 0 ? 1 : kind == 1 ? 100000000 : 1 + rng_next() % 50000;
        int n = round % 7 == 0 ? 0 : 1 + (int)(rng_next() % 3000);
        for (int i = 0; i < n; i++) {
            uint64_t v =
                kind == 4 ? sample((enum shape)(i % SHAPE_COUNT)) : base + rng_next() % 9000;
            pr_hist_record(h, v, 1 + rng_next() % 4);
        }
        if (round % 11 == 0)
            pr_hist_record(h, 0, 3); /* clamped: index 1 */
        if (round % 13 == 0)
            pr_hist_record(h, PR_HIST_MAX_US * 2, 1); /* clamped: last index */
        if (round % 50 == 49) /* counts wider than 32 bits: the sum turns wide late */
            pr_hist_record(h, 777, UINT64_C(1) << 55);
        f = pr_hist_freeze(h);
        CHECK(pr_hist_frozen_count(f) == pr_hist_count(h));
        pr_hist_thaw(back, f);
        CHECK(pr_hist_equal(back, h));
        pr_hist_add(back, h); /* add_frozen into a non-empty histogram */
        pr_hist_add_frozen(back, f);
        pr_hist_copy(ref, h);
        pr_hist_add(ref, h);
        pr_hist_add(ref, h);
        CHECK(pr_hist_equal(back, ref));
        pr_hist_frozen_destroy(&f);
        CHECK(f == NULL);
        pr_hist_add(sum, h);
        pr_hist_frozen_add(&acc, h);
        f = pr_hist_freeze(h); /* the sparse merge and iterator, against the dense ones */
        pr_hist_frozen_merge(&macc, f);
        struct pr_hist_iter a = PR_HIST_ITER_INIT, b = PR_HIST_ITER_INIT;
        bool more;
        uint64_t nb = 0;
        while ((more = pr_hist_next(h, &a)) == pr_hist_frozen_next(f, &b) && more) {
            CHECK(a.value_us == b.value_us && a.lowest_us == b.lowest_us && a.count == b.count);
            nb++;
        }
        CHECK_MSG(!more, "round %d: the frozen iterator ended early, after %" PRIu64, round, nb);
        CHECK(pr_hist_frozen_sum(f) == pr_hist_sum(h));
        static const double pcts[] = {-1.0, 0.0,  1e-9, 25.0, 50.0,  50.01,
                                      75.0, 95.0, 99.0, 99.9, 100.0, 150.0};
        for (size_t q = 0; q < sizeof(pcts) / sizeof(pcts[0]); q++) /* percentiles: the same */
            CHECK_MSG(pr_hist_frozen_value_at_percentile(f, pcts[q]) ==
                          pr_hist_value_at_percentile(h, pcts[q]),
                      "round %d p%g: frozen %" PRIu64 ", dense %" PRIu64, round, pcts[q],
                      pr_hist_frozen_value_at_percentile(f, pcts[q]),
                      pr_hist_value_at_percentile(h, pcts[q]));
        pr_hist_frozen_destroy(&f);
        if (round == 48) { /* the sum so far, narrow */
            pr_hist_thaw(back, acc);
            CHECK(pr_hist_equal(back, sum) && pr_hist_count(sum) < UINT32_MAX);
            pr_hist_thaw(back, macc);
            CHECK(pr_hist_equal(back, sum));
        }
    }
    pr_hist_thaw(back, macc);
    CHECK(pr_hist_equal(back, sum));
    pr_hist_frozen_destroy(&macc);
    pr_hist_thaw(back, acc);
    CHECK(pr_hist_equal(back, sum));
    CHECK(pr_hist_clamped(back) > 0);
    CHECK(pr_hist_count_at_index(back, 1) > 0);
    CHECK(pr_hist_count_at_index(back, pr_hist_counts_len() - 1) > 0);

    /* 6 bytes an occupied bucket (~2800 in a busy 1 s interval: 17 KB). */
    pr_hist_reset(h);
    for (int i = 0; i < 20000; i++)
        pr_hist_record(h, sample(SHAPE_LOGNORMAL), 1);
    f = pr_hist_freeze(h);
    size_t buckets = 0;
    for (struct pr_hist_iter it = PR_HIST_ITER_INIT; pr_hist_next(h, &it);)
        buckets++;
    CHECK_MSG(pr_hist_frozen_size(f) <= 64 + 6 * buckets, "%zu bytes for %zu buckets",
              pr_hist_frozen_size(f), buckets);
    pr_hist_frozen_destroy(&f);
    pr_hist_frozen_destroy(&acc);
    pr_hist_frozen_destroy(&f); /* no-op */
    pr_hist_destroy(&sum);
    pr_hist_destroy(&ref);
    pr_hist_destroy(&back);
    pr_hist_destroy(&h);
}

/* The running sum (pr_hist_acc) against the dense sum, after every add:
 * spans that move out on both sides, dense and frozen adds, the edge
 * buckets, and a total past 2^32 (its counts widened on the way). */
static void test_acc(void)
{
    pr_hist *h = pr_hist_new(), *sum = pr_hist_new(), *back = pr_hist_new();
    pr_hist_acc *a = pr_hist_acc_new();
    pr_hist_acc_thaw(back, a);
    CHECK(pr_hist_count(back) == 0 && pr_hist_max(back) == 0 && pr_hist_acc_count(a) == 0);
    for (int round = 0; round < 60; round++) {
        pr_hist_reset(h);
        uint64_t base = round % 2 ? 50 + 10 * (uint64_t)round : 2000000ULL >> (round % 9);
        for (int i = 0; i < 300; i++)
            pr_hist_record(h, base + rng_next() % (3 * base + 1), 1 + rng_next() % 4);
        if (round == 40)
            pr_hist_record(h, 7, 1ULL << 32); /* the total passes 2^32 - 1 */
        if (round == 45)
            pr_hist_record(h, PR_HIST_MAX_US + 5, 2); /* clamped into the top bucket */
        if (round == 46)
            pr_hist_record(h, 0, 1); /* clamped into bucket 1 */
        pr_hist_add(sum, h);
        if (round % 3 == 0) {
            pr_hist_acc_add(a, h);
        } else {
            pr_hist_frozen *f = pr_hist_freeze(h);
            pr_hist_acc_add_frozen(a, f);
            pr_hist_frozen_destroy(&f);
        }
        pr_hist_acc_thaw(back, a);
        CHECK_MSG(pr_hist_equal(back, sum), "round %d: the running sum differs", round);
        CHECK(pr_hist_acc_count(a) == pr_hist_count(sum));
    }
    pr_hist_reset(h); /* empty adds: no-ops */
    pr_hist_frozen *f = pr_hist_freeze(h);
    pr_hist_acc_add(a, h);
    pr_hist_acc_add_frozen(a, f);
    pr_hist_acc_thaw(back, a);
    CHECK(pr_hist_equal(back, sum) && pr_hist_acc_size(a) > 0);
    pr_hist_frozen_destroy(&f);
    pr_hist_acc_destroy(&a);
    pr_hist_acc_destroy(&a); /* no-op */
    pr_hist_destroy(&back);
    pr_hist_destroy(&sum);
    pr_hist_destroy(&h);
}

/* A reserved running sum (pr_hist_acc_reserve, as the coordinator makes
 * one at READY) is empty until added to, and then sums as any other:
 * adds inside its span, below and above it, every add checked. */
static void test_acc_reserve(void)
{
    pr_hist *h = pr_hist_new(), *sum = pr_hist_new(), *back = pr_hist_new();
    pr_hist_acc *a = pr_hist_acc_new();
    pr_hist_acc_reserve(a, 200, 200 * 1024);
    size_t reserved = pr_hist_acc_size(a);
    pr_hist_acc_thaw(back, a);
    CHECK(pr_hist_count(back) == 0 && pr_hist_max(back) == 0 && pr_hist_acc_count(a) == 0);
    CHECK_MSG(reserved > 4 * 8000, "the span's counts are held: %zu bytes", reserved);
    static const uint64_t bases[] = {1000, 5000, 150000, 20, 3000000, 700};
    for (size_t round = 0; round < sizeof bases / sizeof bases[0]; round++) {
        pr_hist_reset(h);
        for (int i = 0; i < 200; i++)
            pr_hist_record(h, bases[round] + rng_next() % bases[round], 1 + rng_next() % 3);
        pr_hist_add(sum, h);
        pr_hist_acc_add(a, h);
        pr_hist_acc_thaw(back, a);
        CHECK_MSG(pr_hist_equal(back, sum), "round %zu: the reserved sum differs", round);
        if (round < 2)
            CHECK_MSG(pr_hist_acc_size(a) == reserved, "round %zu: an add inside the span grew it",
                      round);
    }
    pr_hist_acc_reserve(a, 1, 10); /* not empty: a no-op */
    pr_hist_acc_thaw(back, a);
    CHECK(pr_hist_equal(back, sum));
    pr_hist_acc_destroy(&a);
    pr_hist_destroy(&back);
    pr_hist_destroy(&sum);
    pr_hist_destroy(&h);
}

int main(void)
{
    test_frozen();
    test_acc();
    test_acc_reserve();
    return TEST_END();
}
