/* engine_fix: the fixtures test_engine and test_engine_conn share: the
 * sandbox connection (env, db), SHOW GLOBAL STATUS deltas, workloads and
 * engine configurations, sysbench's tables prepared through the engine,
 * one measured run (run_engine) and its checks against the server's
 * counters, and the programs' main (engine_main). Header-only: the checks
 * count in the including program (testlib.h); one program includes it once. */
#ifndef ENGINE_FIX_H
#define ENGINE_FIX_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <mysql.h>
#include <uv.h>

#include "ag_engine.h"
#include "ag_sb_family.h"
#include "ag_sb_load.h"
#include "ag_sb_workload.h"
#include "tdb.h"
#include "testlib.h"

#define TABLES     2
#define TABLE_SIZE 1000

static struct tdb_env env;
static MYSQL *db; /* the test's own blocking client */

/* ---- helpers ---------------------------------------------------------- */

static inline void db_connect(void)
{
    if (db)
        mysql_close(db);
    db = tdb_connect(&env);
    /* Not inherited by the server case_restart starts (see test_engine_conn's
     * inherited_sockets). */
    if (fcntl((int)mysql_get_socket(db), F_SETFD, FD_CLOEXEC) < 0)
        exit(1);
}

/* The status counters we compare. */
#define STATUS_NAMES(X)                                                                            \
    X(Com_stmt_execute)                                                                            \
    X(Com_select)                                                                                  \
    X(Com_insert)                                                                                  \
    X(Com_update) X(Com_delete) X(Com_begin) X(Com_commit) X(Com_stmt_prepare) X(Com_show_status)

struct status {
#define S_FIELD(n) uint64_t n;
    STATUS_NAMES(S_FIELD)
#undef S_FIELD
};

static inline void status_get(struct status *s)
{
    memset(s, 0, sizeof *s);
    if (mysql_query(db, "SHOW GLOBAL STATUS"))
        exit(1);
    MYSQL_RES *r = mysql_store_result(db);
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(r))) {
#define S_READ(n)                                                                                  \
    if (strcasecmp(row[0], #n) == 0)                                                               \
        s->n = strtoull(row[1], NULL, 10);
        STATUS_NAMES(S_READ)
#undef S_READ
    }
    mysql_free_result(r);
}

/* after - before - overhead, where overhead is what one status read itself
 * adds (measured by two back-to-back reads): our own queries are excluded. */
static inline void status_delta(struct status *d, const struct status *before,
                                const struct status *after, const struct status *overhead)
{
#define S_DELTA(n) d->n = after->n - before->n - overhead->n;
    STATUS_NAMES(S_DELTA)
#undef S_DELTA
}

static inline void status_overhead(struct status *o)
{
    struct status a, b, zero = {0};
    status_get(&a);
    status_get(&b);
    status_delta(o, &a, &b, &zero);
}

static inline ag_sb_workload *wl_make(const char *name, const char *ps, const char *extra_name,
                                      const char *extra_val)
{
    char tables[16], size[16];
    snprintf(tables, sizeof tables, "%d", TABLES);
    snprintf(size, sizeof size, "%d", TABLE_SIZE);
    struct ag_kv kv[4] = {
        {"tables", tables}, {"table_size", size}, {"db-ps-mode", ps}, {extra_name, extra_val}};
    struct pr_error err = {0};
    /* bulk_insert declares neither tables nor table_size (and refuses them). */
    size_t skip = strcmp(name, "bulk_insert") == 0 ? 2 : 0;
    ag_sb_workload *wl =
        ag_sb_workload_new(&ag_sb_family, name, kv + skip, (extra_name ? 4 : 3) - skip, &err);
    if (!wl) {
        fprintf(stderr, "ag_sb_workload_new(%s): %s\n", name, err.msg);
        exit(1);
    }
    return wl;
}

static inline void cfg_init(struct ag_engine_config *cfg, const ag_sb_workload *wl, uint32_t conns)
{
    tdb_engine_config(&env, cfg, conns);
    cfg->wl = wl ? ag_sb_workload_wl(wl) : NULL;
    cfg->workers = 2;
    cfg->seed = 42;
}

static inline double now_s(void)
{
    return (double)uv_hrtime() / 1e9;
}

/* ---- table preparation through ag_engine_run_pieces ------------------- */

/* (Re)create sbtest1..TABLES with TABLE_SIZE rows the way sysbench's
 * prepare does (ag_sb_load), one table per piece, after a cleanup. */
static inline void run_load(ag_sb_load **loads, size_t n)
{
    struct ag_engine_config cfg;
    struct ag_piece pieces[8];
    struct pr_error perr = {0};
    struct ag_engine_error err;

    cfg_init(&cfg, NULL, (uint32_t)n);
    ag_engine *e = ag_engine_new(&cfg, &perr);
    CHECK(e != NULL);
    CHECK(ag_engine_setup(e, &err) == 0);
    for (size_t i = 0; i < n; i++)
        pieces[i] = ag_sb_load_piece(loads[i]);
    if (n > sizeof pieces / sizeof pieces[0])
        abort();
    int rc = ag_engine_run_pieces(e, pieces, n, &err);
    CHECK_MSG(rc == 0, "run_pieces: %u %s (%s)", err.err_no, err.msg, err.what);
    ag_engine_destroy(&e);
    for (size_t i = 0; i < n; i++) {
        struct ag_sb_load_stmt st;
        CHECK(!ag_sb_load_next(loads[i], &st)); /* every statement was run */
        ag_sb_load_destroy(&loads[i]);
    }
}

static inline void prepare_tables(void)
{
    ag_sb_workload *wl = wl_make("oltp_read_write", "auto", NULL, NULL);
    ag_sb_load *loads[TABLES];
    uint32_t tables[TABLES];
    struct pr_error perr = {0};

    for (uint32_t i = 0; i < TABLES; i++)
        tables[i] = i + 1;
    loads[0] = ag_sb_load_cleanup_new(wl, tables, TABLES);
    run_load(loads, 1);
    for (uint32_t i = 0; i < TABLES; i++) {
        struct ag_sb_load_piece p = {.table = i + 1,
                                     .id_lo = 1,
                                     .id_hi = TABLE_SIZE,
                                     .create_table = true,
                                     .create_index = true};
        loads[i] = ag_sb_load_prepare_new(wl, &p, 1000 + i, &perr);
        CHECK(loads[i] != NULL);
    }
    run_load(loads, TABLES);
    ag_sb_workload_destroy(&wl);
    char q[128];
    for (int i = 1; i <= TABLES; i++) {
        snprintf(q, sizeof q, "SELECT COUNT(*), MAX(id) FROM sbtest%d", i);
        mysql_query(db, q);
        MYSQL_RES *res = mysql_store_result(db);
        MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
        CHECK(row && atoi(row[0]) == TABLE_SIZE && atoi(row[1]) == TABLE_SIZE);
        if (res)
            mysql_free_result(res);
    }
}

/* ---- one run ---------------------------------------------------------- */

#define MAX_IVL 512

struct run_result {
    struct ag_engine_stats tot;       /* totals */
    struct pr_counters ivl_sum;       /* sum of interval counters */
    uint64_t ivl_lat_count;           /* sum of interval latency counts */
    pr_hist *ivl_lat;                 /* sum of interval latency histograms */
    pr_hist *ivl_svc;                 /* sum of interval service-time histograms */
    int intervals;                    /* collects made */
    struct status srv;                /* server deltas */
    bool failed;                      /* engine reported a fatal error */
    struct ag_engine_error err;       /* that error */
    double wall_s;                    /* start to end */
    int64_t skew_ns;                  /* latest worker start - t0 */
    bool has_skew;                    /* skew_ns is known (every worker started) */
    uint64_t ivl_started[MAX_IVL];    /* per interval (the first MAX_IVL): ev_started */
    uint64_t ivl_slip_us[MAX_IVL];    /* its worst start slip (rate mode) */
    double ivl_span_s[MAX_IVL];       /* and the wall time it covered */
    uint64_t ivl_collect_us[MAX_IVL]; /* how long its collect took: the span's end
                                         and the workers' swap lie within it */
    double destroy_s;                 /* ag_engine_destroy's time */
};

typedef void (*mid_run_fn)(ag_engine *e, int interval);

static inline void run_engine(const struct ag_engine_config *cfg, int interval_ms, mid_run_fn mid,
                              struct run_result *res)
{
    struct pr_error perr = {0};
    struct ag_engine_error err;
    struct status s0, s1, overhead;
    memset(res, 0, sizeof *res);
    res->tot.lat = pr_hist_new();
    res->tot.svc = pr_hist_new();
    res->ivl_lat = pr_hist_new();
    res->ivl_svc = pr_hist_new();

    ag_engine *e = ag_engine_new(cfg, &perr);
    CHECK(e != NULL);
    int rc = ag_engine_setup(e, &err);
    CHECK_MSG(rc == 0, "setup: %u %s (%s)", err.err_no, err.msg, err.what);
    if (rc) {
        ag_engine_destroy(&e);
        res->failed = true;
        return;
    }
    status_overhead(&overhead);
    status_get(&s0);
    double t0 = now_s();
    CHECK(ag_engine_start(e, uv_hrtime() + 20000000ULL) == 0);
    struct ag_engine_stats iv = {.lat = pr_hist_new(), .svc = pr_hist_new()};
    for (int k = 0;; k++) {
        int done = ag_engine_wait(e, interval_ms);
        uint64_t c0 = uv_hrtime();
        CHECK(ag_engine_collect(e, &iv) == 0);
        uint64_t collect_us = (uv_hrtime() - c0) / 1000;
        pr_counters_add(&res->ivl_sum, &iv.ctr);
        res->ivl_lat_count += pr_hist_count(iv.lat);
        pr_hist_add(res->ivl_lat, iv.lat);
        pr_hist_add(res->ivl_svc, iv.svc);
        if (res->intervals < MAX_IVL) {
            res->ivl_started[res->intervals] = iv.ctr.ev_started;
            res->ivl_slip_us[res->intervals] = iv.slip_max_us;
            res->ivl_span_s[res->intervals] = (double)iv.span_ns / 1e9;
            res->ivl_collect_us[res->intervals] = collect_us;
        }
        res->intervals++;
        if (done)
            break;
        if (mid)
            mid(e, k);
    }
    res->wall_s = now_s() - t0;
    CHECK(ag_engine_totals(e, &res->tot) == 0);
    res->failed = ag_engine_error(e, &res->err);
    res->has_skew = ag_engine_start_skew_ns(e, &res->skew_ns);
    double td = now_s();
    ag_engine_destroy(&e);
    td = now_s() - td;
    res->destroy_s = td;
    /* Joins loops, closes handles: well under 0.1 s idle; the bound is
     * generous for TSan on 2 shared cores (issue 9 item 17). */
    CHECK_MSG(td < 5.0, "destroy took %.3f s", td);
    status_get(&s1);
    status_delta(&res->srv, &s0, &s1, &overhead);
    pr_hist_destroy(&iv.lat);
    pr_hist_destroy(&iv.svc);
}

static inline void run_free(struct run_result *res)
{
    pr_hist_destroy(&res->tot.lat);
    pr_hist_destroy(&res->tot.svc);
    pr_hist_destroy(&res->ivl_lat);
    pr_hist_destroy(&res->ivl_svc);
}

static inline void print_run(const char *name, const char *ps, const struct run_result *r)
{
    const struct pr_counters *c = &r->tot.ctr;
    printf("%-22s %-7s tx %6" PRIu64 " r/w/o %6" PRIu64 "/%5" PRIu64 "/%5" PRIu64 " err %3" PRIu64
           " reconn %2" PRIu64 " | srv exec %6" PRIu64 " sel %6" PRIu64 " ins %5" PRIu64
           " upd %5" PRIu64 " del %5" PRIu64 " begin %5" PRIu64 " commit %5" PRIu64
           " | p95 %" PRIu64 " us cpu %.0f%% lag %" PRIu64 " us destroy %.3f s\n",
           name, ps, c->transactions, c->reads, c->writes, c->other, c->errors, c->reconnects,
           r->srv.Com_stmt_execute, r->srv.Com_select, r->srv.Com_insert, r->srv.Com_update,
           r->srv.Com_delete, r->srv.Com_begin, r->srv.Com_commit,
           pr_hist_value_at_percentile(r->tot.lat, 95), r->tot.cpu_pct, r->tot.lag_max_us,
           r->destroy_s);
}

/* Engine counters vs server counters. Every statement the engine sent is
 * either counted as read/write/other or as an (ignored) error. */
static inline void check_counts(const char *name, bool ps, const struct run_result *r)
{
    const struct pr_counters *c = &r->tot.ctr;
    uint64_t sent = pr_counters_queries(c) + c->errors;

    CHECK_MSG(!r->failed, "%s: fatal %u %s", name, r->err.err_no, r->err.msg);
    CHECK_MSG(c->transactions > 0, "%s: no transactions", name);
    CHECK_EQ_U64(c->reconnects, 0);
    CHECK_EQ_U64(pr_hist_count(r->tot.lat), c->transactions);
    if (ps && strcmp(name, "oltp_insert") != 0 && strcmp(name, "bulk_insert") != 0) {
        CHECK_MSG(r->srv.Com_stmt_execute == sent,
                  "%s: Com_stmt_execute %" PRIu64 " != engine %" PRIu64, name,
                  r->srv.Com_stmt_execute, sent);
    } else {
        CHECK_MSG(r->srv.Com_stmt_execute == 0, "%s text: %" PRIu64 " executes", name,
                  r->srv.Com_stmt_execute);
    }
    /* Per kind (the server counts executes of prepared statements under
     * their Com_ kind as well, and a failed statement whose error was
     * ignored too): selects are the reads plus the selects that failed,
     * the rest are writes + other plus the others that failed, and the
     * failed ones of both add up to the ignored errors. Exact per kind
     * without errors; with them (deadlocks) still checked, not skipped. */
    uint64_t dml = r->srv.Com_insert + r->srv.Com_update + r->srv.Com_delete;
    uint64_t rest = dml + r->srv.Com_begin + r->srv.Com_commit;
    uint64_t all = r->srv.Com_select + rest;
    CHECK_MSG(all == sent, "%s: server select+dml+begin+commit %" PRIu64 " != engine %" PRIu64,
              name, all, sent);
    CHECK_MSG(r->srv.Com_select >= c->reads, "%s: Com_select %" PRIu64 " < reads %" PRIu64, name,
              r->srv.Com_select, c->reads);
    CHECK_MSG(rest >= c->writes + c->other,
              "%s: server dml+begin+commit %" PRIu64 " < writes+other %" PRIu64, name, rest,
              c->writes + c->other);
    if (r->srv.Com_select >= c->reads && rest >= c->writes + c->other)
        CHECK_MSG((r->srv.Com_select - c->reads) + (rest - c->writes - c->other) == c->errors,
                  "%s: failed selects %" PRIu64 " + failed others %" PRIu64
                  " != ignored errors %" PRIu64,
                  name, r->srv.Com_select - c->reads, rest - c->writes - c->other, c->errors);
}

/* One case of a test program: its name (the program's argument) and body. */
struct engine_case {
    const char *name;
    void (*run)(void);
};

/* A test program's main: connect, prepare the tables, run the case named
 * by argv[1] (none: all of cases, in order), report the checks. */
static inline int engine_main(int argc, char **argv, const struct engine_case *cases, size_t n)
{
    tdb_env_init(&env);
    db_connect();
    const char *only = argc > 1 ? argv[1] : NULL;
    prepare_tables();
    for (size_t i = 0; i < n; i++)
        if (!only || strcmp(only, cases[i].name) == 0) {
            printf("== %s\n", cases[i].name);
            fflush(stdout);
            cases[i].run();
        }
    mysql_close(db);
    mysql_library_end();
    return TEST_END();
}

#endif
