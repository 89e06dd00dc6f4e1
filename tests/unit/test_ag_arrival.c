/* test_ag_arrival: --rate-mode's arrival schedules (issue 9 item 7).
 * Uniform gaps are all exactly 1/rate (standard deviation 0) after a first
 * phase inside one gap; Poisson gaps have mean 1/rate and a standard
 * deviation equal to it (exponential), and differ by seed. */
#include <math.h>

#include "ag_arrival.h"
#include "testlib.h"

#define N 200000

struct moments {
    double mean, sd;
};

static struct moments gaps(bool uniform, double rate, uint64_t seed, uint64_t *first)
{
    struct ag_arrival a;
    double sum = 0, sum2 = 0;

    ag_arrival_init(&a, rate, uniform, seed);
    *first = ag_arrival_first_ns(&a);
    for (int i = 0; i < N; i++) {
        double g = (double)ag_arrival_gap_ns(&a);
        sum += g;
        sum2 += g * g;
    }
    double mean = sum / N;
    return (struct moments){mean, sqrt(fmax(0, sum2 / N - mean * mean))};
}

int main(void)
{
    uint64_t first = 0, first2 = 0;

    struct moments u = gaps(true, 1000, 42, &first);
    printf("uniform 1000/s: mean gap %.1f ns, sd %.3f ns, first at %llu ns\n", u.mean, u.sd,
           (unsigned long long)first);
    CHECK(u.mean == 1e6);
    CHECK(u.sd == 0);
    CHECK(first < 1000000);
    gaps(true, 1000, 43, &first2);
    CHECK(first2 != first); /* phases differ by seed: workers do not fire together */

    struct moments p = gaps(false, 1000, 42, &first);
    printf("poisson 1000/s: mean gap %.1f ns, sd %.1f ns (sd/mean %.4f)\n", p.mean, p.sd,
           p.sd / p.mean);
    /* N = 200000 exponential gaps: the mean and sd are within 1% of 1 ms
     * with overwhelming probability (relative standard error ~0.2-0.3%). */
    CHECK_MSG(fabs(p.mean - 1e6) < 1e4, "mean %.1f", p.mean);
    CHECK_MSG(fabs(p.sd - 1e6) < 1.5e4, "sd %.1f", p.sd);
    struct moments p2 = gaps(false, 1000, 42, &first2);
    CHECK(p2.mean == p.mean && first2 == first); /* a function of the seed */
    p2 = gaps(false, 1000, 7, &first2);
    CHECK(p2.mean != p.mean);

    struct moments z = gaps(false, 0, 1, &first); /* no rate: no schedule */
    CHECK(z.mean == 0 && first == 0);
    return TEST_END();
}
