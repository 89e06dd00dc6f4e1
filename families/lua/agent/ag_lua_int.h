/* ag_lua_int: what the Lua family's files share (families/lua/agent/). Internal.
 *
 * A workload (struct ag__lua_wl) holds the shipped sources, the options,
 * the distribution and the statement set the probe found. A script state
 * (struct ag__lua_state) is a sandboxed lua_State (pr_lua) with the sources
 * loaded and the options set; the run's generators share one per worker
 * thread, each command stream owns one. A coroutine (struct ag__lua_co)
 * runs one connection's script and yields its queries (pr_lua_prelude.lua,
 * "Yield protocol"). */
#ifndef AG_LUA_INT_H
#define AG_LUA_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

#include "ag_family.h"
#include "ag_rand.h"
#include "pr_lua.h"

#define AG__LUA_WATCHDOG_MS 5000 /* longest a script may run between two yields */
#define AG__LUA_ERR_MAX     512

/* The workload. Immutable once its first generator exists. */
struct ag__lua_wl {
    struct ag_wl base;        /* first: fam */
    pr_opts *opts;            /* general and mysql options */
    struct ag_kv *sopts;      /* the script's options (names '_' separated), copied */
    size_t n_sopts;           /* entries in sopts */
    char *name;               /* the workload's name ("lua:oltp_point_select") */
    char *cmd;                /* the command ("run", "prepare", ...) */
    struct pr_lua_src *srcs;  /* the sources (srcs[0] the main script), copied */
    size_t n_srcs;            /* entries in srcs */
    struct ag_dist dist;      /* --rand-type and its parameters */
    uint64_t rand_seed;       /* --rand-seed (sysbench.rand.unique's permutation) */
    struct ag_stmt_def *defs; /* the statement set every connection prepares */
    size_t n_defs;            /* entries in defs */
    char **kinds;             /* kind names (text verbs, then statement shapes) */
    size_t n_kinds;           /* entries in kinds */
    bool cmd_parallel;        /* the command runs in every thread (PARALLEL_COMMAND) */
};

/* The host data of one connection (or command stream): its random
 * streams, its last result's rows and its event's error count. */
struct ag__lua_rng {
    struct ag_rand rng;         /* sysbench.rand.* */
    struct ag_rand_unique uniq; /* sysbench.rand.unique() */
    struct ag_rowset rows;      /* the last query's rows (rs:fetch_row()), gen its count */
    uint32_t event_errors;      /* ffi.C.sb_counter_inc(tid, SB_CNT_ERROR) in this event */
};

/* A script state. */
struct ag__lua_state {
    lua_State *L;                /* the state */
    const struct ag__lua_wl *wl; /* its workload */
    struct ag__lua_rng *cur;     /* the streams of the coroutine running now */
    struct ag__lua_rng own;      /* the streams of code outside coroutines (top level) */
    int ctx_ref;                 /* registry ref of the prelude's __sb_ctx */
    int mt_ref;                  /* ... of _G's metatable (ctx.mt) */
    int shared_ref;              /* ... of the shared globals (ctx.shared) */
    int key_ref[3];              /* ... of the strings "__index", "env", "tid" (no
                                  * interning per resume) */
    unsigned refs;               /* coroutines using it (thread states) */
};

/* One coroutine over a state. */
struct ag__lua_co {
    struct ag__lua_state *st;  /* its state */
    lua_State *co;             /* the coroutine (NULL until started) */
    int co_ref;                /* registry ref keeping co alive */
    int env_ref;               /* registry ref of its globals table */
    uint32_t tid;              /* sysbench.tid */
    int start_args;            /* arguments of the first resume; -1 once started */
    bool dead;                 /* finished or failed: never resumed again */
    char err[AG__LUA_ERR_MAX]; /* the script's error ("" if none) */
};

/* What a resume returned. */
enum ag__lua_yield {
    AG__LUA_Y_BOUNDARY,  /* yield(0) */
    AG__LUA_Y_TEXT,      /* yield(1, sql) */
    AG__LUA_Y_STMT,      /* yield(2, idx, ...) */
    AG__LUA_Y_RECONNECT, /* yield(3): con:reconnect() */
    AG__LUA_Y_END,       /* the coroutine returned */
    AG__LUA_Y_ERROR,     /* it failed: co->err */
};

/* A new state for wl: sources loaded, options set, the main script run,
 * with stmts (true) the probe's statement set known to con:prepare(). NULL
 * with err filled (the script's message) on failure. */
struct ag__lua_state *ag__lua_state_new(const struct ag__lua_wl *wl, const char *command,
                                        bool stmts, struct pr_error *err);
void ag__lua_state_destroy(struct ag__lua_state **st);

/* Start co on st running global function fn(arg...) (arg: a string, or
 * NULL for none), as thread tid. */
void ag__lua_co_start(struct ag__lua_co *co, struct ag__lua_state *st, const char *fn,
                      const char *arg, uint32_t tid);
/* Resume co with the nargs values pushed on co->co (after start: none)
 * while rng is current. Leaves the yielded values on co->co's stack. */
enum ag__lua_yield ag__lua_co_resume(struct ag__lua_co *co, struct ag__lua_rng *rng, int nargs);
/* Push a statement's result for the next resume; returns how many:
 * (errno, nrows, affected, insert_id, ncols, gen) or, for an error,
 * (errno, message, sqlstate). The rows stay in the rowset (host "row"). */
int ag__lua_push_result(lua_State *co, const struct ag_result *res);
/* Fill call from the yield on co's stack (TEXT or STMT). 0, or -1 with
 * co->err set (a statement bound with the wrong parameters). */
int ag__lua_fill_call(struct ag__lua_co *co, enum ag__lua_yield y, struct ag_call *call);
void ag__lua_co_close(struct ag__lua_co *co);

/* The host functions (sysbench.rand.*) given to every state. */
extern const struct pr_lua_fn ag__lua_rand_fns[];
extern const size_t ag__lua_n_rand_fns;

/* Kind of a text query: its verb's index in wl->kinds. */
uint16_t ag__lua_text_kind(const char *sql, size_t len);

/* The run's generator ops and the command streams (ag_lua_gen.c). */
struct ag_gen *ag__lua_gen_new(const struct ag_wl *wl, uint64_t seed, uint32_t conn_index,
                               uint32_t conns_total);
void ag__lua_gen_destroy(struct ag_gen **g);
void ag__lua_begin(struct ag_gen *g);
enum ag_step ag__lua_next(struct ag_gen *g, struct ag_call *call);
void ag__lua_result(struct ag_gen *g, const struct ag_result *res);
bool ag__lua_retry(struct ag_gen *g, const struct ag_result *res);
bool ag__lua_retry_fatal(struct ag_gen *g, const struct ag_result *res);
bool ag__lua_finish(struct ag_gen *g, struct ag_call *call);
const char *ag__lua_gen_error(struct ag_gen *g);
uint32_t ag__lua_event_errors(struct ag_gen *g);
int ag__lua_loads(const struct ag_wl *wl, const struct pr_msg_plan *plan, ag_piece_add_fn add,
                  void *ctx, struct pr_error *err);

/* The streams' seed for thread tid. */
void ag__lua_rng_init(struct ag__lua_rng *r, const struct ag__lua_wl *wl, uint64_t seed,
                      uint32_t tid, uint32_t threads);
/* Free r's rows. */
void ag__lua_rng_free(struct ag__lua_rng *r);
/* Point call (NULL: a command stream's, see struct ag_piece) at r's rows
 * (every row and column of its result), emptied, as query r->rows.gen + 1. */
void ag__lua_want_rows(struct ag__lua_rng *r, struct ag_call *call);

/* The family (ag_lua_family.c). */
extern const struct ag_family ag_lua_family;

#endif
