/* pr_msg_trx: STATS.trx, the optional per-transaction records (tpcc's
 * --report-file, --trx-file), packed and read back (contract: pr_msg_trx.h). */
#include "pr_msg_trx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#define TRX_FIELDS 7

static int pk_ok(int rc, const char *path, struct pr_error *err)
{
    return rc == 0 ? 0 : pr_error_set(err, -ENOMEM, "%s: msgpack packing failed", path);
}

int pr__msg_trx_pack(msgpack_packer *pk, const struct pr_msg_trx *t, uint32_t n, const char *path,
                     struct pr_error *err)
{
    if (n > PR_MSG_MAX_TRX)
        return pr_error_set(err, PR_ETOO_BIG, "%s: %" PRIu32 " records (max %u)", path, n,
                            PR_MSG_MAX_TRX);
    int rc = pk_ok(msgpack_pack_array(pk, n), path, err);
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        const uint64_t v[TRX_FIELDS] = {t[i].conn,  t[i].kind,        t[i].flags,    t[i].end_us,
                                        t[i].rt_us, t[i].start_rt_ns, t[i].end_rt_ns};
        rc = pk_ok(msgpack_pack_array(pk, TRX_FIELDS), path, err);
        for (int f = 0; rc == 0 && f < TRX_FIELDS; f++)
            rc = pk_ok(msgpack_pack_uint64(pk, v[f]), path, err);
    }
    return rc;
}

/* Record i from its array e. */
static int get_one(const msgpack_object *e, struct pr_msg_trx *t, const char *path, uint32_t i,
                   struct pr_error *err)
{
    static const uint64_t max[TRX_FIELDS] = {UINT32_MAX, UINT16_MAX, UINT8_MAX, UINT64_MAX,
                                             UINT64_MAX, UINT64_MAX, UINT64_MAX};
    static const char *const names[TRX_FIELDS] = {"conn",  "kind",        "flags",    "end_us",
                                                  "rt_us", "start_rt_ns", "end_rt_ns"};
    uint64_t v[TRX_FIELDS];

    if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != TRX_FIELDS)
        return pr_error_set(err, PR_EBAD_TYPE,
                            "%s[%" PRIu32 "]: expected an array of %d uints [conn, kind, flags, "
                            "end_us, rt_us, start_rt_ns, end_rt_ns]",
                            path, i, TRX_FIELDS);
    for (int f = 0; f < TRX_FIELDS; f++) {
        const msgpack_object *x = &e->via.array.ptr[f];
        if (x->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return pr_error_set(err, PR_EBAD_TYPE, "%s[%" PRIu32 "].%s: expected a uint", path, i,
                                names[f]);
        if (x->via.u64 > max[f])
            return pr_error_set(err, PR_ERANGE, "%s[%" PRIu32 "].%s: %" PRIu64 " (max %" PRIu64 ")",
                                path, i, names[f], x->via.u64, max[f]);
        v[f] = x->via.u64;
    }
    *t = (struct pr_msg_trx){.conn = (uint32_t)v[0],
                             .kind = (uint16_t)v[1],
                             .flags = (uint8_t)v[2],
                             .end_us = v[3],
                             .rt_us = v[4],
                             .start_rt_ns = v[5],
                             .end_rt_ns = v[6]};
    return 0;
}

int pr__msg_trx_get(const msgpack_object *o, struct pr_msg_trx **arr, uint32_t *n, const char *path,
                    struct pr_error *err)
{
    *arr = NULL;
    *n = 0;
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return pr_error_set(err, PR_EBAD_TYPE, "%s: expected an array of records", path);
    uint32_t cnt = o->via.array.size;
    if (cnt > PR_MSG_MAX_TRX)
        return pr_error_set(err, PR_ETOO_BIG, "%s: %" PRIu32 " records (max %u)", path, cnt,
                            PR_MSG_MAX_TRX);
    if (cnt == 0)
        return 0;
    struct pr_msg_trx *t = pr_xcalloc(cnt, sizeof *t);
    for (uint32_t i = 0; i < cnt; i++) {
        int rc = get_one(&o->via.array.ptr[i], &t[i], path, i, err);
        if (rc < 0) {
            free(t);
            return rc;
        }
    }
    *arr = t;
    *n = cnt;
    return 0;
}
