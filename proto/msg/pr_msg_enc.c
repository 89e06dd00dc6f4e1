/* pr_msg_enc: pr_msg_encode(), the table-driven encoder (pr_msg_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "pr_msg_int.h"
#include "pr_msg_trx.h"

/* ---- Encoding ------------------------------------------------------------ */

/* msgpack-c's packers return -1 when the buffer cannot grow. */
static int pk_rc(int r)
{
    return r == 0 ? 0 : -ENOMEM;
}

static int put_str(msgpack_packer *pk, const char *s, size_t cap, const char *path,
                   struct pr_error *err)
{
    size_t n = s ? strnlen(s, cap + 1) : 0;
    if (n > cap)
        return pr_error_set(err, PR_ETOO_BIG, "%s: string longer than %zu bytes", path, cap);
    return pk_rc(msgpack_pack_str_with_body(pk, n ? s : "", n));
}

static int put_inline(const struct field *f, msgpack_packer *pk, const char *s, const char *path,
                      struct pr_error *err)
{
    size_t n = strnlen(s, f->cap + 1);
    if (f->kind == FK_SQLSTATE && n != 0 && n != PR_MSG_SQLSTATE_LEN)
        return pr_error_set(err, PR_EINVAL, "%s: sqlstate must have 5 characters", path);
    if (f->kind == FK_Z85 && (n > f->cap || !pr__msg_is_z85_key(s, (uint32_t)n)))
        return pr_error_set(err, PR_EINVAL, "%s: not a 40-character Z85 key", path);
    return put_str(pk, s, f->cap, path, err);
}

static int put_scalar(const struct field *f, msgpack_packer *pk, const struct pr_msg *m,
                      const char *src, const char *path, struct pr_error *err)
{
    switch (f->kind) {
    case FK_U64:
        return pk_rc(msgpack_pack_uint64(pk, *(const uint64_t *)(const void *)src));
    case FK_U32:
        return pk_rc(msgpack_pack_uint32(pk, *(const uint32_t *)(const void *)src));
    case FK_I64:
        return pk_rc(msgpack_pack_int64(pk, *(const int64_t *)(const void *)src));
    case FK_I32:
        return pk_rc(msgpack_pack_int32(pk, *(const int32_t *)(const void *)src));
    case FK_BOOL:
        return pk_rc(*(const bool *)(const void *)src ? msgpack_pack_true(pk)
                                                      : msgpack_pack_false(pk));
    case FK_DBL: {
        double d = *(const double *)(const void *)src;
        if (!isfinite(d))
            return pr_error_set(err, PR_ERANGE, "%s: not a finite number", path);
        return pk_rc(msgpack_pack_double(pk, d));
    }
    case FK_TYPE:
        return put_str(pk, pr_msg_type_name(m->type), PR_MSG_NAME_MAX, path, err);
    case FK_ENUM: {
        unsigned v = *(const unsigned *)(const void *)src;
        if (v >= f->cap)
            return pr_error_set(err, PR_ERANGE, "%s: enum value %u out of range", path, v);
        return put_str(pk, f->names[v], PR_MSG_NAME_MAX, path, err);
    }
    default:
        return pr_error_set(err, PR_EINVAL, "%s: internal: bad field kind", path);
    }
}

static int encode_map(msgpack_packer *pk, const struct table *t, const struct pr_msg *m,
                      const char *base, const char *path, struct pr_error *err);

static int put_elem(const struct field *f, msgpack_packer *pk, const char *ep, const char *path,
                    struct pr_error *err)
{
    int rc;

    switch (f->kind) {
    case FK_STRS:
        return put_str(pk, *(char *const *)(const void *)ep, f->elen, path, err);
    case FK_U16S:
        return pk_rc(msgpack_pack_uint16(pk, *(const uint16_t *)(const void *)ep));
    case FK_OPTS: {
        const struct pr_msg_opt *o = (const void *)ep;
        if ((rc = pk_rc(msgpack_pack_array(pk, 2))) < 0 ||
            (rc = put_str(pk, o->name, PR_MSG_NAME_MAX, path, err)) < 0)
            return rc;
        return put_str(pk, o->value, PR_MSG_TEXT_MAX, path, err);
    }
    case FK_STATS: {
        const struct pr_msg_stat *s = (const void *)ep;
        if ((rc = pk_rc(msgpack_pack_array(pk, 2))) < 0 ||
            (rc = put_str(pk, s->name, PR_MSG_NAME_MAX, path, err)) < 0)
            return rc;
        return pk_rc(msgpack_pack_uint64(pk, s->value));
    }
    case FK_KSTATS: {
        const struct pr_msg_kstat *k = (const void *)ep;
        if (k->lat == NULL && k->lat_frozen == NULL)
            return pr_error_set(err, PR_EINVAL, "%s: NULL histogram", path);
        if (k->late > k->count)
            return pr_error_set(err, PR_ERANGE, "%s: late %" PRIu64 " > count %" PRIu64, path,
                                k->late, k->count);
        if ((rc = pk_rc(msgpack_pack_array(pk, 4))) < 0 ||
            (rc = pk_rc(msgpack_pack_uint64(pk, k->count))) < 0 ||
            (rc = pk_rc(msgpack_pack_uint64(pk, k->errors))) < 0)
            return rc;
        rc = k->lat ? pr_hist_pack(k->lat, pk) : pr_hist_frozen_pack(k->lat_frozen, pk);
        return rc < 0 ? rc : pk_rc(msgpack_pack_uint64(pk, k->late));
    }
    case FK_MAPS:
        return encode_map(pk, f->sub, NULL, ep, path, err);
    default:
        return encode_map(pk, &pr__msg_table_table, NULL, ep, path, err);
    }
}

static int put_list(const struct field *f, msgpack_packer *pk, const char *base, const char *path,
                    struct pr_error *err)
{
    size_t esize = pr__msg_elem_size(f);
    const char *arr = *(char *const *)(const void *)(base + f->off);
    uint32_t n = *(const uint32_t *)(const void *)(base + f->off_n);
    char epath[PATH_LEN];
    int rc;

    if (n > f->cap)
        return pr_error_set(err, PR_ETOO_BIG, "%s: %" PRIu32 " elements (max %" PRIu32 ")", path, n,
                            f->cap);
    if (n > 0 && arr == NULL)
        return pr_error_set(err, PR_EINVAL, "%s: NULL array of %" PRIu32, path, n);
    if ((rc = pk_rc(msgpack_pack_array(pk, n))) < 0)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        pr__msg_elem_path(epath, path, i);
        if ((rc = put_elem(f, pk, arr + i * esize, epath, err)) < 0)
            return rc;
    }
    return 0;
}

static int encode_field(const struct field *f, msgpack_packer *pk, const struct pr_msg *m,
                        const char *base, const char *path, struct pr_error *err)
{
    const char *src = base + f->off;

    switch (f->kind) {
    case FK_STR:
        return put_str(pk, *(char *const *)(const void *)src, f->cap, path, err);
    case FK_RUN:
    case FK_SQLSTATE:
    case FK_Z85:
        return put_inline(f, pk, src, path, err);
    case FK_CTR:
        return encode_map(pk, &pr__msg_ctr_table, NULL, src, path, err);
    case FK_HIST: {
        const pr_hist *h = *(pr_hist *const *)(const void *)src;
        if (h == NULL)
            return pr_error_set(err, PR_EINVAL, "%s: NULL histogram", path);
        return pr_hist_pack(h, pk);
    }
    case FK_HISTF: {
        const pr_hist *h = *(pr_hist *const *)(const void *)src;
        const pr_hist_frozen *hf = *(pr_hist_frozen *const *)(const void *)(base + f->off_n);
        if (h == NULL && hf == NULL)
            return pr_error_set(err, PR_EINVAL, "%s: NULL histogram", path);
        return h ? pr_hist_pack(h, pk) : pr_hist_frozen_pack(hf, pk);
    }
    case FK_MAP:
        return encode_map(pk, f->sub, NULL, src, path, err);
    case FK_STRS:
    case FK_U16S:
    case FK_OPTS:
    case FK_STATS:
    case FK_TABLES:
    case FK_KSTATS:
    case FK_MAPS:
        return put_list(f, pk, base, path, err);
    case FK_TRX:
        return pr__msg_trx_pack(pk, *(struct pr_msg_trx *const *)(const void *)src,
                                *(const uint32_t *)(const void *)(base + f->off_n), path, err);
    default:
        return put_scalar(f, pk, m, src, path, err);
    }
}

static bool is_absent(const struct field *f, const char *base)
{
    if (f->has)
        return !*(const bool *)(const void *)(base + f->off_has);
    if (f->kind == FK_TRX)
        return *(const uint32_t *)(const void *)(base + f->off_n) == 0;
    if (f->kind == FK_U64 && !f->req) /* an optional count at 0 ("rows", "trxlost", ...) */
        return *(const uint64_t *)(const void *)(base + f->off) == 0;
    if (f->kind == FK_STR && !f->req) /* an optional text left NULL (PLAN "scrc") */
        return *(char *const *)(const void *)(base + f->off) == NULL;
    return f->kind == FK_HIST && !f->req &&
           *(pr_hist *const *)(const void *)(base + f->off) == NULL;
}

static int encode_map(msgpack_packer *pk, const struct table *t, const struct pr_msg *m,
                      const char *base, const char *path, struct pr_error *err)
{
    char fpath[PATH_LEN];
    size_t n = 0;
    int rc;

    for (size_t fi = 0; fi < t->n; fi++)
        n += !is_absent(&t->f[fi], base);
    if ((rc = pk_rc(msgpack_pack_map(pk, n))) < 0)
        return rc;
    for (size_t fi = 0; fi < t->n; fi++) {
        const struct field *f = &t->f[fi];
        if (is_absent(f, base))
            continue;
        pr__msg_key_path(fpath, path, f->key);
        if ((rc = put_str(pk, f->key, PR_MSG_NAME_MAX, fpath, err)) < 0 ||
            (rc = encode_field(f, pk, m, base, fpath, err)) < 0)
            return rc;
    }
    return 0;
}

int pr_msg_encode(const struct pr_msg *m, msgpack_sbuffer *sb, struct pr_error *err)
{
    struct pr_error e = {0};
    size_t start = sb->size;
    msgpack_packer pk;
    int rc;

    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    if (m->type <= PR_MSG_NONE || m->type >= PR_MSG_TYPE_COUNT_)
        rc = pr_error_set(&e, PR_EINVAL, "message: bad type %d", (int)m->type);
    else if (m->v != PR_PROTO_VERSION)
        rc = pr_error_set(&e, PR_EVERSION, "%s: version %" PRIu32 " (use pr_msg_init)",
                          pr_msg_type_name(m->type), m->v);
    else if ((rc = pr__msg_check(m, &e)) == 0)
        rc = encode_map(&pk, &pr__msg_tables[m->type], m, (const char *)m,
                        pr_msg_type_name(m->type), &e);
    if (rc == 0 && sb->size - start > PR_MSG_MAX_BYTES)
        rc = pr_error_set(&e, PR_ETOO_BIG, "%s: encodes to %zu bytes (max %u)",
                          pr_msg_type_name(m->type), sb->size - start, PR_MSG_MAX_BYTES);
    if (rc < 0 && e.code == 0)
        pr_error_set(&e, rc, "%s: %s", pr_msg_type_name(m->type), pr_strerror(rc));
    if (rc < 0)
        sb->size = start;
    if (err != NULL)
        *err = e;
    return rc < 0 ? rc : 0;
}
