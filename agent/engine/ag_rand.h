/* ag_rand: sysbench's random numbers (docs/design.md §13.1).
 *
 * xoroshiro128+ with sysbench's uniform_double(), and the distributions
 * sysbench offers through --rand-type: uniform, gaussian, special (1.0.20's
 * default), pareto, and zipfian as in sysbench master (rejection-inversion
 * bounded Zipf, Hoermann-Derflinger). Plus rand.string templates and the
 * rand.unique() quadratic-residue permutation.
 *
 * All state is plain data owned by the caller (one struct ag_rand per
 * connection); nothing here allocates or takes locks. double->uint32
 * conversions go through int64 as x86-64 sysbench builds do, so results
 * match bit for bit for the same state.
 *
 * Deviation: seeding is from a 64-bit seed through splitmix64, not from libc
 * random() (see ag_sb_workload.h).
 */
#ifndef AG_RAND_H
#define AG_RAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"

/* xoroshiro128+ state. Plain data: caller allocates, ag_rand_init fills. */
struct ag_rand {
    uint64_t s[2]; /* never both zero */
};

/* Seed r from a 64-bit seed: s[0], s[1] = two splitmix64 outputs. */
void ag_rand_init(struct ag_rand *r, uint64_t seed);

/* Set the raw state as sysbench would (for bit-exact comparisons). s0 and s1
 * must not both be 0. */
void ag_rand_set_state(struct ag_rand *r, uint64_t s0, uint64_t s1);

/* Next raw 64-bit output of xoroshiro128+. */
uint64_t ag_rand_u64(struct ag_rand *r);

/* Uniform double in [0,1) from the top 52 bits, exactly as sysbench. */
double ag_rand_double(struct ag_rand *r);

/* sysbench.rand.uniform(a, b): a + u*(b-a+1), in [a, b]. One draw. */
uint32_t ag_rand_uniform(struct ag_rand *r, uint32_t a, uint32_t b);

enum ag_dist_type {
    AG_DIST_UNIFORM,
    AG_DIST_GAUSSIAN,
    AG_DIST_SPECIAL,
    AG_DIST_PARETO,
    AG_DIST_ZIPFIAN,
};

/* A configured distribution (--rand-type and its parameters), with the
 * constants sysbench precomputes. Plain, immutable after init; shareable
 * read-only across threads. */
struct ag_dist {
    enum ag_dist_type type; /* which generator default() uses */
    uint32_t iter;          /* --rand-spec-iter (gaussian and special) */
    uint32_t pct;           /* --rand-spec-pct */
    uint32_t res;           /* --rand-spec-res */
    double res_mult;        /* 100 / (100 - res) */
    double pct_mult;        /* pct / 100 */
    double pct2_mult;       /* pct / 200 */
    double pareto_power;    /* ln(h) / ln(1 - h) */
    double zipf_exp;        /* --rand-zipfian-exp */
    double zipf_s;          /* rejection shortcut constant */
    double zipf_hx1;        /* H(1.5) - 1 */
};

/* Configure d. type: "uniform", "gaussian", "special", "pareto", "zipfian".
 * Returns 0, or PR_EINVAL with err naming the bad option (--rand-type,
 * --rand-spec-iter >= 1, --rand-spec-pct 0..100, --rand-spec-res 0..99,
 * --rand-pareto-h in (0,1), --rand-zipfian-exp >= 0). */
int ag_dist_init(struct ag_dist *d, const char *type, int64_t iter, int64_t pct, int64_t res,
                 double pareto_h, double zipf_exp, struct pr_error *err);

/* sysbench.rand.default(a, b): the generator d->type selects. a <= b. */
uint32_t ag_dist_draw(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b);

/* The individual generators (a <= b). gaussian: iter draws; special: 1 or
 * 1+iter draws; pareto: 1 draw; zipfian: >= 1 draws (rejection loop). */
uint32_t ag_rand_gaussian(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b);
uint32_t ag_rand_special(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b);
uint32_t ag_rand_pareto(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b);
uint32_t ag_rand_zipfian(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b);

/* sysbench.rand.string: out[i] = a digit for '#', a lowercase letter for '@',
 * tmpl[i] otherwise, for i < len. One draw per '#' or '@'. No NUL added. */
void ag_rand_string(struct ag_rand *r, const char *tmpl, size_t len, char *out);

/* rand.unique(): a permutation of the uint32 space. Plain state. */
struct ag_rand_unique {
    uint32_t index;  /* next permutation input */
    uint32_t offset; /* permutation offset (shared by a run's connections) */
};

/* Seed as sysbench's rand_unique_seed(index, offset) does (both values are
 * scrambled through the permutation). */
void ag_rand_unique_init(struct ag_rand_unique *u, uint32_t index, uint32_t offset);

/* Next unique value: perm((perm(index++) + offset) ^ 0x5bf03635). Distinct
 * for distinct inputs under one offset (a bijection of uint32). */
uint32_t ag_rand_unique_next(struct ag_rand_unique *u);

/* splitmix64 step (exposed for seed derivation): advances *x, returns output. */
uint64_t ag_splitmix64(uint64_t *x);

#endif
