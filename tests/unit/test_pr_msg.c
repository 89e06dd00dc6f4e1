/* test_pr_msg: the control-message codec (proto/msg/pr_msg.h), whole
 * messages and the bytes around them.
 *
 * Round trips of every type with every field set, minimal messages and
 * absent optional keys; then the framing: truncation at every length,
 * trailing bytes, hostile msgpack headers, the pre-decode's limits and random
 * garbage; and the sequence tracker, the plan hash and the names. The
 * decoder's key-by-key rejections are in test_pr_msg_reject.c; the filled
 * messages and the wire editing both use are in pr_msg_fixture.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pr_msg_fixture.h"

/* ---- Tests ----------------------------------------------------------------- */

static void test_roundtrip(void)
{
    for (size_t i = 0; i < N_TYPES; i++) {
        struct pr_msg m, d, d2;
        struct pr_error err;
        msgpack_sbuffer sb, sb2;
        fill(&m, keyspecs[i].type);
        msgpack_sbuffer_init(&sb);
        msgpack_sbuffer_init(&sb2);
        CHECK(pr_msg_encode(&m, &sb, &err) == 0 && err.code == 0);
        int rc = pr_msg_decode(&d, sb.data, sb.size, &err);
        EXPECT_CODE(rc, 0, err);
        check_same(&m, &d);
        /* Re-encoding the decoded struct gives the same bytes. */
        CHECK(pr_msg_encode(&d, &sb2, NULL) == 0);
        CHECK(sb.size == sb2.size && memcmp(sb.data, sb2.data, sb.size) == 0);
        /* Decode again into a cleared struct: no leak, same result. */
        pr_msg_clear(&d);
        CHECK(d.type == PR_MSG_NONE);
        CHECK(pr_msg_decode(&d2, sb2.data, sb2.size, NULL) == 0);
        check_same(&m, &d2);
        pr_msg_clear(&d2);
        pr_msg_clear(&d2); /* twice is safe */
        msgpack_sbuffer_destroy(&sb);
        msgpack_sbuffer_destroy(&sb2);
    }
}

/* Empty lists, NULL strings and an absent optional histogram. */
static void test_minimal(void)
{
    struct pr_msg m, d;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);

    pr_msg_init(&m, PR_MSG_PLAN, NULL, 1);
    m.u.plan.agent_count = 1;
    m.u.plan.report_ms = 1;
    CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
    CHECK(pr_msg_decode(&d, sb.data, sb.size, NULL) == 0);
    CHECK(d.run[0] == '\0' && d.u.plan.n_opts == 0 && d.u.plan.n_tables == 0);
    CHECK(d.u.plan.workload != NULL && d.u.plan.workload[0] == '\0');
    CHECK(d.u.plan.password != NULL && d.u.plan.password[0] == '\0');
    CHECK(d.u.plan.cmd == PR_CMD_PREPARE && d.u.plan.part == PR_PART_NONE);
    pr_msg_clear(&d);

    sb.size = 0;
    fill(&m, PR_MSG_STATS);
    m.u.stats.svc = NULL;
    m.u.stats.n_srv = 0;
    m.u.stats.srv = NULL;
    CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
    CHECK(pr_msg_decode(&d, sb.data, sb.size, NULL) == 0);
    CHECK(d.u.stats.svc == NULL && d.u.stats.lat_frozen != NULL && d.u.stats.n_srv == 0);
    pr_msg_clear(&d);
    msgpack_sbuffer_destroy(&sb);

    /* A sender that predates the optional keys: absent reads as empty. */
    struct pr_error err;
    struct edit drop_srv = {ED_DROP, "srv", NULL}, drop_rows = {ED_DROP, "rows", NULL};
    CHECK(decode_edited(PR_MSG_READY, &drop_srv, &d, &err) == 0);
    CHECK(d.u.ready.srv == NULL && d.u.ready.n_srv == 0 && d.u.ready.conns == 21);
    pr_msg_clear(&d);
    CHECK(decode_edited(PR_MSG_STATS, &drop_rows, &d, &err) == 0);
    CHECK(d.u.stats.rows == 0 && d.u.stats.n_srv == 2);
    pr_msg_clear(&d);
    CHECK(decode_edited(PR_MSG_DONE, &drop_rows, &d, &err) == 0);
    CHECK(d.u.done.rows == 0 && d.u.done.n_kinds == 2);
    pr_msg_clear(&d);
    /* The events' outcomes (optional counters): an older agent's ctr
     * without them reads as 0, the other counters as sent. */
    struct edit drop_rb = {ED_DROP, "ctr.rolled_back", NULL};
    struct edit drop_failed = {ED_DROP, "ctr.failed", NULL};
    CHECK(decode_edited(PR_MSG_STATS, &drop_rb, &d, &err) == 0);
    CHECK(d.u.stats.ctr.rolled_back == 0 && d.u.stats.ctr.failed > 0 &&
          d.u.stats.ctr.reconnects > 0);
    pr_msg_clear(&d);
    CHECK(decode_edited(PR_MSG_DONE, &drop_failed, &d, &err) == 0);
    CHECK(d.u.done.ctr.failed == 0 && d.u.done.ctr.rolled_back > 0 && d.u.done.ctr.errors > 0);
    pr_msg_clear(&d);

    /* Unknown figures are absent, not 0 (issue 9 item 10): a DONE without a
     * start skew, a READY without a DB round trip, and back. */
    struct edit drop_skew = {ED_DROP, "skew", NULL}, drop_rtt = {ED_DROP, "rtt", NULL};
    struct edit drop_rmode = {ED_DROP, "rmode", NULL}, drop_svc = {ED_DROP, "svc", NULL};
    CHECK(decode_edited(PR_MSG_DONE, &drop_skew, &d, &err) == 0);
    CHECK(!d.u.done.has_start_skew && d.u.done.start_skew_us == 0);
    pr_msg_clear(&d);
    CHECK(decode_edited(PR_MSG_DONE, &drop_svc, &d, &err) == 0);
    CHECK(d.u.done.svc == NULL && d.u.done.lat != NULL);
    pr_msg_clear(&d);
    CHECK(decode_edited(PR_MSG_READY, &drop_rtt, &d, &err) == 0);
    CHECK(!d.u.ready.has_db_rtt && d.u.ready.db_rtt_us == 0 && d.u.ready.conns == 21);
    pr_msg_clear(&d);
    CHECK(decode_edited(PR_MSG_PLAN, &drop_rmode, &d, &err) == 0);
    CHECK(d.u.plan.rate_mode == PR_RATE_POISSON);
    pr_msg_clear(&d);
    msgpack_sbuffer_init(&sb);
    fill(&m, PR_MSG_DONE);
    m.u.done.has_start_skew = false;
    m.u.done.start_skew_us = 12345; /* not sent: the flag says unknown */
    CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
    CHECK(pr_msg_decode(&d, sb.data, sb.size, NULL) == 0);
    CHECK(!d.u.done.has_start_skew && d.u.done.start_skew_us == 0);
    pr_msg_clear(&d);
    sb.size = 0;
    fill(&m, PR_MSG_READY);
    m.u.ready.has_db_rtt = false;
    CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
    CHECK(pr_msg_decode(&d, sb.data, sb.size, NULL) == 0);
    CHECK(!d.u.ready.has_db_rtt && d.u.ready.db_rtt_us == 0);
    pr_msg_clear(&d);
    msgpack_sbuffer_destroy(&sb);
    /* A rate mode the decoder does not know is refused, naming the key. */
    msgpack_object gauss = {.type = MSGPACK_OBJECT_STR, .via.str = {8, "gaussian"}};
    CHECK(try_edit(PR_MSG_PLAN, ED_SET, "rmode", &gauss, &err) == PR_ERANGE);
    CHECK(strstr(err.msg, "rmode") != NULL);
}

/* The pre-scan skips a "lat" or "kst" value it decoded in one pass
 * (pr_msg_dec.c, pre_decode) only when the scan would have accepted it:
 * inside them, a map of more than PR_MSG_MAX_KEYS keys or nesting past
 * PR_MSG_MAX_DEPTH is still refused as before; an unknown key within the
 * limits is still ignored, and the values decoded are the same. */
static void test_pre_decode_limits(void)
{
    struct pr_error err = {0};
    msgpack_object_kv *kv = calloc(PR_MSG_MAX_KEYS + 1, sizeof(*kv));
    static const char names[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-*/";
    for (uint32_t i = 0; i <= PR_MSG_MAX_KEYS; i++) {
        kv[i].key.type = MSGPACK_OBJECT_STR;
        kv[i].key.via.str.ptr = names + i;
        kv[i].key.via.str.size = 1;
        kv[i].val.type = MSGPACK_OBJECT_NIL;
    }
    msgpack_object big = {.type = MSGPACK_OBJECT_MAP};
    big.via.map.ptr = kv;
    big.via.map.size = PR_MSG_MAX_KEYS + 1;
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_ADD, "lat.zz", &big, &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_ADD, "kst.0.2.zz", &big, &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_ADD, "kst.1.2.zz", &big, &err), PR_ETOO_BIG, err);
    msgpack_object deep[PR_MSG_MAX_DEPTH + 2];
    for (int i = 0; i < PR_MSG_MAX_DEPTH + 2; i++) {
        deep[i].type = i == PR_MSG_MAX_DEPTH + 1 ? MSGPACK_OBJECT_NIL : MSGPACK_OBJECT_ARRAY;
        deep[i].via.array.size = 1;
        deep[i].via.array.ptr = &deep[i + 1];
    }
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_ADD, "lat.zz", &deep[0], &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_ADD, "kst.2.2.zz", &deep[0], &err), PR_ETOO_BIG, err);
    /* within the limits: accepted, nested (the scan's path) or flat (the
     * pre-decode's), with the same histogram */
    big.via.map.size = 3;
    msgpack_object nil = {.type = MSGPACK_OBJECT_NIL};
    const msgpack_object *ok[] = {&big, &nil, &deep[PR_MSG_MAX_DEPTH - 4]};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct pr_msg out;
        struct edit e = {ED_ADD, "lat.zz", ok[i]};
        CHECK_MSG(decode_edited(PR_MSG_STATS, &e, &out, &err) == 0, "case %zu: %s", i, err.msg);
        pr_hist *h = pr_hist_new();
        if (out.u.stats.lat_frozen != NULL)
            pr_hist_thaw(h, out.u.stats.lat_frozen);
        CHECK(out.u.stats.lat == NULL && pr_hist_equal(h, hist_lat));
        pr_hist_destroy(&h);
        pr_msg_clear(&out);
        e.path = "kst.0.2.zz";
        CHECK_MSG(decode_edited(PR_MSG_STATS, &e, &out, &err) == 0, "kst case %zu: %s", i, err.msg);
        CHECK(out.u.stats.n_kst > 0 && out.u.stats.kst[0].lat_frozen != NULL);
        pr_msg_clear(&out);
    }
    free(kv);
}

/* The frames below are written by hand with this protocol's version. */
_Static_assert(PR_PROTO_VERSION == 6, "test_hostile: update the version bytes");

static void test_hostile(void)
{
    struct pr_error err;
    struct pr_msg out;
    struct {
        const char *bytes;
        size_t len;
        int code;
    } cases[] = {
        {"\xdd\xff\xff\xff\xff", 5, PR_ETRUNCATED}, /* array of 4G elements */
        {"\xdf\xff\xff\xff\xff", 5, PR_ETOO_BIG},   /* map of 4G keys */
        {"\xdb\xff\xff\xff\xff"
         "ab",
         7, PR_ETRUNCATED},                             /* str of 4 GB */
        {"\xc9\xff\xff\xff\xff\x01", 6, PR_ETRUNCATED}, /* ext of 4 GB */
        {"\xc1", 1, PR_EINVAL},
        {"\x93\x01\x02\x03", 4, PR_ENOTMAP},
        {"\xc0", 1, PR_ENOTMAP},
        {"\x80", 1, PR_EMISSING_KEY},
        {"\x81\xa1v\x05", 4, PR_EVERSION}, /* 5: no STATS.conns */
        {"\x81\xa1v\x04", 4, PR_EVERSION}, /* 4: kst entries without late */
        {"\x81\xa1v\x03", 4, PR_EVERSION}, /* 3: histogram indexes, not gaps */
        {"\x81\xa1v\x01", 4, PR_EVERSION},
        {"\x81\xa1v\xcc\xff", 5, PR_EVERSION},
        {"\x81\xa1v\xd0\xff", 5, PR_ERANGE},
        {"\x81\xa1v\x06", 4, PR_EMISSING_KEY},
        {"\x82\xa1v\x06\xa1t\xa0", 7, PR_EUNKNOWN_TYPE},
        {"\x82\xa1v\x06\xa1t\xa4NONE", 11, PR_EUNKNOWN_TYPE},
        {"", 0, PR_ETRUNCATED},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = pr_msg_decode(&out, cases[i].bytes, cases[i].len, &err);
        CHECK_MSG(rc == cases[i].code, "case %zu: got %s (%s)", i, pr_errname(rc), err.msg);
        pr_msg_clear(&out);
    }
    /* Nesting: 17 arrays deep is refused, 16 is structurally fine. */
    uint8_t deep[40];
    memset(deep, 0x91, sizeof(deep));
    deep[PR_MSG_MAX_DEPTH + 1] = 0xc0;
    CHECK(pr_msg_decode(&out, deep, PR_MSG_MAX_DEPTH + 2, &err) == PR_ETOO_BIG);
    deep[PR_MSG_MAX_DEPTH] = 0xc0;
    CHECK(pr_msg_decode(&out, deep, PR_MSG_MAX_DEPTH + 1, &err) == PR_ENOTMAP);
    /* Over the size limit. */
    char *huge = calloc(1, PR_MSG_MAX_BYTES + 1);
    CHECK(pr_msg_decode(&out, huge, PR_MSG_MAX_BYTES + 1, &err) == PR_ETOO_BIG);
    free(huge);
}

static void test_framing(void)
{
    struct pr_error err;
    struct pr_msg out;
    for (size_t i = 0; i < N_TYPES; i++) {
        struct pr_msg m;
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        fill(&m, keyspecs[i].type);
        CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
        for (size_t len = 0; len < sb.size; len++) {
            /* A private copy so ASan sees any read past len. */
            char *cut = malloc(len ? len : 1);
            memcpy(cut, sb.data, len);
            int rc = pr_msg_decode(&out, cut, len, &err);
            EXPECT_CODE(rc, PR_ETRUNCATED, err);
            CHECK(out.type == PR_MSG_NONE);
            pr_msg_clear(&out);
            free(cut);
        }
        msgpack_sbuffer_write(&sb, "\xc0", 1);
        int rc = pr_msg_decode(&out, sb.data, sb.size, &err);
        EXPECT_CODE(rc, PR_ETRAILING, err);
        pr_msg_clear(&out);
        msgpack_sbuffer_destroy(&sb);
    }
    /* err may be NULL. */
    CHECK(pr_msg_decode(&out, "\xc1", 1, NULL) == PR_EINVAL);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random bytes and random mutations of valid messages: no crash, and what
 * decodes must encode again. */
static void test_garbage(void)
{
    struct pr_msg out;
    int ok = 0, fail = 0;
    uint8_t buf[512];

    for (int iter = 0; iter < 200000; iter++) {
        size_t len = rng() % sizeof(buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)rng();
        if (len > 0 && iter % 2)
            buf[0] = (uint8_t)(0x80 | (rng() & 0x0f)); /* look like a map */
        int rc = pr_msg_decode(&out, buf, len, NULL);
        rc == 0 ? ok++ : fail++;
        pr_msg_clear(&out);
    }
    for (size_t t = 0; t < N_TYPES; t++) {
        struct pr_msg m;
        msgpack_sbuffer sb, sb2;
        msgpack_sbuffer_init(&sb);
        msgpack_sbuffer_init(&sb2);
        fill(&m, keyspecs[t].type);
        CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
        uint8_t *copy = malloc(sb.size);
        for (int iter = 0; iter < 5000; iter++) {
            memcpy(copy, sb.data, sb.size);
            for (int k = 0; k < 1 + iter % 4; k++)
                copy[rng() % sb.size] ^= (uint8_t)(1u << (rng() % 8));
            int rc = pr_msg_decode(&out, copy, sb.size, NULL);
            if (rc == 0) {
                sb2.size = 0;
                CHECK(pr_msg_encode(&out, &sb2, NULL) == 0);
                ok++;
            } else {
                fail++;
            }
            pr_msg_clear(&out);
        }
        free(copy);
        msgpack_sbuffer_destroy(&sb);
        msgpack_sbuffer_destroy(&sb2);
    }
    printf("garbage: %d decoded, %d rejected\n", ok, fail);
    CHECK(fail > 0 && ok > 0);
}

static void test_seq_track(void)
{
    struct pr_seq_track tr = {{0}, 0};
    struct pr_msg m;

    pr_msg_init(&m, PR_MSG_STATS, "run-a", 1);
    CHECK(pr_seq_accept(&tr, &m)); /* run "" -> "run-a" */
    pr_msg_init(&m, PR_MSG_STATS, "run-a", 5);
    CHECK(pr_seq_accept(&tr, &m));
    CHECK(!pr_seq_accept(&tr, &m)); /* resend */
    m.seq = 4;
    CHECK(!pr_seq_accept(&tr, &m)); /* stale */
    m.seq = 6;
    CHECK(pr_seq_accept(&tr, &m));
    pr_msg_init(&m, PR_MSG_HELLO, "run-b", 1);
    CHECK(pr_seq_accept(&tr, &m)); /* a new run restarts the count */
    CHECK(!pr_seq_accept(&tr, &m));
    CHECK(strcmp(tr.run, "run-b") == 0 && tr.last_seq == 1);

    struct pr_seq_track fresh = {{0}, 0};
    pr_msg_init(&m, PR_MSG_PING, NULL, 0);
    CHECK(!pr_seq_accept(&fresh, &m)); /* seq starts at 1 */
    m.seq = 1;
    CHECK(pr_seq_accept(&fresh, &m));
}

static void test_plan_hash(void)
{
    struct pr_msg m, d;
    msgpack_sbuffer sb;
    uint64_t h1 = 0, h2 = 0, h3 = 0;

    fill(&m, PR_MSG_PLAN);
    CHECK(pr_msg_plan_hash(&m.u.plan, &h1) == 0);
    m.u.plan.plan_hash = h1;
    m.seq = 99; /* neither the hash field nor the envelope count */
    CHECK(pr_msg_plan_hash(&m.u.plan, &h2) == 0 && h1 == h2);
    msgpack_sbuffer_init(&sb);
    CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
    CHECK(pr_msg_decode(&d, sb.data, sb.size, NULL) == 0);
    CHECK(pr_msg_plan_hash(&d.u.plan, &h3) == 0 && h3 == d.u.plan.plan_hash);
    pr_msg_clear(&d);
    msgpack_sbuffer_destroy(&sb);
    /* Any content change moves it. */
    m.u.plan.tables = (struct pr_msg_table[]){
        {1, 1, 100000, true, false}, {2, 1, 50000, true, true}, {2, 50001, 100001, false, false}};
    CHECK(pr_msg_plan_hash(&m.u.plan, &h2) == 0 && h2 != h1);
    fill(&m, PR_MSG_PLAN);
    m.u.plan.password = (char *)"other";
    CHECK(pr_msg_plan_hash(&m.u.plan, &h2) == 0 && h2 != h1);
    m.u.plan.agent_index = 9;
    CHECK(pr_msg_plan_hash(&m.u.plan, &h2) == PR_ERANGE);
}

static void test_names(void)
{
    CHECK(strcmp(pr_msg_type_name(PR_MSG_HEARTBEAT), "HEARTBEAT") == 0);
    CHECK(strcmp(pr_msg_type_name(PR_MSG_TYPE_COUNT_), "?") == 0);
    CHECK(strcmp(pr_plan_cmd_name(PR_CMD_PREWARM), "prewarm") == 0);
    CHECK(strcmp(pr_partition_name(PR_PART_TABLES), "tables") == 0);
    CHECK(strcmp(pr_agent_state_name(PR_STATE_CONNECTING), "connecting") == 0);
    CHECK(strcmp(pr_phase_name(PR_PHASE_FINISH), "finish") == 0);
    CHECK(strcmp(pr_phase_name((enum pr_phase)99), "?") == 0);
}

int main(void)
{
    msg_fixture_init();

    test_roundtrip();
    test_minimal();
    test_framing();
    test_hostile();
    test_pre_decode_limits();
    test_garbage();
    test_seq_track();
    test_plan_hash();
    test_names();

    msg_fixture_fini();
    return TEST_END();
}
