/* pr_msg_kst: STATS.kst / DONE.kst, the per-kind entries, read straight
 * from their msgpack bytes for the decoder (contract: pr_msg_kst.h). */
#include "pr_msg_kst.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_hist.h"
#include "pr_hist_int.h"
#include "pr_msg_int.h"

#define KST_PATH_LEN 96

/* A cursor over the raw bytes of the "kst" value. */
struct kr {
    const uint8_t *p; /* input */
    size_t len;       /* input length */
    size_t off;       /* next byte */
    bool strict;      /* the prefix decode: no fallback, no message needed */
};

/* The big-endian unsigned integer of w bytes at p. */
static uint64_t be(const uint8_t *p, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v = (v << 8) | p[i];
    return v;
}

/* msgpack-c's type name for the object whose first byte is b (as
 * pr_msg_dec.c's obj_type_name(), so both decoders say the same). nonneg:
 * a signed integer whose value is >= 0, which msgpack-c calls "int" too. */
static const char *type_name(uint8_t b)
{
    if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3))
        return "int";
    if (b <= 0x8f || b == 0xde || b == 0xdf)
        return "map";
    if (b <= 0x9f || b == 0xdc || b == 0xdd)
        return "array";
    if (b <= 0xbf || (b >= 0xd9 && b <= 0xdb))
        return "str";
    if (b == 0xc0)
        return "nil";
    if (b == 0xc2 || b == 0xc3)
        return "bool";
    if (b == 0xca || b == 0xcb)
        return "float";
    if (b >= 0xc4 && b <= 0xc6)
        return "bin";
    return "ext";
}

static int truncated(const struct kr *r, const char *path, struct pr_error *err)
{
    bool c1 = r->off < r->len && r->p[r->off] == 0xc1;
    return pr_error_set(err, c1 ? PR_EINVAL : PR_ETRUNCATED, "%s: %s msgpack at offset %zu", path,
                        c1 ? "malformed" : "truncated", r->off);
}

/* The head at r: *n elements of an array (fixarray, array16/32), and r
 * past it. False (r unmoved) when it is not an array or is truncated. */
static bool array_head(struct kr *r, uint64_t *n)
{
    if (r->off >= r->len)
        return false;
    uint8_t b = r->p[r->off];
    unsigned w = b == 0xdc ? 2 : b == 0xdd ? 4 : 0;
    if (w == 0 && (b < 0x90 || b > 0x9f))
        return false;
    if (r->len - r->off < 1 + (size_t)w)
        return false;
    *n = w ? be(r->p + r->off + 1, w) : (uint64_t)(b & 0x0f);
    r->off += 1 + w;
    return true;
}

/* A uint at r, as pr_msg.c's get_uint() on msgpack-c's object. */
static int get_u64(struct kr *r, uint64_t *out, const char *path, struct pr_error *err)
{
    if (r->off >= r->len)
        return truncated(r, path, err);
    uint8_t b = r->p[r->off];
    if (b <= 0x7f) {
        *out = b;
        r->off++;
        return 0;
    }
    if (b < 0xcc || (b > 0xd3 && b < 0xe0))
        return pr_error_set(err, PR_EBAD_TYPE, "%s: expected uint, got %s", path, type_name(b));
    unsigned w = b >= 0xe0 ? 0 : 1U << ((b - 0xcc) & 3);
    if (r->len - r->off < 1 + (size_t)w)
        return truncated(r, path, err);
    uint64_t v = b >= 0xe0 ? (uint64_t)(int64_t)(int8_t)b : be(r->p + r->off + 1, w);
    if (b >= 0xd0 && b <= 0xd3 && w < 8 && (v >> (8 * w - 1)) != 0)
        v |= ~0ULL << (8 * w); /* sign-extend int8..32 */
    if ((b >= 0xd0) && (int64_t)v < 0)
        return pr_error_set(err, PR_ERANGE, "%s: negative value %" PRId64, path, (int64_t)v);
    *out = v;
    r->off += 1 + w;
    return 0;
}

/* The histogram at r, read by pr_hist_unpack_raw_frozen() from its exact
 * bytes: its sorted pairs go straight into the frozen form (a whole
 * pr_hist per kind, 186 KB zeroed, then added over its span, was most of
 * the coordinator's CPU with 11 kinds in every STATS). */
static int get_lat(struct kr *r, pr_hist_frozen **dst, const char *path, struct pr_error *err)
{
    size_t from = r->off, used = 0;
    /* One pass: the decoder finds the end. Refused, the object is skipped
     * then decoded exactly, for the message the two passes give (not in
     * the prefix decode, r->strict: it fails there). */
    int prc = pr__hist_unpack_raw_frozen_prefix(dst, r->p + from, r->len - from, &used);
    if (prc == 0) {
        r->off += used;
        return 0;
    }
    if (r->strict)
        return prc;
    if (!pr__mp_skip(r->p, r->len, &r->off))
        return truncated(r, path, err);
    int rc = pr_hist_unpack_raw_frozen(dst, r->p + from, r->off - from, err);
    if (rc < 0 && err != NULL) {
        char inner[sizeof(err->msg)];
        memcpy(inner, err->msg, sizeof(inner));
        pr_error_set(err, rc, "%s: %s", path, inner);
    }
    return rc;
}

/* [count, errors, lat, late]: one kind's figures. */
static int get_entry(struct kr *r, struct pr_msg_kstat *k, const char *path, struct pr_error *err)
{
    uint64_t n = 0;
    size_t at = r->off;
    if (!array_head(r, &n) || n != 4) {
        if (at >= r->len)
            return truncated(r, path, err);
        return pr_error_set(err, PR_EBAD_TYPE, "%s: expected [count, errors, lat, late], got %s",
                            path, type_name(r->p[at]));
    }
    int rc = get_u64(r, &k->count, path, err);
    if (rc == 0)
        rc = get_u64(r, &k->errors, path, err);
    if (rc == 0)
        rc = get_lat(r, &k->lat_frozen, path, err);
    if (rc == 0)
        rc = get_u64(r, &k->late, path, err);
    if (rc == 0 && k->late > k->count)
        rc = pr_error_set(err, PR_ERANGE, "%s: late %" PRIu64 " > count %" PRIu64, path, k->late,
                          k->count);
    return rc;
}

static int kst_unpack(struct kr *r0, uint32_t cap, struct pr_msg_kstat **arr, uint32_t *n,
                      const char *path, struct pr_error *err);

int pr__msg_kst_unpack_raw(const void *buf, size_t len, uint32_t cap, struct pr_msg_kstat **arr,
                           uint32_t *n, const char *path, struct pr_error *err)
{
    struct kr r = {buf, len, 0, false};
    int rc = kst_unpack(&r, cap, arr, n, path, err);
    if (rc == 0 && r.off != len)
        return pr_error_set(err, PR_ETRAILING, "%s: %zu trailing bytes", path, len - r.off);
    return rc;
}

int pr__msg_kst_unpack_raw_prefix(const void *buf, size_t len, uint32_t cap,
                                  struct pr_msg_kstat **arr, uint32_t *n, size_t *used)
{
    struct kr r = {buf, len, 0, true};
    int rc = kst_unpack(&r, cap, arr, n, "kst", NULL);
    if (rc == 0) {
        *used = r.off;
        return 0;
    }
    for (uint32_t i = 0; *arr != NULL && i < *n; i++)
        pr_hist_frozen_destroy(&(*arr)[i].lat_frozen);
    free(*arr);
    *arr = NULL;
    *n = 0;
    return rc;
}

/* The array at r0 (r0->off past it on success). */
static int kst_unpack(struct kr *r0, uint32_t cap, struct pr_msg_kstat **arr, uint32_t *n,
                      const char *path, struct pr_error *err)
{
    struct kr r = *r0;
    size_t len = r.len;
    char epath[KST_PATH_LEN];
    uint64_t size = 0;

    *arr = NULL;
    *n = 0;
    if (!array_head(&r, &size)) {
        if (len == 0)
            return truncated(&r, path, err);
        return pr_error_set(err, PR_EBAD_TYPE, "%s: expected array, got %s", path,
                            type_name(r.p[0]));
    }
    if (size > cap)
        return pr_error_set(err, PR_ETOO_BIG, "%s: %" PRIu64 " elements (max %" PRIu32 ")", path,
                            size, cap);
    if (size > len - r.off)
        return truncated(&r, path, err);
    *arr = size ? pr_xcalloc((size_t)size, sizeof(**arr)) : NULL;
    *n = (uint32_t)size;
    for (uint32_t i = 0; i < *n; i++) {
        if (r.strict) /* no message: no path */
            epath[0] = '\0';
        else if (snprintf(epath, sizeof(epath), "%s[%" PRIu32 "]", path, i) >= (int)sizeof(epath))
            epath[sizeof(epath) - 1] = '\0';
        int rc = get_entry(&r, &(*arr)[i], epath, err);
        if (rc < 0)
            return rc;
    }
    r0->off = r.off;
    return 0;
}
