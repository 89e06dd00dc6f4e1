/* ag_tc_gen: the tpcc workload and its per-connection generator, tpcc_start's
 * transactions statement for statement (contract: ag_tc_gen.h). Here the
 * statement set, the deck, the inputs and the event machinery; the five
 * transactions' statement sequences are in ag_tc_txn.c. */
#include "ag_tc_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ag_tc_gen_int.h"
#include "pr_err.h"

/* tpcc_start's statements, its order (main.c's prepare list): SQL text and
 * parameter types ('i' integer, 's' string: also tpcc_start's floats). */
static const struct {
    const char *sql;
    const char *types;
    uint16_t kind;
} stmt_table[AG_TC_NSTMTS] = {
#define NO PR_TC_K_NEW_ORDER_STMT
#define PY PR_TC_K_PAYMENT_STMT
#define OS PR_TC_K_ORDER_STATUS_STMT
#define DL PR_TC_K_DELIVERY_STMT
#define SL PR_TC_K_STOCK_LEVEL_STMT
    {"SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND "
     "c_w_id = w_id AND c_d_id = ? AND c_id = ?",
     "iii", NO},
    {"SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE", "ii", NO},
    {"UPDATE district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?", "iii", NO},
    {"INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) "
     "VALUES(?, ?, ?, ?, ?, ?, ?)",
     "iiiisii", NO},
    {"INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (?,?,?)", "iii", NO},
    {"SELECT i_price, i_name, i_data FROM item WHERE i_id = ?", "i", NO},
    {"SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, "
     "s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_i_id = ? AND "
     "s_w_id = ? FOR UPDATE",
     "ii", NO},
    {"UPDATE stock SET s_quantity = ? WHERE s_i_id = ? AND s_w_id = ?", "iii", NO},
    {"INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
     "ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
     "iiiiiiiss", NO},
    {"UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?", "ii", PY},
    {"SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = "
     "?",
     "i", PY},
    {"UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?", "iii", PY},
    {"SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = "
     "? AND d_id = ?",
     "ii", PY},
    {"SELECT count(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?", "iis", PY},
    {"SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
     "iis", PY},
    {"SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, "
     "c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND "
     "c_d_id = ? AND c_id = ? FOR UPDATE",
     "iii", PY},
    {"SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", "iii", PY},
    {"UPDATE customer SET c_balance = ?, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
     "ssiii", PY},
    {"UPDATE customer SET c_balance = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", "siii", PY},
    {"INSERT INTO history(h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
     "VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
     "iiiiisis", PY},
    {"SELECT count(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?", "iis", OS},
    {"SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? "
     "AND c_last = ? ORDER BY c_first",
     "iis", OS},
    {"SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? "
     "AND c_id = ?",
     "iii", OS},
    {"SELECT o_id, o_entry_d, COALESCE(o_carrier_id,0) FROM orders WHERE o_w_id = ? AND o_d_id = "
     "? AND o_c_id = ? AND o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? "
     "AND o_c_id = ?)",
     "iiiiii", OS},
    {"SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
     "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
     "iii", OS},
    {"SELECT COALESCE(MIN(no_o_id),0) FROM new_orders WHERE no_d_id = ? AND no_w_id = ?", "ii", DL},
    {"DELETE FROM new_orders WHERE no_o_id = ? AND no_d_id = ? AND no_w_id = ?", "iii", DL},
    {"SELECT o_c_id FROM orders WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?", "iii", DL},
    {"UPDATE orders SET o_carrier_id = ? WHERE o_id = ? AND o_d_id = ? AND o_w_id = ?", "iiii", DL},
    {"UPDATE order_line SET ol_delivery_d = ? WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?",
     "siii", DL},
    {"SELECT SUM(ol_amount) FROM order_line WHERE ol_o_id = ? AND ol_d_id = ? AND ol_w_id = ?",
     "iii", DL},
    {"UPDATE customer SET c_balance = c_balance + ? , c_delivery_cnt = c_delivery_cnt + 1 WHERE "
     "c_id = ? AND c_d_id = ? AND c_w_id = ?",
     "siii", DL},
    {"SELECT d_next_o_id FROM district WHERE d_id = ? AND d_w_id = ?", "ii", SL},
    {"SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? "
     "AND ol_o_id >= (? - 20)",
     "iiii", SL},
    {"SELECT count(*) FROM stock WHERE s_w_id = ? AND s_i_id = ? AND s_quantity < ?", "iii", SL},
#undef NO
#undef PY
#undef OS
#undef DL
#undef SL
};

void ag_tc_wl_stmts_init(struct ag_tc_wl *wl)
{
    for (size_t i = 0; i < AG_TC_NSTMTS; i++) {
        struct ag_stmt_def *d = &wl->stmts[i];
        memset(d, 0, sizeof *d);
        d->sql = stmt_table[i].sql;
        d->sql_len = strlen(d->sql);
        d->nparams = (uint32_t)strlen(stmt_table[i].types);
        for (uint32_t p = 0; p < d->nparams; p++)
            d->type[p] = stmt_table[i].types[p] == 's' ? AG_PARAM_STR : AG_PARAM_INT;
        d->kind_id = stmt_table[i].kind;
        d->kind = pr_tc_kind_name((enum pr_tc_kind)d->kind_id);
    }
}

/* ---- the deck ------------------------------------------------------------ */

static void deck_shuffle(struct ag_tc_gen *g)
{
    static const uint8_t counts[PR_TC_TXN_COUNT_] = {10, 10, 1, 1, 1};
    uint32_t n = 0;

    for (uint8_t t = 0; t < PR_TC_TXN_COUNT_; t++)
        for (uint8_t k = 0; k < counts[t]; k++)
            g->deck[n++] = t;
    for (uint32_t i = AG_TC_DECK - 1; i > 0; i--) { /* Fisher-Yates */
        uint32_t j = ag_rand_uniform(&g->r, 0, i);
        uint8_t t = g->deck[i];
        g->deck[i] = g->deck[j];
        g->deck[j] = t;
    }
    g->deck_pos = 0;
}

struct ag_gen *ag_tc_gen_new(const struct ag_tc_wl *wl, uint64_t seed, uint32_t conn_index,
                             uint32_t conns_total)
{
    struct ag_tc_gen *g = pr_xcalloc(1, sizeof *g);

    (void)conns_total;
    g->base.fam = wl->base.fam;
    g->wl = wl;
    ag_rand_init(&g->r, seed);
    g->warehouses = wl->tc.warehouses;
    if (wl->home_lo > 0)
        g->home_w = wl->home_lo + conn_index % (wl->home_hi - wl->home_lo + 1);
    g->max_attempts = wl->tc.max_retries;
    g->autocommit_due = true; /* the connection's first event */
    deck_shuffle(g);
    return &g->base;
}

void ag_tc_gen_destroy(struct ag_gen **g)
{
    free(*g);
    *g = NULL;
}

/* ---- inputs (§3: drawn once per event) ---------------------------------- */

uint32_t ag__tc_w_id(struct ag_tc_gen *g)
{
    return g->home_w ? g->home_w : ag_rand_uniform(&g->r, 1, g->warehouses);
}

void ag__tc_c_last(struct ag_tc_gen *g)
{
    uint32_t n = ag_tc_nurand(&g->r, 255, 0, 999, g->wl->consts.c_last_run);
    g->c_last_len = (uint32_t)ag_tc_lastname(n, g->c_last);
}

/* The client's local time, "YYYY-MM-DD HH:MM:SS", at an attempt's start;
 * formatted again only when the second changed. */
static void take_date(struct ag_tc_gen *g)
{
    time_t now = time(NULL);
    if (now == g->date_sec && g->date[0])
        return;
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(g->date, sizeof g->date, "%Y-%m-%d %H:%M:%S", &tm);
    g->date_sec = now;
}

static void attempt_start(struct ag_tc_gen *g)
{
    g->step = 0;
    g->end = AG_TC_END_NONE;
    take_date(g);
    ag__tc_txn_attempt(g);
}

void ag_tc_gen_begin(struct ag_gen *gg)
{
    struct ag_tc_gen *g = (struct ag_tc_gen *)gg;

    if (g->deck_pos >= AG_TC_DECK)
        deck_shuffle(g);
    g->txn = g->deck[g->deck_pos++];
    g->attempts = 1;
    ag__tc_txn_inputs(g);
    attempt_start(g);
}

/* ---- calls ---------------------------------------------------------------- */

static enum ag_step text(struct ag_tc_gen *g, struct ag_call *call, const char *sql, size_t len,
                         uint16_t kind, uint16_t cur)
{
    call->stmt = -1;
    call->text = sql;
    call->text_len = len;
    call->nparams = 0;
    call->kind_id = kind;
    call->kind = kind < PR_TC_K_COUNT_ ? pr_tc_kind_name((enum pr_tc_kind)kind) : "autocommit";
    call->want = AG_WANT_NONE;
    g->cur = cur;
    return AG_STEP_STMT;
}

#define TEXT(g, call, lit, kind, cur) text(g, call, lit, sizeof lit - 1, kind, cur)

enum ag_step ag__tc_commit(struct ag_tc_gen *g, struct ag_call *call, enum ag_tc_end end)
{
    g->end = end;
    return TEXT(g, call, "COMMIT", PR_TC_K_COMMIT, AG_TC_CUR_COMMIT);
}

enum ag_step ag__tc_rollback(struct ag_tc_gen *g, struct ag_call *call, enum ag_tc_end end)
{
    g->end = end;
    return TEXT(g, call, "ROLLBACK",
                end == AG_TC_END_ROLLED_BACK ? PR_TC_K_ROLLBACK : PR_TC_K_RETRY_ROLLBACK,
                AG_TC_CUR_ROLLBACK);
}

void ag__tc_stmt(struct ag_tc_gen *g, struct ag_call *call, enum ag_tc_stmt s, uint8_t want)
{
    const struct ag_stmt_def *d = &g->wl->stmts[s];
    call->stmt = (int32_t)s;
    call->nparams = d->nparams;
    call->kind_id = d->kind_id;
    call->kind = d->kind;
    call->want = want;
    g->cur = (uint16_t)s;
}

void ag__tc_str(struct ag_call *call, uint32_t i, const char *s, uint32_t len)
{
    call->sval[i] = s;
    call->slen[i] = len;
}

/* "%.2f" of a float into buf (AG_TC_NUM bytes): a decimal string for a
 * parameter tpcc_start binds as MYSQL_TYPE_FLOAT. Without printf (it was
 * ~3% of the agent's user CPU in a tpcc run: one per order line): a
 * float's 24-bit mantissa times 100 (7 bits) fits a double's 53, so x is
 * the exact value in cents, and nearbyint rounds it as printf does (the
 * current rounding mode: ties to even by default). Huge or non-finite
 * values take snprintf. */
uint32_t ag__tc_money(char *buf, float v)
{
    double x = (double)v * 100.0;
    if (!(fabs(x) < 1e15)) {
        int n = snprintf(buf, AG_TC_NUM, "%.2f", (double)v);
        return n < 0 ? 0 : (uint32_t)(n < AG_TC_NUM ? n : AG_TC_NUM - 1);
    }
    double r = nearbyint(x);
    uint64_t c = (uint64_t)fabs(r);
    char tmp[AG_TC_NUM];
    uint32_t n = 0;
    tmp[n++] = (char)('0' + c % 10); /* reversed: cents, tens of cents, '.', units... */
    c /= 10;
    tmp[n++] = (char)('0' + c % 10);
    c /= 10;
    tmp[n++] = '.';
    do {
        tmp[n++] = (char)('0' + c % 10);
        c /= 10;
    } while (c > 0);
    if (signbit(r)) /* "-0.00" too, as printf prints a negative that rounds to 0 */
        tmp[n++] = '-';
    for (uint32_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

enum ag_step ag_tc_gen_next(struct ag_gen *gg, struct ag_call *call)
{
    struct ag_tc_gen *g = (struct ag_tc_gen *)gg;

    if (g->autocommit_due) {
        g->autocommit_due = false;
        return TEXT(g, call, "SET autocommit=0", PR_TC_K_COUNT_, AG_TC_CUR_AUTOCOMMIT);
    }
    if (g->rollback_due) {
        g->rollback_due = false;
        return ag__tc_rollback(g, call,
                               g->end == AG_TC_END_FAILED ? AG_TC_END_FAILED : AG_TC_END_NONE);
    }
    switch (g->end) {
    case AG_TC_END_COMMITTED:
        return AG_STEP_COMMITTED;
    case AG_TC_END_ROLLED_BACK:
        return AG_STEP_ROLLED_BACK;
    case AG_TC_END_FAILED:
        return AG_STEP_FAILED;
    case AG_TC_END_NONE:
        break;
    }
    return ag__tc_txn_next(g, call);
}

void ag_tc_gen_result(struct ag_gen *gg, const struct ag_result *res)
{
    struct ag_tc_gen *g = (struct ag_tc_gen *)gg;

    if (g->cur < AG_TC_NSTMTS)
        ag__tc_txn_result(g, res);
}

/* True when an error leaves the session as it was: the server's errors
 * inside a transaction (deadlock 1213, lock wait timeout 1205, record
 * changed 1020, duplicate key 1062). After any other error the connection
 * may be a new one (the engine reconnected: its last error may be the lost
 * connection's or a failed connect's, client or server), which needs its
 * autocommit=0 again: re-sending it is cheap and harmless. */
static bool same_session(unsigned err_no)
{
    return err_no == 1213 || err_no == 1205 || err_no == 1020 || err_no == 1062;
}

/* A statement failed (server error, any: tpcc's mysql-ignore-errors=all)
 * or the connection is back after a loss: ROLLBACK, then the same inputs
 * again, or give the event up after max_attempts. */
bool ag_tc_gen_retry(struct ag_gen *gg, const struct ag_result *res)
{
    struct ag_tc_gen *g = (struct ag_tc_gen *)gg;

    if (g->cur == AG_TC_CUR_AUTOCOMMIT || res == NULL || !same_session(res->err_no))
        g->autocommit_due = true;
    g->rollback_due = true;
    if (g->attempts >= g->max_attempts) {
        g->end = AG_TC_END_FAILED; /* the ROLLBACK, then the event fails */
        return true;
    }
    g->attempts++;
    attempt_start(g);
    return true;
}

bool ag_tc_gen_finish(struct ag_gen *gg, struct ag_call *call)
{
    struct ag_tc_gen *g = (struct ag_tc_gen *)gg;

    if (g->finished)
        return false;
    g->finished = true;
    ag__tc_commit(g, call, AG_TC_END_NONE);
    return true;
}

uint16_t ag_tc_gen_event_kind(const struct ag_gen *gg)
{
    const struct ag_tc_gen *g = (const struct ag_tc_gen *)gg;
    return g->txn; /* enum pr_tc_txn == its PR_TC_K_* */
}
