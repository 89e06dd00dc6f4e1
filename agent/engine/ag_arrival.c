/* ag_arrival: arrival schedules (see ag_arrival.h). */
#include "ag_arrival.h"

#include <math.h>

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Uniform in [0, 1). */
static double rng_double(struct ag_arrival *a)
{
    uint64_t s0 = a->rng[0], s1 = a->rng[1], r = s0 + s1;
    s1 ^= s0;
    a->rng[0] = rotl(s0, 55) ^ s1 ^ (s1 << 14);
    a->rng[1] = rotl(s1, 36);
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void ag_arrival_init(struct ag_arrival *a, double rate, bool uniform, uint64_t seed)
{
    a->gap_mean_ns = rate > 0 ? 1e9 / rate : 0;
    a->uniform = uniform;
    a->rng[0] = splitmix(&seed);
    a->rng[1] = splitmix(&seed) | 1;
}

uint64_t ag_arrival_first_ns(struct ag_arrival *a)
{
    if (a->uniform)
        return (uint64_t)(rng_double(a) * a->gap_mean_ns);
    return ag_arrival_gap_ns(a);
}

uint64_t ag_arrival_gap_ns(struct ag_arrival *a)
{
    if (a->uniform)
        return (uint64_t)a->gap_mean_ns;
    return (uint64_t)(-a->gap_mean_ns * log(1.0 - rng_double(a)));
}
