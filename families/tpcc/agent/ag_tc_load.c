/* ag_tc_load: the tpcc family's prepare, cleanup and check streams. See
 * ag_tc_load.h.
 *
 * A load stream is a list of jobs (one table over an id range of one
 * warehouse or district) sent as multi-row INSERTs of about STMT_BYTES
 * each, in autocommit (each INSERT its own transaction: tpcc_load's commit
 * granularity does not change the data, §2.3). Streams are cut so that a
 * warehouse's ~500k rows go over several connections: stock in blocks of
 * STOCK_BLOCK items, customers and orders in groups of DIST_GROUP
 * districts, items in blocks of ITEM_BLOCK. The cut is fixed (not derived
 * from the connection count), and rows are a function of their ids only
 * (ag_tc_load_int.h), so the data does not depend on how it was split. */
#include "ag_tc_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ag_tc_check.h"
#include "ag_tc_load_int.h"
#include "ag_tc_schema.h"

#define STMT_BYTES  (256 * 1024) /* an INSERT ends once it passes this size */
#define ITEM_BLOCK  25000u
#define STOCK_BLOCK 25000u
#define DIST_GROUP  5u
#define MAX_JOBS    16

struct job {
    enum ag_tc_table tab;
    uint32_t w;      /* warehouse (0 for item) */
    uint32_t d;      /* district (0 for item, warehouse, stock, district) */
    uint32_t lo, hi; /* ids, inclusive: i_id, d_id, c_id or o_id */
};

struct stream {
    struct ag__tc_load_ctx ctx; /* the load's seed, constants and timestamp */
    struct job jobs[MAX_JOBS];  /* what it loads, in order */
    size_t njobs;               /* their count */
    size_t cur;                 /* the job being sent */
    uint32_t next_id;           /* its next id */
    unsigned step;              /* statements sent: 0 the SET, 1 the probe, then INSERTs */
    unsigned tables;            /* mask of the tables it loads (the probe's) */
    uint8_t *flags;             /* "original" flags of flags_tab/flags_w, or NULL */
    enum ag_tc_table flags_tab; /* whose flags */
    uint32_t flags_w;
    uint16_t *perm; /* o_c_id of district (perm_w, perm_d), or NULL */
    uint32_t perm_w, perm_d;
    struct ag__tc_buf buf; /* the statement */
    char msg[256];         /* the probe's failure */
};

static const char session_sql[] = "SET UNIQUE_CHECKS=0, FOREIGN_KEY_CHECKS=0, autocommit=1";

static void stream_destroy(void *it)
{
    struct stream *s = it;
    if (!s)
        return;
    free(s->flags);
    free(s->perm);
    ag__tc_buf_free(&s->buf);
    free(s);
}

static struct stream *stream_new(const struct ag__tc_load_ctx *ctx)
{
    struct stream *s = pr_xcalloc(1, sizeof *s);
    s->ctx = *ctx;
    return s;
}

static void stream_job(struct stream *s, enum ag_tc_table tab, uint32_t w, uint32_t d, uint32_t lo,
                       uint32_t hi)
{
    if (s->njobs == MAX_JOBS)
        abort(); /* programmer error: the cuts below stay under MAX_JOBS */
    s->jobs[s->njobs++] = (struct job){tab, w, d, lo, hi};
    s->tables |= 1u << tab;
    if (s->njobs == 1)
        s->next_id = lo;
}

/* The flags of (tab, w), drawn once per stream. */
static const uint8_t *flags_for(struct stream *s, enum ag_tc_table tab, uint32_t w)
{
    if (!s->flags || s->flags_tab != tab || s->flags_w != w) {
        if (!s->flags)
            s->flags = pr_xmalloc(PR_TC_ITEMS + 1);
        ag__tc_orig_flags(&s->ctx, tab, w, s->flags);
        s->flags_tab = tab;
        s->flags_w = w;
    }
    return s->flags;
}

/* Append job j's rows from s->next_id until the statement is big enough;
 * returns the rows added. */
static uint64_t fill(struct stream *s, const struct job *j)
{
    struct ag__tc_buf *b = &s->buf;
    const struct ag__tc_load_ctx *c = &s->ctx;
    const uint8_t *flags = NULL;
    uint64_t rows = 0;

    if (j->tab == AG_TC_ITEM || j->tab == AG_TC_STOCK)
        flags = flags_for(s, j->tab, j->w);
    if (j->tab == AG_TC_ORDERS && (!s->perm || s->perm_w != j->w || s->perm_d != j->d)) {
        if (!s->perm)
            s->perm = pr_xmalloc(PR_TC_ORD_PER_DIST * sizeof *s->perm);
        ag__tc_permutation(c, j->w, j->d, s->perm);
        s->perm_w = j->w;
        s->perm_d = j->d;
    }
    for (; s->next_id <= j->hi && b->len < STMT_BYTES; s->next_id++) {
        uint32_t id = s->next_id;
        if (rows > 0)
            ag__tc_buf_put(b, ",", 1);
        switch (j->tab) {
        case AG_TC_ITEM:
            ag__tc_row_item(b, c, id, flags[id]);
            break;
        case AG_TC_WAREHOUSE:
            ag__tc_row_warehouse(b, c, id);
            break;
        case AG_TC_DISTRICT:
            ag__tc_row_district(b, c, j->w, id);
            break;
        case AG_TC_STOCK:
            ag__tc_row_stock(b, c, j->w, id, flags[id]);
            break;
        case AG_TC_CUSTOMER:
            ag__tc_row_customer(b, c, j->w, j->d, id);
            break;
        case AG_TC_HISTORY:
            ag__tc_row_history(b, c, j->w, j->d, id);
            break;
        case AG_TC_ORDERS:
            ag__tc_row_orders(b, c, j->w, j->d, id, s->perm[id - 1]);
            break;
        case AG_TC_NEW_ORDERS:
            ag__tc_row_new_orders(b, j->w, j->d, id);
            break;
        case AG_TC_ORDER_LINE:
            rows += ag__tc_rows_order_line(b, c, j->w, j->d, id) - 1u;
            break;
        default:
            abort();
        }
        rows++;
    }
    return rows;
}

static bool stream_next(void *it, const char **sql, size_t *sql_len, uint64_t *rows)
{
    struct stream *s = it;
    char probe[1024];

    *rows = 0;
    s->buf.len = 0;
    if (s->step == 0) {
        ag__tc_buf_put(&s->buf, session_sql, sizeof session_sql - 1);
    } else if (s->step == 1) {
        size_t n = ag_tc_schema_probe_sql(s->tables, false, probe, sizeof probe);
        ag__tc_buf_put(&s->buf, probe, n);
    } else {
        while (s->cur < s->njobs && s->next_id > s->jobs[s->cur].hi) {
            if (++s->cur < s->njobs)
                s->next_id = s->jobs[s->cur].lo;
        }
        if (s->cur == s->njobs) {
            free(s->flags); /* the stream is done: its big buffers go now */
            s->flags = NULL;
            free(s->perm);
            s->perm = NULL;
            ag__tc_buf_free(&s->buf);
            return false;
        }
        const struct job *j = &s->jobs[s->cur];
        const char *name = ag_tc_table_name(j->tab);
        ag__tc_buf_put(&s->buf, "INSERT INTO ", 12);
        ag__tc_buf_put(&s->buf, name, strlen(name));
        ag__tc_buf_put(&s->buf, " VALUES ", 8);
        *rows = fill(s, j);
    }
    s->step++;
    *sql = s->buf.p;
    *sql_len = s->buf.len;
    return true;
}

static const char *stream_result(void *it, const struct ag_result *res)
{
    struct stream *s = it;
    if (s->step != 2) /* only the probe's result is read */
        return NULL;
    return ag_tc_schema_probe_check(res, s->msg, sizeof s->msg);
}

static void add_stream(struct stream *s, ag_piece_add_fn add, void *ctx)
{
    struct ag_piece p = {
        .it = s, .next = stream_next, .result = stream_result, .retry_locks = true};
    add(ctx, p, stream_destroy);
}

static void add_items(const struct ag__tc_load_ctx *c, uint32_t lo, uint32_t hi,
                      ag_piece_add_fn add, void *ctx)
{
    for (uint32_t b = lo; b <= hi;) {
        uint32_t end = ((b - 1) / ITEM_BLOCK + 1) * ITEM_BLOCK;
        if (end > hi)
            end = hi;
        struct stream *s = stream_new(c);
        stream_job(s, AG_TC_ITEM, 0, 0, b, end);
        add_stream(s, add, ctx);
        b = end + 1;
    }
}

/* Warehouse w's streams of one part (a PR_TC_PART_* bit). */
static void add_warehouse(const struct ag__tc_load_ctx *c, unsigned part, uint32_t w,
                          ag_piece_add_fn add, void *ctx)
{
    if (part == PR_TC_PART_WAREHOUSE) {
        for (uint32_t b = 1; b <= PR_TC_ITEMS; b += STOCK_BLOCK) {
            struct stream *s = stream_new(c);
            if (b == 1) {
                stream_job(s, AG_TC_WAREHOUSE, w, 0, w, w);
                stream_job(s, AG_TC_DISTRICT, w, 0, 1, PR_TC_DIST_PER_WARE);
            }
            stream_job(s, AG_TC_STOCK, w, 0, b, b + STOCK_BLOCK - 1);
            add_stream(s, add, ctx);
        }
        return;
    }
    for (uint32_t g = 1; g <= PR_TC_DIST_PER_WARE; g += DIST_GROUP) {
        struct stream *s = stream_new(c);
        for (uint32_t d = g; d < g + DIST_GROUP; d++) {
            if (part == PR_TC_PART_CUSTOMER) {
                stream_job(s, AG_TC_CUSTOMER, w, d, 1, PR_TC_CUST_PER_DIST);
                stream_job(s, AG_TC_HISTORY, w, d, 1, PR_TC_CUST_PER_DIST);
            } else {
                stream_job(s, AG_TC_ORDERS, w, d, 1, PR_TC_ORD_PER_DIST);
                stream_job(s, AG_TC_NEW_ORDERS, w, d, PR_TC_NEW_ORD_FIRST, PR_TC_ORD_PER_DIST);
                stream_job(s, AG_TC_ORDER_LINE, w, d, 1, PR_TC_ORD_PER_DIST);
            }
        }
        add_stream(s, add, ctx);
    }
}

static void load_ctx_init(struct ag__tc_load_ctx *c, uint64_t seed)
{
    time_t now = time(NULL);
    struct tm tm;

    memset(c, 0, sizeof *c);
    c->seed = seed;
    ag_tc_consts_init(&c->k, 0);
    localtime_r(&now, &tm);
    strftime(c->ts, sizeof c->ts, "%Y-%m-%d %H:%M:%S", &tm);
}

/* t's id range within 1..max (empty: id_hi = id_lo - 1), what naming it. */
static int check_range(const struct pr_msg_table *t, const char *what, unsigned max,
                       struct pr_error *err)
{
    if (t->id_lo < 1 || t->id_hi > max || t->id_hi + 1 < t->id_lo)
        return pr_error_set(err, PR_EINVAL, "PLAN: %s range %llu..%llu is outside 1..%u", what,
                            (unsigned long long)t->id_lo, (unsigned long long)t->id_hi, max);
    return 0;
}

static int check_entry(const struct pr_msg_table *t, struct pr_error *err)
{
    if (t->table == 1)
        return check_range(t, "warehouse", PR_TC_MAX_WAREHOUSES, err);
    if (t->table == 2)
        return check_range(t, "item", PR_TC_ITEMS, err);
    return pr_error_set(err, PR_EINVAL,
                        "PLAN: tables entry %u is not a tpcc entry (1: warehouses, 2: items)",
                        t->table);
}

static int prepare_loads(const struct pr_tc_opts *o, const struct pr_msg_plan *plan,
                         ag_piece_add_fn add, void *ctx)
{
    struct ag__tc_load_ctx c;

    load_ctx_init(&c, plan->seed);
    for (uint32_t i = 0; i < plan->n_tables; i++) {
        const struct pr_msg_table *t = &plan->tables[i];
        if (t->table == 1 && t->create_table) {
            ag_tc_script *sc = ag_tc_schema_create_new();
            add(ctx, ag_tc_script_piece(sc), ag_tc_script_destroy);
        }
    }
    /* Biggest streams first (orders ~13 MB of text, customers ~11 MB,
     * stock blocks ~8 MB, item blocks ~2 MB), so the last to start are the
     * shortest and the connections finish close together. */
    static const unsigned by_size[] = {PR_TC_PART_ORDERS, PR_TC_PART_CUSTOMER,
                                       PR_TC_PART_WAREHOUSE};
    for (size_t k = 0; k < sizeof by_size / sizeof by_size[0]; k++) {
        if (!(o->parts & by_size[k]))
            continue;
        for (uint32_t i = 0; i < plan->n_tables; i++) {
            const struct pr_msg_table *t = &plan->tables[i];
            if (t->table == 1)
                for (uint64_t w = t->id_lo; w <= t->id_hi; w++)
                    add_warehouse(&c, by_size[k], (uint32_t)w, add, ctx);
        }
    }
    for (uint32_t i = 0; i < plan->n_tables; i++) {
        const struct pr_msg_table *t = &plan->tables[i];
        if (t->table == 2 && (o->parts & PR_TC_PART_ITEMS))
            add_items(&c, (uint32_t)t->id_lo, (uint32_t)t->id_hi, add, ctx);
    }
    for (uint32_t i = 0; i < plan->n_tables; i++) {
        const struct pr_msg_table *t = &plan->tables[i];
        if (t->table == 1 && t->create_index && o->foreign_keys) {
            ag_tc_script *sc = ag_tc_schema_index_new();
            add(ctx, ag_tc_script_piece(sc), ag_tc_script_destroy);
        }
    }
    return 0;
}

int ag_tc_loads(const struct pr_tc_opts *o, const pr_opts *po, const struct pr_msg_plan *plan,
                ag_piece_add_fn add, void *ctx, struct pr_error *err)
{
    (void)po; /* everything the loaders read is in o */
    for (uint32_t i = 0; i < plan->n_tables; i++)
        if (check_entry(&plan->tables[i], err) < 0)
            return err->code;
    switch (plan->cmd) {
    case PR_CMD_PREPARE:
        return prepare_loads(o, plan, add, ctx);
    case PR_CMD_CLEANUP:
        for (uint32_t i = 0; i < plan->n_tables; i++)
            if (plan->tables[i].table == 1 && plan->tables[i].create_table) {
                ag_tc_script *sc = ag_tc_schema_drop_new();
                add(ctx, ag_tc_script_piece(sc), ag_tc_script_destroy);
            }
        return 0;
    case PR_CMD_CHECK:
        for (uint32_t i = 0; i < plan->n_tables; i++) {
            const struct pr_msg_table *t = &plan->tables[i];
            if (t->table == 1)
                for (uint64_t w = t->id_lo; w <= t->id_hi; w++)
                    ag_tc_check_add((uint32_t)w, o->check_all, add, ctx);
        }
        return 0;
    default:
        return pr_error_set(err, PR_EINVAL, "tpcc has no %s command (prepare, run, check, cleanup)",
                            pr_plan_cmd_name(plan->cmd));
    }
}
