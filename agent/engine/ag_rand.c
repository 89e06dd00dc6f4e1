/* ag_rand: sysbench's PRNG and distributions. See ag_rand.h. */
#include "ag_rand.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* double -> uint32 as x86-64 sysbench does it: truncate through a 64-bit
 * integer (cvttsd2si) and keep the low 32 bits. Values here are >= 0 and far
 * below 2^63, so this is defined C with the same result. */
static inline uint32_t d2u32(double x)
{
    return (uint32_t)(int64_t)x;
}

uint64_t ag_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void ag_rand_init(struct ag_rand *r, uint64_t seed)
{
    uint64_t x = seed;
    r->s[0] = ag_splitmix64(&x);
    r->s[1] = ag_splitmix64(&x);
    if (r->s[0] == 0 && r->s[1] == 0) /* xoroshiro's one forbidden state */
        r->s[1] = 1;
}

void ag_rand_set_state(struct ag_rand *r, uint64_t s0, uint64_t s1)
{
    assert(s0 != 0 || s1 != 0);
    r->s[0] = s0;
    r->s[1] = s1;
}

static inline uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t ag_rand_u64(struct ag_rand *r)
{
    const uint64_t s0 = r->s[0];
    uint64_t s1 = r->s[1];
    const uint64_t out = s0 + s1;

    s1 ^= s0;
    r->s[0] = rotl64(s0, 55) ^ s1 ^ (s1 << 14);
    r->s[1] = rotl64(s1, 36);
    return out;
}

double ag_rand_double(struct ag_rand *r)
{
    /* Exponent 0x3FF with the top 52 bits as mantissa gives [1,2). */
    uint64_t bits = (UINT64_C(0x3FF) << 52) | (ag_rand_u64(r) >> 12);
    double d;

    memcpy(&d, &bits, sizeof d);
    return d - 1.0;
}

uint32_t ag_rand_uniform(struct ag_rand *r, uint32_t a, uint32_t b)
{
    /* b - a + 1 is uint32 arithmetic in sysbench too. */
    return d2u32(a + ag_rand_double(r) * (uint32_t)(b - a + 1));
}

uint32_t ag_rand_gaussian(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b)
{
    double t = (uint32_t)(b - a + 1);
    double sum = 0;

    for (uint32_t i = 0; i < d->iter; i++)
        sum += ag_rand_double(r) * t;
    return a + d2u32(sum / d->iter);
}

uint32_t ag_rand_special(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b)
{
    double t = (uint32_t)(b - a);
    double rnd = ag_rand_double(r);
    double res = rnd * (t * d->res_mult);

    if (res < t) {
        /* (100 - res)% of draws: gaussian-like over [a, b-1]. */
        double sum = 0.0;
        for (uint32_t i = 0; i < d->iter; i++)
            sum += ag_rand_double(r);
        return d2u32(a + sum * t / d->iter);
    }
    /* The rest: uniform over a pct% window placed mid-range, reusing rnd
     * (so only its upper part is reached, as in sysbench). */
    double width = t * d->pct_mult;
    res = rnd * (width + 1);
    res += t / 2 - t * d->pct2_mult;
    return a + d2u32(res);
}

uint32_t ag_rand_pareto(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b)
{
    return a + d2u32((uint32_t)(b - a + 1) * pow(ag_rand_double(r), d->pareto_power));
}

/* Zipf helpers (Apache Commons RNG's rejection-inversion sampler, as ported
 * into sysbench master). h(x) = x^-e; H is its integral, written so that it
 * has a limit at e == 1. */
static double zipf_log1p_over_x(double x)
{
    if (fabs(x) > 1e-8)
        return log1p(x) / x;
    return 1 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

static double zipf_expm1_over_x(double x)
{
    if (fabs(x) > 1e-8)
        return expm1(x) / x;
    return 1 + x * 0.5 * (1 + x * (1.0 / 3.0) * (1 + 0.25 * x));
}

static double zipf_H(double x, double e)
{
    double lx = log(x);
    return zipf_expm1_over_x((1 - e) * lx) * lx;
}

static double zipf_h(double x, double e)
{
    return exp(-e * log(x));
}

static double zipf_H_inv(double x, double e)
{
    double t = x * (1 - e);
    if (t < -1) /* numerical noise; the true value is >= -1 */
        t = -1;
    return exp(zipf_log1p_over_x(t) * x);
}

uint32_t ag_rand_zipfian(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b)
{
    uint32_t n = b - a + 1;
    double e = d->zipf_exp;
    double h_n = zipf_H(n + 0.5, e);

    for (;;) {
        double u = h_n + ag_rand_double(r) * (d->zipf_hx1 - h_n);
        double x = zipf_H_inv(u, e);
        uint32_t k = d2u32(x + 0.5);

        if (k < 1)
            k = 1;
        else if (k > n)
            k = n;
        /* Accept k with probability proportional to k^-e (see the paper). */
        if (k - x <= d->zipf_s || u >= zipf_H(k + 0.5, e) - zipf_h(k, e))
            return a + k - 1;
    }
}

uint32_t ag_dist_draw(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b)
{
    switch (d->type) {
    case AG_DIST_UNIFORM:
        return ag_rand_uniform(r, a, b);
    case AG_DIST_GAUSSIAN:
        return ag_rand_gaussian(d, r, a, b);
    case AG_DIST_SPECIAL:
        return ag_rand_special(d, r, a, b);
    case AG_DIST_PARETO:
        return ag_rand_pareto(d, r, a, b);
    case AG_DIST_ZIPFIAN:
        return ag_rand_zipfian(d, r, a, b);
    }
    return a;
}

static int dist_type_from_name(const char *type)
{
    static const char *const names[] = {"uniform", "gaussian", "special", "pareto", "zipfian"};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(type, names[i]) == 0)
            return (int)i;
    return -1;
}

int ag_dist_init(struct ag_dist *d, const char *type, int64_t iter, int64_t pct, int64_t res,
                 double pareto_h, double zipf_exp, struct pr_error *err)
{
    int t = dist_type_from_name(type);

    if (t < 0)
        return pr_error_set(err, PR_EINVAL,
                            "--rand-type: invalid random numbers distribution '%s' (uniform, "
                            "gaussian, special, pareto, zipfian)",
                            type);
    if (iter < 1 || iter > 1000000)
        return pr_error_set(err, PR_EINVAL, "--rand-spec-iter: %lld is not in 1..1000000",
                            (long long)iter);
    if (pct < 0 || pct > 100)
        return pr_error_set(err, PR_EINVAL, "--rand-spec-pct: %lld is not in 0..100",
                            (long long)pct);
    if (res < 0 || res > 99)
        return pr_error_set(err, PR_EINVAL, "--rand-spec-res: %lld is not in 0..99",
                            (long long)res);
    if (!(pareto_h > 0 && pareto_h < 1))
        return pr_error_set(err, PR_EINVAL, "--rand-pareto-h: %g is not in (0, 1)", pareto_h);
    if (!(zipf_exp >= 0))
        return pr_error_set(err, PR_EINVAL, "--rand-zipfian-exp: %g must be >= 0", zipf_exp);

    memset(d, 0, sizeof *d);
    d->type = (enum ag_dist_type)t;
    d->iter = (uint32_t)iter;
    d->pct = (uint32_t)pct;
    d->res = (uint32_t)res;
    d->res_mult = 100.0 / (100.0 - (double)res);
    d->pct_mult = (double)pct / 100.0;
    d->pct2_mult = (double)pct / 200.0;
    d->pareto_power = log(pareto_h) / log(1.0 - pareto_h);
    d->zipf_exp = zipf_exp;
    d->zipf_s = 2 - zipf_H_inv(zipf_H(2.5, zipf_exp) - zipf_h(2, zipf_exp), zipf_exp);
    d->zipf_hx1 = zipf_H(1.5, zipf_exp) - 1;
    return 0;
}

void ag_rand_string(struct ag_rand *r, const char *tmpl, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++) {
        if (tmpl[i] == '#')
            out[i] = (char)ag_rand_uniform(r, '0', '9');
        else if (tmpl[i] == '@')
            out[i] = (char)ag_rand_uniform(r, 'a', 'z');
        else
            out[i] = tmpl[i];
    }
}

/* Quadratic-residue permutation of uint32 (p = 4294967291, the largest prime
 * below 2^32; the 5 values >= p map to themselves). */
static uint32_t unique_permute(uint32_t x)
{
    const uint32_t p = UINT32_C(4294967291);

    if (x >= p)
        return x;
    uint32_t r = (uint32_t)(((uint64_t)x * x) % p);
    return x <= p / 2 ? r : p - r;
}

void ag_rand_unique_init(struct ag_rand_unique *u, uint32_t index, uint32_t offset)
{
    u->index = unique_permute(unique_permute(index) + UINT32_C(0x682f0161));
    u->offset = unique_permute(unique_permute(offset) + UINT32_C(0x46790905));
}

uint32_t ag_rand_unique_next(struct ag_rand_unique *u)
{
    uint32_t i = u->index++;
    return unique_permute((unique_permute(i) + u->offset) ^ UINT32_C(0x5bf03635));
}
