/* test_co_capsearch: the capacity search's decisions (co_capsearch.h),
 * driven against servers of a known capacity: the ramp doubles from the
 * start, the bisection halves the bracket, the search ends with a bracket
 * holding the capacity within the precision, and each way it ends early
 * says so: the start rate missed, the trials or the rates ran out. */
#include <math.h>

#include "co_capsearch.h"
#include "testlib.h"

/* Search a server that meets the SLO up to cap events/s: the rates
 * offered into rates[], their count returned, *end how it ended. */
static size_t drive(uint32_t cap, const struct co_capsearch_cfg *cfg, uint32_t *rates,
                    enum co_capsearch_end *end)
{
    struct co_capstep steps[64];
    size_t n = 0;
    for (;;) {
        uint32_t r = co_capsearch_next(steps, n, cfg, end);
        if (r == 0 || n == 64)
            return n;
        CHECK_MSG(*end == CO_CAPSEARCH_GO, "a rate with an end (%d)", (int)*end);
        rates[n] = r;
        steps[n++] = (struct co_capstep){r, r <= cap};
    }
}

static void test_ok(void)
{
    CHECK(co_capsearch_ok(true, 100, 100.0));
    CHECK(co_capsearch_ok(true, 100, 90.0));
    CHECK(!co_capsearch_ok(true, 100, 89.9)); /* the open loop fell behind */
    CHECK(!co_capsearch_ok(false, 100, 100.0));
    CHECK(!co_capsearch_ok(true, 100, NAN));
    CHECK(!co_capsearch_ok(true, 0, 0)); /* no arrival counted: nothing kept up with */
    CHECK(!co_capsearch_ok(true, NAN, 10));
}

/* The e2e test's case: SLEEP(0.01) on 4 connections holds ~390/s. */
static void test_sequence(void)
{
    struct co_capsearch_cfg cfg = {100, 5.0, 20, 1000000000u};
    uint32_t r[64], want[] = {100, 200, 400, 300, 350, 375, 387};
    enum co_capsearch_end end;
    size_t n = drive(390, &cfg, r, &end);
    CHECK_EQ_U64(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n && i < sizeof want / sizeof want[0]; i++)
        CHECK_MSG(r[i] == want[i], "step %zu: %u, not %u", i + 1, r[i], want[i]);
    CHECK(end == CO_CAPSEARCH_FOUND);
    struct co_capstep steps[] = {{100, 1}, {200, 1}, {400, 0}, {300, 1},
                                 {350, 1}, {375, 1}, {387, 1}};
    uint32_t good, bad;
    co_capsearch_bracket(steps, 7, &good, &bad);
    CHECK(good == 387 && bad == 400);
}

/* Any capacity from 1 to 10^6, any start under it: the bracket holds it,
 * within the precision, in few steps. */
static void test_many(void)
{
    const uint32_t caps[] = {1, 2, 7, 10, 99, 100, 101, 390, 1000, 4321, 65537, 999999, 1000000};
    const double precs[] = {0.1, 1, 5, 25};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++)
            for (uint32_t start = 1; start <= caps[i]; start = start * 7 + 3) {
                struct co_capsearch_cfg cfg = {start, precs[p], 64, 1000000000u};
                struct co_capstep steps[64];
                uint32_t r[64], good, bad;
                enum co_capsearch_end end;
                size_t n = drive(caps[i], &cfg, r, &end);
                for (size_t k = 0; k < n; k++)
                    steps[k] = (struct co_capstep){r[k], r[k] <= caps[i]};
                co_capsearch_bracket(steps, n, &good, &bad);
                CHECK_MSG(end == CO_CAPSEARCH_FOUND && good <= caps[i] && caps[i] < bad &&
                              (bad - good <= 1 || (double)(bad - good) * 100.0 / good <= precs[p]),
                          "cap %u start %u precision %g: end %d, bracket %u..%u", caps[i], start,
                          precs[p], (int)end, good, bad);
                CHECK_MSG(n <= 2 * 22, "cap %u start %u: %zu steps", caps[i], start, n);
            }
}

static void test_ends(void)
{
    uint32_t r[64];
    enum co_capsearch_end end;
    struct co_capsearch_cfg cfg = {100, 5.0, 20, 1000000000u};
    CHECK(drive(50, &cfg, r, &end) == 1 && end == CO_CAPSEARCH_START_MISSED);
    cfg.max_trials = 4; /* 100 200 400 800: still meeting it */
    CHECK(drive(100000, &cfg, r, &end) == 4 && end == CO_CAPSEARCH_MAX_TRIALS && r[3] == 800);
    cfg = (struct co_capsearch_cfg){100, 5.0, 20, 500}; /* 100 200 400 500 */
    CHECK(drive(100000, &cfg, r, &end) == 4 && end == CO_CAPSEARCH_MAX_RATE && r[3] == 500);
    /* a noisy step below the bracket does not move it */
    struct co_capstep s[] = {{100, 1}, {200, 1}, {400, 0}, {300, 1}, {150, 0}};
    CHECK(co_capsearch_next(s, 5, &(struct co_capsearch_cfg){100, 5.0, 20, 1000000000u}, &end) ==
              350 &&
          end == CO_CAPSEARCH_GO);
}

int main(void)
{
    test_ok();
    test_sequence();
    test_many();
    test_ends();
    return TEST_END();
}
