#include "pr_hist.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* HdrHistogram's layout for (lowest 1, highest 3600000000, 3 digits):
 * sub_bucket_count 2048 (2^11), half count 1024 (2^10), unit magnitude 0.
 * A value v of bit length L >= 12 lives in bucket b = L - 11 at index
 * (b << 10) + (v >> b); smaller values map to index v. */
#define PR__SUB_BUCKET_BITS 11
#define PR__HALF_BITS       10
#define PR__SUB_BUCKET_MASK ((1ULL << PR__SUB_BUCKET_BITS) - 1)
/* index_of(PR_HIST_MAX_US) + 1: 3600000000 has bit length 32, bucket 21. */
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
static inline int bucket_of(uint64_t v)
{
    return (64 - __builtin_clzll(v | PR__SUB_BUCKET_MASK)) - PR__SUB_BUCKET_BITS;
}

static inline int32_t index_of(uint64_t v)
{
    int b = bucket_of(v);
    return (int32_t)(((uint64_t)b << PR__HALF_BITS) + (v >> b));
}

static inline bool is_empty(const pr_hist *h)
{
    return h->max == 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

pr_hist *pr_hist_new(void)
{
    pr_hist *h = pr_xcalloc(1, sizeof(*h));
    h->min = UINT64_MAX;
    return h;
}

void pr_hist_destroy(pr_hist **h)
{
    if (h == NULL || *h == NULL)
        return;
    free(*h);
    *h = NULL;
}

void pr_hist_record(pr_hist *h, uint64_t value_us, uint64_t count)
{
    /* One branch covers both rare cases: out of range and count 0. */
    if (__builtin_expect(value_us - 1 >= PR_HIST_MAX_US || count == 0, 0)) {
        if (count == 0)
            return;
        h->clamped += count;
        value_us = value_us == 0 ? PR_HIST_MIN_US : PR_HIST_MAX_US;
    }
    h->counts[index_of(value_us)] += count;
    h->total += count;
    if (value_us < h->min)
        h->min = value_us;
    if (value_us > h->max)
        h->max = value_us;
    h->sum = sat_add(h->sum, sat_mul(value_us, count));
}

void pr_hist_add(pr_hist *dst, const pr_hist *src)
{
    if (is_empty(src))
        return;
    int32_t hi = index_of(src->max);
    for (int32_t i = index_of(src->min); i <= hi; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->clamped += src->clamped;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->sum = sat_add(dst->sum, src->sum);
}

void pr_hist_reset(pr_hist *h)
{
    if (!is_empty(h)) {
        int32_t lo = index_of(h->min);
        memset(&h->counts[lo], 0, (size_t)(index_of(h->max) - lo + 1) * sizeof(h->counts[0]));
    }
    h->total = 0;
    h->clamped = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->sum = 0;
}

void pr_hist_copy(pr_hist *dst, const pr_hist *src)
{
    if (dst == src)
        return;
    pr_hist_reset(dst);
    pr_hist_add(dst, src);
}

bool pr_hist_equal(const pr_hist *a, const pr_hist *b)
{
    if (a->total != b->total || a->clamped != b->clamped || a->min != b->min || a->max != b->max ||
        a->sum != b->sum)
        return false;
    if (is_empty(a))
        return true;
    int32_t lo = index_of(a->min);
    return memcmp(&a->counts[lo], &b->counts[lo],
                  (size_t)(index_of(a->max) - lo + 1) * sizeof(a->counts[0])) == 0;
}

bool pr_hist_same_buckets(const pr_hist *a, const pr_hist *b)
{
    if (is_empty(a) || is_empty(b))
        return is_empty(a) && is_empty(b);
    int32_t lo = index_of(a->min < b->min ? a->min : b->min);
    int32_t hi = index_of(a->max > b->max ? a->max : b->max);
    return memcmp(&a->counts[lo], &b->counts[lo], (size_t)(hi - lo + 1) * sizeof(a->counts[0])) ==
           0;
}

uint64_t pr_hist_count(const pr_hist *h)
{
    return h->total;
}

uint64_t pr_hist_clamped(const pr_hist *h)
{
    return h->clamped;
}

uint64_t pr_hist_min(const pr_hist *h)
{
    return is_empty(h) ? 0 : h->min;
}

uint64_t pr_hist_max(const pr_hist *h)
{
    return h->max;
}

uint64_t pr_hist_sum(const pr_hist *h)
{
    return h->sum;
}

double pr_hist_mean(const pr_hist *h)
{
    return h->total == 0 ? 0.0 : (double)h->sum / (double)h->total;
}

/* HdrHistogram's medianEquivalentValue(): middle of the bucket. */
static uint64_t median_equivalent(int32_t index)
{
    uint64_t lo = pr_hist_value_at_index(index);
    return lo + ((uint64_t)1 << bucket_of(lo) >> 1);
}

double pr_hist_stddev(const pr_hist *h)
{
    if (is_empty(h) || h->total == 0)
        return 0.0;
    /* As HdrHistogram's getStdDeviation(): mean and deviations both taken
     * from bucket midpoints, so the figure matches its tools exactly. */
    int32_t lo = index_of(h->min), hi = index_of(h->max);
    double total = 0.0;
    for (int32_t i = lo; i <= hi; i++)
        if (h->counts[i] != 0)
            total += (double)median_equivalent(i) * (double)h->counts[i];
    double mean = total / (double)h->total;
    double dev = 0.0;
    for (int32_t i = lo; i <= hi; i++) {
        if (h->counts[i] != 0) {
            double d = (double)median_equivalent(i) - mean;
            dev += d * d * (double)h->counts[i];
        }
    }
    return sqrt(dev / (double)h->total);
}

/* Java's Math.ulp() for a positive double, as hdr-histogram-js computes it. */
static double ulp(double x)
{
    int e;
    frexp(x, &e);
    return ldexp(1.0, e - 1 - 52);
}

uint64_t pr_hist_value_at_percentile(const pr_hist *h, double p)
{
    if (is_empty(h))
        return 0;
    if (!(p > 0.0))
        return h->min;
    if (p > 100.0)
        p = 100.0;
    double x = p / 100.0 * (double)h->total;
    double r = ceil(x - ulp(x));
    uint64_t rank = r < 1.0 ? 1 : r >= (double)h->total ? h->total : (uint64_t)r;
    uint64_t seen = 0;
    int32_t hi = index_of(h->max);
    for (int32_t i = index_of(h->min); i <= hi; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t v = pr_hist_highest_equivalent(pr_hist_value_at_index(i));
            return v < h->max ? v : h->max;
        }
    }
    return h->max;
}

uint64_t pr_hist_lowest_equivalent(uint64_t value_us)
{
    int b = bucket_of(value_us);
    return (value_us >> b) << b;
}

uint64_t pr_hist_highest_equivalent(uint64_t value_us)
{
    int b = bucket_of(value_us);
    return ((value_us >> b) << b) + ((uint64_t)1 << b) - 1;
}

bool pr_hist_next(const pr_hist *h, struct pr_hist_iter *it)
{
    if (is_empty(h))
        return false;
    int32_t lo = index_of(h->min), hi = index_of(h->max);
    int64_t i = it->index < lo ? lo : it->index + 1;
    for (; i <= hi; i++) {
        if (h->counts[i] != 0) {
            it->index = i;
            it->lowest_us = pr_hist_value_at_index((int32_t)i);
            it->value_us = pr_hist_highest_equivalent(it->lowest_us);
            it->count = h->counts[i];
            return true;
        }
    }
    it->index = hi;
    return false;
}

int32_t pr_hist_counts_len(void)
{
    return PR__COUNTS_LEN;
}

uint64_t pr_hist_count_at_index(const pr_hist *h, int32_t index)
{
    return index < 0 || index >= PR__COUNTS_LEN ? 0 : h->counts[index];
}

uint64_t pr_hist_value_at_index(int32_t index)
{
    if (index < 0)
        return 0;
    int b = (index >> PR__HALF_BITS) - 1;
    uint64_t sub = (uint64_t)(index & ((1 << PR__HALF_BITS) - 1)) + (1U << PR__HALF_BITS);
    if (b < 0) {
        sub -= 1U << PR__HALF_BITS;
        b = 0;
    }
    return sub << b;
}

int32_t pr_hist_index_of(uint64_t value_us)
{
    if (value_us < PR_HIST_MIN_US)
        value_us = PR_HIST_MIN_US;
    if (value_us > PR_HIST_MAX_US)
        value_us = PR_HIST_MAX_US;
    return index_of(value_us);
}

static int pack_key_u64(msgpack_packer *pk, const char *key, uint64_t v)
{
    size_t n = strlen(key);
    int rc = msgpack_pack_str(pk, n);
    rc |= msgpack_pack_str_body(pk, key, n);
    rc |= msgpack_pack_uint64(pk, v);
    return rc;
}

int pr_hist_pack(const pr_hist *h, msgpack_packer *pk)
{
    int32_t lo = is_empty(h) ? 0 : index_of(h->min);
    int32_t hi = is_empty(h) ? -1 : index_of(h->max);
    size_t buckets = 0;
    for (int32_t i = lo; i <= hi; i++)
        buckets += h->counts[i] != 0;

    int rc = msgpack_pack_map(pk, 6);
    rc |= pack_key_u64(pk, "n", h->total);
    rc |= pack_key_u64(pk, "min", pr_hist_min(h));
    rc |= pack_key_u64(pk, "max", h->max);
    rc |= pack_key_u64(pk, "sum", h->sum);
    rc |= pack_key_u64(pk, "clamp", h->clamped);
    rc |= msgpack_pack_str(pk, 1);
    rc |= msgpack_pack_str_body(pk, "b", 1);
    rc |= msgpack_pack_array(pk, buckets * 2);
    for (int32_t i = lo; i <= hi && rc == 0; i++) {
        if (h->counts[i] != 0) {
            rc |= msgpack_pack_uint32(pk, (uint32_t)i);
            rc |= msgpack_pack_uint64(pk, h->counts[i]);
        }
    }
    return rc == 0 ? 0 : -EIO;
}

/* The decoded map, before the cross-checks. */
struct hist_fields {
    uint64_t v[5];                 /* n, min, max, sum, clamp, in key order */
    const msgpack_object_array *b; /* the flattened [index, count] array */
    unsigned seen;                 /* bit per key of hist_keys found */
};

static const char *const hist_keys[6] = {"n", "min", "max", "sum", "clamp", "b"};

static int unpack_field(struct hist_fields *f, int k, const msgpack_object *val,
                        struct pr_error *err)
{
    if (f->seen & (1U << k))
        return pr_error_set(err, PR_EDUP_KEY, "hist: duplicate key \"%s\"", hist_keys[k]);
    f->seen |= 1U << k;
    if (k == 5) {
        if (val->type != MSGPACK_OBJECT_ARRAY)
            return pr_error_set(err, PR_EBAD_TYPE, "hist: \"b\" is not an array");
        f->b = &val->via.array;
        return 0;
    }
    if (val->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return pr_error_set(err, PR_EBAD_TYPE, "hist: \"%s\" is not an unsigned integer",
                            hist_keys[k]);
    f->v[k] = val->via.u64;
    return 0;
}

static int unpack_fields(const msgpack_object *obj, struct hist_fields *f, struct pr_error *err)
{
    if (obj == NULL || obj->type != MSGPACK_OBJECT_MAP)
        return pr_error_set(err, PR_EBAD_TYPE, "hist: not a map");
    for (uint32_t i = 0; i < obj->via.map.size; i++) {
        const msgpack_object_kv *kv = &obj->via.map.ptr[i];
        if (kv->key.type != MSGPACK_OBJECT_STR)
            continue;
        for (int k = 0; k < 6; k++) {
            size_t n = strlen(hist_keys[k]);
            if (kv->key.via.str.size == n && memcmp(kv->key.via.str.ptr, hist_keys[k], n) == 0) {
                int rc = unpack_field(f, k, &kv->val, err);
                if (rc != 0)
                    return rc;
                break;
            }
        }
    }
    for (int k = 0; k < 6; k++)
        if (!(f->seen & (1U << k)))
            return pr_error_set(err, PR_EMISSING_KEY, "hist: missing key \"%s\"", hist_keys[k]);
    return 0;
}

/* Fills h->counts from f->b; *lo and *hi get the first/last index written
 * (hi < lo when none), even on failure, so the caller can clear them. */
static int unpack_buckets(pr_hist *h, const struct hist_fields *f, int32_t *lo, int32_t *hi,
                          struct pr_error *err)
{
    const msgpack_object_array *b = f->b;
    *lo = 0;
    *hi = -1;
    if (b->size % 2 != 0)
        return pr_error_set(err, PR_EBAD_HIST, "hist: \"b\" has odd length %u", b->size);
    if (b->size / 2 > PR_HIST_MAX_BUCKETS)
        return pr_error_set(err, PR_ETOO_BIG, "hist: %u buckets", b->size / 2);
    uint64_t total = 0;
    for (uint32_t i = 0; i < b->size; i += 2) {
        const msgpack_object *io = &b->ptr[i], *co = &b->ptr[i + 1];
        if (io->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
            co->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return pr_error_set(err, PR_EBAD_TYPE, "hist: bucket %u is not two uints", i / 2);
        if (io->via.u64 < 1 || io->via.u64 >= PR__COUNTS_LEN)
            return pr_error_set(err, PR_ERANGE, "hist: bucket index %" PRIu64 " out of range",
                                io->via.u64);
        int32_t idx = (int32_t)io->via.u64;
        if (idx <= *hi)
            return pr_error_set(err, PR_EBAD_HIST, "hist: bucket index %d not increasing", idx);
        if (co->via.u64 == 0)
            return pr_error_set(err, PR_EBAD_HIST, "hist: zero count at index %d", idx);
        if (__builtin_add_overflow(total, co->via.u64, &total))
            return pr_error_set(err, PR_EBAD_HIST, "hist: total count overflows");
        h->counts[idx] = co->via.u64;
        if (*hi < *lo)
            *lo = idx;
        *hi = idx;
    }
    if (total != f->v[0])
        return pr_error_set(err, PR_EBAD_HIST, "hist: n %" PRIu64 " != sum of counts %" PRIu64,
                            f->v[0], total);
    return 0;
}

/* min, max, sum and clamp against the buckets [lo, hi] already in h. */
static int check_summary(const pr_hist *h, const struct hist_fields *f, int32_t lo, int32_t hi,
                         struct pr_error *err)
{
    uint64_t n = f->v[0], min = f->v[1], max = f->v[2], sum = f->v[3], clamp = f->v[4];
    if (n == 0) {
        if (min != 0 || max != 0 || sum != 0 || clamp != 0)
            return pr_error_set(err, PR_EBAD_HIST, "hist: empty but min/max/sum/clamp not 0");
        return 0;
    }
    if (min < PR_HIST_MIN_US || max > PR_HIST_MAX_US || min > max)
        return pr_error_set(err, PR_EBAD_HIST, "hist: min %" PRIu64 " / max %" PRIu64 " invalid",
                            min, max);
    if (index_of(min) != lo || index_of(max) != hi)
        return pr_error_set(err, PR_EBAD_HIST, "hist: min/max not in the first/last bucket");
    if (sum < sat_mul(min, n) || sum > sat_mul(max, n))
        return pr_error_set(err, PR_EBAD_HIST, "hist: sum %" PRIu64 " inconsistent", sum);
    if (clamp > sat_add(h->counts[1], h->counts[PR__COUNTS_LEN - 1]))
        return pr_error_set(err, PR_EBAD_HIST, "hist: clamp %" PRIu64 " exceeds edge buckets",
                            clamp);
    return 0;
}

int pr_hist_unpack(pr_hist *h, const msgpack_object *obj, struct pr_error *err)
{
    struct hist_fields f = {{0}, NULL, 0};
    int32_t lo = 0, hi = -1;
    pr_hist_reset(h);
    int rc = unpack_fields(obj, &f, err);
    if (rc == 0)
        rc = unpack_buckets(h, &f, &lo, &hi, err);
    if (rc == 0)
        rc = check_summary(h, &f, lo, hi, err);
    if (rc != 0) {
        if (hi >= lo)
            memset(&h->counts[lo], 0, (size_t)(hi - lo + 1) * sizeof(h->counts[0]));
        return rc;
    }
    h->total = f.v[0];
    if (h->total != 0) {
        h->min = f.v[1];
        h->max = f.v[2];
    }
    h->sum = f.v[3];
    h->clamped = f.v[4];
    return 0;
}

/* ---- frozen form ---- */

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
    return (uint16_t *)((char *)(uintptr_t)f->data + f->n_buckets * count_width(f->wide));
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
    if (is_empty(h))
        return 0;
    uint32_t n = 0;
    for (int32_t i = index_of(h->min), hi = index_of(h->max); i <= hi; i++)
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
    if (!is_empty(h))
        n = append_range(f, frozen_idx(f), 0, h, index_of(h->min), index_of(h->max));
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
    for (uint32_t i = 0; i < f->n_buckets; i++)
        dst->counts[idx[i]] += frozen_count_at(f, i);
    dst->total += f->total;
    dst->clamped += f->clamped;
    if (f->min < dst->min)
        dst->min = f->min;
    if (f->max > dst->max)
        dst->max = f->max;
    dst->sum = sat_add(dst->sum, f->sum);
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
    int32_t lo = index_of(src->min), hi = index_of(src->max);
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
    if (is_empty(src))
        return;
    pr_hist_frozen *old = *f;
    uint64_t total = old->total + src->total;
    pr_hist_frozen *g = frozen_alloc(old->n_buckets + occupied(src) + 1, total > UINT32_MAX);
    g = frozen_trim(g, merge_into(old, src, g));
    frozen_summary(g, total, old->clamped + src->clamped, old->min < src->min ? old->min : src->min,
                   old->max > src->max ? old->max : src->max, sat_add(old->sum, src->sum));
    free(old);
    *f = g;
}
