/* ag_tc_check: the TPC-C consistency conditions. See ag_tc_check.h.
 *
 * Each condition's query returns the rows that break it: the location
 * columns first (district, then order / customer / line), then the
 * figures. "@W" in a query stands for the warehouse. */
#include "ag_tc_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_tc_schema.h"
#include "pr_err.h"
#include "pr_tc_check.h"
#include "pr_tc_opts.h"

#define MAX_FIGS 4

struct cond_def {
    const char *sql;
    unsigned nloc;             /* location columns: 0 warehouse, 1 district, 2.., 3.. */
    const char *loc2, *loc3;   /* names of location columns 2 and 3 */
    const char *unit;          /* what the row count counts */
    const char *fig[MAX_FIGS]; /* labels of the figure columns */
};

/* Shared by 10 and 12: each customer's delivered order-line amounts. */
#define DELIVERED_OL                                                                               \
    "LEFT JOIN (SELECT o_d_id, o_c_id, SUM(ol_amount) AS s FROM orders JOIN order_line ON "        \
    "ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE o_w_id = @W AND "              \
    "ol_delivery_d IS NOT NULL GROUP BY o_d_id, o_c_id) ol ON ol.o_d_id = c.c_d_id AND "           \
    "ol.o_c_id = c.c_id "

static const struct cond_def conds[12] = {
    {"SELECT w_ytd, (SELECT SUM(d_ytd) FROM district WHERE d_w_id = @W) AS s FROM warehouse "
     "WHERE w_id = @W HAVING s IS NULL OR w_ytd <> s",
     0,
     NULL,
     NULL,
     "warehouses",
     {"w_ytd", "sum(d_ytd)"}},
    {"SELECT d.d_id, d.d_next_o_id - 1, o.mx, n.mx FROM district d LEFT JOIN (SELECT o_d_id, "
     "MAX(o_id) AS mx FROM orders WHERE o_w_id = @W GROUP BY o_d_id) o ON o.o_d_id = d.d_id "
     "LEFT JOIN (SELECT no_d_id, MAX(no_o_id) AS mx FROM new_orders WHERE no_w_id = @W GROUP BY "
     "no_d_id) n ON n.no_d_id = d.d_id WHERE d.d_w_id = @W AND (o.mx IS NULL OR "
     "d.d_next_o_id - 1 <> o.mx OR (n.mx IS NOT NULL AND d.d_next_o_id - 1 <> n.mx)) "
     "ORDER BY d.d_id",
     1,
     NULL,
     NULL,
     "districts",
     {"d_next_o_id - 1", "max(o_id)", "max(no_o_id)"}},
    {"SELECT no_d_id, MAX(no_o_id), MIN(no_o_id), COUNT(*) FROM new_orders WHERE no_w_id = @W "
     "GROUP BY no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*) ORDER BY no_d_id",
     1,
     NULL,
     NULL,
     "districts",
     {"max(no_o_id)", "min(no_o_id)", "rows in new_orders"}},
    {"SELECT o.o_d_id, o.s, l.c FROM (SELECT o_d_id, SUM(o_ol_cnt) AS s FROM orders WHERE "
     "o_w_id = @W GROUP BY o_d_id) o LEFT JOIN (SELECT ol_d_id, COUNT(*) AS c FROM order_line "
     "WHERE ol_w_id = @W GROUP BY ol_d_id) l ON l.ol_d_id = o.o_d_id WHERE l.c IS NULL OR "
     "o.s <> l.c ORDER BY o.o_d_id",
     1,
     NULL,
     NULL,
     "districts",
     {"sum(o_ol_cnt)", "rows in order_line"}},
    {"SELECT o_d_id, o_id, o_carrier_id, no_o_id FROM orders LEFT JOIN new_orders ON "
     "no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id WHERE o_w_id = @W AND "
     "((o_carrier_id IS NULL) <> (no_o_id IS NOT NULL)) ORDER BY o_d_id, o_id",
     2,
     "order",
     NULL,
     "orders",
     {"o_carrier_id", "its new_orders row's no_o_id"}},
    {"SELECT o.o_d_id, o.o_id, o.o_ol_cnt, COALESCE(l.c, 0) FROM orders o LEFT JOIN (SELECT "
     "ol_d_id, ol_o_id, COUNT(*) AS c FROM order_line WHERE ol_w_id = @W GROUP BY ol_d_id, "
     "ol_o_id) l ON l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id WHERE o.o_w_id = @W AND "
     "(l.c IS NULL OR o.o_ol_cnt <> l.c) ORDER BY o.o_d_id, o.o_id",
     2,
     "order",
     NULL,
     "orders",
     {"o_ol_cnt", "rows in order_line"}},
    {"SELECT ol_d_id, ol_o_id, ol_number, o_carrier_id, ol_delivery_d FROM order_line JOIN "
     "orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id WHERE ol_w_id = @W "
     "AND ((ol_delivery_d IS NULL) <> (o_carrier_id IS NULL)) ORDER BY ol_d_id, ol_o_id, "
     "ol_number",
     3,
     "order",
     "line",
     "order lines",
     {"o_carrier_id", "ol_delivery_d"}},
    {"SELECT w_ytd, (SELECT SUM(h_amount) FROM history WHERE h_w_id = @W) AS s FROM warehouse "
     "WHERE w_id = @W HAVING s IS NULL OR w_ytd <> s",
     0,
     NULL,
     NULL,
     "warehouses",
     {"w_ytd", "sum(h_amount)"}},
    {"SELECT d_id, d_ytd, h.s FROM district LEFT JOIN (SELECT h_d_id, SUM(h_amount) AS s FROM "
     "history WHERE h_w_id = @W GROUP BY h_d_id) h ON h.h_d_id = d_id WHERE d_w_id = @W AND "
     "(h.s IS NULL OR d_ytd <> h.s) ORDER BY d_id",
     1,
     NULL,
     NULL,
     "districts",
     {"d_ytd", "sum(h_amount)"}},
    {"SELECT c.c_d_id, c.c_id, c.c_balance, COALESCE(ol.s, 0), COALESCE(h.s, 0) FROM customer "
     "c " DELIVERED_OL "LEFT JOIN (SELECT h_c_d_id, h_c_id, SUM(h_amount) AS s FROM history WHERE "
     "h_c_w_id = @W GROUP BY h_c_d_id, h_c_id) h ON h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id "
     "WHERE c.c_w_id = @W AND c.c_balance <> COALESCE(ol.s, 0) - COALESCE(h.s, 0) "
     "ORDER BY c.c_d_id, c.c_id",
     2,
     "customer",
     NULL,
     "customers",
     {"c_balance", "sum(delivered ol_amount)", "sum(h_amount)"}},
    {"SELECT o.o_d_id, o.c, COALESCE(n.c, 0) FROM (SELECT o_d_id, COUNT(*) AS c FROM orders "
     "WHERE o_w_id = @W GROUP BY o_d_id) o LEFT JOIN (SELECT no_d_id, COUNT(*) AS c FROM "
     "new_orders WHERE no_w_id = @W GROUP BY no_d_id) n ON n.no_d_id = o.o_d_id WHERE "
     "o.c - COALESCE(n.c, 0) <> 2100 ORDER BY o.o_d_id",
     1,
     NULL,
     NULL,
     "districts",
     {"rows in orders", "rows in new_orders"}},
    {"SELECT c.c_d_id, c.c_id, c.c_balance, c.c_ytd_payment, COALESCE(ol.s, 0) FROM customer "
     "c " DELIVERED_OL "WHERE c.c_w_id = @W AND c.c_balance + c.c_ytd_payment <> COALESCE(ol.s, 0) "
     "ORDER BY c.c_d_id, c.c_id",
     2,
     "customer",
     NULL,
     "customers",
     {"c_balance", "c_ytd_payment", "sum(delivered ol_amount)"}},
};

static const char presence_sql[] = "SELECT (SELECT COUNT(*) FROM warehouse WHERE w_id = @W), "
                                   "(SELECT COUNT(*) FROM district WHERE d_w_id = @W)";

/* Is the warehouse as loaded? (no New-Order, Payment or Delivery ran) */
static const char fresh_sql[] =
    "SELECT (SELECT SUM(d_next_o_id) FROM district WHERE d_w_id = @W), (SELECT COUNT(*) FROM "
    "new_orders WHERE no_w_id = @W), (SELECT COUNT(*) FROM history WHERE h_w_id = @W OR "
    "h_c_w_id = @W)";

enum step_kind { ST_BEGIN, ST_PROBE, ST_PRESENCE, ST_COND, ST_FRESH, ST_COMMIT };

struct step {
    enum step_kind kind;
    unsigned cond; /* ST_COND: the condition's number */
};

#define MAX_STEPS 18

struct check {
    uint32_t w;                   /* the warehouse */
    struct step steps[MAX_STEPS]; /* what it sends, in order */
    size_t nsteps;
    size_t pos;     /* steps sent */
    bool fresh;     /* the warehouse is as loaded (ST_FRESH's answer) */
    char sql[2048]; /* the statement */
    char msg[1024]; /* a failure, or a note */
    bool note;      /* msg is an informational line not yet taken (check_note) */
};

static void subst(char *out, size_t cap, const char *sql, uint32_t w)
{
    size_t len = 0;
    char num[12];
    int nlen = snprintf(num, sizeof num, "%" PRIu32, w);

    for (const char *p = sql; *p && len + 12 < cap; p++) {
        if (p[0] == '@' && p[1] == 'W') {
            memcpy(out + len, num, (size_t)nlen);
            len += (size_t)nlen;
            p++;
        } else {
            out[len++] = *p;
        }
    }
    out[len] = '\0';
}

static bool check_next(void *it, const char **sql, size_t *sql_len, uint64_t *rows)
{
    struct check *c = it;

    *rows = 0;
    if (c->pos >= c->nsteps)
        return false;
    const struct step *s = &c->steps[c->pos++];
    switch (s->kind) {
    case ST_BEGIN:
        snprintf(c->sql, sizeof c->sql, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
        break;
    case ST_PROBE:
        ag_tc_schema_probe_sql(AG_TC_ALL_TABLES, true, c->sql, sizeof c->sql);
        break;
    case ST_PRESENCE:
        subst(c->sql, sizeof c->sql, presence_sql, c->w);
        break;
    case ST_FRESH:
        subst(c->sql, sizeof c->sql, fresh_sql, c->w);
        break;
    case ST_COND:
        subst(c->sql, sizeof c->sql, conds[s->cond - 1].sql, c->w);
        break;
    case ST_COMMIT:
        snprintf(c->sql, sizeof c->sql, "COMMIT");
        break;
    }
    *sql = c->sql;
    *sql_len = strlen(c->sql);
    return true;
}

static const char *col(const struct ag_result *res, unsigned i)
{
    if (i >= res->ncols)
        return "?";
    return res->col[i] ? res->col[i] : "NULL";
}

/* "TPC-C condition N fails for warehouse W district D ...: a = x, b = y" */
static void describe(struct check *c, unsigned n, const struct ag_result *res, const char *verb)
{
    const struct cond_def *d = &conds[n - 1];
    size_t len = 0, cap = sizeof c->msg;
    int k = snprintf(c->msg, cap, "TPC-C condition %u %s for warehouse %" PRIu32, n, verb, c->w);

    len = k > 0 ? (size_t)k : 0;
    const char *locs[3] = {"district", d->loc2, d->loc3};
    for (unsigned i = 0; i < d->nloc && len < cap; i++) {
        k = snprintf(c->msg + len, cap - len, " %s %s", locs[i], col(res, i));
        len += k > 0 ? (size_t)k : 0;
    }
    for (unsigned i = 0; i < MAX_FIGS && d->fig[i] && len < cap; i++) {
        k = snprintf(c->msg + len, cap - len, "%s %s = %s", i ? "," : ":", d->fig[i],
                     col(res, d->nloc + i));
        len += k > 0 ? (size_t)k : 0;
    }
    if (len < cap && d->nloc > 0) {
        k = snprintf(c->msg + len, cap - len, " (%" PRIu64 " %s)", res->rows,
                     res->rows == 1 ? "row breaks it" : "rows break it");
        len += k > 0 ? (size_t)k : 0;
    }
    (void)len;
}

static const char *cond_result(struct check *c, unsigned n, const struct ag_result *res)
{
    if (res->rows == 0)
        return NULL;
    if (n >= 10 && !c->fresh) {
        describe(c, n, res, "does not hold");
        size_t len = strlen(c->msg);
        snprintf(c->msg + len, sizeof c->msg - len,
                 "; informational after a run: tpcc-mysql's transactions break conditions 10-12");
        fprintf(stderr, "stampede-agent: %s\n", c->msg);
        c->note = true; /* the coordinator's report says it too (DONE.notes) */
        return NULL;
    }
    describe(c, n, res, "fails");
    size_t len = strlen(c->msg);
    snprintf(c->msg + len, sizeof c->msg - len, "; reload with `stampede tpcc prepare`");
    return c->msg;
}

static const char *check_result(void *it, const struct ag_result *res)
{
    struct check *c = it;
    const struct step *s = &c->steps[c->pos - 1];

    switch (s->kind) {
    case ST_PROBE:
        return ag_tc_schema_probe_check(res, c->msg, sizeof c->msg);
    case ST_PRESENCE:
        if (res->ncols >= 2 && res->is_num[0] && res->is_num[1] && res->ival[0] == 1 &&
            res->ival[1] == (int64_t)PR_TC_DIST_PER_WARE)
            return NULL;
        snprintf(c->msg, sizeof c->msg,
                 "warehouse %" PRIu32 " is not loaded (%s warehouse rows, %s districts): load it "
                 "with `stampede tpcc prepare`",
                 c->w, col(res, 0), col(res, 1));
        return c->msg;
    case ST_FRESH:
        c->fresh = res->ncols >= 3 && res->is_num[0] && res->is_num[1] && res->is_num[2] &&
                   res->ival[0] == (int64_t)(PR_TC_DIST_PER_WARE * (PR_TC_ORD_PER_DIST + 1)) &&
                   res->ival[1] == (int64_t)(PR_TC_DIST_PER_WARE *
                                             (PR_TC_ORD_PER_DIST - PR_TC_NEW_ORD_FIRST + 1)) &&
                   res->ival[2] == (int64_t)(PR_TC_DIST_PER_WARE * PR_TC_CUST_PER_DIST);
        return NULL;
    case ST_COND:
        return cond_result(c, s->cond, res);
    default:
        return NULL;
    }
}

static const char *check_note(void *it)
{
    struct check *c = it;
    if (!c->note)
        return NULL;
    c->note = false;
    return c->msg;
}

static void check_destroy(void *it)
{
    free(it);
}

static void push(struct check *c, enum step_kind kind, unsigned cond)
{
    if (c->nsteps == MAX_STEPS)
        abort(); /* programmer error: 6 + 12 steps at most */
    c->steps[c->nsteps++] = (struct step){kind, cond};
}

void ag_tc_check_add(uint32_t w, bool all, ag_piece_add_fn add, void *ctx)
{
    struct check *c = pr_xcalloc(1, sizeof *c);
    size_t n;
    const struct pr_tc_condition *tab = pr_tc_conditions(&n);

    c->w = w;
    push(c, ST_BEGIN, 0);
    push(c, ST_PROBE, 0);
    push(c, ST_PRESENCE, 0);
    for (size_t i = 0; i < n && i < 12; i++) {
        if (!tab[i].always && !all)
            continue;
        if (tab[i].number == 10)
            push(c, ST_FRESH, 0);
        push(c, ST_COND, tab[i].number);
    }
    push(c, ST_COMMIT, 0);
    struct ag_piece p = {.it = c, .next = check_next, .result = check_result, .note = check_note};
    add(ctx, p, check_destroy);
}
