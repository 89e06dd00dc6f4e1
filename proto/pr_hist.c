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

/* Longest varint: an index delta (< 2^21) takes 3 bytes, a count 10. */
#define PR__PAIR_MAX 13

struct pr_hist_frozen {
    uint64_t total;     /* as pr_hist */
    uint64_t clamped;   /* as pr_hist */
    uint64_t min;       /* as pr_hist: UINT64_MAX when empty */
    uint64_t max;       /* as pr_hist: 0 when empty */
    uint64_t sum;       /* as pr_hist */
    uint32_t n_buckets; /* occupied buckets encoded */
    uint32_t len;       /* bytes used in bytes[] */
    /* Per occupied bucket, in increasing index order: LEB128 varints of the
     * index minus the previous one (the first: the index itself) and of
     * the count (> 0). Written only by this file, so read without checks. */
    uint8_t bytes[];
};

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static const uint8_t *get_varint(const uint8_t *p, uint64_t *v)
{
    uint64_t x = 0;
    unsigned shift = 0;
    while (*p & 0x80) {
        x |= (uint64_t)(*p++ & 0x7f) << shift;
        shift += 7;
    }
    *v = x | (uint64_t)*p++ << shift;
    return p;
}

static pr_hist_frozen *frozen_alloc(size_t cap)
{
    return pr_xmalloc(sizeof(pr_hist_frozen) + cap);
}

/* Reads f's buckets one at a time. */
struct frozen_reader {
    const uint8_t *p; /* next pair */
    uint32_t left;    /* buckets not read yet */
    uint64_t idx;     /* current bucket's index, valid when has */
    uint64_t count;   /* its count */
    bool has;         /* a current bucket */
};

static void reader_next(struct frozen_reader *r)
{
    uint64_t d;
    r->has = r->left > 0;
    if (r->has) {
        r->p = get_varint(get_varint(r->p, &d), &r->count);
        r->idx += d;
        r->left--;
    }
}

pr_hist_frozen *pr_hist_freeze(const pr_hist *h)
{
    int32_t lo = is_empty(h) ? 0 : index_of(h->min);
    int32_t hi = is_empty(h) ? -1 : index_of(h->max);
    size_t len = 0;
    uint32_t n = 0;
    for (int32_t i = lo, prev = 0; i <= hi; i++) {
        if (h->counts[i] != 0) {
            len += varint_len((uint64_t)(i - prev)) + varint_len(h->counts[i]);
            prev = i;
            n++;
        }
    }
    pr_hist_frozen *f = frozen_alloc(len);
    f->total = h->total;
    f->clamped = h->clamped;
    f->min = h->min;
    f->max = h->max;
    f->sum = h->sum;
    f->n_buckets = n;
    f->len = (uint32_t)len;
    uint8_t *p = f->bytes;
    for (int32_t i = lo, prev = 0; i <= hi; i++) {
        if (h->counts[i] != 0) {
            p = put_varint(p, (uint64_t)(i - prev));
            p = put_varint(p, h->counts[i]);
            prev = i;
        }
    }
    return f;
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
    return sizeof(*f) + f->len;
}

void pr_hist_add_frozen(pr_hist *dst, const pr_hist_frozen *f)
{
    if (f->max == 0)
        return;
    struct frozen_reader r = {f->bytes, f->n_buckets, 0, 0, false};
    for (reader_next(&r); r.has; reader_next(&r))
        dst->counts[r.idx] += r.count;
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

/* Append bucket (idx, count) to the stream at p; *prev is the last index. */
static uint8_t *put_pair(uint8_t *p, uint64_t idx, uint64_t count, uint64_t *prev)
{
    p = put_varint(p, idx - *prev);
    *prev = idx;
    return put_varint(p, count);
}

/* f's buckets and src's (non-empty), merged in index order into out (large
 * enough); returns the bytes written and sets *n to the buckets. */
static size_t merge_into(const pr_hist_frozen *f, const pr_hist *src, uint8_t *out, uint32_t *n)
{
    struct frozen_reader r = {f->bytes, f->n_buckets, 0, 0, false};
    uint64_t i = (uint64_t)index_of(src->min), hi = (uint64_t)index_of(src->max), prev = 0;
    uint8_t *q = out;
    *n = 0;
    reader_next(&r);
    for (;;) {
        while (i <= hi && src->counts[i] == 0)
            i++;
        if (r.has && (i > hi || r.idx < i)) {
            q = put_pair(q, r.idx, r.count, &prev);
            reader_next(&r);
        } else if (i <= hi) {
            bool both = r.has && r.idx == i;
            q = put_pair(q, i, src->counts[i] + (both ? r.count : 0), &prev);
            if (both)
                reader_next(&r);
            i++;
        } else {
            break;
        }
        (*n)++;
    }
    return (size_t)(q - out);
}

void pr_hist_frozen_add(pr_hist_frozen **f, const pr_hist *src)
{
    if (*f == NULL) {
        *f = pr_hist_freeze(src);
        return;
    }
    if (is_empty(src))
        return;
    int32_t lo = index_of(src->min), hi = index_of(src->max);
    size_t occupied = 0;
    for (int32_t i = lo; i <= hi; i++)
        occupied += src->counts[i] != 0;
    pr_hist_frozen *old = *f;
    pr_hist_frozen *g = frozen_alloc(((size_t)old->n_buckets + occupied) * PR__PAIR_MAX);
    uint32_t n;
    size_t len = merge_into(old, src, g->bytes, &n);
    g = pr_xrealloc(g, sizeof(*g) + len);
    g->n_buckets = n;
    g->len = (uint32_t)len;
    g->total = old->total + src->total;
    g->clamped = old->clamped + src->clamped;
    g->min = old->min < src->min ? old->min : src->min;
    g->max = old->max > src->max ? old->max : src->max;
    g->sum = sat_add(old->sum, src->sum);
    free(old);
    *f = g;
}
