/* ag_lua_family: users' own sysbench Lua scripts as a workload family
 * (ag_family.h). The workload is "lua:NAME"; its sources come in the PLAN
 * (PLAN.script_*), never from this machine's disk.
 *
 * wl_set_plan runs a probe: one state loads the script and, for run, runs
 * thread_init() as thread 0 with every query answered empty and
 * nothing sent, to learn the statements con:prepare() makes (up to an
 * error, which empty answers may cause: the run reports real ones). That set is
 * what every connection prepares (ag_conn); at run time con:prepare() of
 * the same text finds its index, and a statement the probe did not see is
 * sent as text with its parameters rendered in (sysbench's emulation).
 * Kinds: the text verbs (begin, select, ...), then one per prepared
 * statement shape (its text with the table number replaced by '#').
 * init() and done() run once, on the coordinator (sysbench's main thread),
 * not here: a thread never sees what they set, in sysbench either. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "ag_lua_int.h"
#include "pr_opts.h"

#define WL(w)  ((struct ag__lua_wl *)(w))
#define CWL(w) ((const struct ag__lua_wl *)(w))

#define PROBE_MAX_YIELDS 100000 /* queries thread_init may send in the probe */

static const char *const text_kinds[] = {"begin",  "commit", "rollback", "select", "insert",
                                         "update", "delete", "replace",  "set",    "other"};
#define N_TEXT_KINDS (sizeof text_kinds / sizeof text_kinds[0])
#define KIND_OTHER   (N_TEXT_KINDS - 1)

uint16_t ag__lua_text_kind(const char *sql, size_t len)
{
    char w[16];
    size_t i = 0, n = 0;
    while (i < len && (isspace((unsigned char)sql[i]) || sql[i] == '('))
        i++;
    while (i < len && n + 1 < sizeof w && isalpha((unsigned char)sql[i]))
        w[n++] = (char)tolower((unsigned char)sql[i++]);
    w[n] = '\0';
    if (strcmp(w, "start") == 0)
        return 0;
    for (uint16_t k = 0; k < N_TEXT_KINDS; k++)
        if (strcmp(w, text_kinds[k]) == 0)
            return k;
    return KIND_OTHER;
}

static bool lua_has_workload(const char *name)
{
    return strncmp(name, "lua:", 4) == 0 && name[4] != '\0';
}

static struct ag_wl *lua_wl_new(const char *name, const struct ag_kv *opts, size_t nopts,
                                struct pr_error *err)
{
    struct ag__lua_wl *wl = pr_xcalloc(1, sizeof *wl);
    wl->base.fam = &ag_lua_family;
    wl->name = pr_xstrdup(name);
    wl->opts = pr_opts_new(-1);
    wl->sopts = pr_xcalloc(nopts + 1, sizeof *wl->sopts);
    for (size_t i = 0; i < nopts; i++) {
        const struct pr_opt_def *d = pr_opts_find(opts[i].name);
        if (d && d->group != PR_OPT_SCRIPT) {
            if (pr_opts_set(wl->opts, opts[i].name, opts[i].value, err) < 0)
                goto fail;
            continue;
        }
        char *n = pr_xstrdup(opts[i].name);
        for (char *p = n; *p; p++)
            if (*p == '-')
                *p = '_';
        wl->sopts[wl->n_sopts++] = (struct ag_kv){n, pr_xstrdup(opts[i].value)};
    }
    const pr_opts *o = wl->opts;
    wl->rand_seed = (uint64_t)pr_opts_int(o, "rand-seed");
    if (ag_dist_init(&wl->dist, pr_opts_str(o, "rand-type"), pr_opts_int(o, "rand-spec-iter"),
                     pr_opts_int(o, "rand-spec-pct"), pr_opts_int(o, "rand-spec-res"),
                     pr_opts_double(o, "rand-pareto-h"), pr_opts_double(o, "rand-zipfian-exp"),
                     err) < 0)
        goto fail;
    return &wl->base;
fail:;
    struct ag_wl *b = &wl->base;
    ag_lua_family.wl_destroy(&b);
    return NULL;
}

static void lua_wl_destroy(struct ag_wl **w)
{
    struct ag__lua_wl *wl = WL(*w);
    if (wl == NULL)
        return;
    pr_opts_destroy(&wl->opts);
    for (size_t i = 0; i < wl->n_sopts; i++) {
        free((char *)wl->sopts[i].name);
        free((char *)wl->sopts[i].value);
    }
    free(wl->sopts);
    for (size_t i = 0; i < wl->n_srcs; i++) {
        free((char *)wl->srcs[i].name);
        free((char *)wl->srcs[i].text);
    }
    free(wl->srcs);
    for (size_t i = 0; i < wl->n_defs; i++)
        free((char *)wl->defs[i].sql);
    free(wl->defs);
    for (size_t i = N_TEXT_KINDS; i < wl->n_kinds; i++)
        free(wl->kinds[i]);
    free(wl->kinds);
    free(wl->name);
    free(wl->cmd);
    free(wl);
    *w = NULL;
}

static const pr_opts *lua_wl_opts(const struct ag_wl *wl)
{
    return CWL(wl)->opts;
}

static void lua_wl_set_run_seed(struct ag_wl *wl, uint64_t seed)
{
    WL(wl)->rand_seed = seed;
}

static int lua_wl_set_share(struct ag_wl *wl, enum pr_partition part, const struct pr_msg_table *t,
                            size_t n, struct pr_error *err)
{
    (void)wl, (void)t, (void)n;
    if (part != PR_PART_NONE)
        return pr_error_set(err, PR_EINVAL,
                            "a Lua script picks its own rows: --partition=%s cannot confine it",
                            pr_partition_name(part));
    return 0;
}

static size_t lua_wl_nstmts(const struct ag_wl *wl)
{
    return CWL(wl)->n_defs;
}

static const struct ag_stmt_def *lua_wl_stmt(const struct ag_wl *wl, size_t i)
{
    return &CWL(wl)->defs[i];
}

static size_t lua_wl_kinds(const struct ag_wl *wl, const char *const **names)
{
    *names = (const char *const *)CWL(wl)->kinds;
    return CWL(wl)->n_kinds;
}

/* ---- the probe ---------------------------------------------------------- */

/* A statement's kind name: its text, table numbers ("sbtest12") as '#'. */
static char *shape_of(const char *sql)
{
    char *s = pr_xmalloc(PR_MSG_NAME_MAX);
    size_t n = 0;
    for (const char *p = sql; *p && n + 1 < PR_MSG_NAME_MAX; p++) {
        bool after_word = p > sql && (isalpha((unsigned char)p[-1]) || p[-1] == '_' ||
                                      isdigit((unsigned char)p[-1]));
        if (isdigit((unsigned char)*p) && after_word && n > 0 &&
            (s[n - 1] == '#' || isalpha((unsigned char)s[n - 1]) || s[n - 1] == '_')) {
            if (s[n - 1] != '#')
                s[n++] = '#';
            continue;
        }
        s[n++] = isspace((unsigned char)*p) ? ' ' : *p;
    }
    s[n] = '\0';
    return s;
}

static uint16_t kind_for(struct ag__lua_wl *wl, const char *sql)
{
    char *shape = shape_of(sql);
    for (size_t k = N_TEXT_KINDS; k < wl->n_kinds; k++)
        if (strcmp(wl->kinds[k], shape) == 0) {
            free(shape);
            return (uint16_t)k;
        }
    if (wl->n_kinds >= PR_MSG_MAX_KINDS) {
        free(shape);
        return ag__lua_text_kind(sql, strlen(sql));
    }
    wl->kinds[wl->n_kinds] = shape;
    return (uint16_t)wl->n_kinds++;
}

/* The statements the probe's con:prepare() saw, in order, once each. */
static int read_prepared(struct ag__lua_wl *wl, lua_State *L, struct pr_error *err)
{
    lua_getglobal(L, "__sb_prepared");
    size_t n = lua_objlen(L, -1);
    wl->defs = pr_xcalloc(n + 1, sizeof *wl->defs);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (int)i);
        lua_getfield(L, -1, "sql");
        size_t len;
        const char *sql = lua_tolstring(L, -1, &len);
        lua_getfield(L, -2, "_types");
        size_t np = lua_objlen(L, -1);
        bool dup = false;
        for (size_t k = 0; sql && k < wl->n_defs && !dup; k++)
            dup = strcmp(wl->defs[k].sql, sql) == 0;
        if (sql && !dup) {
            if (np > AG_MAX_PARAMS) {
                lua_pop(L, 4);
                return pr_error_set(err, PR_EINVAL, "a statement binds %zu parameters (max %d)", np,
                                    AG_MAX_PARAMS);
            }
            struct ag_stmt_def *d = &wl->defs[wl->n_defs++];
            d->sql = pr_xstrdup(sql);
            d->sql_len = len;
            d->nparams = (uint32_t)np;
            for (size_t p = 1; p <= np; p++) {
                lua_rawgeti(L, -1, (int)p);
                const char *t = lua_tostring(L, -1);
                d->type[p - 1] = t && t[0] == 's' ? AG_PARAM_STR : AG_PARAM_INT;
                lua_pop(L, 1);
            }
            d->kind_id = kind_for(wl, sql);
            d->kind = wl->kinds[d->kind_id];
        }
        lua_pop(L, 3);
    }
    lua_pop(L, 1);
    return 0;
}

/* thread_init() as thread 0, every query answered empty. */
static int probe_thread(struct ag__lua_wl *wl, struct ag__lua_state *st, struct pr_error *err)
{
    struct ag__lua_co co = {0};
    struct ag__lua_rng rng = {0};
    int rc = 0;

    ag__lua_rng_init(&rng, wl, wl->rand_seed, 0, 1);
    lua_rawgeti(st->L, LUA_REGISTRYINDEX, st->ctx_ref);
    lua_pushboolean(st->L, 1);
    lua_setfield(st->L, -2, "probe");
    lua_pop(st->L, 1);
    ag__lua_co_start(&co, st, "__sb_thread_main", NULL, 0);
    enum ag__lua_yield y = ag__lua_co_resume(&co, &rng, 0);
    for (int i = 0; (y == AG__LUA_Y_TEXT || y == AG__LUA_Y_STMT) && i < PROBE_MAX_YIELDS; i++) {
        lua_settop(co.co, 0);
        y = ag__lua_co_resume(&co, &rng, 0);
    }
    /* An error here may be the empty answers' doing (tpcc_common.lua
     * concatenates a query_row() value): the statements prepared so far
     * stand, later ones go as text, and a real error shows at run time,
     * with FILE:LINE, from the connection that meets it. */
    (void)y;
    ag__lua_co_close(&co);
    ag__lua_rng_free(&rng);
    return rc < 0 ? rc : read_prepared(wl, st->L, err);
}

/* The command's function exists; whether it runs in every thread. */
static int probe_command(struct ag__lua_wl *wl, struct ag__lua_state *st, struct pr_error *err)
{
    lua_State *L = st->L;
    lua_getglobal(L, "__sb_command");
    lua_pushstring(L, wl->cmd);
    lua_call(L, 1, 2);
    bool has = lua_isfunction(L, -2);
    wl->cmd_parallel = lua_toboolean(L, -1);
    lua_pop(L, 2);
    if (!has)
        return pr_error_set(err, PR_EINVAL, "%s.lua has no '%s' command", wl->srcs[0].name,
                            wl->cmd);
    return 0;
}

static int copy_sources(struct ag__lua_wl *wl, const struct pr_msg_plan *p, struct pr_error *err)
{
    if (p->n_script_names == 0 || p->n_script_names != p->n_script_srcs)
        return pr_error_set(err, PR_EINVAL, "the plan for %s carries no script sources", wl->name);
    uint64_t h = pr_lua_hash((const char *const *)p->script_names,
                             (const char *const *)p->script_srcs, p->n_script_names);
    if (h != p->script_hash)
        return pr_error_set(err, PR_EINVAL,
                            "the script sources hash to %016llx, the plan says %016llx",
                            (unsigned long long)h, (unsigned long long)p->script_hash);
    wl->srcs = pr_xcalloc(p->n_script_names, sizeof *wl->srcs);
    for (uint32_t i = 0; i < p->n_script_names; i++) {
        wl->srcs[i].name = pr_xstrdup(p->script_names[i]);
        wl->srcs[i].text = pr_xstrdup(p->script_srcs[i]);
        wl->srcs[i].len = strlen(p->script_srcs[i]);
    }
    wl->n_srcs = p->n_script_names;
    return 0;
}

static int lua_wl_set_plan(struct ag_wl *w, const struct pr_msg_plan *p, struct pr_error *err)
{
    struct ag__lua_wl *wl = WL(w);
    int rc = copy_sources(wl, p, err);
    if (rc < 0)
        return rc;
    wl->cmd = pr_xstrdup(p->script_cmd && p->cmd == PR_CMD_CHECK ? p->script_cmd
                                                                 : pr_plan_cmd_name(p->cmd));
    wl->kinds = pr_xcalloc(PR_MSG_MAX_KINDS, sizeof *wl->kinds);
    for (size_t k = 0; k < N_TEXT_KINDS; k++)
        wl->kinds[k] = (char *)text_kinds[k];
    wl->n_kinds = N_TEXT_KINDS;
    struct ag__lua_state *st = ag__lua_state_new(wl, wl->cmd, false, err);
    if (st == NULL)
        return err->code ? err->code : PR_EINVAL;
    if (p->cmd == PR_CMD_RUN) {
        rc = probe_thread(wl, st, err); /* init() is the coordinator's (co_lua_init) */
        if (rc == 0 && strcmp(pr_opts_str(wl->opts, "db-ps-mode"), "disable") == 0) {
            for (size_t i = 0; i < wl->n_defs; i++) /* all text, as sysbench's emulation */
                free((char *)wl->defs[i].sql);
            wl->n_defs = 0;
        }
    } else {
        rc = probe_command(wl, st, err);
    }
    ag__lua_state_destroy(&st);
    return rc;
}

/* A plain command runs once, as thread 0 (ag__lua_loads): one connection;
 * a PARALLEL one on each of PLAN.conns. */
static uint32_t lua_cmd_conns(const struct ag_wl *w, const struct pr_msg_plan *p)
{
    return WL(w)->cmd_parallel ? p->conns : 1;
}

/* Every PLAN of the family runs a script: its first source's name (the
 * script; the workload's name when the PLAN lacks sources, which
 * wl_set_plan refuses later). */
static const char *lua_plan_script(const struct pr_msg_plan *p)
{
    if (p->n_script_names > 0)
        return p->script_names[0];
    return strncmp(p->workload, "lua:", 4) == 0 ? p->workload + 4 : p->workload;
}

const struct ag_family ag_lua_family = {
    .name = "lua",
    .has_workload = lua_has_workload,
    .wl_new = lua_wl_new,
    .wl_destroy = lua_wl_destroy,
    .wl_opts = lua_wl_opts,
    .wl_set_run_seed = lua_wl_set_run_seed,
    .wl_set_share = lua_wl_set_share,
    .wl_nstmts = lua_wl_nstmts,
    .wl_stmt = lua_wl_stmt,
    .wl_kinds = lua_wl_kinds,
    .gen_new = ag__lua_gen_new,
    .gen_destroy = ag__lua_gen_destroy,
    .begin = ag__lua_begin,
    .next = ag__lua_next,
    .result = ag__lua_result,
    .retry = ag__lua_retry,
    .finish = ag__lua_finish,
    .loads = ag__lua_loads,
    .wl_set_plan = lua_wl_set_plan,
    .cmd_conns = lua_cmd_conns,
    .gen_error = ag__lua_gen_error,
    .retry_fatal = ag__lua_retry_fatal,
    .event_errors = ag__lua_event_errors,
    .plan_script = lua_plan_script,
};
