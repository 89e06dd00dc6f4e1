/* mp_bounded: a msgpack walk of the histogram tests (tests/unit/test_pr_hist.c,
 * tests/fuzz/fuzz_hist.c), written apart from proto's own so that it can
 * check it. */
#ifndef MP_BOUNDED_H
#define MP_BOUNDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* msgpack-c allocates a container's declared size before reading it, so a
 * corrupted 5-byte "array of 4 billion" asks for 64 GB. Real callers
 * (pr_msg) bound that first; this is the same idea for the test: true when
 * buf is exactly one object and no container declares more elements than
 * there are bytes left. */
static inline bool msgpack_bounded(const uint8_t *p, size_t len)
{
    size_t pos = 0;
    uint64_t pending = 1;
    while (pending > 0) {
        if (pos >= len)
            return false;
        uint8_t b = p[pos++];
        uint64_t n = 0, skip = 0, mult = 0;
        unsigned w = 0;
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
            ;
        else if (b <= 0x8f)
            n = b & 0x0f, mult = 2;
        else if (b <= 0x9f)
            n = b & 0x0f, mult = 1;
        else if (b <= 0xbf)
            skip = b & 0x1f;
        else if (b >= 0xc4 && b <= 0xc6)
            w = 1U << (b - 0xc4), mult = 0, skip = 0, n = 0;
        else if (b >= 0xc7 && b <= 0xc9)
            w = 1U << (b - 0xc7), skip = 1;
        else if (b == 0xca || b == 0xcb)
            skip = b == 0xca ? 4 : 8;
        else if (b >= 0xcc && b <= 0xd3)
            skip = 1U << ((b - 0xcc) & 3);
        else if (b >= 0xd4 && b <= 0xd8)
            skip = 1 + (1U << (b - 0xd4));
        else if (b >= 0xd9 && b <= 0xdb)
            w = 1U << (b - 0xd9);
        else if (b >= 0xdc && b <= 0xdf)
            w = b & 1 ? 4 : 2, mult = b >= 0xde ? 2 : 1;
        else
            return false; /* 0xc1 */
        if (w > 0) {
            if (len - pos < w)
                return false;
            uint64_t v = 0;
            for (unsigned i = 0; i < w; i++)
                v = v << 8 | p[pos++];
            if (mult > 0)
                n = v;
            else
                skip += v;
        }
        if (len - pos < skip)
            return false;
        pos += skip;
        pending = pending - 1 + n * mult;
        if (pending > len - pos)
            return false;
    }
    return pos == len;
}

#endif
