/* co_capsearch: a capacity search's next rate (co_capsearch.h). */
#include "co_capsearch.h"

bool co_capsearch_ok(bool slo_passed, double arrivals, double completed)
{
    return slo_passed && arrivals > 0 && completed >= CO_CAPSEARCH_KEPT_UP * arrivals;
}

void co_capsearch_bracket(const struct co_capstep *steps, size_t n, uint32_t *good, uint32_t *bad)
{
    *good = 0;
    *bad = 0;
    for (size_t i = 0; i < n; i++)
        if (steps[i].ok && steps[i].rate > *good)
            *good = steps[i].rate;
    for (size_t i = 0; i < n; i++)
        if (!steps[i].ok && steps[i].rate > *good && (*bad == 0 || steps[i].rate < *bad))
            *bad = steps[i].rate;
}

uint32_t co_capsearch_next(const struct co_capstep *steps, size_t n,
                           const struct co_capsearch_cfg *cfg, enum co_capsearch_end *end)
{
    uint32_t good, bad;
    co_capsearch_bracket(steps, n, &good, &bad);
    *end = CO_CAPSEARCH_GO;
    if (n == 0)
        return cfg->start;
    if (good == 0) {
        *end = CO_CAPSEARCH_START_MISSED;
        return 0;
    }
    if (bad != 0 && (bad - good <= 1 || (double)(bad - good) * 100.0 / good <= cfg->precision_pct))
        *end = CO_CAPSEARCH_FOUND;
    else if (n >= cfg->max_trials)
        *end = CO_CAPSEARCH_MAX_TRIALS;
    else if (bad == 0 && good >= cfg->max_rate)
        *end = CO_CAPSEARCH_MAX_RATE;
    if (*end != CO_CAPSEARCH_GO)
        return 0;
    if (bad == 0) /* the ramp */
        return (uint64_t)good * 2 > cfg->max_rate ? cfg->max_rate : good * 2;
    return good + (bad - good) / 2;
}
