/* steady_drive: co_steady_judge (coordinator/core/co_steady.h) on points
 * read from stdin, one interval a line "t_s len_s tps p95_ms partial"
 * (p95_ms < 0: none); prints the judgement as one line of key=value for
 * test_co_steady.py, which checks it against SciPy. */
#include <stdio.h>
#include <stdlib.h>

#include "co_steady.h"

static void trend(const char *name, const struct co_trend *t)
{
    if (!t->has) {
        printf(" %s=none", name);
        return;
    }
    printf(" %s=%.12g,%.12g,%.12g,%d", name, t->change_pct, t->lo_pct, t->hi_pct, t->significant);
}

int main(void)
{
    struct co_steady_point p[4096];
    uint32_t n = 0;
    double t, len, tps, p95;
    int partial;
    while (n < 4096 && scanf("%lf %lf %lf %lf %d", &t, &len, &tps, &p95, &partial) == 5)
        p[n++] = (struct co_steady_point){.t_s = t,
                                          .len_s = len,
                                          .tps = tps,
                                          .p95_ms = p95 < 0 ? 0 : p95,
                                          .has_p95 = p95 >= 0,
                                          .partial = partial != 0};
    struct co_steady s;
    co_steady_judge(p, n, &s);
    printf("judged=%d steady=%d intervals=%u warmup_n=%u warmup_s=%.12g", s.judged, s.steady,
           s.intervals, s.warmup_n, s.warmup_s);
    if (s.judged)
        printf(" mean=%.12g cv=%.12g", s.tps_mean, s.tps_cv);
    trend("tps", &s.tps);
    trend("p95", &s.p95);
    printf("\nverdict=%s\n", s.verdict);
    return 0;
}
