/* pr_msg_scan: the structural pre-scan of a message's bytes (see
 * pr_msg_int.h), run before msgpack-c sees them. */
#include <inttypes.h>

#include "pr_msg_int.h"

/* The big-endian unsigned integer of w bytes at p. */
static uint64_t be(const uint8_t *p, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v = (v << 8) | p[i];
    return v;
}

static int scan_be(struct pr__msg_scan *s, unsigned width, uint64_t *v, struct pr_error *err)
{
    if (s->len - s->off < width)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    *v = be(s->p + s->off, width);
    s->off += width;
    return 0;
}

static int scan_skip(struct pr__msg_scan *s, uint64_t n, struct pr_error *err)
{
    if (s->len - s->off < n)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    s->off += (size_t)n;
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
    if (pr__mp_class(b, &width, &fixed, &mult) < 0)
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
        if (depth == 0 && mult == 2) {
            s->top[i] = s->off;
            if ((i & 1) && s->pre != NULL && s->pre(s, (uint32_t)i))
                continue; /* decoded already, s->off past it */
        } else if ((i += scan_ints(s, n - i)) == n) {
            break;
        }
        if ((rc = pr__msg_scan_obj(s, depth + 1, err)) < 0)
            return rc;
    }
    if (depth == 0 && mult == 2)
        s->top[n] = s->off;
    return 0;
}

bool pr__mp_skip(const uint8_t *p, size_t len, size_t *off)
{
    size_t at = *off;
    uint64_t todo = 1;
    while (todo > 0) {
        unsigned width, mult;
        uint64_t fixed, body = 0, elems = 0;
        if (at >= len || pr__mp_class(p[at], &width, &fixed, &mult) < 0)
            goto fail;
        size_t head = 1 + (size_t)width;
        if (len - at < head)
            goto fail;
        uint64_t v = be(p + at + 1, width);
        todo--;
        if (mult != 0)
            elems = (width ? v : fixed) * mult;
        else
            body = v + fixed;
        /* each element is >= 1 byte */
        if (body > len - at - head || elems > len - at - head - body)
            goto fail;
        at += head + (size_t)body;
        todo += elems;
    }
    *off = at;
    return true;
fail:
    *off = at; /* the object that is truncated or malformed */
    return false;
}
