/* Tests for pr_split: property tests over thousands of random inputs plus
 * edge cases. The random inputs come from a splitmix64 stream whose seed is
 * printed; set STAMPEDE_TEST_SEED to replay a failing run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pr_err.h"
#include "pr_split.h"
#include "testlib.h"

__extension__ typedef unsigned __int128 u128;

#define ITERS 4000

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform enough in [0, n) for test inputs; n > 0. */
static uint64_t rnd_below(uint64_t n)
{
    return rnd() % n;
}

static uint32_t rnd_agents(void)
{
    switch (rnd_below(4)) {
    case 0:
        return 1;
    case 1:
        return (uint32_t)(1 + rnd_below(8));
    case 2:
        return (uint32_t)(1 + rnd_below(64));
    default:
        return (uint32_t)(1 + rnd_below(700));
    }
}

/* Totals from every regime: 0, fewer than agents, ordinary, near UINT64_MAX. */
static uint64_t rnd_total(uint32_t n)
{
    switch (rnd_below(6)) {
    case 0:
        return rnd_below(3);
    case 1:
        return rnd_below(n + 1);
    case 2:
        return rnd_below(100000);
    case 3:
        return rnd_below(UINT64_C(1) << 40);
    case 4:
        return UINT64_MAX - rnd_below(1000);
    default:
        return rnd();
    }
}

/* NULL (equal), all-same, small with zeros, or huge weights. At least one
 * weight is non-zero and the sum never overflows. Returns NULL or w. */
static const uint64_t *rnd_weights(uint32_t n, uint64_t *w, int *equal)
{
    int kind = (int)rnd_below(5);
    uint64_t same = 1 + rnd_below(1000), cap = UINT64_MAX / n;

    *equal = kind <= 1;
    if (kind == 0)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (kind == 1)
            w[i] = same;
        else if (kind == 2)
            w[i] = rnd_below(4) == 0 ? 0 : 1 + rnd_below(10);
        else if (kind == 3)
            w[i] = rnd_below(3) == 0 ? 0 : 1 + rnd_below(1000000);
        else
            w[i] = 1 + rnd_below(cap);
    }
    if (kind >= 2)
        w[rnd_below(n)] = 1 + rnd_below(kind == 4 ? cap : 10);
    return w;
}

static uint64_t wt(const uint64_t *w, uint32_t i)
{
    return w != NULL ? w[i] : 1;
}

/* Reference largest remainder by sorting, independent of pr_split's search. */
static const uint64_t *ref_rem;

static int ref_cmp(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (ref_rem[i] != ref_rem[j])
        return ref_rem[i] > ref_rem[j] ? -1 : 1;
    return i < j ? -1 : 1;
}

static void ref_split(uint64_t total, uint32_t n, const uint64_t *w, uint64_t *out)
{
    uint64_t *rem = malloc(n * sizeof(*rem)), wsum = 0, left = total;
    uint32_t *idx = malloc(n * sizeof(*idx));

    for (uint32_t i = 0; i < n; i++)
        wsum += wt(w, i);
    for (uint32_t i = 0; i < n; i++) {
        u128 p = (u128)total * wt(w, i);
        out[i] = (uint64_t)(p / wsum);
        rem[i] = (uint64_t)(p % wsum);
        left -= out[i];
        idx[i] = i;
    }
    ref_rem = rem;
    qsort(idx, n, sizeof(*idx), ref_cmp);
    for (uint64_t k = 0; k < left; k++)
        out[idx[k]]++;
    free(rem);
    free(idx);
}

/* One random case of pr_split_u64 against every stated property. */
static void check_split_case(uint64_t *w, uint64_t *s, uint64_t *s2, uint64_t *ref)
{
    uint32_t n = rnd_agents();
    int equal;
    const uint64_t *wp = rnd_weights(n, w, &equal);
    uint64_t total = rnd_total(n), wsum = 0, lo = UINT64_MAX, hi = 0;
    u128 sum = 0;

    for (uint32_t i = 0; i < n; i++)
        wsum += wt(wp, i);
    CHECK(pr_split_u64(total, n, wp, s) == 0);
    CHECK(pr_split_u64(total, n, wp, s2) == 0);
    ref_split(total, n, wp, ref);
    for (uint32_t i = 0; i < n; i++) {
        u128 exact = (u128)total * wt(wp, i), got = (u128)s[i] * wsum;
        u128 diff = got > exact ? got - exact : exact - got;
        sum += s[i];
        lo = s[i] < lo ? s[i] : lo;
        hi = s[i] > hi ? s[i] : hi;
        CHECK_MSG(diff < wsum, "n=%u total=%" PRIu64 " agent %u off by >= 1", n, total, i);
        CHECK(wt(wp, i) > 0 || s[i] == 0);
    }
    CHECK_MSG(sum == total, "n=%u total=%" PRIu64 " sum differs", n, total);
    CHECK(memcmp(s, s2, n * sizeof(*s)) == 0);
    CHECK_MSG(memcmp(s, ref, n * sizeof(*s)) == 0, "n=%u total=%" PRIu64 " differs from reference",
              n, total);
    if (equal) {
        CHECK(hi - lo <= 1);
        CHECK_EQ_U64(s[0], total / n + (total % n > 0));
        CHECK_EQ_U64(s[n - 1], total / n);
    }
}

static void test_split_props(void)
{
    uint64_t *w = malloc(1000 * sizeof(*w)), *s = malloc(1000 * sizeof(*s));
    uint64_t *s2 = malloc(1000 * sizeof(*s2)), *ref = malloc(1000 * sizeof(*ref));

    for (int it = 0; it < ITERS; it++)
        check_split_case(w, s, s2, ref);
    free(w);
    free(s);
    free(s2);
    free(ref);
}

static void test_split_edges(void)
{
    uint64_t s[8], w[8];

    CHECK(pr_split_u64(0, 5, NULL, s) == 0);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_U64(s[i], 0);
    CHECK(pr_split_u64(3, 5, NULL, s) == 0);
    CHECK(s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 0 && s[4] == 0);
    CHECK(pr_split_u64(UINT64_MAX, 1, NULL, s) == 0);
    CHECK_EQ_U64(s[0], UINT64_MAX);
    CHECK(pr_split_u64(UINT64_MAX, 3, NULL, s) == 0);
    CHECK_EQ_U64(s[0], UINT64_MAX / 3); /* 2^64-1 is divisible by 3 */
    CHECK(s[0] == s[1] && s[1] == s[2]);
    CHECK(pr_split_u64(UINT64_MAX, 2, NULL, s) == 0);
    CHECK(s[0] == UINT64_MAX / 2 + 1 && s[1] == UINT64_MAX / 2);
    w[0] = UINT64_MAX - 1;
    w[1] = 1;
    CHECK(pr_split_u64(UINT64_MAX, 2, w, s) == 0);
    CHECK(s[0] == UINT64_MAX - 1 && s[1] == 1);
    /* 10 over 3:1:0:1 = 6, 2, 0, 2; remainders tie at agents 1 and 3. */
    uint64_t w4[4] = {3, 1, 0, 1};
    CHECK(pr_split_u64(10, 4, w4, s) == 0);
    CHECK(s[0] == 6 && s[1] == 2 && s[2] == 0 && s[3] == 2);
    /* 7 over 1:1:1 = 3,2,2 (ties go to the lowest index). */
    CHECK(pr_split_u64(7, 3, NULL, s) == 0);
    CHECK(s[0] == 3 && s[1] == 2 && s[2] == 2);
    /* Remainder beats index: 5 over 1:2 = 1.67, 3.33 -> 2, 3. */
    uint64_t w2[2] = {1, 2};
    CHECK(pr_split_u64(5, 2, w2, s) == 0);
    CHECK(s[0] == 2 && s[1] == 3);
}

static void test_errors(void)
{
    uint64_t s[4], zero[3] = {0, 0, 0}, big[2] = {UINT64_MAX, 1};
    struct pr_split_span sp[4];
    struct pr_split_piece *pieces = (void *)1;
    size_t np = 99;
    const char *names[3] = {"a", NULL, "c"};
    uint32_t perm[3];

    CHECK(pr_split_u64(10, 0, NULL, s) == PR_EINVAL);
    CHECK(pr_split_u64(10, 3, NULL, NULL) == PR_EINVAL);
    CHECK(pr_split_u64(10, 3, zero, s) == PR_EINVAL);
    CHECK(pr_split_u64(10, 2, big, s) == PR_ERANGE);
    CHECK(pr_split_tables(0, NULL, 4, sp) == PR_EINVAL);
    CHECK(pr_split_tables(2, NULL, 0, sp) == PR_EINVAL);
    CHECK(pr_split_tables(2, NULL, 4, NULL) == PR_EINVAL);
    CHECK(pr_split_tables(3, zero, 4, sp) == PR_EINVAL);
    CHECK(pr_split_tables(2, big, 4, sp) == PR_ERANGE);
    CHECK(pr_split_tables(4, NULL, 3, sp) == PR_ERANGE);
    CHECK(pr_split_rows(4, NULL, 3, sp) == PR_ERANGE);
    CHECK(pr_split_rows(4, NULL, 0, sp) == PR_ERANGE);
    CHECK(pr_split_rows(3, zero, 100, sp) == PR_EINVAL);
    CHECK(pr_split_prepare(0, NULL, 4, 10, &pieces, &np) == PR_EINVAL);
    CHECK(pieces == NULL && np == 0);
    CHECK(pr_split_prepare(2, NULL, 0, 10, &pieces, &np) == PR_EINVAL);
    CHECK(pr_split_prepare(3, zero, 4, 10, &pieces, &np) == PR_EINVAL);
    CHECK(pr_split_prepare(2, big, 4, 10, &pieces, &np) == PR_ERANGE);
    CHECK(pieces == NULL);
    CHECK(pr_split_prepare(2, NULL, 4, 10, NULL, &np) == PR_EINVAL);
    CHECK(pr_split_prepare(2, NULL, 4, 10, &pieces, NULL) == PR_EINVAL);
    CHECK(pr_split_tables(PR_SPLIT_MAX_AGENTS + 1, NULL, 4, sp) == PR_ETOO_BIG);
    CHECK(pr_split_tables(2, NULL, PR_SPLIT_MAX_TABLES + 1, sp) == PR_ETOO_BIG);
    CHECK(pr_split_rows(PR_SPLIT_MAX_AGENTS + 1, NULL, 4, sp) == PR_ETOO_BIG);
    CHECK(pr_split_prepare(UINT32_MAX, NULL, 4, 10, &pieces, &np) == PR_ETOO_BIG);
    CHECK(pr_split_prepare(2, NULL, UINT32_MAX, 10, &pieces, &np) == PR_ETOO_BIG);
    CHECK(pieces == NULL && np == 0);
    CHECK(pr_split_order(names, 3, perm) == PR_EINVAL);
    CHECK(pr_split_order(names, 0, perm) == PR_EINVAL);
    CHECK(pr_split_order(NULL, 3, perm) == PR_EINVAL);
    names[1] = "a";
    CHECK(pr_split_order(names, 3, perm) == PR_EDUP_KEY);
    names[1] = "b";
    CHECK(pr_split_order(names, 3, NULL) == PR_EINVAL);
}

/* One random case of pr_split_tables or pr_split_rows. */
static void check_spans_case(int tables, uint64_t *w, uint64_t *s, struct pr_split_span *sp,
                             struct pr_split_span *sp2)
{
    uint32_t n = rnd_agents(), active = 0;
    int equal;
    const uint64_t *wp = rnd_weights(n, w, &equal);
    uint64_t total, next = 1, lo = UINT64_MAX, hi = 0;
    int rc, rc2;

    for (uint32_t i = 0; i < n; i++)
        active += wt(wp, i) > 0;
    if (tables)
        total = rnd_below(4) == 0 ? rnd_below(active + 1) : active + rnd_below(3 * n + 10);
    else
        total = rnd_total(n);
    if (tables) {
        rc = pr_split_tables(n, wp, (uint32_t)total, sp);
        rc2 = pr_split_tables(n, wp, (uint32_t)total, sp2);
    } else {
        rc = pr_split_rows(n, wp, total, sp);
        rc2 = pr_split_rows(n, wp, total, sp2);
    }
    CHECK(rc == rc2);
    if (tables && total == 0) {
        CHECK(rc == PR_EINVAL);
        return;
    }
    if (total < active) {
        CHECK(rc == PR_ERANGE);
        return;
    }
    CHECK(rc == 0);
    CHECK(pr_split_u64(total - active, n, wp, s) == 0);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t len = pr_split_span_len(sp[i]);
        CHECK(sp[i].lo == sp2[i].lo && sp[i].hi == sp2[i].hi);
        CHECK_EQ_U64(len, s[i] + (wt(wp, i) > 0)); /* the documented 1 + share rule */
        if (wt(wp, i) == 0) {
            CHECK(sp[i].lo == 1 && sp[i].hi == 0);
            continue;
        }
        CHECK(len >= 1);
        CHECK_EQ_U64(sp[i].lo, next); /* contiguous, in agent order, no overlap */
        next = sp[i].hi + 1;
        lo = len < lo ? len : lo;
        hi = len > hi ? len : hi;
    }
    CHECK_EQ_U64(next - 1, total); /* covers exactly 1..total */
    if (equal)
        CHECK(hi - lo <= 1);
}

static void test_spans_props(void)
{
    uint64_t *w = malloc(1000 * sizeof(*w)), *s = malloc(1000 * sizeof(*s));
    struct pr_split_span *sp = malloc(1000 * sizeof(*sp)), *sp2 = malloc(1000 * sizeof(*sp2));

    for (int it = 0; it < ITERS; it++) {
        check_spans_case(1, w, s, sp, sp2);
        check_spans_case(0, w, s, sp, sp2);
    }
    free(w);
    free(s);
    free(sp);
    free(sp2);
}

/* Checks the pieces of one table, p[0..k-1]; returns rows loaded. */
static u128 check_table_pieces(const struct pr_split_piece *p, size_t k, uint64_t table_size)
{
    int creators = 0, indexers = 0;
    u128 rows = 0;

    CHECK_EQ_U64(p[0].id_lo, 1);
    for (size_t j = 0; j < k; j++) {
        CHECK_EQ_U64(p[j].table_pieces, k);
        if (j > 0)
            CHECK_EQ_U64(p[j].id_lo, p[j - 1].id_hi + 1); /* contiguous, no overlap */
        CHECK(table_size == 0 || p[j].id_hi >= p[j].id_lo);
        creators += p[j].creates;
        indexers += p[j].indexes;
        rows += (u128)(p[j].id_hi - p[j].id_lo) + 1;
    }
    CHECK_EQ_U64(p[k - 1].id_hi, table_size);
    CHECK(creators == 1 && indexers == 1);
    CHECK(p[0].creates && p[k - 1].indexes);
    return table_size == 0 ? 0 : rows;
}

static uint64_t rnd_table_size(uint32_t n)
{
    switch (rnd_below(5)) {
    case 0:
        return rnd_below(3);
    case 1:
        return rnd_below(n + 2);
    case 2:
        return UINT64_MAX - rnd_below(5);
    default:
        return rnd_below(10000000);
    }
}

static void check_prepare_layout(uint32_t n, const uint64_t *wp, uint32_t tables, uint64_t size,
                                 const struct pr_split_piece *p, size_t np, uint32_t *loads)
{
    uint32_t active = 0, t = 1;
    size_t j = 0;
    u128 rows = 0;

    for (uint32_t i = 0; i < n; i++) {
        active += wt(wp, i) > 0;
        loads[i] = 0;
    }
    CHECK(np <= (tables > n ? tables : n));
    while (j < np) {
        size_t k = 1;
        while (j + k < np && p[j + k].table == p[j].table)
            k++;
        CHECK_EQ_U64(p[j].table, t++); /* every table, in order, once */
        rows += check_table_pieces(p + j, k, size);
        for (size_t m = j; m < j + k; m++) {
            CHECK(p[m].agent < n && wt(wp, p[m].agent) > 0);
            CHECK(m == 0 || p[m].agent >= p[m - 1].agent); /* sorted by agent too */
            loads[p[m].agent]++;
        }
        CHECK(tables < active || k == 1); /* whole tables when there are enough */
        j += k;
    }
    CHECK_EQ_U64(t - 1, tables);
    CHECK(rows == (u128)tables * size); /* every id of every table exactly once */
    for (uint32_t i = 0; i < n; i++) {
        if (tables < active) /* row mode: one table per agent at most */
            CHECK(loads[i] <= 1);
        if (wt(wp, i) > 0 && (tables >= active || size >= (active + tables - 1) / tables))
            CHECK_MSG(loads[i] >= 1, "agent %u of %u loads nothing", i, n);
    }
}

static void check_prepare_case(uint64_t *w, uint32_t *loads, struct pr_split_span *sp)
{
    uint32_t n = 1 + (uint32_t)rnd_below(rnd_below(2) ? 12 : 200);
    int equal;
    const uint64_t *wp = rnd_weights(n, w, &equal);
    uint32_t tables = 1 + (uint32_t)rnd_below(rnd_below(2) ? n : 3 * n);
    uint64_t size = rnd_table_size(n);
    struct pr_split_piece *p, *p2;
    size_t np, np2;

    CHECK(pr_split_prepare(n, wp, tables, size, &p, &np) == 0);
    CHECK(pr_split_prepare(n, wp, tables, size, &p2, &np2) == 0);
    CHECK(np == np2);
    for (size_t j = 0; j < np && j < np2; j++) {
        CHECK(p[j].agent == p2[j].agent && p[j].table == p2[j].table);
        CHECK(p[j].id_lo == p2[j].id_lo && p[j].id_hi == p2[j].id_hi);
        CHECK(p[j].creates == p2[j].creates && p[j].indexes == p2[j].indexes);
    }
    check_prepare_layout(n, wp, tables, size, p, np, loads);
    /* Whole-table mode gives each agent the tables --partition=tables does. */
    if (pr_split_tables(n, wp, tables, sp) == 0) {
        for (size_t j = 0; j < np; j++)
            CHECK(p[j].table >= sp[p[j].agent].lo && p[j].table <= sp[p[j].agent].hi);
    }
    free(p);
    free(p2);
}

static void test_prepare_props(void)
{
    uint64_t *w = malloc(1000 * sizeof(*w));
    uint32_t *loads = malloc(1000 * sizeof(*loads));
    struct pr_split_span *sp = malloc(1000 * sizeof(*sp));

    for (int it = 0; it < ITERS; it++)
        check_prepare_case(w, loads, sp);
    free(w);
    free(loads);
    free(sp);
}

static void test_prepare_examples(void)
{
    struct pr_split_piece *p;
    size_t np;

    /* 2 tables over 4 agents: each table split in two id ranges. */
    CHECK(pr_split_prepare(4, NULL, 2, 10000, &p, &np) == 0);
    CHECK(np == 4);
    CHECK(p[0].agent == 0 && p[0].table == 1 && p[0].id_lo == 1 && p[0].id_hi == 5000);
    CHECK(p[1].agent == 1 && p[1].table == 1 && p[1].id_lo == 5001 && p[1].id_hi == 10000);
    CHECK(p[0].creates && !p[0].indexes && !p[1].creates && p[1].indexes);
    CHECK(p[3].agent == 3 && p[3].table == 2 && p[3].id_lo == 5001 && p[3].table_pieces == 2);
    free(p);
    /* 5 tables over 2 agents: 3 + 2 whole tables. */
    CHECK(pr_split_prepare(2, NULL, 5, 100, &p, &np) == 0);
    CHECK(np == 5);
    CHECK(p[2].agent == 0 && p[2].table == 3 && p[3].agent == 1 && p[3].table == 4);
    CHECK(p[4].creates && p[4].indexes && p[4].id_lo == 1 && p[4].id_hi == 100);
    free(p);
    /* Empty tables still get created once. */
    CHECK(pr_split_prepare(3, NULL, 1, 0, &p, &np) == 0);
    CHECK(np == 1 && p[0].agent == 0 && p[0].id_lo == 1 && p[0].id_hi == 0);
    CHECK(p[0].creates && p[0].indexes);
    free(p);
}

static void rnd_name(char *buf, size_t cap)
{
    size_t len = 1 + rnd_below(cap - 1);
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)('a' + rnd_below(rnd_below(2) ? 3 : 26)); /* few letters: shared prefixes */
    buf[len] = '\0';
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_order_case(char (*buf)[8], const char **names, const char **sorted,
                             uint32_t *perm)
{
    uint32_t n = 1 + (uint32_t)rnd_below(100);
    int dup = 0;

    for (uint32_t i = 0; i < n; i++) {
        rnd_name(buf[i], 8);
        names[i] = sorted[i] = buf[i];
    }
    qsort(sorted, n, sizeof(*sorted), str_cmp);
    for (uint32_t i = 1; i < n; i++)
        dup |= strcmp(sorted[i - 1], sorted[i]) == 0;
    int rc = pr_split_order(names, n, perm);
    if (dup) {
        CHECK(rc == PR_EDUP_KEY);
        return;
    }
    CHECK(rc == 0);
    for (uint32_t i = 0; i < n; i++)
        CHECK_MSG(names[perm[i]] == sorted[i], "n=%u position %u", n, i); /* a permutation */
}

static void test_order_props(void)
{
    char(*buf)[8] = malloc(100 * sizeof(*buf));
    const char **names = malloc(100 * sizeof(*names)), **sorted = malloc(100 * sizeof(*sorted));
    uint32_t *perm = malloc(100 * sizeof(*perm));

    for (int it = 0; it < ITERS; it++)
        check_order_case(buf, names, sorted, perm);
    free(buf);
    free(names);
    free(sorted);
    free(perm);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_seed_distinct(void)
{
    const uint64_t runs[4] = {0, 1, 2, UINT64_MAX};
    const uint32_t n_agents = 128, n_conns = 512;
    size_t n = 4 * (size_t)n_agents * n_conns, k = 0, dups = 0;
    uint64_t *all = malloc(n * sizeof(*all));

    for (int r = 0; r < 4; r++)
        for (uint32_t a = 0; a < n_agents; a++)
            for (uint32_t c = 0; c < n_conns; c++)
                all[k++] = pr_split_seed(runs[r], a, c);
    /* Also the far corners of the (agent, conn) space. */
    CHECK(pr_split_seed(7, UINT32_MAX, 0) != pr_split_seed(7, 0, UINT32_MAX));
    CHECK(pr_split_seed(5, 0, 7) != pr_split_seed(7, 0, 5));
    CHECK(pr_split_seed(42, 3, 9) == pr_split_seed(42, 3, 9));
    qsort(all, n, sizeof(*all), u64_cmp);
    for (size_t i = 1; i < n; i++)
        dups += all[i] == all[i - 1];
    CHECK_MSG(dups == 0, "%zu duplicate seeds in a grid of %zu", dups, n);
    free(all);
}

/* Flipping any one input bit flips about half the output bits. */
static void test_seed_avalanche(void)
{
    uint64_t flips = 0, trials = 0;

    for (int it = 0; it < ITERS; it++) {
        uint64_t s = rnd();
        uint32_t a = (uint32_t)rnd(), c = (uint32_t)rnd();
        uint64_t base = pr_split_seed(s, a, c);
        int bit = (int)rnd_below(128);
        uint64_t other = bit < 64   ? pr_split_seed(s ^ (UINT64_C(1) << bit), a, c)
                         : bit < 96 ? pr_split_seed(s, a ^ (UINT32_C(1) << (bit - 64)), c)
                                    : pr_split_seed(s, a, c ^ (UINT32_C(1) << (bit - 96)));
        flips += (uint64_t)__builtin_popcountll(base ^ other);
        trials++;
    }
    double mean = (double)flips / (double)trials;
    printf("seed avalanche: %.3f bits of 64 flip per input bit\n", mean);
    CHECK(mean > 31.0 && mean < 33.0);
}

int main(void)
{
    const char *env = getenv("STAMPEDE_TEST_SEED");
    uint64_t seed = env != NULL ? strtoull(env, NULL, 0) : UINT64_C(20261130);

    printf("test_pr_split: STAMPEDE_TEST_SEED=%" PRIu64 "\n", seed);
    rng_state = seed;
    test_split_edges();
    test_errors();
    test_split_props();
    test_spans_props();
    test_prepare_examples();
    test_prepare_props();
    test_order_props();
    test_seed_distinct();
    test_seed_avalanche();
    return TEST_END();
}
