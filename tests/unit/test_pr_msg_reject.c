/* test_pr_msg_reject: the control-message decoder's rejections
 * (proto/msg/pr_msg.h), key by key.
 *
 * Each case is checked for its code and, where it matters, for the message
 * naming the type and key: missing keys, wrong types, ranges, sizes,
 * duplicates, version and type, and the per-kind figures (STATS.kst,
 * DONE.kst); the encoder refuses what the decoder would. Wire variants are
 * made by re-packing a decoded msgpack object with one edit at a path
 * (pr_msg_fixture.h), so every case starts from a valid message and breaks
 * exactly one thing. Whole messages and framing: test_pr_msg.c. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pr_msg_fixture.h"

/* ---- Tests ----------------------------------------------------------------- */

static void test_missing_keys(void)
{
    struct pr_error err;
    for (size_t i = 0; i < N_TYPES; i++) {
        enum pr_msg_type t = keyspecs[i].type;
        const char *tn = pr_msg_type_name(t);
        for (size_t k = 0; k < 4; k++) {
            int rc = try_edit(t, ED_DROP, all_keys_hdr[k], NULL, &err);
            EXPECT_CODE(rc, PR_EMISSING_KEY, err);
            CHECK_MSG(msg_mentions(&err, all_keys_hdr[k], NULL), "%s", err.msg);
        }
        for (size_t k = 0; keyspecs[i].req[k] != NULL; k++) {
            int rc = try_edit(t, ED_DROP, keyspecs[i].req[k], NULL, &err);
            EXPECT_CODE(rc, PR_EMISSING_KEY, err);
            CHECK_MSG(msg_mentions(&err, tn, keyspecs[i].req[k]), "%s", err.msg);
        }
        for (size_t k = 0; keyspecs[i].opt[k] != NULL; k++) {
            int rc = try_edit(t, ED_DROP, keyspecs[i].opt[k], NULL, &err);
            EXPECT_CODE(rc, 0, err);
        }
    }
    /* Nested required keys. */
    int rc = try_edit(PR_MSG_PLAN, ED_DROP, "tables.1.hi", NULL, &err);
    EXPECT_CODE(rc, PR_EMISSING_KEY, err);
    CHECK_MSG(msg_mentions(&err, "PLAN.tables[1]", "'hi'"), "%s", err.msg);
    rc = try_edit(PR_MSG_STATS, ED_DROP, "ctr.reconnects", NULL, &err);
    EXPECT_CODE(rc, PR_EMISSING_KEY, err);
    CHECK_MSG(msg_mentions(&err, "STATS.ctr", "reconnects"), "%s", err.msg);
    rc = try_edit(PR_MSG_DONE, ED_DROP, "lat.b", NULL, &err);
    EXPECT_CODE(rc, PR_EMISSING_KEY, err);
    CHECK_MSG(msg_mentions(&err, "DONE.lat", NULL), "%s", err.msg);
}

/* nil is a wrong type for every key of every message. */
static void test_wrong_types(void)
{
    struct pr_error err;
    msgpack_object nil = obj_nil(), s = obj_str("x", 1), u = obj_uint(1), f = obj_dbl(1.5);
    msgpack_object bt = {.type = MSGPACK_OBJECT_BOOLEAN};
    bt.via.boolean = true;

    for (size_t i = 0; i < N_TYPES; i++) {
        enum pr_msg_type t = keyspecs[i].type;
        for (size_t k = 0; keyspecs[i].req[k] != NULL; k++) {
            const char *key = keyspecs[i].req[k];
            int rc = try_edit(t, ED_SET, key, &nil, &err);
            EXPECT_CODE(rc, PR_EBAD_TYPE, err);
            CHECK_MSG(msg_mentions(&err, pr_msg_type_name(t), key), "%s", err.msg);
        }
        for (size_t k = 0; keyspecs[i].opt[k] != NULL; k++) {
            int rc = try_edit(t, ED_SET, keyspecs[i].opt[k], &nil, &err);
            EXPECT_CODE(rc, PR_EBAD_TYPE, err);
        }
        for (size_t k = 1; k < 4; k++) {
            int rc = try_edit(t, ED_SET, all_keys_hdr[k], &bt, &err);
            EXPECT_CODE(rc, PR_EBAD_TYPE, err);
        }
    }
    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "v", &s, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "t", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "id", &s, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "id", &f, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "lead", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "wl", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "opts.0", &s, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "opts.1.1", &u, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(msg_mentions(&err, "PLAN.opts[1]", NULL), "%s", err.msg);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.0", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.2.ct", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "hosts.1", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "ports.1", &s, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "srv.0.1", &s, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_READY, ED_SET, "srv.1.1", &s, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(msg_mentions(&err, "READY.srv[1]", NULL), "%s", err.msg);
    EXPECT_CODE(try_edit(PR_MSG_READY, ED_SET, "srv.0", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "rows", &f, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "rows", &s, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "ctr.reads", &f, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "cpu", &s, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "lat", &u, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "lat.n", &s, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(msg_mentions(&err, "STATS.lat", NULL), "%s", err.msg);
    /* A float field takes an integer. */
    struct pr_msg out;
    struct edit e = {ED_SET, "cpu", &u};
    CHECK(decode_edited(PR_MSG_STATS, &e, &out, &err) == 0 && out.u.stats.cpu_pct == 1.0);
    pr_msg_clear(&out);
}

static void test_ranges(void)
{
    struct pr_error err;
    msgpack_object neg = obj_int(-1), big32 = obj_uint(1ULL << 32), big16 = obj_uint(65536);
    msgpack_object zero = obj_uint(0), three = obj_uint(3), nan = obj_dbl(NAN);
    msgpack_object inf = obj_dbl(INFINITY), negf = obj_dbl(-0.5), i32 = obj_uint(1ULL << 31);
    msgpack_object bad_enum = obj_str("walk", 4), lo_big = obj_uint(100002);
    msgpack_object lo_empty = obj_uint(100001), hi_empty = obj_uint(50000);
    msgpack_object hi_short = obj_uint(49999);

    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "seq", &neg, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "rows", &neg, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "rows", &neg, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_READY, ED_SET, "srv.0.1", &neg, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_SET, "cores", &big32, &err), PR_ERANGE, err);
    CHECK_MSG(msg_mentions(&err, "HELLO.cores", NULL), "%s", err.msg);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "ports.0", &big16, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_ERROR, ED_SET, "code", &i32, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "skew", &i32, &err), 0, err);
    msgpack_object i64min = obj_int(INT64_MIN), neg3 = obj_int(-3);
    EXPECT_CODE(try_edit(PR_MSG_ERROR, ED_SET, "code", &i64min, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "skew", &i64min, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "cpu", &neg3, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "cpu", &nan, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "cpu", &inf, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "cpu", &negf, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "cmd", &bad_enum, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_HEARTBEAT, ED_SET, "state", &bad_enum, &err), PR_ERANGE, err);
    /* Cross-field checks. */
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "ai", &three, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "an", &zero, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "c0", &three, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "ctot", &three, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "ri", &zero, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.0.lo", &lo_big, &err), PR_ERANGE, err);
    CHECK_MSG(msg_mentions(&err, "PLAN.tables[0]", NULL), "%s", err.msg);
    /* An empty range (lo == hi + 1) is a create-only or index-only piece. */
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.0.lo", &lo_empty, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.0.hi", &zero, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.2.hi", &hi_empty, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.2.hi", &hi_short, &err), PR_ERANGE, err);
    CHECK_MSG(msg_mentions(&err, "PLAN.tables[2]", NULL), "%s", err.msg);
    struct pr_msg got;
    struct edit e_hi = {ED_SET, "tables.1.hi", &zero};
    CHECK(decode_edited(PR_MSG_PLAN, &e_hi, &got, &err) == 0);
    CHECK(got.u.plan.tables[1].id_lo == 1 && got.u.plan.tables[1].id_hi == 0);
    pr_msg_clear(&got);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "tables.0.n", &zero, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_START, ED_SET, "ivl", &zero, &err), PR_ERANGE, err);

    /* The encoder refuses what the decoder would. */
    struct pr_msg m;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_sbuffer_write(&sb, "xyz", 3);
    fill(&m, PR_MSG_PLAN);
    m.u.plan.agent_index = 3;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ERANGE && sb.size == 3);
    fill(&m, PR_MSG_STATS);
    m.u.stats.cpu_pct = NAN;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ERANGE && sb.size == 3);
    /* Empty ranges at the edges of uint64, and one id short of empty. */
    struct pr_msg_table edge[] = {{1, 1, 0, true, false},
                                  {1, UINT64_MAX, UINT64_MAX - 1, false, true},
                                  {1, 0, UINT64_MAX, false, false}};
    fill(&m, PR_MSG_PLAN);
    m.u.plan.tables = edge;
    m.u.plan.n_tables = 3;
    CHECK(pr_msg_encode(&m, &sb, &err) == 0);
    struct pr_msg d;
    CHECK(pr_msg_decode(&d, sb.data + 3, sb.size - 3, &err) == 0);
    check_same(&m, &d);
    pr_msg_clear(&d);
    sb.size = 3;
    edge[0].id_lo = 2;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ERANGE && sb.size == 3);
    CHECK_MSG(msg_mentions(&err, "PLAN.tables[0]", NULL), "%s", err.msg);
    fill(&m, PR_MSG_HEARTBEAT);
    m.u.heartbeat.state = PR_STATE_COUNT_;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ERANGE && sb.size == 3);
    fill(&m, PR_MSG_DONE);
    m.u.done.lat = NULL;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_EINVAL && sb.size == 3);
    fill(&m, PR_MSG_ERROR);
    strcpy(m.u.error.sqlstate, "2800");
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_EINVAL && sb.size == 3);
    fill(&m, PR_MSG_HELLO);
    m.u.hello.pubkey[3] = ' ';
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_EINVAL && sb.size == 3);
    pr_msg_init(&m, PR_MSG_TYPE_COUNT_, "r", 1);
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_EINVAL && sb.size == 3);
    fill(&m, PR_MSG_PING);
    m.v = 1;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_EVERSION && sb.size == 3);
    msgpack_sbuffer_destroy(&sb);
}

static void test_sizes(void)
{
    struct pr_error err;
    static char text[PR_MSG_TEXT_MAX + 2];
    memset(text, 'a', sizeof(text) - 1);
    msgpack_object name64 = obj_str(text, PR_MSG_NAME_MAX), name65 = obj_str(text, 65);
    msgpack_object text_max = obj_str(text, PR_MSG_TEXT_MAX);
    msgpack_object text_over = obj_str(text, PR_MSG_TEXT_MAX + 1);
    msgpack_object run65 = obj_str(text, PR_RUN_ID_MAX + 1), nul = obj_str("a\0b", 3);
    msgpack_object sql4 = obj_str("2800", 4), key39 = obj_str(text, 39), key40 = obj_str(text, 40);
    msgpack_object key_bad = obj_str("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8] f7", 40);

    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_SET, "name", &name64, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_SET, "name", &name65, &err), PR_ETOO_BIG, err);
    CHECK_MSG(msg_mentions(&err, "HELLO.name", NULL), "%s", err.msg);
    EXPECT_CODE(try_edit(PR_MSG_ABORT, ED_SET, "why", &text_max, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_ABORT, ED_SET, "why", &text_over, &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "run", &run65, &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "opts.2.0", &name65, &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, "hosts.0", &nul, &err), PR_EINVAL, err);
    EXPECT_CODE(try_edit(PR_MSG_ERROR, ED_SET, "sqlstate", &sql4, &err), PR_EINVAL, err);
    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_SET, "key", &key39, &err), PR_EINVAL, err);
    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_SET, "key", &key40, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_SET, "key", &key_bad, &err), PR_EINVAL, err);
    msgpack_object empty = obj_str("", 0);
    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_SET, "key", &empty, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_ERROR, ED_SET, "sqlstate", &empty, &err), 0, err);

    /* Arrays one over their cap (elements nil: the cap is checked first). */
    struct {
        const char *key;
        uint32_t cap;
    } caps[] = {{"opts", PR_MSG_MAX_OPTS},
                {"tables", PR_MSG_MAX_TABLES},
                {"hosts", PR_MSG_MAX_TARGETS},
                {"ports", PR_MSG_MAX_TARGETS},
                {"socks", PR_MSG_MAX_TARGETS}};
    msgpack_object *elems = calloc(PR_MSG_MAX_TABLES + 1, sizeof(*elems));
    for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
        msgpack_object arr = {.type = MSGPACK_OBJECT_ARRAY};
        arr.via.array.ptr = elems;
        arr.via.array.size = caps[i].cap + 1;
        EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_SET, caps[i].key, &arr, &err), PR_ETOO_BIG, err);
        CHECK_MSG(msg_mentions(&err, "PLAN", caps[i].key), "%s", err.msg);
    }
    msgpack_object arr = {.type = MSGPACK_OBJECT_ARRAY};
    arr.via.array.ptr = elems;
    arr.via.array.size = PR_MSG_MAX_STATS + 1;
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "srv", &arr, &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "kinds", &arr, &err), PR_ETOO_BIG, err);
    EXPECT_CODE(try_edit(PR_MSG_READY, ED_SET, "srv", &arr, &err), PR_ETOO_BIG, err);
    CHECK_MSG(msg_mentions(&err, "READY", "srv"), "%s", err.msg);
    free(elems);

    /* Encoder side of the same limits. */
    struct pr_msg m;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    fill(&m, PR_MSG_HELLO);
    text[65] = '\0';
    m.u.hello.name = text;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ETOO_BIG && sb.size == 0);
    CHECK_MSG(msg_mentions(&err, "HELLO.name", NULL), "%s", err.msg);
    fill(&m, PR_MSG_PLAN);
    m.u.plan.n_opts = PR_MSG_MAX_OPTS + 1;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ETOO_BIG && sb.size == 0);
    fill(&m, PR_MSG_PLAN);
    m.u.plan.hosts = NULL; /* n_hosts stays 2 */
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_EINVAL && sb.size == 0);
    msgpack_sbuffer_destroy(&sb);
}

static void test_version_type_dup(void)
{
    struct pr_error err;
    struct pr_msg out;
    msgpack_object two = obj_uint(PR_PROTO_VERSION - 1), foo = obj_str("FOO", 3), x = obj_uint(7);
    msgpack_object lower = obj_str("hello", 5);

    struct edit e = {ED_SET, "v", &two};
    int rc = decode_edited(PR_MSG_HELLO, &e, &out, &err);
    EXPECT_CODE(rc, PR_EVERSION, err);
    /* An agent of the protocol before this one: its HELLO is refused, naming
     * both versions. */
    CHECK(out.v == PR_PROTO_VERSION - 1 && out.type == PR_MSG_HELLO && out.seq == 4242);
    CHECK(out.u.hello.name != NULL && strcmp(out.u.hello.name, "agent-eu-1") == 0);
    char was[32], want[32];
    snprintf(was, sizeof was, "version %d", PR_PROTO_VERSION - 1);
    snprintf(want, sizeof want, "expected %d", PR_PROTO_VERSION);
    CHECK_MSG(msg_mentions(&err, was, want), "%s", err.msg);
    pr_msg_clear(&out);
    /* A mismatched version wins over anything else wrong. */
    e.path = "v";
    rc = decode_edited(PR_MSG_PLAN, &e, &out, &err);
    EXPECT_CODE(rc, PR_EVERSION, err);
    pr_msg_clear(&out);

    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "t", &foo, &err), PR_EUNKNOWN_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_PING, ED_SET, "t", &lower, &err), PR_EUNKNOWN_TYPE, err);
    for (size_t i = 0; i < N_TYPES; i++) {
        enum pr_msg_type t = keyspecs[i].type;
        EXPECT_CODE(try_edit(t, ED_ADD, "zz_future", &x, &err), 0, err);
        EXPECT_CODE(try_edit(t, ED_DUP, "seq", NULL, &err), PR_EDUP_KEY, err);
        EXPECT_CODE(try_edit(t, ED_DUP, keyspecs[i].req[0], NULL, &err), PR_EDUP_KEY, err);
    }
    /* Unknown keys, nested unknown keys; duplicates of unknown keys too. */
    e = (struct edit){ED_ADD, "zz_future", &x};
    rc = decode_edited(PR_MSG_STATS, &e, &out, &err);
    EXPECT_CODE(rc, 0, err);
    struct pr_msg ref;
    fill(&ref, PR_MSG_STATS);
    check_same(&ref, &out);
    pr_msg_clear(&out);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_ADD, "tables.1.zz", &x, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_ADD, "ctr.zz", &x, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_PLAN, ED_DUP, "tables.1.lo", NULL, &err), PR_EDUP_KEY, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_DUP, "ctr.writes", NULL, &err), PR_EDUP_KEY, err);

    /* Duplicate unknown key and a non-string key, built by hand. */
    const uint8_t dup_unknown[] = {0x86, 0xa1, 'v',  PR_PROTO_VERSION,
                                   0xa1, 't',  0xa3, 'B',
                                   'Y',  'E',  0xa3, 'r',
                                   'u',  'n',  0xa0, 0xa3,
                                   's',  'e',  'q',  0x01,
                                   0xa1, 'z',  0x01, 0xa1,
                                   'z',  0x02};
    rc = pr_msg_decode(&out, dup_unknown, sizeof(dup_unknown), &err);
    EXPECT_CODE(rc, PR_EDUP_KEY, err);
    const uint8_t int_key[] = {0x86, 0xa1, 'v',  PR_PROTO_VERSION,
                               0xa1, 't',  0xa3, 'B',
                               'Y',  'E',  0xa3, 'r',
                               'u',  'n',  0xa0, 0xa3,
                               's',  'e',  'q',  0x01,
                               0xa3, 'w',  'h',  'y',
                               0xa0, 0x07, 0x01};
    rc = pr_msg_decode(&out, int_key, sizeof(int_key), &err);
    EXPECT_CODE(rc, PR_EBAD_TYPE, err);
    const uint8_t bye_ok[] = {0x85, 0xa1, 'v',  PR_PROTO_VERSION,
                              0xa1, 't',  0xa3, 'B',
                              'Y',  'E',  0xa3, 'r',
                              'u',  'n',  0xa0, 0xa3,
                              's',  'e',  'q',  0x01,
                              0xa3, 'w',  'h',  'y',
                              0xa2, 'o',  'k'};
    rc = pr_msg_decode(&out, bye_ok, sizeof(bye_ok), &err);
    EXPECT_CODE(rc, 0, err);
    CHECK(out.type == PR_MSG_BYE && strcmp(out.u.bye.reason, "ok") == 0);
    pr_msg_clear(&out);
    /* Empty strings (msgpack-c may point them at NULL), an empty key twice. */
    const uint8_t bye_empty[] = {0x85, 0xa1, 'v',  PR_PROTO_VERSION,
                                 0xa1, 't',  0xa3, 'B',
                                 'Y',  'E',  0xa3, 'r',
                                 'u',  'n',  0xa0, 0xa3,
                                 's',  'e',  'q',  0x01,
                                 0xa3, 'w',  'h',  'y',
                                 0xa0};
    rc = pr_msg_decode(&out, bye_empty, sizeof(bye_empty), &err);
    EXPECT_CODE(rc, 0, err);
    CHECK(out.run[0] == '\0' && strcmp(out.u.bye.reason, "") == 0);
    pr_msg_clear(&out);
    const uint8_t dup_empty[] = {0x86, 0xa1, 'v',  PR_PROTO_VERSION,
                                 0xa1, 't',  0xa3, 'B',
                                 'Y',  'E',  0xa3, 'r',
                                 'u',  'n',  0xa0, 0xa3,
                                 's',  'e',  'q',  0x01,
                                 0xa0, 0x01, 0xa0, 0x02};
    rc = pr_msg_decode(&out, dup_empty, sizeof(dup_empty), &err);
    EXPECT_CODE(rc, PR_EDUP_KEY, err);
    /* Histogram keys are read from the bytes, not msgpack-c's tree: as an
     * unknown key elsewhere they are still ignored, twice a duplicate. */
    EXPECT_CODE(try_edit(PR_MSG_HELLO, ED_ADD, "lat", &x, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_PING, ED_ADD, "svc", &lower, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_DUP, "lat", NULL, &err), PR_EDUP_KEY, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_DUP, "svc", NULL, &err), PR_EDUP_KEY, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "lat.b", &x, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(msg_mentions(&err, "DONE.lat", "\"b\" is not an array"), "%s", err.msg);
}

/* Per-kind figures: strict like the rest (an entry is exactly [count,
 * errors, lat, late], late <= count), bounded, and optional (an old-style
 * STATS without them decodes with n_kst 0). */
static void test_kst_codec(void)
{
    struct pr_error err;
    msgpack_object x = obj_uint(7), str = obj_str("x", 1), neg = obj_int(-1);
    struct pr_msg m, out;
    msgpack_sbuffer sb;

    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "kst.1", &x, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(msg_mentions(&err, "STATS.kst[1]", "[count, errors, lat, late]"), "%s", err.msg);
    /* late: a uint, never above count (test_kst[0]: count 123456), and
     * required (a protocol 4 entry, [count, errors, lat], is refused) */
    msgpack_object over = obj_uint(123457), all = obj_uint(123456);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "kst.0.3", &over, &err), PR_ERANGE, err);
    CHECK_MSG(msg_mentions(&err, "STATS.kst[0]", "late 123457 > count 123456"), "%s", err.msg);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "kst.0.3", &over, &err), PR_ERANGE, err);
    CHECK_MSG(msg_mentions(&err, "DONE.kst[0]", "late 123457 > count 123456"), "%s", err.msg);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "kst.0.3", &all, &err), 0, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "kst.2.3", &str, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "kst.2.3", &neg, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_DROP, "kst.1.3", NULL, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(msg_mentions(&err, "STATS.kst[1]", "[count, errors, lat, late]"), "%s", err.msg);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_ADD, "kst.1.4", &x, &err), PR_EBAD_TYPE, err);
    struct edit big_late = {ED_SET, "kst.2.3", &all}; /* kst[2].count is 2^40 */
    EXPECT_CODE(decode_edited(PR_MSG_STATS, &big_late, &out, &err), 0, err);
    CHECK(out.u.stats.n_kst == 3 && out.u.stats.kst[2].late == 123456 &&
          out.u.stats.kst[0].late == test_kst[0].late);
    pr_msg_clear(&out);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "kst.0.0", &str, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_DONE, ED_SET, "kst.2.1", &neg, &err), PR_ERANGE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_SET, "kst.0.2", &x, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_READY, ED_SET, "kinds.0", &x, &err), PR_EBAD_TYPE, err);
    EXPECT_CODE(try_edit(PR_MSG_STATS, ED_DROP, "kst", NULL, &err), 0, err);

    /* The encoder refuses what the decoder would: too many kinds, a NULL
     * histogram. */
    static struct pr_msg_kstat many[PR_MSG_MAX_KINDS + 1];
    for (size_t i = 0; i <= PR_MSG_MAX_KINDS; i++)
        many[i] = (struct pr_msg_kstat){.count = i, .errors = 0, .lat = hist_lat};
    msgpack_sbuffer_init(&sb);
    fill(&m, PR_MSG_STATS);
    m.u.stats.kst = many;
    m.u.stats.n_kst = PR_MSG_MAX_KINDS + 1;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ETOO_BIG);
    m.u.stats.n_kst = PR_MSG_MAX_KINDS;
    EXPECT_CODE(pr_msg_encode(&m, &sb, &err), 0, err);
    EXPECT_CODE(pr_msg_decode(&out, sb.data, sb.size, &err), 0, err);
    CHECK_EQ_U64(out.u.stats.n_kst, PR_MSG_MAX_KINDS);
    pr_hist *thawed = pr_hist_new();
    CHECK(out.u.stats.kst[63].lat == NULL && out.u.stats.kst[63].lat_frozen != NULL);
    if (out.u.stats.kst[63].lat_frozen != NULL)
        pr_hist_thaw(thawed, out.u.stats.kst[63].lat_frozen);
    CHECK(out.u.stats.kst[63].count == 63 && pr_hist_equal(thawed, hist_lat));
    pr_hist_destroy(&thawed);
    pr_msg_clear(&out);
    msgpack_sbuffer_clear(&sb);
    many[5].late = 6; /* more late than done */
    EXPECT_CODE(pr_msg_encode(&m, &sb, &err), PR_ERANGE, err);
    many[5].late = 5;
    msgpack_sbuffer_clear(&sb);
    EXPECT_CODE(pr_msg_encode(&m, &sb, &err), 0, err);
    msgpack_sbuffer_clear(&sb);
    many[5].lat = NULL;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_EINVAL);
    msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
    msg_fixture_init();

    test_kst_codec();
    test_missing_keys();
    test_wrong_types();
    test_ranges();
    test_sizes();
    test_version_type_dup();

    msg_fixture_fini();
    return TEST_END();
}
