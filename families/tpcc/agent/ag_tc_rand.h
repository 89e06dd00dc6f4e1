/* ag_tc_rand: TPC-C's random inputs as tpcc-mysql draws them
 * (docs/design.md §13.2), on ag_rand's generator.
 *
 * U[a..b] is ag_rand_uniform(). NURand(A, x, y) = (((U[0..A] | U[x..y]) + C)
 * % (y - x + 1)) + x with one C per A, fixed for the whole run and the
 * same on every agent (ag_tc_consts_init(0), the loader's constants, as the
 * family and the loader both call it): tpcc-mysql
 * leaves C undefined after its first call (a known defect); we follow the
 * spec (clause 2.1.6): C_LAST of the run differs from the load's by a delta
 * in [65..119], 96 and 112 excluded.
 *
 * Plain functions on caller-owned state: no allocation, no locks.
 */
#ifndef AG_TC_RAND_H
#define AG_TC_RAND_H

#include <stddef.h>
#include <stdint.h>

#include "ag_rand.h"

#define AG_TC_LASTNAME_MAX 15 /* longest Lastname(): 3 x "OUGHT"/"ATION"... */

/* The NURand constants of a load and of a run. */
struct ag_tc_consts {
    uint32_t c_last_load; /* C for A = 255 in the loader (c_last of c_id > 1000) */
    uint32_t c_last_run;  /* C for A = 255 in the transactions */
    uint32_t c_id;        /* C for A = 1023 (customer ids) */
    uint32_t ol_i_id;     /* C for A = 8191 (item ids) */
};

/* The constants of a data set, from a seed (every agent of a run, and the
 * load and runs of one data set, pass the same seed). */
void ag_tc_consts_init(struct ag_tc_consts *c, uint64_t seed);

/* NURand(A, x, y) with constant C. A is 255, 1023 or 8191. */
uint32_t ag_tc_nurand(struct ag_rand *r, uint32_t a, uint32_t x, uint32_t y, uint32_t c);

/* Lastname(n), n in 0..999: the syllables n/100, (n/10)%10, n%10 of BAR,
 * OUGHT, ABLE, PRI, PRES, ESE, ANTI, CALLY, ATION, EING. Writes the name and
 * a NUL into buf (at least AG_TC_LASTNAME_MAX + 1 bytes); returns its
 * length. */
size_t ag_tc_lastname(uint32_t n, char *buf);

/* alnum(lo..hi): U[lo..hi] characters from 0-9A-Za-z into buf (at least
 * hi + 1 bytes), NUL terminated; returns the length. */
size_t ag_tc_alnum(struct ag_rand *r, char *buf, uint32_t lo, uint32_t hi);

/* digits(n): exactly n random decimal digits into buf (n + 1 bytes), NUL
 * terminated. */
void ag_tc_digits(struct ag_rand *r, char *buf, uint32_t n);

/* other_ware(w): U[1..W] redrawn until it differs from w; w when W == 1. */
uint32_t ag_tc_other_ware(struct ag_rand *r, uint32_t w, uint32_t warehouses);

#endif
