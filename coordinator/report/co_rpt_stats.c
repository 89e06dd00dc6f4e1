/* co_rpt_stats: summaries, Welch's t-test, the Mann-Whitney U test and a
 * bootstrap interval for comparing repeat groups (co_rpt_stats.h). */
#include "co_rpt_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "pr_err.h"

static double median_of(const double *x, size_t n, double *tmp)
{
    memcpy(tmp, x, n * sizeof(*x));
    gsl_sort(tmp, 1, n);
    return gsl_stats_median_from_sorted_data(tmp, 1, n);
}

void co_rpt_stats_sample(const double *x, size_t n, struct co_rpt_sample *s)
{
    *s = (struct co_rpt_sample){
        .n = n, .mean = NAN, .median = NAN, .sd = NAN, .ci_lo = NAN, .ci_hi = NAN};
    if (n == 0)
        return;
    double *tmp = pr_xcalloc(n, sizeof(*tmp));
    s->mean = gsl_stats_mean(x, 1, n);
    s->median = median_of(x, n, tmp);
    free(tmp);
    if (n < 2)
        return;
    s->sd = gsl_stats_sd(x, 1, n);
    double half = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * s->sd / sqrt((double)n);
    s->ci_lo = s->mean - half;
    s->ci_hi = s->mean + half;
}

struct co_rpt_welch co_rpt_stats_welch(const double *a, size_t na, const double *b, size_t nb)
{
    struct co_rpt_welch w = {0};
    if (na < 2 || nb < 2)
        return w;
    double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
    double va = gsl_stats_variance(a, 1, na) / (double)na;
    double vb = gsl_stats_variance(b, 1, nb) / (double)nb;
    double se = sqrt(va + vb);
    if (!(se > 0))
        return w;
    w.ok = true;
    w.diff = mb - ma;
    w.t = w.diff / se;
    w.df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    w.p = 2.0 * gsl_cdf_tdist_Q(fabs(w.t), w.df);
    double half = gsl_cdf_tdist_Pinv(0.975, w.df) * se;
    w.ci_lo = w.diff - half;
    w.ci_hi = w.diff + half;
    return w;
}

/* The counts of every value 0..m*n of U for sizes m and n without ties:
 * the coefficients of the Gaussian binomial [m+n choose m]_q, built by
 * multiplying by (1 - q^(n+i)) and dividing by (1 - q^i), i = 1..m. */
static double *u_counts(size_t m, size_t n)
{
    size_t top = m * n;
    double *c = pr_xcalloc(top + 1, sizeof(*c));
    c[0] = 1;
    size_t deg = 0;
    for (size_t i = 1; i <= m; i++) {
        size_t s = n + i;
        for (size_t k = deg + 1; k-- > 0;)
            if (k + s <= top)
                c[k + s] -= c[k];
        deg = deg + s > top ? top : deg + s;
        for (size_t k = i; k <= top; k++)
            c[k] += c[k - i];
    }
    return c;
}

/* a's rank sum minus na(na+1)/2 with mid-ranks; *ties gets sum(t^3 - t). */
static double u_of(const double *a, size_t na, const double *b, size_t nb, double *ties)
{
    size_t n = na + nb;
    double *v = pr_xcalloc(n, sizeof(*v));
    size_t *idx = pr_xcalloc(n, sizeof(*idx));
    memcpy(v, a, na * sizeof(*v));
    memcpy(v + na, b, nb * sizeof(*v));
    gsl_sort_index(idx, v, 1, n);
    double ra = 0;
    *ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[idx[j + 1]] == v[idx[i]])
            j++;
        double rank = (double)(i + j) / 2.0 + 1.0, t = (double)(j - i + 1);
        *ties += t * t * t - t;
        for (size_t k = i; k <= j; k++)
            if (idx[k] < na)
                ra += rank;
        i = j + 1;
    }
    free(v);
    free(idx);
    return ra - (double)na * (double)(na + 1) / 2.0;
}

struct co_rpt_mw co_rpt_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
    struct co_rpt_mw r = {0};
    if (na == 0 || nb == 0)
        return r;
    double ties;
    r.ok = true;
    r.u = u_of(a, na, b, nb, &ties);
    double mn = (double)na * (double)nb;
    if (ties == 0 && na < 50 && nb < 50) {
        double *c = u_counts(na, nb);
        size_t top = na * nb, q = (size_t)llround(r.u);
        double total = 0, tail = 0;
        for (size_t k = 0; k <= top; k++)
            total += c[k];
        if (r.u > mn / 2) /* P(U >= u) */
            for (size_t k = q; k <= top; k++)
                tail += c[k];
        else /* P(U <= u) */
            for (size_t k = 0; k <= q; k++)
                tail += c[k];
        free(c);
        r.exact = true;
        r.p = fmin(1.0, 2.0 * tail / total);
        return r;
    }
    double n = (double)(na + nb);
    double z = r.u - mn / 2;
    double sigma = sqrt(mn / 12.0 * ((n + 1) - ties / (n * (n - 1))));
    if (!(sigma > 0)) {
        r.p = 1.0;
        return r;
    }
    z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0.0)) / sigma;
    r.p = fmin(1.0, 2.0 * fmin(gsl_cdf_ugaussian_P(z), gsl_cdf_ugaussian_Q(z)));
    return r;
}

/* The median of n draws from x with replacement. */
static double resampled_median(gsl_rng *rng, const double *x, size_t n, double *tmp)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = x[gsl_rng_uniform_int(rng, n)];
    gsl_sort(tmp, 1, n);
    return gsl_stats_median_from_sorted_data(tmp, 1, n);
}

struct co_rpt_boot co_rpt_stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb,
                                           unsigned resamples, unsigned long seed)
{
    struct co_rpt_boot r = {0};
    if (na == 0 || nb == 0 || resamples < 2)
        return r;
    double *tmp = pr_xcalloc(na > nb ? na : nb, sizeof(*tmp));
    double ma = median_of(a, na, tmp), mb = median_of(b, nb, tmp);
    if (!(ma > 0)) {
        free(tmp);
        return r;
    }
    double *ratios = pr_xcalloc(resamples, sizeof(*ratios));
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    size_t k = 0;
    for (unsigned i = 0; i < resamples; i++) {
        double ra = resampled_median(rng, a, na, tmp);
        double rb = resampled_median(rng, b, nb, tmp);
        if (ra > 0)
            ratios[k++] = rb / ra;
    }
    gsl_rng_free(rng);
    if (k >= 2) {
        gsl_sort(ratios, 1, k);
        r.ok = true;
        r.ratio = mb / ma;
        r.lo = gsl_stats_quantile_from_sorted_data(ratios, 1, k, 0.025);
        r.hi = gsl_stats_quantile_from_sorted_data(ratios, 1, k, 0.975);
    }
    free(ratios);
    free(tmp);
    return r;
}

unsigned co_rpt_stats_runs_needed(const double *a, size_t na, const double *b, size_t nb,
                                  double rel)
{
    if (na < 2 || nb < 2 || !(rel > 0))
        return 0;
    double ma = gsl_stats_mean(a, 1, na);
    double pooled = ((double)(na - 1) * gsl_stats_variance(a, 1, na) +
                     (double)(nb - 1) * gsl_stats_variance(b, 1, nb)) /
                    (double)(na + nb - 2);
    double delta = rel * fabs(ma);
    if (!(delta > 0) || !(pooled > 0))
        return 0;
    double z = gsl_cdf_ugaussian_Pinv(0.975) + gsl_cdf_ugaussian_Pinv(0.8);
    double n = ceil(2.0 * z * z * pooled / (delta * delta));
    return n < 2 ? 2 : n > 1e6 ? 1000000u : (unsigned)n;
}
