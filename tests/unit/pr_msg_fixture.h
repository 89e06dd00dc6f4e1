/* pr_msg_fixture: what test_pr_msg and test_pr_msg_reject share. Every
 * message type filled with every field set (fill), compared field by field
 * after a round trip (check_same), and wire editing: a valid message
 * re-packed from its decoded msgpack object with one edit at a path
 * (decode_edited, try_edit), so every case starts from a valid message and
 * breaks exactly one thing. msg_fixture_init() makes the histograms the
 * messages carry; msg_fixture_fini() frees them. */
#ifndef PR_MSG_FIXTURE_H
#define PR_MSG_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pr_msg.h"
#include "testlib.h"

static const char *const all_keys_hdr[] = {"v", "t", "run", "seq"};

/* The wire keys of each type as the design says them, with (opt) marks:
 * written here independently of the codec's tables. */
struct keyspec {
    enum pr_msg_type type;
    const char *req[24];
    const char *opt[6];
};

static const struct keyspec keyspecs[] = {
    {PR_MSG_HELLO, {"name", "ver", "cores", "host", "region", "key"}, {NULL}},
    {PR_MSG_PING, {"id", "clk"}, {NULL}},
    {PR_MSG_PONG, {"id", "clk", "pclk"}, {NULL}},
    {PR_MSG_PLAN,
     {"cmd",   "wl",     "opts",  "ai",   "an",   "conns", "c0",   "ctot",
      "rate",  "events", "time",  "ri",   "seed", "lead",  "part", "tables",
      "hosts", "ports",  "socks", "user", "db",   "pw",    "hash"},
     {"rmode"}},
    {PR_MSG_READY, {"hash", "conns"}, {"rtt", "srv"}},
    {PR_MSG_START, {"t0", "ivl"}, {NULL}},
    {PR_MSG_STATS,
     {"k", "ctr", "lat", "cpu", "lagmax", "lag99", "slip"},
     {"svc", "srv", "rows", "conns"}},
    {PR_MSG_DONE, {"ctr", "lat", "ivls", "code", "why"}, {"skew", "svc", "kinds", "rows"}},
    {PR_MSG_ABORT, {"why"}, {"now"}},
    {PR_MSG_HEARTBEAT, {"state", "clk"}, {NULL}},
    {PR_MSG_ERROR, {"code", "phase", "dberr", "sqlstate", "msg", "kind"}, {NULL}},
    {PR_MSG_BYE, {"why"}, {NULL}},
};
#define N_TYPES (sizeof(keyspecs) / sizeof(keyspecs[0]))

/* ---- Populated messages -------------------------------------------------- */

static struct pr_msg_opt test_opts[] = {
    {(char *)"tables", (char *)"4"},
    {(char *)"table-size", (char *)"100000"},
    {(char *)"rate-mode", (char *)"uniform"},
};
static struct pr_msg_conn test_conns[] = {
    {20, 123456, 98765432109ULL},
    {21, 0, 0},
    {22, 1ULL << 40, 1ULL << 50},
};
static struct pr_msg_table test_tables[] = {
    {1, 1, 100000, true, false},
    {2, 1, 50000, true, true},
    {2, 50001, 100000, false, false},
};
static char *test_hosts[] = {(char *)"127.0.0.1", (char *)"db2.example"};
static uint16_t test_ports[] = {3306, 3307};
static char *test_socks[] = {(char *)"/run/mysqld/mysqld.sock"};
static struct pr_msg_stat test_srv[] = {
    {(char *)"Questions", 123456789},
    {(char *)"Threads_running", 17},
};
static struct pr_msg_stat test_kinds[] = {
    {(char *)"point_select", 1000},
    {(char *)"commit", 100},
};

static pr_hist *hist_lat, *hist_svc;
static char *test_kind_names[] = {(char *)"point_selects", (char *)"commit", (char *)"begin"};
static struct pr_msg_kstat test_kst[3]; /* lat filled by msg_fixture_init */

static inline void fill_counters(struct pr_counters *c, uint64_t base)
{
    uint64_t v = base;
#define FILL(name) c->name = v++;
    PR_COUNTERS_FIELDS(FILL)
    PR_COUNTERS_OPT_FIELDS(FILL)
#undef FILL
}

static inline void fill_plan(struct pr_msg_plan *p)
{
    p->cmd = PR_CMD_RUN;
    p->workload = (char *)"oltp_read_write";
    p->opts = test_opts;
    p->n_opts = 3;
    p->agent_index = 2;
    p->agent_count = 3;
    p->conns = 21;
    p->conn_first = 43;
    p->conns_total = 64;
    p->rate = 3333;
    p->events = 100000;
    p->time_s = 60;
    p->report_ms = 1000;
    p->seed = 0xdeadbeefcafeULL;
    p->lead = true;
    p->part = PR_PART_ROWS;
    p->tables = test_tables;
    p->n_tables = 3;
    p->hosts = test_hosts;
    p->n_hosts = 2;
    p->ports = test_ports;
    p->n_ports = 2;
    p->sockets = test_socks;
    p->n_sockets = 1;
    p->user = (char *)"sbtest";
    p->database = (char *)"sbtest";
    p->password = (char *)"s3cr\xc3\xa9t \"quoted\"";
    p->plan_hash = 0x0123456789abcdefULL;
    p->rate_mode = PR_RATE_UNIFORM;
}

static inline void fill_stats(struct pr_msg_stats *st)
{
    st->k = 12;
    fill_counters(&st->ctr, 100);
    st->lat = hist_lat;
    st->svc = hist_svc;
    st->cpu_pct = 187.25;
    st->lag_max_us = 900;
    st->lag_p99_us = 120;
    st->slip_us = 33;
    st->srv = test_srv;
    st->n_srv = 2;
    st->rows = 5432100;
    st->kst = test_kst;
    st->n_kst = 3;
    st->conns = test_conns; /* a --report-checkpoints interval */
    st->n_conns = 3;
}

static inline void fill_done(struct pr_msg_done *dn)
{
    fill_counters(&dn->ctr, 1ULL << 40);
    dn->lat = hist_lat;
    dn->intervals = 60;
    dn->status = PR_EVERSION;
    dn->reason = (char *)"time limit reached";
    dn->start_skew_us = -42;
    dn->has_start_skew = true;
    dn->svc = hist_svc;
    dn->kinds = test_kinds;
    dn->n_kinds = 2;
    dn->rows = (1ULL << 33) + 7;
    dn->kst = test_kst;
    dn->n_kst = 3;
    dn->conns = test_conns;
    dn->n_conns = 3;
}

/* Every field of the body set to a non-default value. The struct borrows
 * static data: never pr_msg_clear() it. */
static inline void fill(struct pr_msg *m, enum pr_msg_type t)
{
    pr_msg_init(m, t, "run-2026-11-30T07:00:00Z-7f3a", 4242);
    switch (t) {
    case PR_MSG_HELLO:
        m->u.hello.name = (char *)"agent-eu-1";
        m->u.hello.version = (char *)"0.1.0";
        m->u.hello.cores = 64;
        m->u.hello.hostname = (char *)"loadgen1.example";
        m->u.hello.region = (char *)"eu-west";
        strcpy(m->u.hello.pubkey, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
        break;
    case PR_MSG_PING:
        m->u.ping.id = 7;
        m->u.ping.clock_ns = 1234567890123ULL;
        break;
    case PR_MSG_PONG:
        m->u.pong.id = 7;
        m->u.pong.ping_clock_ns = 1234567890123ULL;
        m->u.pong.peer_clock_ns = UINT64_MAX - 5;
        break;
    case PR_MSG_PLAN:
        fill_plan(&m->u.plan);
        break;
    case PR_MSG_READY:
        m->u.ready.plan_hash = 0x0123456789abcdefULL;
        m->u.ready.db_rtt_us = 87;
        m->u.ready.has_db_rtt = true;
        m->u.ready.conns = 21;
        m->u.ready.srv = test_srv;
        m->u.ready.n_srv = 2;
        m->u.ready.kinds = test_kind_names;
        m->u.ready.n_kinds = 3;
        break;
    case PR_MSG_START:
        m->u.start.t0_ns = 99999999999ULL;
        m->u.start.interval_ms = 1000;
        break;
    case PR_MSG_STATS:
        fill_stats(&m->u.stats);
        break;
    case PR_MSG_DONE:
        fill_done(&m->u.done);
        break;
    case PR_MSG_ABORT:
        m->u.abort.reason = (char *)"SIGINT";
        m->u.abort.now = true; /* --forced-shutdown */
        break;
    case PR_MSG_HEARTBEAT:
        m->u.heartbeat.state = PR_STATE_STOPPING;
        m->u.heartbeat.clock_ns = 5555;
        break;
    case PR_MSG_ERROR:
        m->u.error.code = -111;
        m->u.error.phase = PR_PHASE_PREPARE;
        m->u.error.db_errno = 1045;
        strcpy(m->u.error.sqlstate, "28000");
        m->u.error.message = (char *)"Access denied for user 'sbtest'@'localhost'";
        m->u.error.stmt_kind = (char *)"point_select";
        break;
    case PR_MSG_BYE:
        m->u.bye.reason = (char *)"daemon shutting down";
        break;
    default:
        break;
    }
}

/* ---- Comparison ----------------------------------------------------------- */

#define STREQ(a, b) CHECK_MSG(strcmp((a), (b)) == 0, "'%s' != '%s'", (a), (b))

static inline void check_counters(const struct pr_counters *a, const struct pr_counters *b)
{
#define CMP(name) CHECK_EQ_U64(a->name, b->name);
    PR_COUNTERS_FIELDS(CMP)
    PR_COUNTERS_OPT_FIELDS(CMP)
#undef CMP
}

static inline void check_stats_list(const struct pr_msg_stat *a, uint32_t na,
                                    const struct pr_msg_stat *b, uint32_t nb)
{
    CHECK_EQ_U64(na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        STREQ(a[i].name, b[i].name);
        CHECK_EQ_U64(a[i].value, b[i].value);
    }
}

static inline void check_plan(const struct pr_msg_plan *a, const struct pr_msg_plan *b)
{
    CHECK(a->cmd == b->cmd && a->part == b->part && a->lead == b->lead);
    STREQ(a->workload, b->workload);
    CHECK_EQ_U64(a->n_opts, b->n_opts);
    for (uint32_t i = 0; i < a->n_opts && i < b->n_opts; i++) {
        STREQ(a->opts[i].name, b->opts[i].name);
        STREQ(a->opts[i].value, b->opts[i].value);
    }
    CHECK_EQ_U64(a->agent_index, b->agent_index);
    CHECK_EQ_U64(a->agent_count, b->agent_count);
    CHECK_EQ_U64(a->conns, b->conns);
    CHECK_EQ_U64(a->conn_first, b->conn_first);
    CHECK_EQ_U64(a->conns_total, b->conns_total);
    CHECK_EQ_U64(a->rate, b->rate);
    CHECK_EQ_U64(a->events, b->events);
    CHECK_EQ_U64(a->time_s, b->time_s);
    CHECK_EQ_U64(a->report_ms, b->report_ms);
    CHECK_EQ_U64(a->seed, b->seed);
    CHECK_EQ_U64(a->n_tables, b->n_tables);
    for (uint32_t i = 0; i < a->n_tables && i < b->n_tables; i++)
        CHECK(a->tables[i].table == b->tables[i].table &&
              a->tables[i].id_lo == b->tables[i].id_lo &&
              a->tables[i].id_hi == b->tables[i].id_hi &&
              a->tables[i].create_table == b->tables[i].create_table &&
              a->tables[i].create_index == b->tables[i].create_index);
    CHECK_EQ_U64(a->n_hosts, b->n_hosts);
    for (uint32_t i = 0; i < a->n_hosts && i < b->n_hosts; i++)
        STREQ(a->hosts[i], b->hosts[i]);
    CHECK_EQ_U64(a->n_ports, b->n_ports);
    for (uint32_t i = 0; i < a->n_ports && i < b->n_ports; i++)
        CHECK_EQ_U64(a->ports[i], b->ports[i]);
    CHECK_EQ_U64(a->n_sockets, b->n_sockets);
    for (uint32_t i = 0; i < a->n_sockets && i < b->n_sockets; i++)
        STREQ(a->sockets[i], b->sockets[i]);
    STREQ(a->user, b->user);
    STREQ(a->database, b->database);
    STREQ(a->password, b->password);
    CHECK_EQ_U64(a->plan_hash, b->plan_hash);
    CHECK(a->rate_mode == b->rate_mode);
}

static inline void check_kst(const struct pr_msg_kstat *a, uint32_t na,
                             const struct pr_msg_kstat *b, uint32_t nb)
{
    CHECK_EQ_U64(na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        CHECK_EQ_U64(a[i].count, b[i].count);
        CHECK_EQ_U64(a[i].errors, b[i].errors);
        CHECK_EQ_U64(a[i].late, b[i].late);
        /* decoded: frozen (lat NULL), equal once thawed */
        CHECK(b[i].lat == NULL && b[i].lat_frozen != NULL);
        if (b[i].lat_frozen == NULL)
            continue;
        pr_hist *h = pr_hist_new();
        pr_hist_thaw(h, b[i].lat_frozen);
        CHECK(pr_hist_equal(a[i].lat, h));
        pr_hist_destroy(&h);
    }
}

static inline void check_conns(const struct pr_msg_conn *a, uint32_t na,
                               const struct pr_msg_conn *b, uint32_t nb)
{
    CHECK_EQ_U64(na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        CHECK_EQ_U64(a[i].index, b[i].index);
        CHECK_EQ_U64(a[i].events, b[i].events);
        CHECK_EQ_U64(a[i].lat_us, b[i].lat_us);
    }
}

static inline void check_stats(const struct pr_msg_stats *a, const struct pr_msg_stats *b)
{
    CHECK_EQ_U64(a->k, b->k);
    check_counters(&a->ctr, &b->ctr);
    /* decoded: frozen (lat NULL), equal once thawed */
    CHECK(b->lat == NULL && b->lat_frozen != NULL);
    if (b->lat_frozen != NULL) {
        pr_hist *h = pr_hist_new();
        pr_hist_thaw(h, b->lat_frozen);
        CHECK(pr_hist_equal(a->lat, h));
        pr_hist_destroy(&h);
    }
    CHECK((a->svc == NULL) == (b->svc == NULL));
    if (a->svc != NULL && b->svc != NULL)
        CHECK(pr_hist_equal(a->svc, b->svc));
    CHECK(a->cpu_pct == b->cpu_pct);
    CHECK_EQ_U64(a->lag_max_us, b->lag_max_us);
    CHECK_EQ_U64(a->lag_p99_us, b->lag_p99_us);
    CHECK_EQ_U64(a->slip_us, b->slip_us);
    check_stats_list(a->srv, a->n_srv, b->srv, b->n_srv);
    CHECK_EQ_U64(a->rows, b->rows);
    check_kst(a->kst, a->n_kst, b->kst, b->n_kst);
    check_conns(a->conns, a->n_conns, b->conns, b->n_conns);
}

static inline void check_done(const struct pr_msg_done *a, const struct pr_msg_done *b)
{
    check_counters(&a->ctr, &b->ctr);
    CHECK(b->lat != NULL && pr_hist_equal(a->lat, b->lat));
    CHECK_EQ_U64(a->intervals, b->intervals);
    CHECK(a->status == b->status);
    STREQ(a->reason, b->reason);
    CHECK(a->start_skew_us == b->start_skew_us);
    CHECK(a->has_start_skew == b->has_start_skew);
    CHECK((a->svc == NULL) == (b->svc == NULL));
    if (a->svc != NULL && b->svc != NULL)
        CHECK(pr_hist_equal(a->svc, b->svc));
    check_stats_list(a->kinds, a->n_kinds, b->kinds, b->n_kinds);
    CHECK_EQ_U64(a->rows, b->rows);
    check_kst(a->kst, a->n_kst, b->kst, b->n_kst);
    check_conns(a->conns, a->n_conns, b->conns, b->n_conns);
}

static inline void check_body(const struct pr_msg *a, const struct pr_msg *b)
{
    switch (a->type) {
    case PR_MSG_HELLO:
        STREQ(a->u.hello.name, b->u.hello.name);
        STREQ(a->u.hello.version, b->u.hello.version);
        CHECK_EQ_U64(a->u.hello.cores, b->u.hello.cores);
        STREQ(a->u.hello.hostname, b->u.hello.hostname);
        STREQ(a->u.hello.region, b->u.hello.region);
        STREQ(a->u.hello.pubkey, b->u.hello.pubkey);
        break;
    case PR_MSG_PING:
        CHECK_EQ_U64(a->u.ping.id, b->u.ping.id);
        CHECK_EQ_U64(a->u.ping.clock_ns, b->u.ping.clock_ns);
        break;
    case PR_MSG_PONG:
        CHECK_EQ_U64(a->u.pong.id, b->u.pong.id);
        CHECK_EQ_U64(a->u.pong.ping_clock_ns, b->u.pong.ping_clock_ns);
        CHECK_EQ_U64(a->u.pong.peer_clock_ns, b->u.pong.peer_clock_ns);
        break;
    case PR_MSG_PLAN:
        check_plan(&a->u.plan, &b->u.plan);
        break;
    case PR_MSG_READY:
        CHECK_EQ_U64(a->u.ready.plan_hash, b->u.ready.plan_hash);
        CHECK_EQ_U64(a->u.ready.db_rtt_us, b->u.ready.db_rtt_us);
        CHECK(a->u.ready.has_db_rtt == b->u.ready.has_db_rtt);
        CHECK_EQ_U64(a->u.ready.conns, b->u.ready.conns);
        check_stats_list(a->u.ready.srv, a->u.ready.n_srv, b->u.ready.srv, b->u.ready.n_srv);
        CHECK_EQ_U64(a->u.ready.n_kinds, b->u.ready.n_kinds);
        for (uint32_t i = 0; i < a->u.ready.n_kinds && i < b->u.ready.n_kinds; i++)
            STREQ(a->u.ready.kinds[i], b->u.ready.kinds[i]);
        break;
    case PR_MSG_START:
        CHECK_EQ_U64(a->u.start.t0_ns, b->u.start.t0_ns);
        CHECK_EQ_U64(a->u.start.interval_ms, b->u.start.interval_ms);
        break;
    case PR_MSG_STATS:
        check_stats(&a->u.stats, &b->u.stats);
        break;
    case PR_MSG_DONE:
        check_done(&a->u.done, &b->u.done);
        break;
    case PR_MSG_ABORT:
        STREQ(a->u.abort.reason, b->u.abort.reason);
        CHECK(a->u.abort.now == b->u.abort.now);
        break;
    case PR_MSG_HEARTBEAT:
        CHECK(a->u.heartbeat.state == b->u.heartbeat.state);
        CHECK_EQ_U64(a->u.heartbeat.clock_ns, b->u.heartbeat.clock_ns);
        break;
    case PR_MSG_ERROR:
        CHECK(a->u.error.code == b->u.error.code && a->u.error.phase == b->u.error.phase);
        CHECK_EQ_U64(a->u.error.db_errno, b->u.error.db_errno);
        STREQ(a->u.error.sqlstate, b->u.error.sqlstate);
        STREQ(a->u.error.message, b->u.error.message);
        STREQ(a->u.error.stmt_kind, b->u.error.stmt_kind);
        break;
    case PR_MSG_BYE:
        STREQ(a->u.bye.reason, b->u.bye.reason);
        break;
    default:
        CHECK(!"unexpected type");
    }
}

static inline void check_same(const struct pr_msg *a, const struct pr_msg *b)
{
    CHECK(a->type == b->type);
    CHECK_EQ_U64(a->v, b->v);
    STREQ(a->run, b->run);
    CHECK_EQ_U64(a->seq, b->seq);
    if (a->type == b->type)
        check_body(a, b);
}

/* ---- Wire editing ---------------------------------------------------------- */

enum edit_op { ED_DROP, ED_SET, ED_ADD, ED_DUP };

struct edit {
    enum edit_op op;
    const char *path;          /* "tables.1.hi": map keys and array indexes */
    const msgpack_object *val; /* ED_SET / ED_ADD */
};

static inline bool comp_is(const msgpack_object *k, const char *comp, size_t n)
{
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
           memcmp(k->via.str.ptr, comp, n) == 0;
}

/* Pack o into pk with e applied at path p (relative to o). */
static inline void pack_edit(msgpack_packer *pk, const msgpack_object *o, const char *p,
                             const struct edit *e)
{
    size_t n = strcspn(p, ".");
    bool last = p[n] == '\0';
    const char *rest = last ? p + n : p + n + 1;

    if (o->type == MSGPACK_OBJECT_ARRAY) { /* last: ED_DROP element idx, ED_ADD appends */
        uint32_t idx = (uint32_t)strtoul(p, NULL, 10);
        bool drop = last && e->op == ED_DROP && idx < o->via.array.size;
        bool add = last && e->op == ED_ADD;
        msgpack_pack_array(pk, o->via.array.size - drop + add);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i == idx && !last)
                pack_edit(pk, &o->via.array.ptr[i], rest, e);
            else if (i == idx && e->op == ED_SET)
                msgpack_pack_object(pk, *e->val);
            else if (!(i == idx && drop))
                msgpack_pack_object(pk, o->via.array.ptr[i]);
        }
        if (add)
            msgpack_pack_object(pk, *e->val);
        return;
    }
    uint32_t size = o->via.map.size;
    size += last && e->op == ED_DROP ? (uint32_t)-1 : 0;
    size += last && (e->op == ED_ADD || e->op == ED_DUP) ? 1 : 0;
    msgpack_pack_map(pk, size);
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object_kv *kv = &o->via.map.ptr[i];
        bool hit = comp_is(&kv->key, p, n);
        if (hit && last && e->op == ED_DROP)
            continue;
        msgpack_pack_object(pk, kv->key);
        if (hit && !last)
            pack_edit(pk, &kv->val, rest, e);
        else if (hit && e->op == ED_SET)
            msgpack_pack_object(pk, *e->val);
        else
            msgpack_pack_object(pk, kv->val);
        if (hit && last && e->op == ED_DUP) {
            msgpack_pack_object(pk, kv->key);
            msgpack_pack_object(pk, kv->val);
        }
    }
    if (last && e->op == ED_ADD) {
        msgpack_pack_str_with_body(pk, p, n);
        msgpack_pack_object(pk, *e->val);
    }
}

/* Encode fill(t), apply edit, decode; returns the decode code. */
static inline int decode_edited(enum pr_msg_type t, const struct edit *e, struct pr_msg *out,
                                struct pr_error *err)
{
    struct pr_msg m;
    msgpack_sbuffer sb, sb2;
    msgpack_unpacked up;
    msgpack_packer pk;
    size_t off = 0;

    fill(&m, t);
    msgpack_sbuffer_init(&sb);
    msgpack_sbuffer_init(&sb2);
    CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
    msgpack_unpacked_init(&up);
    CHECK(msgpack_unpack_next(&up, sb.data, sb.size, &off) == MSGPACK_UNPACK_SUCCESS);
    msgpack_packer_init(&pk, &sb2, msgpack_sbuffer_write);
    pack_edit(&pk, &up.data, e->path, e);
    int rc = pr_msg_decode(out, sb2.data, sb2.size, err);
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
    msgpack_sbuffer_destroy(&sb2);
    return rc;
}

static inline int try_edit(enum pr_msg_type t, enum edit_op op, const char *path,
                           const msgpack_object *val, struct pr_error *err)
{
    struct pr_msg out;
    struct edit e = {op, path, val};
    int rc = decode_edited(t, &e, &out, err);
    pr_msg_clear(&out);
    return rc;
}

static inline msgpack_object obj_nil(void)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_NIL};
    return o;
}

static inline msgpack_object obj_uint(uint64_t v)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_POSITIVE_INTEGER};
    o.via.u64 = v;
    return o;
}

static inline msgpack_object obj_int(int64_t v)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_NEGATIVE_INTEGER};
    o.via.i64 = v;
    return o;
}

static inline msgpack_object obj_str(const char *s, size_t n)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_STR};
    o.via.str.ptr = s;
    o.via.str.size = (uint32_t)n;
    return o;
}

static inline msgpack_object obj_dbl(double d)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_FLOAT64};
    o.via.f64 = d;
    return o;
}

#define EXPECT_CODE(rc, want, err)                                                                 \
    CHECK_MSG((rc) == (want), "got %s (%s), want %s", pr_errname(rc), (err).msg, pr_errname(want))

static inline bool msg_mentions(const struct pr_error *err, const char *a, const char *b)
{
    return strstr(err->msg, a) != NULL && (b == NULL || strstr(err->msg, b) != NULL);
}

/* The histograms the filled messages point at, and the per-kind figures. */
static inline void msg_fixture_init(void)
{
    hist_lat = pr_hist_new();
    hist_svc = pr_hist_new();
    for (uint64_t v = 1; v < 5000000; v = v * 3 + 1)
        pr_hist_record(hist_lat, v, v % 7 + 1);
    pr_hist_record(hist_svc, 250, 1000);
    pr_hist_record(hist_svc, 99999, 1);
    test_kst[0] =
        (struct pr_msg_kstat){.count = 123456, .errors = 3, .late = 4321, .lat = hist_lat};
    test_kst[1] = (struct pr_msg_kstat){.count = 0, .errors = 0, .lat = hist_svc};
    test_kst[2] = (struct pr_msg_kstat){
        .count = 1ULL << 40, .errors = 1, .late = (1ULL << 40) - 1, .lat = hist_lat};
}

static inline void msg_fixture_fini(void)
{
    pr_hist_destroy(&hist_lat);
    pr_hist_destroy(&hist_svc);
}

#endif
