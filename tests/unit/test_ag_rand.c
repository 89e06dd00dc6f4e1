/* test_ag_rand: sysbench's PRNG and distributions (docs/design.md
 * §13.1, Random numbers): bit-exact against sysbench 1.0.20 and shape checks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ag_rand.h"
#include "testlib.h"

/* sysbench seeds a worker thread's xoroshiro128+ with four random() calls
 * after srandom(--rand-seed). */
static void sysbench_state(struct ag_rand *r, unsigned seed)
{
    srandom(seed);
    uint64_t a = (uint64_t)random(), b = (uint64_t)random();
    uint64_t c = (uint64_t)random(), d = (uint64_t)random();
    ag_rand_set_state(r, (a << 32) | (b & UINT32_MAX), (c << 32) | (d & UINT32_MAX));
}

/* Reference output of the real sysbench 1.0.20 (Debian 1.0.20+ds-5):
 *   sysbench --rand-seed=1 --events=1 --time=0 --percentile=0 r.lua run
 * where r.lua's event() prints 5x rand.uniform(1,10000), 5x special,
 * 3x gaussian, 3x pareto (all 1..10000) and rand.string("###-@@@"). */
static void test_bit_exact_vs_sysbench(void)
{
    static const uint32_t want[] = {8117, 3762, 8948, 6213, 8021, 5013, 4991, 5954,
                                    4981, 5025, 4774, 5400, 4575, 2731, 1,    3578};
    struct ag_rand r;
    struct ag_dist d;
    uint32_t got[16];
    size_t n = 0;
    char s[7];

    CHECK(ag_dist_init(&d, "special", 12, 1, 75, 0.2, 0.8, NULL) == 0);
    sysbench_state(&r, 1);
    for (int i = 0; i < 5; i++)
        got[n++] = ag_rand_uniform(&r, 1, 10000);
    for (int i = 0; i < 5; i++)
        got[n++] = ag_rand_special(&d, &r, 1, 10000);
    for (int i = 0; i < 3; i++)
        got[n++] = ag_rand_gaussian(&d, &r, 1, 10000);
    for (int i = 0; i < 3; i++)
        got[n++] = ag_rand_pareto(&d, &r, 1, 10000);
    ag_rand_string(&r, "###-@@@", 7, s);
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(got[i] == want[i], "draw %zu: got %u want %u", i, got[i], want[i]);
    CHECK(memcmp(s, "874-bkk", 7) == 0);
}

static void test_seeding(void)
{
    struct ag_rand a, b, c;

    ag_rand_init(&a, 42);
    ag_rand_init(&b, 42);
    ag_rand_init(&c, 43);
    CHECK(a.s[0] != 0 || a.s[1] != 0);
    bool same = true, differ = false;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = ag_rand_u64(&a), y = ag_rand_u64(&b), z = ag_rand_u64(&c);
        same = same && x == y;
        differ = differ || x != z;
    }
    CHECK(same);
    CHECK(differ);
    ag_rand_init(&a, 0); /* seed 0 must still give a valid state */
    CHECK(a.s[0] != 0 || a.s[1] != 0);
}

static void test_uniform(void)
{
    struct ag_rand r;
    uint64_t hits[11] = {0};
    double sum = 0, dmin = 1, dmax = 0;
    const int n = 1000000;

    ag_rand_init(&r, 1);
    for (int i = 0; i < n; i++) {
        uint32_t v = ag_rand_uniform(&r, 1, 10);
        CHECK(v >= 1 && v <= 10);
        if (v <= 10)
            hits[v]++;
        double d = ag_rand_double(&r);
        sum += d;
        dmin = d < dmin ? d : dmin;
        dmax = d > dmax ? d : dmax;
    }
    for (int v = 1; v <= 10; v++)
        CHECK_MSG(fabs((double)hits[v] / n - 0.1) < 0.003, "value %d: %" PRIu64, v, hits[v]);
    CHECK(dmin >= 0 && dmax < 1);
    CHECK(fabs(sum / n - 0.5) < 0.002);
    CHECK(ag_rand_uniform(&r, 7, 7) == 7);
}

/* Section 5.2: special(1,10000) puts ~75.8% of draws in 4975..5051. */
static void test_special(void)
{
    struct ag_rand r;
    struct ag_dist d;
    const int n = 200000;
    int in_band = 0;
    uint32_t lo = UINT32_MAX, hi = 0;

    CHECK(ag_dist_init(&d, "special", 12, 1, 75, 0.2, 0.8, NULL) == 0);
    ag_rand_init(&r, 7);
    for (int i = 0; i < n; i++) {
        uint32_t v = ag_dist_draw(&d, &r, 1, 10000);
        in_band += v >= 4975 && v <= 5051;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    double frac = (double)in_band / n;
    printf("special(1,10000): %.4f in 4975..5051, min %u max %u\n", frac, lo, hi);
    CHECK_MSG(fabs(frac - 0.758) < 0.01, "fraction %.4f", frac);
    CHECK(lo >= 1 && hi <= 10000);
    CHECK(lo > 1000 && hi < 9000); /* gaussian branch: 12-sum, never near the ends */
}

static void test_gaussian_pareto(void)
{
    struct ag_rand r;
    struct ag_dist d;
    const int n = 200000;
    double s = 0, s2 = 0, ps = 0;

    CHECK(ag_dist_init(&d, "gaussian", 12, 1, 75, 0.2, 0.8, NULL) == 0);
    ag_rand_init(&r, 9);
    for (int i = 0; i < n; i++) {
        double v = ag_dist_draw(&d, &r, 1, 10000);
        s += v;
        s2 += v * v;
    }
    double mean = s / n, sd = sqrt(s2 / n - mean * mean);
    printf("gaussian(1,10000): mean %.1f sd %.1f\n", mean, sd);
    CHECK_MSG(fabs(mean - 5000.5) < 15, "mean %.1f", mean);
    CHECK_MSG(fabs(sd - 10000.0 / 12) < 15, "sd %.1f", sd); /* t/sqrt(12*12) */

    CHECK(ag_dist_init(&d, "pareto", 12, 1, 75, 0.2, 0.8, NULL) == 0);
    CHECK(fabs(d.pareto_power - 7.2126) < 1e-3);
    for (int i = 0; i < n; i++) {
        uint32_t v = ag_dist_draw(&d, &r, 1, 10000);
        CHECK(v >= 1 && v <= 10000);
        ps += v;
    }
    printf("pareto(1,10000): mean %.1f\n", ps / n);
    CHECK_MSG(fabs(ps / n - 1211) < 30, "mean %.1f", ps / n);
}

/* Zipf: P(k) proportional to k^-e. */
static void test_zipfian(void)
{
    struct ag_rand r;
    struct ag_dist d;
    const int n = 400000;
    static uint32_t hits[1001];

    CHECK(ag_dist_init(&d, "zipfian", 12, 1, 75, 0.2, 0.8, NULL) == 0);
    ag_rand_init(&r, 11);
    for (int i = 0; i < n; i++) {
        uint32_t v = ag_dist_draw(&d, &r, 1, 1000);
        CHECK(v >= 1 && v <= 1000);
        if (v >= 1 && v <= 1000)
            hits[v]++;
    }
    double norm = 0;
    for (int k = 1; k <= 1000; k++)
        norm += pow(k, -0.8);
    for (int k = 1; k <= 4; k++) {
        double want = pow(k, -0.8) / norm;
        double got = (double)hits[k] / n;
        CHECK_MSG(fabs(got / want - 1) < 0.03, "k=%d got %.5f want %.5f", k, got, want);
    }
    /* shifted range [a, b] */
    for (int i = 0; i < 1000; i++) {
        uint32_t v = ag_dist_draw(&d, &r, 500, 509);
        CHECK(v >= 500 && v <= 509);
    }
}

static void test_dist_errors(void)
{
    struct ag_dist d;
    struct pr_error err = {0};

    CHECK(ag_dist_init(&d, "bogus", 12, 1, 75, 0.2, 0.8, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "--rand-type") != NULL);
    CHECK(ag_dist_init(&d, "special", 0, 1, 75, 0.2, 0.8, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "--rand-spec-iter") != NULL);
    CHECK(ag_dist_init(&d, "special", 12, 1, 100, 0.2, 0.8, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "--rand-spec-res") != NULL);
    CHECK(ag_dist_init(&d, "pareto", 12, 1, 75, 1.5, 0.8, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "--rand-pareto-h") != NULL);
    CHECK(ag_dist_init(&d, "zipfian", 12, 1, 75, 0.2, -1, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "--rand-zipfian-exp") != NULL);
}

static void test_string(void)
{
    struct ag_rand r;
    const char tmpl[] = "ab#@-##@@x";
    char out[sizeof tmpl + 1];
    bool digits_vary = false;
    char first = 0;

    ag_rand_init(&r, 3);
    for (int i = 0; i < 1000; i++) {
        memset(out, '!', sizeof out);
        ag_rand_string(&r, tmpl, sizeof tmpl - 1, out);
        for (size_t j = 0; j < sizeof tmpl - 1; j++) {
            if (tmpl[j] == '#')
                CHECK(out[j] >= '0' && out[j] <= '9');
            else if (tmpl[j] == '@')
                CHECK(out[j] >= 'a' && out[j] <= 'z');
            else
                CHECK(out[j] == tmpl[j]);
        }
        CHECK(out[sizeof tmpl - 1] == '!'); /* no NUL, no overrun */
        if (i == 0)
            first = out[2];
        digits_vary = digits_vary || out[2] != first;
    }
    CHECK(digits_vary);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void test_unique(void)
{
    const size_t n = 1000000;
    uint32_t *v = malloc(n * sizeof *v);
    struct ag_rand_unique u;
    size_t dups = 0;

    ag_rand_unique_init(&u, 12345, 67890);
    for (size_t i = 0; i < n; i++)
        v[i] = ag_rand_unique_next(&u);
    bool scrambled = v[1] != v[0] + 1;
    qsort(v, n, sizeof *v, cmp_u32);
    for (size_t i = 1; i < n; i++)
        dups += v[i] == v[i - 1];
    CHECK_EQ_U64(dups, 0);
    CHECK(scrambled);
    free(v);
}

int main(void)
{
    test_bit_exact_vs_sysbench();
    test_seeding();
    test_uniform();
    test_special();
    test_gaussian_pareto();
    test_zipfian();
    test_dist_errors();
    test_string();
    test_unique();
    return TEST_END();
}
