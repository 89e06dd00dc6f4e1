/* ag_lua_state: script states and coroutines for the Lua family. See
 * ag_lua_int.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <unistd.h>

#include "ag_lua_int.h"
#include "ag_result.h"
#include "pr_opts.h"

/* ---- sysbench.rand.*: the native family's generators ------------------- */

static struct ag__lua_state *state_of(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

static struct ag__lua_rng *host_of(lua_State *L)
{
    struct ag__lua_state *st = state_of(L);
    return st->cur ? st->cur : &st->own;
}

static struct ag_rand *rng_of(lua_State *L)
{
    return &host_of(L)->rng;
}

static uint32_t arg_u32(lua_State *L, int i)
{
    return (uint32_t)(int64_t)luaL_checknumber(L, i);
}

static int l_uniform(lua_State *L)
{
    uint32_t a = arg_u32(L, 1), b = arg_u32(L, 2);
    lua_pushnumber(L, ag_rand_uniform(rng_of(L), a, b));
    return 1;
}

/* A draw of distribution f over [a, b] (arguments 1 and 2). */
typedef uint32_t (*dist_fn)(const struct ag_dist *d, struct ag_rand *r, uint32_t a, uint32_t b);

static int draw(lua_State *L, dist_fn f)
{
    uint32_t a = arg_u32(L, 1), b = arg_u32(L, 2);
    lua_pushnumber(L, f(&state_of(L)->wl->dist, rng_of(L), a, b));
    return 1;
}

static int l_default(lua_State *L)
{
    return draw(L, ag_dist_draw);
}

static int l_gaussian(lua_State *L)
{
    return draw(L, ag_rand_gaussian);
}

static int l_special(lua_State *L)
{
    return draw(L, ag_rand_special);
}

static int l_pareto(lua_State *L)
{
    return draw(L, ag_rand_pareto);
}

static int l_zipfian(lua_State *L)
{
    return draw(L, ag_rand_zipfian);
}

static int l_unique(lua_State *L)
{
    struct ag__lua_state *st = state_of(L);
    lua_pushnumber(L, ag_rand_unique_next(st->cur ? &st->cur->uniq : &st->own.uniq));
    return 1;
}

static int l_string(lua_State *L)
{
    size_t len;
    const char *tmpl = luaL_checklstring(L, 1, &len);
    char buf[512], *out = len <= sizeof buf ? buf : malloc(len);
    if (out == NULL)
        return luaL_error(L, "out of memory");
    ag_rand_string(rng_of(L), tmpl, len, out);
    lua_pushlstring(L, out, len);
    if (out != buf)
        free(out);
    return 1;
}

static int l_uint64(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)ag_rand_u64(rng_of(L)));
    return 1;
}

static int l_double(lua_State *L)
{
    lua_pushnumber(L, ag_rand_double(rng_of(L)));
    return 1;
}

static int l_print(lua_State *L)
{
    int n = lua_gettop(L);
    char line[1024];
    size_t off = 0;
    lua_getglobal(L, "tostring");
    for (int i = 1; i <= n; i++) {
        lua_pushvalue(L, -1);
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        const char *s = lua_tostring(L, -1);
        off += (size_t)snprintf(line + off, off < sizeof line ? sizeof line - off : 0, "%s%s",
                                i > 1 ? "\t" : "", s ? s : "");
        lua_pop(L, 1);
        if (off >= sizeof line - 1)
            off = sizeof line - 2;
    }
    line[off++] = '\n'; /* one write(2) per line, as the agent's log: never buffered */
    if (write(STDERR_FILENO, line, off) < 0) {
        /* nowhere to report it */
    }
    return 0;
}

/* ---- result rows and counters ----------------------------------------- */

/* row(gen, n): the values of row n (1-based) of the connection's last
 * result, which must be query gen's (sysbench frees a result at the next
 * query on its connection); nothing past the last row. */
static int l_row(lua_State *L)
{
    const struct ag_rowset *rs = &host_of(L)->rows;
    uint32_t gen = (uint32_t)luaL_checknumber(L, 1);
    lua_Number n = luaL_checknumber(L, 2);
    if (gen != rs->gen)
        return luaL_error(L, "a result set read after the next query on its connection "
                             "(its rows are gone then, as in sysbench)");
    if (n < 1 || n > (lua_Number)rs->nrows)
        return 0;
    size_t base = (size_t)(n - 1) * rs->ncols;
    luaL_checkstack(L, (int)rs->ncols, "result row");
    for (uint32_t c = 0; c < rs->ncols; c++) {
        if (rs->off[base + c] == AG_ROWSET_NULL)
            lua_pushnil(L);
        else
            lua_pushlstring(L, rs->text + rs->off[base + c], rs->len[base + c]);
    }
    return (int)rs->ncols;
}

/* sb_counter_inc(tid, SB_CNT_ERROR) (ffi.C): one more ignored error, as
 * sysbench counts it; the event itself ends as it ends (ag_family.h
 * event_errors). */
static int l_event_error(lua_State *L)
{
    host_of(L)->event_errors++;
    return 0;
}

const struct pr_lua_fn ag__lua_rand_fns[] = {
    {"row", l_row},
    {"event_error", l_event_error},
    {"rand_uniform", l_uniform},
    {"rand_default", l_default},
    {"rand_gaussian", l_gaussian},
    {"rand_special", l_special},
    {"rand_pareto", l_pareto},
    {"rand_zipfian", l_zipfian},
    {"rand_unique", l_unique},
    {"rand_string", l_string},
    {"rand_uint64", l_uint64},
    {"rand_double", l_double},
    {"print", l_print},
};
const size_t ag__lua_n_rand_fns = sizeof ag__lua_rand_fns / sizeof ag__lua_rand_fns[0];

void ag__lua_rng_init(struct ag__lua_rng *r, const struct ag__lua_wl *wl, uint64_t seed,
                      uint32_t tid, uint32_t threads)
{
    uint64_t x = wl->rand_seed;
    uint64_t u = ag_splitmix64(&x);
    if (threads == 0)
        threads = 1;
    ag_rand_init(&r->rng, seed);
    /* as the native family: one permutation per run, a slice per thread */
    ag_rand_unique_init(&r->uniq, (uint32_t)u, (uint32_t)(u >> 32));
    r->uniq.index += (uint32_t)(((uint64_t)tid << 32) / threads);
}

void ag__lua_rng_free(struct ag__lua_rng *r)
{
    ag_rowset_free(&r->rows);
}

void ag__lua_want_rows(struct ag__lua_rng *r, struct ag_call *call)
{
    ag_rowset_clear(&r->rows);
    r->rows.gen++;
    if (call)
        call->rowset = &r->rows;
}

/* ---- states ------------------------------------------------------------- */

/* t[k] = v, raw, for t at -2 and v on top (popped). */
static void lua_rawset_str(lua_State *L, const char *k)
{
    lua_pushstring(L, k);
    lua_insert(L, -2);
    lua_rawset(L, -3);
}

static int set_options(struct ag__lua_state *st, struct pr_error *err)
{
    lua_State *L = st->L;
    const struct ag__lua_wl *wl = st->wl;
    lua_getglobal(L, "__sb_set_options");
    lua_newtable(L);
    for (size_t i = 0; i < wl->n_sopts; i++) {
        lua_pushstring(L, wl->sopts[i].value);
        lua_setfield(L, -2, wl->sopts[i].name);
    }
    pr_lua_push_general_opts(L, wl->opts);
    if (pr_lua_pcall(L, 2, 0)) {
        pr_error_set(err, PR_EINVAL, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return PR_EINVAL;
    }
    return 0;
}

static void set_stmt_index(struct ag__lua_state *st)
{
    lua_State *L = st->L;
    lua_newtable(L);
    for (size_t i = 0; i < st->wl->n_defs; i++) {
        lua_pushnumber(L, (lua_Number)i);
        lua_setfield(L, -2, st->wl->defs[i].sql);
    }
    lua_setglobal(L, "__sb_stmt_index");
}

struct ag__lua_state *ag__lua_state_new(const struct ag__lua_wl *wl, const char *command,
                                        bool stmts, struct pr_error *err)
{
    struct ag__lua_state *st = pr_xcalloc(1, sizeof *st);
    st->wl = wl;
    /* the top level's own streams: the run seed's, as sysbench's main thread */
    ag__lua_rng_init(&st->own, wl, wl->rand_seed ^ 0x5bd1e995u, 0, 1);
    st->L = pr_lua_new(command, ag__lua_rand_fns, ag__lua_n_rand_fns, st, err);
    if (st->L == NULL) {
        free(st);
        return NULL;
    }
    lua_State *L = st->L;
    lua_getglobal(L, "__sb_ctx");
    lua_getfield(L, -1, "mt");
    st->mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, -1, "shared");
    st->shared_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    st->ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    static const char *const keys[3] = {"__index", "env", "tid"};
    for (int i = 0; i < 3; i++) {
        lua_pushstring(L, keys[i]);
        st->key_ref[i] = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    if (pr_lua_add_sources(L, wl->srcs, wl->n_srcs, err) < 0)
        goto fail;
    pr_lua_watchdog_start(L, AG__LUA_WATCHDOG_MS);
    int rc = pr_lua_run_main(L, wl->srcs[0].name, err);
    pr_lua_watchdog_start(L, 0);
    if (rc < 0 || set_options(st, err) < 0)
        goto fail;
    if (stmts)
        set_stmt_index(st);
    return st;
fail:
    ag__lua_state_destroy(&st);
    return NULL;
}

void ag__lua_state_destroy(struct ag__lua_state **st)
{
    if (*st == NULL)
        return;
    lua_close((*st)->L);
    ag__lua_rng_free(&(*st)->own);
    free(*st);
    *st = NULL;
}

/* ---- coroutines ----------------------------------------------------------- */

void ag__lua_co_start(struct ag__lua_co *co, struct ag__lua_state *st, const char *fn,
                      const char *arg, uint32_t tid)
{
    lua_State *L = st->L;
    co->st = st;
    co->tid = tid;
    co->dead = false;
    co->err[0] = '\0';
    co->co = lua_newthread(L);
    co->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getglobal(L, "__sb_new_env");
    lua_call(L, 0, 1);
    lua_pushnumber(L, tid);
    lua_rawset_str(L, "thread_id"); /* sysbench's legacy global */
    co->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getglobal(co->co, fn);
    co->start_args = 0;
    if (arg) {
        lua_pushstring(co->co, arg);
        co->start_args = 1;
    }
}

/* The message of a failed coroutine (pr_lua_error_text: FILE:LINE from
 * its stack, which the error left in place; __tostring run on the main
 * state). */
static void take_error(struct ag__lua_co *co)
{
    lua_State *c = co->co, *L = co->st->L;
    lua_xmove(c, L, 1);
    pr_lua_error_text(L, -1, c, co->err, sizeof co->err);
    lua_pop(L, 1);
    co->dead = true;
}

/* t[key k] = v, raw, for t at -2 and v on top (popped); k: st->key_ref's
 * index. */
static void rawset_key(struct ag__lua_state *st, int k)
{
    lua_State *L = st->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, st->key_ref[k]);
    lua_insert(L, -2);
    lua_rawset(L, -3);
}

/* Globals of coroutine env_ref from now on (LUA_NOREF: the shared ones):
 * ctx.env, _G's metatable __index and ctx.tid (pr_lua_prelude.lua). */
static void switch_env(struct ag__lua_state *st, int env_ref, uint32_t tid)
{
    lua_State *L = st->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, st->ctx_ref); /* ctx */
    if (env_ref == LUA_NOREF)
        lua_pushnil(L);
    else
        lua_rawgeti(L, LUA_REGISTRYINDEX, env_ref); /* ctx env|nil */
    lua_rawgeti(L, LUA_REGISTRYINDEX, st->mt_ref);  /* ctx env|nil mt */
    if (env_ref == LUA_NOREF)
        lua_rawgeti(L, LUA_REGISTRYINDEX, st->shared_ref);
    else
        lua_pushvalue(L, -2);
    rawset_key(st, 0); /* mt.__index = env or shared */
    lua_pop(L, 1);     /* ctx env|nil */
    rawset_key(st, 1); /* ctx.env */
    lua_pushnumber(L, tid);
    rawset_key(st, 2); /* ctx.tid */
    lua_pop(L, 1);
}

enum ag__lua_yield ag__lua_co_resume(struct ag__lua_co *co, struct ag__lua_rng *rng, int nargs)
{
    struct ag__lua_state *st = co->st;
    lua_State *L = st->L;
    int n = co->start_args >= 0 ? co->start_args : nargs;

    switch_env(st, co->env_ref, co->tid);
    st->cur = rng;
    pr_lua_watchdog_start(L, AG__LUA_WATCHDOG_MS);
    co->start_args = -1;
    int rc = lua_resume(co->co, n);
    pr_lua_watchdog_start(L, 0);
    st->cur = NULL;
    switch_env(st, LUA_NOREF, 0);
    if (rc == 0) {
        co->dead = true;
        return AG__LUA_Y_END;
    }
    if (rc != LUA_YIELD) {
        take_error(co);
        return AG__LUA_Y_ERROR;
    }
    int op = (int)lua_tointeger(co->co, 1);
    if (op == 0)
        return AG__LUA_Y_BOUNDARY;
    /* The memory cap at every query (FILE:LINE: the script's call); the
     * count hook checks between queries too. */
    if (pr_lua_memory_over(L, co->co, co->err, sizeof co->err)) {
        co->dead = true;
        return AG__LUA_Y_ERROR;
    }
    if (op == 1 && lua_type(co->co, 2) == LUA_TSTRING)
        return AG__LUA_Y_TEXT;
    if (op == 2 && lua_isnumber(co->co, 2))
        return AG__LUA_Y_STMT;
    if (op == 3)
        return AG__LUA_Y_RECONNECT;
    snprintf(co->err, sizeof co->err,
             "the script yielded something that is not a query (coroutine.yield in a script "
             "is not supported)");
    co->dead = true;
    return AG__LUA_Y_ERROR;
}

int ag__lua_push_result(lua_State *c, const struct ag_result *res)
{
    lua_settop(c, 0);
    if (res == NULL)
        return 0;
    lua_pushnumber(c, res->err_no);
    if (res->err_no) {
        lua_pushstring(c, res->errmsg ? res->errmsg : "");
        lua_pushstring(c, "HY000");
        return 3;
    }
    const struct ag_rowset *rs = res->rowset;
    lua_pushnumber(c, (lua_Number)res->rows);
    lua_pushnumber(c, (lua_Number)res->affected);
    lua_pushnumber(c, (lua_Number)res->insert_id);
    lua_pushnumber(c, rs ? rs->ncols : res->ncols);
    lua_pushnumber(c, rs ? rs->gen : 0);
    return 6;
}

int ag__lua_fill_call(struct ag__lua_co *co, enum ag__lua_yield y, struct ag_call *call)
{
    lua_State *c = co->co;
    const struct ag__lua_wl *wl = co->st->wl;
    call->want = AG_WANT_RESULT;
    if (y == AG__LUA_Y_TEXT) {
        call->stmt = -1;
        call->text = lua_tolstring(c, 2, &call->text_len);
        call->nparams = 0;
        call->kind_id = ag__lua_text_kind(call->text, call->text_len);
        call->kind = wl->kinds[call->kind_id];
        return 0;
    }
    size_t idx = (size_t)lua_tointeger(c, 2);
    int n = lua_gettop(c) - 2;
    if (idx >= wl->n_defs || (uint32_t)n != wl->defs[idx].nparams) {
        snprintf(co->err, sizeof co->err,
                 "prepared statement '%.200s' executed with %d parameter(s), bound with %u",
                 idx < wl->n_defs ? wl->defs[idx].sql : "?", n,
                 idx < wl->n_defs ? wl->defs[idx].nparams : 0);
        co->dead = true;
        return -1;
    }
    const struct ag_stmt_def *d = &wl->defs[idx];
    call->stmt = (int32_t)idx;
    call->nparams = d->nparams;
    for (uint32_t i = 0; i < d->nparams; i++) {
        if (d->type[i] == AG_PARAM_INT) {
            call->ival[i] = (int64_t)lua_tonumber(c, 3 + (int)i);
        } else {
            size_t len = 0;
            call->sval[i] = lua_tolstring(c, 3 + (int)i, &len);
            call->slen[i] = (uint32_t)len;
            if (call->sval[i] == NULL)
                call->sval[i] = "";
        }
    }
    call->kind = d->kind;
    call->kind_id = d->kind_id;
    return 0;
}

void ag__lua_co_close(struct ag__lua_co *co)
{
    if (co->co == NULL)
        return;
    luaL_unref(co->st->L, LUA_REGISTRYINDEX, co->co_ref);
    luaL_unref(co->st->L, LUA_REGISTRYINDEX, co->env_ref);
    co->co = NULL;
}
