/* pr_hist_acc: a running sum of histograms (pr_hist.h), added at a cost
 * of the added buckets only. */
#include <stdlib.h>
#include <string.h>

#include "pr_hist.h"
#include "pr_hist_int.h"

struct pr_hist_acc {
    uint64_t total;   /* as pr_hist */
    uint64_t clamped; /* as pr_hist */
    uint64_t min;     /* as pr_hist: UINT64_MAX when empty */
    uint64_t max;     /* as pr_hist: 0 when empty */
    uint64_t sum;     /* as pr_hist */
    int32_t lo;       /* index of counts[0] */
    int32_t len;      /* indexes held, lo .. lo + len - 1; 0: none yet */
    bool wide;        /* counts are uint64_t (total > UINT32_MAX), else uint32_t */
    void *counts;     /* len counts, zero outside the buckets added */
};

pr_hist_acc *pr_hist_acc_new(void)
{
    pr_hist_acc *a = pr_xcalloc(1, sizeof(*a));
    a->min = UINT64_MAX;
    return a;
}

void pr_hist_acc_destroy(pr_hist_acc **a)
{
    if (a == NULL || *a == NULL)
        return;
    free((*a)->counts);
    free(*a);
    *a = NULL;
}

static size_t width(bool wide)
{
    return wide ? sizeof(uint64_t) : sizeof(uint32_t);
}

/* a holds [lo, hi] at least, and is wide when wide: its array grown by
 * an eighth at least on the side that grows (tails keep arriving one
 * bucket further out: one copy per eighth, not per bucket). */
static void acc_reserve(pr_hist_acc *a, int32_t lo, int32_t hi, bool wide)
{
    int32_t old_lo = a->lo, old_hi = a->lo + a->len - 1;
    if (a->len > 0 && lo >= old_lo && hi <= old_hi && wide == a->wide)
        return;
    if (a->len > 0) {
        int32_t slack = a->len / 8;
        lo = lo < old_lo ? (lo < old_lo - slack ? lo : old_lo - slack) : old_lo;
        hi = hi > old_hi ? (hi > old_hi + slack ? hi : old_hi + slack) : old_hi;
    }
    lo = lo < 1 ? 1 : lo;
    hi = hi > PR__COUNTS_LEN - 1 ? PR__COUNTS_LEN - 1 : hi;
    int32_t len = hi - lo + 1;
    if (a->len > 0 && wide == a->wide) {
        /* The same width: grown in place where the allocator can (tails
         * grow it upwards), the counts moved up when it grew down. */
        size_t w = width(wide), shift = (size_t)(old_lo - lo) * w, old = (size_t)a->len * w;
        char *c = pr_xrealloc(a->counts, (size_t)len * w);
        memmove(c + shift, c, old);
        memset(c, 0, shift);
        memset(c + shift + old, 0, (size_t)len * w - shift - old);
        a->counts = c;
        a->lo = lo;
        a->len = len;
        return;
    }
    void *c = pr_xcalloc((size_t)len, width(wide));
    for (int32_t i = 0; i < a->len; i++) { /* old counts at their new place, widened */
        int32_t at = old_lo - lo + i;
        uint64_t v = a->wide ? ((uint64_t *)a->counts)[i] : ((uint32_t *)a->counts)[i];
        if (wide)
            ((uint64_t *)c)[at] = v;
        else
            ((uint32_t *)c)[at] = (uint32_t)v;
    }
    free(a->counts);
    a->counts = c;
    a->lo = lo;
    a->len = len;
    a->wide = wide;
}

void pr_hist_acc_reserve(pr_hist_acc *a, uint64_t lo_us, uint64_t hi_us)
{
    if (a->len > 0 || a->total > 0 || lo_us > hi_us)
        return;
    lo_us = lo_us < PR_HIST_MIN_US ? PR_HIST_MIN_US : lo_us;
    hi_us = hi_us > PR_HIST_MAX_US ? PR_HIST_MAX_US : hi_us;
    acc_reserve(a, pr__hist_index_of(lo_us), pr__hist_index_of(hi_us), false);
    /* calloc may hand out fresh pages untouched: fault them in here */
    memset(a->counts, 0, (size_t)a->len * width(a->wide));
}

static void acc_summary(pr_hist_acc *a, uint64_t total, uint64_t clamped, uint64_t min,
                        uint64_t max, uint64_t sum)
{
    a->total += total;
    a->clamped += clamped;
    a->min = min < a->min ? min : a->min;
    a->max = max > a->max ? max : a->max;
    a->sum = pr__sat_add(a->sum, sum);
}

void pr_hist_acc_add_frozen(pr_hist_acc *a, const pr_hist_frozen *f)
{
    if (f->max == 0 || f->n_buckets == 0)
        return;
    const uint16_t *idx = pr__frozen_idx(f);
    uint64_t total;
    bool wide = a->wide || __builtin_add_overflow(a->total, f->total, &total) ||
                total > UINT32_MAX; /* a narrow f then, as its total fits */
    acc_reserve(a, idx[0], idx[f->n_buckets - 1], wide);
    if (!a->wide) { /* the common case: both narrow, one add a bucket */
        uint32_t *c = (uint32_t *)a->counts - a->lo;
        const uint32_t *fc = (const uint32_t *)f->data;
        for (uint32_t i = 0; i < f->n_buckets; i++)
            c[idx[i]] += fc[i];
    } else {
        uint64_t *c = (uint64_t *)a->counts - a->lo;
        for (uint32_t i = 0; i < f->n_buckets; i++)
            c[idx[i]] += f->wide ? f->data[i] : ((const uint32_t *)f->data)[i];
    }
    acc_summary(a, f->total, f->clamped, f->min, f->max, f->sum);
}

void pr_hist_acc_add(pr_hist_acc *a, const pr_hist *h)
{
    if (pr__hist_is_empty(h))
        return;
    int32_t lo = pr__hist_index_of(h->min), hi = pr__hist_index_of(h->max);
    uint64_t total;
    bool wide = a->wide || __builtin_add_overflow(a->total, h->total, &total) ||
                total > UINT32_MAX; /* every count of h then fits 32 bits */
    acc_reserve(a, lo, hi, wide);
    for (int32_t i = lo; i <= hi; i++) {
        if (a->wide)
            ((uint64_t *)a->counts)[i - a->lo] += h->counts[i];
        else
            ((uint32_t *)a->counts)[i - a->lo] += (uint32_t)h->counts[i];
    }
    acc_summary(a, h->total, h->clamped, h->min, h->max, h->sum);
}

void pr_hist_acc_thaw(pr_hist *dst, const pr_hist_acc *a)
{
    pr_hist_reset(dst);
    if (a->max == 0)
        return;
    for (int32_t i = 0; i < a->len; i++)
        dst->counts[a->lo + i] =
            a->wide ? ((const uint64_t *)a->counts)[i] : ((const uint32_t *)a->counts)[i];
    dst->total = a->total;
    dst->clamped = a->clamped;
    dst->min = a->min;
    dst->max = a->max;
    dst->sum = a->sum;
}

uint64_t pr_hist_acc_count(const pr_hist_acc *a)
{
    return a->total;
}

size_t pr_hist_acc_size(const pr_hist_acc *a)
{
    return sizeof(*a) + (size_t)a->len * width(a->wide);
}
