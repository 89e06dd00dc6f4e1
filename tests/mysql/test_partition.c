/* test_partition: --partition=tables|rows as agents run it, against a real
 * MariaDB (STAMPEDE_TEST_MYSQL_*; exit 77 without).
 *
 * Each "agent" is an ag_run built from a PLAN as the coordinator's plan_run
 * makes it (two agents: table 1 / table 2, or ids 1..500 / 501..1000 of
 * every table), run one after the other so what the server saw can be
 * attributed. The checks need no privilege beyond the sbtest schema:
 *   plans   inconsistent plans are refused by ag_run_new (phase PLAN)
 *   tables  the tables an agent does not own are renamed away after setup
 *           (its statements are prepared), so any statement on them fails
 *           the run with 1146; each agent runs oltp_read_write cleanly, and
 *           its own table's rows change. Control: part=none fails so.
 *   rows    writes: a CRC of every row before and after oltp_write_only:
 *           every changed row is in the agent's slice. reads: ids 501..1000
 *           are deleted, then Rows_read (MariaDB: rows its handlers
 *           returned; a point select that finds nothing adds 0, a range adds
 *           its rows plus the one past its end) counts the rows the agent's
 *           statements found: agent 1..500 finds a row for each point
 *           select (every id in 1..500), agent 501..1000 finds none with
 *           point selects and range selects (none starts or ends below 501).
 *           Control: part=none finds some but not all.
 * The tables are reloaded at the end.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mysql.h>

#include "ag_run.h"
#include "testlib.h"

#define TABLES     2
#define TABLE_SIZE 1000
#define HALF       500

static MYSQL *db; /* the test's own blocking client */

/* ---- helpers ---------------------------------------------------------- */

static void db_connect(void)
{
    const char *port = getenv("STAMPEDE_TEST_MYSQL_PORT");

    db = mysql_init(NULL);
    if (!mysql_real_connect(
            db, getenv("STAMPEDE_TEST_MYSQL_HOST"), getenv("STAMPEDE_TEST_MYSQL_USER"),
            getenv("STAMPEDE_TEST_MYSQL_PASSWORD"), getenv("STAMPEDE_TEST_MYSQL_DB"),
            port ? (unsigned)atoi(port) : 3306, NULL, 0)) {
        fprintf(stderr, "cannot connect: %s\n", mysql_error(db));
        exit(1);
    }
}

static void sql(const char *q)
{
    if (mysql_query(db, q) != 0) {
        fprintf(stderr, "%s: %s\n", q, mysql_error(db));
        exit(1);
    }
    MYSQL_RES *r = mysql_store_result(db);
    if (r)
        mysql_free_result(r);
}

static uint64_t global_status(const char *name)
{
    char q[128];
    uint64_t v = UINT64_MAX;

    snprintf(q, sizeof q, "SHOW GLOBAL STATUS LIKE '%s'", name);
    if (mysql_query(db, q) != 0)
        return v;
    MYSQL_RES *r = mysql_store_result(db);
    MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
    if (row && row[1])
        v = strtoull(row[1], NULL, 10);
    if (r)
        mysql_free_result(r);
    return v;
}

/* One agent's PLAN with its own storage. */
struct agent {
    struct pr_msg_plan p;
    struct pr_msg_opt opt[4];
    struct pr_msg_table t[TABLES];
    char *hosts[1];
    uint16_t ports[1];
};

/* A run plan for agent `index` of `count` (2 connections each), like
 * coordinator/run/co_plan.c plan_run; tables are added by the caller. */
static void agent_init(struct agent *a, enum pr_plan_cmd cmd, const char *wl, const char *ps,
                       uint32_t index, uint32_t count, uint64_t events)
{
    const char *port = getenv("STAMPEDE_TEST_MYSQL_PORT");

    memset(a, 0, sizeof *a);
    a->opt[0] = (struct pr_msg_opt){"tables", "2"};
    a->opt[1] = (struct pr_msg_opt){"table_size", "1000"};
    a->opt[2] = (struct pr_msg_opt){"db-ps-mode", (char *)ps};
    a->opt[3] = (struct pr_msg_opt){"rand-type", "uniform"};
    a->hosts[0] = getenv("STAMPEDE_TEST_MYSQL_HOST");
    a->ports[0] = (uint16_t)(port ? atoi(port) : 3306);
    a->p = (struct pr_msg_plan){
        .cmd = cmd,
        .workload = (char *)wl,
        .opts = a->opt,
        .n_opts = 4,
        .agent_index = index,
        .agent_count = count,
        .conns = 2,
        .conn_first = 2 * index,
        .conns_total = 2 * count,
        .events = events,
        .report_ms = 1000,
        .seed = 4242 + index,
        .tables = a->t,
        .hosts = a->hosts,
        .n_hosts = 1,
        .ports = a->ports,
        .n_ports = 1,
        .user = getenv("STAMPEDE_TEST_MYSQL_USER"),
        .database = getenv("STAMPEDE_TEST_MYSQL_DB"),
        .password = getenv("STAMPEDE_TEST_MYSQL_PASSWORD"),
    };
}

static void agent_tables(struct agent *a, uint32_t table)
{
    a->p.part = PR_PART_TABLES;
    a->t[a->p.n_tables++] = (struct pr_msg_table){table, 1, TABLE_SIZE, false, false};
}

static void agent_rows(struct agent *a, uint64_t lo, uint64_t hi)
{
    a->p.part = PR_PART_ROWS;
    for (uint32_t t = 1; t <= TABLES; t++)
        a->t[a->p.n_tables++] = (struct pr_msg_table){t, lo, hi, false, false};
}

typedef void (*hook_fn)(void);

/* Run the plan to its end: ag_run_new, setup, before_start (after the
 * statements are prepared), start, wait, totals, after. Returns how it
 * ended (status.code 0 = ok). */
static struct ag_run_error run_agent(struct agent *a, hook_fn before_start, hook_fn after,
                                     struct pr_counters *ctr)
{
    struct ag_run_error e = {0};
    uint64_t rows = 0;

    memset(ctr, 0, sizeof *ctr);
    ag_run *r = ag_run_new(&a->p, 2, &e);
    CHECK_MSG(r != NULL, "ag_run_new: %s", e.message);
    if (r == NULL)
        return e;
    if (ag_run_setup(r, &e) < 0) {
        CHECK_MSG(false, "setup: %s", e.message);
        ag_run_destroy(&r);
        return e;
    }
    if (before_start)
        before_start();
    ag_run_start(r, ag_run_now_ns() + 20000000ULL);
    for (int i = 0; i < 6000 && !ag_run_is_finished(r); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    ag_run_stop(r, false);
    pr_hist *lat = pr_hist_new();
    ag_run_totals(r, ctr, &rows, lat, NULL, &e);
    pr_hist_destroy(&lat);
    ag_run_destroy(&r);
    if (after)
        after();
    return e;
}

static void load_tables(void)
{
    struct agent a;
    struct pr_counters ctr;

    agent_init(&a, PR_CMD_CLEANUP, "oltp_read_write", "auto", 0, 1, 0);
    CHECK(run_agent(&a, NULL, NULL, &ctr).code == 0);
    agent_init(&a, PR_CMD_PREPARE, "oltp_read_write", "auto", 0, 1, 0);
    for (uint32_t t = 1; t <= TABLES; t++)
        a.t[a.p.n_tables++] = (struct pr_msg_table){t, 1, TABLE_SIZE, true, true};
    struct ag_run_error e = run_agent(&a, NULL, NULL, &ctr);
    CHECK_MSG(e.code == 0, "prepare: %s", e.message);
}

/* ---- plans ------------------------------------------------------------ */

static void expect_refused(struct agent *a, const char *what)
{
    struct ag_run_error e = {0};
    ag_run *r = ag_run_new(&a->p, 2, &e);

    CHECK_MSG(r == NULL && e.code < 0 && e.phase == PR_PHASE_PLAN && strstr(e.message, what),
              "want '%s', got %d: %s", what, e.code, e.message);
    ag_run_destroy(&r);
}

static void case_plans(void)
{
    struct agent a;

    agent_init(&a, PR_CMD_RUN, "oltp_read_write", "auto", 0, 2, 10);
    a.p.part = PR_PART_TABLES;
    expect_refused(&a, "gives this agent no table");
    agent_tables(&a, 3);
    expect_refused(&a, "table 3 is outside --tables=2");

    agent_init(&a, PR_CMD_RUN, "oltp_read_write", "auto", 0, 2, 10);
    agent_rows(&a, 501, 1001);
    expect_refused(&a, "not a range within 1..1000");
    a.p.n_tables = 1;
    a.t[0].id_hi = 1000;
    expect_refused(&a, "table 2 has no id range");

    agent_init(&a, PR_CMD_RUN, "select_random_points", "auto", 0, 2, 10);
    agent_tables(&a, 1);
    expect_refused(&a, "--partition=tables does not apply to select_random_points");

    /* a consistent plan is accepted */
    agent_init(&a, PR_CMD_RUN, "oltp_read_write", "auto", 1, 2, 10);
    agent_tables(&a, 2);
    struct ag_run_error e = {0};
    ag_run *r = ag_run_new(&a.p, 2, &e);
    CHECK_MSG(r != NULL, "%s", e.message);
    ag_run_destroy(&r);

    /* a prepare plan's tables are pieces to load (part of a table here),
     * not a share: not checked as one */
    agent_init(&a, PR_CMD_PREPARE, "oltp_read_write", "auto", 1, 2, 0);
    a.p.part = PR_PART_TABLES;
    a.t[a.p.n_tables++] = (struct pr_msg_table){2, 501, 1000, false, true};
    r = ag_run_new(&a.p, 2, &e);
    CHECK_MSG(r != NULL, "%s", e.message);
    ag_run_destroy(&r);
}

/* ---- tables ----------------------------------------------------------- */

static void hide_2(void)
{
    sql("RENAME TABLE sbtest2 TO sbtest2_away");
}

static void show_2(void)
{
    sql("RENAME TABLE sbtest2_away TO sbtest2");
}

static void hide_1(void)
{
    sql("RENAME TABLE sbtest1 TO sbtest1_away");
}

static void show_1(void)
{
    sql("RENAME TABLE sbtest1_away TO sbtest1");
}

/* CRC of every row of sbtest<t>, by id (1..TABLE_SIZE; 0 = absent). */
static void snapshot(uint32_t t, uint32_t *crc)
{
    char q[160];

    memset(crc, 0, (TABLE_SIZE + 1) * sizeof *crc);
    snprintf(q, sizeof q, "SELECT id, CRC32(CONCAT_WS('|', k, c, pad)) FROM sbtest%u", t);
    if (mysql_query(db, q) != 0) {
        fprintf(stderr, "%s: %s\n", q, mysql_error(db));
        exit(1);
    }
    MYSQL_RES *r = mysql_store_result(db);
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(r)) != NULL) {
        long id = atol(row[0]);
        if (id >= 1 && id <= TABLE_SIZE)
            crc[id] = (uint32_t)strtoul(row[1], NULL, 10) | 1u;
    }
    mysql_free_result(r);
}

/* Rows of sbtest<t> changed between two snapshots, and how many of them lie
 * outside [lo, hi]. */
static uint64_t changed(const uint32_t *a, const uint32_t *b, uint64_t lo, uint64_t hi,
                        uint64_t *outside)
{
    uint64_t n = 0;

    *outside = 0;
    for (uint64_t id = 1; id <= TABLE_SIZE; id++)
        if (a[id] != b[id]) {
            n++;
            *outside += id < lo || id > hi;
        }
    return n;
}

static void case_tables(void)
{
    static uint32_t before[TABLES + 1][TABLE_SIZE + 1], after[TABLES + 1][TABLE_SIZE + 1];
    static const hook_fn hide[] = {hide_2, hide_1}, show[] = {show_2, show_1};
    struct agent a;
    struct pr_counters ctr;
    uint64_t out;

    for (uint32_t i = 0; i < 2; i++) {
        agent_init(&a, PR_CMD_RUN, "oltp_read_write", i ? "disable" : "auto", i, 2, 300);
        agent_tables(&a, i + 1);
        snapshot(i + 1, before[i + 1]);
        struct ag_run_error e = run_agent(&a, hide[i], show[i], &ctr);
        CHECK_MSG(e.code == 0, "agent %u (table %u): %s", i, i + 1, e.message);
        CHECK_EQ_U64(ctr.transactions, 300);
        CHECK_EQ_U64(ctr.errors, 0);
        snapshot(i + 1, after[i + 1]);
        uint64_t n = changed(before[i + 1], after[i + 1], 1, TABLE_SIZE, &out);
        CHECK_MSG(n > 300, "agent %u changed %llu rows of its table", i, (unsigned long long)n);
        printf("tables: agent %u, table %u only: %llu tx, %llu rows changed\n", i, i + 1,
               (unsigned long long)ctr.transactions, (unsigned long long)n);
    }

    /* control: the same run without a partition does touch the hidden table */
    agent_init(&a, PR_CMD_RUN, "oltp_read_write", "auto", 0, 2, 300);
    struct ag_run_error e = run_agent(&a, hide_2, show_2, &ctr);
    CHECK_MSG(e.code != 0 && e.db_errno == 1146, "control: code %d errno %u: %s", e.code,
              e.db_errno, e.message);
}

/* ---- rows ------------------------------------------------------------- */

static void case_rows_writes(void)
{
    static uint32_t before[TABLES + 1][TABLE_SIZE + 1], after[TABLES + 1][TABLE_SIZE + 1];
    struct agent a;
    struct pr_counters ctr;

    for (uint32_t i = 0; i < 2; i++) {
        uint64_t lo = i ? HALF + 1 : 1, hi = i ? TABLE_SIZE : HALF;
        agent_init(&a, PR_CMD_RUN, "oltp_write_only", i ? "disable" : "auto", i, 2, 300);
        agent_rows(&a, lo, hi);
        for (uint32_t t = 1; t <= TABLES; t++)
            snapshot(t, before[t]);
        struct ag_run_error e = run_agent(&a, NULL, NULL, &ctr);
        CHECK_MSG(e.code == 0, "agent %u: %s", i, e.message);
        CHECK_EQ_U64(ctr.transactions, 300);
        for (uint32_t t = 1; t <= TABLES; t++) {
            uint64_t out, n;
            snapshot(t, after[t]);
            n = changed(before[t], after[t], lo, hi, &out);
            CHECK_MSG(out == 0, "agent %u changed %llu rows of sbtest%u outside %llu..%llu", i,
                      (unsigned long long)out, t, (unsigned long long)lo, (unsigned long long)hi);
            CHECK_MSG(n > 100, "agent %u changed only %llu rows of sbtest%u", i,
                      (unsigned long long)n, t);
            printf("rows writes: agent %u ids %llu..%llu: sbtest%u %llu rows changed, %llu "
                   "outside\n",
                   i, (unsigned long long)lo, (unsigned long long)hi, t, (unsigned long long)n,
                   (unsigned long long)out);
        }
    }
}

/* Rows_read over one agent's run: the rows its statements found. */
static uint64_t rows_found(struct agent *a, struct pr_counters *ctr)
{
    uint64_t r0 = global_status("Rows_read");
    struct ag_run_error e = run_agent(a, NULL, NULL, ctr);
    uint64_t r1 = global_status("Rows_read");

    CHECK_MSG(e.code == 0, "%s", e.message);
    return r1 - r0;
}

static void case_rows_reads(void)
{
    char q[96];
    struct agent a;
    struct pr_counters ctr;
    uint64_t found;

    for (uint32_t t = 1; t <= TABLES; t++) {
        snprintf(q, sizeof q, "DELETE FROM sbtest%u WHERE id > %d", t, HALF);
        sql(q);
    }
    /* ids 1..500: every point select finds its row */
    agent_init(&a, PR_CMD_RUN, "oltp_point_select", "auto", 0, 2, 2000);
    agent_rows(&a, 1, HALF);
    found = rows_found(&a, &ctr);
    CHECK_EQ_U64(ctr.reads, 2000);
    CHECK_EQ_U64(found, ctr.reads);
    printf("rows reads: agent 0 ids 1..%d: %llu point selects, %llu rows found\n", HALF,
           (unsigned long long)ctr.reads, (unsigned long long)found);

    /* ids 501..1000 (deleted): nothing found, by points or ranges */
    static const char *const wls[] = {"oltp_point_select", "oltp_read_only"};
    for (size_t w = 0; w < 2; w++) {
        agent_init(&a, PR_CMD_RUN, wls[w], w ? "disable" : "auto", 1, 2, w ? 300 : 2000);
        agent_rows(&a, HALF + 1, TABLE_SIZE);
        found = rows_found(&a, &ctr);
        CHECK(ctr.reads >= 2000);
        CHECK_EQ_U64(found, 0);
        printf("rows reads: agent 1 ids %d..%d %s: %llu reads, %llu rows found\n", HALF + 1,
               TABLE_SIZE, wls[w], (unsigned long long)ctr.reads, (unsigned long long)found);
    }

    /* control: no partition finds some rows, not all */
    agent_init(&a, PR_CMD_RUN, "oltp_point_select", "auto", 0, 1, 2000);
    found = rows_found(&a, &ctr);
    CHECK_MSG(found > 0 && found < ctr.reads, "control: %llu of %llu", (unsigned long long)found,
              (unsigned long long)ctr.reads);
}

int main(int argc, char **argv)
{
    const char *host = getenv("STAMPEDE_TEST_MYSQL_HOST");
    const char *only = argc > 1 ? argv[1] : NULL;

    if (!host || !*host)
        TEST_SKIP("STAMPEDE_TEST_MYSQL_HOST is not set");
    if (!getenv("STAMPEDE_TEST_MYSQL_USER"))
        setenv("STAMPEDE_TEST_MYSQL_USER", "sbtest", 1);
    if (!getenv("STAMPEDE_TEST_MYSQL_PASSWORD"))
        setenv("STAMPEDE_TEST_MYSQL_PASSWORD", "", 1);
    if (!getenv("STAMPEDE_TEST_MYSQL_DB"))
        setenv("STAMPEDE_TEST_MYSQL_DB", "sbtest", 1);
    db_connect();
    load_tables();
#define CASE(n)                                                                                    \
    if (!only || strcmp(only, #n) == 0) {                                                          \
        printf("== %s\n", #n);                                                                     \
        fflush(stdout);                                                                            \
        case_##n();                                                                                \
    }
    CASE(plans)
    CASE(tables)
    CASE(rows_writes)
    CASE(rows_reads)
    load_tables();
    mysql_close(db);
    mysql_library_end();
    return TEST_END();
}
