/* pr_msg_scan: the structural pre-scan of a message's bytes (see
 * pr_msg_int.h), run before msgpack-c sees them. */
#include <inttypes.h>

#include "pr_msg_int.h"

static int scan_be(struct pr__msg_scan *s, unsigned width, uint64_t *v, struct pr_error *err)
{
    if (s->len - s->off < width)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    *v = 0;
    for (unsigned i = 0; i < width; i++)
        *v = (*v << 8) | s->p[s->off++];
    return 0;
}

static int scan_skip(struct pr__msg_scan *s, uint64_t n, struct pr_error *err)
{
    if (s->len - s->off < n)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    s->off += (size_t)n;
    return 0;
}

/* Classify header byte b: *width is the size of the length/count that
 * follows, *fixed the payload bytes to skip (after any length), *mult the
 * number of child objects per counted element (0: none, 1: array, 2: map). */
static int scan_class(uint8_t b, unsigned *width, uint64_t *fixed, unsigned *mult)
{
    static const uint8_t fixed_len[0x20] = {
        /* c0 */ 0, 0, 0, 0, 0, 0, 0, 1, 1,  1, 4, 8, 1, 2, 4, 8,
        /* d0 */ 1, 2, 4, 8, 2, 3, 5, 9, 17, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t len_width[0x20] = {
        /* c0 */ 0, 0, 0, 0, 1, 2, 4, 1, 2, 4, 0, 0, 0, 0, 0, 0,
        /* d0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 2, 4, 2, 4};

    *width = 0;
    *fixed = 0;
    *mult = 0;
    if (b <= 0x7f || b >= 0xe0)
        return 0;
    if (b <= 0x8f || b <= 0x9f) {
        *mult = b <= 0x8f ? 2 : 1;
        *fixed = b & 0x0f; /* element count */
        return 0;
    }
    if (b <= 0xbf) {
        *fixed = b & 0x1f;
        return 0;
    }
    if (b == 0xc1)
        return -1;
    *width = len_width[b - 0xc0];
    *fixed = fixed_len[b - 0xc0]; /* ext8/16/32: the type byte */
    if (b >= 0xdc)
        *mult = b >= 0xde ? 2 : 1;
    return 0;
}

/* Skips up to k integers in a row at s->off (a STATS is mostly its
 * histograms' integers) and returns how many; stops before anything else,
 * a truncated integer too. Locals, not s's fields, in the loop: s->p's
 * bytes may alias them. */
static uint64_t scan_ints(struct pr__msg_scan *s, uint64_t k)
{
    const uint8_t *p = s->p;
    size_t off = s->off, len = s->len;
    uint64_t i = 0;
    for (; i < k && off < len; i++) {
        uint8_t b = p[off];
        if (b <= 0x7f || b >= 0xe0) {
            off++;
            continue;
        }
        size_t w = (size_t)1 << ((b - 0xcc) & 3); /* uint8..64 0xcc..0xcf, int8..64 0xd0..0xd3 */
        if (b < 0xcc || b > 0xd3 || len - off <= w)
            break;
        off += 1 + w;
    }
    s->off = off;
    return i;
}

int pr__msg_scan_obj(struct pr__msg_scan *s, unsigned depth, struct pr_error *err)
{
    unsigned width, mult;
    uint64_t fixed, n = 0;
    size_t at = s->off;
    int rc;

    if (s->off >= s->len)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    uint8_t b = s->p[s->off++];
    if (scan_class(b, &width, &fixed, &mult) < 0)
        return pr_error_set(err, PR_EINVAL, "malformed msgpack: byte 0xc1 at offset %zu", at);
    if (width > 0 && (rc = scan_be(s, width, &n, err)) < 0)
        return rc;
    if (mult == 0)
        return scan_skip(s, n + fixed, err);
    n = width > 0 ? n : fixed;
    if (depth + 1 > PR_MSG_MAX_DEPTH)
        return pr_error_set(err, PR_ETOO_BIG, "msgpack nested deeper than %d", PR_MSG_MAX_DEPTH);
    if (mult == 2 && n > PR_MSG_MAX_KEYS)
        return pr_error_set(err, PR_ETOO_BIG, "map of %" PRIu64 " keys at offset %zu (max %d)", n,
                            at, PR_MSG_MAX_KEYS);
    n *= mult;
    if (n > s->len - s->off)
        return pr_error_set(err, PR_ETRUNCATED,
                            "container at offset %zu claims more elements than bytes", at);
    if (depth == 0 && mult == 2)
        s->top_map = true, s->n_top = (uint32_t)n;
    for (uint64_t i = 0; i < n; i++) {
        if (depth == 0 && mult == 2)
            s->top[i] = s->off;
        else if ((i += scan_ints(s, n - i)) == n)
            break;
        if ((rc = pr__msg_scan_obj(s, depth + 1, err)) < 0)
            return rc;
    }
    if (depth == 0 && mult == 2)
        s->top[n] = s->off;
    return 0;
}
