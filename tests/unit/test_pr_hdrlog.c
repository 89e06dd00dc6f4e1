/* Tests for pr_hdrlog: the HdrHistogram V2 encoding (round trip, known
 * bytes, malformed input), base64, and the interval log writer. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <zlib.h>

#include "pr_hdrlog.h"
#include "testlib.h"

#define TESTRNG_SEED 0x0123456789abcdefULL
#include "testrng.h"

/* The histogram V2 promises back: each bucket recorded at its lowest value. */
static bool decoded_matches(const pr_hist *orig, const pr_hist *dec)
{
    if (!pr_hist_same_buckets(orig, dec) || pr_hist_count(orig) != pr_hist_count(dec))
        return false;
    if (pr_hist_count(orig) == 0)
        return pr_hist_max(dec) == 0;
    return pr_hist_min(dec) == pr_hist_lowest_equivalent(pr_hist_min(orig)) &&
           pr_hist_max(dec) == pr_hist_lowest_equivalent(pr_hist_max(orig)) &&
           pr_hist_clamped(dec) == 0;
}

static bool b64_roundtrip(const pr_hist *h)
{
    char *b64 = NULL;
    size_t len = 0;
    struct pr_error err = {0, ""};
    pr_hist *back = pr_hist_new();
    pr_hist_record(back, 999, 1); /* decode must replace it */
    bool ok = pr_hdrlog_encode(h, &b64, &len) == 0 && strlen(b64) == len &&
              pr_hdrlog_decode(back, b64, len, &err) == 0 && decoded_matches(h, back);
    if (!ok)
        fprintf(stderr, "b64 roundtrip: %s\n", err.msg);
    /* Decoding the decoded histogram's encoding is the identity outright. */
    pr_hist *again = pr_hist_new();
    char *b64b = NULL;
    size_t lenb = 0;
    ok = ok && pr_hdrlog_encode(back, &b64b, &lenb) == 0 && lenb == len &&
         memcmp(b64, b64b, len) == 0 && pr_hdrlog_decode(again, b64b, lenb, &err) == 0 &&
         pr_hist_equal(again, back);
    free(b64);
    free(b64b);
    pr_hist_destroy(&back);
    pr_hist_destroy(&again);
    return ok;
}

static void test_roundtrip(void)
{
    pr_hist *h = pr_hist_new();
    CHECK(b64_roundtrip(h)); /* empty */
    pr_hist_record(h, 1, 1);
    CHECK(b64_roundtrip(h));
    pr_hist_record(h, PR_HIST_MAX_US, 5);
    pr_hist_record(h, 0, 2);
    pr_hist_record(h, UINT64_MAX, 2);
    CHECK(b64_roundtrip(h));
    pr_hist_reset(h);
    for (int i = 0; i < 1000000; i++)
        pr_hist_record(h, lognormal_us(2000, 0.6), 1);
    CHECK(b64_roundtrip(h));
    for (int i = 0; i < 100000; i++)
        pr_hist_record(h, 1 + rng_next() % 3600000000ULL, 1 + rng_next() % 1000);
    CHECK(b64_roundtrip(h));
    pr_hist_reset(h);
    pr_hist_record(h, 5000, (uint64_t)INT64_MAX); /* a 9-byte varint */
    CHECK(b64_roundtrip(h));
    pr_hist_record(h, 5000, 1); /* now above INT64_MAX: V2 cannot say it */
    char *b64 = NULL;
    size_t len;
    CHECK(pr_hdrlog_encode(h, &b64, &len) == PR_ERANGE && b64 == NULL);
    pr_hist_destroy(&h);
}

static int uncompress_raw(const uint8_t *raw, size_t len, uint8_t *out, size_t *out_len)
{
    uLongf n = *out_len;
    int rc = uncompress(out, &n, raw + 8, len - 8);
    *out_len = n;
    return rc;
}

/* The exact bytes of a small encoding, worked out by hand from the format. */
static void test_known_bytes(void)
{
    pr_hist *h = pr_hist_new();
    uint8_t *raw = NULL, enc[256];
    size_t len = 0, enc_len = sizeof(enc);
    pr_hist_record(h, 1, 1);
    pr_hist_record(h, 2048, 3);
    CHECK(pr_hdrlog_encode_raw(h, &raw, &len) == 0);
    static const uint8_t want[] = {
        0x1c, 0x84, 0x93, 0x13, 0,    0,    0,    5,
        0,    0,    0,    0,    0,    0,    0,    3, /* cookie, len, off, digits */
        0,    0,    0,    0,    0,    0,    0,    1,
        0,    0,    0,    0,    0xd6, 0x93, 0xa4, 0, /* lowest 1, highest 3.6e9 */
        0x3f, 0xf0, 0,    0,    0,    0,    0,    0, /* 1.0 */
        0x00, 0x02, 0xfb, 0x1f, 0x06, /* 0 at [0], 1 at [1], 2046 zeros, 3 at [2048] */
    };
    CHECK(len > 8 && raw[0] == 0x1c && raw[1] == 0x84 && raw[2] == 0x93 && raw[3] == 0x14);
    CHECK(((size_t)raw[4] << 24 | (size_t)raw[5] << 16 | (size_t)raw[6] << 8 | raw[7]) == len - 8);
    CHECK(uncompress_raw(raw, len, enc, &enc_len) == Z_OK);
    CHECK(enc_len == sizeof(want) && memcmp(enc, want, sizeof(want)) == 0);
    free(raw);
    pr_hist_reset(h);
    CHECK(pr_hdrlog_encode_raw(h, &raw, &len) == 0); /* empty: one zero count */
    enc_len = sizeof(enc);
    CHECK(uncompress_raw(raw, len, enc, &enc_len) == Z_OK);
    CHECK(enc_len == 41 && enc[7] == 1 && enc[40] == 0);
    free(raw);
    pr_hist_destroy(&h);
}

/* Wrap an uncompressed V2 encoding ourselves, to reach the payload checks. */
static int decode_v2(const uint8_t *enc, size_t enc_len, struct pr_error *err, pr_hist *h)
{
    uLongf zlen = compressBound(enc_len);
    uint8_t *raw = malloc(8 + zlen);
    compress(raw + 8, &zlen, enc, enc_len);
    raw[0] = 0x1c, raw[1] = 0x84, raw[2] = 0x93, raw[3] = 0x14;
    raw[4] = (uint8_t)(zlen >> 24), raw[5] = (uint8_t)(zlen >> 16);
    raw[6] = (uint8_t)(zlen >> 8), raw[7] = (uint8_t)zlen;
    int rc = pr_hdrlog_decode_raw(h, raw, 8 + zlen, err);
    free(raw);
    return rc;
}

static void set_header(uint8_t *e, uint32_t payload_len)
{
    static const uint8_t hdr[40] = {0x1c, 0x84, 0x93, 0x13, 0,    0,    0, 0, 0, 0, 0, 0, 0, 0,
                                    0,    3,    0,    0,    0,    0,    0, 0, 0, 1, 0, 0, 0, 0,
                                    0xd6, 0x93, 0xa4, 0,    0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    memcpy(e, hdr, 40);
    e[4] = (uint8_t)(payload_len >> 24), e[5] = (uint8_t)(payload_len >> 16);
    e[6] = (uint8_t)(payload_len >> 8), e[7] = (uint8_t)payload_len;
}

#define EXPECT_V2(payload, plen, want)                                                             \
    do {                                                                                           \
        uint8_t e_[40 + sizeof(payload)];                                                          \
        struct pr_error r_ = {0, ""};                                                              \
        set_header(e_, (uint32_t)(plen));                                                          \
        memcpy(e_ + 40, payload, sizeof(payload));                                                 \
        int rc_ = decode_v2(e_, 40 + sizeof(payload), &r_, h);                                     \
        CHECK_MSG(rc_ == (want), "%s: got %s (%s)", #payload, pr_errname(rc_), r_.msg);            \
        if ((want) != 0)                                                                           \
            CHECK(pr_hist_count(h) == 0 && pr_hist_max(h) == 0);                                   \
    } while (0)

static void test_malformed_v2(void)
{
    pr_hist *h = pr_hist_new();
    static const uint8_t ok[] = {0x01, 0x02};               /* run of 1 zero (-1), 1 at [1] */
    static const uint8_t java_zero[] = {0x00, 0x04};        /* single zero as 0, 2 at [1] */
    static const uint8_t trunc[] = {0x01, 0x82};            /* varint cut */
    static const uint8_t at0[] = {0x02};                    /* count at index 0 */
    static const uint8_t past[] = {0xe9, 0xea, 0x02, 0x02}; /* -23221 zeros, then 1 */
    static const uint8_t run_far[] = {0xeb, 0xea, 0x02};    /* -23222 zeros */
    static const uint8_t run_min[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t huge[] = {0x01, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t overflow[] = {0x01, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x04};
    EXPECT_V2(ok, 2, 0);
    CHECK(pr_hist_count(h) == 1 && pr_hist_min(h) == 1);
    EXPECT_V2(java_zero, 2, 0);
    CHECK(pr_hist_count(h) == 2 && pr_hist_count_at_index(h, 1) == 2);
    EXPECT_V2(huge, 10, 0);
    CHECK(pr_hist_count(h) == (uint64_t)INT64_MAX);
    EXPECT_V2(ok, 3, PR_EBAD_HDR); /* payload length lies */
    EXPECT_V2(trunc, 2, PR_EBAD_HDR);
    EXPECT_V2(at0, 1, PR_EBAD_HDR);
    EXPECT_V2(past, 4, PR_EBAD_HDR);
    EXPECT_V2(run_far, 3, PR_EBAD_HDR);
    EXPECT_V2(run_min, 9, PR_EBAD_HDR);
    EXPECT_V2(overflow, 20, PR_EBAD_HDR);

    /* Header fields, one at a time. */
    static const struct {
        int at, width;
        uint64_t value;
    } bad[] = {{0, 4, 0x1c849301}, {0, 4, 0x1c849304},  {8, 4, 1},           {12, 4, 2},
               {16, 8, 0},         {24, 8, 3600000001}, {24, 8, 1ULL << 62}, {32, 8, 1}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t e[42];
        struct pr_error err;
        set_header(e, 2);
        memcpy(e + 40, ok, 2);
        for (int k = 0; k < bad[i].width; k++)
            e[bad[i].at + k] = (uint8_t)(bad[i].value >> (8 * (bad[i].width - 1 - k)));
        CHECK_MSG(decode_v2(e, sizeof(e), &err, h) == PR_EBAD_HDR, "header field %zu", i);
    }
    /* Any word-size nibble is accepted, as HdrHistogram does. */
    uint8_t e[42];
    struct pr_error err;
    set_header(e, 2);
    memcpy(e + 40, ok, 2);
    e[3] = 0x23;
    CHECK(decode_v2(e, sizeof(e), &err, h) == 0);
    CHECK(decode_v2(e, 39, &err, h) == PR_EBAD_HDR);

    /* Decompressing to more than any valid histogram: capped. */
    size_t big_len = 40 + 9 * (size_t)pr_hist_counts_len() + 1;
    uint8_t *big = calloc(1, big_len);
    set_header(big, (uint32_t)(big_len - 40));
    CHECK(decode_v2(big, big_len, &err, h) == PR_EBAD_HDR);
    CHECK(strstr(err.msg, "exceeds") != NULL);
    free(big);
    pr_hist_destroy(&h);
}

static void test_malformed_raw(void)
{
    pr_hist *h = pr_hist_new(), *src = pr_hist_new();
    struct pr_error err;
    uint8_t *raw = NULL;
    size_t len = 0;
    for (int i = 0; i < 5000; i++)
        pr_hist_record(src, lognormal_us(800, 1.0), 1);
    CHECK(pr_hdrlog_encode_raw(src, &raw, &len) == 0);
    CHECK(pr_hdrlog_decode_raw(h, raw, len, &err) == 0 && decoded_matches(src, h));
    for (size_t n = 0; n < len; n++) {
        int rc = pr_hdrlog_decode_raw(h, raw, n, &err);
        CHECK(rc == PR_EBAD_HDR && pr_hist_count(h) == 0);
    }
    /* Right length field, stream cut short; then a stream with trailing bytes. */
    uint8_t *copy = malloc(len + 4);
    memcpy(copy, raw, len);
    for (size_t cut = 1; cut < len - 8; cut += 7) {
        size_t zl = len - 8 - cut;
        copy[4] = (uint8_t)(zl >> 24), copy[5] = (uint8_t)(zl >> 16);
        copy[6] = (uint8_t)(zl >> 8), copy[7] = (uint8_t)zl;
        CHECK(pr_hdrlog_decode_raw(h, copy, len - cut, &err) == PR_EZLIB);
    }
    memcpy(copy, raw, len);
    memset(copy + len, 0xab, 4);
    size_t zl = len - 8 + 4;
    copy[4] = (uint8_t)(zl >> 24), copy[5] = (uint8_t)(zl >> 16);
    copy[6] = (uint8_t)(zl >> 8), copy[7] = (uint8_t)zl;
    CHECK(pr_hdrlog_decode_raw(h, copy, len + 4, &err) == PR_EZLIB);
    memcpy(copy, raw, len);
    copy[3] = 0x13; /* the encoding cookie where the compression one belongs */
    CHECK(pr_hdrlog_decode_raw(h, copy, len, &err) == PR_EBAD_HDR);
    memcpy(copy, raw, len);
    copy[7] ^= 1;
    CHECK(pr_hdrlog_decode_raw(h, copy, len, &err) == PR_EBAD_HDR);

    /* Random corruption: any verdict, never a crash, consistent if accepted. */
    int accepted = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(copy, raw, len);
        for (int k = 0; k <= iter % 4; k++)
            copy[rng_next() % len] ^= (uint8_t)(1 + rng_next() % 255);
        int rc = pr_hdrlog_decode_raw(h, copy, len, &err);
        CHECK(rc == 0 || rc == PR_EBAD_HDR || rc == PR_EZLIB);
        if (rc == 0) {
            accepted++;
            CHECK(b64_roundtrip(h));
        } else {
            CHECK(pr_hist_count(h) == 0 && err.msg[0] != '\0');
        }
    }
    printf("raw corruption: %d of 20000 mutants accepted\n", accepted);
    free(copy);
    free(raw);
    pr_hist_destroy(&h);
    pr_hist_destroy(&src);
}

static void test_base64(void)
{
    pr_hist *h = pr_hist_new(), *src = pr_hist_new();
    struct pr_error err;
    char *b64 = NULL;
    size_t len = 0;
    pr_hist_record(src, 1234, 7);
    CHECK(pr_hdrlog_encode(src, &b64, &len) == 0);
    CHECK(pr_hdrlog_decode(h, b64, len, &err) == 0 && pr_hist_count(h) == 7);
    static const char *const bad[] = {"",         "HISTFAA",   "HISTFAA=A", "HIST FAA",
                                      "HI=TFAAA", "HISTFAA\n", "HISTF===",  "HISTFA=A",
                                      "QR==",     "QUJ=",      "H-STFAAA"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = pr_hdrlog_decode(h, bad[i], strlen(bad[i]), &err);
        CHECK_MSG(rc == PR_EBAD_BASE64 && pr_hist_count(h) == 0, "\"%s\": %s", bad[i],
                  pr_errname(rc));
    }
    /* Canonical padding that decodes to garbage is a header error instead. */
    CHECK(pr_hdrlog_decode(h, "QQ==", 4, &err) == PR_EBAD_HDR);
    CHECK(pr_hdrlog_decode(h, "QUI=", 4, &err) == PR_EBAD_HDR);
    size_t huge = 400000;
    char *big = malloc(huge);
    memset(big, 'A', huge);
    CHECK(pr_hdrlog_decode(h, big, huge, &err) == PR_EBAD_HDR);
    free(big);
    /* Mutated text: never a crash. */
    char *copy = malloc(len);
    for (int iter = 0; iter < 5000; iter++) {
        memcpy(copy, b64, len);
        copy[rng_next() % len] = (char)(rng_next() % 128);
        int rc = pr_hdrlog_decode(h, copy, rng_next() % 8 ? len : rng_next() % len, &err);
        CHECK(rc == 0 || rc == PR_EBAD_BASE64 || rc == PR_EBAD_HDR || rc == PR_EZLIB);
    }
    free(copy);
    free(b64);
    pr_hist_destroy(&h);
    pr_hist_destroy(&src);
}

/* Next line of the in-memory log, without its newline; NULL at the end. */
static char *next_line(char **cursor)
{
    char *s = *cursor, *nl = s ? strchr(s, '\n') : NULL;
    if (nl == NULL)
        return NULL;
    *nl = '\0';
    *cursor = nl + 1;
    return s;
}

static void test_writer(void)
{
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = open_memstream(&text, &text_len);
    pr_hdrlog *w = pr_hdrlog_new(f);
    pr_hist *h = pr_hist_new(), *back = pr_hist_new();
    struct pr_error err;
    CHECK(pr_hdrlog_write_header(w, "bad\ncomment", 0, false) == PR_EINVAL);
    CHECK(pr_hdrlog_write_header(w, "Logged with stampede test", 1700000000123ULL, true) == 0);
    pr_hist_record(h, 3000, 2);
    pr_hist_record(h, 1234567, 1);
    CHECK(pr_hdrlog_write_interval(w, "bad,tag", 0, 1000, h) == PR_EINVAL);
    CHECK(pr_hdrlog_write_interval(w, "bad tag", 0, 1000, h) == PR_EINVAL);
    CHECK(pr_hdrlog_write_interval(w, NULL, 0, 1000, h) == 0);
    CHECK(pr_hdrlog_write_interval(w, "agent-1", 1000, 999, h) == 0);
    pr_hist_reset(h);
    CHECK(pr_hdrlog_write_interval(w, "", 2000, 1000, h) == 0);
    pr_hdrlog_destroy(&w);
    CHECK(w == NULL);
    pr_hdrlog_destroy(&w);
    fclose(f);

    char *cur = text, *line;
    const char *want[] = {
        "#[Logged with stampede test]",
        "#[Histogram log format version 1.3]",
        "#[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]",
        "#[BaseTime: 1700000000.123 (seconds since epoch)]",
        "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"",
        "0.000,1.000,1234.567,",
        "Tag=agent-1,1.000,0.999,1234.567,",
        "2.000,1.000,0.000,",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        line = next_line(&cur);
        CHECK_MSG(line != NULL && strncmp(line, want[i], strlen(want[i])) == 0, "line %zu: %s", i,
                  line ? line : "(none)");
        if (line == NULL || i < 5)
            continue;
        const char *b64 = line + strlen(want[i]);
        CHECK(pr_hdrlog_decode(back, b64, strlen(b64), &err) == 0);
        CHECK(pr_hist_count(back) == (i == 7 ? 0 : 3));
    }
    CHECK(next_line(&cur) == NULL && *cur == '\0');
    free(text);
    pr_hist_destroy(&h);
    pr_hist_destroy(&back);
}

/* A comment too long for one line (HdrHistogram_c refuses a header line
 * of 127 bytes or more) is split into "#[...]" lines of at most
 * PR_HDRLOG_LINE_MAX bytes, at spaces when it has some, never inside a
 * UTF-8 character, and nothing of it is lost. */
static void test_long_comment(void)
{
    char comment[1024], *text = NULL;
    size_t text_len = 0;
    /* words, then one 300-byte word of 2-byte UTF-8 characters ("é") */
    int n = snprintf(comment, sizeof(comment),
                     "stampede 0.1.0 %s run: latency in microseconds; "
                     "untagged = all agents merged, Tag=<agent> = one agent ",
                     "a_workload_name_of_a_good_length_to_cross_the_line_limit");
    for (int i = 0; i < 150; i++)
        n += snprintf(comment + n, sizeof(comment) - (size_t)n, "\xc3\xa9");
    FILE *f = open_memstream(&text, &text_len);
    pr_hdrlog *w = pr_hdrlog_new(f);
    CHECK(pr_hdrlog_write_header(w, comment, 1700000000123ULL, true) == 0);
    pr_hdrlog_destroy(&w);
    fclose(f);

    char joined[1024] = "", want[1024] = "";
    int comment_lines = 0;
    size_t longest = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        size_t len = strlen(line);
        longest = len > longest ? len : longest;
        if (strncmp(line, "#[Histogram log format", 22) == 0)
            break;
        comment_lines++;
        CHECK_MSG(len >= 3 && strncmp(line, "#[", 2) == 0 && line[len - 1] == ']', "%s", line);
        CHECK_MSG(((unsigned char)line[2] & 0xc0) != 0x80, "line starts inside a character: %s",
                  line);
        strncat(joined, line + 2, len - 3);
    }
    CHECK_MSG(longest <= PR_HDRLOG_LINE_MAX && longest < 127, "longest header line %zu", longest);
    CHECK_MSG(comment_lines >= 4, "%d comment lines", comment_lines);
    /* The text is all there, bar the spaces it was broken at. */
    for (size_t i = 0, o = 0; comment[i] != '\0'; i++)
        if (comment[i] != ' ')
            want[o++] = comment[i];
    for (size_t i = 0, o = 0, len = strlen(joined); i <= len; i++)
        if (joined[i] != ' ')
            joined[o++] = joined[i];
    CHECK(strcmp(joined, want) == 0);
    free(text);

    /* A comment that fits stays one line, as it was. */
    text = NULL;
    f = open_memstream(&text, &text_len);
    w = pr_hdrlog_new(f);
    CHECK(pr_hdrlog_write_header(w, "", 0, false) == 0);
    pr_hdrlog_destroy(&w);
    fclose(f);
    CHECK(strncmp(text, "#[]\n#[Histogram log format version 1.3]\n", 40) == 0);
    free(text);
}

int main(void)
{
    test_long_comment();
    test_roundtrip();
    test_known_bytes();
    test_malformed_v2();
    test_malformed_raw();
    test_base64();
    test_writer();
    return TEST_END();
}
