/* pr_hist_raw: pr_hist_unpack_raw(), the histogram read straight from
 * msgpack bytes (a STATS histogram is ~5600 integers; building msgpack-c's
 * object tree for them was most of a STATS decode). The field, bucket and
 * summary checks are pr_hist.c's (pr_hist_int.h), shared with
 * pr_hist_unpack(). */
#include <string.h>

#include "pr_hist.h"
#include "pr_hist_int.h"

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
    } else if (b >= 0xcc && b <= 0xcf) { /* uint8..64: a bucket's gap or count */
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
        return pr__hist_bad_pair(i / 2, err);
    if (!rd_head(r, &co))
        return rd_fail(r, err);
    if (co.type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return pr__hist_bad_pair(i / 2, err);
    v[0] = io.via.u64;
    v[1] = co.via.u64;
    return 0;
}

/* Where the buckets of "b" go: h's counts (dense), or a frozen
 * histogram's sorted arrays, allocated once "b"'s length is known. */
struct sink {
    pr_hist *h;        /* dense: h->counts; NULL: sparse */
    pr_hist_frozen *f; /* sparse: the result being filled (NULL before "b") */
    uint64_t *cnt;     /* sparse, wide: f's counts */
    uint32_t *cnt32;   /* sparse, narrow: f's counts (NULL when wide) */
    uint16_t *idx;     /* sparse: f's indexes */
    uint32_t n;        /* sparse: buckets stored */
    uint64_t edge;     /* sparse: counts at indexes 1 and PR__COUNTS_LEN - 1 */
};

/* How raw_buckets_to stores a bucket: each is a constant at its call, so
 * that each form gets its own loop. */
enum form { DENSE, WIDE, NARROW };

/* One unsigned integer as pr_hist_pack writes them (positive fixint or
 * uint8..64) at p, with at least 9 bytes readable from p: no branch on
 * its encoding (a histogram's counts switch between fixint and uint8
 * at random, which the branch predictor cannot follow). *bad is set for
 * any other encoding. Returns the bytes it took. */
static inline size_t fast_uint(const uint8_t *p, uint64_t *v, uint64_t *bad)
{
    uint8_t b = p[0];
    unsigned d = (unsigned)b - 0xcc; /* 0..3 for uint8..64 */
    bool isu = d < 4;
    unsigned w = isu ? 1U << (d & 3) : 0;
    uint64_t raw;
    memcpy(&raw, p + 1, 8);
    raw = __builtin_bswap64(raw) >> ((64 - 8 * w) & 63);
    *v = isu ? raw : b;
    *bad |= (uint64_t)(!isu & (b > 0x7f));
    return 1 + w;
}

/* The sparse sink's pairs while 18 bytes (two integers of 9) are left
 * and no check failed: the checks of pr__hist_check_bucket folded into
 * one flag, tested once at the end. Returns the pairs read, or
 * UINT32_MAX when any check failed or an encoding was not a plain uint
 * (the caller then reads every pair again through the checked path, for
 * the exact code and message). */
static inline __attribute__((always_inline)) uint32_t
fast_pairs(const uint8_t **pp, const uint8_t *end, uint32_t pairs, struct pr__bucket_acc *a,
           uint16_t *idx, uint64_t *cnt, uint32_t *cnt32, bool narrow, uint64_t *edge)
{
    const uint8_t *p = *pp;
    /* The previous bucket's index (0 before the first): each gap g must
     * keep the index inside (prev, COUNTS_LEN). */
    uint64_t prev = a->hi < a->lo ? 0 : (uint64_t)a->hi, total = a->total;
    uint64_t bad = 0;  /* not 0: a check failed (a flag, not a bool, for the loop's code) */
    uint64_t zero = 0; /* the fixint pairs' g - 1 and c - 1 ORed: bit 63 when one was 0 */
    uint32_t i = 0;
    /* Runs of pairs that fit in what is left (18 bytes each at most): no
     * bound test per pair. */
    for (uint32_t run;
         i < pairs && (run = (uint32_t)((size_t)(end - p) / 18 < pairs - i ? (size_t)(end - p) / 18
                                                                           : pairs - i)) > 0;) {
        uint64_t fsum = 0; /* the run's fixint counts: at most 127 each, cannot overflow */
        for (uint32_t stop = i + run; i < stop; i++) {
            uint16_t two; /* the pair's first two bytes: both fixints? */
            memcpy(&two, p, 2);
            uint64_t g = p[0], c = p[1];
            if (__builtin_expect((two & 0x8080) == 0, 1)) {
                /* Two fixints (most pairs: a branch the predictor gets
                 * right): checked after the run (each >= 1; the index,
                 * growing by at most 127 a pair, in range; the total). */
                zero |= (g - 1) | (c - 1);
                fsum += c;
                p += 2;
            } else {
                if (g <= 0x7f)
                    p++;
                else
                    p += fast_uint(p, &g, &bad);
                if (p[0] <= 0x7f)
                    c = *p++;
                else
                    p += fast_uint(p, &c, &bad);
                /* prev in range (fixints may have pushed it past), then
                 * g in [1, COUNTS_LEN - 1 - prev]: g 0 wraps (once bad,
                 * prev may be anything: the result is dropped) */
                bad |= (uint64_t)((prev >= (uint64_t)PR__COUNTS_LEN) |
                                  (g - 1 >= (uint64_t)PR__COUNTS_LEN - 1 - prev) | (c == 0));
                bad |= (uint64_t)__builtin_add_overflow(total, c, &total);
            }
            prev += g;
            idx[i] = (uint16_t)prev;
            if (narrow) /* a count over 2^32 - 1 makes the total disagree with "n": refused */
                cnt32[i] = (uint32_t)c;
            else
                cnt[i] = c;
        }
        /* Every add checked, the fixint ones summed first: a total past
         * 2^64 - 1 overflows one of them, in whatever order. */
        bad |= (uint64_t)(prev >= (uint64_t)PR__COUNTS_LEN) |
               (uint64_t)__builtin_add_overflow(total, fsum, &total);
    }
    bad |= zero >> 63;
    if (bad)
        return UINT32_MAX;
    if (i > 0) {
        /* Indexes increase: only the first can be 1, only the last the top. */
        uint64_t c0 = narrow ? cnt32[0] : cnt[0], cl = narrow ? cnt32[i - 1] : cnt[i - 1];
        *edge += (idx[0] == 1 ? c0 : 0) + (idx[i - 1] == PR__COUNTS_LEN - 1 ? cl : 0);
        if (a->hi < a->lo)
            a->lo = idx[0];
        a->hi = (int32_t)prev;
    }
    a->total = total;
    *pp = p;
    return i;
}

/* fast_pairs for each sparse form, each its own loop (not inlined into
 * raw_buckets_to, whose register pressure would spill the loop's state). */
static __attribute__((noinline)) uint32_t fast_pairs_narrow(const uint8_t **pp, const uint8_t *end,
                                                            uint32_t pairs,
                                                            struct pr__bucket_acc *a, uint16_t *idx,
                                                            uint32_t *cnt32, uint64_t *edge)
{
    return fast_pairs(pp, end, pairs, a, idx, NULL, cnt32, true, edge);
}

static __attribute__((noinline)) uint32_t fast_pairs_wide(const uint8_t **pp, const uint8_t *end,
                                                          uint32_t pairs, struct pr__bucket_acc *a,
                                                          uint16_t *idx, uint64_t *cnt,
                                                          uint64_t *edge)
{
    return fast_pairs(pp, end, pairs, a, idx, cnt, NULL, false, edge);
}

/* The buckets of "b" (f->b_size elements at r), as unpack_buckets but
 * for the total, which waits for "n". On failure r is anywhere in "b".
 * The loop keeps its state in locals (a pointer, not r; a copy of a):
 * stores into h->counts could alias r's and a's fields and force reloads.
 * form is a constant at each call, so each form gets its own loop. */
static inline __attribute__((always_inline)) int
raw_buckets_to(struct sink *k, enum form form, struct rd *r, const struct pr__hist_fields *f,
               struct pr__bucket_acc *a, struct pr_error *err)
{
    const uint8_t *p = r->p + r->off, *end = r->p + r->len;
    struct pr__bucket_acc acc = *a;
    uint64_t v[2] = {0, 0};
    uint64_t *counts = form == DENSE ? k->h->counts : k->cnt;
    uint32_t *c32 = k->cnt32;
    uint16_t *idx = k->idx;
    uint32_t n = k->n, i = 0;
    int rc = 0;
    if (form != DENSE) {
        uint32_t got =
            form == NARROW
                ? fast_pairs_narrow(&p, end, f->b_size / 2, &acc, idx + n, c32 + n, &k->edge)
                : fast_pairs_wide(&p, end, f->b_size / 2, &acc, idx + n, counts + n, &k->edge);
        if (got != UINT32_MAX) {
            n += got;
            i = 2 * got;
        }
    }
    for (; rc == 0 && i < f->b_size; i += 2) {
        const uint8_t *pair = p;
        if (p >= end || !rd_fast_uint(&p, end, &v[0]) || p >= end ||
            !rd_fast_uint(&p, end, &v[1])) {
            r->off = (size_t)(pair - r->p);
            if ((rc = raw_pair(r, i, v, err)) != 0)
                break;
            p = r->p + r->off;
        }
        if ((rc = pr__hist_check_bucket(&acc, v[0], v[1], err)) != 0)
            break;
        if (form == DENSE) {
            counts[acc.hi] = v[1];
            continue;
        }
        idx[n] = (uint16_t)acc.hi;
        if (form == NARROW) /* as fast_pairs: a count too wide is refused with the total */
            c32[n++] = (uint32_t)v[1];
        else
            counts[n++] = v[1];
        k->edge += acc.hi == 1 || acc.hi == PR__COUNTS_LEN - 1 ? v[1] : 0;
    }
    k->n = n;
    r->off = (size_t)(p - r->p);
    *a = acc;
    return rc;
}

/* "b" into the sink. Sparse, when "n" came first (as pr_hist_pack writes
 * it) and allows 32-bit counts, the buckets go straight into their final
 * narrow slots: no copy, no move, no resize afterwards (the total check
 * refuses any count that would not fit). Else into wide counts, narrowed
 * by the seal. */
static int raw_buckets(struct sink *k, struct rd *r, const struct pr__hist_fields *f,
                       struct pr__bucket_acc *a, struct pr_error *err)
{
    int rc = pr__hist_check_b_size(f->b_size, err);
    if (rc != 0)
        return rc;
    if (k->h != NULL)
        return raw_buckets_to(k, DENSE, r, f, a, err);
    if ((f->seen & 1U) && f->v[0] <= UINT32_MAX) {
        k->f = pr__hist_frozen_narrow(f->b_size / 2, &k->cnt32, &k->idx);
        return raw_buckets_to(k, NARROW, r, f, a, err);
    }
    k->f = pr__hist_frozen_wide(f->b_size / 2, &k->cnt, &k->idx);
    return raw_buckets_to(k, WIDE, r, f, a, err);
}

/* One pass over the map: fields as unpack_fields, "b" decoded where it
 * stands (one walk over its integers, not two); a bucket error goes to
 * berr, as it only counts when every field is right. */
static int raw_fields(struct sink *sk, struct rd *r, struct pr__hist_fields *f,
                      struct pr__bucket_acc *a, bool prefix, struct pr_error *berr,
                      struct pr_error *err)
{
    msgpack_object m, key, val;
    if (!rd_head(r, &m))
        return rd_fail(r, err);
    if (m.type != MSGPACK_OBJECT_MAP)
        return pr_error_set(err, PR_EBAD_TYPE, "hist: not a map");
    /* The prefix decode (pr_hist_int.h) takes only a flat map of at most
     * PR__HIST_PREFIX_MAX_KEYS keys: nothing pr_msg's pre-scan would refuse. */
    if (prefix && m.via.map.size > PR__HIST_PREFIX_MAX_KEYS)
        return PR_ETOO_BIG;
    for (uint32_t i = 0; i < m.via.map.size; i++) {
        if (!rd_head(r, &key) || !rd_skip_inside(r, &key) || !rd_head(r, &val))
            return rd_fail(r, err);
        if (prefix && (key.type == MSGPACK_OBJECT_ARRAY || key.type == MSGPACK_OBJECT_MAP))
            return PR_EBAD_TYPE;
        int k =
            key.type == MSGPACK_OBJECT_STR ? pr__hist_key(key.via.str.ptr, key.via.str.size) : -1;
        int rc = k < 0 ? 0 : pr__hist_field(f, k, &val, err);
        if (rc != 0)
            return rc;
        size_t at = r->off;
        if (k == 5 && raw_buckets(sk, r, f, a, berr) == 0)
            continue;
        r->off = at;
        if (prefix && k != 5 &&
            (val.type == MSGPACK_OBJECT_ARRAY || val.type == MSGPACK_OBJECT_MAP))
            return PR_EBAD_TYPE; /* nested: the prefix decode leaves it to the pre-scan */
        if (!rd_skip_inside(r, &val))
            return rd_fail(r, err);
    }
    if (!prefix && r->off != r->len)
        return pr_error_set(err, PR_ETRAILING, "hist: %zu trailing bytes", r->len - r->off);
    return pr__hist_check_seen(f, err);
}

/* raw_fields, then the checks that wait for the whole map. */
static int raw_read(struct sink *sk, struct rd *r, struct pr__hist_fields *f,
                    struct pr__bucket_acc *a, bool prefix, struct pr_error *err)
{
    struct pr_error berr = {0, ""};
    int rc = raw_fields(sk, r, f, a, prefix, &berr, err);
    if (rc == 0 && berr.code != 0) {
        rc = berr.code;
        if (err != NULL)
            *err = berr;
    }
    if (rc == 0)
        rc = pr__hist_check_total(f, a, err);
    return rc;
}

int pr_hist_unpack_raw(pr_hist *h, const void *buf, size_t len, struct pr_error *err)
{
    struct pr__hist_fields f = {{0}, 0, NULL, 0};
    struct pr__bucket_acc a = {0, -1, 0};
    struct rd r = {buf, len, 0};
    struct sink sk = {.h = h};
    pr_hist_reset(h);
    int rc = raw_read(&sk, &r, &f, &a, false, err);
    return pr__hist_unpack_finish(h, &f, &a, rc, err);
}

/* The frozen decode of the object at buf (exactly len bytes, or its
 * prefix when prefix: *used then its length). */
static int unpack_frozen(pr_hist_frozen **out, const void *buf, size_t len, bool prefix,
                         size_t *used, struct pr_error *err)
{
    struct pr__hist_fields f = {{0}, 0, NULL, 0};
    struct pr__bucket_acc a = {0, -1, 0};
    struct rd r = {buf, len, 0};
    struct sink sk = {.h = NULL};
    *out = NULL;
    int rc = raw_read(&sk, &r, &f, &a, prefix, err);
    if (rc == 0)
        rc = pr__hist_check_summary(&f, a.lo, a.hi, sk.edge, err);
    if (rc != 0) {
        pr_hist_frozen_destroy(&sk.f);
        return rc;
    }
    if (sk.f == NULL) /* unreachable: "b" is required */
        sk.f = pr__hist_frozen_wide(0, &sk.cnt, &sk.idx);
    *out = pr__hist_frozen_seal(sk.f, sk.n, f.v[0], f.v[4], f.v[1], f.v[2], f.v[3]);
    if (used != NULL)
        *used = r.off;
    return 0;
}

int pr_hist_unpack_raw_frozen(pr_hist_frozen **out, const void *buf, size_t len,
                              struct pr_error *err)
{
    return unpack_frozen(out, buf, len, false, NULL, err);
}

int pr__hist_unpack_raw_frozen_prefix(pr_hist_frozen **out, const void *buf, size_t len,
                                      size_t *used)
{
    return unpack_frozen(out, buf, len, true, used, NULL);
}
