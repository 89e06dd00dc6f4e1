/* test_tpcc_load: the tpcc family's prepare, check and cleanup streams
 * (families/tpcc/agent/ag_tc_load.h) through the real engine against the sandbox
 * MariaDB (STAMPEDE_TEST_MYSQL_*; exit 77 without).
 *
 * Usage: test_tpcc_load [case]. Cases:
 *   load    create the 9 tables, load 2 warehouses + items over several
 *           connections: row counts as tpcc_load's, rows reported per
 *           INSERT, the data's shape (10% original, ~50% BC, 1000 last
 *           names and 900 new orders per district, d_next_o_id 3001, ...);
 *           check (all 12) passes; a broken condition fails naming it, a
 *           payment-like change leaves 10-12 informational; the indexes and
 *           foreign keys; a missing table says "run prepare"; cleanup
 *   repeat  the same seed loads the same rows however the item range is
 *           split, another seed other rows; --load-parts and a warehouse
 *           range load only their tables and warehouses; a partial prepare
 *           without its table says "run prepare"
 *   locks   retry_locks with a held lock: another session holds a row of
 *           the item range and makes the loader's INSERT the victim of a
 *           deadlock (1213); the INSERT is sent again and the load
 *           completes, every row once
 * Environment: TPCC_LOAD_CONNS (default 4) connections for the load.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <pthread.h>
#include <uv.h>

#include "ag_engine.h"
#include "ag_tc_load.h"
#include "pr_opts.h"
#include "pr_tc_opts.h"
#include "tdb.h"
#define TC_SINK_CAP 4096
#include "tc_sink_fix.h"
#include "testlib.h"

static struct tdb_env env;
static MYSQL *db;

/* ---- driving ag_tc_loads ----------------------------------------------- */

struct cmd {
    enum pr_plan_cmd cmd;
    struct pr_msg_table tables[4];
    uint32_t ntables;
    uint64_t seed;
    const char *opts[6][2]; /* name, value; NULL ends */
    uint32_t conns;
};

struct outcome {
    int rc;          /* ag_tc_loads or the engine */
    size_t streams;  /* how many ag_tc_loads added */
    uint64_t rows;   /* rows the streams reported */
    uint64_t errors; /* failed statements (retry_locks: the ones sent again) */
    char note[1024]; /* the first informational line (ag_engine_take_notes), "" */
    size_t n_notes;  /* how many */
    double seconds;  /* wall time of the engine run */
    struct ag_engine_error err;
};

static struct outcome run_cmd(const struct cmd *c)
{
    struct outcome out = {0};
    struct pr_error perr = {0};
    pr_opts *po = pr_opts_new(PR_WL_TPCC);
    struct pr_tc_opts o;
    static struct sink sink;

    for (int i = 0; i < 6 && c->opts[i][0]; i++)
        CHECK_MSG(pr_opts_set(po, c->opts[i][0], c->opts[i][1], &perr) == 0, "%s", perr.msg);
    CHECK_MSG(pr_tc_opts_get(po, &o, &perr) == 0, "%s", perr.msg);
    struct pr_msg_plan plan = {.cmd = c->cmd, .seed = c->seed, .n_tables = c->ntables};
    plan.tables = (struct pr_msg_table *)c->tables;
    out.rc = ag_tc_loads(&o, po, &plan, sink_add, &sink, &perr);
    out.streams = sink.n;
    if (out.rc < 0) {
        snprintf(out.err.msg, sizeof out.err.msg, "%.200s", perr.msg);
        sink_free(&sink);
        pr_opts_destroy(&po);
        return out;
    }

    struct ag_engine_config cfg;
    tdb_engine_config(&env, &cfg, c->conns ? c->conns : 1);
    cfg.seed = c->seed;
    cfg.connect_timeout_s = 10;
    cfg.read_timeout_s = 600;
    cfg.write_timeout_s = 60;
    ag_engine *e = ag_engine_new(&cfg, &perr);
    CHECK(e != NULL);
    CHECK_MSG(ag_engine_setup(e, &out.err) == 0, "setup: %s", out.err.msg);
    uint64_t t0 = uv_hrtime();
    out.rc = ag_engine_run_pieces(e, sink.p, sink.n, &out.err);
    out.seconds = (double)(uv_hrtime() - t0) / 1e9;
    struct ag_engine_stats st = {0};
    CHECK(ag_engine_totals(e, &st) == 0);
    out.rows = st.rows;
    out.errors = st.ctr.errors;
    char **notes = NULL;
    out.n_notes = ag_engine_take_notes(e, &notes);
    for (size_t i = 0; i < out.n_notes; i++) {
        if (i == 0)
            snprintf(out.note, sizeof out.note, "%s", notes[i]);
        free(notes[i]);
    }
    free(notes);
    ag_engine_destroy(&e);
    sink_free(&sink);
    pr_opts_destroy(&po);
    return out;
}

static const struct pr_msg_table CREATE = {1, 1, 0, true, false};
static const struct pr_msg_table INDEX = {1, 1, 0, false, true};

static void create_tables(void)
{
    struct cmd c = {.cmd = PR_CMD_PREPARE, .tables = {CREATE}, .ntables = 1, .seed = 1};
    struct outcome o = run_cmd(&c);
    CHECK_MSG(o.rc == 0, "create: %s", o.err.msg);
    CHECK_EQ_U64(o.streams, 1);
}

static struct outcome check_cmd(uint32_t lo, uint32_t hi, bool all)
{
    struct cmd c = {.cmd = PR_CMD_CHECK,
                    .tables = {{1, lo, hi, false, false}},
                    .ntables = 1,
                    .seed = 1,
                    .opts = {{"check-all", all ? "on" : "off"}},
                    .conns = 2};
    return run_cmd(&c);
}

/* ---- load -------------------------------------------------------------- */

static void expect_count(const char *table, long long want)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);
    long long got = tdb_int(db, sql, -1);
    printf("  %-10s %lld rows\n", table, got);
    CHECK_MSG(got == want, "%s: %lld rows, tpcc_load loads %lld", table, got, want);
}

static void check_counts(uint64_t reported)
{
    long long ol = tdb_int(db, "SELECT SUM(o_ol_cnt) FROM orders", -1);
    expect_count("warehouse", 2);
    expect_count("district", 20);
    expect_count("customer", 60000);
    expect_count("history", 60000);
    expect_count("orders", 60000);
    expect_count("new_orders", 18000);
    expect_count("order_line", ol);
    expect_count("item", 100000);
    expect_count("stock", 200000);
    CHECK(ol >= 5 * 60000 && ol <= 15 * 60000);
    uint64_t total = 2 + 20 + 60000 * 3 + 18000 + (uint64_t)ol + 100000 + 200000;
    printf("rows reported by the streams %llu, in the tables %llu\n", (unsigned long long)reported,
           (unsigned long long)total);
    CHECK_EQ_U64(reported, total);
}

/* The data-shape checks of tpcc-mysql's load and its value rules
 * (docs/design.md §13.2). */
static void check_shape(void)
{
    char buf[64];

    /* "original": exactly 10,000 of item, and of each warehouse's stock. */
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM item WHERE i_data LIKE BINARY '%original%'", -1),
                 10000);
    for (int w = 1; w <= 2; w++) {
        char sql[160];
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM stock WHERE s_w_id = %d AND s_data LIKE BINARY "
                 "'%%original%%'",
                 w);
        CHECK_EQ_U64(tdb_int(db, sql, -1), 10000);
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM customer WHERE c_w_id = %d AND c_credit = 'BC'", w);
        long long bc = tdb_int(db, sql, -1);
        printf("warehouse %d: %lld of 30000 customers BC (%.2f%%)\n", w, bc, bc / 300.0);
        CHECK(bc > 30000 * 48 / 100 && bc < 30000 * 52 / 100); /* 50% +- 2% (> 6 sigma) */
    }
    CHECK_EQ_U64(
        tdb_int(db, "SELECT COUNT(*) FROM customer WHERE c_credit NOT IN ('GC', 'BC')", -1), 0);
    /* Every last name in every district; c_id <= 1000 in order. */
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT MIN(n) FROM (SELECT COUNT(DISTINCT c_last) AS n FROM customer "
                         "GROUP BY c_w_id, c_d_id) t",
                         -1),
                 1000);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT MAX(n) FROM (SELECT COUNT(DISTINCT c_last) AS n FROM customer "
                         "GROUP BY c_w_id, c_d_id) t",
                         -1),
                 1000);
    tdb_text(db, "SELECT c_last FROM customer WHERE c_w_id = 2 AND c_d_id = 7 AND c_id = 1", buf,
             sizeof buf);
    CHECK(strcmp(buf, "BARBARBAR") == 0);
    tdb_text(db, "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = 1000", buf,
             sizeof buf);
    CHECK(strcmp(buf, "EINGEINGEING") == 0);
    /* 900 new orders per district, 2101..3000; d_next_o_id 3001. */
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM (SELECT no_w_id, no_d_id FROM new_orders GROUP BY "
                         "no_w_id, no_d_id HAVING COUNT(*) = 900 AND MIN(no_o_id) = 2101 AND "
                         "MAX(no_o_id) = 3000) t",
                         -1),
                 20);
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM district WHERE d_next_o_id = 3001", -1), 20);
    /* o_c_id: a one-cycle permutation of 1..3000 per district. */
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM (SELECT o_w_id FROM orders GROUP BY o_w_id, o_d_id "
                         "HAVING COUNT(DISTINCT o_c_id) = 3000 AND MIN(o_c_id) = 1 AND "
                         "MAX(o_c_id) = 3000) t",
                         -1),
                 20);
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM orders WHERE o_c_id = o_id", -1), 0);
    CHECK_EQ_U64(
        tdb_int(db, "SELECT COUNT(*) FROM orders WHERE (o_carrier_id IS NULL) <> (o_id > 2100)",
                -1),
        0);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM orders WHERE o_ol_cnt NOT BETWEEN 5 AND 15 OR "
                         "o_carrier_id NOT BETWEEN 1 AND 10 OR o_all_local <> 1",
                         -1),
                 0);
    /* Value ranges of tpcc_load (not the spec's). */
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM item WHERE i_price NOT BETWEEN 1.00 AND 100.00 OR "
                         "i_im_id NOT BETWEEN 1 AND 10000 OR CHAR_LENGTH(i_name) NOT BETWEEN 14 "
                         "AND 24 OR CHAR_LENGTH(i_data) NOT BETWEEN 26 AND 50",
                         -1),
                 0);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM warehouse WHERE w_tax NOT BETWEEN 0.10 AND 0.20 OR "
                         "w_ytd <> 300000.00 OR w_zip NOT REGEXP '^[0-9]{9}$'",
                         -1),
                 0);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM district WHERE d_tax NOT BETWEEN 0.10 AND 0.20 OR "
                         "d_ytd <> 30000.00 OR CHAR_LENGTH(d_state) <> 2",
                         -1),
                 0);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM customer WHERE c_discount NOT BETWEEN 0 AND 0.50 OR "
                         "c_balance <> -10.00 OR c_ytd_payment <> 10.00 OR c_payment_cnt <> 1 OR "
                         "c_delivery_cnt <> 0 OR c_middle <> 'OE' OR c_credit_lim <> 50000 OR "
                         "c_phone NOT REGEXP '^[0-9]{16}$' OR CHAR_LENGTH(c_data) NOT BETWEEN 300 "
                         "AND 500",
                         -1),
                 0);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM stock WHERE s_quantity NOT BETWEEN 10 AND 100 OR "
                         "s_ytd <> 0 OR s_order_cnt <> 0 OR s_remote_cnt <> 0 OR "
                         "CHAR_LENGTH(s_dist_10) <> 24",
                         -1),
                 0);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM order_line WHERE ol_quantity <> 5 OR "
                         "ol_supply_w_id <> ol_w_id OR ol_i_id NOT BETWEEN 1 AND 100000 OR "
                         "(ol_o_id <= 2100 AND (ol_amount <> 0 OR ol_delivery_d IS NULL)) OR "
                         "(ol_o_id > 2100 AND (ol_amount NOT BETWEEN 0.10 AND 100.00 OR "
                         "ol_delivery_d IS NOT NULL))",
                         -1),
                 0);
    CHECK_EQ_U64(
        tdb_int(db,
                "SELECT COUNT(*) FROM history WHERE h_amount <> 10.00 OR h_c_w_id <> "
                "h_w_id OR h_c_d_id <> h_d_id OR CHAR_LENGTH(h_data) NOT BETWEEN 12 AND 24",
                -1),
        0);
    /* One timestamp T for the whole load. */
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(DISTINCT t) FROM (SELECT c_since AS t FROM customer UNION "
                         "SELECT h_date FROM history UNION SELECT o_entry_d FROM orders UNION "
                         "SELECT ol_delivery_d FROM order_line WHERE ol_delivery_d IS NOT NULL) x",
                         -1),
                 1);
}

static void expect_fail(struct outcome o, const char *want)
{
    printf("check: rc %d: %s\n", o.rc, o.err.msg);
    CHECK(o.rc < 0);
    CHECK_MSG(strstr(o.err.msg, want) != NULL, "'%s' lacks '%s'", o.err.msg, want);
}

static void case_load(void)
{
    const char *cs = getenv("TPCC_LOAD_CONNS");
    uint32_t conns = cs && atoi(cs) > 0 ? (uint32_t)atoi(cs) : 4;

    create_tables();
    struct cmd c = {.cmd = PR_CMD_PREPARE,
                    .tables = {{1, 1, 2, false, false}, {2, 1, 100000, false, false}},
                    .ntables = 2,
                    .seed = 42,
                    .opts = {{"warehouses", "2"}},
                    .conns = conns};
    struct outcome o = run_cmd(&c);
    CHECK_MSG(o.rc == 0, "load: %s (%s)", o.err.msg, o.err.what);
    printf("loader streams alone: %zu streams, %llu rows in %.2f s over %u connections = %.0f "
           "rows/s\n",
           o.streams, (unsigned long long)o.rows, o.seconds, conns, (double)o.rows / o.seconds);
    check_counts(o.rows);
    check_shape();

    o = check_cmd(1, 2, true);
    CHECK_MSG(o.rc == 0, "check --check-all after the load: %s", o.err.msg);
    CHECK_EQ_U64(o.n_notes, 0); /* all 12 hold: nothing informational */
    printf("check --check-all of 2 warehouses (no indexes yet): %.2f s\n", o.seconds);

    /* Condition 12 broken right after a load: a hard failure. */
    tdb_exec(db, "UPDATE customer SET c_ytd_payment = 11.00 WHERE c_w_id = 1 AND c_d_id = 2 AND "
                 "c_id = 7");
    expect_fail(check_cmd(1, 2, true),
                "TPC-C condition 12 fails for warehouse 1 district 2 customer 7: c_balance = "
                "-10.00, c_ytd_payment = 11.00, sum(delivered ol_amount) = 0.00 (1 row breaks it)");
    tdb_exec(db, "UPDATE customer SET c_ytd_payment = 10.00 WHERE c_w_id = 1 AND c_d_id = 2 AND "
                 "c_id = 7");
    /* A payment as tpcc-mysql makes it (c_ytd_payment untouched): 12 breaks,
     * informational after a run; 1-11 hold. */
    tdb_exec(db, "UPDATE warehouse SET w_ytd = w_ytd + 5 WHERE w_id = 1");
    tdb_exec(db, "UPDATE district SET d_ytd = d_ytd + 5 WHERE d_w_id = 1 AND d_id = 2");
    tdb_exec(db,
             "UPDATE customer SET c_balance = c_balance - 5 WHERE c_w_id = 1 AND c_d_id = 2 AND "
             "c_id = 7");
    tdb_exec(db, "INSERT INTO history VALUES (7, 2, 1, 2, 1, NOW(), 5.00, 'test payment')");
    o = check_cmd(1, 2, true);
    CHECK_MSG(o.rc == 0, "check --check-all after a payment: %s", o.err.msg);
    /* ... and says so in a note for the coordinator's report (DONE.notes). */
    printf("note: %s\n", o.note);
    CHECK_EQ_U64(o.n_notes, 1);
    CHECK_MSG(strstr(o.note, "TPC-C condition 12 does not hold for warehouse 1 district 2 "
                             "customer 7") != NULL &&
                  strstr(o.note, "informational after a run") != NULL,
              "%s", o.note);
    tdb_exec(db, "DELETE FROM history WHERE h_amount = 5.00");
    tdb_exec(db,
             "UPDATE customer SET c_balance = c_balance + 5 WHERE c_w_id = 1 AND c_d_id = 2 AND "
             "c_id = 7");
    tdb_exec(db, "UPDATE district SET d_ytd = d_ytd - 5 WHERE d_w_id = 1 AND d_id = 2");
    /* ... but conditions 1-9 are never informational. */
    expect_fail(check_cmd(1, 2, true), "TPC-C condition 1 fails for warehouse 1: w_ytd = "
                                       "300005.00, sum(d_ytd) = 300000.00");
    tdb_exec(db, "UPDATE warehouse SET w_ytd = w_ytd - 5 WHERE w_id = 1");

    /* add_fkey_idx.sql after the load. */
    struct cmd ci = {.cmd = PR_CMD_PREPARE, .tables = {INDEX}, .ntables = 1, .seed = 42};
    o = run_cmd(&ci);
    CHECK_MSG(o.rc == 0, "indexes: %s (%s)", o.err.msg, o.err.what);
    printf("indexes and foreign keys: %.2f s\n", o.seconds);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE "
                         "CONSTRAINT_SCHEMA = DATABASE() AND CONSTRAINT_NAME LIKE 'fkey%'",
                         -1),
                 10);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(DISTINCT INDEX_NAME) FROM information_schema.STATISTICS "
                         "WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME IN ('idx_customer', "
                         "'idx_orders', 'fkey_stock_2', 'fkey_order_line_2')",
                         -1),
                 4);
    o = check_cmd(1, 2, false);
    CHECK_MSG(o.rc == 0, "check after the indexes: %s", o.err.msg);
    printf("check (conditions 1-4) of 2 warehouses: %.2f s\n", o.seconds);
    o = check_cmd(1, 2, true);
    CHECK_MSG(o.rc == 0, "check --check-all after the indexes: %s", o.err.msg);
    printf("check --check-all of 2 warehouses with the indexes: %.2f s\n", o.seconds);

    /* The test the issue names: one district's d_next_o_id. */
    tdb_exec(db, "UPDATE district SET d_next_o_id = 3005 WHERE d_w_id = 2 AND d_id = 3");
    expect_fail(check_cmd(1, 2, false),
                "TPC-C condition 2 fails for warehouse 2 district 3: d_next_o_id - 1 = 3004, "
                "max(o_id) = 3000, max(no_o_id) = 3000 (1 row breaks it); reload with `stampede "
                "tpcc prepare`");
    tdb_exec(db, "UPDATE district SET d_next_o_id = 3001 WHERE d_w_id = 2 AND d_id = 3");
    tdb_exec(db, "DELETE FROM new_orders WHERE no_w_id = 1 AND no_d_id = 9 AND no_o_id = 2500");
    expect_fail(check_cmd(1, 1, false),
                "TPC-C condition 3 fails for warehouse 1 district 9: max(no_o_id) = 3000, "
                "min(no_o_id) = 2101, rows in new_orders = 899");
    tdb_exec(db, "INSERT INTO new_orders VALUES (2500, 9, 1)");
    expect_fail(check_cmd(3, 3, false),
                "warehouse 3 is not loaded (0 warehouse rows, 0 districts)");

    tdb_exec(db, "DROP TABLE history");
    expect_fail(check_cmd(1, 2, false),
                "table history does not exist: run `stampede tpcc prepare` first");

    struct cmd cl = {.cmd = PR_CMD_CLEANUP, .tables = {CREATE}, .ntables = 1, .seed = 1};
    o = run_cmd(&cl);
    CHECK_MSG(o.rc == 0, "cleanup: %s", o.err.msg);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                         "DATABASE() AND TABLE_NAME IN ('warehouse', 'district', 'customer', "
                         "'history', 'new_orders', 'orders', 'order_line', 'item', 'stock')",
                         -1),
                 0);
}

/* ---- repeat ------------------------------------------------------------ */

static long long items_checksum(uint64_t seed, bool split)
{
    char buf[64];
    struct cmd c = {.cmd = PR_CMD_PREPARE,
                    .tables = {{2, 1, 100000, false, false}},
                    .ntables = 1,
                    .seed = seed,
                    .opts = {{"load-parts", "items"}},
                    .conns = 2};

    tdb_exec(db, "TRUNCATE TABLE item");
    if (split) { /* two agents' shares, each its own PLAN */
        c.tables[0] = (struct pr_msg_table){2, 1, 37000, false, false};
        struct outcome o = run_cmd(&c);
        CHECK_MSG(o.rc == 0, "items 1..37000: %s", o.err.msg);
        c.tables[0] = (struct pr_msg_table){2, 37001, 100000, false, false};
    }
    struct outcome o = run_cmd(&c);
    CHECK_MSG(o.rc == 0, "items: %s", o.err.msg);
    tdb_text(db,
             "SELECT SUM(CRC32(CONCAT_WS('|', i_id, i_im_id, i_name, i_price, i_data))) FROM item",
             buf, sizeof buf);
    printf("items seed %llu%s: checksum %s\n", (unsigned long long)seed, split ? " (split)" : "",
           buf);
    return atoll(buf);
}

static void case_repeat(void)
{
    create_tables();
    long long a = items_checksum(5, false);
    long long b = items_checksum(5, true);
    long long c = items_checksum(6, false);
    CHECK(a == b);
    CHECK(a != c);
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM item", -1), 100000);

    /* --load-parts=customer over warehouse 2 only (tpcc_load -l 3 -m 2 -n 2). */
    struct cmd part = {.cmd = PR_CMD_PREPARE,
                       .tables = {{1, 2, 2, false, false}},
                       .ntables = 1,
                       .seed = 5,
                       .opts = {{"load-parts", "customer"}},
                       .conns = 2};
    struct outcome po = run_cmd(&part);
    CHECK_MSG(po.rc == 0, "customer part: %s", po.err.msg);
    CHECK_EQ_U64(po.rows, 60000);
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM customer WHERE c_w_id = 2", -1), 30000);
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM history WHERE h_w_id = 2", -1), 30000);
    CHECK_EQ_U64(tdb_int(db,
                         "SELECT (SELECT COUNT(*) FROM customer WHERE c_w_id <> 2) + (SELECT "
                         "COUNT(*) FROM warehouse) + (SELECT COUNT(*) FROM stock) + (SELECT "
                         "COUNT(*) FROM orders) + (SELECT COUNT(*) FROM order_line)",
                         -1),
                 0);

    /* A partial prepare (warehouse part, like tpcc_load -l 2) needs the tables. */
    tdb_exec(db, "DROP TABLE stock");
    struct cmd p = {.cmd = PR_CMD_PREPARE,
                    .tables = {{1, 1, 1, false, false}},
                    .ntables = 1,
                    .seed = 5,
                    .opts = {{"load-parts", "warehouse"}},
                    .conns = 2};
    expect_fail(run_cmd(&p), "table stock does not exist: run `stampede tpcc prepare` first");
    /* A bad PLAN entry is refused before anything runs. */
    struct cmd bad = {
        .cmd = PR_CMD_PREPARE, .tables = {{2, 1, 100001, false, false}}, .ntables = 1};
    struct outcome o = run_cmd(&bad);
    CHECK(o.rc < 0 && o.streams == 0);
    CHECK(strstr(o.err.msg, "item range 1..100001 is outside 1..100000") != NULL);

    struct cmd cl = {.cmd = PR_CMD_CLEANUP, .tables = {CREATE}, .ntables = 1, .seed = 1};
    CHECK_EQ_U64((uint64_t)(-run_cmd(&cl).rc), 0);
}

/* ---- locks ------------------------------------------------------------- */

static struct outcome lock_out;

static void *lock_load(void *arg)
{
    lock_out = run_cmd(arg);
    return NULL;
}

/* Wait (up to 60 s) until the loader's INSERT waits for a lock. */
static bool lock_waited(const char *what)
{
    for (int i = 0; i < 3000; i++) {
        /* A 999-row INSERT takes milliseconds: one running for 500 ms waits
         * (INNODB_TRX does not always list a waiting autocommit INSERT). */
        if (tdb_int(db,
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE "
                    "'INSERT INTO item%' AND TIME_MS > 500",
                    -1) > 0) {
            printf("the loader waits for the held lock (%s) after %d ms\n", what, i * 20);
            return true;
        }
        uv_sleep(20);
    }
    return false;
}

static void case_locks(void)
{
    create_tables();
    /* A committed row, so the loader's first INSERT is no bulk insert into an
     * empty table (which would take a table lock and never deadlock). */
    tdb_exec(db, "INSERT INTO item VALUES (100000, 1, 'committed', 1.00, 'x')");
    tdb_exec(db, "DROP TABLE IF EXISTS lock_weight");
    tdb_exec(db, "CREATE TABLE lock_weight (n INT PRIMARY KEY) ENGINE=InnoDB");
    long long dl0 = tdb_status(db, "INNODB_DEADLOCKS");

    /* This session: heavy (20000 rows written: InnoDB picks the lighter
     * transaction as the deadlock victim) and holding item 5 uncommitted. */
    tdb_exec(db, "SET SESSION max_recursive_iterations = 100000");
    tdb_exec(db, "START TRANSACTION");
    tdb_exec(db, "INSERT INTO lock_weight WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 "
                 "FROM s WHERE n < 20000) SELECT n FROM s");
    tdb_exec(db, "INSERT INTO item VALUES (5, 1, 'held', 1.00, 'x')");

    struct cmd c = {.cmd = PR_CMD_PREPARE,
                    .tables = {{2, 1, 999, false, false}},
                    .ntables = 1,
                    .seed = 1,
                    .conns = 1};
    /* No CHECK while the loader runs: its thread CHECKs too (testlib's
     * counters are not atomic); this thread's outcomes are checked after. */
    pthread_t th;
    int created = pthread_create(&th, NULL, lock_load, &c);
    /* The loader inserted items 1..4 and waits for 5; asking for item 1
     * closes the cycle: a deadlock, the loader's INSERT its victim. */
    bool waited1 = created == 0 && lock_waited("first attempt");
    char victim[512] = "";
    if (mysql_query(db, "SELECT i_id FROM item WHERE i_id = 1 FOR UPDATE") != 0)
        snprintf(victim, sizeof victim, "%u: %s", mysql_errno(db), mysql_error(db));
    MYSQL_RES *r = mysql_store_result(db);
    if (r)
        mysql_free_result(r);
    /* The INSERT is sent again and waits for this session's locks again. */
    bool waited2 = created == 0 && lock_waited("sent again");
    long long dl1 = tdb_status(db, "INNODB_DEADLOCKS");
    tdb_exec(db, "ROLLBACK");
    int joined = created == 0 ? pthread_join(th, NULL) : -1;
    CHECK(created == 0 && joined == 0);
    CHECK(waited1);
    CHECK_MSG(victim[0] == '\0',
              "this session's locking read failed (%s): InnoDB chose it, not the loader, as the "
              "victim",
              victim);
    CHECK(waited2);

    printf("load: rc %d, %llu rows, %llu statements sent again, %lld deadlock(s) on the server: "
           "%s\n",
           lock_out.rc, (unsigned long long)lock_out.rows, (unsigned long long)lock_out.errors,
           dl1 - dl0, lock_out.err.msg);
    CHECK_MSG(lock_out.rc == 0, "the load failed: %s", lock_out.err.msg);
    CHECK(dl1 - dl0 >= 1);
    CHECK(lock_out.errors >= 1);
    CHECK_EQ_U64(lock_out.rows, 999);
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM item WHERE i_id BETWEEN 1 AND 999", -1), 999);
    CHECK_EQ_U64(tdb_int(db, "SELECT COUNT(*) FROM item WHERE i_name = 'held'", -1), 0);
    tdb_exec(db, "DROP TABLE lock_weight");
    struct cmd cl = {.cmd = PR_CMD_CLEANUP, .tables = {CREATE}, .ntables = 1, .seed = 1};
    CHECK_EQ_U64((uint64_t)(-run_cmd(&cl).rc), 0);
}

int main(int argc, char **argv)
{
    tdb_env_init(&env);
    db = tdb_connect(&env);
    const char *only = argc > 1 ? argv[1] : NULL;
    if (!only || strcmp(only, "load") == 0)
        case_load();
    if (!only || strcmp(only, "repeat") == 0)
        case_repeat();
    if (!only || strcmp(only, "locks") == 0)
        case_locks();
    mysql_close(db);
    mysql_library_end();
    return TEST_END();
}
