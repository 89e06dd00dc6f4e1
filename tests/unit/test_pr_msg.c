/* test_pr_msg: the control-message codec (proto/msg/pr_msg.h).
 *
 * Round trips of every type with every field set, then the decoder's
 * rejections, each checked for its code and, where it matters, for the
 * message naming the type and key: missing keys, wrong types, ranges,
 * sizes, duplicates, version and type, truncation at every length, trailing
 * bytes, hostile msgpack headers and random garbage. Wire variants are made
 * by re-packing a decoded msgpack object with one edit at a path, so every
 * case starts from a valid message and breaks exactly one thing. */
#include <math.h>
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
static struct pr_msg_kstat test_kst[3]; /* lat filled in main: hist_lat, hist_svc, hist_lat */

static void fill_counters(struct pr_counters *c, uint64_t base)
{
    uint64_t v = base;
#define FILL(name) c->name = v++;
    PR_COUNTERS_FIELDS(FILL)
    PR_COUNTERS_OPT_FIELDS(FILL)
#undef FILL
}

static void fill_plan(struct pr_msg_plan *p)
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

static void fill_stats(struct pr_msg_stats *st)
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

static void fill_done(struct pr_msg_done *dn)
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
static void fill(struct pr_msg *m, enum pr_msg_type t)
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

static void check_counters(const struct pr_counters *a, const struct pr_counters *b)
{
#define CMP(name) CHECK_EQ_U64(a->name, b->name);
    PR_COUNTERS_FIELDS(CMP)
    PR_COUNTERS_OPT_FIELDS(CMP)
#undef CMP
}

static void check_stats_list(const struct pr_msg_stat *a, uint32_t na, const struct pr_msg_stat *b,
                             uint32_t nb)
{
    CHECK_EQ_U64(na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        STREQ(a[i].name, b[i].name);
        CHECK_EQ_U64(a[i].value, b[i].value);
    }
}

static void check_plan(const struct pr_msg_plan *a, const struct pr_msg_plan *b)
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

static void check_kst(const struct pr_msg_kstat *a, uint32_t na, const struct pr_msg_kstat *b,
                      uint32_t nb)
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

static void check_conns(const struct pr_msg_conn *a, uint32_t na, const struct pr_msg_conn *b,
                        uint32_t nb)
{
    CHECK_EQ_U64(na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        CHECK_EQ_U64(a[i].index, b[i].index);
        CHECK_EQ_U64(a[i].events, b[i].events);
        CHECK_EQ_U64(a[i].lat_us, b[i].lat_us);
    }
}

static void check_stats(const struct pr_msg_stats *a, const struct pr_msg_stats *b)
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

static void check_done(const struct pr_msg_done *a, const struct pr_msg_done *b)
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

static void check_body(const struct pr_msg *a, const struct pr_msg *b)
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

static void check_same(const struct pr_msg *a, const struct pr_msg *b)
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

static bool comp_is(const msgpack_object *k, const char *comp, size_t n)
{
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
           memcmp(k->via.str.ptr, comp, n) == 0;
}

/* Pack o into pk with e applied at path p (relative to o). */
static void pack_edit(msgpack_packer *pk, const msgpack_object *o, const char *p,
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
static int decode_edited(enum pr_msg_type t, const struct edit *e, struct pr_msg *out,
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

static int try_edit(enum pr_msg_type t, enum edit_op op, const char *path,
                    const msgpack_object *val, struct pr_error *err)
{
    struct pr_msg out;
    struct edit e = {op, path, val};
    int rc = decode_edited(t, &e, &out, err);
    pr_msg_clear(&out);
    return rc;
}

static msgpack_object obj_nil(void)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_NIL};
    return o;
}

static msgpack_object obj_uint(uint64_t v)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_POSITIVE_INTEGER};
    o.via.u64 = v;
    return o;
}

static msgpack_object obj_int(int64_t v)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_NEGATIVE_INTEGER};
    o.via.i64 = v;
    return o;
}

static msgpack_object obj_str(const char *s, size_t n)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_STR};
    o.via.str.ptr = s;
    o.via.str.size = (uint32_t)n;
    return o;
}

static msgpack_object obj_dbl(double d)
{
    msgpack_object o = {.type = MSGPACK_OBJECT_FLOAT64};
    o.via.f64 = d;
    return o;
}

#define EXPECT_CODE(rc, want, err)                                                                 \
    CHECK_MSG((rc) == (want), "got %s (%s), want %s", pr_errname(rc), (err).msg, pr_errname(want))

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

static bool msg_mentions(const struct pr_error *err, const char *a, const char *b)
{
    return strstr(err->msg, a) != NULL && (b == NULL || strstr(err->msg, b) != NULL);
}

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

    test_roundtrip();
    test_kst_codec();
    test_minimal();
    test_missing_keys();
    test_wrong_types();
    test_ranges();
    test_sizes();
    test_version_type_dup();
    test_framing();
    test_hostile();
    test_pre_decode_limits();
    test_garbage();
    test_seq_track();
    test_plan_hash();
    test_names();

    pr_hist_destroy(&hist_lat);
    pr_hist_destroy(&hist_svc);
    return TEST_END();
}
