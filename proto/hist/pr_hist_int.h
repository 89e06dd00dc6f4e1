/* pr_hist_int: what proto/hist/pr_hist.c, pr_hist_raw.c (the raw-bytes
 * decoder) and pr_hist_frozen.c (the frozen form) share: the histogram's
 * layout and struct, and the decoders' common checks, so that
 * pr_hist_unpack() and pr_hist_unpack_raw() accept and reject alike, with
 * the same codes and messages. Internal to proto/. */
#ifndef PR_HIST_INT_H
#define PR_HIST_INT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include <msgpack.h>

#include "pr_err.h"
#include "pr_hist.h"

/* HdrHistogram's layout for (lowest 1, highest 3600000000, 3 digits):
 * sub_bucket_count 2048 (2^11), half count 1024 (2^10), unit magnitude 0.
 * A value v of bit length L >= 12 lives in bucket b = L - 11 at index
 * (b << 10) + (v >> b); smaller values map to index v. */
#define PR__SUB_BUCKET_BITS 11
#define PR__HALF_BITS       10
#define PR__SUB_BUCKET_MASK ((1ULL << PR__SUB_BUCKET_BITS) - 1)
/* pr__hist_index_of(PR_HIST_MAX_US) + 1: 3600000000 has bit length 32, bucket 21. */
#define PR__COUNTS_LEN ((21 << PR__HALF_BITS) + (int32_t)(PR_HIST_MAX_US >> 21) + 1)

struct pr_hist {
    uint64_t total;   /* samples recorded */
    uint64_t clamped; /* samples whose value was outside [1, PR_HIST_MAX_US] */
    uint64_t min;     /* exact smallest recorded value; UINT64_MAX when empty */
    uint64_t max;     /* exact largest recorded value; 0 when empty (the emptiness test) */
    uint64_t sum;     /* sum of recorded values, saturating at UINT64_MAX */
    /* HdrHistogram counts; always zero outside [index(min), index(max)], which
     * lets add, reset, iterate and pack touch only the occupied region. */
    uint64_t counts[PR__COUNTS_LEN];
};

/* Bucket of an in-range value: its bit length minus 11, at least 0. */
static inline int pr__hist_bucket_of(uint64_t v)
{
    return (64 - __builtin_clzll(v | PR__SUB_BUCKET_MASK)) - PR__SUB_BUCKET_BITS;
}

static inline int32_t pr__hist_index_of(uint64_t v)
{
    int b = pr__hist_bucket_of(v);
    return (int32_t)(((uint64_t)b << PR__HALF_BITS) + (v >> b));
}

static inline bool pr__hist_is_empty(const pr_hist *h)
{
    return h->max == 0;
}

static inline uint64_t pr__sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t pr__sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The rank (1..total) of percentile p in (0, 100] (above 100 means 100)
 * of total > 0 samples, as pr_hist_value_at_percentile() computes it
 * (pr_hist.h): shared with the frozen form's (pr_hist_frozen.c). */
uint64_t pr__hist_rank(double p, uint64_t total);

/* ---- decoding: the checks both decoders share (pr_hist.c) ---- */

/* The decoded map, before the cross-checks. */
struct pr__hist_fields {
    uint64_t v[5];               /* n, min, max, sum, clamp, in key order */
    uint32_t b_size;             /* elements of "b", the flattened [gap, count] array */
    const msgpack_object *b_obj; /* tree: b's elements */
    unsigned seen;               /* bit per key number (pr__hist_key) found */
};

/* The buckets decoded so far. */
struct pr__bucket_acc {
    int32_t lo, hi; /* first and last index written; hi < lo when none */
    uint64_t total; /* sum of their counts */
};

/* A pair of "b", both unsigned integers: gap (the bucket's index minus
 * the previous bucket's; the first bucket's index itself) and count,
 * checked and counted in a, whose hi becomes the bucket's index (not
 * stored anywhere: the caller stores it, densely or sparsely). */
static inline int pr__hist_check_bucket(struct pr__bucket_acc *a, uint64_t gap, uint64_t count,
                                        struct pr_error *err)
{
    uint64_t prev = a->hi < a->lo ? 0 : (uint64_t)a->hi;
    if ((gap == 0 && prev == 0) || gap >= PR__COUNTS_LEN - prev)
        return pr_error_set(err, PR_ERANGE, "hist: bucket index %" PRIu64 " out of range",
                            pr__sat_add(prev, gap));
    int32_t idx = (int32_t)(prev + gap);
    if (gap == 0)
        return pr_error_set(err, PR_EBAD_HIST, "hist: bucket index %d not increasing", idx);
    if (count == 0)
        return pr_error_set(err, PR_EBAD_HIST, "hist: zero count at index %d", idx);
    if (__builtin_add_overflow(a->total, count, &a->total))
        return pr_error_set(err, PR_EBAD_HIST, "hist: total count overflows");
    if (a->hi < a->lo)
        a->lo = idx;
    a->hi = idx;
    return 0;
}

/* A pair of "b" (gap, count), both unsigned integers: checked, then
 * stored in h. */
static inline int pr__hist_put_bucket(pr_hist *h, struct pr__bucket_acc *a, uint64_t gap,
                                      uint64_t count, struct pr_error *err)
{
    int rc = pr__hist_check_bucket(a, gap, count, err);
    if (rc == 0)
        h->counts[a->hi] = count;
    return rc;
}

/* Key number (0..5: n, min, max, sum, clamp, b) of a string key of n
 * bytes, -1 for an unknown one. */
int pr__hist_key(const char *s, uint32_t n);
/* Value val of key k into f: PR_EDUP_KEY for a key seen before,
 * PR_EBAD_TYPE for a wrong type. val is whole for a scalar; for "b" (an
 * array) its size and element pointer (NULL from the raw reader) only. */
int pr__hist_field(struct pr__hist_fields *f, int k, const msgpack_object *val,
                   struct pr_error *err);
/* PR_EMISSING_KEY naming the first key f has not seen, else 0. */
int pr__hist_check_seen(const struct pr__hist_fields *f, struct pr_error *err);
/* "b"'s length, before any element is read: PR_EBAD_HIST when odd,
 * PR_ETOO_BIG over PR_HIST_MAX_BUCKETS pairs. */
int pr__hist_check_b_size(uint32_t size, struct pr_error *err);
/* PR_EBAD_TYPE: pair number pair of "b" is not two unsigned integers. */
int pr__hist_bad_pair(uint32_t pair, struct pr_error *err);
/* PR_EBAD_HIST when "n" is not the sum of the buckets' counts. */
int pr__hist_check_total(const struct pr__hist_fields *f, const struct pr__bucket_acc *a,
                         struct pr_error *err);
/* min, max, sum and clamp of f against the buckets [lo, hi] decoded, edge
 * the counts of the first and last valid buckets (1, PR__COUNTS_LEN - 1)
 * added: 0 or PR_EBAD_HIST. */
int pr__hist_check_summary(const struct pr__hist_fields *f, int32_t lo, int32_t hi, uint64_t edge,
                           struct pr_error *err);

/* pr_hist_pack()'s map up to the "b" array's header (buckets pairs): the
 * summary keys in their order, for both packers (dense and frozen). 0 or
 * msgpack-c's nonzero. */
int pr__hist_pack_head(msgpack_packer *pk, uint64_t n, uint64_t min, uint64_t max, uint64_t sum,
                       uint64_t clamp, size_t buckets);

/* ---- the frozen form's layout (pr_hist_frozen.c; read by pr_hist_acc.c) ---- */

struct pr_hist_frozen {
    uint64_t total;     /* as pr_hist */
    uint64_t clamped;   /* as pr_hist */
    uint64_t min;       /* as pr_hist: UINT64_MAX when empty */
    uint64_t max;       /* as pr_hist: 0 when empty (the emptiness test) */
    uint64_t sum;       /* as pr_hist */
    uint32_t n_buckets; /* occupied buckets held */
    bool wide;          /* counts are uint64_t: total > UINT32_MAX (else uint32_t) */
    /* n_buckets counts (uint32_t, or uint64_t when wide), then their
     * n_buckets uint16_t indexes (< 2^15), increasing. Fixed width rather
     * than varints: merging stays a few ns a bucket. */
    uint64_t data[];
};

/* f's n_buckets indexes, after its counts. */
static inline uint16_t *pr__frozen_idx(const pr_hist_frozen *f)
{
    size_t width = f->wide ? sizeof(uint64_t) : sizeof(uint32_t);
    return (uint16_t *)((char *)(uintptr_t)f->data + f->n_buckets * width);
}

/* ---- the frozen form, built sparse (pr_hist_frozen.c, for pr_hist_raw.c) ---- */

/* A frozen histogram with room for cap buckets, uint64_t counts (wide),
 * nothing in it yet: *cnt and *idx are its arrays to fill. */
pr_hist_frozen *pr__hist_frozen_wide(uint32_t cap, uint64_t **cnt, uint16_t **idx);
/* The same with uint32_t counts (narrow), for a total known to fit. */
pr_hist_frozen *pr__hist_frozen_narrow(uint32_t cap, uint32_t **cnt, uint16_t **idx);
/* f (from pr__hist_frozen_wide or _narrow) holding its first n buckets and
 * the given summary, narrowed to uint32_t counts when total allows and
 * trimmed: the result replaces f (which may have moved; a narrow f filled
 * to its cap stays where it is, untouched but for the summary). */
pr_hist_frozen *pr__hist_frozen_seal(pr_hist_frozen *f, uint32_t n, uint64_t total,
                                     uint64_t clamped, uint64_t min, uint64_t max, uint64_t sum);

/* pr_hist_unpack_raw_frozen() of the histogram that buf[0..len) starts
 * with (bytes may follow it): 0 with *used its length, or a negative code
 * and no message (the caller, on this rare path, decodes the exact bytes
 * again for the message). One pass where a skip then a decode was two.
 * Stricter than the exact decode: a map of more than
 * PR__HIST_PREFIX_MAX_KEYS keys, or holding an array or map anywhere but
 * "b", is refused, so that what it accepts pr_msg's pre-scan accepts too
 * (PR_MSG_MAX_KEYS, PR_MSG_MAX_DEPTH) and the pre-scan may skip it. */
#define PR__HIST_PREFIX_MAX_KEYS 64
int pr__hist_unpack_raw_frozen_prefix(pr_hist_frozen **out, const void *buf, size_t len,
                                      size_t *used);

/* The last step of both decoders, given their result so far rc: summary
 * checks, then h takes f's summary; on failure h loses the buckets written
 * (a's range) and the first failure's code is returned. */
int pr__hist_unpack_finish(pr_hist *h, const struct pr__hist_fields *f,
                           const struct pr__bucket_acc *a, int rc, struct pr_error *err);

#endif
