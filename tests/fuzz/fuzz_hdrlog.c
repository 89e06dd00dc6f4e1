/* fuzz_hdrlog: the HdrHistogram V2 decoders. The first input byte picks
 * the layer the rest is fed to: 0 base64 text (pr_hdrlog_decode), 1 raw
 * compressed bytes, 2 an uncompressed V2 encoding that we deflate and wrap
 * first, so mutations reach the header and count parsers past zlib's
 * checksum. A rejection must leave the histogram empty; an acceptance must
 * re-encode to something that decodes to the same histogram. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "pr_hdrlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int decode_wrapped(pr_hist *h, const uint8_t *enc, size_t len, struct pr_error *err)
{
    uLongf zlen = compressBound((uLong)len);
    uint8_t *raw = malloc(8 + zlen);
    int rc = PR_EZLIB;
    if (compress(raw + 8, &zlen, enc, (uLong)len) == Z_OK) {
        raw[0] = 0x1c, raw[1] = 0x84, raw[2] = 0x93, raw[3] = 0x14;
        raw[4] = (uint8_t)(zlen >> 24), raw[5] = (uint8_t)(zlen >> 16);
        raw[6] = (uint8_t)(zlen >> 8), raw[7] = (uint8_t)zlen;
        rc = pr_hdrlog_decode_raw(h, raw, 8 + zlen, err);
    }
    free(raw);
    return rc;
}

static void check_roundtrip(const pr_hist *h, pr_hist *back)
{
    char *b64 = NULL;
    size_t len = 0;
    struct pr_error err;
    if (pr_hdrlog_encode(h, &b64, &len) != 0 || pr_hdrlog_decode(back, b64, len, &err) != 0 ||
        !pr_hist_equal(h, back))
        abort();
    free(b64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pr_hist *h, *back;
    if (h == NULL) {
        h = pr_hist_new();
        back = pr_hist_new();
    }
    if (size < 1)
        return 0;
    struct pr_error err = {0, ""};
    int rc;
    pr_hist_record(h, 4242, 1); /* a decode must replace it */
    switch (data[0] % 3) {
    case 0:
        rc = pr_hdrlog_decode(h, (const char *)data + 1, size - 1, &err);
        break;
    case 1:
        rc = pr_hdrlog_decode_raw(h, data + 1, size - 1, &err);
        break;
    default:
        rc = decode_wrapped(h, data + 1, size - 1, &err);
        break;
    }
    if (rc == 0)
        check_roundtrip(h, back);
    else if (pr_hist_count(h) != 0 || pr_hist_max(h) != 0 || err.msg[0] == '\0' ||
             (rc != PR_EBAD_HDR && rc != PR_EZLIB && rc != PR_EBAD_BASE64))
        abort();
    return 0;
}
