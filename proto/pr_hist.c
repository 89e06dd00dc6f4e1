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

/* ---- decoding: one set of checks for msgpack-c's tree and for raw bytes ----
 *
 * pr_hist_unpack() reads msgpack-c objects; pr_hist_unpack_raw() reads the
 * bytes themselves (a STATS histogram is ~5600 integers, and building
 * msgpack-c's tree for them was most of a STATS decode). Both feed the same
 * field, bucket and summary checks below, so they accept and reject alike,
 * with the same codes and messages. */

/* The decoded map, before the cross-checks. */
struct hist_fields {
    uint64_t v[5];               /* n, min, max, sum, clamp, in key order */
    uint32_t b_size;             /* elements of "b", the flattened [index, count] array */
    const msgpack_object *b_obj; /* tree: b's elements */
    unsigned seen;               /* bit per key of hist_keys found */
};

static const char *const hist_keys[6] = {"n", "min", "max", "sum", "clamp", "b"};

/* Key number of a string key, -1 for an unknown one. */
static int hist_key(const char *s, uint32_t n)
{
    for (int k = 0; k < 6; k++)
        if (n == strlen(hist_keys[k]) && memcmp(s, hist_keys[k], n) == 0)
            return k;
    return -1;
}

/* Value val of key k. val is whole for a scalar; for an array, its type
 * and size (the caller records where its elements are). */
static int unpack_field(struct hist_fields *f, int k, const msgpack_object *val,
                        struct pr_error *err)
{
    if (f->seen & (1U << k))
        return pr_error_set(err, PR_EDUP_KEY, "hist: duplicate key \"%s\"", hist_keys[k]);
    f->seen |= 1U << k;
    if (k == 5) {
        if (val->type != MSGPACK_OBJECT_ARRAY)
            return pr_error_set(err, PR_EBAD_TYPE, "hist: \"b\" is not an array");
        f->b_size = val->via.array.size;
        f->b_obj = val->via.array.ptr;
        return 0;
    }
    if (val->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return pr_error_set(err, PR_EBAD_TYPE, "hist: \"%s\" is not an unsigned integer",
                            hist_keys[k]);
    f->v[k] = val->via.u64;
    return 0;
}

static int check_seen(const struct hist_fields *f, struct pr_error *err)
{
    for (int k = 0; k < 6; k++)
        if (!(f->seen & (1U << k)))
            return pr_error_set(err, PR_EMISSING_KEY, "hist: missing key \"%s\"", hist_keys[k]);
    return 0;
}

static int unpack_fields(const msgpack_object *obj, struct hist_fields *f, struct pr_error *err)
{
    if (obj == NULL || obj->type != MSGPACK_OBJECT_MAP)
        return pr_error_set(err, PR_EBAD_TYPE, "hist: not a map");
    for (uint32_t i = 0; i < obj->via.map.size; i++) {
        const msgpack_object_kv *kv = &obj->via.map.ptr[i];
        int k = kv->key.type == MSGPACK_OBJECT_STR
                    ? hist_key(kv->key.via.str.ptr, kv->key.via.str.size)
                    : -1;
        int rc = k < 0 ? 0 : unpack_field(f, k, &kv->val, err);
        if (rc != 0)
            return rc;
    }
    return check_seen(f, err);
}

/* The buckets decoded so far. */
struct bucket_acc {
    int32_t lo, hi; /* first and last index written; hi < lo when none */
    uint64_t total; /* sum of their counts */
};

/* "b"'s length, before any element is read. */
static int check_b_size(uint32_t size, struct pr_error *err)
{
    if (size % 2 != 0)
        return pr_error_set(err, PR_EBAD_HIST, "hist: \"b\" has odd length %u", size);
    if (size / 2 > PR_HIST_MAX_BUCKETS)
        return pr_error_set(err, PR_ETOO_BIG, "hist: %u buckets", size / 2);
    return 0;
}

static int bad_pair(uint32_t pair, struct pr_error *err)
{
    return pr_error_set(err, PR_EBAD_TYPE, "hist: bucket %u is not two uints", pair);
}

/* A pair of "b", both unsigned integers: checked, then stored in h. */
static inline int put_bucket(pr_hist *h, struct bucket_acc *a, uint64_t index, uint64_t count,
                             struct pr_error *err)
{
    if (index < 1 || index >= PR__COUNTS_LEN)
        return pr_error_set(err, PR_ERANGE, "hist: bucket index %" PRIu64 " out of range", index);
    int32_t idx = (int32_t)index;
    if (idx <= a->hi)
        return pr_error_set(err, PR_EBAD_HIST, "hist: bucket index %d not increasing", idx);
    if (count == 0)
        return pr_error_set(err, PR_EBAD_HIST, "hist: zero count at index %d", idx);
    if (__builtin_add_overflow(a->total, count, &a->total))
        return pr_error_set(err, PR_EBAD_HIST, "hist: total count overflows");
    h->counts[idx] = count;
    if (a->hi < a->lo)
        a->lo = idx;
    a->hi = idx;
    return 0;
}

static int check_total(const struct hist_fields *f, const struct bucket_acc *a,
                       struct pr_error *err)
{
    if (a->total != f->v[0])
        return pr_error_set(err, PR_EBAD_HIST, "hist: n %" PRIu64 " != sum of counts %" PRIu64,
                            f->v[0], a->total);
    return 0;
}

/* Fills h->counts from the tree's "b"; a gets the indexes written, even on
 * failure, so the caller can clear them. */
static int unpack_buckets(pr_hist *h, const struct hist_fields *f, struct bucket_acc *a,
                          struct pr_error *err)
{
    int rc = check_b_size(f->b_size, err);
    for (uint32_t i = 0; rc == 0 && i < f->b_size; i += 2) {
        const msgpack_object *io = &f->b_obj[i], *co = &f->b_obj[i + 1];
        if (io->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
            co->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return bad_pair(i / 2, err);
        rc = put_bucket(h, a, io->via.u64, co->via.u64, err);
    }
    return rc == 0 ? check_total(f, a, err) : rc;
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

/* The last step of both decoders: summary checks, then h takes f's
 * summary, or on failure loses the buckets written. */
static int unpack_finish(pr_hist *h, const struct hist_fields *f, const struct bucket_acc *a,
                         int rc, struct pr_error *err)
{
    if (rc == 0)
        rc = check_summary(h, f, a->lo, a->hi, err);
    if (rc != 0) {
        if (a->hi >= a->lo)
            memset(&h->counts[a->lo], 0, (size_t)(a->hi - a->lo + 1) * sizeof(h->counts[0]));
        return rc;
    }
    h->total = f->v[0];
    if (h->total != 0) {
        h->min = f->v[1];
        h->max = f->v[2];
    }
    h->sum = f->v[3];
    h->clamped = f->v[4];
    return 0;
}

int pr_hist_unpack(pr_hist *h, const msgpack_object *obj, struct pr_error *err)
{
    struct hist_fields f = {{0}, 0, NULL, 0};
    struct bucket_acc a = {0, -1, 0};
    pr_hist_reset(h);
    int rc = unpack_fields(obj, &f, err);
    if (rc == 0)
        rc = unpack_buckets(h, &f, &a, err);
    return unpack_finish(h, &f, &a, rc, err);
}

/* ---- raw bytes ---- */

/* A cursor over raw msgpack bytes. */
struct rd {
    const uint8_t *p; /* input */
    size_t len;       /* input length */
    size_t off;       /* next byte */
};

static int rd_fail(const struct rd *r, struct pr_error *err)
{
    bool c1 = r->off < r->len && r->p[r->off] == 0xc1;
    return pr_error_set(err, c1 ? PR_EINVAL : PR_ETRUNCATED, "hist: %s msgpack at offset %zu",
                        c1 ? "malformed" : "truncated", r->off);
}

/* A string, bin or ext of head + n bytes at r. */
static bool rd_body(struct rd *r, msgpack_object *o, msgpack_object_type type, size_t head,
                    uint64_t n)
{
    if (r->len - r->off < head || n > r->len - r->off - head)
        return false;
    o->type = type;
    o->via.str.size = (uint32_t)n;
    o->via.str.ptr = (const char *)r->p + r->off + head;
    r->off += head + (size_t)n;
    return true;
}

/* The w-byte (1, 2, 4 or 8) big-endian unsigned integer at p. */
static inline uint64_t rd_uint_be(const uint8_t *p, unsigned w)
{
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    switch (w) {
    case 1:
        return p[0];
    case 2:
        memcpy(&v16, p, 2);
        return __builtin_bswap16(v16);
    case 4:
        memcpy(&v32, p, 4);
        return __builtin_bswap32(v32);
    default:
        memcpy(&v64, p, 8);
        return __builtin_bswap64(v64);
    }
}

/* rd_head for the 0xc0..0xdf kinds. */
static bool rd_var(struct rd *r, msgpack_object *o, uint8_t b)
{
    static const uint8_t width[0x20] = {
        /* c0 */ 0, 0, 0, 0, 1, 2, 4, 1, 2, 4, 4, 8, 1, 2, 4, 8,
        /* d0 */ 1, 2, 4, 8, 1, 1, 1, 1, 1, 1, 2, 4, 2, 4, 2, 4};
    unsigned w = width[b - 0xc0];
    if (b == 0xc1 || r->len - r->off < 1 + (size_t)w)
        return false;
    uint64_t n = 0;
    for (unsigned i = 1; i <= w; i++)
        n = (n << 8) | r->p[r->off + i];
    if (b >= 0xc4 && b <= 0xc6)
        return rd_body(r, o, MSGPACK_OBJECT_BIN, 1 + w, n);
    if (b >= 0xc7 && b <= 0xc9) /* ext8/16/32: length, type byte, data */
        return rd_body(r, o, MSGPACK_OBJECT_EXT, 2 + w, n);
    if (b >= 0xd4 && b <= 0xd8) /* fixext: type byte, 1 << k bytes of data */
        return rd_body(r, o, MSGPACK_OBJECT_EXT, 2, 1U << (b - 0xd4));
    if (b >= 0xd9 && b <= 0xdb)
        return rd_body(r, o, MSGPACK_OBJECT_STR, 1 + w, n);
    if (b >= 0xcc && b <= 0xcf) {
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = n;
    } else if (b >= 0xd0 && b <= 0xd3) {
        int64_t s = b == 0xd0   ? (int8_t)n
                    : b == 0xd1 ? (int16_t)n
                    : b == 0xd2 ? (int32_t)n
                                : (int64_t)n;
        o->type = s >= 0 ? MSGPACK_OBJECT_POSITIVE_INTEGER : MSGPACK_OBJECT_NEGATIVE_INTEGER;
        o->via.i64 = s;
    } else if (b >= 0xdc) {
        o->type = b >= 0xde ? MSGPACK_OBJECT_MAP : MSGPACK_OBJECT_ARRAY;
        o->via.array.size = (uint32_t)n;
        o->via.array.ptr = NULL;
    } else {
        o->type = b == 0xc0   ? MSGPACK_OBJECT_NIL
                  : b <= 0xc3 ? MSGPACK_OBJECT_BOOLEAN
                  : b == 0xca ? MSGPACK_OBJECT_FLOAT32
                              : MSGPACK_OBJECT_FLOAT64;
        o->via.u64 = 0;
    }
    r->off += 1 + w;
    return true;
}

/* The object at r, typed as msgpack-c types it (a signed encoding of a
 * value >= 0 is a POSITIVE_INTEGER). Integers and strings are filled in,
 * other scalars get their type; an array or map its type and size (no
 * elements), r then on its first element. False (r unmoved) when
 * truncated or not msgpack (0xc1). */
static inline bool rd_head(struct rd *r, msgpack_object *o)
{
    if (r->off >= r->len)
        return false;
    uint8_t b = r->p[r->off];
    if (b <= 0x7f || b >= 0xe0) {
        o->type = b <= 0x7f ? MSGPACK_OBJECT_POSITIVE_INTEGER : MSGPACK_OBJECT_NEGATIVE_INTEGER;
        o->via.i64 = (int8_t)b;
        if (b <= 0x7f)
            o->via.u64 = b;
    } else if (b <= 0x9f) {
        o->type = b <= 0x8f ? MSGPACK_OBJECT_MAP : MSGPACK_OBJECT_ARRAY;
        o->via.array.size = b & 0x0f;
        o->via.array.ptr = NULL;
    } else if (b <= 0xbf) {
        return rd_body(r, o, MSGPACK_OBJECT_STR, 1, b & 0x1f);
    } else if (b >= 0xcc && b <= 0xcf) { /* uint8..64: a bucket's index or count */
        unsigned w = 1U << (b - 0xcc);
        if (r->len - r->off <= w)
            return false;
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = rd_uint_be(r->p + r->off + 1, w);
        r->off += 1 + w;
        return true;
    } else {
        return rd_var(r, o, b);
    }
    r->off++;
    return true;
}

/* Skips n whole objects at r; false when truncated or malformed. */
static bool rd_skip(struct rd *r, uint64_t n)
{
    msgpack_object o;
    while (n > 0) {
        if (!rd_head(r, &o))
            return false;
        n--;
        if (o.type == MSGPACK_OBJECT_ARRAY || o.type == MSGPACK_OBJECT_MAP)
            n += (uint64_t)o.via.array.size * (o.type == MSGPACK_OBJECT_MAP ? 2 : 1);
        if (n > r->len - r->off) /* every object takes a byte */
            return false;
    }
    return true;
}

/* Skips the elements of o, an object rd_head just read. */
static bool rd_skip_inside(struct rd *r, const msgpack_object *o)
{
    if (o->type != MSGPACK_OBJECT_ARRAY && o->type != MSGPACK_OBJECT_MAP)
        return true;
    return rd_skip(r, (uint64_t)o->via.array.size * (o->type == MSGPACK_OBJECT_MAP ? 2 : 1));
}

/* The unsigned integer at *p (< end) when it is a positive fixint or
 * uint8..64 (what pr_hist_pack writes): *p moves past it; else false. */
static inline bool rd_fast_uint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    /* One branch per encoding, no width computed from the byte: the
     * branches are predicted, so the next read need not wait for this one. */
    const uint8_t *q = *p;
    size_t left = (size_t)(end - q);
    switch (q[0]) {
    case 0xcc:
        if (left < 2)
            return false;
        *v = q[1];
        *p = q + 2;
        return true;
    case 0xcd:
        if (left < 3)
            return false;
        *v = rd_uint_be(q + 1, 2);
        *p = q + 3;
        return true;
    case 0xce:
        if (left < 5)
            return false;
        *v = rd_uint_be(q + 1, 4);
        *p = q + 5;
        return true;
    case 0xcf:
        if (left < 9)
            return false;
        *v = rd_uint_be(q + 1, 8);
        *p = q + 9;
        return true;
    default:
        if (q[0] > 0x7f)
            return false;
        *v = q[0];
        *p = q + 1;
        return true;
    }
}

/* Pair number i / 2 at r, any encoding, as unpack_buckets checks it. */
static int raw_pair(struct rd *r, uint32_t i, uint64_t v[2], struct pr_error *err)
{
    msgpack_object io, co;
    if (!rd_head(r, &io))
        return rd_fail(r, err);
    if (io.type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return bad_pair(i / 2, err);
    if (!rd_head(r, &co))
        return rd_fail(r, err);
    if (co.type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return bad_pair(i / 2, err);
    v[0] = io.via.u64;
    v[1] = co.via.u64;
    return 0;
}

/* The buckets of "b" (f->b_size elements at r), as unpack_buckets but
 * for the total, which waits for "n". On failure r is anywhere in "b".
 * The loop keeps its state in locals (a pointer, not r; a copy of a):
 * stores into h->counts could alias r's and a's fields and force reloads. */
static int raw_buckets(pr_hist *h, struct rd *r, const struct hist_fields *f, struct bucket_acc *a,
                       struct pr_error *err)
{
    const uint8_t *p = r->p + r->off, *end = r->p + r->len;
    struct bucket_acc acc = *a;
    uint64_t v[2] = {0, 0};
    int rc = check_b_size(f->b_size, err);
    for (uint32_t i = 0; rc == 0 && i < f->b_size; i += 2) {
        const uint8_t *pair = p;
        if (p >= end || !rd_fast_uint(&p, end, &v[0]) || p >= end ||
            !rd_fast_uint(&p, end, &v[1])) {
            r->off = (size_t)(pair - r->p);
            if ((rc = raw_pair(r, i, v, err)) != 0)
                break;
            p = r->p + r->off;
        }
        rc = put_bucket(h, &acc, v[0], v[1], err);
    }
    r->off = (size_t)(p - r->p);
    *a = acc;
    return rc;
}

/* One pass over the map: fields as unpack_fields, "b" decoded where it
 * stands (one walk over its integers, not two); a bucket error goes to
 * berr, as it only counts when every field is right. */
static int raw_fields(pr_hist *h, struct rd *r, struct hist_fields *f, struct bucket_acc *a,
                      struct pr_error *berr, struct pr_error *err)
{
    msgpack_object m, key, val;
    if (!rd_head(r, &m))
        return rd_fail(r, err);
    if (m.type != MSGPACK_OBJECT_MAP)
        return pr_error_set(err, PR_EBAD_TYPE, "hist: not a map");
    for (uint32_t i = 0; i < m.via.map.size; i++) {
        if (!rd_head(r, &key) || !rd_skip_inside(r, &key) || !rd_head(r, &val))
            return rd_fail(r, err);
        int k = key.type == MSGPACK_OBJECT_STR ? hist_key(key.via.str.ptr, key.via.str.size) : -1;
        int rc = k < 0 ? 0 : unpack_field(f, k, &val, err);
        if (rc != 0)
            return rc;
        size_t at = r->off;
        if (k == 5 && raw_buckets(h, r, f, a, berr) == 0)
            continue;
        r->off = at;
        if (!rd_skip_inside(r, &val))
            return rd_fail(r, err);
    }
    if (r->off != r->len)
        return pr_error_set(err, PR_ETRAILING, "hist: %zu trailing bytes", r->len - r->off);
    return check_seen(f, err);
}

int pr_hist_unpack_raw(pr_hist *h, const void *buf, size_t len, struct pr_error *err)
{
    struct hist_fields f = {{0}, 0, NULL, 0};
    struct bucket_acc a = {0, -1, 0};
    struct rd r = {buf, len, 0};
    struct pr_error berr = {0, ""};
    pr_hist_reset(h);
    int rc = raw_fields(h, &r, &f, &a, &berr, err);
    if (rc == 0 && berr.code != 0) {
        rc = berr.code;
        if (err != NULL)
            *err = berr;
    }
    if (rc == 0)
        rc = check_total(&f, &a, err);
    return unpack_finish(h, &f, &a, rc, err);
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
