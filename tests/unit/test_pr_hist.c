/* Tests for pr_hist: the bucket layout, recording, percentiles, merging,
 * the msgpack form (strict, raw and corrupt input); test_pr_hist_frozen.c
 * has the frozen form and the accumulator. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "mp_bounded.h"
#include "pr_hist.h"
#include "testlib.h"

#define TESTRNG_SEED 0x5eed5eed12345678ULL
#include "hist_shapes.h"
#include "testrng.h"

static const char *const shape_names[SHAPE_COUNT] = {"uniform", "log-normal", "bimodal"};

#define NSAMPLES 1000000

static bool roundtrip_ok(const pr_hist *h);

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The index definition straight from HdrHistogram, without clz: the
 * smallest bucket whose range covers v, then the sub-bucket. */
static int32_t ref_index(uint64_t v)
{
    int b = 0;
    while (v >= (2048ULL << b))
        b++;
    return (int32_t)((b + 1) * 1024 + (int64_t)(v >> b) - 1024);
}

static void test_layout(void)
{
    CHECK_EQ_U64(pr_hist_counts_len(), 23221);
    CHECK_EQ_U64(pr_hist_index_of(PR_HIST_MAX_US) + 1, pr_hist_counts_len());
    CHECK_EQ_U64(pr_hist_index_of(1), 1);
    CHECK_EQ_U64(pr_hist_index_of(2047), 2047);
    CHECK_EQ_U64(pr_hist_index_of(2048), 2048);
    CHECK_EQ_U64(pr_hist_index_of(4095), 3071);
    CHECK_EQ_U64(pr_hist_index_of(4096), 3072);
    CHECK_EQ_U64(pr_hist_value_at_index(3071), 4094);
    CHECK_EQ_U64(pr_hist_lowest_equivalent(4095), 4094);
    CHECK_EQ_U64(pr_hist_highest_equivalent(4094), 4095);
    CHECK_EQ_U64(pr_hist_highest_equivalent(PR_HIST_MAX_US), 3600809983ULL);
    for (int i = 0; i < 200000; i++) {
        uint64_t v = 1 + (rng_next() >> (rng_next() % 64)) % PR_HIST_MAX_US;
        int32_t idx = pr_hist_index_of(v);
        uint64_t lo = pr_hist_lowest_equivalent(v), hi = pr_hist_highest_equivalent(v);
        CHECK_MSG(idx == ref_index(v), "v=%" PRIu64 " idx %d ref %d", v, idx, ref_index(v));
        CHECK(pr_hist_value_at_index(idx) == lo);
        CHECK(lo <= v && v <= hi);
        CHECK((double)(hi - lo) < (double)v / 1000.0 || hi == lo);
        CHECK(pr_hist_index_of(hi) == idx && (lo == 1 || pr_hist_index_of(lo - 1) == idx - 1));
    }
}

static void test_basics(void)
{
    pr_hist *h = pr_hist_new();
    struct pr_hist_iter it = PR_HIST_ITER_INIT;
    CHECK(pr_hist_count(h) == 0 && pr_hist_min(h) == 0 && pr_hist_max(h) == 0);
    CHECK(pr_hist_mean(h) == 0.0 && pr_hist_stddev(h) == 0.0);
    CHECK(pr_hist_value_at_percentile(h, 50) == 0);
    CHECK(!pr_hist_next(h, &it));

    pr_hist_record(h, 1000, 3);
    pr_hist_record(h, 3000, 1);
    pr_hist_record(h, 77, 0); /* no-op */
    CHECK_EQ_U64(pr_hist_count(h), 4);
    CHECK_EQ_U64(pr_hist_min(h), 1000);
    CHECK_EQ_U64(pr_hist_max(h), 3000);
    CHECK_EQ_U64(pr_hist_sum(h), 6000);
    CHECK(pr_hist_mean(h) == 1500.0);
    /* midpoints 1000 (x3) and 3001 (bucket 3000..3001): HdrHistogram's stddev */
    CHECK(fabs(pr_hist_stddev(h) - sqrt((3 * 500.25 * 500.25 + 1500.75 * 1500.75) / 4)) < 1e-9);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 0), 1000);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 75), 1000);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 75.0001), 3000); /* clamped to max */
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 100), 3000);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 1e9), 3000);

    pr_hist_record(h, 0, 2);
    pr_hist_record(h, PR_HIST_MAX_US + 1, 1);
    pr_hist_record(h, UINT64_MAX, 1);
    CHECK_EQ_U64(pr_hist_clamped(h), 4);
    CHECK_EQ_U64(pr_hist_min(h), 1);
    CHECK_EQ_U64(pr_hist_max(h), PR_HIST_MAX_US);
    CHECK_EQ_U64(pr_hist_count_at_index(h, 1), 2);
    CHECK_EQ_U64(pr_hist_count_at_index(h, pr_hist_counts_len() - 1), 2);
    CHECK_EQ_U64(pr_hist_count_at_index(h, -1), 0);
    CHECK_EQ_U64(pr_hist_count_at_index(h, pr_hist_counts_len()), 0);

    uint64_t n = 0, prev = 0;
    while (pr_hist_next(h, &it)) {
        CHECK(it.count > 0 && it.lowest_us > prev && it.value_us >= it.lowest_us);
        CHECK(it.count == pr_hist_count_at_index(h, (int32_t)it.index));
        prev = it.value_us;
        n += it.count;
    }
    CHECK_EQ_U64(n, pr_hist_count(h));
    CHECK(!pr_hist_next(h, &it)); /* stays finished */

    pr_hist *c = pr_hist_new();
    pr_hist_copy(c, h);
    CHECK(pr_hist_equal(c, h));
    pr_hist_record(c, 5, 1);
    CHECK(!pr_hist_equal(c, h) && !pr_hist_same_buckets(c, h));
    pr_hist_reset(h);
    CHECK(pr_hist_count(h) == 0 && pr_hist_max(h) == 0 && pr_hist_clamped(h) == 0);
    for (int32_t i = 0; i < pr_hist_counts_len(); i++)
        CHECK(pr_hist_count_at_index(h, i) == 0);
    pr_hist_record(h, 42, 1);
    CHECK_EQ_U64(pr_hist_min(h), 42);
    CHECK_EQ_U64(pr_hist_max(h), 42);

    /* The sum saturates instead of wrapping. */
    pr_hist_record(h, PR_HIST_MAX_US, UINT64_MAX / 1000);
    CHECK_EQ_U64(pr_hist_sum(h), UINT64_MAX);
    pr_hist_destroy(&c);
    pr_hist_destroy(&h);
    CHECK(h == NULL);
    pr_hist_destroy(&h);
    pr_hist_destroy(NULL);
}

/* 99.9 / 100 * 1000 is 999.0000000000001 in doubles: a plain ceil() would
 * ask for the 1000th sample, HdrHistogram's ulp rule for the 999th. */
static void test_rank_rounding(void)
{
    pr_hist *h = pr_hist_new();
    for (uint64_t v = 1; v <= 1000; v++)
        pr_hist_record(h, v, 1);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 99.9), 999);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 99.99), 1000);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 50), 500);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 1e-12), 1);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, -5), 1);
    pr_hist_destroy(&h);
}

/* Rank used by HdrHistogram for percentile p of n samples (1-based). */
static uint64_t rank_of(double p, uint64_t n)
{
    double x = p / 100.0 * (double)n;
    int e;
    frexp(x, &e);
    double r = ceil(x - ldexp(1.0, e - 53));
    return r < 1 ? 1 : (uint64_t)r;
}

static void test_percentiles(enum shape s, uint64_t *v)
{
    static const double ps[] = {50, 90, 95, 99, 99.9, 99.99};
    pr_hist *h = pr_hist_new();
    for (int i = 0; i < NSAMPLES; i++) {
        v[i] = sample(s);
        pr_hist_record(h, v[i], 1);
    }
    qsort(v, NSAMPLES, sizeof(v[0]), cmp_u64);
    CHECK_EQ_U64(pr_hist_count(h), NSAMPLES);
    CHECK_EQ_U64(pr_hist_min(h), v[0]);
    CHECK_EQ_U64(pr_hist_max(h), v[NSAMPLES - 1]);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 0), v[0]);
    CHECK_EQ_U64(pr_hist_value_at_percentile(h, 100), v[NSAMPLES - 1]);
    for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
        uint64_t exact = v[rank_of(ps[k], NSAMPLES) - 1];
        uint64_t got = pr_hist_value_at_percentile(h, ps[k]);
        uint64_t want = pr_hist_highest_equivalent(exact);
        if (want > v[NSAMPLES - 1])
            want = v[NSAMPLES - 1];
        CHECK_MSG(fabs((double)got - (double)exact) <= 0.001 * (double)exact,
                  "%s p%g: %" PRIu64 " vs exact %" PRIu64, shape_names[s], ps[k], got, exact);
        CHECK_MSG(got == want, "%s p%g: %" PRIu64 " vs convention %" PRIu64, shape_names[s], ps[k],
                  got, want);
    }
    CHECK(roundtrip_ok(h));
    printf("%-10s p50 %" PRIu64 " p99 %" PRIu64 " p99.99 %" PRIu64 " max %" PRIu64 "\n",
           shape_names[s], pr_hist_value_at_percentile(h, 50), pr_hist_value_at_percentile(h, 99),
           pr_hist_value_at_percentile(h, 99.99), pr_hist_max(h));
    pr_hist_destroy(&h);
}

static void test_merge(void)
{
    pr_hist *a = pr_hist_new(), *b = pr_hist_new(), *all = pr_hist_new();
    pr_hist *part[64], *merged = pr_hist_new();
    for (int i = 0; i < 64; i++)
        part[i] = pr_hist_new();
    for (int i = 0; i < NSAMPLES; i++) {
        uint64_t x = sample((enum shape)(i % SHAPE_COUNT));
        if (i % 1000 == 0)
            x = rng_next() % 8 == 0 ? 0 : x * 40000; /* some clamped ones */
        pr_hist_record(i % 3 == 0 ? a : b, x, 1);
        pr_hist_record(all, x, 1);
        pr_hist_record(part[rng_next() % 64], x, 1);
    }
    CHECK(pr_hist_clamped(all) > 0);
    CHECK(roundtrip_ok(all));
    CHECK(roundtrip_ok(merged)); /* empty */
    pr_hist_add(a, b);
    CHECK(pr_hist_equal(a, all));
    CHECK(pr_hist_same_buckets(a, all));
    for (int i = 0; i < 64; i++)
        pr_hist_add(merged, part[i]);
    CHECK(pr_hist_equal(merged, all));
    for (int32_t i = 0; i < pr_hist_counts_len(); i++)
        CHECK(pr_hist_count_at_index(merged, i) == pr_hist_count_at_index(all, i));
    pr_hist_add(merged, b);
    CHECK(!pr_hist_equal(merged, all));
    for (int i = 0; i < 64; i++)
        pr_hist_destroy(&part[i]);
    pr_hist_destroy(&a);
    pr_hist_destroy(&b);
    pr_hist_destroy(&all);
    pr_hist_destroy(&merged);
}

/* Unpacks buf as exactly one msgpack object, then as a histogram. Returns
 * pr_hist_unpack's code, or 1 when buf is not one whole msgpack object.
 * Checks on the way that pr_hist_unpack_raw() on the same bytes agrees:
 * same code, same message, same histogram; and that it rejects, leaving
 * the histogram empty, what is not one whole msgpack object. */
static int decode(pr_hist *h, const char *buf, size_t len, struct pr_error *err)
{
    msgpack_unpacked u;
    size_t off = 0;
    int rc = 1;
    bool whole = msgpack_bounded((const uint8_t *)buf, len);
    struct pr_error raw_err = {0, ""};
    pr_hist *raw = pr_hist_new();
    pr_hist_record(raw, 31337, 2); /* unpack must replace it */
    int raw_rc = pr_hist_unpack_raw(raw, buf, len, &raw_err);
    /* the sparse decoder (STATS.kst): same code, same message, same
     * histogram once thawed; nothing left behind on failure */
    struct pr_error fz_err = {0, ""};
    pr_hist_frozen *fz = (pr_hist_frozen *)&fz_err; /* must be overwritten */
    int fz_rc = pr_hist_unpack_raw_frozen(&fz, buf, len, &fz_err);
    CHECK_MSG(fz_rc == raw_rc && (raw_rc == 0 || strcmp(fz_err.msg, raw_err.msg) == 0),
              "frozen %s (%s), raw %s (%s)", pr_errname(fz_rc), fz_err.msg, pr_errname(raw_rc),
              raw_err.msg);
    CHECK((fz_rc == 0) == (fz != NULL));
    if (fz != NULL) {
        pr_hist *thawed = pr_hist_new();
        pr_hist_thaw(thawed, fz);
        CHECK(pr_hist_equal(thawed, raw));
        msgpack_sbuffer a, b;
        msgpack_packer pa, pb;
        msgpack_sbuffer_init(&a);
        msgpack_sbuffer_init(&b);
        msgpack_packer_init(&pa, &a, msgpack_sbuffer_write);
        msgpack_packer_init(&pb, &b, msgpack_sbuffer_write);
        CHECK(pr_hist_pack(raw, &pa) == 0 && pr_hist_frozen_pack(fz, &pb) == 0);
        CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
        msgpack_sbuffer_destroy(&a);
        msgpack_sbuffer_destroy(&b);
        pr_hist_destroy(&thawed);
        pr_hist_frozen_destroy(&fz);
    }
    msgpack_unpacked_init(&u);
    if (whole && msgpack_unpack_next(&u, buf, len, &off) == MSGPACK_UNPACK_SUCCESS && off == len) {
        rc = pr_hist_unpack(h, &u.data, err);
        CHECK_MSG(raw_rc == rc && (rc == 0 || strcmp(raw_err.msg, err->msg) == 0),
                  "tree %s (%s), raw %s (%s)", pr_errname(rc), rc ? err->msg : "",
                  pr_errname(raw_rc), raw_err.msg);
        CHECK(pr_hist_equal(raw, h));
    } else if (!whole) {
        CHECK_MSG(raw_rc < 0 && raw_err.code == raw_rc && pr_hist_count(raw) == 0 &&
                      pr_hist_max(raw) == 0,
                  "raw accepted a broken object: %s", raw_err.msg);
    }
    msgpack_unpacked_destroy(&u);
    pr_hist_destroy(&raw);
    return rc;
}

static bool roundtrip_ok(const pr_hist *h)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    struct pr_error err = {0, ""};
    pr_hist *back = pr_hist_new();
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    pr_hist_record(back, 12345, 1); /* unpack must replace this */
    bool ok = pr_hist_pack(h, &pk) == 0 && decode(back, sb.data, sb.size, &err) == 0 &&
              pr_hist_equal(back, h);
    if (!ok)
        fprintf(stderr, "roundtrip: %s\n", err.msg);
    msgpack_sbuffer_destroy(&sb);
    pr_hist_destroy(&back);
    return ok;
}

/* A hand-made histogram map: values for n, min, max, sum, clamp and the
 * flattened bucket array, with one key omitted, duplicated or mistyped. */
struct spec {
    uint64_t v[5];
    const uint64_t *b;
    uint32_t blen;
    int omit, dup, bad_type; /* key number 0..5, or -1 */
    bool b_first;            /* "b" before the other keys (pr_hist_pack puts it last) */
};

static void pack_value(msgpack_packer *pk, const struct spec *sp, int k)
{
    if (k == sp->bad_type) {
        msgpack_pack_int64(pk, -1);
    } else if (k < 5) {
        msgpack_pack_uint64(pk, sp->v[k]);
    } else {
        msgpack_pack_array(pk, sp->blen);
        for (uint32_t i = 0; i < sp->blen; i++)
            msgpack_pack_uint64(pk, sp->b[i]);
    }
}

static int decode_spec(pr_hist *h, const struct spec *sp, struct pr_error *err)
{
    static const char *const keys[6] = {"n", "min", "max", "sum", "clamp", "b"};
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 7 - (sp->omit >= 0) + (sp->dup >= 0));
    msgpack_pack_str_with_body(&pk, "zz", 2); /* unknown keys are ignored */
    msgpack_pack_nil(&pk);
    for (int j = 0; j < 6; j++) {
        int k = sp->b_first ? (j + 5) % 6 : j;
        for (int rep = 0; rep < 1 + (k == sp->dup) && k != sp->omit; rep++) {
            msgpack_pack_str_with_body(&pk, keys[k], strlen(keys[k]));
            pack_value(&pk, sp, k);
        }
    }
    pr_hist_record(h, 777, 1);
    int rc = decode(h, sb.data, sb.size, err);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

static bool all_empty(const pr_hist *h)
{
    for (int32_t i = 0; i < pr_hist_counts_len(); i++)
        if (pr_hist_count_at_index(h, i) != 0)
            return false;
    return pr_hist_count(h) == 0 && pr_hist_max(h) == 0 && pr_hist_sum(h) == 0;
}

#define EXPECT_SPEC(h, sp, want)                                                                   \
    do {                                                                                           \
        struct pr_error e_ = {0, ""};                                                              \
        int rc_ = decode_spec(h, sp, &e_);                                                         \
        CHECK_MSG(rc_ == (want), "got %s (%s), want %s", pr_errname(rc_), e_.msg,                  \
                  pr_errname(want));                                                               \
        if ((want) != 0)                                                                           \
            CHECK(all_empty(h) && e_.code == (want) && e_.msg[0] != '\0');                         \
    } while (0)

static void test_unpack_strict(void)
{
    pr_hist *h = pr_hist_new();
    uint64_t i3000 = (uint64_t)pr_hist_index_of(3000), L = (uint64_t)pr_hist_counts_len();
    /* "b" holds gaps: index 1000, then i3000 */
    uint64_t g3000 = i3000 - 1000;
    const uint64_t good[] = {1000, 3, g3000, 1};
    struct spec base = {{4, 1000, 3000, 6000, 0}, good, 4, -1, -1, -1, false}, sp;

    EXPECT_SPEC(h, &base, 0);
    CHECK(pr_hist_count(h) == 4 && pr_hist_min(h) == 1000 && pr_hist_max(h) == 3000);
    CHECK(pr_hist_count_at_index(h, 1000) == 3 && pr_hist_value_at_percentile(h, 99) == 3000);
    for (int k = 0; k < 12; k++) {
        base.b_first = k >= 6;
        sp = base, sp.omit = k % 6;
        EXPECT_SPEC(h, &sp, PR_EMISSING_KEY);
        sp = base, sp.dup = k % 6;
        EXPECT_SPEC(h, &sp, PR_EDUP_KEY);
        sp = base, sp.bad_type = k % 6;
        EXPECT_SPEC(h, &sp, PR_EBAD_TYPE);
    }
    base.b_first = false;
    /* A field error after a bad "b" wins over it (raw decodes "b" at once). */
    const uint64_t zero_count[] = {1000, 0};
    sp = base, sp.b_first = true, sp.b = zero_count, sp.blen = 2, sp.omit = 4;
    EXPECT_SPEC(h, &sp, PR_EMISSING_KEY);
    sp.omit = -1, sp.dup = 3;
    EXPECT_SPEC(h, &sp, PR_EDUP_KEY);
    sp.dup = -1, sp.bad_type = 2;
    EXPECT_SPEC(h, &sp, PR_EBAD_TYPE);
    sp.bad_type = -1;
    EXPECT_SPEC(h, &sp, PR_EBAD_HIST);
    struct {
        uint64_t v[5];
        uint64_t b[6];
        uint32_t blen;
        int code;
    } cases[] = {
        {{4, 1000, 3000, 6000, 0}, {1000, 3, g3000}, 3, PR_EBAD_HIST},      /* odd */
        {{4, 1000, 3000, 6000, 0}, {0, 3, i3000, 1}, 4, PR_ERANGE},         /* index 0 */
        {{4, 1000, 3000, 6000, 0}, {1000, 3, L - 1000, 1}, 4, PR_ERANGE},   /* past max */
        {{4, 1000, 3000, 6000, 0}, {1000, 3, 1ULL << 40, 1}, 4, PR_ERANGE}, /* huge */
        {{4, 1000, 3000, 6000, 0}, {1000, 3, UINT64_MAX, 1}, 4, PR_ERANGE}, /* wraps */
        {{4, 1000, 1000, 4000, 0}, {1000, 3, 0, 1}, 4, PR_EBAD_HIST},       /* repeated */
        {{4, 1000, 3000, 6000, 0}, {1000, 4, 1000, 0, i3000 - 2000, 0}, 6, PR_EBAD_HIST}, /* zero */
        {{5, 1000, 3000, 6000, 0}, {1000, 3, g3000, 1}, 4, PR_EBAD_HIST},                 /* n */
        {{4, 999, 3000, 6000, 0}, {1000, 3, g3000, 1}, 4, PR_EBAD_HIST},   /* min bucket */
        {{4, 0, 3000, 6000, 0}, {1000, 3, g3000, 1}, 4, PR_EBAD_HIST},     /* min 0 */
        {{4, 1000, 3002, 6000, 0}, {1000, 3, g3000, 1}, 4, PR_EBAD_HIST},  /* max bucket */
        {{4, 1000, 3000, 3999, 0}, {1000, 3, g3000, 1}, 4, PR_EBAD_HIST},  /* sum low */
        {{4, 1000, 3000, 12001, 0}, {1000, 3, g3000, 1}, 4, PR_EBAD_HIST}, /* sum high */
        {{4, 1000, 3000, 6000, 1}, {1000, 3, g3000, 1}, 4, PR_EBAD_HIST},  /* clamp */
        {{1, 1, 2, 3, 0}, {1, UINT64_MAX, 1, 2}, 4, PR_EBAD_HIST},         /* overflow */
        {{0, 1, 0, 0, 0}, {0}, 0, PR_EBAD_HIST},                           /* empty, min */
        {{0, 0, 0, 0, 0}, {0}, 0, 0},                                      /* empty */
        {{UINT64_MAX, 5, 5, UINT64_MAX, 0}, {5, UINT64_MAX}, 2, 0},        /* huge, ok */
        /* "n" first and under 2^32 (the frozen decode's 32-bit slots): a
         * count that does not fit is refused with the total, not cut */
        {{4, 1000, 3000, 6000, 0}, {1000, (1ULL << 32) + 3, g3000, 1}, 4, PR_EBAD_HIST},
        {{1ULL << 32, 5, 5, 5ULL << 32, 0}, {5, 1ULL << 32}, 2, 0}, /* 2^32: wide, ok */
        {{2, 1, PR_HIST_MAX_US, PR_HIST_MAX_US + 1, 2}, {1, 1, L - 2, 1}, 4, 0}, /* clamps */
        {{2, 1, PR_HIST_MAX_US + 1, 2, 0}, {1, 1, L - 2, 1}, 4, PR_EBAD_HIST},   /* max > MAX */
    };
    for (size_t i = 0; i < 2 * sizeof(cases) / sizeof(cases[0]); i++) {
        size_t c = i % (sizeof(cases) / sizeof(cases[0]));
        sp = base;
        sp.b_first = i != c;
        memcpy(sp.v, cases[c].v, sizeof(sp.v));
        sp.b = cases[c].b;
        sp.blen = cases[c].blen;
        EXPECT_SPEC(h, &sp, cases[c].code);
        if (cases[c].code == 0)
            CHECK(roundtrip_ok(h));
    }
    /* Too many buckets, and non-integer bucket entries. */
    uint64_t *many = calloc(2 * (PR_HIST_MAX_BUCKETS + 1), sizeof(*many));
    sp = base, sp.b = many, sp.blen = 2 * (PR_HIST_MAX_BUCKETS + 1);
    EXPECT_SPEC(h, &sp, PR_ETOO_BIG);
    free(many);
    msgpack_object o = {.type = MSGPACK_OBJECT_ARRAY};
    struct pr_error err = {0, ""};
    CHECK(pr_hist_unpack(h, &o, &err) == PR_EBAD_TYPE && all_empty(h));
    CHECK(pr_hist_unpack(h, NULL, NULL) == PR_EBAD_TYPE);
    msgpack_object pair[2] = {{.type = MSGPACK_OBJECT_POSITIVE_INTEGER},
                              {.type = MSGPACK_OBJECT_STR}};
    pair[0].via.u64 = 5;
    msgpack_object_kv kv[6];
    static const char *const keys[6] = {"n", "min", "max", "sum", "clamp", "b"};
    for (int k = 0; k < 6; k++) {
        kv[k].key.type = MSGPACK_OBJECT_STR;
        kv[k].key.via.str.ptr = keys[k];
        kv[k].key.via.str.size = (uint32_t)strlen(keys[k]);
        kv[k].val.type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        kv[k].val.via.u64 = 1;
    }
    kv[5].val.type = MSGPACK_OBJECT_ARRAY;
    kv[5].val.via.array.size = 2;
    kv[5].val.via.array.ptr = pair;
    o.type = MSGPACK_OBJECT_MAP;
    o.via.map.size = 6;
    o.via.map.ptr = kv;
    CHECK(pr_hist_unpack(h, &o, &err) == PR_EBAD_TYPE && all_empty(h));
    pair[1].type = MSGPACK_OBJECT_POSITIVE_INTEGER;
    pair[1].via.u64 = 1;
    kv[1].val.via.u64 = kv[2].val.via.u64 = 5;
    kv[3].val.via.u64 = 5;
    kv[4].val.via.u64 = 0;
    CHECK(pr_hist_unpack(h, &o, &err) == 0 && pr_hist_count(h) == 1 && pr_hist_max(h) == 5);
    pr_hist_destroy(&h);
}

/* pr_hist_unpack_raw on hand-made bytes: every integer encoding msgpack-c
 * calls a POSITIVE_INTEGER (signed ones too), and the byte-level errors
 * only it can meet. */
static void test_unpack_raw_bytes(void)
{
    /* clang-format off */
    static const uint8_t good[] = {
        0x87, 0xa1, 'n', 0xd0, 4,                                   /* int8 4 */
        0xa3, 'm', 'i', 'n', 0xcd, 0x03, 0xe8,                      /* uint16 1000 */
        0xa3, 'm', 'a', 'x', 0xd1, 0x0b, 0xb8,                      /* int16 3000 */
        0xa3, 's', 'u', 'm', 0xd2, 0, 0, 0x17, 0x70,                /* int32 6000 */
        0xa2, 'z', 'z', 0x92, 0xc4, 1, 0, 0x81, 1, 2,               /* unknown: [bin, {1: 2}] */
        0xa5, 'c', 'l', 'a', 'm', 'p', 0xd3, 0, 0, 0, 0, 0, 0, 0, 0, /* int64 0 */
        0xa1, 'b', 0x94, 0xcd, 0x03, 0xe8, 0xd0, 3,                 /* [1000, int8 3, */
        0xcd, 0x05, 0xf4, 0xcf, 0, 0, 0, 0, 0, 0, 0, 1};            /*  +1524, uint64 1] */
    /* clang-format on */
    uint8_t buf[sizeof(good) + 1];
    struct pr_error err = {0, ""};
    pr_hist *h = pr_hist_new();

    CHECK((uint64_t)pr_hist_index_of(3000) == 1000 + 0x05f4); /* "b" holds gaps */
    CHECK_MSG(decode(h, (const char *)good, sizeof(good), &err) == 0, "%s", err.msg);
    CHECK(pr_hist_count(h) == 4 && pr_hist_max(h) == 3000 && pr_hist_count_at_index(h, 1000) == 3);
    memcpy(buf, good, sizeof(good));
    buf[sizeof(good)] = 0xc0;
    CHECK(pr_hist_unpack_raw(h, buf, sizeof(buf), &err) == PR_ETRAILING && all_empty(h));
    for (size_t len = 0; len < sizeof(good); len++)
        CHECK(pr_hist_unpack_raw(h, good, len, &err) == PR_ETRUNCATED && all_empty(h) &&
              err.code == PR_ETRUNCATED);
    buf[32] = 0xc1; /* the bin inside the unknown key's value: now not msgpack */
    CHECK(pr_hist_unpack_raw(h, buf, sizeof(good), &err) == PR_EINVAL && all_empty(h));
    buf[32] = 0xc4;
    CHECK(good[59] == 0xd0 && good[60] == 3);
    buf[60] = 0xff; /* int8 -1: a NEGATIVE_INTEGER, unlike int8 3 */
    CHECK(decode(h, (const char *)buf, sizeof(good), &err) == PR_EBAD_TYPE);
    pr_hist_destroy(&h);
}

/* Corrupt mutants decoded. The loop is single-threaded: TSan finds nothing
 * in it that the other builds' full run does not, and with 20,000 the test
 * took 153 s under TSan in CI (4 s in a plain build), so under TSan a tenth
 * of them run. */
#ifdef __SANITIZE_THREAD__
#define N_MUTANTS 2000
#else
#define N_MUTANTS 20000
#endif

/* Truncations and random corruption of a real encoding: rejected or
 * accepted consistently, never a crash (ASan watches). */
static void test_unpack_corrupt(void)
{
    pr_hist *h = pr_hist_new(), *back = pr_hist_new();
    msgpack_sbuffer sb;
    msgpack_packer pk;
    struct pr_error err;
    for (int i = 0; i < 20000; i++)
        pr_hist_record(h, sample(i % 2 ? SHAPE_LOGNORMAL : SHAPE_BIMODAL), 1 + rng_next() % 3);
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    CHECK(pr_hist_pack(h, &pk) == 0);
    CHECK(roundtrip_ok(h));
    for (size_t len = 0; len < sb.size; len++)
        CHECK(decode(back, sb.data, len, &err) != 0 && all_empty(back));
    char *buf = malloc(sb.size);
    int accepted = 0;
    for (int iter = 0; iter < N_MUTANTS; iter++) {
        memcpy(buf, sb.data, sb.size);
        for (int k = 0; k <= iter % 3; k++)
            buf[rng_next() % sb.size] = (char)rng_next();
        int rc = decode(back, buf, sb.size, &err);
        if (rc == 0) {
            accepted++;
            CHECK(roundtrip_ok(back));
        } else {
            CHECK(rc == 1 || all_empty(back));
        }
    }
    printf("corruption: %d of %d mutants accepted (consistent)\n", accepted, N_MUTANTS);
    free(buf);
    msgpack_sbuffer_destroy(&sb);
    pr_hist_destroy(&h);
    pr_hist_destroy(&back);
}

/* The sparse decoder reads pairs on a fast path while 18 bytes are left
 * and falls back to the checked one on anything unusual: a histogram of
 * 600 buckets, broken (or encoded unusually) at pair `at`, far from both
 * ends, decodes (or is refused) exactly as the dense and tree decoders
 * decode it (decode() compares all three). */
/* Bucket i's index in pack_fast_case: gaps of 3 (fixints), one of 203
 * (a uint8) and one of 303 (a uint16). */
static int32_t fast_index(uint32_t i)
{
    return 2 + 3 * (int32_t)i + (i >= 300 ? 200 : 0) + (i >= 450 ? 300 : 0);
}

static void pack_fast_case(msgpack_sbuffer *sb, int what, uint32_t at)
{
    enum { NB = 600 };
    uint64_t b[2 * NB], n = 0, sum = 0;
    for (uint32_t i = 0; i < NB; i++) {
        b[2 * i] = (uint64_t)fast_index(i);                     /* increasing; packed as gaps */
        b[2 * i + 1] = 1 + (i * 7919u) % (i % 3 ? 100 : 70000); /* fixint .. uint32 */
    }
    if (what == 1)
        b[2 * at] = b[2 * at - 2]; /* index not increasing */
    if (what == 2)
        b[2 * at + 1] = 0; /* zero count */
    if (what == 4)
        b[2 * at] = (uint64_t)pr_hist_counts_len(); /* index out of range */
    if (what == 5)
        b[2 * at + 1] = b[2 * at + 3] = UINT64_MAX / 2 + 1; /* the total overflows */
    for (uint32_t i = 0; i < NB; i++)
        n += b[2 * i + 1], sum += b[2 * i + 1] * pr_hist_value_at_index((int32_t)b[2 * i]);
    uint64_t min = pr_hist_value_at_index((int32_t)b[0]);
    uint64_t max = pr_hist_value_at_index((int32_t)b[2 * NB - 2]);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 6);
    const char *keys[5] = {"n", "min", "max", "sum", "clamp"};
    uint64_t vals[5] = {n, min, max, sum, 0};
    for (int k = 0; k < 5; k++) {
        msgpack_pack_str_with_body(&pk, keys[k], strlen(keys[k]));
        msgpack_pack_uint64(&pk, vals[k]);
    }
    msgpack_pack_str_with_body(&pk, "b", 1);
    msgpack_pack_array(&pk, 2 * NB);
    for (uint32_t i = 0; i < 2 * NB; i++) {
        /* an index goes as its gap from the one before (pr_hist.h) */
        uint64_t v = i % 2 == 0 && i > 0 ? b[i] - b[i - 2] : b[i];
        if (what == 3 && i == 2 * at + 1)
            msgpack_pack_fix_int32(&pk, (int32_t)v); /* valid: an int >= 0 */
        else if (what == 6 && i == 2 * at)
            msgpack_pack_fix_uint64(&pk, v); /* valid: the widest uint */
        else
            msgpack_pack_uint64(&pk, v);
    }
}

static void test_unpack_fast_path(void)
{
    static const int want[7] = {0, PR_EBAD_HIST, PR_EBAD_HIST, 0, PR_ERANGE, PR_EBAD_HIST, 0};
    pr_hist *h = pr_hist_new();
    for (int what = 0; what < 7; what++) {
        for (uint32_t at = 1; at < 600; at += 149) {
            msgpack_sbuffer sb;
            struct pr_error err = {0, ""};
            msgpack_sbuffer_init(&sb);
            pack_fast_case(&sb, what, at);
            int rc = decode(h, sb.data, sb.size, &err);
            CHECK_MSG(rc == want[what], "case %d at pair %u: %s (%s), want %s", what, at,
                      pr_errname(rc), err.msg, pr_errname(want[what]));
            if (rc == 0)
                CHECK(pr_hist_count_at_index(h, fast_index(at)) > 0);
            msgpack_sbuffer_destroy(&sb);
        }
    }
    pr_hist_destroy(&h);
}

int main(void)
{
    uint64_t *v = malloc(NSAMPLES * sizeof(*v));
    test_layout();
    test_basics();
    test_rank_rounding();
    for (int s = 0; s < SHAPE_COUNT; s++)
        test_percentiles((enum shape)s, v);
    test_merge();
    test_unpack_strict();
    test_unpack_raw_bytes();
    test_unpack_corrupt();
    test_unpack_fast_path();
    free(v);
    return TEST_END();
}
