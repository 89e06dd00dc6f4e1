/* ag_sb_family: the sysbench family's ops. See ag_sb_family.h.
 *
 * ag_sb_workload and ag_sb_cursor begin with struct ag_wl / struct ag_gen, so
 * the ops only cast: a statement costs one indirect call more than when
 * the engine called the cursor directly. */
#include "ag_sb_family.h"

#include <stdlib.h>
#include <string.h>

#include "ag_sb_check.h"
#include "ag_sb_load.h"
#include "pr_sb_schema.h"
#include "pr_split.h"

#define WL(w)  ((ag_sb_workload *)(w))
#define CWL(w) ((const ag_sb_workload *)(w))
#define CUR(g) ((ag_sb_cursor *)(g))

const ag_sb_workload *ag_sb_family_workload(const struct ag_wl *wl)
{
    return CWL(wl);
}

ag_sb_cursor *ag_sb_family_cursor(struct ag_gen *g)
{
    return CUR(g);
}

static struct ag_wl *sb_wl_new(const char *name, const struct ag_kv *opts, size_t nopts,
                               struct pr_error *err)
{
    ag_sb_workload *wl = ag_sb_workload_new(&ag_sb_family, name, opts, nopts, err);
    return wl ? (struct ag_wl *)wl : NULL;
}

static void sb_wl_destroy(struct ag_wl **wl)
{
    ag_sb_workload *w = WL(*wl);
    ag_sb_workload_destroy(&w);
    *wl = NULL;
}

static const pr_opts *sb_wl_opts(const struct ag_wl *wl)
{
    return ag_sb_workload_opts(CWL(wl));
}

static void sb_wl_set_run_seed(struct ag_wl *wl, uint64_t seed)
{
    ag_sb_workload_set_run_seed(WL(wl), seed);
}

static int sb_wl_set_share(struct ag_wl *wl, enum pr_partition part, const struct pr_msg_table *t,
                           size_t n, struct pr_error *err)
{
    return ag_sb_workload_set_share(WL(wl), part, t, n, err);
}

static size_t sb_wl_nstmts(const struct ag_wl *wl)
{
    return ag_sb_workload_uses_ps(CWL(wl)) ? ag_sb_workload_nstmts(CWL(wl)) : 0;
}

static size_t sb_wl_kinds(const struct ag_wl *wl, const char *const **names)
{
    static const char *const kinds[PR_SB_K_COUNT_] = {
#define SB_KIND_NAME(id, name) name,
        PR_SB_KINDS(SB_KIND_NAME)
#undef SB_KIND_NAME
    };
    (void)wl;
    *names = kinds;
    return PR_SB_K_COUNT_;
}

static const struct ag_stmt_def *sb_wl_stmt(const struct ag_wl *wl, size_t i)
{
    return ag_sb_workload_stmt(CWL(wl), i);
}

static struct ag_gen *sb_gen_new(const struct ag_wl *wl, uint64_t seed, uint32_t conn_index,
                                 uint32_t conns_total)
{
    return (struct ag_gen *)ag_sb_cursor_new(CWL(wl), seed, conn_index, conns_total);
}

static void sb_gen_destroy(struct ag_gen **g)
{
    ag_sb_cursor *c = CUR(*g);
    ag_sb_cursor_destroy(&c);
    *g = NULL;
}

static void sb_begin(struct ag_gen *g)
{
    ag_sb_cursor_begin(CUR(g));
}

static enum ag_step sb_next(struct ag_gen *g, struct ag_call *call)
{
    return ag_sb_cursor_next(CUR(g), call) ? AG_STEP_STMT : AG_STEP_COMMITTED;
}

/* sysbench re-runs event() after an ignorable error or a reconnect: new
 * parameters, from the event's first statement. */
static bool sb_retry(struct ag_gen *g, const struct ag_result *res)
{
    (void)res;
    ag_sb_cursor_begin(CUR(g));
    return true;
}

static bool sb_finish(struct ag_gen *g, struct ag_call *call)
{
    return ag_sb_cursor_finish(CUR(g), call);
}

/* ---- loaders ------------------------------------------------------------ */

static void load_destroy(void *it)
{
    ag_sb_load *l = it;
    ag_sb_load_destroy(&l);
}

static void check_destroy(void *it)
{
    ag_sb_check *c = it;
    ag_sb_check_destroy(&c);
}

/* How many tables cleanup drops and check reads: sbtest1..--tables, or for
 * bulk_insert, whose tables are sbtest<global connection index + 1>,
 * sbtest1..--threads as sysbench's bulk_insert cleanup (the coordinator's
 * plan carries --threads as conns_total). */
static uint32_t all_tables(const ag_sb_workload *wl, const struct pr_msg_plan *p)
{
    if (strcmp(ag_sb_workload_name(wl), "bulk_insert") == 0) {
        uint64_t n = p->conns_total ? p->conns_total : (p->conns ? p->conns : 1);
        return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    }
    return (uint32_t)pr_opts_int(ag_sb_workload_opts(wl), "tables");
}

/* Pieces of one agent run in parallel: a table split over several pieces
 * must be created (and indexed) in separate plans by the coordinator, with
 * create-only and index-only pieces of an empty id range (id_hi ==
 * id_lo - 1: ag_sb_load emits no row, and explicit_ids, then true, has no
 * effect). */
static int prepare_loads(const ag_sb_workload *wl, const struct pr_msg_plan *p, ag_piece_add_fn add,
                         void *ctx, struct pr_error *err)
{
    uint64_t table_size = (uint64_t)pr_opts_int(ag_sb_workload_opts(wl), "table_size");

    for (uint32_t i = 0; i < p->n_tables; i++) {
        const struct pr_msg_table *t = &p->tables[i];
        struct ag_sb_load_piece piece = {t->table,        t->id_lo,
                                         t->id_hi,        t->create_table,
                                         t->create_index, t->id_lo != 1 || t->id_hi != table_size};
        ag_sb_load *l = ag_sb_load_prepare_new(
            wl, &piece, pr_split_seed(p->seed, t->table, (uint32_t)t->id_lo), err);
        if (l == NULL)
            return err->code;
        add(ctx, ag_sb_load_piece(l), load_destroy);
    }
    return 0;
}

/* Cleanup and check: one stream over every table (one connection, as
 * sysbench's cleanup). Prewarm: sysbench's round robin over --threads. */
static int sb_loads(const struct ag_wl *w, const struct pr_msg_plan *p, ag_piece_add_fn add,
                    void *ctx, struct pr_error *err)
{
    const ag_sb_workload *wl = CWL(w);
    uint32_t ntables = (uint32_t)pr_opts_int(ag_sb_workload_opts(wl), "tables");

    if (p->cmd == PR_CMD_PREPARE)
        return prepare_loads(wl, p, add, ctx, err);
    if (p->cmd == PR_CMD_CLEANUP || p->cmd == PR_CMD_CHECK) {
        uint32_t n = all_tables(wl, p);
        uint32_t *nums = pr_xcalloc((size_t)n + 1, sizeof(*nums));
        for (uint32_t i = 0; i < n; i++)
            nums[i] = i + 1;
        if (p->cmd == PR_CMD_CLEANUP)
            add(ctx, ag_sb_load_piece(ag_sb_load_cleanup_new(wl, nums, n)), load_destroy);
        else
            add(ctx, ag_sb_check_piece(ag_sb_check_new(wl, nums, n)), check_destroy);
        free(nums);
    } else if (p->cmd == PR_CMD_PREWARM) {
        uint32_t conns = p->conns ? p->conns : 1;
        uint32_t *nums = pr_xcalloc(ntables + 1, sizeof(*nums));
        for (uint32_t c = 0; c < conns; c++) {
            size_t n = ag_sb_load_tables_for(ntables, c, conns, nums, ntables + 1);
            if (n > 0)
                add(ctx, ag_sb_load_piece(ag_sb_load_prewarm_new(wl, nums, n)), load_destroy);
        }
        free(nums);
    }
    return 0;
}

const struct ag_family ag_sb_family = {
    .name = "sysbench",
    .has_workload = pr_sb_has_workload,
    .wl_new = sb_wl_new,
    .wl_destroy = sb_wl_destroy,
    .wl_opts = sb_wl_opts,
    .wl_set_run_seed = sb_wl_set_run_seed,
    .wl_set_share = sb_wl_set_share,
    .wl_nstmts = sb_wl_nstmts,
    .wl_stmt = sb_wl_stmt,
    .wl_kinds = sb_wl_kinds,
    .gen_new = sb_gen_new,
    .gen_destroy = sb_gen_destroy,
    .begin = sb_begin,
    .next = sb_next,
    .result = NULL, /* sysbench reads no result */
    .retry = sb_retry,
    .finish = sb_finish,
    .loads = sb_loads,
};
