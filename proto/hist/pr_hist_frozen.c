/* pr_hist_frozen: the frozen form of a histogram (pr_hist.h): a compact,
 * read-only copy for keeping many of them, merged without expanding. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pr_hist.h"
#include "pr_hist_int.h"

static size_t count_width(bool wide)
{
    return wide ? sizeof(uint64_t) : sizeof(uint32_t);
}

static pr_hist_frozen *frozen_alloc(uint32_t n, bool wide)
{
    pr_hist_frozen *f = pr_xmalloc(sizeof(*f) + n * (count_width(wide) + sizeof(uint16_t)));
    f->n_buckets = n;
    f->wide = wide;
    return f;
}

static uint16_t *frozen_idx(const pr_hist_frozen *f)
{
    return pr__frozen_idx(f);
}

static uint64_t frozen_count_at(const pr_hist_frozen *f, uint32_t i)
{
    return f->wide ? f->data[i] : ((const uint32_t *)f->data)[i];
}

static void frozen_set(pr_hist_frozen *f, uint16_t *idx, uint32_t i, int32_t index, uint64_t c)
{
    idx[i] = (uint16_t)index;
    if (f->wide)
        f->data[i] = c;
    else
        ((uint32_t *)f->data)[i] = (uint32_t)c;
}

static void frozen_summary(pr_hist_frozen *f, uint64_t total, uint64_t clamped, uint64_t min,
                           uint64_t max, uint64_t sum)
{
    f->total = total;
    f->clamped = clamped;
    f->min = min;
    f->max = max;
    f->sum = sum;
}

/* Occupied buckets of h. */
static uint32_t occupied(const pr_hist *h)
{
    if (pr__hist_is_empty(h))
        return 0;
    uint32_t n = 0;
    for (int32_t i = pr__hist_index_of(h->min), hi = pr__hist_index_of(h->max); i <= hi; i++)
        n += h->counts[i] != 0;
    return n;
}

/* h's buckets [lo, hi] appended to g from slot n, branch-free (a sparse
 * histogram's zero/non-zero pattern defeats the branch predictor): each
 * slot is written, and kept when its count is not 0. g needs one spare
 * slot. Returns the new n. */
static uint32_t append_range(pr_hist_frozen *g, uint16_t *idx, uint32_t n, const pr_hist *h,
                             int32_t lo, int32_t hi)
{
    if (!g->wide) { /* the common case, typed for the compiler */
        uint32_t *cnt = (uint32_t *)g->data;
        for (int32_t i = lo; i <= hi; i++) {
            uint64_t c = h->counts[i];
            idx[n] = (uint16_t)i;
            cnt[n] = (uint32_t)c;
            n += c != 0;
        }
        return n;
    }
    for (int32_t i = lo; i <= hi; i++) {
        frozen_set(g, idx, n, i, h->counts[i]);
        n += h->counts[i] != 0;
    }
    return n;
}

/* Drop g's unused slots past n (the indexes move down), shrinking it. */
static pr_hist_frozen *frozen_trim(pr_hist_frozen *g, uint32_t n)
{
    uint16_t *from = frozen_idx(g);
    g->n_buckets = n;
    memmove(frozen_idx(g), from, n * sizeof(uint16_t));
    return pr_xrealloc(g, pr_hist_frozen_size(g));
}

pr_hist_frozen *pr_hist_freeze(const pr_hist *h)
{
    pr_hist_frozen *f = frozen_alloc(occupied(h) + 1, h->total > UINT32_MAX);
    frozen_summary(f, h->total, h->clamped, h->min, h->max, h->sum);
    uint32_t n = 0;
    if (!pr__hist_is_empty(h))
        n = append_range(f, frozen_idx(f), 0, h, pr__hist_index_of(h->min),
                         pr__hist_index_of(h->max));
    return frozen_trim(f, n);
}

void pr_hist_frozen_destroy(pr_hist_frozen **f)
{
    if (f == NULL || *f == NULL)
        return;
    free(*f);
    *f = NULL;
}

uint64_t pr_hist_frozen_count(const pr_hist_frozen *f)
{
    return f->total;
}

size_t pr_hist_frozen_size(const pr_hist_frozen *f)
{
    return sizeof(*f) + f->n_buckets * (count_width(f->wide) + sizeof(uint16_t));
}

void pr_hist_add_frozen(pr_hist *dst, const pr_hist_frozen *f)
{
    if (f->max == 0)
        return;
    const uint16_t *idx = frozen_idx(f);
    uint64_t *counts = dst->counts;
    if (!f->wide) { /* the common case, typed for the compiler: one add a bucket */
        const uint32_t *c = (const uint32_t *)f->data;
        for (uint32_t i = 0; i < f->n_buckets; i++)
            counts[idx[i]] += c[i];
    } else {
        for (uint32_t i = 0; i < f->n_buckets; i++)
            counts[idx[i]] += f->data[i];
    }
    dst->total += f->total;
    dst->clamped += f->clamped;
    if (f->min < dst->min)
        dst->min = f->min;
    if (f->max > dst->max)
        dst->max = f->max;
    dst->sum = pr__sat_add(dst->sum, f->sum);
}

void pr_hist_thaw(pr_hist *dst, const pr_hist_frozen *f)
{
    pr_hist_reset(dst);
    pr_hist_add_frozen(dst, f);
}

/* f's buckets and src's (non-empty) merged in index order into g (room
 * for all of them plus one); returns how many. Over src's span the merge
 * is branch-free, as append_range. */
static uint32_t merge_into(const pr_hist_frozen *f, const pr_hist *src, pr_hist_frozen *g)
{
    const uint16_t *fidx = frozen_idx(f);
    uint16_t *gidx = frozen_idx(g);
    uint32_t j = 0, n = 0, fn = f->n_buckets;
    int32_t lo = pr__hist_index_of(src->min), hi = pr__hist_index_of(src->max);
    for (; j < fn && fidx[j] < lo; j++, n++)
        frozen_set(g, gidx, n, fidx[j], frozen_count_at(f, j));
    if (!g->wide) { /* then f is narrow too; typed for the compiler */
        const uint32_t *fc = (const uint32_t *)f->data;
        uint32_t *gc = (uint32_t *)g->data;
        for (int32_t i = lo; i <= hi; i++) {
            uint32_t both = j < fn && fidx[j] == i;
            uint64_t c = src->counts[i] + (both ? fc[j] : 0);
            gidx[n] = (uint16_t)i;
            gc[n] = (uint32_t)c;
            n += c != 0;
            j += both;
        }
    }
    for (int32_t i = g->wide ? lo : hi + 1; i <= hi; i++) {
        bool both = j < fn && fidx[j] == i;
        uint64_t c = src->counts[i] + (both ? frozen_count_at(f, j) : 0);
        frozen_set(g, gidx, n, i, c);
        n += c != 0;
        j += both;
    }
    for (; j < fn; j++, n++)
        frozen_set(g, gidx, n, fidx[j], frozen_count_at(f, j));
    return n;
}

void pr_hist_frozen_add(pr_hist_frozen **f, const pr_hist *src)
{
    if (*f == NULL) {
        *f = pr_hist_freeze(src);
        return;
    }
    if (pr__hist_is_empty(src))
        return;
    pr_hist_frozen *old = *f;
    uint64_t total = old->total + src->total;
    pr_hist_frozen *g = frozen_alloc(old->n_buckets + occupied(src) + 1, total > UINT32_MAX);
    g = frozen_trim(g, merge_into(old, src, g));
    frozen_summary(g, total, old->clamped + src->clamped, old->min < src->min ? old->min : src->min,
                   old->max > src->max ? old->max : src->max, pr__sat_add(old->sum, src->sum));
    free(old);
    *f = g;
}

/* ---- built sparse, merged sparse, read sparse --------------------------- */

pr_hist_frozen *pr__hist_frozen_wide(uint32_t cap, uint64_t **cnt, uint16_t **idx)
{
    pr_hist_frozen *f = frozen_alloc(cap, true);
    frozen_summary(f, 0, 0, UINT64_MAX, 0, 0);
    *cnt = f->data;
    *idx = frozen_idx(f);
    return f;
}

pr_hist_frozen *pr__hist_frozen_narrow(uint32_t cap, uint32_t **cnt, uint16_t **idx)
{
    pr_hist_frozen *f = frozen_alloc(cap, false);
    frozen_summary(f, 0, 0, UINT64_MAX, 0, 0);
    *cnt = (uint32_t *)f->data;
    *idx = frozen_idx(f);
    return f;
}

pr_hist_frozen *pr__hist_frozen_seal(pr_hist_frozen *f, uint32_t n, uint64_t total,
                                     uint64_t clamped, uint64_t min, uint64_t max, uint64_t sum)
{
    frozen_summary(f, total, clamped, total ? min : UINT64_MAX, total ? max : 0, sum);
    if (!f->wide && n == f->n_buckets) /* built narrow and full: already in place */
        return f;
    uint16_t *from = frozen_idx(f);
    if (f->wide && total <= UINT32_MAX) { /* narrow in place: slot i moves from 8i to 4i */
        uint32_t *c32 = (uint32_t *)f->data;
        for (uint32_t i = 0; i < n; i++)
            c32[i] = (uint32_t)f->data[i];
        f->wide = false;
    }
    f->n_buckets = n;
    memmove(frozen_idx(f), from, n * sizeof(uint16_t));
    return pr_xrealloc(f, pr_hist_frozen_size(f));
}

/* *f += src's buckets when both are narrow and the sum stays narrow, f
 * kept where it can be: a running sum (an agent's, over its STATS) holds
 * most of each new histogram's buckets already, so src's counts are
 * added in place, and only the buckets f lacks (found on the way, with
 * where they go) are spliced in, by block copies into a new f. Returns
 * the result: f itself, or a new one (f then the caller's to free). */
static pr_hist_frozen *merge_in_place(pr_hist_frozen *f, const pr_hist_frozen *src)
{
    uint16_t *fi = frozen_idx(f);
    uint32_t *fc = (uint32_t *)f->data;
    const uint16_t *si = frozen_idx(src);
    const uint32_t *sc = (const uint32_t *)src->data;
    uint32_t fn = f->n_buckets, sn = src->n_buckets, j = 0, m = 0;
    uint32_t *miss = NULL; /* pairs: src position, f position it goes before */
    for (uint32_t i = 0; i < sn; i++) {
        uint16_t x = si[i];
        while (j < fn && fi[j] < x)
            j++;
        if (j < fn && fi[j] == x) {
            fc[j] += sc[i];
            continue;
        }
        if (miss == NULL)
            miss = pr_xmalloc(2 * (size_t)(sn - i) * sizeof(*miss));
        miss[2 * m] = i;
        miss[2 * m + 1] = j;
        m++;
    }
    if (m == 0)
        return f;
    pr_hist_frozen *g = frozen_alloc(fn + m, false);
    uint16_t *gi = frozen_idx(g);
    uint32_t *gc = (uint32_t *)g->data;
    uint32_t from = 0, n = 0;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t at = miss[2 * k + 1], run = at - from;
        memcpy(gi + n, fi + from, run * sizeof(*gi));
        memcpy(gc + n, fc + from, run * sizeof(*gc));
        n += run;
        from = at;
        gi[n] = si[miss[2 * k]];
        gc[n++] = sc[miss[2 * k]];
    }
    memcpy(gi + n, fi + from, (fn - from) * sizeof(*gi));
    memcpy(gc + n, fc + from, (fn - from) * sizeof(*gc));
    free(miss);
    return g;
}

/* f's and src's buckets merged in index order into g (room for both). */
static uint32_t merge_sparse(const pr_hist_frozen *f, const pr_hist_frozen *src, pr_hist_frozen *g)
{
    const uint16_t *fi = frozen_idx(f), *si = frozen_idx(src);
    uint16_t *gi = frozen_idx(g);
    uint32_t i = 0, j = 0, n = 0;
    while (i < f->n_buckets || j < src->n_buckets) {
        bool take_f = j >= src->n_buckets || (i < f->n_buckets && fi[i] <= si[j]);
        bool take_s = i >= f->n_buckets || (j < src->n_buckets && si[j] <= fi[i]);
        uint64_t c = (take_f ? frozen_count_at(f, i) : 0) + (take_s ? frozen_count_at(src, j) : 0);
        frozen_set(g, gi, n++, take_f ? fi[i] : si[j], c);
        i += take_f;
        j += take_s;
    }
    return n;
}

void pr_hist_frozen_merge(pr_hist_frozen **f, const pr_hist_frozen *src)
{
    if (src->max == 0 && *f != NULL)
        return;
    pr_hist_frozen *old = *f;
    if (old == NULL) { /* a copy: the same bytes */
        size_t size = pr_hist_frozen_size(src);
        *f = memcpy(pr_xmalloc(size), src, size);
        return;
    }
    uint64_t total = old->total + src->total;
    pr_hist_frozen *g;
    if (!old->wide && !src->wide && total <= UINT32_MAX) {
        g = merge_in_place(old, src); /* old itself, or a new one */
    } else {
        g = frozen_alloc(old->n_buckets + src->n_buckets, total > UINT32_MAX);
        g = frozen_trim(g, merge_sparse(old, src, g));
    }
    uint64_t min = old->min < src->min ? old->min : src->min;
    uint64_t max = old->max > src->max ? old->max : src->max;
    uint64_t clamped = old->clamped + src->clamped, sum = pr__sat_add(old->sum, src->sum);
    if (g != old)
        free(old);
    frozen_summary(g, total, clamped, min, max, sum);
    *f = g;
}

bool pr_hist_frozen_next(const pr_hist_frozen *f, struct pr_hist_iter *it)
{
    int64_t i = it->index + 1;
    if (i < 0 || i >= (int64_t)f->n_buckets)
        return false;
    it->index = i;
    it->lowest_us = pr_hist_value_at_index(frozen_idx(f)[i]);
    it->value_us = pr_hist_highest_equivalent(it->lowest_us);
    it->count = frozen_count_at(f, (uint32_t)i);
    return true;
}

uint64_t pr_hist_frozen_value_at_percentile(const pr_hist_frozen *f, double p)
{
    if (f->max == 0)
        return 0;
    if (!(p > 0.0))
        return f->min;
    uint64_t rank = pr__hist_rank(p, f->total), seen = 0;
    const uint16_t *idx = frozen_idx(f);
    uint32_t i = 0, n = f->n_buckets;
    if (n == 0)
        return f->max;
    if (rank > f->total / 2) {
        /* A high percentile (a STATS' p95): from the top, over the few
         * buckets above the rank. The first bucket i whose count and
         * those above it reach total - rank + 1 holds the rank-th sample:
         * those strictly above it, seen, are at most total - rank. */
        uint64_t above_max = f->total - rank;
        for (i = n - 1; i > 0; i--) {
            uint64_t c = frozen_count_at(f, i);
            if (seen + c > above_max)
                break;
            seen += c;
        }
    } else {
        for (; i < n - 1; i++) {
            seen += frozen_count_at(f, i);
            if (seen >= rank)
                break;
        }
    }
    uint64_t v = pr_hist_highest_equivalent(pr_hist_value_at_index(idx[i]));
    return v < f->max ? v : f->max;
}

uint64_t pr_hist_frozen_sum(const pr_hist_frozen *f)
{
    return f->sum;
}

int pr_hist_frozen_pack(const pr_hist_frozen *f, msgpack_packer *pk)
{
    const uint16_t *idx = frozen_idx(f);
    int rc = pr__hist_pack_head(pk, f->total, f->max == 0 ? 0 : f->min, f->max, f->sum, f->clamped,
                                f->n_buckets);
    for (uint32_t i = 0; i < f->n_buckets && rc == 0; i++) {
        rc |= msgpack_pack_uint32(pk, idx[i] - (i > 0 ? idx[i - 1] : 0)); /* the gap */
        rc |= msgpack_pack_uint64(pk, frozen_count_at(f, i));
    }
    return rc == 0 ? 0 : -EIO;
}
