#include "pr_msg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_keyfile.h"
#include "pr_msg_kst.h"
#include "pr_msg_trx.h"

/* Every message type is described once, by a table of fields; the encoder,
 * the decoder and pr_msg_clear() all walk the same tables, so the three
 * cannot disagree about a key, its type or its limit. */

enum fkind {
    FK_U64,
    FK_U32,
    FK_U16,
    FK_I64,
    FK_I32,
    FK_BOOL,
    FK_DBL,
    FK_STR,      /* char *, cap = max length */
    FK_RUN,      /* char[PR_RUN_ID_MAX + 1] inline */
    FK_SQLSTATE, /* char[6] inline: "" or exactly 5 chars */
    FK_Z85,      /* char[41] inline: "" or a 40-char Z85 key */
    FK_ENUM,     /* an enum; names[cap] are its wire names */
    FK_TYPE,     /* "t": the envelope's type (decoded before the table) */
    FK_CTR,      /* struct pr_counters as a map */
    FK_HIST,     /* pr_hist * */
    FK_MAP,      /* an inline struct as a map of the table sub (optional: has) */
    FK_STRS,     /* char ** + uint32_t count at off_n; each <= elen */
    FK_U16S,     /* uint16_t * + count */
    FK_OPTS,     /* struct pr_msg_opt * + count */
    FK_STATS,    /* struct pr_msg_stat * + count */
    FK_TABLES,   /* struct pr_msg_table * + count */
    FK_KSTATS,   /* struct pr_msg_kstat * + count */
    FK_MAPS,     /* array of structs of esize bytes, each a map of the table sub */
    FK_TRX,      /* struct pr_msg_trx * + count (pr_msg_trx.c); absent when 0 */
};

struct table;

struct field {
    const char *key;          /* wire key */
    enum fkind kind;          /* representation on both sides */
    bool req;                 /* required when decoding */
    uint32_t cap;             /* string length, array count or enum count */
    uint32_t elen;            /* FK_STRS: length of each string */
    size_t off;               /* offset of the value in its struct */
    size_t off_n;             /* arrays: offset of the uint32_t count */
    const char *const *names; /* FK_ENUM: wire names */
    bool has;                 /* optional scalar with a presence flag at off_has */
    size_t off_has;           /* bool: set when decoded; when false, not encoded */
    const struct table *sub;  /* FK_MAP, FK_MAPS: the fields of the nested map */
    size_t esize;             /* FK_MAPS: element size */
};

struct table {
    const struct field *f; /* the fields */
    size_t n;              /* how many */
};
#define TABLE(a)                                                                                   \
    {                                                                                              \
        a, sizeof(a) / sizeof(a[0])                                                                \
    }

static const char *const type_names[PR_MSG_TYPE_COUNT_] = {
    "NONE",  "HELLO", "PING",  "PONG",      "PLAN",  "READY", "START",
    "STATS", "DONE",  "ABORT", "HEARTBEAT", "ERROR", "BYE",
};
static const char *const cmd_names[PR_CMD_COUNT_] = {"prepare", "run", "cleanup", "prewarm",
                                                     "check"};
static const char *const part_names[PR_PART_COUNT_] = {"none", "tables", "rows", "warehouses"};
static const char *const state_names[PR_STATE_COUNT_] = {"idle",    "connecting", "ready",
                                                         "running", "stopping",   "done"};
static const char *const phase_names[PR_PHASE_COUNT_] = {"gather",  "clock", "plan",    "connect",
                                                         "prepare", "run",   "cleanup", "prewarm",
                                                         "finish",  "check"};
static const char *const rate_mode_names[PR_RATE_COUNT_] = {"poisson", "uniform"};

_Static_assert(sizeof(enum pr_plan_cmd) == sizeof(unsigned) &&
                   sizeof(enum pr_partition) == sizeof(unsigned) &&
                   sizeof(enum pr_agent_state) == sizeof(unsigned) &&
                   sizeof(enum pr_phase) == sizeof(unsigned) &&
                   sizeof(enum pr_rate_mode) == sizeof(unsigned),
               "enums are stored through unsigned *");

#define OFF(member) offsetof(struct pr_msg, member)
#define FLD(k, kind_, req_, cap_, member)                                                          \
    {                                                                                              \
        .key = k, .kind = kind_, .req = req_, .cap = cap_, .off = OFF(member)                      \
    }
#define LIST(k, kind_, req_, cap_, elen_, member, count)                                           \
    {                                                                                              \
        .key = k, .kind = kind_, .req = req_, .cap = cap_, .elen = elen_, .off = OFF(member),      \
        .off_n = OFF(count)                                                                        \
    }
#define ENUM(k, member, names_)                                                                    \
    {                                                                                              \
        .key = k, .kind = FK_ENUM, .req = true, .cap = sizeof(names_) / sizeof(names_[0]),         \
        .off = OFF(member), .names = names_                                                        \
    }
/* An optional enum: absent decodes as value 0. */
#define ENUM_OPT(k, member, names_)                                                                \
    {                                                                                              \
        .key = k, .kind = FK_ENUM, .req = false, .cap = sizeof(names_) / sizeof(names_[0]),        \
        .off = OFF(member), .names = names_                                                        \
    }
/* An optional scalar whose presence is the bool has_member: encoded only
 * when it is true, set to true when the key is decoded. */
#define FLD_HAS(k, kind_, member, has_member)                                                      \
    {                                                                                              \
        .key = k, .kind = kind_, .req = false, .off = OFF(member), .has = true,                    \
        .off_has = OFF(has_member)                                                                 \
    }
#define HDR_FIELDS                                                                                 \
    FLD("v", FK_U32, true, 0, v), FLD("t", FK_TYPE, true, 0, type),                                \
        FLD("run", FK_RUN, true, PR_RUN_ID_MAX, run), FLD("seq", FK_U64, true, 0, seq)

static const struct field hello_fields[] = {
    HDR_FIELDS,
    FLD("name", FK_STR, true, PR_MSG_NAME_MAX, u.hello.name),
    FLD("ver", FK_STR, true, PR_MSG_NAME_MAX, u.hello.version),
    FLD("cores", FK_U32, true, 0, u.hello.cores),
    FLD("host", FK_STR, true, PR_MSG_HOST_MAX, u.hello.hostname),
    FLD("region", FK_STR, true, PR_MSG_NAME_MAX, u.hello.region),
    FLD("key", FK_Z85, true, PR_MSG_Z85_KEY_LEN, u.hello.pubkey),
};
static const struct field ping_fields[] = {
    HDR_FIELDS,
    FLD("id", FK_U64, true, 0, u.ping.id),
    FLD("clk", FK_U64, true, 0, u.ping.clock_ns),
};
static const struct field pong_fields[] = {
    HDR_FIELDS,
    FLD("id", FK_U64, true, 0, u.pong.id),
    FLD("clk", FK_U64, true, 0, u.pong.ping_clock_ns),
    FLD("pclk", FK_U64, true, 0, u.pong.peer_clock_ns),
};
static const struct field plan_fields[] = {
    HDR_FIELDS,
    ENUM("cmd", u.plan.cmd, cmd_names),
    FLD("wl", FK_STR, true, PR_MSG_NAME_MAX, u.plan.workload),
    LIST("opts", FK_OPTS, true, PR_MSG_MAX_OPTS, 0, u.plan.opts, u.plan.n_opts),
    FLD("ai", FK_U32, true, 0, u.plan.agent_index),
    FLD("an", FK_U32, true, 0, u.plan.agent_count),
    FLD("conns", FK_U32, true, 0, u.plan.conns),
    FLD("c0", FK_U64, true, 0, u.plan.conn_first),
    FLD("ctot", FK_U64, true, 0, u.plan.conns_total),
    FLD("rate", FK_U64, true, 0, u.plan.rate),
    FLD("events", FK_U64, true, 0, u.plan.events),
    FLD("time", FK_U64, true, 0, u.plan.time_s),
    FLD("ri", FK_U32, true, 0, u.plan.report_ms),
    FLD("seed", FK_U64, true, 0, u.plan.seed),
    FLD("lead", FK_BOOL, true, 0, u.plan.lead),
    ENUM("part", u.plan.part, part_names),
    LIST("tables", FK_TABLES, true, PR_MSG_MAX_TABLES, 0, u.plan.tables, u.plan.n_tables),
    LIST("hosts", FK_STRS, true, PR_MSG_MAX_TARGETS, PR_MSG_HOST_MAX, u.plan.hosts, u.plan.n_hosts),
    LIST("ports", FK_U16S, true, PR_MSG_MAX_TARGETS, 0, u.plan.ports, u.plan.n_ports),
    LIST("socks", FK_STRS, true, PR_MSG_MAX_TARGETS, PR_MSG_PATH_MAX, u.plan.sockets,
         u.plan.n_sockets),
    FLD("user", FK_STR, true, PR_MSG_NAME_MAX, u.plan.user),
    FLD("db", FK_STR, true, PR_MSG_NAME_MAX, u.plan.database),
    FLD("pw", FK_STR, true, PR_MSG_TEXT_MAX, u.plan.password),
    FLD("hash", FK_U64, true, 0, u.plan.plan_hash),
    ENUM_OPT("rmode", u.plan.rate_mode, rate_mode_names),
    LIST("luan", FK_STRS, false, PR_MSG_MAX_LUA, PR_MSG_NAME_MAX, u.plan.lua_names,
         u.plan.n_lua_names),
    LIST("luas", FK_STRS, false, PR_MSG_MAX_LUA, PR_MSG_LUA_MAX, u.plan.lua_srcs,
         u.plan.n_lua_srcs),
    FLD("luah", FK_U64, false, 0, u.plan.lua_hash),
};
/* READY.env, its "srv" and the data set's tables. */
#undef OFF
#define OFF(member) offsetof(struct pr_msg_env_table, member)
static const struct field env_table_fields[] = {
    FLD("n", FK_STR, true, PR_MSG_NAME_MAX, name),
    FLD("rows", FK_U64, true, 0, rows),
    FLD("data", FK_U64, true, 0, data_bytes),
    FLD("idx", FK_U64, true, 0, index_bytes),
};
static const struct table env_table_table = TABLE(env_table_fields);
#undef OFF
#define OFF(member) offsetof(struct pr_msg_env_server, member)
static const struct field env_server_fields[] = {
    FLD("ver", FK_STR, true, PR_MSG_HOST_MAX, version),
    FLD("com", FK_STR, true, PR_MSG_HOST_MAX, version_comment),
    LIST("vars", FK_OPTS, true, PR_MSG_MAX_ENV_VARS, 0, vars, n_vars),
    LIST("unread", FK_OPTS, true, PR_MSG_MAX_ENV_VARS, 0, unread, n_unread),
    FLD("schema", FK_STR, true, PR_MSG_NAME_MAX, schema),
    {.key = "tabs",
     .kind = FK_MAPS,
     .req = true,
     .cap = PR_MSG_MAX_ENV_TABS,
     .off = OFF(tables),
     .off_n = OFF(n_tables),
     .sub = &env_table_table,
     .esize = sizeof(struct pr_msg_env_table)},
    FLD("tcount", FK_U32, true, 0, table_count),
    FLD("rows", FK_U64, true, 0, rows),
    FLD("data", FK_U64, true, 0, data_bytes),
    FLD("idx", FK_U64, true, 0, index_bytes),
};
static const struct table env_server_table = TABLE(env_server_fields);
#undef OFF
#define OFF(member) offsetof(struct pr_msg_env, member)
static const struct field env_fields[] = {
    FLD("host", FK_STR, true, PR_MSG_HOST_MAX, hostname),
    FLD("kern", FK_STR, true, PR_MSG_HOST_MAX, kernel),
    FLD("cpu", FK_STR, true, PR_MSG_HOST_MAX, cpu_model),
    FLD("cores", FK_U32, true, 0, cores),
    FLD("mem", FK_U64, true, 0, memory_bytes),
    FLD("cc", FK_STR, true, PR_MSG_NAME_MAX, connector),
    FLD("ver", FK_STR, true, PR_MSG_NAME_MAX, version),
    FLD("git", FK_STR, true, PR_MSG_NAME_MAX, git_commit),
    LIST("unread", FK_OPTS, true, PR_MSG_MAX_ENV_VARS, 0, unread, n_unread),
    {.key = "srv",
     .kind = FK_MAP,
     .off = OFF(server),
     .has = true,
     .off_has = OFF(has_server),
     .sub = &env_server_table},
};
static const struct table env_table = TABLE(env_fields);
#undef OFF
#define OFF(member) offsetof(struct pr_msg, member)

static const struct field ready_fields[] = {
    HDR_FIELDS,
    FLD("hash", FK_U64, true, 0, u.ready.plan_hash),
    FLD_HAS("rtt", FK_U64, u.ready.db_rtt_us, u.ready.has_db_rtt),
    FLD("conns", FK_U32, true, 0, u.ready.conns),
    LIST("srv", FK_STATS, false, PR_MSG_MAX_STATS, 0, u.ready.srv, u.ready.n_srv),
    LIST("kinds", FK_STRS, false, PR_MSG_MAX_KINDS, PR_MSG_NAME_MAX, u.ready.kinds,
         u.ready.n_kinds),
    {.key = "env",
     .kind = FK_MAP,
     .off = OFF(u.ready.env),
     .has = true,
     .off_has = OFF(u.ready.has_env),
     .sub = &env_table},
};
static const struct field start_fields[] = {
    HDR_FIELDS,
    FLD("t0", FK_U64, true, 0, u.start.t0_ns),
    FLD("ivl", FK_U32, true, 0, u.start.interval_ms),
};
static const struct field stats_fields[] = {
    HDR_FIELDS,
    FLD("k", FK_U64, true, 0, u.stats.k),
    FLD("ctr", FK_CTR, true, 0, u.stats.ctr),
    FLD("lat", FK_HIST, true, 0, u.stats.lat),
    FLD("svc", FK_HIST, false, 0, u.stats.svc),
    FLD("cpu", FK_DBL, true, 0, u.stats.cpu_pct),
    FLD("lagmax", FK_U64, true, 0, u.stats.lag_max_us),
    FLD("lag99", FK_U64, true, 0, u.stats.lag_p99_us),
    FLD("slip", FK_U64, true, 0, u.stats.slip_us),
    LIST("srv", FK_STATS, false, PR_MSG_MAX_STATS, 0, u.stats.srv, u.stats.n_srv),
    FLD("rows", FK_U64, false, 0, u.stats.rows),
    LIST("kst", FK_KSTATS, false, PR_MSG_MAX_KINDS, 0, u.stats.kst, u.stats.n_kst),
    LIST("trx", FK_TRX, false, PR_MSG_MAX_TRX, 0, u.stats.trx, u.stats.n_trx),
};
static const struct field done_fields[] = {
    HDR_FIELDS,
    FLD("ctr", FK_CTR, true, 0, u.done.ctr),
    FLD("lat", FK_HIST, true, 0, u.done.lat),
    FLD("ivls", FK_U64, true, 0, u.done.intervals),
    FLD("code", FK_I32, true, 0, u.done.status),
    FLD("why", FK_STR, true, PR_MSG_TEXT_MAX, u.done.reason),
    FLD_HAS("skew", FK_I64, u.done.start_skew_us, u.done.has_start_skew),
    FLD("svc", FK_HIST, false, 0, u.done.svc),
    LIST("kinds", FK_STATS, false, PR_MSG_MAX_STATS, 0, u.done.kinds, u.done.n_kinds),
    FLD("rows", FK_U64, false, 0, u.done.rows),
    LIST("kst", FK_KSTATS, false, PR_MSG_MAX_KINDS, 0, u.done.kst, u.done.n_kst),
    LIST("notes", FK_STRS, false, PR_MSG_MAX_NOTES, PR_MSG_TEXT_MAX, u.done.notes, u.done.n_notes),
};
static const struct field abort_fields[] = {
    HDR_FIELDS,
    FLD("why", FK_STR, true, PR_MSG_TEXT_MAX, u.abort.reason),
    FLD("now", FK_BOOL, false, 0, u.abort.now),
};
static const struct field heartbeat_fields[] = {
    HDR_FIELDS,
    ENUM("state", u.heartbeat.state, state_names),
    FLD("clk", FK_U64, true, 0, u.heartbeat.clock_ns),
};
static const struct field error_fields[] = {
    HDR_FIELDS,
    FLD("code", FK_I32, true, 0, u.error.code),
    ENUM("phase", u.error.phase, phase_names),
    FLD("dberr", FK_U32, true, 0, u.error.db_errno),
    FLD("sqlstate", FK_SQLSTATE, true, PR_MSG_SQLSTATE_LEN, u.error.sqlstate),
    FLD("msg", FK_STR, true, PR_MSG_TEXT_MAX, u.error.message),
    FLD("kind", FK_STR, true, PR_MSG_NAME_MAX, u.error.stmt_kind),
};
static const struct field bye_fields[] = {
    HDR_FIELDS,
    FLD("why", FK_STR, true, PR_MSG_TEXT_MAX, u.bye.reason),
};

#undef OFF
#define OFF(member) offsetof(struct pr_msg_table, member)
static const struct field table_fields[] = {
    FLD("n", FK_U32, true, 0, table),          FLD("lo", FK_U64, true, 0, id_lo),
    FLD("hi", FK_U64, true, 0, id_hi),         FLD("ct", FK_BOOL, true, 0, create_table),
    FLD("ci", FK_BOOL, true, 0, create_index),
};
#undef OFF
#define OFF(member)     offsetof(struct pr_counters, member)
#define CTR_FIELD(name) FLD(#name, FK_U64, true, 0, name),
static const struct field ctr_fields[] = {PR_COUNTERS_FIELDS(CTR_FIELD)};
#undef CTR_FIELD
#undef OFF

static const struct table msg_tables[PR_MSG_TYPE_COUNT_] = {
    [PR_MSG_HELLO] = TABLE(hello_fields), [PR_MSG_PING] = TABLE(ping_fields),
    [PR_MSG_PONG] = TABLE(pong_fields),   [PR_MSG_PLAN] = TABLE(plan_fields),
    [PR_MSG_READY] = TABLE(ready_fields), [PR_MSG_START] = TABLE(start_fields),
    [PR_MSG_STATS] = TABLE(stats_fields), [PR_MSG_DONE] = TABLE(done_fields),
    [PR_MSG_ABORT] = TABLE(abort_fields), [PR_MSG_HEARTBEAT] = TABLE(heartbeat_fields),
    [PR_MSG_ERROR] = TABLE(error_fields), [PR_MSG_BYE] = TABLE(bye_fields),
};
static const struct table table_table = TABLE(table_fields);
static const struct table ctr_table = TABLE(ctr_fields);

/* Path of a value inside a message, for error messages ("PLAN.tables[3]");
 * deep paths are cut short, which is harmless in a message. */
#define PATH_LEN 96

static void key_path(char *dst, const char *path, const char *key)
{
    if (snprintf(dst, PATH_LEN, "%s.%s", path, key) >= PATH_LEN)
        dst[PATH_LEN - 1] = '\0';
}

static void elem_path(char *dst, const char *path, uint32_t i)
{
    if (snprintf(dst, PATH_LEN, "%s[%" PRIu32 "]", path, i) >= PATH_LEN)
        dst[PATH_LEN - 1] = '\0';
}

static const char *enum_name(const char *const *names, size_t n, unsigned v)
{
    return v < n ? names[v] : "?";
}

const char *pr_msg_type_name(enum pr_msg_type type)
{
    return enum_name(type_names, PR_MSG_TYPE_COUNT_, (unsigned)type);
}

const char *pr_plan_cmd_name(enum pr_plan_cmd cmd)
{
    return enum_name(cmd_names, PR_CMD_COUNT_, (unsigned)cmd);
}

const char *pr_partition_name(enum pr_partition part)
{
    return enum_name(part_names, PR_PART_COUNT_, (unsigned)part);
}

const char *pr_agent_state_name(enum pr_agent_state state)
{
    return enum_name(state_names, PR_STATE_COUNT_, (unsigned)state);
}

const char *pr_rate_mode_name(enum pr_rate_mode mode)
{
    return (unsigned)mode < PR_RATE_COUNT_ ? rate_mode_names[mode] : "?";
}

const char *pr_phase_name(enum pr_phase phase)
{
    return enum_name(phase_names, PR_PHASE_COUNT_, (unsigned)phase);
}

/* ---- Structural pre-scan ------------------------------------------------
 *
 * msgpack-c allocates an array's or map's elements as soon as it reads the
 * header, so a 5-byte "array of 4 billion" would ask for 96 GB. This scan
 * walks the raw bytes first and refuses, before msgpack-c sees them,
 * anything truncated, too deep, with trailing bytes, with a container
 * claiming more elements than bytes remain (so allocation stays within a
 * small multiple of the input) or with a map over PR_MSG_MAX_KEYS. */

struct scan {
    const uint8_t *p; /* input */
    size_t len;       /* input length */
    size_t off;       /* next byte to read */
    bool top_map;     /* the top value is a map; top[] then holds its layout */
    uint32_t n_top;   /* its keys and values, counted */
    /* where each key and value of the top map starts, then its end */
    size_t top[2 * PR_MSG_MAX_KEYS + 1];
};

static int scan_be(struct scan *s, unsigned width, uint64_t *v, struct pr_error *err)
{
    if (s->len - s->off < width)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    *v = 0;
    for (unsigned i = 0; i < width; i++)
        *v = (*v << 8) | s->p[s->off++];
    return 0;
}

static int scan_skip(struct scan *s, uint64_t n, struct pr_error *err)
{
    if (s->len - s->off < n)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    s->off += (size_t)n;
    return 0;
}

/* Classify header byte b: *width is the size of the length/count that
 * follows, *fixed the payload bytes to skip (after any length), *mult the
 * number of child objects per counted element (0: none, 1: array, 2: map). */
static int scan_class(uint8_t b, unsigned *width, uint64_t *fixed, unsigned *mult)
{
    static const uint8_t fixed_len[0x20] = {
        /* c0 */ 0, 0, 0, 0, 0, 0, 0, 1, 1,  1, 4, 8, 1, 2, 4, 8,
        /* d0 */ 1, 2, 4, 8, 2, 3, 5, 9, 17, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t len_width[0x20] = {
        /* c0 */ 0, 0, 0, 0, 1, 2, 4, 1, 2, 4, 0, 0, 0, 0, 0, 0,
        /* d0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 2, 4, 2, 4};

    *width = 0;
    *fixed = 0;
    *mult = 0;
    if (b <= 0x7f || b >= 0xe0)
        return 0;
    if (b <= 0x8f || b <= 0x9f) {
        *mult = b <= 0x8f ? 2 : 1;
        *fixed = b & 0x0f; /* element count */
        return 0;
    }
    if (b <= 0xbf) {
        *fixed = b & 0x1f;
        return 0;
    }
    if (b == 0xc1)
        return -1;
    *width = len_width[b - 0xc0];
    *fixed = fixed_len[b - 0xc0]; /* ext8/16/32: the type byte */
    if (b >= 0xdc)
        *mult = b >= 0xde ? 2 : 1;
    return 0;
}

/* Skips up to k integers in a row at s->off (a STATS is mostly its
 * histograms' integers) and returns how many; stops before anything else,
 * a truncated integer too. Locals, not s's fields, in the loop: s->p's
 * bytes may alias them. */
static uint64_t scan_ints(struct scan *s, uint64_t k)
{
    const uint8_t *p = s->p;
    size_t off = s->off, len = s->len;
    uint64_t i = 0;
    for (; i < k && off < len; i++) {
        uint8_t b = p[off];
        if (b <= 0x7f || b >= 0xe0) {
            off++;
            continue;
        }
        size_t w = (size_t)1 << ((b - 0xcc) & 3); /* uint8..64 0xcc..0xcf, int8..64 0xd0..0xd3 */
        if (b < 0xcc || b > 0xd3 || len - off <= w)
            break;
        off += 1 + w;
    }
    s->off = off;
    return i;
}

static int scan_obj(struct scan *s, unsigned depth, struct pr_error *err)
{
    unsigned width, mult;
    uint64_t fixed, n = 0;
    size_t at = s->off;
    int rc;

    if (s->off >= s->len)
        return pr_error_set(err, PR_ETRUNCATED, "message truncated at offset %zu", s->off);
    uint8_t b = s->p[s->off++];
    if (scan_class(b, &width, &fixed, &mult) < 0)
        return pr_error_set(err, PR_EINVAL, "malformed msgpack: byte 0xc1 at offset %zu", at);
    if (width > 0 && (rc = scan_be(s, width, &n, err)) < 0)
        return rc;
    if (mult == 0)
        return scan_skip(s, n + fixed, err);
    n = width > 0 ? n : fixed;
    if (depth + 1 > PR_MSG_MAX_DEPTH)
        return pr_error_set(err, PR_ETOO_BIG, "msgpack nested deeper than %d", PR_MSG_MAX_DEPTH);
    if (mult == 2 && n > PR_MSG_MAX_KEYS)
        return pr_error_set(err, PR_ETOO_BIG, "map of %" PRIu64 " keys at offset %zu (max %d)", n,
                            at, PR_MSG_MAX_KEYS);
    n *= mult;
    if (n > s->len - s->off)
        return pr_error_set(err, PR_ETRUNCATED,
                            "container at offset %zu claims more elements than bytes", at);
    if (depth == 0 && mult == 2)
        s->top_map = true, s->n_top = (uint32_t)n;
    for (uint64_t i = 0; i < n; i++) {
        if (depth == 0 && mult == 2)
            s->top[i] = s->off;
        else if ((i += scan_ints(s, n - i)) == n)
            break;
        if ((rc = scan_obj(s, depth + 1, err)) < 0)
            return rc;
    }
    if (depth == 0 && mult == 2)
        s->top[n] = s->off;
    return 0;
}

/* ---- Decoding ----------------------------------------------------------- */

/* The value of a top-level key in raw_keys: not a msgpack-c object but
 * the value's bytes (via.bin), which get_hist reads with
 * pr_hist_unpack_raw(). A type msgpack-c never makes, so nothing else can
 * mistake it for data. Histograms are most of a STATS: msgpack-c building
 * their thousands of integers was most of its decode. */
#define OBJ_RAW ((msgpack_object_type)0x7f)

/* Top-level keys whose values stay raw: every FK_HIST field's key and
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

/* "" (none) or a Z85 key by pr_keyfile's one rule; s is not terminated. */
static bool is_z85_key(const char *s, uint32_t n)
{
    char key[PR_KEY_LEN + 1];

    if (n == 0)
        return true;
    if (n != PR_KEY_LEN)
        return false;
    memcpy(key, s, n);
    key[n] = '\0';
    return pr_key_is_z85(key);
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
    if (f->kind == FK_Z85 && !is_z85_key(s, n))
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

/* [count, errors, lat]: one kind's figures. */
static int get_kstat(const msgpack_object *o, struct pr_msg_kstat *k, const char *path,
                     struct pr_error *err)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
        return pr_error_set(err, PR_EBAD_TYPE, "%s: expected [count, errors, lat], got %s", path,
                            obj_type_name(o));
    const msgpack_object *v = o->via.array.ptr;
    int rc = get_uint(&v[0], UINT64_MAX, &k->count, path, err);
    if (rc == 0)
        rc = get_uint(&v[1], UINT64_MAX, &k->errors, path, err);
    return rc < 0 ? rc : get_hist(&v[2], &k->lat, path, err);
}

static int get_list(const struct field *f, const msgpack_object *o, char *base, const char *path,
                    struct pr_error *err)
{
    static const size_t elem_size[] = {
        [FK_STRS] = sizeof(char *),
        [FK_U16S] = sizeof(uint16_t),
        [FK_OPTS] = sizeof(struct pr_msg_opt),
        [FK_STATS] = sizeof(struct pr_msg_stat),
        [FK_TABLES] = sizeof(struct pr_msg_table),
        [FK_KSTATS] = sizeof(struct pr_msg_kstat),
        [FK_MAPS] = 0, /* f->esize */
    };
    size_t esize = f->kind == FK_MAPS ? f->esize : elem_size[f->kind];
    char epath[PATH_LEN];
    void *arr = NULL;
    uint64_t u = 0;
    int rc = get_array(f, o, base, esize, &arr, path, err);

    for (uint32_t i = 0; rc == 0 && i < o->via.array.size; i++) {
        const msgpack_object *e = &o->via.array.ptr[i];
        char *ep = (char *)arr + i * esize;
        elem_path(epath, path, i);
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
            rc = decode_map(e, &table_table, ep, epath, err);
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

static int decode_field(const struct field *f, const msgpack_object *o, char *base,
                        const char *path, struct pr_error *err)
{
    char *dst = base + f->off;

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
        return decode_map(o, &ctr_table, dst, path, err);
    case FK_HIST:
        return get_hist(o, (pr_hist **)(void *)dst, path, err);
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
            key_path(fpath, path, t->f[fi].key);
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

/* lo..hi, or the empty range lo == hi + 1 (written so hi + 1 cannot wrap). */
static bool range_ok(const struct pr_msg_table *t)
{
    return t->id_lo <= t->id_hi || t->id_lo - 1 == t->id_hi;
}

/* Cross-field checks, shared by encoder and decoder. */
static int check_msg(const struct pr_msg *m, struct pr_error *err)
{
    const char *tn = pr_msg_type_name(m->type);

    if (m->type == PR_MSG_PLAN) {
        const struct pr_msg_plan *p = &m->u.plan;
        if (p->agent_count == 0 || p->agent_index >= p->agent_count)
            return pr_error_set(err, PR_ERANGE, "PLAN.ai: agent %" PRIu32 " of %" PRIu32,
                                p->agent_index, p->agent_count);
        if (p->conns > p->conns_total || p->conn_first > p->conns_total - p->conns)
            return pr_error_set(err, PR_ERANGE, "PLAN.c0: connections beyond ctot");
        if (p->report_ms == 0)
            return pr_error_set(err, PR_ERANGE, "PLAN.ri: must be >= 1");
        for (uint32_t i = 0; i < p->n_tables; i++)
            if (p->tables[i].table == 0 || !range_ok(&p->tables[i]))
                return pr_error_set(err, PR_ERANGE, "PLAN.tables[%" PRIu32 "]: bad table/range", i);
    } else if (m->type == PR_MSG_START && m->u.start.interval_ms == 0) {
        return pr_error_set(err, PR_ERANGE, "%s.ivl: must be >= 1", tn);
    } else if (m->type == PR_MSG_STATS && !(m->u.stats.cpu_pct >= 0)) {
        return pr_error_set(err, PR_ERANGE, "%s.cpu: negative", tn);
    }
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
        if (t->type == MSGPACK_OBJECT_STR && key_is(t, type_names[i]))
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
    rc = decode_map(o, &msg_tables[m->type], (char *)m, pr_msg_type_name(m->type), err);
    return rc < 0 ? rc : check_msg(m, err);
}

static bool is_raw_key(const msgpack_object *k)
{
    for (size_t i = 0; i < sizeof(raw_keys) / sizeof(raw_keys[0]); i++)
        if (key_is(k, raw_keys[i]))
            return true;
    return false;
}

/* One msgpack value, exactly bytes [from, to) of the scanned input. */
static bool unpack_piece(const struct scan *s, size_t from, size_t to, msgpack_zone *z,
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
static bool unpack_tree(const struct scan *s, msgpack_zone *z, msgpack_object *o)
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
        kv[i].val.type = OBJ_RAW;
        kv[i].val.via.bin.ptr = (const char *)s->p + at[1];
        kv[i].val.via.bin.size = (uint32_t)(at[2] - at[1]);
    }
    return true;
}

int pr_msg_decode(struct pr_msg *m, const void *buf, size_t len, struct pr_error *err)
{
    struct pr_error e = {0};
    struct scan s = {buf, len, 0, false, 0, {0}};
    msgpack_zone z;
    msgpack_object o;
    int rc;

    memset(m, 0, sizeof(*m));
    if (len > PR_MSG_MAX_BYTES)
        rc = pr_error_set(&e, PR_ETOO_BIG, "message of %zu bytes (max %u)", len, PR_MSG_MAX_BYTES);
    else if ((rc = scan_obj(&s, 0, &e)) == 0 && s.off != len)
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
    if (err != NULL)
        *err = rc < 0 ? e : (struct pr_error){0};
    return rc;
}

/* ---- Clearing ------------------------------------------------------------ */

/* Free a string that may be a secret (PLAN.password, an option value). */
static void free_scrubbed(char *s)
{
    if (s != NULL)
        explicit_bzero(s, strlen(s));
    free(s);
}

static void clear_fields(const struct table *t, char *base)
{
    for (size_t fi = 0; fi < t->n; fi++) {
        const struct field *f = &t->f[fi];
        void *p = NULL;
        uint32_t n = 0;
        if (f->kind >= FK_STRS)
            n = *(uint32_t *)(void *)(base + f->off_n);
        if (f->kind >= FK_STRS || f->kind == FK_STR)
            p = *(void **)(void *)(base + f->off);
        if (f->kind == FK_STR)
            free_scrubbed(p);
        else if (f->kind == FK_U16S || f->kind == FK_TABLES || f->kind == FK_TRX)
            free(p);
        else if (f->kind == FK_HIST)
            pr_hist_destroy((pr_hist **)(void *)(base + f->off));
        else if (f->kind == FK_MAP)
            clear_fields(f->sub, base + f->off);
        for (uint32_t i = 0; p != NULL && i < n; i++) {
            if (f->kind == FK_STRS) {
                free_scrubbed(((char **)p)[i]);
            } else if (f->kind == FK_OPTS) {
                free(((struct pr_msg_opt *)p)[i].name);
                free_scrubbed(((struct pr_msg_opt *)p)[i].value);
            } else if (f->kind == FK_STATS) {
                free(((struct pr_msg_stat *)p)[i].name);
            } else if (f->kind == FK_KSTATS) {
                pr_hist_destroy(&((struct pr_msg_kstat *)p)[i].lat);
            } else if (f->kind == FK_MAPS) {
                clear_fields(f->sub, (char *)p + i * f->esize);
            }
        }
        if (f->kind == FK_STRS || f->kind == FK_OPTS || f->kind == FK_STATS ||
            f->kind == FK_KSTATS || f->kind == FK_MAPS)
            free(p);
    }
}

void pr_msg_clear(struct pr_msg *m)
{
    if (m->type > PR_MSG_NONE && m->type < PR_MSG_TYPE_COUNT_)
        clear_fields(&msg_tables[m->type], (char *)m);
    memset(m, 0, sizeof(*m));
}

void pr_msg_init_pong(struct pr_msg *reply, const struct pr_msg_ping *ping, uint64_t now_ns)
{
    pr_msg_init(reply, PR_MSG_PONG, NULL, 0);
    reply->u.pong.id = ping->id;
    reply->u.pong.ping_clock_ns = ping->clock_ns;
    reply->u.pong.peer_clock_ns = now_ns;
}

void pr_msg_sbuffer_scrub(msgpack_sbuffer *sb)
{
    if (sb->data != NULL)
        explicit_bzero(sb->data, sb->alloc);
    msgpack_sbuffer_destroy(sb);
}

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
    if (f->kind == FK_Z85 && (n > f->cap || !is_z85_key(s, (uint32_t)n)))
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
        if (k->lat == NULL)
            return pr_error_set(err, PR_EINVAL, "%s: NULL histogram", path);
        if ((rc = pk_rc(msgpack_pack_array(pk, 3))) < 0 ||
            (rc = pk_rc(msgpack_pack_uint64(pk, k->count))) < 0 ||
            (rc = pk_rc(msgpack_pack_uint64(pk, k->errors))) < 0)
            return rc;
        return pr_hist_pack(k->lat, pk);
    }
    case FK_MAPS:
        return encode_map(pk, f->sub, NULL, ep, path, err);
    default:
        return encode_map(pk, &table_table, NULL, ep, path, err);
    }
}

static int put_list(const struct field *f, msgpack_packer *pk, const char *base, const char *path,
                    struct pr_error *err)
{
    static const size_t elem_size[] = {
        [FK_STRS] = sizeof(char *),
        [FK_U16S] = sizeof(uint16_t),
        [FK_OPTS] = sizeof(struct pr_msg_opt),
        [FK_STATS] = sizeof(struct pr_msg_stat),
        [FK_TABLES] = sizeof(struct pr_msg_table),
        [FK_KSTATS] = sizeof(struct pr_msg_kstat),
        [FK_MAPS] = 0, /* f->esize */
    };
    size_t esize = f->kind == FK_MAPS ? f->esize : elem_size[f->kind];
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
        elem_path(epath, path, i);
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
        return encode_map(pk, &ctr_table, NULL, src, path, err);
    case FK_HIST: {
        const pr_hist *h = *(pr_hist *const *)(const void *)src;
        if (h == NULL)
            return pr_error_set(err, PR_EINVAL, "%s: NULL histogram", path);
        return pr_hist_pack(h, pk);
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
        key_path(fpath, path, f->key);
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
    else if ((rc = check_msg(m, &e)) == 0)
        rc = encode_map(&pk, &msg_tables[m->type], m, (const char *)m, pr_msg_type_name(m->type),
                        &e);
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

/* ---- Envelope helpers ---------------------------------------------------- */

void pr_msg_init(struct pr_msg *m, enum pr_msg_type type, const char *run, uint64_t seq)
{
    memset(m, 0, sizeof(*m));
    m->v = PR_PROTO_VERSION;
    m->type = type;
    m->seq = seq;
    if (run != NULL) {
        size_t n = strnlen(run, PR_RUN_ID_MAX);
        memcpy(m->run, run, n);
        m->run[n] = '\0';
    }
}

int pr_msg_plan_hash(const struct pr_msg_plan *plan, uint64_t *hash)
{
    struct pr_msg m;
    msgpack_sbuffer sb;
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 offset basis */

    pr_msg_init(&m, PR_MSG_PLAN, NULL, 0);
    m.u.plan = *plan;
    m.u.plan.plan_hash = 0;
    msgpack_sbuffer_init(&sb);
    int rc = pr_msg_encode(&m, &sb, NULL);
    for (size_t i = 0; rc == 0 && i < sb.size; i++)
        h = (h ^ (uint8_t)sb.data[i]) * 0x100000001b3ULL;
    pr_msg_sbuffer_scrub(&sb);
    if (rc == 0)
        *hash = h;
    return rc;
}

int pr_msg_plan_verify(const struct pr_msg_plan *plan, struct pr_error *err)
{
    uint64_t h = 0;
    int rc = pr_msg_plan_hash(plan, &h);

    if (rc < 0)
        return pr_error_set(err, rc, "PLAN.hash: cannot hash the plan: %s", pr_strerror(rc));
    if (h != plan->plan_hash)
        return pr_error_set(err, PR_EINVAL,
                            "PLAN.hash: the plan says %016" PRIx64 " but its contents hash to "
                            "%016" PRIx64 ": it was altered on the way, or the coordinator is "
                            "not this agent's version; refusing it",
                            plan->plan_hash, h);
    return 0;
}

bool pr_seq_accept(struct pr_seq_track *t, const struct pr_msg *m)
{
    if (strncmp(t->run, m->run, sizeof(t->run)) != 0) {
        memcpy(t->run, m->run, sizeof(t->run));
        t->run[PR_RUN_ID_MAX] = '\0';
        t->last_seq = m->seq;
        return true;
    }
    if (m->seq <= t->last_seq)
        return false;
    t->last_seq = m->seq;
    return true;
}
