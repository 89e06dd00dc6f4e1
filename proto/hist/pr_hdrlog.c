/* pr_hdrlog: HdrHistogram interop: the V2 compressed encoding and the interval-log writer
 * (contract: pr_hdrlog.h). */
#include "pr_hdrlog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#define V2_COMPRESSION_COOKIE 0x1c849304U
#define V2_ENCODING_COOKIE    0x1c849303U
#define COOKIE_WORD_NIBBLE    0x10U /* what the reference encoders put in bits 4-7 */
#define V2_HEADER_LEN         40
#define WRAP_HEADER_LEN       8
#define VARINT_MAX            9                     /* LEB128-64b9B */
#define RATIO_ONE_BITS        0x3ff0000000000000ULL /* the double 1.0 */

/* Buffers an encode needs; grown on demand, kept by a writer. */
struct scratch {
    uint8_t *enc;   /* uncompressed V2 encoding */
    size_t enc_cap; /* bytes allocated at enc */
    uint8_t *z;     /* compression wrapper + zlib stream */
    size_t z_cap;   /* bytes allocated at z */
    char *b64;      /* base64 of z, NUL terminated */
    size_t b64_cap; /* bytes allocated at b64 */
};

struct pr_hdrlog {
    FILE *f;           /* borrowed output */
    struct scratch sc; /* encode buffers reused across intervals */
};

static size_t max_encoded_len(void)
{
    return V2_HEADER_LEN + (size_t)VARINT_MAX * (size_t)pr_hist_counts_len();
}

static void grow(void **p, size_t *cap, size_t need)
{
    if (*cap < need) {
        *p = pr_xrealloc(*p, need);
        *cap = need;
    }
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* ZigZag, then LEB128 with at most 8 seven-bit groups and a full 9th byte. */
static size_t put_varint(uint8_t *p, int64_t value)
{
    uint64_t v = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
    size_t n = 0;
    while (n < 8 && v >> 7 != 0) {
        p[n++] = (uint8_t)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Reads one varint from [*pos, end); false when truncated. */
static bool get_varint(const uint8_t *p, size_t end, size_t *pos, int64_t *value)
{
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
        if (*pos >= end)
            return false;
        uint8_t b = p[(*pos)++];
        if (shift == 56) {
            v |= (uint64_t)b << 56;
            break;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    *value = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    return true;
}

/* The uncompressed V2 encoding of h into sc->enc; returns its length or a
 * negative code. Counts run from index 0 to the max's index, zero runs of
 * two or more as one negative number, exactly as the Java encoder. */
static int encode_v2(const pr_hist *h, struct scratch *sc, size_t *len)
{
    grow((void **)&sc->enc, &sc->enc_cap, max_encoded_len());
    uint8_t *p = sc->enc;
    size_t n = V2_HEADER_LEN;
    int32_t limit = pr_hist_index_of(pr_hist_max(h)) + 1;
    if (pr_hist_count(h) == 0)
        limit = 1; /* Java writes the single (zero) count of index 0 */
    for (int32_t i = 0; i < limit;) {
        uint64_t c = pr_hist_count_at_index(h, i++);
        int64_t zeros = 1;
        if (c > INT64_MAX)
            return PR_ERANGE;
        while (c == 0 && i < limit && pr_hist_count_at_index(h, i) == 0) {
            zeros++;
            i++;
        }
        n += put_varint(p + n, zeros > 1 ? -zeros : (int64_t)c);
    }
    put_be(p, V2_ENCODING_COOKIE | COOKIE_WORD_NIBBLE, 4);
    put_be(p + 4, n - V2_HEADER_LEN, 4);
    put_be(p + 8, 0, 4); /* normalizing index offset */
    put_be(p + 12, PR_HIST_SIGFIGS, 4);
    put_be(p + 16, PR_HIST_MIN_US, 8);
    put_be(p + 24, PR_HIST_MAX_US, 8);
    put_be(p + 32, RATIO_ONE_BITS, 8);
    *len = n;
    return 0;
}

/* V2 encoding, deflated behind the compression cookie, into sc->z. */
static int encode_compressed(const pr_hist *h, struct scratch *sc, size_t *len)
{
    size_t enc_len;
    int rc = encode_v2(h, sc, &enc_len);
    if (rc != 0)
        return rc;
    uLongf zlen = compressBound((uLong)enc_len);
    grow((void **)&sc->z, &sc->z_cap, WRAP_HEADER_LEN + zlen);
    if (compress2(sc->z + WRAP_HEADER_LEN, &zlen, sc->enc, (uLong)enc_len, Z_BEST_COMPRESSION) !=
        Z_OK)
        return PR_EZLIB;
    put_be(sc->z, V2_COMPRESSION_COOKIE | COOKIE_WORD_NIBBLE, 4);
    put_be(sc->z + 4, zlen, 4);
    *len = WRAP_HEADER_LEN + zlen;
    return 0;
}

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of sc->z[0..len) into sc->b64; returns the text length. */
static size_t base64_encode(struct scratch *sc, size_t len)
{
    grow((void **)&sc->b64, &sc->b64_cap, (len + 2) / 3 * 4 + 1);
    const uint8_t *in = sc->z;
    char *out = sc->b64;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < len)
            v |= in[i + 2];
        out[o++] = b64_alphabet[v >> 18 & 63];
        out[o++] = b64_alphabet[v >> 12 & 63];
        out[o++] = i + 1 < len ? b64_alphabet[v >> 6 & 63] : '=';
        out[o++] = i + 2 < len ? b64_alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

static void scratch_free(struct scratch *sc)
{
    free(sc->enc);
    free(sc->z);
    free(sc->b64);
    memset(sc, 0, sizeof(*sc));
}

int pr_hdrlog_encode_raw(const pr_hist *h, uint8_t **buf, size_t *len)
{
    struct scratch sc = {0};
    int rc = encode_compressed(h, &sc, len);
    if (rc == 0) {
        *buf = sc.z;
        sc.z = NULL;
    }
    scratch_free(&sc);
    return rc;
}

void pr_hdrlog_json(FILE *f, const pr_hist *h)
{
    char *b64 = NULL;
    size_t len = 0;
    if (h == NULL || pr_hist_count(h) == 0 || pr_hdrlog_encode(h, &b64, &len) != 0) {
        fputs("null", f);
        return;
    }
    fputc('"', f); /* base64: nothing to escape */
    fwrite(b64, 1, len, f);
    fputc('"', f);
    free(b64);
}

int pr_hdrlog_encode(const pr_hist *h, char **b64, size_t *b64_len)
{
    struct scratch sc = {0};
    size_t zlen;
    int rc = encode_compressed(h, &sc, &zlen);
    if (rc == 0) {
        *b64_len = base64_encode(&sc, zlen);
        *b64 = sc.b64;
        sc.b64 = NULL;
    }
    scratch_free(&sc);
    return rc;
}

/* Inflate the zlib stream z[0..zlen) into out (cap bytes); *out_len gets
 * the size. More than cap bytes is PR_EBAD_HDR, any zlib complaint or
 * bytes after the stream PR_EZLIB. */
static int inflate_capped(const uint8_t *z, size_t zlen, uint8_t *out, size_t cap, size_t *out_len,
                          struct pr_error *err)
{
    z_stream s;
    memset(&s, 0, sizeof(s));
    if (inflateInit(&s) != Z_OK)
        return pr_error_set(err, PR_EZLIB, "hdr: inflateInit failed");
    s.next_in = (Bytef *)(uintptr_t)z; /* zlib's API is not const-clean */
    s.avail_in = (uInt)zlen;
    s.next_out = out;
    s.avail_out = (uInt)cap + 1; /* one spare byte detects an oversize stream */
    int zrc = inflate(&s, Z_FINISH);
    *out_len = s.total_out;
    uInt left = s.avail_in;
    inflateEnd(&s);
    if (*out_len > cap)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: decompressed size exceeds %zu bytes", cap);
    if (zrc != Z_STREAM_END)
        return pr_error_set(err, PR_EZLIB, "hdr: zlib stream %s (%d)",
                            zrc == Z_BUF_ERROR ? "truncated" : "corrupt", zrc);
    if (left != 0)
        return pr_error_set(err, PR_EZLIB, "hdr: %u bytes after the zlib stream", left);
    return 0;
}

/* Checks the 40-byte V2 header of p[0..len). */
static int check_v2_header(const uint8_t *p, size_t len, struct pr_error *err)
{
    if (len < V2_HEADER_LEN)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: encoding of %zu bytes is too short", len);
    uint32_t cookie = (uint32_t)get_be(p, 4);
    if ((cookie & ~0xf0U) != V2_ENCODING_COOKIE)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: encoding cookie 0x%08x is not V2", cookie);
    if (get_be(p + 4, 4) != len - V2_HEADER_LEN)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: payload length %" PRIu64 " != %zu",
                            get_be(p + 4, 4), len - V2_HEADER_LEN);
    if (get_be(p + 8, 4) != 0)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: normalizing index offset is not 0");
    if (get_be(p + 12, 4) != PR_HIST_SIGFIGS || get_be(p + 16, 8) != PR_HIST_MIN_US ||
        get_be(p + 24, 8) != PR_HIST_MAX_US)
        return pr_error_set(err, PR_EBAD_HDR,
                            "hdr: layout (%" PRIu64 ", %" PRIu64 ", %" PRIu64
                            ") is not (1, 3600000000, 3)",
                            get_be(p + 16, 8), get_be(p + 24, 8), get_be(p + 12, 4));
    if (get_be(p + 32, 8) != RATIO_ONE_BITS)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: conversion ratio is not 1.0");
    return 0;
}

/* Record the payload's counts into h (already empty). */
static int decode_counts(pr_hist *h, const uint8_t *p, size_t len, struct pr_error *err)
{
    size_t pos = V2_HEADER_LEN;
    int64_t idx = 0, limit = pr_hist_counts_len();
    uint64_t total = 0;
    while (pos < len) {
        int64_t v;
        if (!get_varint(p, len, &pos, &v))
            return pr_error_set(err, PR_EBAD_HDR, "hdr: truncated count at byte %zu", pos);
        if (v < 0) {
            uint64_t run = (uint64_t)(-(v + 1)) + 1;
            if (run > (uint64_t)(limit - idx))
                return pr_error_set(err, PR_EBAD_HDR, "hdr: zero run past index %" PRId64, idx);
            idx += (int64_t)run;
            continue;
        }
        if (idx >= limit)
            return pr_error_set(err, PR_EBAD_HDR, "hdr: count at index %" PRId64 " out of range",
                                idx);
        if (v > 0 && idx == 0)
            return pr_error_set(err, PR_EBAD_HDR, "hdr: count for value 0 (out of range)");
        if (__builtin_add_overflow(total, (uint64_t)v, &total))
            return pr_error_set(err, PR_EBAD_HDR, "hdr: total count overflows");
        pr_hist_record(h, pr_hist_value_at_index((int32_t)idx), (uint64_t)v);
        idx++;
    }
    return 0;
}

int pr_hdrlog_decode_raw(pr_hist *h, const uint8_t *buf, size_t len, struct pr_error *err)
{
    pr_hist_reset(h);
    if (len < WRAP_HEADER_LEN)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: %zu bytes is too short", len);
    uint32_t cookie = (uint32_t)get_be(buf, 4);
    if ((cookie & ~0xf0U) != V2_COMPRESSION_COOKIE)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: compression cookie 0x%08x is not V2", cookie);
    if (len > WRAP_HEADER_LEN + compressBound((uLong)max_encoded_len()))
        return pr_error_set(err, PR_EBAD_HDR, "hdr: %zu bytes is too long", len);
    if (get_be(buf + 4, 4) != len - WRAP_HEADER_LEN)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: compressed length %" PRIu64 " != %zu",
                            get_be(buf + 4, 4), len - WRAP_HEADER_LEN);
    size_t cap = max_encoded_len(), n = 0;
    uint8_t *enc = pr_xmalloc(cap + 1);
    int rc = inflate_capped(buf + WRAP_HEADER_LEN, len - WRAP_HEADER_LEN, enc, cap, &n, err);
    if (rc == 0)
        rc = check_v2_header(enc, n, err);
    if (rc == 0)
        rc = decode_counts(h, enc, n, err);
    free(enc);
    if (rc != 0)
        pr_hist_reset(h);
    return rc;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Strict RFC 4648 decoding of b64[0..len) into out; *out_len bytes. */
static int base64_decode(const char *b64, size_t len, uint8_t *out, size_t *out_len,
                         struct pr_error *err)
{
    if (len == 0 || len % 4 != 0)
        return pr_error_set(err, PR_EBAD_BASE64, "hdr: base64 length %zu", len);
    size_t pad = (b64[len - 1] == '=') + (b64[len - 1] == '=' && b64[len - 2] == '=');
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        for (size_t k = 0; k < 4; k++) {
            int d = i + k >= len - pad ? 0 : b64_value(b64[i + k]);
            if (d < 0)
                return pr_error_set(err, PR_EBAD_BASE64, "hdr: bad base64 byte at %zu", i + k);
            v = v << 6 | (uint32_t)d;
        }
        out[o++] = (uint8_t)(v >> 16);
        out[o++] = (uint8_t)(v >> 8);
        out[o++] = (uint8_t)v;
    }
    /* Canonical only: the bits the padding hides must be zero. */
    uint32_t last = (uint32_t)out[o - 2] << 8 | out[o - 1];
    if ((pad == 1 && (last & 0xff) != 0) || (pad == 2 && last != 0))
        return pr_error_set(err, PR_EBAD_BASE64, "hdr: non-canonical base64 padding");
    *out_len = o - pad;
    return 0;
}

int pr_hdrlog_decode(pr_hist *h, const char *b64, size_t len, struct pr_error *err)
{
    pr_hist_reset(h);
    size_t max_raw = WRAP_HEADER_LEN + compressBound((uLong)max_encoded_len());
    if (len > (max_raw + 2) / 3 * 4)
        return pr_error_set(err, PR_EBAD_HDR, "hdr: %zu base64 bytes is too long", len);
    uint8_t *raw = pr_xmalloc(len / 4 * 3 + 3);
    size_t n = 0;
    int rc = base64_decode(b64, len, raw, &n, err);
    if (rc == 0)
        rc = pr_hdrlog_decode_raw(h, raw, n, err);
    free(raw);
    return rc;
}

pr_hdrlog *pr_hdrlog_new(FILE *f)
{
    pr_hdrlog *w = pr_xcalloc(1, sizeof(*w));
    w->f = f;
    return w;
}

void pr_hdrlog_destroy(pr_hdrlog **w)
{
    if (w == NULL || *w == NULL)
        return;
    scratch_free(&(*w)->sc);
    free(*w);
    *w = NULL;
}

/* comment as "#[...]" lines of at most PR_HDRLOG_LINE_MAX bytes: broken
 * after the last space that leaves a line at least half full (the space
 * dropped), else before a UTF-8 lead byte. 0 or -EIO. */
static int write_comment(FILE *f, const char *c)
{
    const size_t room = PR_HDRLOG_LINE_MAX - 3; /* "#[" and "]" */
    size_t n = strlen(c);
    int rc = 0;
    do {
        size_t len = n;
        if (n > room) {
            size_t cut = room;
            while (cut > 0 && c[cut] != ' ')
                cut--;
            len = room;
            if (cut > room / 2)
                len = cut;
            else
                while (len > 1 && ((unsigned char)c[len] & 0xc0) == 0x80)
                    len--;
        }
        rc |= fprintf(f, "#[%.*s]\n", (int)len, c) < 0;
        c += len;
        n -= len;
        while (n > 0 && *c == ' ')
            c++, n--;
    } while (n > 0);
    return rc ? -EIO : 0;
}

int pr_hdrlog_write_header(pr_hdrlog *w, const char *comment, uint64_t start_ms, bool base_time)
{
    if (comment != NULL && strpbrk(comment, "\r\n") != NULL)
        return PR_EINVAL;
    char date[64];
    struct tm tm;
    time_t secs = (time_t)(start_ms / 1000);
    if (gmtime_r(&secs, &tm) == NULL ||
        strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm) == 0)
        return PR_EINVAL;
    int rc = 0;
    if (comment != NULL)
        rc |= write_comment(w->f, comment) != 0;
    rc |= fprintf(w->f, "#[Histogram log format version 1.3]\n") < 0;
    rc |= fprintf(w->f, "#[StartTime: %" PRIu64 ".%03u (seconds since epoch), %s]\n",
                  start_ms / 1000, (unsigned)(start_ms % 1000), date) < 0;
    if (base_time)
        rc |= fprintf(w->f, "#[BaseTime: %" PRIu64 ".%03u (seconds since epoch)]\n",
                      start_ms / 1000, (unsigned)(start_ms % 1000)) < 0;
    rc |= fprintf(w->f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                        "\"Interval_Compressed_Histogram\"\n") < 0;
    return rc ? -EIO : 0;
}

static bool tag_is_valid(const char *tag)
{
    for (const char *c = tag; *c != '\0'; c++)
        if (*c == ',' || (unsigned char)*c <= ' ' || *c == 0x7f)
            return false;
    return true;
}

int pr_hdrlog_write_interval(pr_hdrlog *w, const char *tag, uint64_t start_ms, uint64_t length_ms,
                             const pr_hist *h)
{
    bool tagged = tag != NULL && tag[0] != '\0';
    if (tagged && !tag_is_valid(tag))
        return PR_EINVAL;
    size_t zlen;
    int rc = encode_compressed(h, &w->sc, &zlen);
    if (rc != 0)
        return rc;
    base64_encode(&w->sc, zlen);
    uint64_t max_us = pr_hist_max(h);
    if (fprintf(w->f, "%s%s%s%" PRIu64 ".%03u,%" PRIu64 ".%03u,%" PRIu64 ".%03u,%s\n",
                tagged ? "Tag=" : "", tagged ? tag : "", tagged ? "," : "", start_ms / 1000,
                (unsigned)(start_ms % 1000), length_ms / 1000, (unsigned)(length_ms % 1000),
                max_us / PR_HDRLOG_MAX_DIVISOR, (unsigned)(max_us % PR_HDRLOG_MAX_DIVISOR),
                w->sc.b64) < 0)
        return -EIO;
    return 0;
}
