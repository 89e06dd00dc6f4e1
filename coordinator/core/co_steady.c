/* co_steady: a run's steady state from its intervals (co_steady.h): the
 * points kept as intervals are released, then one judgement at the end:
 * warm-up, CV of interval tps, and the tps and p95 trends (GSL's least
 * squares and Student's t). */
#include "co_steady.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "pr_err.h"

void co_steady_add(struct co_steady_series *s, double t_s, double len_s,
                   const struct pr_counters *ctr, const pr_hist *lat, bool partial)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->p = pr_xrealloc(s->p, s->cap * sizeof(*s->p));
    }
    bool has = lat != NULL && pr_hist_count(lat) > 0;
    s->p[s->n++] = (struct co_steady_point){
        .t_s = t_s,
        .len_s = len_s,
        .tps = len_s > 0 ? (double)ctr->transactions / len_s : 0.0,
        .p95_ms = has ? (double)pr_hist_value_at_percentile(lat, 95.0) / 1000.0 : 0.0,
        .has_p95 = has,
        .partial = partial,
    };
}

void co_steady_series_clear(struct co_steady_series *s)
{
    free(s->p);
    *s = (struct co_steady_series){0};
}

/* The points that count: whole intervals (not a shorter tail: under half
 * the longest) whose agents all reported. Returns how many, copied to q. */
static uint32_t usable(const struct co_steady_point *p, uint32_t n, struct co_steady_point *q)
{
    double longest = 0;
    for (uint32_t i = 0; i < n; i++)
        if (p[i].len_s > longest)
            longest = p[i].len_s;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!p[i].partial && p[i].len_s > 0 && p[i].len_s >= 0.5 * longest)
            q[m++] = p[i];
    return m;
}

/* The median of the tps of q[from, to). */
static double tps_median(const struct co_steady_point *q, uint32_t from, uint32_t to)
{
    uint32_t n = to - from;
    double *v = pr_xcalloc(n, sizeof(*v));
    for (uint32_t i = 0; i < n; i++)
        v[i] = q[from + i].tps;
    gsl_sort(v, 1, n);
    double med = gsl_stats_median_from_sorted_data(v, 1, n);
    free(v);
    return med;
}

static bool in_band(double v, double centre)
{
    return fabs(v - centre) <= CO_STEADY_BAND * centre;
}

/* Warm-up: the first interval k that lies within the band around the
 * median tps of the run's second half and after which at least
 * CO_STEADY_STAY of the intervals do too; the intervals before k were
 * warm-up. A k past the first third is no warm-up: the run never settled
 * (*settled false) and all of it is measured. */
static uint32_t warmup_end(const struct co_steady_point *q, uint32_t m, bool *settled)
{
    double centre = tps_median(q, m / 2, m);
    uint32_t after_in = 0; /* intervals in the band from k on */
    for (uint32_t i = 0; i < m; i++)
        after_in += in_band(q[i].tps, centre);
    *settled = false;
    for (uint32_t k = 0; k <= m / CO_STEADY_WARMUP_MAX && k < m; k++) {
        if (in_band(q[k].tps, centre) && after_in >= CO_STEADY_STAY * (double)(m - k)) {
            *settled = true;
            return k;
        }
        after_in -= in_band(q[k].tps, centre);
    }
    return 0;
}

/* The trend of y over x (n points): the change over x's span in % of y's
 * mean, with its 95% interval. */
static struct co_trend trend_of(const double *x, const double *y, uint32_t n)
{
    struct co_trend t = {0};
    if (n < 3)
        return t;
    double mean = gsl_stats_mean(y, 1, n);
    if (!(mean > 0))
        return t;
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    double span = x[n - 1] - x[0];
    double q = gsl_cdf_tdist_Pinv(0.975, (double)(n - 2));
    double half = q * sqrt(cov11);
    t.has = true;
    t.change_pct = c1 * span / mean * 100.0;
    t.lo_pct = (c1 - half) * span / mean * 100.0;
    t.hi_pct = (c1 + half) * span / mean * 100.0;
    t.significant = t.lo_pct > 0 || t.hi_pct < 0;
    return t;
}

/* The trend of tps (which == 0) or p95 (1) over q[from, m). */
static struct co_trend figure_trend(const struct co_steady_point *q, uint32_t from, uint32_t m,
                                    int which)
{
    double *x = pr_xcalloc(m - from, sizeof(*x));
    double *y = pr_xcalloc(m - from, sizeof(*y));
    uint32_t n = 0;
    for (uint32_t i = from; i < m; i++) {
        if (which == 1 && !q[i].has_p95)
            continue;
        x[n] = q[i].t_s - q[i].len_s / 2; /* the interval's middle */
        y[n++] = which == 0 ? q[i].tps : q[i].p95_ms;
    }
    struct co_trend t = trend_of(x, y, n);
    free(x);
    free(y);
    return t;
}

static bool is_trend(const struct co_trend *t)
{
    return t->has && t->significant && fabs(t->change_pct) >= CO_STEADY_TREND_PCT;
}

/* Append ", " and a printf'd phrase to buf. */
static void phrase(char *buf, size_t cap, bool *first, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void phrase(char *buf, size_t cap, bool *first, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (!*first && len + 2 < cap) {
        memcpy(buf + len, "; ", 3);
        len += 2;
    }
    *first = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

static void trend_phrase(char *buf, size_t cap, bool *first, const char *name,
                         const struct co_trend *t, const char *up, const char *down)
{
    phrase(buf, cap, first, "%s %s by %.1f%% of its mean over the run (95%% CI %.1f%% to %.1f%%)",
           name, t->change_pct < 0 ? down : up, fabs(t->change_pct), t->lo_pct, t->hi_pct);
}

static void write_verdict(struct co_steady *s)
{
    char *v = s->verdict;
    size_t cap = sizeof(s->verdict);
    bool first = true;
    if (!s->judged && s->intervals >= CO_STEADY_MIN_INTERVALS) {
        snprintf(v, cap, "not judged: no transaction in %u interval(s)", s->intervals);
        return;
    }
    if (!s->judged) {
        snprintf(v, cap,
                 "not judged: %u whole interval(s), at least %d needed (a longer --time or a "
                 "shorter --report-interval)",
                 s->intervals, CO_STEADY_MIN_INTERVALS);
        return;
    }
    snprintf(v, cap, "%s: ", s->steady ? "steady" : "not steady");
    if (s->steady) {
        phrase(v, cap, &first,
               "tps CV %.1f%%, no trend of %.0f%% or more (tps %+.1f%%, "
               "95%% CI %.1f%% to %.1f%%)",
               100.0 * s->tps_cv, CO_STEADY_TREND_PCT, s->tps.change_pct, s->tps.lo_pct,
               s->tps.hi_pct);
    } else {
        if (is_trend(&s->tps))
            trend_phrase(v, cap, &first, "tps", &s->tps, "rose", "fell");
        if (is_trend(&s->p95))
            trend_phrase(v, cap, &first, "p95", &s->p95, "rose", "fell");
        if (!s->settled)
            phrase(v, cap, &first,
                   "tps did not settle within %.0f%% of its late median in the first third",
                   100.0 * CO_STEADY_BAND);
        if (s->tps_cv > CO_STEADY_CV)
            phrase(v, cap, &first, "tps varies by %.1f%% (CV) from interval to interval",
                   100.0 * s->tps_cv);
    }
    if (s->warmup_n > 0)
        phrase(v, cap, &first, "the first %.0f s were warm-up (%u interval(s))", s->warmup_s,
               s->warmup_n);
}

void co_steady_judge(const struct co_steady_point *p, uint32_t n, struct co_steady *out)
{
    *out = (struct co_steady){0};
    struct co_steady_point *q = pr_xcalloc(n ? n : 1, sizeof(*q));
    uint32_t m = usable(p, n, q);
    out->intervals = m;
    bool any = false; /* a transaction in some interval */
    for (uint32_t i = 0; i < m; i++)
        any = any || q[i].tps > 0;
    out->judged = m >= CO_STEADY_MIN_INTERVALS && any;
    if (out->judged) {
        out->warmup_n = warmup_end(q, m, &out->settled);
        out->warmup_s = out->warmup_n ? q[out->warmup_n].t_s - q[out->warmup_n].len_s : 0.0;
        out->measured_n = m - out->warmup_n;
        double *tps = pr_xcalloc(out->measured_n, sizeof(*tps));
        for (uint32_t i = 0; i < out->measured_n; i++)
            tps[i] = q[out->warmup_n + i].tps;
        out->tps_mean = gsl_stats_mean(tps, 1, out->measured_n);
        out->tps_cv = out->measured_n > 1 && out->tps_mean > 0
                          ? gsl_stats_sd(tps, 1, out->measured_n) / out->tps_mean
                          : 0.0;
        free(tps);
        out->tps = figure_trend(q, out->warmup_n, m, 0);
        out->p95 = figure_trend(q, out->warmup_n, m, 1);
        out->steady = out->settled && out->tps_cv <= CO_STEADY_CV && !is_trend(&out->tps) &&
                      !is_trend(&out->p95);
    }
    free(q);
    write_verdict(out);
}
