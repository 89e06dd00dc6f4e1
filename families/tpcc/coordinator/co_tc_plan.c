/* co_tc_plan: the tpcc family's PLANs. See co_tc_plan.h; the contract with
 * the agent side (agent/tpcc) is docs/design.md §8.3 (what PLAN.tables
 * means to the tpcc family), repeated in README "TPC-C". */
#include "co_tc_plan.h"

#include <stdlib.h>

#include "co_plan_family.h"
#include "co_tc_args.h"
#include "pr_split.h"

#define TC_WAREHOUSE   1u /* PLAN.tables n: a warehouse range */
#define TC_ITEMS       2u /* PLAN.tables n: an item id range */
#define MAX_LOAD_CONNS 8u

/* Rows per warehouse of each part (tpcc_load, docs/design.md §13.2). */
#define ROWS_WAREHOUSE (1u + PR_TC_ITEMS + PR_TC_DIST_PER_WARE) /* warehouse, stock, district */
#define ROWS_CUSTOMER  (2u * PR_TC_DIST_PER_WARE * PR_TC_CUST_PER_DIST) /* customer, history */
#define ROWS_ORDERS                                                                                \
    (PR_TC_DIST_PER_WARE * (PR_TC_ORD_PER_DIST + (PR_TC_ORD_PER_DIST - PR_TC_NEW_ORD_FIRST + 1) +  \
                            10u * PR_TC_ORD_PER_DIST)) /* orders, new_orders, ~order_line */

uint64_t co_tc_plan_rows(unsigned parts, uint32_t n_wh)
{
    uint64_t per_wh = 0;
    if (parts & PR_TC_PART_WAREHOUSE)
        per_wh += ROWS_WAREHOUSE;
    if (parts & PR_TC_PART_CUSTOMER)
        per_wh += ROWS_CUSTOMER;
    if (parts & PR_TC_PART_ORDERS)
        per_wh += ROWS_ORDERS;
    return (parts & PR_TC_PART_ITEMS ? PR_TC_ITEMS : 0) + per_wh * n_wh;
}

bool co_tc_plan_is_partial(const struct pr_tc_opts *o)
{
    return o->parts != PR_TC_PART_ALL || o->wh_first != 1 || o->wh_last != o->warehouses;
}

/* Warehouse parts (warehouse, customer, orders) in parts: streams per
 * warehouse. */
static uint32_t wh_parts(unsigned parts)
{
    return !!(parts & PR_TC_PART_WAREHOUSE) + !!(parts & PR_TC_PART_CUSTOMER) +
           !!(parts & PR_TC_PART_ORDERS);
}

uint64_t co_tc_plan_load_conns(const struct co_args *a, const struct pr_tc_opts *o)
{
    if (a->cfg.threads_set)
        return a->cfg.threads;
    uint64_t streams = (uint64_t)(o->wh_last - o->wh_first + 1) * wh_parts(o->parts) +
                       !!(o->parts & PR_TC_PART_ITEMS);
    return streams < MAX_LOAD_CONNS ? (streams ? streams : 1) : MAX_LOAD_CONNS;
}

/* -m/-o: every connection opens the first schema (run: connection 0's and
 * the probe's; prepare, check, cleanup: each stream then USEs its own). */
static void first_schema(struct pr_msg_plan *pl, const struct co_args *a)
{
    const struct co_tc_args *t = co_tc_args_of(a);

    if (t == NULL || t->o.schemas == 0)
        return;
    int len = pr_tc_schema_db(pl->database, &t->o, 0, NULL, 0);
    char *db = pr_xmalloc((size_t)len + 1);
    pr_tc_schema_db(pl->database, &t->o, 0, db, (size_t)len + 1);
    free(pl->database);
    pl->database = db;
}

/* Agent i's PLAN in phase ph, made on first use. */
static struct pr_msg_plan *plan_at(co_plan *p, uint32_t ph, uint32_t i, const struct co_args *a,
                                   uint64_t seed, int *rc, struct pr_error *err)
{
    struct pr_msg *m = &p->msgs[ph][i];
    if (m->type == PR_MSG_NONE) {
        int r = co_plan_base(m, a, i, p->n_agents, seed, err);
        if (*rc == 0)
            *rc = r;
        m->u.plan.part = a->cmd == PR_CMD_RUN ? a->part : PR_PART_NONE;
        first_schema(&m->u.plan, a);
    }
    return &m->u.plan;
}

static void set_conns(struct pr_msg_plan *pl, uint64_t conns)
{
    pl->conns = (uint32_t)(conns ? conns : 1);
    pl->conn_first = 0;
    pl->conns_total = pl->conns;
}

/* Warehouses first..last split over the agents by weight into contiguous
 * ranges, spans[i] (lo = hi + 1 when agent i gets none). */
static void split_warehouses(uint32_t n, const uint64_t *w, uint32_t first, uint32_t last,
                             struct pr_split_span *spans)
{
    uint64_t *share = pr_xcalloc(n, sizeof(*share)), lo = first;

    pr_split_u64((uint64_t)last - first + 1, n, w, share);
    for (uint32_t i = 0; i < n; i++) {
        spans[i].lo = lo;
        spans[i].hi = lo + share[i] - 1;
        lo += share[i];
    }
    free(share);
}

static void set_phases(co_plan *p, uint32_t n_phases, const char *const *names)
{
    p->n_phases = n_phases;
    for (uint32_t ph = 0; ph < n_phases; ph++) {
        p->names[ph] = names[ph];
        if (p->msgs[ph] == NULL)
            p->msgs[ph] = pr_xcalloc(p->n_agents, sizeof(struct pr_msg));
    }
}

static int plan_prepare(co_plan *p, const struct co_args *a, const struct pr_tc_opts *o,
                        const uint64_t *w, uint64_t seed, struct pr_error *err)
{
    static const char *const full[] = {"create", "load", "index"}, *const part[] = {"load"};
    uint32_t n = p->n_agents, ld = 0;
    bool partial = co_tc_plan_is_partial(o), whs = wh_parts(o->parts) > 0;
    struct pr_split_span *spans = pr_xcalloc(n, sizeof(*spans));
    uint64_t *conns = pr_xcalloc(n, sizeof(*conns));
    int rc = 0;

    if (partial) {
        set_phases(p, 1, part);
    } else {
        set_phases(p, o->foreign_keys ? 3 : 2, full);
        ld = 1;
    }
    split_warehouses(n, w, o->wh_first, o->wh_last, spans);
    pr_split_u64(co_tc_plan_load_conns(a, o), n, w, conns);
    for (uint32_t i = 0; i < n; i++) {
        bool items = i == 0 && (o->parts & PR_TC_PART_ITEMS);
        bool has_wh = whs && spans[i].hi >= spans[i].lo;
        if (!items && !has_wh)
            continue; /* no work: no plan in the load phase */
        struct pr_msg_plan *pl = plan_at(p, ld, i, a, seed, &rc, err);
        if (has_wh)
            co_plan_add_table(pl, TC_WAREHOUSE, spans[i].lo, spans[i].hi, false, false);
        if (items)
            co_plan_add_table(pl, TC_ITEMS, 1, PR_TC_ITEMS, false, false);
        set_conns(pl, conns[i]);
    }
    if (!partial) {
        struct pr_msg_plan *pl = plan_at(p, 0, 0, a, seed, &rc, err);
        co_plan_add_table(pl, TC_WAREHOUSE, 1, 0, true, false);
        set_conns(pl, 1);
    }
    if (!partial && o->foreign_keys) {
        struct pr_msg_plan *pl = plan_at(p, 2, 0, a, seed, &rc, err);
        co_plan_add_table(pl, TC_WAREHOUSE, 1, 0, false, true);
        set_conns(pl, conns[0]);
    }
    p->rows_total = co_tc_plan_rows(o->parts, whs ? o->wh_last - o->wh_first + 1 : 0) *
                    (o->schemas ? o->schemas : 1); /* -m: every schema */
    free(spans);
    free(conns);
    return rc;
}

/* --partition=warehouses: W split in proportion to the agents'
 * connections, so an agent gets no more warehouses than connections when
 * --threads >= W (its consecutive global connection indexes then cover
 * every residue of its range: every warehouse has a home connection);
 * when that share would leave an agent without a warehouse, each gets at
 * least one (pr_split_tables). */
static int home_ranges(uint32_t n, const uint64_t *conns, uint32_t warehouses,
                       struct pr_split_span *spans, struct pr_error *err)
{
    uint64_t *share = pr_xcalloc(n, sizeof(*share)), lo = 1;
    bool empty = false;

    pr_split_u64(warehouses, n, conns, share);
    for (uint32_t i = 0; i < n; i++) {
        empty = empty || share[i] == 0;
        spans[i] = (struct pr_split_span){lo, lo + share[i] - 1};
        lo += share[i];
    }
    free(share);
    if (empty && pr_split_tables(n, conns, warehouses, spans) != 0)
        return pr_error_set(err, PR_EINVAL,
                            "--partition=warehouses: --warehouses=%u is fewer than the %u agents; "
                            "every agent needs a home warehouse (raise --warehouses or use "
                            "--partition=none)",
                            warehouses, n);
    return 0;
}

static int plan_run(co_plan *p, const struct co_args *a, const struct pr_tc_opts *o,
                    const uint64_t *w, uint64_t seed, struct pr_error *err)
{
    uint32_t n = p->n_agents;
    uint64_t threads = a->cfg.threads;
    uint64_t *conns = pr_xcalloc(n, sizeof(*conns)), *rate = pr_xcalloc(n, sizeof(*rate));
    struct pr_split_span *spans = pr_xcalloc(n, sizeof(*spans));
    uint64_t first = 0;
    int rc = 0;

    set_phases(p, 1, (const char *const[]){"run"});
    pr_split_u64(threads, n, w, conns);
    pr_split_u64(a->cfg.rate, n, conns, rate); /* the rate follows the connections */
    for (uint32_t i = 0; i < n && rc == 0; i++)
        if (conns[i] == 0)
            rc = pr_error_set(err, PR_EINVAL,
                              "--threads=%llu gives agent %u no connection: every agent needs "
                              "at least one (raise --threads or lower --agents)",
                              (unsigned long long)threads, i + 1);
    if (rc == 0 && a->part == PR_PART_WAREHOUSES)
        rc = home_ranges(n, conns, o->warehouses, spans, err);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        struct pr_msg_plan *pl = plan_at(p, 0, i, a, seed, &rc, err);
        pl->conns = (uint32_t)conns[i];
        pl->conn_first = first;
        pl->conns_total = threads;
        pl->rate = rate[i];
        pl->rate_mode = a->rate_mode;
        pl->time_s = (uint64_t)o->warmup_s + a->cfg.time_s;
        pl->report_ms = 1000; /* tpcc's lines are cut from 1 s intervals */
        first += conns[i];
        if (a->part == PR_PART_WAREHOUSES)
            co_plan_add_table(pl, TC_WAREHOUSE, spans[i].lo, spans[i].hi, false, false);
    }
    free(conns);
    free(rate);
    free(spans);
    return rc;
}

/* check: each agent checks its warehouse range, one connection per
 * warehouse at most. */
static int plan_check(co_plan *p, const struct co_args *a, const struct pr_tc_opts *o,
                      const uint64_t *w, uint64_t seed, struct pr_error *err)
{
    uint32_t n = p->n_agents;
    struct pr_split_span *spans = pr_xcalloc(n, sizeof(*spans));
    uint64_t *conns = pr_xcalloc(n, sizeof(*conns));
    int rc = 0;

    set_phases(p, 1, (const char *const[]){"check"});
    split_warehouses(n, w, 1, o->warehouses, spans);
    pr_split_u64(a->cfg.threads, n, w, conns);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t len = pr_split_span_len(spans[i]);
        if (len == 0)
            continue;
        struct pr_msg_plan *pl = plan_at(p, 0, i, a, seed, &rc, err);
        co_plan_add_table(pl, TC_WAREHOUSE, spans[i].lo, spans[i].hi, false, false);
        set_conns(pl, conns[i] < len ? conns[i] : len);
    }
    free(spans);
    free(conns);
    return rc;
}

static int plan_cleanup(co_plan *p, const struct co_args *a, uint64_t seed, struct pr_error *err)
{
    int rc = 0;

    set_phases(p, 1, (const char *const[]){"cleanup"});
    struct pr_msg_plan *pl = plan_at(p, 0, 0, a, seed, &rc, err);
    co_plan_add_table(pl, TC_WAREHOUSE, 1, 0, true, false);
    set_conns(pl, 1);
    return rc;
}

int co_tc_plan_build(co_plan *p, const struct co_args *a, const uint64_t *weights, uint64_t seed,
                     struct pr_error *err)
{
    const struct co_tc_args *t = co_tc_args_of(a);

    if (t == NULL) /* co_args_parse keeps them (check_options) */
        return pr_error_set(err, PR_EINVAL, "tpcc: the command line's options were not checked");
    p->rows_total = 0;
    switch (a->cmd) {
    case PR_CMD_PREPARE:
        return plan_prepare(p, a, &t->o, weights, seed, err);
    case PR_CMD_RUN:
        return plan_run(p, a, &t->o, weights, seed, err);
    case PR_CMD_CHECK:
        return plan_check(p, a, &t->o, weights, seed, err);
    case PR_CMD_CLEANUP:
        return plan_cleanup(p, a, seed, err);
    default:
        return pr_error_set(err, PR_EINVAL,
                            "tpcc has no %s; its commands are prepare, run, check and cleanup",
                            pr_plan_cmd_name(a->cmd));
    }
}
