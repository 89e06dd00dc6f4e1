/* ag_tc_family: the tpcc family's ops (ag_family.h), tying the engine to
 * ag_tc_gen and ag_tc_load (contract: ag_tc_family.h). The ops only cast:
 * struct ag_tc_wl and the generator begin with struct ag_wl / struct ag_gen. */
#include "ag_tc_family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_tc_gen.h"
#include "ag_tc_load.h"
#include "ag_tc_multi.h"
#include "ag_tc_rand.h"
#include "pr_parse.h"
#include "pr_tc_opts.h"

#define WL(w)  ((struct ag_tc_wl *)(w))
#define CWL(w) ((const struct ag_tc_wl *)(w))

static bool tc_has_workload(const char *name)
{
    return pr_workload_from_name(name) == PR_WL_TPCC;
}

static void tc_wl_destroy(struct ag_wl **wl)
{
    if (*wl == NULL)
        return;
    for (uint32_t i = 0; WL(*wl)->schema_db && i < WL(*wl)->tc.schemas; i++)
        free(WL(*wl)->schema_db[i]);
    free(WL(*wl)->schema_db);
    free(WL(*wl)->schema_hint);
    free(WL(*wl)->grant_hint);
    pr_opts_destroy(&WL(*wl)->opts);
    free(*wl);
    *wl = NULL;
}

/* tpcc_start -m N -o K: the N databases "<mysql-db>_<K + i>" (connection t
 * opens schema t % N) and the hint for one that does not exist. */
static void schemas_init(struct ag_tc_wl *wl)
{
    const char *base = pr_opts_str(wl->opts, "mysql-db");
    const struct pr_tc_opts *o = &wl->tc;
    char first[160], last[160];

    wl->schema_db = pr_xcalloc(o->schemas, sizeof(*wl->schema_db));
    for (uint32_t i = 0; i < o->schemas; i++) {
        int len = pr_tc_schema_db(base, o, i, NULL, 0);
        wl->schema_db[i] = pr_xmalloc((size_t)len + 1);
        pr_tc_schema_db(base, o, i, wl->schema_db[i], (size_t)len + 1);
    }
    pr_tc_schema_db(base, o, 0, first, sizeof first);
    pr_tc_schema_db(base, o, o->schemas - 1, last, sizeof last);
    size_t cap = 2 * sizeof first + 800;
    wl->schema_hint = pr_xmalloc(cap);
    snprintf(wl->schema_hint, cap,
             "tpcc_start -m %u -o %u needs the %u schemas %s..%s (connection t opens %s_<(t %% "
             "%u) + %u>), each created and loaded first: stampede tpcc_load -d DATABASE -w %u "
             "for each, or `stampede tpcc prepare --mysql-db=%s --multi-schema=%u "
             "--multi-schema-offset=%u`",
             o->schemas, o->schema_offset, o->schemas, first, last, base, o->schemas,
             o->schema_offset, o->warehouses, base, o->schemas, o->schema_offset);
}

static struct ag_wl *tc_wl_new(const char *name, const struct ag_kv *opts, size_t nopts,
                               struct pr_error *err)
{
    if (!tc_has_workload(name)) {
        pr_error_set(err, PR_EINVAL, "unknown workload '%s'", name);
        return NULL;
    }
    struct ag_tc_wl *wl = pr_xcalloc(1, sizeof *wl);
    struct ag_wl *base = &wl->base;
    wl->base.fam = &ag_tc_family;
    wl->opts = pr_opts_new(PR_WL_TPCC);
    for (size_t i = 0; i < nopts; i++)
        if (pr_opts_set(wl->opts, opts[i].name, opts[i].value, err) < 0)
            goto fail;
    if (pr_tc_opts_get(wl->opts, &wl->tc, err) < 0)
        goto fail;
    wl->dry_run = pr_opts_bool(wl->opts, "mysql-dry-run");
    ag_tc_consts_init(&wl->consts, 0); /* the loader's: fixed for every agent and run */
    ag_tc_wl_stmts_init(wl);
    if (wl->tc.schemas > 0)
        schemas_init(wl);
    return base;
fail:
    tc_wl_destroy(&base);
    return NULL;
}

static const pr_opts *tc_wl_opts(const struct ag_wl *wl)
{
    return CWL(wl)->opts;
}

static void tc_wl_set_run_seed(struct ag_wl *wl, uint64_t seed)
{
    WL(wl)->run_seed = seed;
}

static int tc_wl_set_share(struct ag_wl *w, enum pr_partition part, const struct pr_msg_table *t,
                           size_t n, struct pr_error *err)
{
    struct ag_tc_wl *wl = WL(w);

    if (part == PR_PART_NONE) {
        wl->home_lo = wl->home_hi = 0;
        return 0;
    }
    if (part != PR_PART_WAREHOUSES)
        return pr_error_set(err, PR_EINVAL,
                            "--partition=%s: the tpcc workload splits by warehouse: use "
                            "--partition=warehouses or none",
                            pr_partition_name(part));
    if (n != 1 || t[0].table != 1 || t[0].id_lo < 1 || t[0].id_lo > t[0].id_hi ||
        t[0].id_hi > wl->tc.warehouses)
        return pr_error_set(err, PR_EINVAL,
                            "--partition=warehouses: this agent's share must be one warehouse "
                            "range within 1..%u (got %zu entries, first n=%u %llu..%llu): more "
                            "agents than warehouses?",
                            wl->tc.warehouses, n, n ? t[0].table : 0,
                            n ? (unsigned long long)t[0].id_lo : 0ull,
                            n ? (unsigned long long)t[0].id_hi : 0ull);
    wl->home_lo = (uint32_t)t[0].id_lo;
    wl->home_hi = (uint32_t)t[0].id_hi;
    return 0;
}

static size_t tc_wl_nstmts(const struct ag_wl *wl)
{
    (void)wl;
    return AG_TC_NSTMTS;
}

static const struct ag_stmt_def *tc_wl_stmt(const struct ag_wl *wl, size_t i)
{
    return i < AG_TC_NSTMTS ? &CWL(wl)->stmts[i] : NULL;
}

static size_t tc_wl_kinds(const struct ag_wl *wl, const char *const **names)
{
    (void)wl;
    *names = pr_tc_kind_names();
    return PR_TC_K_COUNT_;
}

/* tpcc_start's -f / -t files (written by the coordinator) need every
 * New-Order one by one. */
static uint64_t tc_wl_record_kinds(const struct ag_wl *wl)
{
    return CWL(wl)->tc.record_new_order ? UINT64_C(1) << PR_TC_K_NEW_ORDER : 0;
}

/* The five transaction kinds' --rt-limits (tpcc_start's -0..-4), in ns:
 * tpcc_start counts a transaction late when `rt < limit` does not hold. */
static uint64_t tc_wl_kind_limit_ns(const struct ag_wl *wl, uint16_t k)
{
    if (k >= PR_TC_TXN_COUNT_)
        return UINT64_MAX;
    return (uint64_t)CWL(wl)->tc.rt_limit_ms[k] * 1000000u;
}

/* A run, a check or a partial load on tables that are missing or not
 * tpcc-mysql's: the server's error says which; the cure is tpcc's. */
static const char *tc_wl_error_hint(const struct ag_wl *wl, unsigned err_no)
{
    const struct ag_tc_wl *w = CWL(wl);
    if (w->grant_hint && (err_no == 1044 || err_no == 1045 || err_no == 1142))
        return w->grant_hint; /* access denied: to a schema, a table, or the user */
    if (w->schema_hint && (err_no == 1049 || err_no == 1146)) /* a schema of -m/-o */
        return w->schema_hint;
    switch (err_no) {
    case 1146: /* ER_NO_SUCH_TABLE */
        return "the TPC-C tables do not exist: run `stampede tpcc prepare` first (it creates "
               "tpcc-mysql's 9 tables and loads them)";
    case 1054: /* ER_BAD_FIELD_ERROR */
    case 1136: /* ER_WRONG_VALUE_COUNT_ON_ROW */
        return "not tpcc-mysql's schema: run `stampede tpcc prepare` (it drops and creates the "
               "9 tables)";
    default:
        return NULL;
    }
}

/* The hints that depend on the command and the user (PLAN.cmd, .user):
 * access denied (1044 to a database, 1142 to a table, 1045 the user) names
 * the schemas and the GRANT to give; with -m/-o, prepare's missing schema
 * (1049) says to create them (as for tpcc_load -d, prepare does not). */
static int tc_wl_set_plan(struct ag_wl *w, const struct pr_msg_plan *p, struct pr_error *err)
{
    struct ag_tc_wl *wl = WL(w);
    const char *base = pr_opts_str(wl->opts, "mysql-db");
    const char *user = p->user && p->user[0] ? p->user : pr_opts_str(wl->opts, "mysql-user");
    char on[200], dbs[200];
    size_t cap = 1200;

    (void)err;
    const char *db = p->database && p->database[0] ? p->database : base;
    uint32_t n = wl->tc.schemas;
    char pat[100];
    snprintf(pat, sizeof pat, "%s\\_%%", base); /* every <db>_<i> */
    if (pr_sql_ident(on, sizeof on - 2, n > 0 ? pat : db) == 0)
        snprintf(on, sizeof on, "`...`");
    strcat(on, ".*");
    if (n > 1)
        snprintf(dbs, sizeof dbs, "the schemas %s..%s (--multi-schema=%u)", wl->schema_db[0],
                 wl->schema_db[n - 1], n);
    else
        snprintf(dbs, sizeof dbs, "the database %s", n ? wl->schema_db[0] : db);
    const char *privs = p->cmd == PR_CMD_RUN     ? "SELECT, INSERT, UPDATE, DELETE"
                        : p->cmd == PR_CMD_CHECK ? "SELECT"
                                                 : "SELECT, INSERT, CREATE, DROP, INDEX, ALTER, "
                                                   "REFERENCES";
    free(wl->grant_hint);
    wl->grant_hint = pr_xmalloc(cap);
    snprintf(wl->grant_hint, cap,
             "user '%s' may not use %s: check --mysql-user and its password (MYSQL_PWD or "
             "--mysql-password), and have an administrator run GRANT ALL ON %s TO '%s'@'%%' "
             "(tpcc %s needs at least %s)",
             user, dbs, on, user, pr_plan_cmd_name(p->cmd), privs);
    if (wl->tc.schemas > 0 && p->cmd == PR_CMD_PREPARE) {
        free(wl->schema_hint);
        wl->schema_hint = pr_xmalloc(cap);
        snprintf(wl->schema_hint, cap,
                 "tpcc prepare --multi-schema=%u loads %s, which must exist first (as for "
                 "tpcc_load -d): CREATE DATABASE for each, and GRANT ALL ON %s TO '%s'@'%%'",
                 wl->tc.schemas, dbs, on, user);
    }
    return 0;
}

/* tpcc_start -m/-o: connection t opens "<db>_<(t % N) + K>" (spec §4.1). */
static const char *tc_wl_conn_db(const struct ag_wl *wl, uint32_t conn_index)
{
    const struct ag_tc_wl *w = CWL(wl);
    return w->schema_db ? w->schema_db[conn_index % w->tc.schemas] : NULL;
}

static struct ag_gen *tc_gen_new(const struct ag_wl *wl, uint64_t seed, uint32_t conn_index,
                                 uint32_t conns_total)
{
    return ag_tc_gen_new(CWL(wl), seed, conn_index, conns_total);
}

static int tc_loads(const struct ag_wl *wl, const struct pr_msg_plan *plan, ag_piece_add_fn add,
                    void *ctx, struct pr_error *err)
{
    const struct ag_tc_wl *w = CWL(wl);
    return ag_tc_multi_loads((const char *const *)w->schema_db, w->schema_db ? w->tc.schemas : 0,
                             &w->tc, w->opts, plan, add, ctx, err);
}

const struct ag_family ag_tc_family = {
    .name = "tpcc",
    .has_workload = tc_has_workload,
    .wl_new = tc_wl_new,
    .wl_destroy = tc_wl_destroy,
    .wl_opts = tc_wl_opts,
    .wl_set_run_seed = tc_wl_set_run_seed,
    .wl_set_share = tc_wl_set_share,
    .wl_nstmts = tc_wl_nstmts,
    .wl_stmt = tc_wl_stmt,
    .wl_kinds = tc_wl_kinds,
    .gen_new = tc_gen_new,
    .gen_destroy = ag_tc_gen_destroy,
    .begin = ag_tc_gen_begin,
    .next = ag_tc_gen_next,
    .result = ag_tc_gen_result,
    .retry = ag_tc_gen_retry,
    .finish = ag_tc_gen_finish,
    .loads = tc_loads,
    .event_kind = ag_tc_gen_event_kind,
    .wl_record_kinds = tc_wl_record_kinds,
    .wl_kind_limit_ns = tc_wl_kind_limit_ns,
    .wl_error_hint = tc_wl_error_hint,
    .wl_conn_db = tc_wl_conn_db,
    .wl_set_plan = tc_wl_set_plan,
};
