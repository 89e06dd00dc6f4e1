/* pr_hist: the exact, mergeable latency histogram (HdrHistogram layout) (contract: pr_hist.h). */
#include "pr_hist.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pr_hist_int.h"

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
    h->counts[pr__hist_index_of(value_us)] += count;
    h->total += count;
    if (value_us < h->min)
        h->min = value_us;
    if (value_us > h->max)
        h->max = value_us;
    h->sum = pr__sat_add(h->sum, pr__sat_mul(value_us, count));
}

void pr_hist_add(pr_hist *dst, const pr_hist *src)
{
    if (pr__hist_is_empty(src))
        return;
    int32_t hi = pr__hist_index_of(src->max);
    for (int32_t i = pr__hist_index_of(src->min); i <= hi; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->clamped += src->clamped;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->sum = pr__sat_add(dst->sum, src->sum);
}

void pr_hist_reset(pr_hist *h)
{
    if (!pr__hist_is_empty(h)) {
        int32_t lo = pr__hist_index_of(h->min);
        memset(&h->counts[lo], 0,
               (size_t)(pr__hist_index_of(h->max) - lo + 1) * sizeof(h->counts[0]));
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
    if (pr__hist_is_empty(a))
        return true;
    int32_t lo = pr__hist_index_of(a->min);
    return memcmp(&a->counts[lo], &b->counts[lo],
                  (size_t)(pr__hist_index_of(a->max) - lo + 1) * sizeof(a->counts[0])) == 0;
}

bool pr_hist_same_buckets(const pr_hist *a, const pr_hist *b)
{
    if (pr__hist_is_empty(a) || pr__hist_is_empty(b))
        return pr__hist_is_empty(a) && pr__hist_is_empty(b);
    int32_t lo = pr__hist_index_of(a->min < b->min ? a->min : b->min);
    int32_t hi = pr__hist_index_of(a->max > b->max ? a->max : b->max);
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
    return pr__hist_is_empty(h) ? 0 : h->min;
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
    return lo + ((uint64_t)1 << pr__hist_bucket_of(lo) >> 1);
}

double pr_hist_stddev(const pr_hist *h)
{
    if (pr__hist_is_empty(h) || h->total == 0)
        return 0.0;
    /* As HdrHistogram's getStdDeviation(): mean and deviations both taken
     * from bucket midpoints, so the figure matches its tools exactly. */
    int32_t lo = pr__hist_index_of(h->min), hi = pr__hist_index_of(h->max);
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

uint64_t pr__hist_rank(double p, uint64_t total)
{
    if (p > 100.0)
        p = 100.0;
    double x = p / 100.0 * (double)total;
    double r = ceil(x - ulp(x));
    return r < 1.0 ? 1 : r >= (double)total ? total : (uint64_t)r;
}

uint64_t pr_hist_value_at_percentile(const pr_hist *h, double p)
{
    if (pr__hist_is_empty(h))
        return 0;
    if (!(p > 0.0))
        return h->min;
    uint64_t rank = pr__hist_rank(p, h->total);
    uint64_t seen = 0;
    int32_t hi = pr__hist_index_of(h->max);
    for (int32_t i = pr__hist_index_of(h->min); i <= hi; i++) {
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
    int b = pr__hist_bucket_of(value_us);
    return (value_us >> b) << b;
}

uint64_t pr_hist_highest_equivalent(uint64_t value_us)
{
    int b = pr__hist_bucket_of(value_us);
    return ((value_us >> b) << b) + ((uint64_t)1 << b) - 1;
}

bool pr_hist_next(const pr_hist *h, struct pr_hist_iter *it)
{
    if (pr__hist_is_empty(h))
        return false;
    int32_t lo = pr__hist_index_of(h->min), hi = pr__hist_index_of(h->max);
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
    return pr__hist_index_of(value_us);
}

static int pack_key_u64(msgpack_packer *pk, const char *key, uint64_t v)
{
    size_t n = strlen(key);
    int rc = msgpack_pack_str(pk, n);
    rc |= msgpack_pack_str_body(pk, key, n);
    rc |= msgpack_pack_uint64(pk, v);
    return rc;
}

int pr__hist_pack_head(msgpack_packer *pk, uint64_t n, uint64_t min, uint64_t max, uint64_t sum,
                       uint64_t clamp, size_t buckets)
{
    int rc = msgpack_pack_map(pk, 6);
    rc |= pack_key_u64(pk, "n", n);
    rc |= pack_key_u64(pk, "min", min);
    rc |= pack_key_u64(pk, "max", max);
    rc |= pack_key_u64(pk, "sum", sum);
    rc |= pack_key_u64(pk, "clamp", clamp);
    rc |= msgpack_pack_str(pk, 1);
    rc |= msgpack_pack_str_body(pk, "b", 1);
    rc |= msgpack_pack_array(pk, buckets * 2);
    return rc;
}

int pr_hist_pack(const pr_hist *h, msgpack_packer *pk)
{
    int32_t lo = pr__hist_is_empty(h) ? 0 : pr__hist_index_of(h->min);
    int32_t hi = pr__hist_is_empty(h) ? -1 : pr__hist_index_of(h->max);
    size_t buckets = 0;
    for (int32_t i = lo; i <= hi; i++)
        buckets += h->counts[i] != 0;

    int rc = pr__hist_pack_head(pk, h->total, pr_hist_min(h), h->max, h->sum, h->clamped, buckets);
    for (int32_t i = lo, prev = 0; i <= hi && rc == 0; i++) {
        if (h->counts[i] != 0) {
            rc |= msgpack_pack_uint32(pk, (uint32_t)(i - prev)); /* the gap: see pr_hist.h */
            rc |= msgpack_pack_uint64(pk, h->counts[i]);
            prev = i;
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

static const char *const hist_keys[6] = {"n", "min", "max", "sum", "clamp", "b"};

/* Key number of a string key, -1 for an unknown one. */
int pr__hist_key(const char *s, uint32_t n)
{
    for (int k = 0; k < 6; k++)
        if (n == strlen(hist_keys[k]) && memcmp(s, hist_keys[k], n) == 0)
            return k;
    return -1;
}

/* Value val of key k. val is whole for a scalar; for an array, its type
 * and size (the caller records where its elements are). */
int pr__hist_field(struct pr__hist_fields *f, int k, const msgpack_object *val,
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

int pr__hist_check_seen(const struct pr__hist_fields *f, struct pr_error *err)
{
    for (int k = 0; k < 6; k++)
        if (!(f->seen & (1U << k)))
            return pr_error_set(err, PR_EMISSING_KEY, "hist: missing key \"%s\"", hist_keys[k]);
    return 0;
}

static int unpack_fields(const msgpack_object *obj, struct pr__hist_fields *f, struct pr_error *err)
{
    if (obj == NULL || obj->type != MSGPACK_OBJECT_MAP)
        return pr_error_set(err, PR_EBAD_TYPE, "hist: not a map");
    for (uint32_t i = 0; i < obj->via.map.size; i++) {
        const msgpack_object_kv *kv = &obj->via.map.ptr[i];
        int k = kv->key.type == MSGPACK_OBJECT_STR
                    ? pr__hist_key(kv->key.via.str.ptr, kv->key.via.str.size)
                    : -1;
        int rc = k < 0 ? 0 : pr__hist_field(f, k, &kv->val, err);
        if (rc != 0)
            return rc;
    }
    return pr__hist_check_seen(f, err);
}

/* "b"'s length, before any element is read. */
int pr__hist_check_b_size(uint32_t size, struct pr_error *err)
{
    if (size % 2 != 0)
        return pr_error_set(err, PR_EBAD_HIST, "hist: \"b\" has odd length %u", size);
    if (size / 2 > PR_HIST_MAX_BUCKETS)
        return pr_error_set(err, PR_ETOO_BIG, "hist: %u buckets", size / 2);
    return 0;
}

int pr__hist_bad_pair(uint32_t pair, struct pr_error *err)
{
    return pr_error_set(err, PR_EBAD_TYPE, "hist: bucket %u is not two uints", pair);
}

int pr__hist_check_total(const struct pr__hist_fields *f, const struct pr__bucket_acc *a,
                         struct pr_error *err)
{
    if (a->total != f->v[0])
        return pr_error_set(err, PR_EBAD_HIST, "hist: n %" PRIu64 " != sum of counts %" PRIu64,
                            f->v[0], a->total);
    return 0;
}

/* Fills h->counts from the tree's "b"; a gets the indexes written, even on
 * failure, so the caller can clear them. */
static int unpack_buckets(pr_hist *h, const struct pr__hist_fields *f, struct pr__bucket_acc *a,
                          struct pr_error *err)
{
    int rc = pr__hist_check_b_size(f->b_size, err);
    for (uint32_t i = 0; rc == 0 && i < f->b_size; i += 2) {
        const msgpack_object *io = &f->b_obj[i], *co = &f->b_obj[i + 1];
        if (io->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
            co->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return pr__hist_bad_pair(i / 2, err);
        rc = pr__hist_put_bucket(h, a, io->via.u64, co->via.u64, err);
    }
    return rc == 0 ? pr__hist_check_total(f, a, err) : rc;
}

int pr__hist_check_summary(const struct pr__hist_fields *f, int32_t lo, int32_t hi, uint64_t edge,
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
    if (pr__hist_index_of(min) != lo || pr__hist_index_of(max) != hi)
        return pr_error_set(err, PR_EBAD_HIST, "hist: min/max not in the first/last bucket");
    if (sum < pr__sat_mul(min, n) || sum > pr__sat_mul(max, n))
        return pr_error_set(err, PR_EBAD_HIST, "hist: sum %" PRIu64 " inconsistent", sum);
    if (clamp > edge)
        return pr_error_set(err, PR_EBAD_HIST, "hist: clamp %" PRIu64 " exceeds edge buckets",
                            clamp);
    return 0;
}

/* The last step of both decoders: summary checks, then h takes f's
 * summary, or on failure loses the buckets written. */
int pr__hist_unpack_finish(pr_hist *h, const struct pr__hist_fields *f,
                           const struct pr__bucket_acc *a, int rc, struct pr_error *err)
{
    if (rc == 0)
        rc = pr__hist_check_summary(f, a->lo, a->hi,
                                    pr__sat_add(h->counts[1], h->counts[PR__COUNTS_LEN - 1]), err);
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
    struct pr__hist_fields f = {{0}, 0, NULL, 0};
    struct pr__bucket_acc a = {0, -1, 0};
    pr_hist_reset(h);
    int rc = unpack_fields(obj, &f, err);
    if (rc == 0)
        rc = unpack_buckets(h, &f, &a, err);
    return pr__hist_unpack_finish(h, &f, &a, rc, err);
}
