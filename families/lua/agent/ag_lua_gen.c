/* ag_lua_gen: the Lua family's generators (one coroutine per connection,
 * one script state per worker thread) and command streams (one state
 * each). See ag_lua_int.h and ag_family.h's generator contract.
 *
 * The engine creates generators on the session thread and uses them only
 * on their worker's loop thread; a generator's coroutine, and the thread's
 * state, are made at its first next() there. The thread's state is found
 * through a thread-local pointer and freed with its last generator, which
 * the engine destroys after joining the thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "ag_lua_int.h"
#include "pr_split.h"

struct lua_gen {
    struct ag_gen base;          /* first: fam */
    const struct ag__lua_wl *wl; /* the workload */
    struct ag__lua_rng rng;      /* this connection's streams */
    struct ag__lua_co co;        /* its coroutine (co.co NULL until started) */
    const struct ag_result *res; /* the last statement's result (result()) */
    enum ag__lua_yield last;     /* what the coroutine last yielded */
    bool in_event;               /* between the resume of an event and its end */
    bool pending;                /* retry() resumed: last is the next step */
    bool finishing;              /* thread_done() is running */
    bool started;                /* the coroutine exists */
    bool init_sent;              /* thread_init() sent statements (in the first event) */
    bool clock_start;            /* the next statement starts the event's clock */
};

static _Thread_local struct ag__lua_state *tl_state;

#define GEN(g) ((struct lua_gen *)(g))

struct ag_gen *ag__lua_gen_new(const struct ag_wl *wl, uint64_t seed, uint32_t conn_index,
                               uint32_t conns_total)
{
    struct lua_gen *g = pr_xcalloc(1, sizeof *g);
    g->base.fam = wl->fam;
    g->wl = (const struct ag__lua_wl *)wl;
    g->co.tid = conn_index;
    ag__lua_rng_init(&g->rng, g->wl, seed, conn_index, conns_total);
    return &g->base;
}

void ag__lua_gen_destroy(struct ag_gen **gp)
{
    struct lua_gen *g = GEN(*gp);
    if (g == NULL)
        return;
    if (g->started) {
        struct ag__lua_state *st = g->co.st;
        ag__lua_co_close(&g->co);
        if (--st->refs == 0)
            ag__lua_state_destroy(&st); /* tl_state of a joined thread: never read again */
    }
    ag__lua_rng_free(&g->rng);
    free(g);
    *gp = NULL;
}

/* The coroutine, on this thread's state (made on first use). */
static bool start(struct lua_gen *g)
{
    struct pr_error err = {0};
    if (tl_state == NULL || tl_state->wl != g->wl) {
        tl_state = ag__lua_state_new(g->wl, "run", true, &err);
        if (tl_state == NULL) {
            snprintf(g->co.err, sizeof g->co.err, "%s", err.msg);
            g->co.dead = true;
            return false;
        }
    }
    tl_state->refs++;
    g->started = true;
    ag__lua_co_start(&g->co, tl_state, "__sb_thread_main", NULL, g->co.tid);
    g->last = ag__lua_co_resume(&g->co, &g->rng, 0); /* thread_init() */
    g->init_sent =
        g->last == AG__LUA_Y_TEXT || g->last == AG__LUA_Y_STMT || g->last == AG__LUA_Y_RECONNECT;
    return true;
}

void ag__lua_begin(struct ag_gen *g)
{
    (void)g; /* next() runs event() from the boundary */
}

/* Resume from a boundary into event(). */
static enum ag__lua_yield run_event(struct lua_gen *g)
{
    lua_settop(g->co.co, 0);
    lua_pushnumber(g->co.co, 0);
    g->in_event = true;
    /* sysbench starts the event's clock at event(): thread_init()'s
     * statements, sent in the engine's first event, are not its */
    g->clock_start = g->init_sent;
    g->init_sent = false;
    return ag__lua_co_resume(&g->co, &g->rng, 1);
}

/* Map a yield to the engine's step (filling call for a statement). */
static enum ag_step step_of(struct lua_gen *g, enum ag__lua_yield y, struct ag_call *call)
{
    switch (y) {
    case AG__LUA_Y_TEXT:
    case AG__LUA_Y_STMT:
        if (ag__lua_fill_call(&g->co, y, call) < 0)
            return AG_STEP_FAILED;
        ag__lua_want_rows(&g->rng, call);
        call->event_clock_start = g->clock_start;
        g->clock_start = false;
        return AG_STEP_STMT;
    case AG__LUA_Y_RECONNECT: /* the engine reopens, then next() resumes with nothing */
        call->reconnect = true;
        call->event_clock_start = false;
        return AG_STEP_STMT;
    case AG__LUA_Y_BOUNDARY:
        g->in_event = false;
        return AG_STEP_COMMITTED;
    case AG__LUA_Y_END:
        if (!g->co.err[0])
            snprintf(g->co.err, sizeof g->co.err, "the script's thread ended during an event");
        return AG_STEP_FAILED;
    case AG__LUA_Y_ERROR:
    default:
        return AG_STEP_FAILED;
    }
}

enum ag_step ag__lua_next(struct ag_gen *gb, struct ag_call *call)
{
    struct lua_gen *g = GEN(gb);
    enum ag__lua_yield y;

    if (g->co.dead)
        return AG_STEP_FAILED;
    if (!g->started) {
        if (!start(g))
            return AG_STEP_FAILED;
        y = g->last;
    } else if (g->pending) {
        y = g->last;
    } else if (!g->in_event && g->last == AG__LUA_Y_BOUNDARY) {
        y = run_event(g);
    } else {
        int n = ag__lua_push_result(g->co.co, g->res);
        y = ag__lua_co_resume(&g->co, &g->rng, n);
    }
    g->pending = false;
    g->res = NULL;
    /* thread_init() ended at the boundary: this event is event()'s */
    if (y == AG__LUA_Y_BOUNDARY && !g->in_event)
        y = run_event(g);
    g->last = y;
    return step_of(g, y, call);
}

void ag__lua_result(struct ag_gen *g, const struct ag_result *res)
{
    GEN(g)->res = res;
}

/* Resume the coroutine with res's error (fatal: a 4th value, true), as
 * the answer to its query; the step it yields next is pending. */
static bool resume_error(struct lua_gen *g, const struct ag_result *res, bool fatal)
{
    if (g->co.dead || !g->started || !(g->last == AG__LUA_Y_TEXT || g->last == AG__LUA_Y_STMT))
        return false;
    int n = ag__lua_push_result(g->co.co, res);
    if (fatal) {
        lua_pushboolean(g->co.co, 1);
        n++;
    }
    g->last = ag__lua_co_resume(&g->co, &g->rng, n);
    g->pending = true;
    return g->last != AG__LUA_Y_ERROR && g->last != AG__LUA_Y_END;
}

/* An ignorable error or a reconnect: the query raises sysbench's
 * RESTART_EVENT error in the script, whose handler re-runs event(). */
bool ag__lua_retry(struct ag_gen *gb, const struct ag_result *res)
{
    return resume_error(GEN(gb), res, false);
}

/* Any other SQL error: the script's sysbench.hooks.sql_error_ignorable
 * (prelude) decides; without one, or when it says no, the coroutine fails
 * and the engine ends the run with the server's error. */
bool ag__lua_retry_fatal(struct ag_gen *gb, const struct ag_result *res)
{
    return resume_error(GEN(gb), res, true);
}

bool ag__lua_finish(struct ag_gen *gb, struct ag_call *call)
{
    struct lua_gen *g = GEN(gb);
    enum ag__lua_yield y;
    if (!g->started || g->co.dead)
        return false;
    if (!g->finishing) {
        if (g->in_event || g->last != AG__LUA_Y_BOUNDARY)
            return false; /* cut off mid-event: no thread_done() */
        g->finishing = true;
        lua_settop(g->co.co, 0);
        lua_pushnumber(g->co.co, 1);
        y = ag__lua_co_resume(&g->co, &g->rng, 1);
    } else {
        int n = ag__lua_push_result(g->co.co, g->res);
        y = ag__lua_co_resume(&g->co, &g->rng, n);
    }
    while (y == AG__LUA_Y_RECONNECT) { /* thread_done(): its connection closes next */
        lua_settop(g->co.co, 0);
        y = ag__lua_co_resume(&g->co, &g->rng, 0);
    }
    g->res = NULL;
    g->last = y;
    if ((y == AG__LUA_Y_TEXT || y == AG__LUA_Y_STMT) && ag__lua_fill_call(&g->co, y, call) == 0) {
        ag__lua_want_rows(&g->rng, call);
        return true;
    }
    return false;
}

/* The errors the script counted (sb_counter_inc) since the last call. */
uint32_t ag__lua_event_errors(struct ag_gen *gb)
{
    struct lua_gen *g = GEN(gb);
    uint32_t n = g->rng.event_errors;
    g->rng.event_errors = 0;
    return n;
}

const char *ag__lua_gen_error(struct ag_gen *g)
{
    return GEN(g)->co.err[0] ? GEN(g)->co.err : NULL;
}

/* ---- command streams ------------------------------------------------------ */

/* One thread of a command (prepare runs in every thread): its own state. */
struct lua_piece {
    struct ag__lua_state *st;    /* its state */
    struct ag__lua_co co;        /* the command's coroutine */
    struct ag__lua_rng rng;      /* its streams */
    const struct ag_result *res; /* the last statement's result */
    enum ag__lua_yield last;     /* what failed() resumed it to (pending) */
    bool pending;                /* failed() resumed it: last is the next step */
    bool started;                /* resumed once */
};

static bool piece_next(void *it, const char **sql, size_t *sql_len, uint64_t *rows)
{
    struct lua_piece *p = it;
    enum ag__lua_yield y;
    *rows = 0;
    if (p->co.dead)
        return false;
    if (p->pending) {
        p->pending = false;
        y = p->last;
    } else if (!p->started) {
        p->started = true;
        y = ag__lua_co_resume(&p->co, &p->rng, 0);
    } else {
        int n = ag__lua_push_result(p->co.co, p->res);
        y = ag__lua_co_resume(&p->co, &p->rng, n);
    }
    p->res = NULL;
    while (y == AG__LUA_Y_BOUNDARY || y == AG__LUA_Y_STMT) {
        if (y == AG__LUA_Y_STMT) { /* commands prepare nothing: text only */
            snprintf(p->co.err, sizeof p->co.err, "a prepared statement in a command");
            p->co.dead = true;
            return false;
        }
        if (y == AG__LUA_Y_RECONNECT) {
            snprintf(p->co.err, sizeof p->co.err,
                     "stampede does not support con:reconnect() (or drv:connect() after "
                     "con:disconnect()) in a command, only in thread_init() and event() "
                     "(docs/guide.md: Your own Lua scripts)");
            p->co.dead = true;
            return false;
        }
        lua_settop(p->co.co, 0);
        y = ag__lua_co_resume(&p->co, &p->rng, 0);
    }
    if (y != AG__LUA_Y_TEXT)
        return false;
    *sql = lua_tolstring(p->co.co, 2, sql_len);
    ag__lua_want_rows(&p->rng, NULL); /* the engine keeps its rows (piece.rowset) */
    return true;
}

static const char *piece_result(void *it, const struct ag_result *res)
{
    ((struct lua_piece *)it)->res = res;
    return NULL;
}

/* A statement failed: the script's query raises it (prelude: asking
 * sysbench.hooks.sql_error_ignorable first, as sysbench's check_error());
 * the stream goes on when the script caught it (pcall), or returned. */
static bool piece_failed(void *it, const struct ag_result *res)
{
    struct lua_piece *p = it;
    if (p->co.dead || !p->started || p->pending)
        return false;
    int n = ag__lua_push_result(p->co.co, res);
    lua_pushboolean(p->co.co, 1);
    p->last = ag__lua_co_resume(&p->co, &p->rng, n + 1);
    p->res = NULL;
    p->pending = true;
    return p->last != AG__LUA_Y_ERROR;
}

static const char *piece_error(void *it)
{
    struct lua_piece *p = it;
    return p->co.err[0] ? p->co.err : NULL;
}

static void piece_destroy(void *it)
{
    struct lua_piece *p = it;
    ag__lua_co_close(&p->co);
    ag__lua_state_destroy(&p->st);
    ag__lua_rng_free(&p->rng);
    free(p);
}

static int add_piece(const struct ag__lua_wl *wl, const struct pr_msg_plan *plan, uint32_t tid,
                     ag_piece_add_fn add, void *ctx, struct pr_error *err)
{
    struct lua_piece *p = pr_xcalloc(1, sizeof *p);
    p->st = ag__lua_state_new(wl, wl->cmd, false, err);
    if (p->st == NULL) {
        free(p);
        return err->code ? err->code : PR_EINVAL;
    }
    ag__lua_rng_init(&p->rng, wl, pr_split_seed(plan->seed, plan->agent_index, tid), tid,
                     (uint32_t)(plan->conns_total ? plan->conns_total : 1));
    ag__lua_co_start(&p->co, p->st, "__sb_run_command", wl->cmd, tid);
    struct ag_piece piece = {.it = p,
                             .next = piece_next,
                             .result = piece_result,
                             .error = piece_error,
                             .rowset = &p->rng.rows,
                             .failed = piece_failed};
    add(ctx, piece, piece_destroy);
    return 0;
}

/* A parallel command runs as each of this agent's threads (sysbench.tid
 * its global index); any other as thread 0, on the first agent only. */
int ag__lua_loads(const struct ag_wl *w, const struct pr_msg_plan *plan, ag_piece_add_fn add,
                  void *ctx, struct pr_error *err)
{
    const struct ag__lua_wl *wl = (const struct ag__lua_wl *)w;
    if (!wl->cmd_parallel)
        return plan->agent_index == 0 ? add_piece(wl, plan, 0, add, ctx, err) : 0;
    for (uint32_t i = 0; i < plan->conns; i++) {
        int rc = add_piece(wl, plan, (uint32_t)plan->conn_first + i, add, ctx, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}
