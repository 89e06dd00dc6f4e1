/* pr_msg_dec: pr_msg_decode(), the table-driven decoder (pr_msg_int.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_hist_int.h"
#include "pr_msg_int.h"
#include "pr_msg_kst.h"
#include "pr_msg_trx.h"

/* ---- Decoding ----------------------------------------------------------- */

/* The value of a top-level key in raw_keys: not a msgpack-c object but
 * the value's bytes (via.bin), which get_hist reads with
 * pr_hist_unpack_raw(). A type msgpack-c never makes, so nothing else can
 * mistake it for data. Histograms are most of a STATS: msgpack-c building
 * their thousands of integers was most of its decode. */
#define OBJ_RAW ((msgpack_object_type)0x7f)

/* A top-level "lat" or "kst" value the pre-scan decoded already
 * (pre_decode): via.bin.ptr points to its struct pre_val. decode_field
 * takes the result where the field is the kind it was decoded for, else
 * reads the value's bytes as OBJ_RAW. */
#define OBJ_PRE ((msgpack_object_type)0x7e)

/* Values decoded during the pre-scan, at most PRE_MAX per message. */
#define PRE_MAX 4
struct pre_val {
    const uint8_t *raw;       /* the value's bytes in the message */
    size_t len;               /* their length */
    bool kst;                 /* "kst" entries (else a "lat" histogram) */
    pr_hist_frozen *lat;      /* "lat": the histogram, until a field takes it */
    struct pr_msg_kstat *arr; /* "kst": the entries, until a field takes them */
    uint32_t n;               /* "kst": how many */
};
struct pre_set {
    struct pre_val v[PRE_MAX];
    uint32_t n;
};

/* The pre-scan's hook (pr_msg_int.h): a top-level value keyed "lat" or
 * "kst" is read by its strict prefix decoder, in one pass (the scan would
 * walk its thousands of integers, then the decoder again). Refused, the
 * scan walks it and the field's decoder says what is wrong. */
static bool pre_decode(struct pr__msg_scan *s, uint32_t i)
{
    struct pre_set *ps = s->pre_ctx;
    size_t k0 = s->top[i - 1], klen = s->top[i] - k0;
    bool lat = klen == 4 && memcmp(s->p + k0, "\xa3lat", 4) == 0;
    bool kst = klen == 4 && memcmp(s->p + k0, "\xa3kst", 4) == 0;
    if ((!lat && !kst) || ps->n >= PRE_MAX)
        return false;
    struct pre_val *v = &ps->v[ps->n];
    const uint8_t *at = s->p + s->off;
    size_t used = 0;
    *v = (struct pre_val){.raw = at, .kst = kst};
    int rc = lat ? pr__hist_unpack_raw_frozen_prefix(&v->lat, at, s->len - s->off, &used)
                 : pr__msg_kst_unpack_raw_prefix(at, s->len - s->off, PR_MSG_MAX_KINDS, &v->arr,
                                                 &v->n, &used);
    if (rc != 0)
        return false;
    v->len = used;
    s->off += used;
    ps->n++;
    return true;
}

static const struct pre_val *pre_find(const struct pre_set *ps, const uint8_t *at)
{
    for (uint32_t i = 0; ps != NULL && i < ps->n; i++)
        if (ps->v[i].raw == at)
            return &ps->v[i];
    return NULL;
}

static void pre_free(struct pre_set *ps)
{
    for (uint32_t i = 0; i < ps->n; i++) {
        struct pre_val *v = &ps->v[i];
        pr_hist_frozen_destroy(&v->lat);
        for (uint32_t j = 0; v->arr != NULL && j < v->n; j++)
            pr_hist_frozen_destroy(&v->arr[j].lat_frozen);
        free(v->arr);
        v->arr = NULL;
    }
    ps->n = 0;
}

/* Top-level keys whose values stay raw: every FK_HIST(F) field's key and
 * every FK_KSTATS one (read by pr_msg_kst.c), and only those (any other
 * kind would read OBJ_RAW as a wrong type). */
static const char *const raw_keys[] = {"lat", "svc", "kst"};

static const char *obj_type_name(const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        return "nil";
    case MSGPACK_OBJECT_BOOLEAN:
        return "bool";
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        return "int";
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        return "float";
    case MSGPACK_OBJECT_STR:
        return "str";
    case MSGPACK_OBJECT_ARRAY:
        return "array";
    case MSGPACK_OBJECT_MAP:
        return "map";
    case MSGPACK_OBJECT_BIN:
        return "bin";
    default:
        return "ext";
    }
}

static int bad_type(struct pr_error *err, const char *path, const char *want,
                    const msgpack_object *o)
{
    return pr_error_set(err, PR_EBAD_TYPE, "%s: expected %s, got %s", path, want, obj_type_name(o));
}

static int get_uint(const msgpack_object *o, uint64_t max, uint64_t *out, const char *path,
                    struct pr_error *err)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return pr_error_set(err, PR_ERANGE, "%s: negative value %" PRId64, path, o->via.i64);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return bad_type(err, path, "uint", o);
    if (o->via.u64 > max)
        return pr_error_set(err, PR_ERANGE, "%s: %" PRIu64 " exceeds %" PRIu64, path, o->via.u64,
                            max);
    *out = o->via.u64;
    return 0;
}

static int get_int(const msgpack_object *o, int64_t min, int64_t max, int64_t *out,
                   const char *path, struct pr_error *err)
{
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 > (uint64_t)max)
            return pr_error_set(err, PR_ERANGE, "%s: %" PRIu64 " too large", path, o->via.u64);
        *out = (int64_t)o->via.u64;
        return 0;
    }
    if (o->type != MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return bad_type(err, path, "int", o);
    if (o->via.i64 < min)
        return pr_error_set(err, PR_ERANGE, "%s: %" PRId64 " too small", path, o->via.i64);
    *out = o->via.i64;
    return 0;
}

static int get_double(const msgpack_object *o, double *out, const char *path, struct pr_error *err)
{
    if (o->type == MSGPACK_OBJECT_FLOAT32 || o->type == MSGPACK_OBJECT_FLOAT64)
        *out = o->via.f64;
    else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        *out = (double)o->via.u64;
    else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        *out = (double)o->via.i64;
    else
        return bad_type(err, path, "float", o);
    if (!isfinite(*out))
        return pr_error_set(err, PR_ERANGE, "%s: not a finite number", path);
    return 0;
}

/* A string object's bytes: msgpack-c may give an empty one a NULL (or
 * stale) pointer, which memcpy and printf must not see. */
static const char *str_ptr(const msgpack_object *o)
{
    return o->via.str.size > 0 ? o->via.str.ptr : "";
}

/* A string of at most cap bytes without NUL; *s points into the input. */
static int get_str(const msgpack_object *o, uint32_t cap, const char **s, uint32_t *n,
                   const char *path, struct pr_error *err)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return bad_type(err, path, "str", o);
    if (o->via.str.size > cap)
        return pr_error_set(err, PR_ETOO_BIG, "%s: string of %" PRIu32 " bytes (max %" PRIu32 ")",
                            path, o->via.str.size, cap);
    if (o->via.str.size > 0 && memchr(o->via.str.ptr, '\0', o->via.str.size) != NULL)
        return pr_error_set(err, PR_EINVAL, "%s: string contains NUL", path);
    *s = str_ptr(o);
    *n = o->via.str.size;
    return 0;
}

static char *dup_n(const char *s, uint32_t n)
{
    char *d = pr_xmalloc((size_t)n + 1);
    if (n > 0)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static int get_dup(const msgpack_object *o, uint32_t cap, char **out, const char *path,
                   struct pr_error *err)
{
    const char *s = NULL;
    uint32_t n = 0;
    int rc = get_str(o, cap, &s, &n, path, err);
    if (rc == 0)
        *out = dup_n(s, n);
    return rc;
}

/* Inline string kinds: run id, sqlstate, Z85 key. */
static int get_inline(const struct field *f, const msgpack_object *o, char *dst, const char *path,
                      struct pr_error *err)
{
    const char *s = NULL;
    uint32_t n = 0;
    int rc = get_str(o, f->cap, &s, &n, path, err);
    if (rc < 0)
        return rc;
    if (f->kind == FK_SQLSTATE && n != 0 && n != PR_MSG_SQLSTATE_LEN)
        return pr_error_set(err, PR_EINVAL, "%s: sqlstate must have 5 characters", path);
    if (f->kind == FK_Z85 && !pr__msg_is_z85_key(s, n))
        return pr_error_set(err, PR_EINVAL, "%s: not a 40-character Z85 key", path);
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

static int get_enum(const struct field *f, const msgpack_object *o, unsigned *out, const char *path,
                    struct pr_error *err)
{
    const char *s = NULL;
    uint32_t n = 0;
    int rc = get_str(o, PR_MSG_NAME_MAX, &s, &n, path, err);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < f->cap; i++) {
        if (strlen(f->names[i]) == n && memcmp(f->names[i], s, n) == 0) {
            *out = i;
            return 0;
        }
    }
    return pr_error_set(err, PR_ERANGE, "%s: unknown value '%.*s'", path, (int)n, s);
}

/* Integer kinds, bool and float. */
static int get_scalar(const struct field *f, const msgpack_object *o, char *dst, const char *path,
                      struct pr_error *err)
{
    uint64_t u = 0;
    int64_t i = 0;
    int rc = 0;

    switch (f->kind) {
    case FK_U64:
        return get_uint(o, UINT64_MAX, (uint64_t *)(void *)dst, path, err);
    case FK_U32:
        if ((rc = get_uint(o, UINT32_MAX, &u, path, err)) == 0)
            *(uint32_t *)(void *)dst = (uint32_t)u;
        return rc;
    case FK_I64:
        return get_int(o, INT64_MIN, INT64_MAX, (int64_t *)(void *)dst, path, err);
    case FK_I32:
        if ((rc = get_int(o, INT32_MIN, INT32_MAX, &i, path, err)) == 0)
            *(int32_t *)(void *)dst = (int32_t)i;
        return rc;
    case FK_BOOL:
        if (o->type != MSGPACK_OBJECT_BOOLEAN)
            return bad_type(err, path, "bool", o);
        *(bool *)(void *)dst = o->via.boolean;
        return 0;
    case FK_DBL:
        return get_double(o, (double *)(void *)dst, path, err);
    case FK_ENUM:
        return get_enum(f, o, (unsigned *)(void *)dst, path, err);
    default:
        return pr_error_set(err, PR_EINVAL, "%s: internal: bad field kind", path);
    }
}

static int decode_map(const msgpack_object *o, const struct table *t, char *base, const char *path,
                      struct pr_error *err);

/* Checks that o is an array of at most f->cap elements; allocates the
 * destination array (zeroed, elem_size each) and stores it and its count
 * at once, so a later failure leaves something pr_msg_clear() can free. */
static int get_array(const struct field *f, const msgpack_object *o, char *base, size_t elem_size,
                     void **arr, const char *path, struct pr_error *err)
{
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return bad_type(err, path, "array", o);
    if (o->via.array.size > f->cap)
        return pr_error_set(err, PR_ETOO_BIG, "%s: %" PRIu32 " elements (max %" PRIu32 ")", path,
                            o->via.array.size, f->cap);
    *arr = o->via.array.size ? pr_xcalloc(o->via.array.size, elem_size) : NULL;
    *(void **)(void *)(base + f->off) = *arr;
    *(uint32_t *)(void *)(base + f->off_n) = o->via.array.size;
    return 0;
}

/* [name, value] pairs: value is a string (FK_OPTS) or a uint (FK_STATS). */
static int get_pair(const struct field *f, const msgpack_object *o, void *elem, const char *path,
                    struct pr_error *err)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 2)
        return pr_error_set(err, PR_EBAD_TYPE, "%s: expected [name, value], got %s", path,
                            obj_type_name(o));
    const msgpack_object *kv = o->via.array.ptr;
    if (f->kind == FK_OPTS) {
        struct pr_msg_opt *opt = elem;
        int rc = get_dup(&kv[0], PR_MSG_NAME_MAX, &opt->name, path, err);
        return rc < 0 ? rc : get_dup(&kv[1], PR_MSG_TEXT_MAX, &opt->value, path, err);
    }
    struct pr_msg_stat *st = elem;
    int rc = get_dup(&kv[0], PR_MSG_NAME_MAX, &st->name, path, err);
    return rc < 0 ? rc : get_uint(&kv[1], UINT64_MAX, &st->value, path, err);
}

static int get_hist(const msgpack_object *o, pr_hist **dst, const char *path, struct pr_error *err);

/* [count, errors, lat, late]: one kind's figures. */
static int get_kstat(const msgpack_object *o, struct pr_msg_kstat *k, const char *path,
                     struct pr_error *err)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 4)
        return pr_error_set(err, PR_EBAD_TYPE, "%s: expected [count, errors, lat, late], got %s",
                            path, obj_type_name(o));
    const msgpack_object *v = o->via.array.ptr;
    int rc = get_uint(&v[0], UINT64_MAX, &k->count, path, err);
    if (rc == 0)
        rc = get_uint(&v[1], UINT64_MAX, &k->errors, path, err);
    if (rc == 0 && (rc = get_hist(&v[2], &k->lat, path, err)) == 0) {
        k->lat_frozen = pr_hist_freeze(k->lat); /* decoded entries are frozen (pr_msg.h) */
        pr_hist_destroy(&k->lat);
    }
    if (rc == 0)
        rc = get_uint(&v[3], UINT64_MAX, &k->late, path, err);
    if (rc == 0 && k->late > k->count)
        rc = pr_error_set(err, PR_ERANGE, "%s: late %" PRIu64 " > count %" PRIu64, path, k->late,
                          k->count);
    return rc;
}

static int get_list(const struct field *f, const msgpack_object *o, char *base, const char *path,
                    struct pr_error *err)
{
    size_t esize = pr__msg_elem_size(f);
    char epath[PATH_LEN];
    void *arr = NULL;
    uint64_t u = 0;
    int rc = get_array(f, o, base, esize, &arr, path, err);

    for (uint32_t i = 0; rc == 0 && i < o->via.array.size; i++) {
        const msgpack_object *e = &o->via.array.ptr[i];
        char *ep = (char *)arr + i * esize;
        pr__msg_elem_path(epath, path, i);
        if (f->kind == FK_STRS) {
            rc = get_dup(e, f->elen, (char **)(void *)ep, epath, err);
        } else if (f->kind == FK_U16S) {
            rc = get_uint(e, UINT16_MAX, &u, epath, err);
            *(uint16_t *)(void *)ep = (uint16_t)u;
        } else if (f->kind == FK_OPTS || f->kind == FK_STATS) {
            rc = get_pair(f, e, ep, epath, err);
        } else if (f->kind == FK_KSTATS) {
            rc = get_kstat(e, (struct pr_msg_kstat *)(void *)ep, epath, err);
        } else if (f->kind == FK_MAPS) {
            rc = decode_map(e, f->sub, ep, epath, err);
        } else {
            rc = decode_map(e, &pr__msg_table_table, ep, epath, err);
        }
    }
    return rc;
}

static int get_hist(const msgpack_object *o, pr_hist **dst, const char *path, struct pr_error *err)
{
    *dst = pr_hist_new();
    int rc = o->type == OBJ_RAW ? pr_hist_unpack_raw(*dst, o->via.bin.ptr, o->via.bin.size, err)
                                : pr_hist_unpack(*dst, o, err);
    if (rc < 0 && err != NULL) {
        char inner[sizeof(err->msg)];
        memcpy(inner, err->msg, sizeof(inner));
        pr_error_set(err, rc, "%s: %s", path, inner);
    }
    return rc;
}

/* A histogram kept frozen (FK_HISTF): its bytes read straight into the
 * frozen form (pr_hist_unpack_raw_frozen: no 186 KB histogram per STATS). */
static int get_hist_frozen(const msgpack_object *o, pr_hist_frozen **dst, const char *path,
                           struct pr_error *err)
{
    int rc;
    if (o->type == OBJ_RAW) {
        rc = pr_hist_unpack_raw_frozen(dst, o->via.bin.ptr, o->via.bin.size, err);
    } else { /* not reached from pr_msg_decode: "lat" is a raw key */
        pr_hist *h = pr_hist_new();
        rc = pr_hist_unpack(h, o, err);
        *dst = rc == 0 ? pr_hist_freeze(h) : NULL;
        pr_hist_destroy(&h);
    }
    if (rc < 0 && err != NULL) {
        char inner[sizeof(err->msg)];
        memcpy(inner, err->msg, sizeof(inner));
        pr_error_set(err, rc, "%s: %s", path, inner);
    }
    return rc;
}

static int decode_field(const struct field *f, const msgpack_object *o, char *base,
                        const char *path, struct pr_error *err)
{
    char *dst = base + f->off;
    msgpack_object raw;

    if (o->type == OBJ_PRE) { /* decoded by the pre-scan: take it, or read its bytes */
        struct pre_val *v = (struct pre_val *)(uintptr_t)o->via.bin.ptr;
        if (f->kind == FK_HISTF && !v->kst) {
            *(pr_hist_frozen **)(void *)(base + f->off_n) = v->lat;
            v->lat = NULL;
            return 0;
        }
        if (f->kind == FK_KSTATS && v->kst && v->n <= f->cap) {
            *(struct pr_msg_kstat **)(void *)dst = v->arr;
            *(uint32_t *)(void *)(base + f->off_n) = v->n;
            v->arr = NULL;
            v->n = 0;
            return 0;
        }
        raw.type = OBJ_RAW;
        raw.via.bin.ptr = (const char *)v->raw;
        raw.via.bin.size = (uint32_t)v->len;
        o = &raw;
    }

    switch (f->kind) {
    case FK_TYPE:
        return 0; /* decoded and checked before the table walk */
    case FK_STR:
        return get_dup(o, f->cap, (char **)(void *)dst, path, err);
    case FK_RUN:
    case FK_SQLSTATE:
    case FK_Z85:
        return get_inline(f, o, dst, path, err);
    case FK_CTR:
        return decode_map(o, &pr__msg_ctr_table, dst, path, err);
    case FK_HIST:
        return get_hist(o, (pr_hist **)(void *)dst, path, err);
    case FK_HISTF:
        return get_hist_frozen(o, (pr_hist_frozen **)(void *)(base + f->off_n), path, err);
    case FK_MAP:
        return decode_map(o, f->sub, dst, path, err);
    case FK_STRS:
    case FK_U16S:
    case FK_OPTS:
    case FK_STATS:
    case FK_TABLES:
    case FK_KSTATS:
        if (o->type == OBJ_RAW)
            return pr__msg_kst_unpack_raw(o->via.bin.ptr, o->via.bin.size, f->cap,
                                          (struct pr_msg_kstat **)(void *)dst,
                                          (uint32_t *)(void *)(base + f->off_n), path, err);
        return get_list(f, o, base, path, err);
    case FK_MAPS:
        return get_list(f, o, base, path, err);
    case FK_TRX:
        return pr__msg_trx_get(o, (struct pr_msg_trx **)(void *)dst,
                               (uint32_t *)(void *)(base + f->off_n), path, err);
    default:
        return get_scalar(f, o, dst, path, err);
    }
}

static bool key_is(const msgpack_object *k, const char *s)
{
    size_t n = strlen(s);
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
           memcmp(k->via.str.ptr, s, n) == 0;
}

static bool same_key(const msgpack_object *a, const msgpack_object *b)
{
    return a->via.str.size == b->via.str.size &&
           (a->via.str.size == 0 || memcmp(a->via.str.ptr, b->via.str.ptr, a->via.str.size) == 0);
}

/* Walk map o: string keys only, no duplicate, known keys decoded into base
 * per t, unknown ones ignored, then every required key present. The scan
 * capped maps at PR_MSG_MAX_KEYS, so the quadratic duplicate check is cheap
 * and a 64-bit mask can mark seen fields. */
static int decode_map(const msgpack_object *o, const struct table *t, char *base, const char *path,
                      struct pr_error *err)
{
    char fpath[PATH_LEN];
    uint64_t seen = 0;

    if (o->type != MSGPACK_OBJECT_MAP)
        return bad_type(err, path, "map", o);
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object *k = &o->via.map.ptr[i].key;
        if (k->type != MSGPACK_OBJECT_STR)
            return pr_error_set(err, PR_EBAD_TYPE, "%s: key of type %s", path, obj_type_name(k));
        for (uint32_t j = 0; j < i; j++)
            if (same_key(k, &o->via.map.ptr[j].key))
                return pr_error_set(err, PR_EDUP_KEY, "%s: duplicate key '%.*s'", path,
                                    (int)k->via.str.size, str_ptr(k));
        for (size_t fi = 0; fi < t->n; fi++) {
            if (!key_is(k, t->f[fi].key))
                continue;
            pr__msg_key_path(fpath, path, t->f[fi].key);
            int rc = decode_field(&t->f[fi], &o->via.map.ptr[i].val, base, fpath, err);
            if (rc < 0)
                return rc;
            if (t->f[fi].has)
                *(bool *)(void *)(base + t->f[fi].off_has) = true;
            seen |= 1ULL << fi;
        }
    }
    for (size_t fi = 0; fi < t->n; fi++)
        if (t->f[fi].req && !(seen & (1ULL << fi)))
            return pr_error_set(err, PR_EMISSING_KEY, "%s: missing key '%s'", path, t->f[fi].key);
    return 0;
}

static const msgpack_object *find_key(const msgpack_object *map, const char *key)
{
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (key_is(&map->via.map.ptr[i].key, key))
            return &map->via.map.ptr[i].val;
    return NULL;
}

static enum pr_msg_type type_of(const msgpack_object *t)
{
    for (int i = PR_MSG_HELLO; t != NULL && i < PR_MSG_TYPE_COUNT_; i++)
        if (t->type == MSGPACK_OBJECT_STR && key_is(t, pr_msg_type_name((enum pr_msg_type)i)))
            return (enum pr_msg_type)i;
    return PR_MSG_NONE;
}

/* After a version mismatch: keep what helps the caller explain it. */
static void salvage_header(struct pr_msg *m, const msgpack_object *o)
{
    const msgpack_object *x;
    const char *s = NULL;
    uint32_t n = 0;

    m->type = type_of(find_key(o, "t"));
    if ((x = find_key(o, "run")) && get_str(x, PR_RUN_ID_MAX, &s, &n, "", NULL) == 0) {
        memcpy(m->run, s, n);
        m->run[n] = '\0';
    }
    if ((x = find_key(o, "seq")) && x->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        m->seq = x->via.u64;
    if (m->type == PR_MSG_HELLO && (x = find_key(o, "name")))
        get_dup(x, PR_MSG_NAME_MAX, &m->u.hello.name, "", NULL);
}

/* Header checks in their documented order, then the type's table. */
static int decode_obj(struct pr_msg *m, const msgpack_object *o, struct pr_error *err)
{
    uint64_t v;
    int rc;

    if (o->type != MSGPACK_OBJECT_MAP)
        return pr_error_set(err, PR_ENOTMAP, "message is %s, not a map", obj_type_name(o));
    const msgpack_object *vo = find_key(o, "v");
    if (vo == NULL)
        return pr_error_set(err, PR_EMISSING_KEY, "message: missing key 'v'");
    if ((rc = get_uint(vo, UINT32_MAX, &v, "message.v", err)) < 0)
        return rc;
    if (v != PR_PROTO_VERSION) {
        m->v = (uint32_t)v;
        salvage_header(m, o);
        return pr_error_set(err, PR_EVERSION, "%s: protocol version %" PRIu64 ", expected %d",
                            pr_msg_type_name(m->type), v, PR_PROTO_VERSION);
    }
    const msgpack_object *to = find_key(o, "t");
    if (to == NULL)
        return pr_error_set(err, PR_EMISSING_KEY, "message: missing key 't'");
    if (to->type != MSGPACK_OBJECT_STR)
        return bad_type(err, "message.t", "str", to);
    m->type = type_of(to);
    if (m->type == PR_MSG_NONE)
        return pr_error_set(err, PR_EUNKNOWN_TYPE, "message: unknown type '%.*s'",
                            (int)(to->via.str.size > 32 ? 32 : to->via.str.size), str_ptr(to));
    rc = decode_map(o, &pr__msg_tables[m->type], (char *)m, pr_msg_type_name(m->type), err);
    return rc < 0 ? rc : pr__msg_check(m, err);
}

static bool is_raw_key(const msgpack_object *k)
{
    for (size_t i = 0; i < sizeof(raw_keys) / sizeof(raw_keys[0]); i++)
        if (key_is(k, raw_keys[i]))
            return true;
    return false;
}

/* One msgpack value, exactly bytes [from, to) of the scanned input. */
static bool unpack_piece(const struct pr__msg_scan *s, size_t from, size_t to, msgpack_zone *z,
                         msgpack_object *o)
{
    size_t off = 0;
    return msgpack_unpack((const char *)s->p + from, to - from, &off, z, o) ==
               MSGPACK_UNPACK_SUCCESS &&
           off == to - from;
}

/* msgpack-c's tree of the scanned input in zone z, but for the values of
 * raw_keys in the top map, which are OBJ_RAW. False when msgpack-c
 * refuses the bytes. */
static bool unpack_tree(const struct pr__msg_scan *s, msgpack_zone *z, msgpack_object *o)
{
    if (!s->top_map)
        return unpack_piece(s, 0, s->len, z, o);
    uint32_t n = s->n_top / 2;
    msgpack_object_kv *kv = msgpack_zone_malloc(z, (n ? n : 1) * sizeof(*kv));
    if (kv == NULL)
        return false;
    o->type = MSGPACK_OBJECT_MAP;
    o->via.map.size = n;
    o->via.map.ptr = kv;
    for (uint32_t i = 0; i < n; i++) {
        const size_t *at = &s->top[2 * i];
        if (!unpack_piece(s, at[0], at[1], z, &kv[i].key))
            return false;
        if (!is_raw_key(&kv[i].key)) {
            if (!unpack_piece(s, at[1], at[2], z, &kv[i].val))
                return false;
            continue;
        }
        const struct pre_val *pv = pre_find(s->pre_ctx, s->p + at[1]);
        kv[i].val.type = pv != NULL ? OBJ_PRE : OBJ_RAW;
        kv[i].val.via.bin.ptr = pv != NULL ? (const char *)pv : (const char *)s->p + at[1];
        kv[i].val.via.bin.size = (uint32_t)(at[2] - at[1]);
    }
    return true;
}

int pr_msg_decode(struct pr_msg *m, const void *buf, size_t len, struct pr_error *err)
{
    struct pr_error e = {0};
    struct pr__msg_scan s = {buf, len, 0, false, 0, {0}, pre_decode, NULL};
    struct pre_set pre = {.n = 0};
    msgpack_zone z;
    msgpack_object o;
    int rc;

    memset(m, 0, sizeof(*m));
    s.pre_ctx = &pre;
    if (len > PR_MSG_MAX_BYTES)
        rc = pr_error_set(&e, PR_ETOO_BIG, "message of %zu bytes (max %u)", len, PR_MSG_MAX_BYTES);
    else if ((rc = pr__msg_scan_obj(&s, 0, &e)) == 0 && s.off != len)
        rc = pr_error_set(&e, PR_ETRAILING, "%zu trailing bytes after message", len - s.off);
    if (rc < 0)
        goto out;
    bool zone_ok = msgpack_zone_init(&z, MSGPACK_ZONE_CHUNK_SIZE);
    if (!zone_ok || !unpack_tree(&s, &z, &o))
        rc = pr_error_set(&e, PR_EINVAL, "msgpack-c rejected the message");
    else
        rc = decode_obj(m, &o, &e);
    if (zone_ok)
        msgpack_zone_destroy(&z);
    if (rc < 0 && rc != PR_EVERSION)
        pr_msg_clear(m);
out:
    pre_free(&pre); /* what no field took */
    if (err != NULL)
        *err = rc < 0 ? e : (struct pr_error){0};
    return rc;
}
