/* co_rpt_stats: the statistics of comparing repeat groups of runs
 * (stampede report --group; docs/guide.md "Comparing with confidence").
 * The unit is the run: each value is one run's figure (its tps, its p99),
 * never an interval of one run (those are not independent samples).
 *
 * Distributions, quantiles and the bootstrap's generator are GSL's
 * (Debian libgsl-dev); the unit test stats_check.py compares every figure
 * with R's t.test and wilcox.test and with SciPy.
 */
#ifndef CO_RPT_STATS_H
#define CO_RPT_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* One group's figures: n, mean, median, sample stddev and the 95% interval
 * of the mean (Student's t, n-1 degrees of freedom; NAN for n < 2). */
struct co_rpt_sample {
    size_t n;
    double mean, median, sd, ci_lo, ci_hi;
};
void co_rpt_stats_sample(const double *x, size_t n, struct co_rpt_sample *s);

/* Welch's t-test of b against a: the difference of the means (b - a),
 * its 95% interval (Welch-Satterthwaite degrees of freedom) and the
 * two-sided p-value. ok false when a side has fewer than 2 values or both
 * have no spread. */
struct co_rpt_welch {
    bool ok;
    double diff, ci_lo, ci_hi, t, df, p;
};
struct co_rpt_welch co_rpt_stats_welch(const double *a, size_t na, const double *b, size_t nb);

/* The Mann-Whitney U test (Wilcoxon rank-sum), two-sided, as R's
 * wilcox.test(a, b) and SciPy's mannwhitneyu(a, b): u is a's U (R's W);
 * exact distribution without ties when both sides have fewer than 50
 * values, else the normal approximation with the tie and continuity
 * corrections. */
struct co_rpt_mw {
    bool ok;
    double u, p;
    bool exact;
};
struct co_rpt_mw co_rpt_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb);

/* The ratio of medians b/a with its 95% percentile bootstrap interval
 * (resamples draws of each side with replacement; GSL's mt19937 seeded
 * with seed, so the same data give the same interval). */
struct co_rpt_boot {
    bool ok;
    double ratio, lo, hi;
};
struct co_rpt_boot co_rpt_stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb,
                                           unsigned resamples, unsigned long seed);

/* About how many runs per side a two-sided test at 5% with 80% power
 * needs to resolve a difference of rel (0.02: 2%) of a's mean, from the
 * pooled stddev (normal approximation); 0 when it cannot be said. */
unsigned co_rpt_stats_runs_needed(const double *a, size_t na, const double *b, size_t nb,
                                  double rel);

#endif
