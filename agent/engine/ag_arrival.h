/* ag_arrival: the arrival schedule of a worker's open loop (--rate,
 * --rate-mode; docs/design.md §6.3, §7.3).
 *
 * Gaps between intended starts are drawn one at a time, in order:
 * Poisson (exponential gaps -mean*ln(1-u), as sysbench) or uniform (every
 * gap exactly the mean). The first arrival comes one gap after t0 for
 * Poisson, and at a random phase of one gap for uniform, so the workers of
 * a run do not all fire at the same instants. The stream is a function of
 * the seed (xoroshiro128+ seeded through splitmix64).
 *
 * Plain data, owned by its worker; no allocation; one thread.
 */
#ifndef AG_ARRIVAL_H
#define AG_ARRIVAL_H

#include <stdbool.h>
#include <stdint.h>

struct ag_arrival {
    uint64_t rng[2];    /* xoroshiro128+ state */
    double gap_mean_ns; /* 1e9 / rate; 0 for no rate */
    bool uniform;       /* every gap gap_mean_ns */
};

/* rate events/s (> 0 for a schedule), uniform or Poisson, from seed. */
void ag_arrival_init(struct ag_arrival *a, double rate, bool uniform, uint64_t seed);
/* The first arrival's offset from t0, ns. */
uint64_t ag_arrival_first_ns(struct ag_arrival *a);
/* The gap to the next arrival, ns. */
uint64_t ag_arrival_gap_ns(struct ag_arrival *a);

#endif
