/* pr_msg_kst: STATS.kst / DONE.kst read straight from bytes. Checked
 * against msgpack-c's tree read by pr_hist_unpack() (an independent
 * decoder of the same bytes), on the encodings any msgpack writer may use,
 * and on malformed input, which must be refused with an error naming the
 * entry. */
#include <stdbool.h>

#include <msgpack.h>

#include "pr_hist.h"
#include "pr_msg.h"
#include "pr_msg_int.h"
#include "pr_msg_kst.h"
#include "testlib.h"

#define EXPECT_CODE(rc, want, err)                                                                 \
    CHECK_MSG((rc) == (want), "got %s (%s), want %s", pr_errname(rc), (err).msg, pr_errname(want))

static pr_hist *hists[3];

/* k's histogram, as decoded (frozen, lat NULL), thawed into out. */
static bool thaw_ok(const struct pr_msg_kstat *k, pr_hist *out)
{
    if (k->lat != NULL || k->lat_frozen == NULL)
        return false;
    pr_hist_thaw(out, k->lat_frozen);
    return true;
}

static void free_kst(struct pr_msg_kstat **k, uint32_t *n)
{
    for (uint32_t i = 0; *k != NULL && i < *n; i++) {
        pr_hist_destroy(&(*k)[i].lat);
        pr_hist_frozen_destroy(&(*k)[i].lat_frozen);
    }
    free(*k);
    *k = NULL;
    *n = 0;
}

/* kst of n entries, as pr_msg_encode writes it, into sb: entry i
 * [counts[i], i, hists[i % 3], counts[i] / 2]. */
static void pack_kst(msgpack_sbuffer *sb, uint32_t n, const uint64_t *counts)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_array(&pk, n);
    for (uint32_t i = 0; i < n; i++) {
        msgpack_pack_array(&pk, 4);
        msgpack_pack_uint64(&pk, counts[i]);
        msgpack_pack_uint64(&pk, i);
        if (pr_hist_pack(hists[i % 3], &pk) != 0)
            abort();
        msgpack_pack_uint64(&pk, counts[i] / 2);
    }
}

/* Round trip, against msgpack-c's tree of the same bytes. */
static void test_roundtrip(void)
{
    static const uint64_t counts[5] = {0, 1, 127, 1ULL << 40, UINT64_MAX};
    msgpack_sbuffer sb;
    struct pr_msg_kstat *k = NULL;
    uint32_t n = 0;
    struct pr_error err = {0};

    msgpack_sbuffer_init(&sb);
    pack_kst(&sb, 5, counts);
    EXPECT_CODE(pr__msg_kst_unpack_raw(sb.data, sb.size, 64, &k, &n, "STATS.kst", &err), 0, err);
    CHECK_EQ_U64(n, 5);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    CHECK(msgpack_unpack_next(&u, sb.data, sb.size, NULL) == MSGPACK_UNPACK_SUCCESS);
    pr_hist *tree = pr_hist_new();
    for (uint32_t i = 0; i < n && i < 5; i++) {
        CHECK_EQ_U64(k[i].count, counts[i]);
        CHECK_EQ_U64(k[i].errors, i);
        CHECK_EQ_U64(k[i].late, counts[i] / 2);
        const msgpack_object *e = &u.data.via.array.ptr[i].via.array.ptr[2];
        CHECK(pr_hist_unpack(tree, e, NULL) == 0);
        pr_hist *got = pr_hist_new();
        CHECK(thaw_ok(&k[i], got));
        CHECK(pr_hist_count(got) == pr_hist_count(hists[i % 3]));
        CHECK(pr_hist_equal(got, tree) && pr_hist_equal(got, hists[i % 3]));
        pr_hist_destroy(&got);
    }
    pr_hist_destroy(&tree);
    msgpack_unpacked_destroy(&u);
    free_kst(&k, &n);

    /* empty: no array allocated */
    msgpack_sbuffer_clear(&sb);
    pack_kst(&sb, 0, counts);
    EXPECT_CODE(pr__msg_kst_unpack_raw(sb.data, sb.size, 64, &k, &n, "STATS.kst", &err), 0, err);
    CHECK(n == 0 && k == NULL);
    msgpack_sbuffer_destroy(&sb);
}

/* Encodings another writer may choose (msgpack-c reads them all as the
 * same uints): array16 heads, a signed int16 that is >= 0 (count, late). */
static void test_other_encodings(void)
{
    msgpack_sbuffer hb;
    msgpack_packer pk;
    struct pr_msg_kstat *k = NULL;
    uint32_t n = 0;
    struct pr_error err = {0};
    uint8_t buf[8192];

    msgpack_sbuffer_init(&hb);
    msgpack_packer_init(&pk, &hb, msgpack_sbuffer_write);
    CHECK(pr_hist_pack(hists[1], &pk) == 0);
    size_t len = 0;
    const uint8_t head[] = {0xdc, 0x00, 0x01, 0xdc, 0x00, 0x04, 0xd1, 0x01, 0x00, 0xd0, 0x05};
    memcpy(buf, head, sizeof(head));
    len = sizeof(head);
    CHECK(hb.size < sizeof(buf) - len - 3);
    memcpy(buf + len, hb.data, hb.size);
    len += hb.size;
    buf[len++] = 0xd1, buf[len++] = 0x01, buf[len++] = 0x00; /* late 256: all of them */
    EXPECT_CODE(pr__msg_kst_unpack_raw(buf, len, 64, &k, &n, "DONE.kst", &err), 0, err);
    pr_hist *got = pr_hist_new();
    CHECK(n == 1 && k[0].count == 256 && k[0].errors == 5 && k[0].late == 256 &&
          thaw_ok(&k[0], got) && pr_hist_equal(got, hists[1]));
    pr_hist_destroy(&got);
    free_kst(&k, &n);

    /* late above count (257 > 256), late negative */
    buf[len - 1] = 0x01;
    EXPECT_CODE(pr__msg_kst_unpack_raw(buf, len, 64, &k, &n, "DONE.kst", &err), PR_ERANGE, err);
    CHECK_MSG(strstr(err.msg, "DONE.kst[0]: late 257 > count 256") != NULL, "%s", err.msg);
    free_kst(&k, &n);
    buf[len - 2] = 0xff;
    EXPECT_CODE(pr__msg_kst_unpack_raw(buf, len, 64, &k, &n, "DONE.kst", &err), PR_ERANGE, err);
    CHECK_MSG(strstr(err.msg, "DONE.kst[0]: negative value") != NULL, "%s", err.msg);
    free_kst(&k, &n);
    buf[len - 2] = 0x00;

    /* negative int16 (0xff00), negative int8 */
    buf[7] = 0xff;
    EXPECT_CODE(pr__msg_kst_unpack_raw(buf, len, 64, &k, &n, "DONE.kst", &err), PR_ERANGE, err);
    CHECK_MSG(strstr(err.msg, "DONE.kst[0]: negative value -256") != NULL, "%s", err.msg);
    free_kst(&k, &n);
    buf[7] = 0x01;
    buf[9] = 0xd0, buf[10] = 0xfe;
    EXPECT_CODE(pr__msg_kst_unpack_raw(buf, len, 64, &k, &n, "DONE.kst", &err), PR_ERANGE, err);
    CHECK_MSG(strstr(err.msg, "negative value -2") != NULL, "%s", err.msg);
    free_kst(&k, &n);
    msgpack_sbuffer_destroy(&hb);
}

static int try_bytes(const uint8_t *b, size_t len, struct pr_error *err)
{
    struct pr_msg_kstat *k = NULL;
    uint32_t n = 0;
    int rc = pr__msg_kst_unpack_raw(b, len, 4, &k, &n, "STATS.kst", err);
    free_kst(&k, &n);
    return rc;
}

/* Malformed input: refused, with the entry and the fault named. */
static void test_malformed(void)
{
    static const uint64_t counts[3] = {7, 8, 9};
    struct pr_error err = {0};
    msgpack_sbuffer sb;

    const uint8_t map[] = {0x80};
    EXPECT_CODE(try_bytes(map, sizeof(map), &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "STATS.kst: expected array, got map") != NULL, "%s", err.msg);
    const uint8_t pair[] = {0x91, 0x92, 0x01, 0x02};
    EXPECT_CODE(try_bytes(pair, sizeof(pair), &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "STATS.kst[0]: expected [count, errors, lat, late], got array") !=
                  NULL,
              "%s", err.msg);
    const uint8_t strcount[] = {0x91, 0x94, 0xa1, 'x', 0x00, 0x80, 0x00};
    EXPECT_CODE(try_bytes(strcount, sizeof(strcount), &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "STATS.kst[0]: expected uint, got str") != NULL, "%s", err.msg);
    const uint8_t nilerr[] = {0x91, 0x94, 0x01, 0xc0, 0x80, 0x00};
    EXPECT_CODE(try_bytes(nilerr, sizeof(nilerr), &err), PR_EBAD_TYPE, err);
    const uint8_t badhist[] = {0x91, 0x94, 0x01, 0x00, 0x05, 0x00};
    EXPECT_CODE(try_bytes(badhist, sizeof(badhist), &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "STATS.kst[0]: ") == err.msg, "%s", err.msg);
    const uint8_t emptyhist[] = {0x91, 0x94, 0x01, 0x00, 0x80, 0x00};
    EXPECT_CODE(try_bytes(emptyhist, sizeof(emptyhist), &err), PR_EMISSING_KEY, err);
    const uint8_t c1[] = {0x91, 0x94, 0x01, 0x00, 0xc1, 0x00};
    EXPECT_CODE(try_bytes(c1, sizeof(c1), &err), PR_EINVAL, err);
    const uint8_t toomany[] = {0x95, 0x00, 0x00, 0x00, 0x00, 0x00};
    EXPECT_CODE(try_bytes(toomany, sizeof(toomany), &err), PR_ETOO_BIG, err);
    CHECK_MSG(strstr(err.msg, "5 elements (max 4)") != NULL, "%s", err.msg);
    const uint8_t huge[] = {0xdd, 0xff, 0xff, 0xff, 0xff};
    EXPECT_CODE(try_bytes(huge, sizeof(huge), &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_bytes(map, 0, &err), PR_ETRUNCATED, err);

    /* late: a protocol 4 entry (without it), a str, cut off, above count */
    static const uint64_t one[1] = {7};
    msgpack_sbuffer_init(&sb);
    pack_kst(&sb, 1, one);
    uint8_t *b = (uint8_t *)sb.data;
    CHECK(b[1] == 0x94 && b[sb.size - 1] == 3); /* [7, 0, hist, 3] */
    EXPECT_CODE(try_bytes(b, sb.size, &err), 0, err);
    b[1] = 0x93;
    EXPECT_CODE(try_bytes(b, sb.size - 1, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "STATS.kst[0]: expected [count, errors, lat, late]") != NULL, "%s",
              err.msg);
    b[1] = 0x94;
    EXPECT_CODE(try_bytes(b, sb.size - 1, &err), PR_ETRUNCATED, err);
    b[sb.size - 1] = 0xa0; /* "" */
    EXPECT_CODE(try_bytes(b, sb.size, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "STATS.kst[0]: expected uint, got str") != NULL, "%s", err.msg);
    b[sb.size - 1] = 8;
    EXPECT_CODE(try_bytes(b, sb.size, &err), PR_ERANGE, err);
    CHECK_MSG(strstr(err.msg, "STATS.kst[0]: late 8 > count 7") != NULL, "%s", err.msg);
    msgpack_sbuffer_destroy(&sb);

    /* every truncation of a good kst, and trailing bytes */
    msgpack_sbuffer_init(&sb);
    pack_kst(&sb, 3, counts);
    EXPECT_CODE(try_bytes((const uint8_t *)sb.data, sb.size, &err), 0, err);
    for (size_t len = 0; len < sb.size; len += len < 64 ? 1 : 97)
        CHECK_MSG(try_bytes((const uint8_t *)sb.data, len, &err) < 0, "%zu of %zu bytes", len,
                  sb.size);
    msgpack_sbuffer_write(&sb, "\x00", 1);
    EXPECT_CODE(try_bytes((const uint8_t *)sb.data, sb.size, &err), PR_ETRAILING, err);
    msgpack_sbuffer_destroy(&sb);
}

/* The whole message: STATS and DONE with kst decode through the raw path,
 * and one without kst (an agent that declares no kinds) still decodes. */
static void test_through_decode(void)
{
    struct pr_msg m, out;
    struct pr_error err = {0};
    struct pr_msg_kstat kst[3] = {{.count = 10, .errors = 1, .late = 10, .lat = hists[0]},
                                  {.count = 20, .errors = 2, .lat = hists[1]},
                                  {.count = 30, .late = 29, .lat = hists[2]}};
    msgpack_sbuffer sb;

    msgpack_sbuffer_init(&sb);
    pr_msg_init(&m, PR_MSG_STATS, "run-1", 9);
    m.u.stats.lat = hists[0];
    m.u.stats.kst = kst;
    m.u.stats.n_kst = 3;
    EXPECT_CODE(pr_msg_encode(&m, &sb, &err), 0, err);
    EXPECT_CODE(pr_msg_decode(&out, sb.data, sb.size, &err), 0, err);
    CHECK_EQ_U64(out.u.stats.n_kst, 3);
    pr_hist *got = pr_hist_new();
    for (uint32_t i = 0; i < 3 && i < out.u.stats.n_kst; i++)
        CHECK(out.u.stats.kst[i].count == kst[i].count &&
              out.u.stats.kst[i].errors == kst[i].errors &&
              out.u.stats.kst[i].late == kst[i].late && thaw_ok(&out.u.stats.kst[i], got) &&
              pr_hist_equal(got, kst[i].lat));
    /* a decoded (frozen) kst encodes again to the same bytes */
    msgpack_sbuffer again;
    msgpack_sbuffer_init(&again);
    EXPECT_CODE(pr_msg_encode(&out, &again, &err), 0, err);
    CHECK(again.size == sb.size && memcmp(again.data, sb.data, sb.size) == 0);
    msgpack_sbuffer_destroy(&again);
    pr_hist_destroy(&got);
    pr_msg_clear(&out);
    msgpack_sbuffer_clear(&sb);
    m.u.stats.n_kst = 0;
    m.u.stats.kst = NULL;
    EXPECT_CODE(pr_msg_encode(&m, &sb, &err), 0, err);
    EXPECT_CODE(pr_msg_decode(&out, sb.data, sb.size, &err), 0, err);
    CHECK(out.u.stats.n_kst == 0 && out.u.stats.kst == NULL);
    pr_msg_clear(&out);
    msgpack_sbuffer_destroy(&sb);
}

/* pr__mp_skip, the one classifier's whole-object skip (pr_msg_int.h):
 * over every kind of object msgpack-c writes, each one whole, refused
 * when cut anywhere short, and stopped at a 0xc1 byte with the offset on
 * it. */
static void test_mp_skip(void)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    static const char blob[70000] = {0};
    size_t ends[32], n = 0;
    msgpack_pack_nil(&pk), ends[n++] = sb.size;
    msgpack_pack_true(&pk), ends[n++] = sb.size;
    msgpack_pack_uint64(&pk, 5), ends[n++] = sb.size;
    msgpack_pack_uint64(&pk, 300), ends[n++] = sb.size;
    msgpack_pack_uint64(&pk, 1ULL << 40), ends[n++] = sb.size;
    msgpack_pack_int64(&pk, -5), ends[n++] = sb.size;
    msgpack_pack_int64(&pk, -70000), ends[n++] = sb.size;
    msgpack_pack_double(&pk, 1.5), ends[n++] = sb.size;
    msgpack_pack_float(&pk, 1.5f), ends[n++] = sb.size;
    msgpack_pack_str_with_body(&pk, blob, 5), ends[n++] = sb.size;
    msgpack_pack_str_with_body(&pk, blob, 200), ends[n++] = sb.size;
    msgpack_pack_str_with_body(&pk, blob, 70000), ends[n++] = sb.size;
    msgpack_pack_bin_with_body(&pk, blob, 300), ends[n++] = sb.size;
    msgpack_pack_ext_with_body(&pk, blob, 4, 7), ends[n++] = sb.size;
    msgpack_pack_ext_with_body(&pk, blob, 300, 7), ends[n++] = sb.size;
    msgpack_pack_array(&pk, 20); /* array16 of arrays, maps and scalars */
    for (int i = 0; i < 20; i++) {
        msgpack_pack_map(&pk, 1);
        msgpack_pack_str_with_body(&pk, "k", 1);
        msgpack_pack_array(&pk, 2);
        msgpack_pack_uint32(&pk, (uint32_t)i * 100000);
        msgpack_pack_nil(&pk);
    }
    ends[n++] = sb.size;
    const uint8_t *p = (const uint8_t *)sb.data;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t from = off;
        CHECK_MSG(pr__mp_skip(p, sb.size, &off) && off == ends[i], "object %zu: at %zu, want %zu",
                  i, off, ends[i]);
        off = ends[i];
        for (size_t cut = from; cut < ends[i]; cut += 1 + (ends[i] - from) / 97) {
            size_t o = from;
            CHECK_MSG(!pr__mp_skip(p, cut, &o), "object %zu cut at %zu accepted", i, cut - from);
        }
    }
    uint8_t bad[3] = {0x92, 0x01, 0xc1}; /* [1, <0xc1>] */
    off = 0;
    CHECK(!pr__mp_skip(bad, sizeof(bad), &off) && off == 2);
    uint8_t huge[5] = {0xdd, 0xff, 0xff, 0xff, 0xff}; /* array32 of 4 billion, no elements */
    off = 0;
    CHECK(!pr__mp_skip(huge, sizeof(huge), &off));
    msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        hists[i] = pr_hist_new();
    for (uint64_t v = 1; v < 5000000; v = v * 3 + 1)
        pr_hist_record(hists[0], v, v % 7 + 1);
    pr_hist_record(hists[1], 250, 1000);
    pr_hist_record(hists[1], 99999, 1);
    test_roundtrip();
    test_other_encodings();
    test_malformed();
    test_through_decode();
    test_mp_skip();
    for (int i = 0; i < 3; i++)
        pr_hist_destroy(&hists[i]);
    return TEST_END();
}
