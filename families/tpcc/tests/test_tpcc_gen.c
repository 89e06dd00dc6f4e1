/* test_tpcc_gen: the tpcc family's generator (families/tpcc/agent/ag_tc_gen) through
 * the real engine against a real MariaDB holding a tpcc_load data set of
 * one warehouse. Driven by tpcc_gen.py, which builds tpcc-mysql, loads the
 * data with its own tpcc_load, and reads the general log (the retried
 * statements, the shapes vs tpcc_start). Exit 77 without a server.
 *
 * Usage: test_tpcc_gen CASE [ARGS]; the database is STAMPEDE_TEST_TPCC_DB.
 *   run EVENTS      2 connections, EVENTS transactions: every type commits,
 *                   New-Order's 1% rolls back (nothing of it stays), the kinds
 *                   match the server's counters (Com_commit + Com_rollback,
 *                   sum(d_next_o_id), history and new_orders rows) and
 *                   consistency conditions 1-4 hold afterwards
 *   retry MAX HOLD_MS EVENTS
 *                   1 connection, --max-retries=MAX, innodb_lock_wait_timeout
 *                   1 s (set by the caller), while another connection holds warehouse 1's
 *                   district rows for HOLD_MS: New-Order and Payment wait,
 *                   fail with 1205 and are retried (ROLLBACK, the same
 *                   inputs: tpcc_gen.py compares them in the general log);
 *                   MAX large: every event completes; MAX 2: some fail
 *   shapes EVENTS   1 connection, EVENTS transactions (general log: the
 *                   caller compares them with tpcc_start's)
 *   rows            AG_WANT_ROWS through a real connection, prepared and text:
 *                   every row's first column, truncation past
 *                   AG_RESULT_MAX_ROWS, the first row kept
 *   bench CONNS SECONDS W [WORKERS [dry]]
 *                   not a check: client CPU per transaction, to compare with
 *                   tpcc_start's (run both pinned with taskset); "dry":
 *                   --mysql-dry-run, the generator and engine without a server
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mysql.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#include <uv.h>

#include "ag_engine.h"
#include "ag_registry.h"
#include "pr_tc_opts.h"
#include "tdb.h"
#include "testlib.h"

static struct tdb_env env;
static MYSQL *db;

struct run_result {
    struct pr_msg_kstat kst[PR_TC_K_COUNT_];
    struct ag_engine_stats st;
};

/* Run EVENTS tpcc events on conns connections with --max-retries. */
static const char *warehouses = "1";
static uint64_t time_ms;     /* bench: run this long instead of an event budget */
static uint32_t workers = 1; /* bench: engine loops */
static bool dry_run;         /* bench: --mysql-dry-run (no server round trips) */

static void run_engine(uint32_t conns, uint64_t events, const char *max_retries,
                       struct run_result *rr)
{
    struct ag_kv kv[] = {{"warehouses", warehouses},
                         {"max-retries", max_retries},
                         {"mysql-dry-run", dry_run ? "on" : "off"}};
    struct pr_error perr = {0};
    struct ag_engine_error err = {0};
    struct ag_engine_config cfg;

    struct ag_wl *wl = ag_registry_wl_new("tpcc", kv, 3, &perr);
    CHECK_MSG(wl != NULL, "tpcc workload: %s", perr.msg);
    if (wl == NULL)
        exit(TEST_END());
    CHECK(wl->fam->wl_set_share(wl, PR_PART_NONE, NULL, 0, &perr) == 0);
    memset(&cfg, 0, sizeof cfg);
    tdb_engine_target(&env, &cfg);
    cfg.wl = wl;
    cfg.conns = conns;
    cfg.conns_total = conns;
    cfg.workers = workers;
    cfg.seed = 11;
    cfg.events = events;
    cfg.time_ms = time_ms;
    cfg.dry_run = dry_run;
    cfg.connect_timeout_s = 5;
    cfg.read_timeout_s = 60;
    cfg.write_timeout_s = 60;
    cfg.ignore_errors = "all"; /* what the coordinator sends for tpcc */

    memset(rr, 0, sizeof *rr);
    for (int k = 0; k < PR_TC_K_COUNT_; k++)
        rr->kst[k].lat = pr_hist_new();
    rr->st.lat = pr_hist_new();
    rr->st.svc = pr_hist_new();
    rr->st.kst = rr->kst;
    rr->st.n_kst = PR_TC_K_COUNT_;

    ag_engine *e = ag_engine_new(&cfg, &perr);
    CHECK_MSG(e != NULL, "engine: %s", perr.msg);
    CHECK_MSG(ag_engine_setup(e, &err) == 0, "setup: %s", err.msg);
    CHECK(ag_engine_start(e, uv_hrtime()) == 0);
    ag_engine_wait(e, -1);
    CHECK_MSG(!ag_engine_error(e, &err), "engine error: %u %s (%s)", err.err_no, err.msg, err.what);
    CHECK(ag_engine_totals(e, &rr->st) == 0);
    ag_engine_destroy(&e);
    wl->fam->wl_destroy(&wl);

    printf("kinds:");
    for (int k = 0; k < PR_TC_K_COUNT_; k++)
        printf(" %s=%llu/%llu", pr_tc_kind_name((enum pr_tc_kind)k),
               (unsigned long long)rr->kst[k].count, (unsigned long long)rr->kst[k].errors);
    printf(" (count/errors); engine transactions %llu errors %llu\n",
           (unsigned long long)rr->st.ctr.transactions, (unsigned long long)rr->st.ctr.errors);
}

static void run_free(struct run_result *rr)
{
    for (int k = 0; k < PR_TC_K_COUNT_; k++)
        pr_hist_destroy(&rr->kst[k].lat);
    pr_hist_destroy(&rr->st.lat);
    pr_hist_destroy(&rr->st.svc);
}

/* TPC-C consistency conditions 1-4 (spec §6): rows that break each. */
static void check_conditions(void)
{
    long long c1 = tdb_int(db,
                           "SELECT count(*) FROM warehouse w WHERE w_ytd <> (SELECT sum(d_ytd) "
                           "FROM district WHERE d_w_id = w.w_id)",
                           0);
    long long c2 = tdb_int(db,
                           "SELECT count(*) FROM district d WHERE d_next_o_id - 1 <> (SELECT "
                           "max(o_id) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id) OR "
                           "d_next_o_id - 1 <> (SELECT max(no_o_id) FROM new_orders WHERE no_w_id "
                           "= d.d_w_id AND no_d_id = d.d_id)",
                           0);
    long long c3 = tdb_int(db,
                           "SELECT count(*) FROM (SELECT no_w_id, no_d_id FROM new_orders GROUP BY "
                           "no_w_id, no_d_id HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)) "
                           "x",
                           0);
    long long c4 = tdb_int(
        db,
        "SELECT count(*) FROM district d WHERE (SELECT sum(o_ol_cnt) FROM orders WHERE o_w_id = "
        "d.d_w_id AND o_d_id = d.d_id) <> (SELECT count(*) FROM order_line WHERE ol_w_id = "
        "d.d_w_id AND ol_d_id = d.d_id)",
        0);
    printf("conditions 1-4: rows that fail: %lld %lld %lld %lld\n", c1, c2, c3, c4);
    CHECK_EQ_U64(c1, 0);
    CHECK_EQ_U64(c2, 0);
    CHECK_EQ_U64(c3, 0);
    CHECK_EQ_U64(c4, 0);
}

static void case_run(uint64_t events)
{
    struct run_result rr;
    long long com0 = tdb_status(db, "COM_COMMIT") + tdb_status(db, "COM_ROLLBACK");
    long long next0 = tdb_int(db, "SELECT sum(d_next_o_id) FROM district", 0);
    long long hist0 = tdb_int(db, "SELECT count(*) FROM history", 0);
    long long no0 = tdb_int(db, "SELECT count(*) FROM new_orders", 0);

    run_engine(2, events, "2000", &rr);
    const struct pr_msg_kstat *k = rr.kst;
    long long com = tdb_status(db, "COM_COMMIT") + tdb_status(db, "COM_ROLLBACK") - com0;
    long long next = tdb_int(db, "SELECT sum(d_next_o_id) FROM district", 0) - next0;
    long long hist = tdb_int(db, "SELECT count(*) FROM history", 0) - hist0;
    long long no = tdb_int(db, "SELECT count(*) FROM new_orders", 0) - no0;
    long long invalid = tdb_int(db, "SELECT count(*) FROM order_line WHERE ol_i_id > 100000", 0);
    uint64_t txns = 0, fails = 0;
    for (int t = 0; t < PR_TC_TXN_COUNT_; t++) {
        txns += k[t].count;
        fails += k[t].errors;
        CHECK_MSG(k[t].count > 0, "%s committed", pr_tc_kind_name((enum pr_tc_kind)t));
        CHECK_MSG(k[PR_TC_K_NEW_ORDER_STMT + t].count > k[t].count, "%s statements counted",
                  pr_tc_kind_name((enum pr_tc_kind)t));
    }
    printf("server: Com_commit+Com_rollback %+lld, sum(d_next_o_id) %+lld, history %+lld, "
           "new_orders %+lld, order lines of the invalid item %lld\n",
           com, next, hist, no, invalid);
    CHECK_EQ_U64(txns, events);
    CHECK_EQ_U64(fails, 0);
    CHECK_EQ_U64(rr.st.ctr.transactions, events);
    CHECK_MSG(k[PR_TC_K_ROLLBACK].count > 0, "New-Order's 1%% rolled back");
    /* the events' outcomes (pr_counters' optional rolled_back, failed): one
     * deliberate ROLLBACK per New-Order rolled back, none given up */
    printf("outcomes: rolled back on purpose %llu, failed %llu\n",
           (unsigned long long)rr.st.ctr.rolled_back, (unsigned long long)rr.st.ctr.failed);
    CHECK_EQ_U64(rr.st.ctr.rolled_back, k[PR_TC_K_ROLLBACK].count);
    CHECK_EQ_U64(rr.st.ctr.failed, 0);
    /* each failed attempt: one statement error, one ROLLBACK */
    uint64_t stmt_errors = 0;
    for (int t = 0; t < PR_TC_TXN_COUNT_; t++)
        stmt_errors += k[PR_TC_K_NEW_ORDER_STMT + t].errors;
    CHECK_EQ_U64(k[PR_TC_K_RETRY_ROLLBACK].count, stmt_errors + k[PR_TC_K_COMMIT].errors);
    /* the server saw every COMMIT and ROLLBACK the kinds count */
    CHECK_EQ_U64(com, k[PR_TC_K_COMMIT].count + k[PR_TC_K_ROLLBACK].count +
                          k[PR_TC_K_RETRY_ROLLBACK].count);
    /* New-Orders committed = new_order - rollback; each Payment adds a row
     * to history; each Delivery removes one new order per district */
    uint64_t no_committed = k[PR_TC_K_NEW_ORDER].count - k[PR_TC_K_ROLLBACK].count;
    CHECK_EQ_U64(next, no_committed);
    CHECK_EQ_U64(hist, k[PR_TC_K_PAYMENT].count);
    /* tpcc-mysql's Delivery reads the oldest new order without a lock: two
     * Deliveries may pick the same one, the second deletes nothing (spec
     * §3.5, reproduced), so up to 10 per Delivery are removed */
    long long delivered = (long long)no_committed - no;
    printf("new orders delivered %lld of %llu Delivery districts\n", delivered,
           (unsigned long long)(10 * k[PR_TC_K_DELIVERY].count));
    CHECK(delivered > 0 && delivered <= 10 * (long long)k[PR_TC_K_DELIVERY].count);
    CHECK_EQ_U64(invalid, 0);
    /* COMMITs: one per New-Order committed, Payment, Order-Status,
     * Stock-Level, ten per Delivery (every district has new orders); a
     * retried Delivery commits its first districts again; and each
     * connection's final COMMIT, as tpcc_start's */
    uint64_t commits = 2 + no_committed + k[PR_TC_K_PAYMENT].count + k[PR_TC_K_ORDER_STATUS].count +
                       k[PR_TC_K_STOCK_LEVEL].count + 10 * k[PR_TC_K_DELIVERY].count;
    if (k[PR_TC_K_DELIVERY_STMT].errors == 0 && k[PR_TC_K_COMMIT].errors == 0)
        CHECK_EQ_U64(k[PR_TC_K_COMMIT].count, commits);
    else
        CHECK(k[PR_TC_K_COMMIT].count >= commits);
    /* the deck: 10/10/1/1/1 of every 23 on each of the 2 connections */
    double decks = (double)events / 23;
    CHECK(fabs((double)k[PR_TC_K_DELIVERY].count - decks) <= 2);
    CHECK(fabs((double)k[PR_TC_K_STOCK_LEVEL].count - decks) <= 2);
    CHECK(fabs((double)k[PR_TC_K_ORDER_STATUS].count - decks) <= 2);
    CHECK(fabs((double)k[PR_TC_K_NEW_ORDER].count - 10 * decks) <= 20);
    CHECK(fabs((double)k[PR_TC_K_PAYMENT].count - 10 * decks) <= 20);
    check_conditions();
    run_free(&rr);
}

/* ---- retries under a held lock ------------------------------------------- */

static unsigned hold_ms;

static void *blocker(void *arg)
{
    MYSQL *m = arg;
    struct timespec ts = {hold_ms / 1000, (long)(hold_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    tdb_exec(m, "COMMIT");
    return NULL;
}

static void case_retry(const char *max, unsigned hold, uint64_t events)
{
    struct run_result rr;
    pthread_t th;
    MYSQL *m = tdb_connect(&env);

    /* tpcc_gen.py set the global innodb_lock_wait_timeout to 1 s */
    CHECK_EQ_U64(tdb_int(db, "SELECT @@GLOBAL.innodb_lock_wait_timeout", 0), 1);
    tdb_exec(m, "START TRANSACTION");
    tdb_exec(m, "SELECT d_id FROM district WHERE d_w_id = 1 FOR UPDATE");
    hold_ms = hold;
    CHECK(pthread_create(&th, NULL, blocker, m) == 0);
    run_engine(1, events, max, &rr);
    pthread_join(th, NULL);
    mysql_close(m);

    const struct pr_msg_kstat *k = rr.kst;
    uint64_t stmt_errors = k[PR_TC_K_NEW_ORDER_STMT].errors + k[PR_TC_K_PAYMENT_STMT].errors;
    uint64_t fails = k[PR_TC_K_NEW_ORDER].errors + k[PR_TC_K_PAYMENT].errors;
    printf("retry: max-retries %s, lock held %u ms: statement errors %llu, retry rollbacks %llu, "
           "events failed %llu\n",
           max, hold, (unsigned long long)stmt_errors,
           (unsigned long long)k[PR_TC_K_RETRY_ROLLBACK].count, (unsigned long long)fails);
    CHECK(stmt_errors >= 1);
    CHECK_EQ_U64(k[PR_TC_K_RETRY_ROLLBACK].count, stmt_errors);
    CHECK_EQ_U64(k[PR_TC_K_ORDER_STATUS].errors + k[PR_TC_K_DELIVERY].errors +
                     k[PR_TC_K_STOCK_LEVEL].errors,
                 0);
    uint64_t done = 0;
    for (int t = 0; t < PR_TC_TXN_COUNT_; t++)
        done += k[t].count + k[t].errors;
    CHECK_EQ_U64(done, events);
    CHECK_EQ_U64(rr.st.ctr.failed, fails); /* the events given up, counted apart */
    if (atoi(max) > 10) {
        CHECK_EQ_U64(fails, 0); /* the lock goes away before the attempts run out */
    } else {
        CHECK(fails >= 1);
        /* every failed event made exactly MAX attempts, each ending in a
         * statement error; completed ones at most MAX */
        CHECK(stmt_errors >= fails * (uint64_t)atoi(max));
    }
    check_conditions();
    run_free(&rr);
}

static void case_shapes(uint64_t events)
{
    struct run_result rr;
    run_engine(1, events, "2000", &rr);
    uint64_t done = 0;
    for (int t = 0; t < PR_TC_TXN_COUNT_; t++)
        done += rr.kst[t].count;
    CHECK_EQ_U64(done, events);
    run_free(&rr);
}

/* Client CPU per transaction (a measuring tool, not a check): CONNS
 * connections for SECONDS on W warehouses; run it pinned (taskset) to
 * compare with tpcc_start on the same data. */
static void case_bench(uint32_t conns, unsigned seconds, const char *w)
{
    struct run_result rr;
    struct rusage r0, r1;
    uint64_t t0 = uv_hrtime();

    warehouses = w;
    time_ms = (uint64_t)seconds * 1000;
    getrusage(RUSAGE_SELF, &r0);
    run_engine(conns, 0, "2000", &rr);
    getrusage(RUSAGE_SELF, &r1);
    double wall = (double)(uv_hrtime() - t0) / 1e9;
    double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
                 (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
                 (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
                 (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
    uint64_t txns = 0;
    for (int t = 0; t < PR_TC_TXN_COUNT_; t++)
        txns += rr.kst[t].count;
    printf("bench: %u connections, %.1f s: %llu transactions (%llu New-Order, %.0f TpmC), "
           "client CPU %.3f s = %.1f us per transaction\n",
           conns, wall, (unsigned long long)txns, (unsigned long long)rr.kst[0].count,
           (double)rr.kst[0].count * 60 / wall, cpu, txns ? cpu * 1e6 / (double)txns : 0);
    CHECK(txns > 0);
    run_free(&rr);
}

/* ---- AG_WANT_ROWS through the real connection ---------------------------- */

/* A family of one event per n in rows_n: the PS "SELECT v FROM rows_t
 * WHERE v <= ? ORDER BY v" with AG_WANT_ROWS, the same as text, then the PS
 * with AG_WANT_RESULT: row_ival must be 1..min(n, AG_RESULT_MAX_ROWS),
 * truncated iff n > AG_RESULT_MAX_ROWS, the first row still the first row;
 * AG_WANT_RESULT keeps no rows. */
static const int64_t rows_n[] = {0, 1, 5, AG_RESULT_MAX_ROWS, AG_RESULT_MAX_ROWS + 300};
#define ROWS_EVENTS (sizeof rows_n / sizeof rows_n[0])

struct rw_wl {
    struct ag_wl base;
    struct ag_stmt_def stmt;
    pr_opts *opts;
};

struct rw_gen {
    struct ag_gen base;
    uint32_t ev, step, bad, checked;
    char text[128];
};

static const struct ag_family rw_family;
static struct rw_gen *rw_last;

static bool rw_has(const char *name)
{
    return strcmp(name, "rows") == 0;
}

static void rw_wl_destroy(struct ag_wl **wl)
{
    struct rw_wl *w = (struct rw_wl *)*wl;
    pr_opts_destroy(&w->opts);
    free(w);
    *wl = NULL;
}

static const pr_opts *rw_opts(const struct ag_wl *wl)
{
    return ((const struct rw_wl *)wl)->opts;
}

static size_t rw_nstmts(const struct ag_wl *wl)
{
    (void)wl;
    return 1;
}

static const struct ag_stmt_def *rw_stmt(const struct ag_wl *wl, size_t i)
{
    (void)i;
    return &((const struct rw_wl *)wl)->stmt;
}

static struct ag_gen *rw_gen_new(const struct ag_wl *wl, uint64_t seed, uint32_t conn,
                                 uint32_t total)
{
    (void)wl, (void)seed, (void)conn, (void)total;
    struct rw_gen *g = calloc(1, sizeof *g);
    g->base.fam = &rw_family;
    rw_last = g;
    return &g->base;
}

static void rw_gen_destroy(struct ag_gen **g)
{
    *g = NULL; /* rw_last keeps it for the checks; freed by case_rows */
}

static void rw_begin(struct ag_gen *gg)
{
    ((struct rw_gen *)gg)->step = 0;
}

static enum ag_step rw_next(struct ag_gen *gg, struct ag_call *call)
{
    struct rw_gen *g = (struct rw_gen *)gg;
    int64_t n = rows_n[g->ev % ROWS_EVENTS];

    call->kind_id = 0;
    call->kind = "rows";
    switch (g->step) {
    case 0:
    case 2:
        call->stmt = 0;
        call->nparams = 1;
        call->ival[0] = n;
        call->want = g->step == 0 ? AG_WANT_ROWS : AG_WANT_RESULT;
        return AG_STEP_STMT;
    case 1:
        call->stmt = -1;
        call->text_len =
            (size_t)snprintf(g->text, sizeof g->text,
                             "SELECT v FROM rows_t WHERE v <= %lld ORDER BY v", (long long)n);
        call->text = g->text;
        call->want = AG_WANT_ROWS;
        return AG_STEP_STMT;
    default:
        g->ev++;
        return AG_STEP_COMMITTED;
    }
}

static void rw_result(struct ag_gen *gg, const struct ag_result *r)
{
    struct rw_gen *g = (struct rw_gen *)gg;
    int64_t n = rows_n[g->ev % ROWS_EVENTS];
    uint64_t keep = n < AG_RESULT_MAX_ROWS ? (uint64_t)n : AG_RESULT_MAX_ROWS;
    bool ok = r->err_no == 0 && r->rows == (uint64_t)n;

    if (g->step < 2) {
        ok = ok && r->nrow_ival == keep && r->truncated == ((uint64_t)n > keep);
        for (uint64_t i = 0; ok && i < keep; i++)
            ok = r->row_ival[i] == (int64_t)i + 1;
    } else {
        ok = ok && r->nrow_ival == 0;
    }
    if (n > 0) /* the first row is the first row, after the scan too */
        ok = ok && r->ncols == 1 && r->is_num[0] && r->ival[0] == 1;
    if (!ok && g->bad++ < 5)
        fprintf(stderr, "rows: event n=%lld step %u: rows %llu kept %u truncated %d\n",
                (long long)n, g->step, (unsigned long long)r->rows, r->nrow_ival, r->truncated);
    g->checked++;
    g->step++;
}

static bool rw_retry(struct ag_gen *g, const struct ag_result *r)
{
    (void)g;
    fprintf(stderr, "rows: error %u %s\n", r->err_no, r->errmsg);
    return false;
}

static bool rw_finish(struct ag_gen *g, struct ag_call *call)
{
    (void)g, (void)call;
    return false;
}

static size_t rw_kinds(const struct ag_wl *wl, const char *const **names)
{
    static const char *const k[] = {"rows"};
    (void)wl;
    *names = k;
    return 1;
}

static const struct ag_family rw_family = {
    .name = "rows",
    .has_workload = rw_has,
    .wl_destroy = rw_wl_destroy,
    .wl_opts = rw_opts,
    .wl_nstmts = rw_nstmts,
    .wl_stmt = rw_stmt,
    .wl_kinds = rw_kinds,
    .gen_new = rw_gen_new,
    .gen_destroy = rw_gen_destroy,
    .begin = rw_begin,
    .next = rw_next,
    .result = rw_result,
    .retry = rw_retry,
    .finish = rw_finish,
};

static void case_rows(void)
{
    struct ag_engine_config cfg;
    struct pr_error perr = {0};
    struct ag_engine_error err = {0};
    struct rw_wl *w = calloc(1, sizeof *w);
    char q[256];

    tdb_exec(db, "DROP TABLE IF EXISTS rows_t");
    tdb_exec(db, "CREATE TABLE rows_t (v INT PRIMARY KEY)");
    tdb_exec(db, "INSERT INTO rows_t (v) SELECT seq FROM seq_1_to_2000");
    w->base.fam = &rw_family;
    w->stmt = (struct ag_stmt_def){
        .sql = "SELECT v FROM rows_t WHERE v <= ? ORDER BY v", .nparams = 1, .kind = "rows"};
    w->stmt.sql_len = strlen(w->stmt.sql);
    w->opts = pr_opts_new(-1);
    memset(&cfg, 0, sizeof cfg);
    tdb_engine_target(&env, &cfg);
    cfg.wl = &w->base;
    cfg.conns = 1;
    cfg.workers = 1;
    cfg.events = 2 * ROWS_EVENTS;
    cfg.ignore_errors = "";
    ag_engine *e = ag_engine_new(&cfg, &perr);
    CHECK_MSG(e != NULL, "engine: %s", perr.msg);
    CHECK_MSG(ag_engine_setup(e, &err) == 0, "setup: %s", err.msg);
    CHECK(ag_engine_start(e, uv_hrtime()) == 0);
    ag_engine_wait(e, -1);
    CHECK_MSG(!ag_engine_error(e, &err), "engine error: %s", err.msg);
    ag_engine_destroy(&e);
    CHECK(rw_last != NULL);
    if (rw_last) {
        printf("rows: %u results checked, %u wrong\n", rw_last->checked, rw_last->bad);
        CHECK_EQ_U64(rw_last->checked, 3 * 2 * ROWS_EVENTS);
        CHECK_EQ_U64(rw_last->bad, 0);
        free(rw_last);
    }
    struct ag_wl *base = &w->base;
    rw_wl_destroy(&base);
    snprintf(q, sizeof q, "DROP TABLE rows_t");
    tdb_exec(db, q);
}

int main(int argc, char **argv)
{
    tdb_env_init(&env);
    env.db = getenv("STAMPEDE_TEST_TPCC_DB");
    if (!env.db || !*env.db) {
        fprintf(stderr, "STAMPEDE_TEST_TPCC_DB is not set: run me through tpcc_gen.py\n");
        return 2;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: test_tpcc_gen run EVENTS | retry MAX HOLD_MS EVENTS | shapes "
                        "EVENTS\n");
        return 2;
    }
    db = tdb_connect(&env);
    if (strcmp(argv[1], "run") == 0 && argc == 3)
        case_run(strtoull(argv[2], NULL, 10));
    else if (strcmp(argv[1], "retry") == 0 && argc == 5)
        case_retry(argv[2], (unsigned)atoi(argv[3]), strtoull(argv[4], NULL, 10));
    else if (strcmp(argv[1], "bench") == 0 && argc >= 5 && argc <= 7) {
        workers = argc >= 6 ? (uint32_t)atoi(argv[5]) : 1;
        dry_run = argc == 7 && strcmp(argv[6], "dry") == 0;
        case_bench((uint32_t)atoi(argv[2]), (unsigned)atoi(argv[3]), argv[4]);
    } else if (strcmp(argv[1], "rows") == 0 && argc == 2)
        case_rows();
    else if (strcmp(argv[1], "shapes") == 0 && argc == 3)
        case_shapes(strtoull(argv[2], NULL, 10));
    else {
        fprintf(stderr, "test_tpcc_gen: unknown case or arguments\n");
        return 2;
    }
    mysql_close(db);
    mysql_library_end();
    return TEST_END();
}
