/* pr_msg_trx: STATS.trx, the per-transaction records, through the real
 * encoder and decoder (pr_msg_encode / pr_msg_decode), absent when empty,
 * and refused with an error naming the record when malformed. */
#include <msgpack.h>

#include "pr_hist.h"
#include "pr_msg.h"
#include "pr_msg_trx.h"
#include "testlib.h"

#define EXPECT_CODE(rc, want, err)                                                                 \
    CHECK_MSG((rc) == (want), "got %s (%s), want %s", pr_errname(rc), (err).msg, pr_errname(want))

static void stats_init(struct pr_msg *m)
{
    pr_msg_init(m, PR_MSG_STATS, "a0", 1);
    m->u.stats.k = 3;
    m->u.stats.lat = pr_hist_new();
}

/* Does the encoded message's top map have key? */
static bool has_key(const msgpack_sbuffer *sb, const char *key)
{
    msgpack_unpacked u;
    bool found = false;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, sb->data, sb->size, NULL) == MSGPACK_UNPACK_SUCCESS &&
        u.data.type == MSGPACK_OBJECT_MAP)
        for (uint32_t i = 0; i < u.data.via.map.size; i++) {
            const msgpack_object *k = &u.data.via.map.ptr[i].key;
            found |= k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(key) &&
                     memcmp(k->via.str.ptr, key, k->via.str.size) == 0;
        }
    msgpack_unpacked_destroy(&u);
    return found;
}

static void test_roundtrip(void)
{
    struct pr_msg_trx recs[3] = {
        {0, 0, 0, 0, 0, 0, 0},
        {7, 4, PR_TRX_ROLLED_BACK, 12345678, 4321, 1700000000123456789ull, 1700000000123461110ull},
        {UINT32_MAX, UINT16_MAX, UINT8_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX},
    };
    struct pr_msg m, back;
    struct pr_error err = {0};
    msgpack_sbuffer sb;

    stats_init(&m);
    msgpack_sbuffer_init(&sb);
    EXPECT_CODE(pr_msg_encode(&m, &sb, &err), 0, err);
    CHECK(!has_key(&sb, "trx")); /* none: the key costs nothing */
    msgpack_sbuffer_clear(&sb);

    m.u.stats.trx = pr_xcalloc(3, sizeof recs[0]);
    memcpy(m.u.stats.trx, recs, sizeof recs);
    m.u.stats.n_trx = 3;
    m.u.stats.trx_lost = 70001; /* records the agent dropped: the coordinator is told */
    EXPECT_CODE(pr_msg_encode(&m, &sb, &err), 0, err);
    CHECK(has_key(&sb, "trx"));
    CHECK(has_key(&sb, "trxlost"));
    EXPECT_CODE(pr_msg_decode(&back, sb.data, sb.size, &err), 0, err);
    CHECK_EQ_U64(back.u.stats.n_trx, 3);
    CHECK_EQ_U64(back.u.stats.trx_lost, 70001);
    for (uint32_t i = 0; back.u.stats.trx && i < 3 && i < back.u.stats.n_trx; i++) {
        const struct pr_msg_trx *a = &recs[i], *b = &back.u.stats.trx[i];
        CHECK_EQ_U64(b->conn, a->conn);
        CHECK_EQ_U64(b->kind, a->kind);
        CHECK_EQ_U64(b->flags, a->flags);
        CHECK_EQ_U64(b->end_us, a->end_us);
        CHECK_EQ_U64(b->rt_us, a->rt_us);
        CHECK_EQ_U64(b->start_rt_ns, a->start_rt_ns);
        CHECK_EQ_U64(b->end_rt_ns, a->end_rt_ns);
    }
    pr_msg_clear(&back);
    pr_msg_clear(&m);
    msgpack_sbuffer_destroy(&sb);
}

/* pr__msg_trx_get on the msgpack bytes sb holds. */
static int get(msgpack_sbuffer *sb, struct pr_msg_trx **t, uint32_t *n, struct pr_error *err)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    int rc = PR_EINVAL;
    if (msgpack_unpack_next(&u, sb->data, sb->size, NULL) == MSGPACK_UNPACK_SUCCESS)
        rc = pr__msg_trx_get(&u.data, t, n, "STATS.trx", err);
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_clear(sb);
    return rc;
}

static void test_malformed(void)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    struct pr_msg_trx *t = NULL;
    uint32_t n = 9;
    struct pr_error err = {0};

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 0); /* not an array */
    EXPECT_CODE(get(&sb, &t, &n, &err), PR_EBAD_TYPE, err);
    CHECK(t == NULL && n == 0);

    msgpack_pack_array(&pk, 2); /* record 1 has 6 fields */
    msgpack_pack_array(&pk, 7);
    for (int i = 0; i < 7; i++)
        msgpack_pack_uint64(&pk, 1);
    msgpack_pack_array(&pk, 6);
    for (int i = 0; i < 6; i++)
        msgpack_pack_uint64(&pk, 1);
    EXPECT_CODE(get(&sb, &t, &n, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "STATS.trx[1]") != NULL, "%s", err.msg);
    CHECK(t == NULL && n == 0);

    msgpack_pack_array(&pk, 1); /* conn beyond uint32 */
    msgpack_pack_array(&pk, 7);
    msgpack_pack_uint64(&pk, (uint64_t)UINT32_MAX + 1);
    for (int i = 0; i < 6; i++)
        msgpack_pack_uint64(&pk, 1);
    EXPECT_CODE(get(&sb, &t, &n, &err), PR_ERANGE, err);
    CHECK_MSG(strstr(err.msg, "STATS.trx[0].conn") != NULL, "%s", err.msg);

    msgpack_pack_array(&pk, 1); /* a negative value */
    msgpack_pack_array(&pk, 7);
    for (int i = 0; i < 6; i++)
        msgpack_pack_uint64(&pk, 1);
    msgpack_pack_int64(&pk, -1);
    EXPECT_CODE(get(&sb, &t, &n, &err), PR_EBAD_TYPE, err);
    CHECK_MSG(strstr(err.msg, "end_rt_ns") != NULL, "%s", err.msg);

    msgpack_pack_array(&pk, PR_MSG_MAX_TRX + 1); /* too many */
    for (uint32_t r = 0; r <= PR_MSG_MAX_TRX; r++) {
        msgpack_pack_array(&pk, 7);
        for (int i = 0; i < 7; i++)
            msgpack_pack_uint64(&pk, 0);
    }
    EXPECT_CODE(get(&sb, &t, &n, &err), PR_ETOO_BIG, err);
    CHECK(t == NULL && n == 0);

    struct pr_msg_trx one = {0};
    EXPECT_CODE(pr__msg_trx_pack(&pk, &one, PR_MSG_MAX_TRX + 1, "STATS.trx", &err), PR_ETOO_BIG,
                err);
    msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
    test_roundtrip();
    test_malformed();
    return TEST_END();
}
