/* pr_msg: the control-message codec's tables and checks (msgpack <-> struct pr_msg) (contract:
 * pr_msg.h). */
#include "pr_msg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_keyfile.h"
#include "pr_msg_int.h"
#include "pr_msg_trx.h"

/* Every message type is described once, by a table of fields; the encoder,
 * the decoder and pr_msg_clear() all walk the same tables, so the three
 * cannot disagree about a key, its type or its limit. */

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
    LIST("scrn", FK_STRS, false, PR_MSG_MAX_SCRIPTS, PR_MSG_NAME_MAX, u.plan.script_names,
         u.plan.n_script_names),
    LIST("scrs", FK_STRS, false, PR_MSG_MAX_SCRIPTS, PR_MSG_SCRIPT_MAX, u.plan.script_srcs,
         u.plan.n_script_srcs),
    FLD("scrh", FK_U64, false, 0, u.plan.script_hash),
    FLD("scrc", FK_STR, false, PR_MSG_NAME_MAX, u.plan.script_cmd),
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
#undef OFF
#define OFF(member) offsetof(struct pr_msg_conn, member)
static const struct field conn_fields[] = {
    FLD("i", FK_U32, true, 0, index),
    FLD("e", FK_U64, true, 0, events),
    FLD("l", FK_U64, true, 0, lat_us),
};
static const struct table conn_table = TABLE(conn_fields);
#undef OFF
#define OFF(member) offsetof(struct pr_msg, member)
static const struct field stats_fields[] = {
    HDR_FIELDS,
    FLD("k", FK_U64, true, 0, u.stats.k),
    FLD("ctr", FK_CTR, true, 0, u.stats.ctr),
    LIST("lat", FK_HISTF, true, 0, 0, u.stats.lat, u.stats.lat_frozen), /* off_n: frozen */
    FLD("svc", FK_HIST, false, 0, u.stats.svc),
    FLD("cpu", FK_DBL, true, 0, u.stats.cpu_pct),
    FLD("lagmax", FK_U64, true, 0, u.stats.lag_max_us),
    FLD("lag99", FK_U64, true, 0, u.stats.lag_p99_us),
    FLD("slip", FK_U64, true, 0, u.stats.slip_us),
    LIST("srv", FK_STATS, false, PR_MSG_MAX_STATS, 0, u.stats.srv, u.stats.n_srv),
    FLD("rows", FK_U64, false, 0, u.stats.rows),
    LIST("kst", FK_KSTATS, false, PR_MSG_MAX_KINDS, 0, u.stats.kst, u.stats.n_kst),
    LIST("trx", FK_TRX, false, PR_MSG_MAX_TRX, 0, u.stats.trx, u.stats.n_trx),
    FLD("trxlost", FK_U64, false, 0, u.stats.trx_lost),
    {.key = "conns",
     .kind = FK_MAPS,
     .req = false,
     .cap = PR_MSG_MAX_CONNS,
     .off = OFF(u.stats.conns),
     .off_n = OFF(u.stats.n_conns),
     .sub = &conn_table,
     .esize = sizeof(struct pr_msg_conn)},
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
    FLD_HAS("end", FK_I64, u.done.end_us, u.done.has_end),
    FLD_HAS("tally", FK_U64, u.done.tally, u.done.has_tally),
    {.key = "conns",
     .kind = FK_MAPS,
     .req = false,
     .cap = PR_MSG_MAX_CONNS,
     .off = OFF(u.done.conns),
     .off_n = OFF(u.done.n_conns),
     .sub = &conn_table,
     .esize = sizeof(struct pr_msg_conn)},
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
#define OFF(member)         offsetof(struct pr_counters, member)
#define CTR_FIELD(name)     FLD(#name, FK_U64, true, 0, name),
#define CTR_OPT_FIELD(name) FLD(#name, FK_U64, false, 0, name),
static const struct field ctr_fields[] = {PR_COUNTERS_FIELDS(CTR_FIELD)
                                              PR_COUNTERS_OPT_FIELDS(CTR_OPT_FIELD)};
#undef CTR_OPT_FIELD
#undef CTR_FIELD
#undef OFF

const struct table pr__msg_tables[PR_MSG_TYPE_COUNT_] = {
    [PR_MSG_HELLO] = TABLE(hello_fields), [PR_MSG_PING] = TABLE(ping_fields),
    [PR_MSG_PONG] = TABLE(pong_fields),   [PR_MSG_PLAN] = TABLE(plan_fields),
    [PR_MSG_READY] = TABLE(ready_fields), [PR_MSG_START] = TABLE(start_fields),
    [PR_MSG_STATS] = TABLE(stats_fields), [PR_MSG_DONE] = TABLE(done_fields),
    [PR_MSG_ABORT] = TABLE(abort_fields), [PR_MSG_HEARTBEAT] = TABLE(heartbeat_fields),
    [PR_MSG_ERROR] = TABLE(error_fields), [PR_MSG_BYE] = TABLE(bye_fields),
};
const struct table pr__msg_table_table = TABLE(table_fields);
const struct table pr__msg_ctr_table = TABLE(ctr_fields);

size_t pr__msg_elem_size(const struct field *f)
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
    return esize;
}

void pr__msg_key_path(char *dst, const char *path, const char *key)
{
    if (snprintf(dst, PATH_LEN, "%s.%s", path, key) >= PATH_LEN)
        dst[PATH_LEN - 1] = '\0';
}

void pr__msg_elem_path(char *dst, const char *path, uint32_t i)
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

/* lo..hi, or the empty range lo == hi + 1 (written so hi + 1 cannot wrap). */
static bool range_ok(const struct pr_msg_table *t)
{
    return t->id_lo <= t->id_hi || t->id_lo - 1 == t->id_hi;
}

/* Cross-field checks, shared by encoder and decoder. */
int pr__msg_check(const struct pr_msg *m, struct pr_error *err)
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

bool pr__msg_is_z85_key(const char *s, uint32_t n)
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
        else if (f->kind == FK_HISTF) {
            pr_hist_destroy((pr_hist **)(void *)(base + f->off));
            pr_hist_frozen_destroy((pr_hist_frozen **)(void *)(base + f->off_n));
        } else if (f->kind == FK_MAP)
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
                pr_hist_frozen_destroy(&((struct pr_msg_kstat *)p)[i].lat_frozen);
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
        clear_fields(&pr__msg_tables[m->type], (char *)m);
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
