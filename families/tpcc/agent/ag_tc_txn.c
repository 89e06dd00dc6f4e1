/* ag_tc_txn: the five transactions as tpcc_start sends them
 * (docs/design.md §13.2): inputs, statement sequence, and the
 * results each next statement needs. See ag_tc_gen.h for the rules. */
#include <stdio.h>
#include <string.h>

#include "ag_tc_gen_int.h"

#define U(g, a, b) ag_rand_uniform(&(g)->r, (a), (b))

/* Column i of a result's first row as a number; 0 for no row, SQL NULL or
 * text. */
static int64_t col_int(const struct ag_result *r, uint32_t i)
{
    return r->rows > 0 && i < r->ncols && r->col[i] && r->is_num[i] ? r->ival[i] : 0;
}

static float col_float(const struct ag_result *r, uint32_t i)
{
    return r->rows > 0 && i < r->ncols && r->col[i] && r->is_num[i] ? (float)r->dval[i] : 0.0f;
}

/* Copy column i of the first row (at most cap bytes) to dst at *len. */
static void col_copy(const struct ag_result *r, uint32_t i, char *dst, uint32_t *len, uint32_t cap)
{
    if (r->rows == 0 || i >= r->ncols || r->col[i] == NULL)
        return;
    uint32_t n = r->col_len[i];
    if (n > cap - *len)
        n = cap - *len;
    memcpy(dst + *len, r->col[i], n);
    *len += n;
}

static bool has_row(const struct ag_result *r, uint32_t ncols)
{
    return r->rows > 0 && r->ncols >= ncols;
}

/* ---- inputs ------------------------------------------------------------- */

static void new_order_inputs(struct ag_tc_gen *g)
{
    const struct ag_tc_consts *k = &g->wl->consts;

    g->w = ag__tc_w_id(g);
    g->d = U(g, 1, PR_TC_DIST_PER_WARE);
    g->c_id = ag_tc_nurand(&g->r, 1023, 1, PR_TC_CUST_PER_DIST, k->c_id);
    g->ol_cnt = U(g, 5, AG_TC_MAX_LINES);
    uint32_t rbk = U(g, 1, 100);
    g->all_local = 1;
    for (uint32_t i = 0; i < g->ol_cnt; i++) {
        struct ag_tc_line *l = &g->lines[i];
        l->item = ag_tc_nurand(&g->r, 8191, 1, PR_TC_ITEMS, k->ol_i_id);
        if (i == g->ol_cnt - 1 && rbk == 1)
            l->item = PR_TC_ITEMS + 1; /* unused: the 1% rollback */
        if (U(g, 1, 100) != 1) {
            l->supw = g->w;
        } else {
            l->supw = ag_tc_other_ware(&g->r, g->w, g->warehouses);
            g->all_local = 0;
        }
        l->qty = U(g, 1, 10);
    }
    /* Ascending (supply warehouse, item), as tpcc_start, against deadlocks. */
    for (uint32_t i = 1; i < g->ol_cnt; i++) {
        struct ag_tc_line t = g->lines[i];
        uint64_t key = (uint64_t)t.supw * (PR_TC_ITEMS + 1) + t.item;
        uint32_t j = i;
        for (; j > 0; j--) {
            const struct ag_tc_line *p = &g->lines[j - 1];
            if ((uint64_t)p->supw * (PR_TC_ITEMS + 1) + p->item <= key)
                break;
            g->lines[j] = *p;
        }
        g->lines[j] = t;
    }
}

static void payment_inputs(struct ag_tc_gen *g)
{
    g->w = ag__tc_w_id(g);
    g->d = U(g, 1, PR_TC_DIST_PER_WARE);
    g->c_id = ag_tc_nurand(&g->r, 1023, 1, PR_TC_CUST_PER_DIST, g->wl->consts.c_id);
    ag__tc_c_last(g);
    g->h_amount = U(g, 1, 5000);
    g->byname = U(g, 1, 100) <= 60;
    if (U(g, 1, 100) <= 85) {
        g->c_w = g->w;
        g->c_d = g->d;
    } else {
        g->c_w = ag_tc_other_ware(&g->r, g->w, g->warehouses);
        g->c_d = U(g, 1, PR_TC_DIST_PER_WARE);
    }
}

static void order_status_inputs(struct ag_tc_gen *g)
{
    g->w = ag__tc_w_id(g);
    g->d = U(g, 1, PR_TC_DIST_PER_WARE);
    g->c_id = ag_tc_nurand(&g->r, 1023, 1, PR_TC_CUST_PER_DIST, g->wl->consts.c_id);
    ag__tc_c_last(g);
    g->byname = U(g, 1, 100) <= 60;
}

void ag__tc_txn_inputs(struct ag_tc_gen *g)
{
    switch (g->txn) {
    case PR_TC_NEW_ORDER:
        new_order_inputs(g);
        break;
    case PR_TC_PAYMENT:
        payment_inputs(g);
        break;
    case PR_TC_ORDER_STATUS:
        order_status_inputs(g);
        break;
    case PR_TC_DELIVERY:
        g->w = ag__tc_w_id(g);
        g->carrier = U(g, 1, 10);
        break;
    default: /* PR_TC_STOCK_LEVEL */
        g->w = ag__tc_w_id(g);
        g->d = U(g, 1, PR_TC_DIST_PER_WARE);
        g->threshold = U(g, 10, 20);
        break;
    }
}

void ag__tc_txn_attempt(struct ag_tc_gen *g)
{
    g->missing = false;
    g->invalid = false;
    g->line = 0;
    g->dd = 1;
    g->found_c = g->c_id;
    g->namecnt = 0;
    g->h_data_len = 0;
    g->nitems = 0;
}

/* ---- statement sequences -------------------------------------------------- */

#define FAIL_IF_MISSING(g, call)                                                                   \
    do {                                                                                           \
        if ((g)->missing && !(g)->wl->dry_run)                                                     \
            return ag__tc_rollback((g), (call), AG_TC_END_FAILED);                                 \
    } while (0)

static void ints3(struct ag_call *call, int64_t a, int64_t b, int64_t c)
{
    call->ival[0] = a;
    call->ival[1] = b;
    call->ival[2] = c;
}

static enum ag_step new_order_line(struct ag_tc_gen *g, struct ag_call *call)
{
    const struct ag_tc_line *l = &g->lines[g->line];
    int64_t *v = call->ival;

    switch (g->step++) {
    case 5:
        ag__tc_stmt(g, call, AG_TC_NO_ITEM, AG_WANT_RESULT);
        v[0] = l->item;
        return AG_STEP_STMT;
    case 6:
        if (g->invalid)
            return ag__tc_rollback(g, call, AG_TC_END_ROLLED_BACK);
        ag__tc_stmt(g, call, AG_TC_NO_STOCK, AG_WANT_RESULT);
        v[0] = l->item;
        v[1] = l->supw;
        return AG_STEP_STMT;
    case 7: {
        FAIL_IF_MISSING(g, call);
        int64_t q = g->s_qty > l->qty ? g->s_qty - l->qty : g->s_qty - l->qty + 91;
        ag__tc_stmt(g, call, AG_TC_NO_STOCK_UPD, AG_WANT_NONE);
        ints3(call, q, l->item, l->supw);
        return AG_STEP_STMT;
    }
    default: { /* 8 */
        float amount =
            (float)l->qty * g->price * (1.0f + g->w_tax + g->d_tax) * (1.0f - g->c_discount);
        ag__tc_stmt(g, call, AG_TC_NO_OL, AG_WANT_NONE);
        ints3(call, g->o_id, g->d, g->w);
        v[3] = g->line + 1;
        v[4] = l->item;
        v[5] = l->supw;
        v[6] = l->qty;
        ag__tc_str(call, 7, g->num[0], ag__tc_money(g->num[0], amount));
        ag__tc_str(call, 8, g->dist, g->dist_len);
        g->line++;
        g->step = 5;
        return AG_STEP_STMT;
    }
    }
}

static enum ag_step new_order_next(struct ag_tc_gen *g, struct ag_call *call)
{
    int64_t *v = call->ival;

    switch (g->step) {
    case 0:
        ag__tc_stmt(g, call, AG_TC_NO_CUST_WH, AG_WANT_RESULT);
        ints3(call, g->w, g->d, g->c_id);
        break;
    case 1:
        FAIL_IF_MISSING(g, call);
        ag__tc_stmt(g, call, AG_TC_NO_DIST, AG_WANT_RESULT);
        v[0] = g->d;
        v[1] = g->w;
        break;
    case 2:
        FAIL_IF_MISSING(g, call);
        ag__tc_stmt(g, call, AG_TC_NO_DIST_UPD, AG_WANT_NONE);
        ints3(call, g->o_id, g->d, g->w);
        break;
    case 3:
        ag__tc_stmt(g, call, AG_TC_NO_ORDERS, AG_WANT_NONE);
        ints3(call, g->o_id, g->d, g->w);
        v[3] = g->c_id;
        ag__tc_str(call, 4, g->date, (uint32_t)strlen(g->date));
        v[5] = g->ol_cnt;
        v[6] = g->all_local;
        break;
    case 4:
        ag__tc_stmt(g, call, AG_TC_NO_NEW_ORDERS, AG_WANT_NONE);
        ints3(call, g->o_id, g->d, g->w);
        break;
    default:
        if (g->step == 5 && g->line >= g->ol_cnt)
            return ag__tc_commit(g, call, AG_TC_END_COMMITTED);
        return new_order_line(g, call);
    }
    g->step++;
    return AG_STEP_STMT;
}

static enum ag_step payment_next(struct ag_tc_gen *g, struct ag_call *call)
{
    int64_t *v = call->ival;

    switch (g->step) {
    case 0:
        ag__tc_stmt(g, call, AG_TC_PY_WH_UPD, AG_WANT_NONE);
        v[0] = g->h_amount;
        v[1] = g->w;
        break;
    case 1:
        ag__tc_stmt(g, call, AG_TC_PY_WH, AG_WANT_RESULT);
        v[0] = g->w;
        break;
    case 2:
        FAIL_IF_MISSING(g, call);
        ag__tc_stmt(g, call, AG_TC_PY_DIST_UPD, AG_WANT_NONE);
        ints3(call, g->h_amount, g->w, g->d);
        break;
    case 3:
        ag__tc_stmt(g, call, AG_TC_PY_DIST, AG_WANT_RESULT);
        v[0] = g->w;
        v[1] = g->d;
        break;
    case 4:
    case 5:
        FAIL_IF_MISSING(g, call);
        if (!g->byname) {
            g->step = 6;
            return payment_next(g, call);
        }
        ag__tc_stmt(g, call, g->step == 4 ? AG_TC_PY_CNT : AG_TC_PY_BYNAME,
                    g->step == 4 ? AG_WANT_RESULT : AG_WANT_ROWS);
        v[0] = g->c_w;
        v[1] = g->c_d;
        ag__tc_str(call, 2, g->c_last, g->c_last_len);
        break;
    case 6:
        ag__tc_stmt(g, call, AG_TC_PY_CUST, AG_WANT_RESULT);
        ints3(call, g->c_w, g->c_d, g->found_c);
        break;
    case 7:
        FAIL_IF_MISSING(g, call);
        if (g->bc) {
            ag__tc_stmt(g, call, AG_TC_PY_CDATA, AG_WANT_RESULT);
            ints3(call, g->c_w, g->c_d, g->found_c);
            break;
        }
        ag__tc_stmt(g, call, AG_TC_PY_CUST_UPD, AG_WANT_NONE);
        ag__tc_str(call, 0, g->num[0], ag__tc_money(g->num[0], g->c_balance));
        v[1] = g->c_w;
        v[2] = g->c_d;
        v[3] = g->found_c;
        g->step = 9;
        return AG_STEP_STMT;
    case 8:
        ag__tc_stmt(g, call, AG_TC_PY_CUST_UPD_DATA, AG_WANT_NONE);
        ag__tc_str(call, 0, g->num[0], ag__tc_money(g->num[0], g->c_balance));
        ag__tc_str(call, 1, g->c_data, g->c_data_len); /* its old value, as tpcc_start */
        v[2] = g->c_w;
        v[3] = g->c_d;
        v[4] = g->found_c;
        break;
    case 9:
        ag__tc_stmt(g, call, AG_TC_PY_HIST, AG_WANT_NONE);
        ints3(call, g->c_d, g->c_w, g->found_c);
        v[3] = g->d;
        v[4] = g->w;
        ag__tc_str(call, 5, g->date, (uint32_t)strlen(g->date));
        v[6] = g->h_amount;
        ag__tc_str(call, 7, g->h_data, g->h_data_len);
        break;
    default:
        return ag__tc_commit(g, call, AG_TC_END_COMMITTED);
    }
    g->step++;
    return AG_STEP_STMT;
}

static enum ag_step order_status_next(struct ag_tc_gen *g, struct ag_call *call)
{
    int64_t *v = call->ival;

    switch (g->step) {
    case 0:
    case 1:
        if (!g->byname) {
            ag__tc_stmt(g, call, AG_TC_OS_CUST, AG_WANT_NONE);
            ints3(call, g->w, g->d, g->c_id);
            g->step = 3;
            return AG_STEP_STMT;
        }
        /* by name: the count and the list; the customer found is not used
         * (tpcc_start's Order-Status goes on with the random c_id) */
        ag__tc_stmt(g, call, g->step == 0 ? AG_TC_OS_CNT : AG_TC_OS_BYNAME, AG_WANT_NONE);
        v[0] = g->w;
        v[1] = g->d;
        ag__tc_str(call, 2, g->c_last, g->c_last_len);
        g->step = g->step == 0 ? 1 : 3;
        return AG_STEP_STMT;
    case 3:
        ag__tc_stmt(g, call, AG_TC_OS_ORDER, AG_WANT_RESULT);
        ints3(call, g->w, g->d, g->c_id);
        v[3] = g->w;
        v[4] = g->d;
        v[5] = g->c_id;
        break;
    case 4:
        FAIL_IF_MISSING(g, call);
        ag__tc_stmt(g, call, AG_TC_OS_OL, AG_WANT_NONE);
        ints3(call, g->w, g->d, g->o_id);
        break;
    default:
        return ag__tc_commit(g, call, AG_TC_END_COMMITTED);
    }
    g->step++;
    return AG_STEP_STMT;
}

/* Districts 1..10, each its own transaction; one without a new order is
 * skipped (no COMMIT: its read stays in the next transaction, as
 * tpcc_start's). */
static enum ag_step delivery_next(struct ag_tc_gen *g, struct ag_call *call)
{
    int64_t *v = call->ival;

    for (;;) {
        switch (g->step) {
        case 0:
            if (g->dd > PR_TC_DIST_PER_WARE)
                return AG_STEP_COMMITTED;
            ag__tc_stmt(g, call, AG_TC_DL_MIN, AG_WANT_RESULT);
            v[0] = g->dd;
            v[1] = g->w;
            g->step = 1;
            return AG_STEP_STMT;
        case 1:
            if (g->o_id == 0) {
                g->dd++;
                g->step = 0;
                continue;
            }
            ag__tc_stmt(g, call, AG_TC_DL_DEL, AG_WANT_NONE);
            break;
        case 2:
            ag__tc_stmt(g, call, AG_TC_DL_OCID, AG_WANT_RESULT);
            break;
        case 3:
            FAIL_IF_MISSING(g, call);
            ag__tc_stmt(g, call, AG_TC_DL_ORD_UPD, AG_WANT_NONE);
            v[0] = g->carrier;
            v[1] = g->o_id;
            v[2] = g->dd;
            v[3] = g->w;
            g->step++;
            return AG_STEP_STMT;
        case 4:
            ag__tc_stmt(g, call, AG_TC_DL_OL_UPD, AG_WANT_NONE);
            ag__tc_str(call, 0, g->date, (uint32_t)strlen(g->date));
            v[1] = g->o_id;
            v[2] = g->dd;
            v[3] = g->w;
            g->step++;
            return AG_STEP_STMT;
        case 5:
            ag__tc_stmt(g, call, AG_TC_DL_SUM, AG_WANT_RESULT);
            break;
        case 6:
            ag__tc_stmt(g, call, AG_TC_DL_CUST_UPD, AG_WANT_NONE);
            ag__tc_str(call, 0, g->num[0], ag__tc_money(g->num[0], g->ol_total));
            v[1] = g->dl_c;
            v[2] = g->dd;
            v[3] = g->w;
            g->step++;
            return AG_STEP_STMT;
        default:
            g->dd++;
            g->step = 0;
            return ag__tc_commit(g, call, AG_TC_END_NONE);
        }
        ints3(call, g->o_id, g->dd, g->w); /* (o_id, d, w) of DL_DEL, DL_OCID, DL_SUM */
        g->step++;
        return AG_STEP_STMT;
    }
}

static enum ag_step stock_level_next(struct ag_tc_gen *g, struct ag_call *call)
{
    int64_t *v = call->ival;

    switch (g->step) {
    case 0:
        ag__tc_stmt(g, call, AG_TC_SL_DIST, AG_WANT_RESULT);
        v[0] = g->d;
        v[1] = g->w;
        g->step = 1;
        return AG_STEP_STMT;
    case 1:
        FAIL_IF_MISSING(g, call);
        ag__tc_stmt(g, call, AG_TC_SL_ITEMS_Q, AG_WANT_ROWS);
        v[0] = g->w;
        v[1] = g->d;
        v[2] = g->o_id;
        v[3] = g->o_id;
        g->step = 2;
        return AG_STEP_STMT;
    default:
        if (g->line >= g->nitems)
            return ag__tc_commit(g, call, AG_TC_END_COMMITTED);
        ag__tc_stmt(g, call, AG_TC_SL_STOCK, AG_WANT_NONE);
        ints3(call, g->w, g->items[g->line], g->threshold);
        g->line++;
        return AG_STEP_STMT;
    }
}

enum ag_step ag__tc_txn_next(struct ag_tc_gen *g, struct ag_call *call)
{
    switch (g->txn) {
    case PR_TC_NEW_ORDER:
        return new_order_next(g, call);
    case PR_TC_PAYMENT:
        return payment_next(g, call);
    case PR_TC_ORDER_STATUS:
        return order_status_next(g, call);
    case PR_TC_DELIVERY:
        return delivery_next(g, call);
    default:
        return stock_level_next(g, call);
    }
}

/* ---- results ------------------------------------------------------------- */

static void payment_result(struct ag_tc_gen *g, const struct ag_result *r)
{
    switch (g->cur) {
    case AG_TC_PY_WH:   /* w_name: h_data starts with it */
    case AG_TC_PY_DIST: /* d_name follows */
        if (!has_row(r, 6)) {
            g->missing = true;
            return;
        }
        col_copy(r, 5, g->h_data, &g->h_data_len, sizeof g->h_data - 1);
        return;
    case AG_TC_PY_CNT:
        g->namecnt = col_int(r, 0);
        return;
    case AG_TC_PY_BYNAME: /* the ceil(n/2)-th customer by c_first */
        if (g->namecnt > 0 && r->nrow_ival > 0) {
            uint64_t k = ((uint64_t)g->namecnt + 1) / 2;
            g->found_c = (uint32_t)r->row_ival[(k < r->nrow_ival ? k : r->nrow_ival) - 1];
        }
        return;
    case AG_TC_PY_CUST:
        if (!has_row(r, 13)) {
            g->missing = true;
            return;
        }
        g->bc = r->col[9] && r->col_len[9] == 2 && memcmp(r->col[9], "BC", 2) == 0;
        g->c_balance = col_float(r, 12) - (float)g->h_amount; /* float, as tpcc_start */
        return;
    case AG_TC_PY_CDATA:
        g->c_data_len = 0;
        col_copy(r, 0, g->c_data, &g->c_data_len, AG_TC_C_DATA);
        return;
    default:
        return;
    }
}

static void new_order_result(struct ag_tc_gen *g, const struct ag_result *r)
{
    switch (g->cur) {
    case AG_TC_NO_CUST_WH:
        g->missing = !has_row(r, 4);
        g->c_discount = col_float(r, 0);
        g->w_tax = col_float(r, 3);
        return;
    case AG_TC_NO_DIST:
        g->missing = !has_row(r, 2);
        g->o_id = col_int(r, 0);
        g->d_tax = col_float(r, 1);
        return;
    case AG_TC_NO_ITEM: /* dry run: no rows at all, only the unused item is invalid */
        g->invalid = g->wl->dry_run ? g->lines[g->line].item > PR_TC_ITEMS : r->rows == 0;
        g->price = col_float(r, 0);
        return;
    case AG_TC_NO_STOCK: /* s_quantity, s_data, s_dist_01..10: keep s_dist_<d> */
        g->missing = !has_row(r, 2 + g->d);
        g->s_qty = col_int(r, 0);
        g->dist_len = 0;
        col_copy(r, 1 + g->d, g->dist, &g->dist_len, sizeof g->dist - 1);
        return;
    default:
        return;
    }
}

void ag__tc_txn_result(struct ag_tc_gen *g, const struct ag_result *r)
{
    switch (g->cur) {
    case AG_TC_OS_ORDER:
        g->missing = !has_row(r, 1);
        g->o_id = col_int(r, 0);
        return;
    case AG_TC_DL_MIN:
        g->o_id = col_int(r, 0);
        return;
    case AG_TC_DL_OCID:
        g->missing = !has_row(r, 1);
        g->dl_c = col_int(r, 0);
        return;
    case AG_TC_DL_SUM:
        g->ol_total = col_float(r, 0);
        return;
    case AG_TC_SL_DIST:
        g->missing = !has_row(r, 1);
        g->o_id = col_int(r, 0);
        return;
    case AG_TC_SL_ITEMS_Q:
        g->nitems = r->nrow_ival < AG_TC_SL_ITEMS ? r->nrow_ival : AG_TC_SL_ITEMS;
        if (g->nitems > 0) /* none: row_ival may be NULL (a dry run) */
            memcpy(g->items, r->row_ival, g->nitems * sizeof g->items[0]);
        return;
    default:
        if (g->txn == PR_TC_NEW_ORDER)
            new_order_result(g, r);
        else if (g->txn == PR_TC_PAYMENT)
            payment_result(g, r);
        return;
    }
}
