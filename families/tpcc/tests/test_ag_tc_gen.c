/* test_ag_tc_gen: the tpcc family's generator (families/tpcc/agent/ag_tc_gen) driven
 * directly, without a server: results come from a small fake database
 * (fake_result). Checks the statement set, the deck, autocommit, the
 * inputs kept on retries, --max-retries, New-Order's invalid item,
 * Payment's by-name choice, Stock-Level's per-item loop, Delivery's
 * per-district commits, home warehouses, the share and option errors, the
 * final COMMIT, --mysql-dry-run's empty results, and no allocation per statement
 * (--wrap=malloc,calloc, realloc); ag__tc_money against snprintf("%.2f").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_registry.h"
#include "ag_tc_gen_int.h"
#include "pr_tc_opts.h"
#define TESTLIB_COUNT_ALLOCS /* nallocs: the library must not allocate per event */
#include "testlib.h"

/* ---- a fake database ------------------------------------------------------ */

static int64_t rows_buf[AG_RESULT_MAX_ROWS];
static uint32_t dl_empty_district; /* Delivery finds no new order here (0: none) */
static uint64_t n_stmts;

static void set_col(struct ag_result *r, uint32_t i, const char *text, bool num)
{
    r->col[i] = text;
    r->col_len[i] = (uint32_t)strlen(text);
    r->is_num[i] = num;
    r->ival[i] = num ? strtoll(text, NULL, 10) : 0;
    r->dval[i] = num ? strtod(text, NULL) : 0;
    if (i + 1 > r->ncols)
        r->ncols = i + 1;
}

static void fill_n(struct ag_result *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        set_col(r, i, "x", false);
}

/* What the server would answer to call (a successful statement). */
static void fake_result(const struct ag_call *c, struct ag_result *r)
{
    static const char *dists[10] = {"dist01-aaaaaaaaaaaaaaaaa",
                                    "dist02",
                                    "dist03",
                                    "dist04",
                                    "dist05",
                                    "dist06",
                                    "dist07",
                                    "dist08",
                                    "dist09",
                                    "dist10-zzzzzzzzzzzzzzzzz"};
    memset(r, 0, sizeof *r);
    r->errmsg = "";
    r->rows = 1;
    n_stmts++;
    switch (c->stmt) {
    case AG_TC_NO_CUST_WH:
        fill_n(r, 4);
        set_col(r, 0, "0.10", true);
        set_col(r, 3, "0.15", true);
        break;
    case AG_TC_NO_DIST:
        set_col(r, 0, "3001", true);
        set_col(r, 1, "0.12", true);
        break;
    case AG_TC_NO_ITEM:
        r->rows = c->ival[0] <= PR_TC_ITEMS ? 1 : 0;
        if (r->rows)
            set_col(r, 0, "10.00", true), set_col(r, 1, "name", false), set_col(r, 2, "d", false);
        break;
    case AG_TC_NO_STOCK:
        set_col(r, 0, "50", true);
        set_col(r, 1, "data", false);
        for (uint32_t i = 0; i < 10; i++)
            set_col(r, 2 + i, dists[i], false);
        break;
    case AG_TC_PY_WH:
    case AG_TC_PY_DIST:
        fill_n(r, 6);
        set_col(r, 5, c->stmt == AG_TC_PY_WH ? "WNAME" : "DNAME", false);
        break;
    case AG_TC_PY_CNT:
        set_col(r, 0, "3", true);
        break;
    case AG_TC_PY_BYNAME:
        rows_buf[0] = 11, rows_buf[1] = 22, rows_buf[2] = 33;
        r->rows = 3;
        r->row_ival = rows_buf;
        r->nrow_ival = 3;
        set_col(r, 0, "11", true);
        break;
    case AG_TC_PY_CUST:
        fill_n(r, 14);
        set_col(r, 9, c->ival[2] % 2 ? "BC" : "GC", false);
        set_col(r, 12, "100.00", true);
        break;
    case AG_TC_PY_CDATA:
        set_col(r, 0, "the-old-c-data", false);
        break;
    case AG_TC_OS_ORDER:
        set_col(r, 0, "77", true);
        break;
    case AG_TC_DL_MIN:
        set_col(r, 0, (uint32_t)c->ival[0] == dl_empty_district ? "0" : "2101", true);
        break;
    case AG_TC_DL_OCID:
        set_col(r, 0, "5", true);
        break;
    case AG_TC_DL_SUM:
        set_col(r, 0, "12.50", true);
        break;
    case AG_TC_SL_DIST:
        set_col(r, 0, "3001", true);
        break;
    case AG_TC_SL_ITEMS_Q:
        rows_buf[0] = 7, rows_buf[1] = 8, rows_buf[2] = 9;
        r->rows = 3;
        r->row_ival = rows_buf;
        r->nrow_ival = 3;
        set_col(r, 0, "7", true);
        break;
    default:
        r->rows = 0;
        break;
    }
}

/* ---- helpers ---------------------------------------------------------------- */

static struct ag_wl *wl_make(const char *warehouses, const char *max_retries)
{
    struct ag_kv kv[] = {{"warehouses", warehouses}, {"max-retries", max_retries}};
    struct pr_error err = {0};
    struct ag_wl *wl = ag_registry_wl_new("tpcc", kv, 2, &err);
    CHECK_MSG(wl != NULL, "%s", err.msg);
    if (wl == NULL)
        exit(TEST_END());
    return wl;
}

static bool is_text(const struct ag_call *c, const char *sql)
{
    return c->stmt < 0 && c->text_len == strlen(sql) && memcmp(c->text, sql, c->text_len) == 0;
}

/* A call as comparable text: statement, kind and parameters (dates and
 * other strings included unless skip_dates and the string looks like one). */
static void call_text(const struct ag_wl *wl, const struct ag_call *c, char *buf, size_t cap,
                      bool skip_dates)
{
    size_t n = 0;
    if (c->stmt < 0) {
        snprintf(buf, cap, "text %.*s kind %u", (int)c->text_len, c->text, c->kind_id);
        return;
    }
    const struct ag_stmt_def *d = wl->fam->wl_stmt(wl, (size_t)c->stmt);
    n += (size_t)snprintf(buf + n, cap - n, "stmt %d kind %u:", c->stmt, c->kind_id);
    for (uint32_t i = 0; i < c->nparams && n < cap; i++) {
        if (d->type[i] == AG_PARAM_INT)
            n += (size_t)snprintf(buf + n, cap - n, " %lld", (long long)c->ival[i]);
        else if (skip_dates && c->slen[i] == 19 && c->sval[i][4] == '-')
            n += (size_t)snprintf(buf + n, cap - n, " <date>");
        else
            n += (size_t)snprintf(buf + n, cap - n, " '%.*s'", (int)c->slen[i], c->sval[i]);
    }
}

/* Run one event to its end with fake results; returns how it ended. */
static enum ag_step run_event(const struct ag_family *f, struct ag_gen *g, uint32_t *commits)
{
    struct ag_call call;
    struct ag_result res;
    f->begin(g);
    for (int i = 0; i < 10000; i++) {
        memset(&call, 0, sizeof call);
        enum ag_step s = f->next(g, &call);
        if (s != AG_STEP_STMT)
            return s;
        if (commits && is_text(&call, "COMMIT"))
            (*commits)++;
        fake_result(&call, &res);
        f->result(g, &res);
    }
    CHECK(!"an event never ends");
    return AG_STEP_FAILED;
}

/* ---- cases ------------------------------------------------------------------ */

static void test_stmts(void)
{
    struct ag_wl *wl = wl_make("2", "5");
    const struct ag_family *f = wl->fam;
    const char *const *names;

    CHECK(strcmp(f->name, "tpcc") == 0);
    CHECK_EQ_U64(f->wl_nstmts(wl), 35);
    CHECK_EQ_U64(f->wl_kinds(wl, &names), PR_TC_K_COUNT_);
    CHECK(strcmp(names[PR_TC_K_RETRY_ROLLBACK], "retry_rollback") == 0);
    uint32_t per[PR_TC_K_COUNT_] = {0};
    for (size_t i = 0; i < 35; i++) {
        const struct ag_stmt_def *d = f->wl_stmt(wl, i);
        uint32_t marks = 0;
        for (const char *p = d->sql; *p; p++)
            marks += *p == '?';
        CHECK_EQ_U64(marks, d->nparams);
        CHECK_EQ_U64(strlen(d->sql), d->sql_len);
        per[d->kind_id]++;
    }
    /* tpcc_start's split: 9 New-Order, 11 Payment, 5 Order-Status, 7 Delivery, 3 Stock-Level */
    CHECK_EQ_U64(per[PR_TC_K_NEW_ORDER_STMT], 9);
    CHECK_EQ_U64(per[PR_TC_K_PAYMENT_STMT], 11);
    CHECK_EQ_U64(per[PR_TC_K_ORDER_STATUS_STMT], 5);
    CHECK_EQ_U64(per[PR_TC_K_DELIVERY_STMT], 7);
    CHECK_EQ_U64(per[PR_TC_K_STOCK_LEVEL_STMT], 3);
    CHECK(strcmp(f->wl_stmt(wl, 33)->sql,
                 "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND "
                 "ol_o_id < ? AND ol_o_id >= (? - 20)") == 0);
    f->wl_destroy(&wl);
    CHECK(wl == NULL);
}

/* The deck of 23; autocommit only at the first event; kinds of calls;
 * statement counts of each type; no allocation per statement. */
static void test_deck_and_calls(void)
{
    struct ag_wl *wl = wl_make("3", "5");
    const struct ag_family *f = wl->fam;
    struct ag_gen *g = f->gen_new(wl, 42, 0, 1);
    struct ag_call call;
    struct ag_result res;
    uint32_t types[PR_TC_TXN_COUNT_] = {0};

    memset(&call, 0, sizeof call);
    f->begin(g);
    CHECK(f->next(g, &call) == AG_STEP_STMT);
    CHECK(is_text(&call, "SET autocommit=0") && call.kind_id >= PR_TC_K_COUNT_);
    fake_result(&call, &res);
    f->result(g, &res);
    uint16_t first_kind = 0;
    CHECK(f->next(g, &call) == AG_STEP_STMT && call.stmt >= 0);
    first_kind = call.kind_id;
    for (;;) { /* finish the first event */
        fake_result(&call, &res);
        f->result(g, &res);
        if (f->next(g, &call) != AG_STEP_STMT)
            break;
    }
    uint16_t k0 = f->event_kind(g);
    CHECK(k0 < PR_TC_TXN_COUNT_ && first_kind == PR_TC_K_NEW_ORDER_STMT + k0);
    types[k0]++;
    uint64_t a0 = nallocs;
    for (int e = 1; e < 23 * 40; e++) {
        enum ag_step s = run_event(f, g, NULL);
        CHECK(s == AG_STEP_COMMITTED || s == AG_STEP_ROLLED_BACK);
        uint16_t k = f->event_kind(g);
        CHECK(k < PR_TC_TXN_COUNT_);
        if (k < PR_TC_TXN_COUNT_)
            types[k]++;
        if (e % 23 == 22) { /* each deck holds 10/10/1/1/1 */
            CHECK_EQ_U64(types[0], 10 * (e + 1) / 23);
            CHECK_EQ_U64(types[4], (e + 1) / 23);
        }
    }
    printf("920 events, %llu statements: %u/%u/%u/%u/%u; allocations %llu\n",
           (unsigned long long)n_stmts, types[0], types[1], types[2], types[3], types[4],
           (unsigned long long)(nallocs - a0));
    CHECK_EQ_U64(nallocs - a0, 0);
    CHECK_EQ_U64(types[1], 400);
    CHECK_EQ_U64(types[2] + types[3], 80);
    /* the final COMMIT, once */
    CHECK(f->finish(g, &call) && is_text(&call, "COMMIT") && call.kind_id == PR_TC_K_COMMIT);
    CHECK(!f->finish(g, &call));
    f->gen_destroy(&g);
    CHECK(g == NULL);
    f->wl_destroy(&wl);
}

/* A failed statement at position k of each transaction type: ROLLBACK
 * (retry_rollback), then the attempt's statements again with the same
 * parameters (the dates aside); a client error also re-sends autocommit. */
static void test_retry_keeps_inputs(void)
{
    struct ag_wl *wl = wl_make("5", "100");
    const struct ag_family *f = wl->fam;
    struct ag_gen *g = f->gen_new(wl, 7, 3, 4);
    static char seen[64][600], again[600];
    struct ag_call call;
    struct ag_result res;
    uint32_t checked[PR_TC_TXN_COUNT_] = {0};

    run_event(f, g, NULL); /* past the autocommit */
    for (int e = 0; e < 230; e++) {
        uint32_t k = 1 + (uint32_t)e % 7, n = 0;
        enum ag_step s = AG_STEP_STMT;
        f->begin(g);
        memset(&call, 0, sizeof call);
        while (n < k && (s = f->next(g, &call)) == AG_STEP_STMT) {
            call_text(wl, &call, seen[n++], sizeof seen[0], true);
            if (n < k) {
                fake_result(&call, &res);
                f->result(g, &res);
            }
        }
        if (s != AG_STEP_STMT)
            continue; /* the event was shorter than k */
        /* statement n-1 fails */
        memset(&res, 0, sizeof res);
        res.err_no = e % 3 == 0 ? 2013 : e % 3 == 1 ? 1213 : 1205;
        res.errmsg = "fail";
        CHECK(f->retry(g, &res));
        CHECK(f->next(g, &call) == AG_STEP_STMT);
        if (res.err_no == 2013) { /* maybe a new session: autocommit first */
            CHECK(is_text(&call, "SET autocommit=0"));
            f->next(g, &call);
        }
        CHECK(is_text(&call, "ROLLBACK") && call.kind_id == PR_TC_K_RETRY_ROLLBACK);
        for (uint32_t i = 0; i < n; i++) {
            CHECK(f->next(g, &call) == AG_STEP_STMT);
            call_text(wl, &call, again, sizeof again, true);
            CHECK_MSG(strcmp(again, seen[i]) == 0, "event %d statement %u: %s vs %s", e, i, seen[i],
                      again);
            fake_result(&call, &res);
            f->result(g, &res);
        }
        checked[f->event_kind(g)]++;
        for (int i = 0; i < 10000 && (s = f->next(g, &call)) == AG_STEP_STMT; i++) {
            fake_result(&call, &res);
            f->result(g, &res);
        }
        CHECK(s == AG_STEP_COMMITTED || s == AG_STEP_ROLLED_BACK);
    }
    printf("retries checked per type: %u %u %u %u %u\n", checked[0], checked[1], checked[2],
           checked[3], checked[4]);
    for (int t = 0; t < PR_TC_TXN_COUNT_; t++)
        CHECK(checked[t] > 0);
    f->gen_destroy(&g);
    f->wl_destroy(&wl);
}

/* --max-retries=3: the third failure ends the event (after its ROLLBACK). */
static void test_max_retries(void)
{
    struct ag_wl *wl = wl_make("1", "3");
    const struct ag_family *f = wl->fam;
    struct ag_gen *g = f->gen_new(wl, 1, 0, 1);
    struct ag_call call;
    struct ag_result res = {.err_no = 1205, .errmsg = "lock wait"};
    int attempts = 0;

    run_event(f, g, NULL);
    f->begin(g);
    CHECK(f->next(g, &call) == AG_STEP_STMT);
    for (;;) {
        attempts++;
        CHECK(f->retry(g, &res));
        CHECK(f->next(g, &call) == AG_STEP_STMT && is_text(&call, "ROLLBACK"));
        enum ag_step s = f->next(g, &call);
        if (s == AG_STEP_FAILED)
            break;
        CHECK(s == AG_STEP_STMT && call.stmt >= 0);
        if (attempts > 5)
            break;
    }
    CHECK_EQ_U64(attempts, 3);
    f->gen_destroy(&g);
    f->wl_destroy(&wl);
}

/* New-Order's invalid item: ROLLBACK (kind rollback), rolled back on
 * purpose; Payment by name pays the ceil(n/2)-th customer; Stock-Level
 * counts each item; Delivery commits per district with a new order. */
static void test_paths(void)
{
    struct ag_wl *wl = wl_make("1", "5");
    const struct ag_family *f = wl->fam;
    struct ag_gen *g = f->gen_new(wl, 3, 0, 1);
    struct ag_call call;
    struct ag_result res;
    uint32_t rolled = 0, byname = 0, sl = 0, dl = 0;

    dl_empty_district = 3;
    run_event(f, g, NULL);
    for (int e = 0; e < 23 * 30; e++) {
        uint32_t commits = 0, stock = 0;
        int64_t paid = -1, items[4];
        bool asked_name = false, invalid = false;
        enum ag_step s;
        f->begin(g);
        memset(&call, 0, sizeof call);
        while ((s = f->next(g, &call)) == AG_STEP_STMT) {
            if (is_text(&call, "COMMIT"))
                commits++;
            if (call.stmt == AG_TC_NO_ITEM && call.ival[0] > PR_TC_ITEMS)
                invalid = true;
            if (is_text(&call, "ROLLBACK"))
                CHECK(invalid && call.kind_id == PR_TC_K_ROLLBACK);
            if (call.stmt == AG_TC_PY_BYNAME)
                asked_name = true;
            if (call.stmt == AG_TC_PY_CUST)
                paid = call.ival[2];
            if (call.stmt == AG_TC_SL_STOCK && stock < 4)
                items[stock++] = call.ival[1];
            if (call.stmt == AG_TC_DL_DEL)
                CHECK(call.ival[1] != 3);
            if (call.stmt == AG_TC_NO_OL) /* the home district's s_dist */
                CHECK(call.slen[8] == strlen(call.ival[1] == 1    ? "dist01-aaaaaaaaaaaaaaaaa"
                                             : call.ival[1] == 10 ? "dist10-zzzzzzzzzzzzzzzzz"
                                                                  : "dist02"));
            fake_result(&call, &res);
            f->result(g, &res);
        }
        uint16_t k = f->event_kind(g);
        if (invalid) {
            CHECK(k == PR_TC_K_NEW_ORDER && s == AG_STEP_ROLLED_BACK && commits == 0);
            rolled++;
            continue;
        }
        CHECK(s == AG_STEP_COMMITTED);
        if (k == PR_TC_K_PAYMENT && asked_name) {
            CHECK_EQ_U64(paid, 22); /* n = 3: the 2nd by c_first */
            byname++;
        }
        if (k == PR_TC_K_STOCK_LEVEL) {
            CHECK(stock == 3 && items[0] == 7 && items[1] == 8 && items[2] == 9 && commits == 1);
            sl++;
        }
        if (k == PR_TC_K_DELIVERY) {
            CHECK_EQ_U64(commits, 9); /* district 3 had no new order */
            dl++;
        }
    }
    printf("paths: %u invalid-item rollbacks, %u by-name payments, %u stock levels, %u "
           "deliveries\n",
           rolled, byname, sl, dl);
    CHECK(rolled > 0 && byname > 0 && sl == 30 && dl == 30);
    dl_empty_district = 0;
    f->gen_destroy(&g);
    f->wl_destroy(&wl);
}

/* --partition=warehouses: home warehouse lo + i % (hi - lo + 1) in every
 * transaction; bad shares are refused. */
static void test_share(void)
{
    struct ag_wl *wl = wl_make("5", "5");
    const struct ag_family *f = wl->fam;
    struct pr_error err = {0};
    struct pr_msg_table t = {.table = 1, .id_lo = 3, .id_hi = 4};
    struct pr_msg_table two[2] = {t, t};
    struct pr_msg_table beyond = {.table = 1, .id_lo = 4, .id_hi = 6};

    CHECK(f->wl_set_share(wl, PR_PART_TABLES, &t, 1, &err) == PR_EINVAL);
    printf("tables: %s\n", err.msg);
    CHECK(strstr(err.msg, "--partition=warehouses") != NULL);
    CHECK(f->wl_set_share(wl, PR_PART_WAREHOUSES, two, 2, &err) == PR_EINVAL);
    CHECK(f->wl_set_share(wl, PR_PART_WAREHOUSES, &beyond, 1, &err) == PR_EINVAL);
    printf("beyond: %s\n", err.msg);
    CHECK(f->wl_set_share(wl, PR_PART_WAREHOUSES, NULL, 0, &err) == PR_EINVAL);
    CHECK(f->wl_set_share(wl, PR_PART_WAREHOUSES, &t, 1, &err) == 0);
    for (uint32_t conn = 4; conn < 6; conn++) {
        struct ag_gen *g = f->gen_new(wl, conn, conn, 8);
        struct ag_call call;
        struct ag_result res;
        int64_t home = 3 + conn % 2;
        uint32_t seen = 0;
        run_event(f, g, NULL);
        for (int e = 0; e < 46; e++) {
            f->begin(g);
            bool first = true;
            while (f->next(g, &call) == AG_STEP_STMT) {
                if (first) {
                    int w = call.stmt == AG_TC_PY_WH_UPD || call.stmt == AG_TC_DL_MIN ||
                                    call.stmt == AG_TC_SL_DIST
                                ? 1
                                : 0;
                    CHECK_MSG(call.ival[w] == home, "stmt %d w %lld home %lld", call.stmt,
                              (long long)call.ival[w], (long long)home);
                    seen++;
                    first = false;
                }
                fake_result(&call, &res);
                f->result(g, &res);
            }
        }
        CHECK_EQ_U64(seen, 46);
        f->gen_destroy(&g);
    }
    CHECK(f->wl_set_share(wl, PR_PART_NONE, NULL, 0, &err) == 0);
    f->wl_destroy(&wl);

    struct ag_kv bad[] = {{"warehouses", "0"}};
    CHECK(ag_registry_wl_new("tpcc", bad, 1, &err) == NULL);
    printf("warehouses=0: %s\n", err.msg);
    CHECK(strstr(err.msg, "warehouses") != NULL);
    struct ag_kv unknown[] = {{"tables", "3"}};
    CHECK(ag_registry_wl_new("tpcc", unknown, 1, &err) == NULL);
    printf("tables=3: %s\n", err.msg);
}

/* --mysql-dry-run: every result is empty; no transaction fails on a
 * missing row, only the unused item rolls back. */
static void test_dry_run(void)
{
    struct ag_kv kv[] = {{"warehouses", "2"}, {"mysql-dry-run", "on"}};
    struct pr_error err = {0};
    struct ag_wl *wl = ag_registry_wl_new("tpcc", kv, 2, &err);
    CHECK_MSG(wl != NULL, "%s", err.msg);
    if (wl == NULL)
        return;
    const struct ag_family *f = wl->fam;
    struct ag_gen *g = f->gen_new(wl, 5, 0, 1);
    struct ag_call call;
    struct ag_result res;
    uint32_t ended[4] = {0}, invalid = 0;

    for (int e = 0; e < 23 * 20; e++) {
        enum ag_step s;
        bool inv = false;
        f->begin(g);
        while ((s = f->next(g, &call)) == AG_STEP_STMT) {
            inv = inv || (call.stmt == AG_TC_NO_ITEM && call.ival[0] > PR_TC_ITEMS);
            memset(&res, 0, sizeof res);
            res.errmsg = "";
            f->result(g, &res);
        }
        ended[s]++;
        invalid += inv;
        CHECK(inv ? s == AG_STEP_ROLLED_BACK : s == AG_STEP_COMMITTED);
    }
    printf("dry run: %u committed, %u rolled back (%u invalid items), %u failed\n",
           ended[AG_STEP_COMMITTED], ended[AG_STEP_ROLLED_BACK], invalid, ended[AG_STEP_FAILED]);
    CHECK_EQ_U64(ended[AG_STEP_FAILED], 0);
    f->gen_destroy(&g);
    f->wl_destroy(&wl);
}

/* tpcc_start -m 3 -o 2: connection t opens "<mysql-db>_<(t % 3) + 2>"
 * (wl_conn_db), reconnects too; a missing schema's hint names the range and
 * tpcc_load; without -m every connection takes PLAN.database (NULL). */
static void test_conn_db(void)
{
    struct ag_kv kv[] = {{"warehouses", "4"},
                         {"mysql-db", "tp"},
                         {"multi-schema", "3"},
                         {"multi-schema-offset", "2"}};
    struct pr_error err = {0};
    struct ag_wl *wl = ag_registry_wl_new("tpcc", kv, 4, &err);
    CHECK_MSG(wl != NULL, "%s", err.msg);
    if (wl == NULL)
        return;
    const struct ag_family *f = wl->fam;
    static const char *const want[] = {"tp_2", "tp_3", "tp_4", "tp_2", "tp_3", "tp_4", "tp_2"};
    for (uint32_t t = 0; t < 7; t++) {
        const char *db = f->wl_conn_db(wl, t);
        CHECK_MSG(db && strcmp(db, want[t]) == 0, "connection %u: %s, want %s", t, db ? db : "NULL",
                  want[t]);
    }
    CHECK(f->wl_conn_db(wl, 1) == f->wl_conn_db(wl, 4)); /* one name per schema, kept */
    const char *h = f->wl_error_hint(wl, 1049);
    printf("hint: %s\n", h ? h : "NULL");
    CHECK(h && strstr(h, "tp_2..tp_4") && strstr(h, "stampede tpcc_load -d") && strstr(h, "-w 4"));
    CHECK(f->wl_error_hint(wl, 1146) == h);
    CHECK(f->wl_error_hint(wl, 1044) == NULL); /* the engine's advice until the PLAN is in */
    /* The PLAN says the command and the user: access denied names the
     * schemas and the GRANT; prepare's missing schema says to create it. */
    struct pr_msg_plan pl = {.cmd = PR_CMD_PREPARE, .user = "bob", .database = "tp_2"};
    CHECK(f->wl_set_plan(wl, &pl, &err) == 0);
    for (unsigned e = 0; e < 3; e++) {
        const char *g = f->wl_error_hint(wl, (unsigned[]){1044, 1045, 1142}[e]);
        if (e == 0)
            printf("grant hint: %s\n", g ? g : "NULL");
        CHECK(g && strstr(g, "user 'bob'") && strstr(g, "tp_2..tp_4") &&
              strstr(g, "GRANT ALL ON `tp\\_%`.* TO 'bob'@'%'") && strstr(g, "CREATE"));
    }
    h = f->wl_error_hint(wl, 1049);
    printf("prepare hint: %s\n", h ? h : "NULL");
    CHECK(h && strstr(h, "CREATE DATABASE") && strstr(h, "tp_2..tp_4"));
    pl.cmd = PR_CMD_CHECK;
    CHECK(f->wl_set_plan(wl, &pl, &err) == 0);
    h = f->wl_error_hint(wl, 1142);
    CHECK(h && strstr(h, "tpcc check needs at least SELECT)"));
    f->wl_destroy(&wl);

    struct ag_kv off[] = {{"warehouses", "1"}, {"mysql-db", "tp"}};
    wl = ag_registry_wl_new("tpcc", off, 2, &err);
    CHECK_MSG(wl != NULL, "%s", err.msg);
    if (wl == NULL)
        return;
    CHECK(wl->fam->wl_conn_db(wl, 0) == NULL && wl->fam->wl_conn_db(wl, 5) == NULL);
    CHECK(strstr(wl->fam->wl_error_hint(wl, 1146), "stampede tpcc prepare"));
    CHECK(wl->fam->wl_error_hint(wl, 1049) == NULL);
    struct pr_msg_plan one = {.cmd = PR_CMD_RUN, .user = "bob", .database = "tp"};
    CHECK(wl->fam->wl_set_plan(wl, &one, &err) == 0);
    h = wl->fam->wl_error_hint(wl, 1044);
    CHECK(h && strstr(h, "the database tp:") && strstr(h, "GRANT ALL ON `tp`.* TO 'bob'@'%'"));
    wl->fam->wl_destroy(&wl);
}

/* ag__tc_money writes what snprintf("%.2f", (double)v) writes, for every
 * float tried: exact ties (k/8), negatives and -0, values that round to
 * -0.00, big amounts, tpcc's money range in random cents and random bit
 * patterns; its fast path is not printf. */
static void test_money(void)
{
    static const float edge[] = {0.0f,    -0.0f,  0.125f,     0.375f,  0.625f,   2.5f,    -0.125f,
                                 -0.004f, 0.005f, 0.015f,     1.005f,  9.995f,   99.995f, 5000.0f,
                                 -10.0f,  1e7f,   123456.78f, 3.4e38f, -3.4e38f, 1e-30f};
    char a[AG_TC_NUM], b[AG_TC_NUM];
    uint64_t tried = 0, bad = 0;
    uint64_t x = 88172645463325252ull;
    for (uint32_t i = 0; i < sizeof edge / sizeof edge[0] + 400000; i++) {
        float v;
        if (i < sizeof edge / sizeof edge[0]) {
            v = edge[i];
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
            if (i % 4 == 0) {                        /* any bit pattern, NaN and inf left out */
                uint32_t bits = (uint32_t)x;
                memcpy(&v, &bits, sizeof v);
                if (!isfinite(v))
                    continue;
            } else if (i % 4 == 1) {
                v = (float)((int64_t)(x % 2000001) - 1000000) / 8.0f; /* ties */
            } else {
                v = (float)((int64_t)(x % 10000001) - 5000000) / 100.0f; /* cents */
            }
        }
        uint32_t n = ag__tc_money(a, v);
        snprintf(b, sizeof b, "%.2f", (double)v);
        tried++;
        if (strcmp(a, b) != 0 || n != strlen(b)) {
            if (bad++ < 5)
                fprintf(stderr, "money %a: \"%s\" (%u), snprintf \"%s\"\n", (double)v, a, n, b);
        }
    }
    printf("money: %" PRIu64 " floats, %" PRIu64 " differ from snprintf\n", tried, bad);
    CHECK(tried > 300000 && bad == 0);
}

int main(void)
{
    test_money();
    test_stmts();
    test_deck_and_calls();
    test_retry_keeps_inputs();
    test_max_retries();
    test_paths();
    test_share();
    test_dry_run();
    test_conn_db();
    return TEST_END();
}
