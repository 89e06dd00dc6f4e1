/* testrng: the deterministic random numbers of the C tests and benches
 * (splitmix64), so that a failure reproduces. Define TESTRNG_SEED before
 * including to pick the sequence; each file gets its own state. */
#ifndef TESTRNG_H
#define TESTRNG_H

#include <math.h>
#include <stdint.h>

#ifndef TESTRNG_SEED
#error "define TESTRNG_SEED before including testrng.h"
#endif

static uint64_t rng_state = TESTRNG_SEED;

/* The next 64 random bits. */
static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1), never 0 (log() takes it). */
static inline double rng_unit(void)
{
    return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static inline double rng_normal(void)
{
    double u1 = rng_unit();
    double u2 = rng_unit();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* A log-normal latency in whole microseconds. */
static inline uint64_t lognormal_us(double median_us, double sigma)
{
    return (uint64_t)llround(median_us * exp(sigma * rng_normal()));
}

#endif
