/* co_capsearch: the decisions of a capacity search (`run --find-capacity`,
 * co_capacity.h), pure: from the steps so far, the next rate to try or why
 * the search ends. A geometric ramp (x2) from the start rate while the SLO
 * holds, then bisection between the highest rate that held (good) and the
 * lowest above it that did not (bad), until (bad - good) / good is within
 * the precision, the trials run out, or the rates do. */
#ifndef CO_CAPSEARCH_H
#define CO_CAPSEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A trial's outcome: the rate offered, and whether it met the SLO. */
struct co_capstep {
    uint32_t rate; /* events/s offered */
    bool ok;       /* co_capsearch_ok */
};

struct co_capsearch_cfg {
    uint32_t start;       /* the first rate, >= 1 */
    double precision_pct; /* stop when (bad - good) / good * 100 <= this */
    uint32_t max_trials;  /* at most this many steps */
    uint32_t max_rate;    /* the ramp does not offer more */
};

enum co_capsearch_end {
    CO_CAPSEARCH_GO,           /* try the rate returned */
    CO_CAPSEARCH_FOUND,        /* good..bad within the precision */
    CO_CAPSEARCH_START_MISSED, /* the start rate missed the SLO: no capacity */
    CO_CAPSEARCH_MAX_TRIALS,   /* out of trials: good..bad (or good..) as far as it got */
    CO_CAPSEARCH_MAX_RATE,     /* the ramp reached max_rate still meeting the SLO */
};

/* A trial met the SLO: its thresholds passed, and the open loop kept up:
 * it completed at least CO_CAPSEARCH_KEPT_UP of the arrivals due in the
 * trial (one that cannot keep up is over capacity too). Arrivals, not the
 * offered rate: Poisson arrivals at 20/s over 3 s number 60 +- 7.7, so a
 * server that served every one could look 12% short of the rate offered. */
#define CO_CAPSEARCH_KEPT_UP 0.9
bool co_capsearch_ok(bool slo_passed, double arrivals, double completed);

/* The bracket of steps[0..n): *good the highest ok rate (0: none), *bad
 * the lowest not-ok rate above it (0: none). */
void co_capsearch_bracket(const struct co_capstep *steps, size_t n, uint32_t *good, uint32_t *bad);

/* The next rate to offer (with *end CO_CAPSEARCH_GO), or 0 with *end
 * saying why the search is over. */
uint32_t co_capsearch_next(const struct co_capstep *steps, size_t n,
                           const struct co_capsearch_cfg *cfg, enum co_capsearch_end *end);

#endif
