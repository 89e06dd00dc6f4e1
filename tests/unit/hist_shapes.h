/* hist_shapes: the latency shapes the pr_hist tests draw samples from
 * (test_pr_hist.c, test_pr_hist_frozen.c), drawn with testrng.h's generator:
 * define TESTRNG_SEED before including. */
#ifndef HIST_SHAPES_H
#define HIST_SHAPES_H

#include <math.h>
#include <stdint.h>

#include "testrng.h"

static inline uint64_t to_us(double v)
{
    return v < 1.0 ? 1 : (uint64_t)llround(v);
}

enum shape { SHAPE_UNIFORM, SHAPE_LOGNORMAL, SHAPE_BIMODAL, SHAPE_COUNT };

static inline uint64_t sample(enum shape s)
{
    switch (s) {
    case SHAPE_UNIFORM:
        return 1 + rng_next() % 1000000;
    case SHAPE_LOGNORMAL:
        return to_us(exp(log(2000.0) + rng_normal()));
    default: /* 90% around 100 us, 10% around 100 ms: a 1000x spread */
        if (rng_next() % 10 != 0)
            return to_us(100.0 + 10.0 * rng_normal());
        return to_us(100000.0 + 10000.0 * rng_normal());
    }
}

#endif
