/* The stampede-agent daemon driven over real ZeroMQ by a coordinator
 * stand-in (harness.c), against the sandbox MariaDB: prepare (whole tables
 * and a table split over three plans), runs in both ps modes whose
 * interval STATS add up to DONE and whose statement counts equal the
 * server counters' deltas from READY.srv to the last STATS.srv, the
 * dead-man lease, and cleanup. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "refuse_proxy.h"
#include "testlib.h"

#define TABLE_SIZE 2000
/* Rows for the progress test: well over 2 s of loading (ASan build, 2
 * shared cores: 6 s for 300000 rows). */
#define PROGRESS_ROWS     400000
#define PROGRESS_ROWS_STR "400000"

/* Wall-clock bounds, generous for TSan/ASan builds on a shared 2-core box;
 * every check prints the measured figure. ABORT to DONE of a prepare (the
 * agent stops loading at its next batch; rows and status say whether it
 * did); end of a run to its tail STATS (the other session closes at 1 s;
 * below the agent's own 6 s settle bound, so waiting for the close and
 * giving up at the bound stay apart); and the 3 s lease to every DB
 * connection closed with a HELLO for a new coordinator (the loop waits
 * twice as long). */
#define ABORT_BUDGET_S  8.0
#define SETTLE_BUDGET_S 5.0
#define LEASE_BUDGET_S  10.0

static struct pr_msg_opt opts[] = {
    {"tables", "2"},
    {"table-size", "2000"},
};

static void plan_opts(struct pr_msg *m)
{
    m->u.plan.opts = opts;
    m->u.plan.n_opts = sizeof(opts) / sizeof(opts[0]);
}

/* *m: run RUN's PLAN of workload over conns connections for time_s
 * seconds, with opts (not sent). */
static void run_plan(struct harness *h, struct pr_msg *m, const char *run, const char *workload,
                     uint32_t conns, uint32_t time_s)
{
    snprintf(h->run, sizeof(h->run), "%s", run);
    h_plan_init(m, PR_CMD_RUN, workload);
    plan_opts(m);
    m->u.plan.conns = m->u.plan.conns_total = conns;
    m->u.plan.time_s = time_s;
}

/* Wait for READY echoing the hash of the PLAN sent last (or fail), return
 * 0 on READY, kept in *out when not NULL
 * (the caller clears it; on failure it is cleared). */
static int expect_ready(struct harness *h, struct pr_msg *out)
{
    struct pr_msg m;
    if (h_recv(h, &m, PR_MSG_NONE, 20000) != 0) {
        if (out)
            memset(out, 0, sizeof(*out));
        return -1;
    }
    int ok = m.type == PR_MSG_READY && m.u.ready.plan_hash == h->plan_hash;
    if (m.type == PR_MSG_ERROR)
        fprintf(stderr, "agent refused the plan: %s\n", m.u.error.message);
    if (ok && out)
        *out = m;
    else
        pr_msg_clear(&m);
    if (!ok && out)
        memset(out, 0, sizeof(*out));
    return ok ? 0 : -1;
}

/* START 200 ms from now; returns t0 (the harness's clock, which is the
 * agent's: same host). */
static uint64_t start_now(struct harness *h, uint32_t interval_ms)
{
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_START, NULL, 0);
    m.u.start.t0_ns = h_now_ns() + 200000000u;
    m.u.start.interval_ms = interval_ms;
    h_send(h, &m);
    return m.u.start.t0_ns;
}

/* One prepare PLAN over tables[0..n) with conns connections, run to its
 * DONE; 0 when it succeeded. */
static int prepare_plan(struct harness *h, const char *run, struct pr_msg_table *tables, uint32_t n,
                        uint32_t conns)
{
    struct pr_msg m, done;

    snprintf(h->run, sizeof(h->run), "%s", run);
    h_plan_init(&m, PR_CMD_PREPARE, "oltp_read_write");
    plan_opts(&m);
    m.u.plan.conns = m.u.plan.conns_total = conns;
    m.u.plan.tables = tables;
    m.u.plan.n_tables = n;
    h_send(h, &m);
    if (expect_ready(h, NULL) != 0)
        return -1;
    start_now(h, 1000);
    if (h_recv(h, &done, PR_MSG_DONE, 60000) != 0)
        return -1;
    int rc = done.u.done.status;
    if (rc != 0)
        fprintf(stderr, "prepare %s failed: %s\n", run, done.u.done.reason);
    pr_msg_clear(&done);
    return rc;
}

static void test_prepare(struct harness *h)
{
    struct pr_msg_table tables[2] = {{1, 1, TABLE_SIZE, true, true},
                                     {2, 1, TABLE_SIZE, true, true}};

    /* Other mysql tests share the sandbox: start from no tables. */
    h_query_int(h, "DROP TABLE IF EXISTS sbtest.sbtest1, sbtest.sbtest2");
    CHECK(prepare_plan(h, "prepare-1", tables, 2, 2) == 0);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM sbtest.sbtest1") == TABLE_SIZE);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM sbtest.sbtest2") == TABLE_SIZE);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE "
                         "TABLE_SCHEMA='sbtest' AND INDEX_NAME IN ('k_1','k_2')") == 2);
}

/* One table prepared the way a coordinator splits it over pieces, in three
 * plans: create only (empty id range), two pieces loading [1..k] and
 * [k+1..N] in parallel, then the index only (empty range). sbtest1 is
 * rebuilt so; the run tests below use it. */
static void test_prepare_split(struct harness *h)
{
    const uint64_t k = 700;
    struct pr_msg_table create[] = {{1, 1, 0, true, false}};
    struct pr_msg_table load[] = {{1, 1, k, false, false}, {1, k + 1, TABLE_SIZE, false, false}};
    struct pr_msg_table index[] = {{1, TABLE_SIZE + 1, TABLE_SIZE, false, true}};
    const char *show_k1 = "SHOW INDEX FROM sbtest.sbtest1 WHERE Key_name = 'k_1'";

    h_query_int(h, "DROP TABLE IF EXISTS sbtest.sbtest1");
    CHECK(prepare_plan(h, "split-create", create, 1, 1) == 0);
    CHECK(h_query_rows(h, "SHOW TABLES FROM sbtest LIKE 'sbtest1'") == 1);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM sbtest.sbtest1") == 0);
    CHECK(h_query_rows(h, show_k1) == 0);
    CHECK(prepare_plan(h, "split-load", load, 2, 2) == 0);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM sbtest.sbtest1") == TABLE_SIZE);
    CHECK(h_query_int(h, "SELECT COUNT(DISTINCT id) FROM sbtest.sbtest1") == TABLE_SIZE);
    CHECK(h_query_int(h, "SELECT MIN(id) FROM sbtest.sbtest1") == 1);
    CHECK(h_query_int(h, "SELECT MAX(id) FROM sbtest.sbtest1") == TABLE_SIZE);
    CHECK(h_query_rows(h, show_k1) == 0);
    CHECK(prepare_plan(h, "split-index", index, 1, 1) == 0);
    CHECK(h_query_rows(h, show_k1) == 1);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM sbtest.sbtest1") == TABLE_SIZE);
}

/* Drops sbtest3, then sends run RUN's PREPARE of it alone (PROGRESS_ROWS
 * rows) and checks the agent's READY. */
static void send_prepare3(struct harness *h, struct pr_msg *m, const char *run)
{
    static struct pr_msg_opt o[] = {{"tables", "3"}, {"table-size", PROGRESS_ROWS_STR}};
    static struct pr_msg_table t3[] = {{3, 1, PROGRESS_ROWS, true, true}};

    h_query_int(h, "DROP TABLE IF EXISTS sbtest.sbtest3");
    strcpy(h->run, run);
    h_plan_init(m, PR_CMD_PREPARE, "oltp_read_write");
    m->u.plan.opts = o;
    m->u.plan.n_opts = 2;
    m->u.plan.tables = t3;
    m->u.plan.n_tables = 1;
    h_send(h, m);
    CHECK(expect_ready(h, NULL) == 0);
}

/* A prepare long enough to span several 1 s intervals reports its progress:
 * STATS at every boundary with the INSERTs (writes) and rows of the
 * interval, adding up to DONE's totals, the table's rows and the server's
 * Com_insert delta. */
static void test_prepare_progress(struct harness *h)
{
    struct pr_msg m;
    struct pr_counters sum = {0};
    uint64_t rows = 0, n_stats = 0, n_rows = 0;

    send_prepare3(h, &m, "prepare-progress");
    uint64_t ins0 = h_status(h, "Com_insert");
    uint64_t t0 = h_now_ns();
    start_now(h, 1000);
    for (;;) {
        if (h_recv(h, &m, PR_MSG_NONE, 120000) != 0) {
            CHECK_MSG(0, "no STATS/DONE within 120 s");
            return;
        }
        if (m.type == PR_MSG_DONE)
            break;
        if (m.type == PR_MSG_STATS) {
            CHECK_EQ_U64(m.u.stats.k, n_stats);
            printf("prepare STATS(%llu) at %.2f s: %llu INSERTs, %llu rows\n",
                   (unsigned long long)m.u.stats.k, (double)(h_now_ns() - t0) / 1e9,
                   (unsigned long long)m.u.stats.ctr.writes, (unsigned long long)m.u.stats.rows);
            n_stats++;
            n_rows += m.u.stats.rows > 0;
            rows += m.u.stats.rows;
            pr_counters_add(&sum, &m.u.stats.ctr);
            CHECK(m.u.stats.ctr.transactions == 0 && m.u.stats.ctr.reads == 0);
            CHECK((m.u.stats.rows > 0) == (m.u.stats.ctr.writes > 0));
        }
        pr_msg_clear(&m);
    }
    double secs = (double)(h_now_ns() - t0) / 1e9;
    uint64_t ins1 = h_status(h, "Com_insert");
    struct pr_msg_done *d = &m.u.done;
    CHECK_MSG(d->status == 0, "prepare failed: %s", d->reason);
    printf("prepare: %llu rows in %.2f s, %llu STATS (%llu with rows), %llu INSERTs\n",
           (unsigned long long)d->rows, secs, (unsigned long long)n_stats,
           (unsigned long long)n_rows, (unsigned long long)d->ctr.writes);
    CHECK_MSG(secs > 2.0, "the prepare took only %.2f s: raise PROGRESS_ROWS", secs);
    CHECK(n_rows >= 2);
    CHECK_EQ_U64(d->intervals, n_stats);
    CHECK_EQ_U64(rows, PROGRESS_ROWS);
    CHECK_EQ_U64(d->rows, PROGRESS_ROWS);
    CHECK_EQ_U64(sum.writes, d->ctr.writes);
    CHECK_EQ_U64(sum.other, d->ctr.other);
    CHECK_EQ_U64(d->ctr.other, 2); /* CREATE TABLE, CREATE INDEX */
    CHECK_EQ_U64(ins1 - ins0, d->ctr.writes);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM sbtest.sbtest3") == PROGRESS_ROWS);
    pr_msg_clear(&m);
    h_query_int(h, "DROP TABLE IF EXISTS sbtest.sbtest3");
}

/* ABORT in the middle of a prepare: the agent stops loading and its DONE
 * says the prepare did not finish (never a success with half a table). */
static void test_prepare_abort(struct harness *h)
{
    struct pr_msg m;

    send_prepare3(h, &m, "prepare-abort");
    start_now(h, 500);
    /* Abort once rows are going in: on a loaded box the first STATS may
     * come before the first insert. */
    uint64_t rows = 0;
    for (int i = 0; i < 20 && rows == 0; i++) {
        if (h_recv(h, &m, PR_MSG_STATS, 10000) != 0)
            break;
        rows = m.u.stats.rows;
        pr_msg_clear(&m);
    }
    CHECK_MSG(rows > 0, "no STATS with rows in 20 intervals");
    pr_msg_init(&m, PR_MSG_ABORT, NULL, 0);
    m.u.abort.reason = "test";
    h_send(h, &m);
    uint64_t t_abort = h_now_ns();
    CHECK(h_recv(h, &m, PR_MSG_DONE, 10000) == 0);
    double secs = (double)(h_now_ns() - t_abort) / 1e9;
    printf("prepare abort: DONE %.2f s after ABORT: code %d, %llu rows: %s\n", secs,
           m.u.done.status, (unsigned long long)m.u.done.rows, m.u.done.reason);
    CHECK(m.u.done.status == -ECANCELED);
    CHECK(strstr(m.u.done.reason, "stopped before it finished") != NULL);
    CHECK(m.u.done.rows > 0 && m.u.done.rows < PROGRESS_ROWS);
    CHECK_MSG(secs < ABORT_BUDGET_S, "DONE %.2f s after ABORT (budget %.0f s)", secs,
              ABORT_BUDGET_S);
    pr_msg_clear(&m);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM sbtest.sbtest3") < PROGRESS_ROWS);
    h_query_int(h, "DROP TABLE IF EXISTS sbtest.sbtest3");
}

/* A server counter in a srv sample, or UINT64_MAX when absent. */
static uint64_t srv_get(const struct pr_msg_stat *srv, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(srv[i].name, name) == 0)
            return srv[i].value;
    return UINT64_MAX;
}

/* The cross-check sums of a srv sample (pr_msg.h, READY). */
struct srv_sums {
    uint64_t com;  /* Com_select + insert + update + delete + begin + commit */
    uint64_t exec; /* Com_stmt_execute */
};

static int srv_sums(const struct pr_msg_stat *srv, uint32_t n, struct srv_sums *out)
{
    static const char *const com[] = {"Com_select", "Com_insert", "Com_update",
                                      "Com_delete", "Com_begin",  "Com_commit"};
    out->com = 0;
    for (size_t i = 0; i < sizeof(com) / sizeof(com[0]); i++) {
        uint64_t v = srv_get(srv, n, com[i]);
        if (v == UINT64_MAX)
            return -1;
        out->com += v;
    }
    out->exec = srv_get(srv, n, "Com_stmt_execute");
    return out->exec == UINT64_MAX ? -1 : 0;
}

/* A 3 s run on 4 connections (2 loops) of the lead agent: the STATS add up
 * to DONE, and the server counters' deltas from READY.srv to the last
 * STATS.srv equal the statements the agent counted (pr_msg.h, READY). */
static void test_run_counts(struct harness *h, bool ps)
{
    struct pr_msg m, ready;
    struct pr_counters sum = {0};
    struct srv_sums base = {0}, end = {0};
    uint64_t hist_n = 0, n_stats = 0;
    pr_hist *lat_sum = pr_hist_new();
    struct pr_msg_opt o[] = {opts[0], opts[1], {"db-ps-mode", ps ? "auto" : "disable"}};

    snprintf(h->run, sizeof(h->run), "run-%s", ps ? "ps" : "text");
    h_plan_init(&m, PR_CMD_RUN, "oltp_read_write");
    m.u.plan.opts = o;
    m.u.plan.n_opts = 3;
    m.u.plan.conns = m.u.plan.conns_total = 4;
    m.u.plan.time_s = 3;
    h_send(h, &m);
    CHECK(expect_ready(h, &ready) == 0);
    CHECK_EQ_U64(ready.u.ready.conns, 4);
    CHECK(ready.u.ready.has_db_rtt && ready.u.ready.db_rtt_us > 0);
    CHECK_MSG(ready.u.ready.n_srv > 0 &&
                  srv_sums(ready.u.ready.srv, ready.u.ready.n_srv, &base) == 0,
              "READY from the lead carries no usable srv (%u counters)", ready.u.ready.n_srv);
    pr_msg_clear(&ready);
    uint64_t exec0 = h_status(h, "Com_stmt_execute");
    start_now(h, 1000);
    bool have_end = false;
    for (;;) {
        if (h_recv(h, &m, PR_MSG_NONE, 10000) != 0) {
            CHECK_MSG(0, "no STATS/DONE within 10 s");
            return;
        }
        if (m.type == PR_MSG_STATS) {
            CHECK_EQ_U64(m.u.stats.k, n_stats);
            n_stats++;
            pr_counters_add(&sum, &m.u.stats.ctr);
            hist_n += pr_hist_frozen_count(m.u.stats.lat_frozen); /* decoded frozen */
            pr_hist_add_frozen(lat_sum, m.u.stats.lat_frozen);
            have_end = srv_sums(m.u.stats.srv, m.u.stats.n_srv, &end) == 0;
        } else if (m.type == PR_MSG_DONE) {
            break;
        }
        pr_msg_clear(&m);
    }
    struct pr_counters *d = &m.u.done.ctr;
    uint64_t exec1 = h_status(h, "Com_stmt_execute");
    CHECK_MSG(m.u.done.status == 0, "run failed: %s", m.u.done.reason);
    CHECK(n_stats >= 3);
    CHECK(d->transactions > 0);
    CHECK_EQ_U64(sum.transactions, d->transactions);
    CHECK_EQ_U64(sum.reads, d->reads);
    CHECK_EQ_U64(sum.writes, d->writes);
    CHECK_EQ_U64(sum.other, d->other);
    CHECK_EQ_U64(sum.errors, d->errors);
    CHECK_EQ_U64(hist_n, d->transactions);
    CHECK_EQ_U64(pr_hist_count(m.u.done.lat), d->transactions);
    /* DONE's latency is counted apart from the intervals' (issue 9 item 16):
     * equal, bucket by bucket, only when no interval was lost or doubled. */
    CHECK(pr_hist_equal(lat_sum, m.u.done.lat));
    pr_hist_destroy(&lat_sum);
    CHECK(m.u.done.has_start_skew);
    /* Every statement sent is counted once: as read/write/other, or as an
     * ignored error (then its event restarts). Exact without reconnects. */
    uint64_t stmts = pr_counters_queries(d) + d->errors;
    CHECK_EQ_U64(d->reconnects, 0);
    CHECK_MSG(have_end, "the last STATS carries no usable srv sample");
    printf("run %s: %llu transactions, %llu queries, %llu ignored errors; server: Com_* %llu, "
           "Com_stmt_execute %llu (seen from the harness %llu)\n",
           ps ? "ps" : "text", (unsigned long long)d->transactions,
           (unsigned long long)pr_counters_queries(d), (unsigned long long)d->errors,
           (unsigned long long)(end.com - base.com), (unsigned long long)(end.exec - base.exec),
           (unsigned long long)(exec1 - exec0));
    CHECK_EQ_U64(end.com - base.com, stmts);
    CHECK_EQ_U64(end.exec - base.exec, ps ? stmts : 0);
    CHECK_EQ_U64(exec1 - exec0, ps ? stmts : 0);
    pr_msg_clear(&m);
}

/* Item 5 and 10 of issue 9. A PLAN whose hash does not match its
 * contents (a wrong hash, or contents changed after hashing) is refused
 * with an ERROR (phase plan) naming the hash, and nothing connects. A
 * good plan then gets READY with the connections really open (the
 * server sees them plus the lead's probe); stopped before START, its DONE
 * has no start skew (unknown, not 0). */
static void test_plan_checks(struct harness *h)
{
    struct pr_msg m;
    uint64_t good = 0;

    run_plan(h, &m, "run-tampered", "oltp_read_write", 3, 30);
    CHECK(pr_msg_plan_hash(&m.u.plan, &good) == 0);
    /* The sessions of the test before are gone first: what is open after a
     * refusal was opened for it. */
    CHECK_EQ_U64(h_sbtest_conns_settle(h, 10000), 0);
    for (int tamper = 0; tamper < 2; tamper++) {
        if (tamper == 0) {
            m.u.plan.plan_hash = good ^ 0x100; /* a wrong hash */
        } else {
            m.u.plan.plan_hash = good; /* right hash, contents changed after */
            m.u.plan.conns = m.u.plan.conns_total = 5;
        }
        h_send(h, &m);
        struct pr_msg r;
        CHECK(h_recv(h, &r, PR_MSG_NONE, 10000) == 0);
        CHECK_MSG(r.type == PR_MSG_ERROR, "tampered plan %d answered with %s", tamper,
                  pr_msg_type_name(r.type));
        if (r.type == PR_MSG_ERROR) {
            printf("tampered plan %d: %s\n", tamper, r.u.error.message);
            CHECK(r.u.error.phase == PR_PHASE_PLAN);
            CHECK(strstr(r.u.error.message, "hash") != NULL);
        }
        pr_msg_clear(&r);
        CHECK_EQ_U64(h_sbtest_conns(h), 0);
    }
    /* The agent is not left busy: a good plan goes through. */
    run_plan(h, &m, "run-checked", "oltp_read_write", 3, 30);
    h_send(h, &m);
    struct pr_msg ready;
    CHECK(expect_ready(h, &ready) == 0);
    int open = h_sbtest_conns(h);
    printf("READY.conns %u, sessions on the server %d (with the probe)\n", ready.u.ready.conns,
           open);
    CHECK_EQ_U64(ready.u.ready.conns, 3);
    CHECK_EQ_U64((uint64_t)open, (uint64_t)ready.u.ready.conns + 1);
    pr_msg_clear(&ready);
    pr_msg_init(&m, PR_MSG_ABORT, NULL, 0);
    m.u.abort.reason = (char *)"test: stop before START";
    h_send(h, &m);
    CHECK(h_recv(h, &m, PR_MSG_DONE, 20000) == 0);
    CHECK_MSG(!m.u.done.has_start_skew, "DONE of a run that never started has skew %lld us",
              (long long)m.u.done.start_skew_us);
    CHECK_EQ_U64(m.u.done.ctr.transactions, 0);
    pr_msg_clear(&m);
}

/* Item 10 of issue 9: a server that answers every ping with an error (a
 * proxy plays it): the DB round trip is unknown, so READY carries none
 * instead of 0, and the run still sets up. */
static void test_rtt_unknown(struct harness *h)
{
    refuse_proxy *px =
        refuse_proxy_start(getenv("STAMPEDE_TEST_MYSQL_HOST"),
                           (uint16_t)atoi(getenv("STAMPEDE_TEST_MYSQL_PORT")), NULL, 0);
    CHECK(px != NULL);
    if (px == NULL)
        return;
    refuse_proxy_refuse_pings(px, true);
    static uint16_t port;
    port = refuse_proxy_port(px);
    struct pr_msg m, ready;
    run_plan(h, &m, "run-no-rtt", "oltp_point_select", 2, 30);
    m.u.plan.ports = &port;
    h_send(h, &m);
    CHECK(expect_ready(h, &ready) == 0);
    printf("pings refused %llu; READY has rtt: %d (%llu us)\n",
           (unsigned long long)refuse_proxy_pings_refused(px), ready.u.ready.has_db_rtt,
           (unsigned long long)ready.u.ready.db_rtt_us);
    CHECK(refuse_proxy_pings_refused(px) >= 1);
    CHECK_MSG(!ready.u.ready.has_db_rtt, "READY says rtt %llu us though no ping was answered",
              (unsigned long long)ready.u.ready.db_rtt_us);
    CHECK_EQ_U64(ready.u.ready.conns, 2);
    pr_msg_clear(&ready);
    pr_msg_init(&m, PR_MSG_ABORT, NULL, 0);
    m.u.abort.reason = (char *)"test: done";
    h_send(h, &m);
    CHECK(h_recv(h, &m, PR_MSG_DONE, 20000) == 0);
    pr_msg_clear(&m);
    refuse_proxy_stop(&px);
}

/* Another session of the run's user is still connected when the lead's run
 * ends (as another agent's still finishing would be): the lead's tail STATS,
 * whose server sample must count every agent's statements, waits until that
 * session has gone (closed here 1 s after the end), well before its 6 s
 * bound. */
static void test_tail_settles(struct harness *h)
{
    struct pr_msg m;
    MYSQL *other = mysql_init(NULL);
    const char *host = getenv("STAMPEDE_TEST_MYSQL_HOST");
    unsigned port = (unsigned)atoi(getenv("STAMPEDE_TEST_MYSQL_PORT"));

    if (!mysql_real_connect(other, host, getenv("STAMPEDE_TEST_MYSQL_USER"),
                            getenv("STAMPEDE_TEST_MYSQL_PASSWORD"), NULL, port, NULL, 0)) {
        CHECK_MSG(0, "cannot connect as the test user: %s", mysql_error(other));
        mysql_close(other);
        return;
    }
    run_plan(h, &m, "run-settle", "oltp_point_select", 2, 2);
    h_send(h, &m);
    CHECK(expect_ready(h, NULL) == 0);
    uint64_t t_end = start_now(h, 1000) + 2000000000u, t_close = 0, t_tail = 0;
    for (;;) {
        if (other && h_now_ns() >= t_end + 1000000000u) {
            mysql_close(other);
            other = NULL;
            t_close = h_now_ns();
        }
        int rc = h_recv(h, &m, PR_MSG_NONE, 100);
        if (rc != 0 && h_now_ns() > t_end + 15000000000u) {
            CHECK_MSG(0, "no DONE within 15 s of the end");
            break;
        }
        if (rc != 0)
            continue;
        if (m.type == PR_MSG_STATS)
            t_tail = h_now_ns();
        bool done = m.type == PR_MSG_DONE;
        if (done)
            CHECK_MSG(m.u.done.status == 0, "run failed: %s", m.u.done.reason);
        pr_msg_clear(&m);
        if (done)
            break;
    }
    if (other)
        mysql_close(other);
    printf("settle: other session closed %.2f s after the end, tail STATS %.2f s after\n",
           (double)(t_close - t_end) / 1e9, (double)(t_tail - t_end) / 1e9);
    CHECK(t_close > 0 && t_tail >= t_close);
    CHECK_MSG(t_tail < t_end + (uint64_t)(SETTLE_BUDGET_S * 1e9),
              "tail STATS %.2f s after the end (budget %.0f s)", (double)(t_tail - t_end) / 1e9,
              SETTLE_BUDGET_S);
}

/* Stop heartbeats mid-run: within 3 s + slack the agent must close every DB
 * connection (seen from the server's processlist). */
static void test_lease(struct harness *h)
{
    struct pr_msg m;

    run_plan(h, &m, "run-lease", "oltp_read_write", 4, 60);
    h_send(h, &m);
    CHECK(expect_ready(h, NULL) == 0);
    start_now(h, 1000);
    CHECK(h_recv(h, &m, PR_MSG_STATS, 5000) == 0);
    pr_msg_clear(&m);
    CHECK(h_sbtest_conns(h) >= 4);
    h->beats = false;
    uint64_t t_beat = h->next_beat_ns - 1000000000u; /* the last heartbeat we sent */
    int conns = -1;
    bool hello = false;
    while (h_now_ns() - t_beat < (uint64_t)(LEASE_BUDGET_S * 2e9) && !(conns == 0 && hello)) {
        /* After the lease the agent looks for a coordinator again. */
        if (h_recv(h, &m, PR_MSG_HELLO, 100) == 0) {
            hello = true;
            pr_msg_clear(&m);
        }
        if (conns != 0 && (conns = h_sbtest_conns(h)) == 0)
            printf("lease: DB connections closed %.2f s after the last heartbeat\n",
                   (double)(h_now_ns() - t_beat) / 1e9);
    }
    double secs = (double)(h_now_ns() - t_beat) / 1e9;
    CHECK_MSG(conns == 0, "%d connections still open after %.1f s", conns, secs);
    CHECK_MSG(hello, "no HELLO after the lease expired");
    CHECK_MSG(secs <= LEASE_BUDGET_S,
              "lease: closed and looking again %.2f s after the last "
              "heartbeat (lease 3 s, budget %.0f s)",
              secs, LEASE_BUDGET_S);
    h->beats = true;
}

/* Sends PLAN *m, checks READY, starts it and checks its DONE (within 20 s)
 * says it succeeded. */
static void run_to_done(struct harness *h, struct pr_msg *m)
{
    h_send(h, m);
    CHECK(expect_ready(h, NULL) == 0);
    start_now(h, 1000);
    CHECK(h_recv(h, m, PR_MSG_DONE, 20000) == 0);
    CHECK(m->u.done.status == 0);
    pr_msg_clear(m);
}

static void test_cleanup(struct harness *h)
{
    struct pr_msg m;

    strcpy(h->run, "cleanup-1");
    h_plan_init(&m, PR_CMD_CLEANUP, "oltp_read_write");
    plan_opts(&m);
    run_to_done(h, &m);
    CHECK(h_query_int(h, "SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                         "TABLE_SCHEMA='sbtest' AND TABLE_NAME LIKE 'sbtest%'") == 0);
}

/* bulk_insert's tables are sbtest<global connection index + 1>: its
 * cleanup drops sbtest1..--threads (the plan's conns_total), as sysbench's,
 * not sbtest1..--tables. */
static void test_cleanup_bulk(struct harness *h)
{
    struct pr_msg m;
    char q[128];

    for (int t = 1; t <= 4; t++) {
        snprintf(q, sizeof q, "CREATE TABLE IF NOT EXISTS sbtest.sbtest%d (id INT PRIMARY KEY)", t);
        h_query_int(h, q);
    }
    strcpy(h->run, "cleanup-bulk");
    h_plan_init(&m, PR_CMD_CLEANUP, "bulk_insert");
    m.u.plan.conns = m.u.plan.conns_total = 3; /* --threads=3, --tables=1 (default) */
    run_to_done(h, &m);
    CHECK(h_query_rows(h, "SHOW TABLES FROM sbtest LIKE 'sbtest_'") == 1); /* sbtest4 */
    CHECK(h_query_rows(h, "SHOW TABLES FROM sbtest LIKE 'sbtest4'") == 1);
    h_query_int(h, "DROP TABLE sbtest.sbtest4");
}

int main(int argc, char **argv)
{
    struct harness h;
    const char *const extra[] = {"--workers=2", NULL};

    if (getenv("STAMPEDE_TEST_MYSQL_HOST") == NULL)
        TEST_SKIP("STAMPEDE_TEST_MYSQL_* not set (tests/run sets them)");
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH-TO-stampede-agent\n", argv[0]);
        return 2;
    }
    if (h_start(&h, argv[1], extra) != 0) {
        h_stop(&h);
        return 1;
    }
    CHECK(strcmp(h.hello.u.hello.name, "harness-agent") == 0);
    test_prepare(&h);
    test_prepare_split(&h);
    test_prepare_progress(&h);
    test_prepare_abort(&h);
    test_plan_checks(&h);
    test_rtt_unknown(&h);
    test_run_counts(&h, true);
    test_run_counts(&h, false);
    test_tail_settles(&h);
    test_lease(&h);
    test_cleanup(&h);
    test_cleanup_bulk(&h);
    /* 0 after SIGTERM; not 66, which would mean TSan reported a race. */
    int rc = h_stop(&h);
    CHECK_MSG(rc == 0, "the agent exited with status %d", rc);
    return TEST_END();
}
