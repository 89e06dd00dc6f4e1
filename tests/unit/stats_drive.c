/* stats_drive: co_rpt_stats (coordinator/report/co_rpt_stats.h) on data sets
 * from stdin, one a line: "A1 A2 ... | B1 B2 ..."; prints each result as
 * one line of key=value for stats_check.py, which checks it against R and
 * SciPy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_stats.h"

static size_t parse(char *s, double *x, size_t cap)
{
    size_t n = 0;
    for (char *tok = strtok(s, " \t\n"); tok && n < cap; tok = strtok(NULL, " \t\n"))
        x[n++] = strtod(tok, NULL);
    return n;
}

int main(void)
{
    char line[65536];
    double a[2048], b[2048];
    while (fgets(line, sizeof(line), stdin)) {
        char *bar = strchr(line, '|');
        if (bar == NULL)
            continue;
        *bar = '\0';
        size_t na = parse(line, a, 2048), nb = parse(bar + 1, b, 2048);
        struct co_rpt_sample sa;
        co_rpt_stats_sample(a, na, &sa);
        struct co_rpt_welch w = co_rpt_stats_welch(a, na, b, nb);
        struct co_rpt_mw mw = co_rpt_stats_mann_whitney(a, na, b, nb);
        struct co_rpt_boot bt = co_rpt_stats_boot_ratio(a, na, b, nb, 20000, 1);
        printf("mean=%.17g median=%.17g sd=%.17g ci_lo=%.17g ci_hi=%.17g", sa.mean, sa.median,
               sa.sd, sa.ci_lo, sa.ci_hi);
        printf(" w_ok=%d diff=%.17g w_lo=%.17g w_hi=%.17g t=%.17g df=%.17g w_p=%.17g", w.ok, w.diff,
               w.ci_lo, w.ci_hi, w.t, w.df, w.p);
        printf(" u=%.17g mw_p=%.17g exact=%d", mw.u, mw.p, mw.exact);
        printf(" ratio=%.17g b_lo=%.17g b_hi=%.17g", bt.ratio, bt.lo, bt.hi);
        printf(" need=%u\n", co_rpt_stats_runs_needed(a, na, b, nb, 0.02));
    }
    return 0;
}
