/* ag_family: the interface between the engine and a workload family
 * (docs/design.md §8.1). The engine (ag_conn, ag_worker, ag_engine), ag_run and
 * ag_session name no family and no workload: they find a family through
 * ag_registry and call it through struct ag_family.
 *
 * A family owns a parsed workload (struct ag_wl, immutable once its first
 * generator exists, shared read-only by the loop threads), one generator per
 * connection (struct ag_gen, used by one thread at a time) and its loaders
 * (the statement streams of prepare, cleanup, prewarm and check).
 *
 * Generator contract, per connection:
 *   begin(g)                          a new event, fresh inputs
 *   next(g, &call) == AG_STEP_STMT    the engine executes call ...
 *   result(g, &res)                   ... and hands back its result (rows,
 *                                     first row, affected rows, insert id)
 *                                     before the next next()
 *   next(g, &call) != AG_STEP_STMT    the event ends: committed, rolled
 *                                     back on purpose, or failed
 * On an ignorable error (--mysql-ignore-errors) or a reconnect the engine
 * calls retry(g, &res): the family's retry policy (sysbench redraws the
 * event's parameters, a TPC-C family would keep its inputs) returns true to
 * go on with next(), false to end the event as failed.
 * A scripted (coroutine) family fits as is: next() resumes the script's
 * coroutine with the last result until it yields its next query (or ends
 * the event); result() only stores the result for that resume.
 *
 * Cost. result is optional (NULL: the family reads no result, the engine
 * makes no call). A statement whose call.want is AG_WANT_NONE has only its
 * status recorded: the connection reads no column, no row count, nothing it
 * would not read anyway. No allocation per statement either way: the result
 * points into the connection's buffers (valid until its next request).
 */
#ifndef AG_FAMILY_H
#define AG_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_msg.h"
#include "pr_opts.h"

#define AG_MAX_PARAMS      128  /* most params one statement binds (options validated) */
#define AG_RESULT_MAX_COLS 16   /* first-row columns a result carries */
#define AG_RESULT_BUF      4096 /* bytes of first-row text a result carries */
#define AG_RESULT_MAX_ROWS 1024 /* rows whose first column AG_WANT_ROWS keeps */

enum ag_param_type { AG_PARAM_INT, AG_PARAM_STR };

/* Every row and column of a result set, as text (a Lua script's rs:fetch_row()).
 * Owned and reused by the generator or command stream that points a call at it
 * (ag_call.rowset); the engine fills it (ag_rowset.c) only for such calls, so
 * the C families pay nothing. Cell c of row r (0-based) is
 * text + off[r * ncols + c], len[...] bytes, NUL terminated; off
 * AG_ROWSET_NULL: SQL NULL. */
#define AG_ROWSET_NULL UINT64_MAX
struct ag_rowset {
    uint64_t nrows;   /* rows kept (every row of the first result set) */
    uint32_t ncols;   /* columns of each row */
    uint32_t gen;     /* the owner's count of queries (it bumps it per call) */
    char *text;       /* cells' text */
    size_t text_len;  /* bytes used */
    size_t text_cap;  /* bytes allocated */
    uint64_t *off;    /* per cell: offset into text, or AG_ROWSET_NULL */
    uint32_t *len;    /* per cell: length */
    size_t cells_cap; /* entries allocated in off and len */
};

/* One option, as given in the PLAN (strings). name without leading "--";
 * '-' and '_' are interchangeable. */
struct ag_kv {
    const char *name;
    const char *value;
};

/* One statement of a connection's prepared-statement set, in the family's
 * prepare order. Owned by the workload. */
struct ag_stmt_def {
    const char *sql; /* NUL terminated */
    size_t sql_len;
    uint32_t nparams;
    uint8_t type[AG_MAX_PARAMS]; /* AG_PARAM_INT (bind as MYSQL_TYPE_LONGLONG) or
                                    AG_PARAM_STR (bind as MYSQL_TYPE_VAR_STRING) */
    const char *kind;            /* "point_selects", "begin", ... for error reports */
    uint16_t kind_id;            /* its index in the family's kinds (wl_kinds) */
};

/* What of a statement's result the generator reads. */
enum ag_want {
    AG_WANT_NONE,   /* status only (the default: a zeroed call) */
    AG_WANT_RESULT, /* row count, affected rows, insert id and the first row */
    AG_WANT_ROWS    /* AG_WANT_RESULT, plus the first column of every row (up to
                       AG_RESULT_MAX_ROWS) as integers: ag_result.row_ival (TPC-C's
                       by-name customer lookups, Stock-Level's item list) */
};

/* One call the engine must execute. Buffers are owned by the generator and
 * valid until its next call. */
struct ag_call {
    /* The small fields first: with the first parameters they share one
     * cache line of the connection's state (ag_conn_int.h). */
    int32_t stmt;     /* index into the PS set, or -1: a text query (text, text_len) */
    uint32_t nparams; /* for stmt >= 0 */
    uint16_t kind_id; /* the kind's index in the family's kinds (wl_kinds); every statement
                         is counted and timed under it (STATS.kst) */
    uint8_t want;     /* enum ag_want */
    /* true: the event's clock starts at this statement; the ones before it
     * in the event were the connection's setup (a Lua script's
     * thread_init()), not the event's. The engine clears it. */
    bool event_clock_start;
    /* true: no statement but a new connection: the engine closes it and
     * opens it again (statements prepared again; counted as a reconnect;
     * a failed open retries, backing off, until the run ends), then calls
     * next() with no result (a Lua script's con:reconnect(), in an event).
     * The engine clears it. */
    bool reconnect;
    const char *text; /* text protocol query (ps disabled, oltp_insert, bulk_insert, ...) */
    size_t text_len;  /* not NUL terminated in general */
    const char *kind; /* statement kind ("point_selects", "inserts", "bulk_insert", ...) */
    /* non-NULL (with want != AG_WANT_NONE): keep every row and column of the
     * result here (emptied first by its owner) */
    struct ag_rowset *rowset;
    int64_t ival[AG_MAX_PARAMS];     /* for AG_PARAM_INT */
    const char *sval[AG_MAX_PARAMS]; /* for AG_PARAM_STR, not NUL-terminated */
    uint32_t slen[AG_MAX_PARAMS];
};

/* --db-ps-mode=disable rendering of a call to PS statement d (call->ival,
 * sval, slen, nparams): d->sql with each '?' replaced by its literal,
 * integers as %lld, strings quoted and not escaped (sysbench's emulation).
 * Writes at most cap bytes into buf, NUL included, and returns the length
 * of the whole text (without the NUL): when the result is >= cap the text
 * was cut, and buf must grow to at least result + 1. Thread-safe. */
size_t ag_stmt_render(const struct ag_stmt_def *d, const struct ag_call *call, char *buf,
                      size_t cap);

/* A statement's result, handed to the generator. Owned by the connection,
 * valid until its next request. With want AG_WANT_NONE only err_no is set. */
struct ag_result {
    unsigned err_no;                     /* 0: success; else the server's or client's error */
    const char *errmsg;                  /* its message ("" on success) */
    uint64_t rows;                       /* rows of the (first) result set, 0 without one */
    uint64_t affected;                   /* affected rows of a non-SELECT, 0 for a SELECT */
    uint64_t insert_id;                  /* LAST_INSERT_ID of the statement, 0 if none */
    uint32_t ncols;                      /* columns of the first row kept (0: no row) */
    bool truncated;                      /* a column (or the column count) was cut to fit */
    const char *col[AG_RESULT_MAX_COLS]; /* first row as text, NUL terminated; NULL: SQL NULL */
    uint32_t col_len[AG_RESULT_MAX_COLS];
    bool is_num[AG_RESULT_MAX_COLS];  /* the column is numeric: ival/dval hold it */
    int64_t ival[AG_RESULT_MAX_COLS]; /* integer value (truncated toward 0 for decimals) */
    double dval[AG_RESULT_MAX_COLS];  /* value as a double */
    /* AG_WANT_ROWS only: the first column of rows 0..nrow_ival-1, in the
     * result's order, as integers (strtoll of the text; SQL NULL: 0).
     * nrow_ival = min(rows, AG_RESULT_MAX_ROWS); truncated is set when rows
     * were left out. Points into the connection's buffer (allocated at its
     * first AG_WANT_ROWS, not per statement). With AG_WANT_RESULT:
     * nrow_ival is 0. */
    const int64_t *row_ival;
    uint32_t nrow_ival;
    /* the call's rowset (filled), or NULL */
    struct ag_rowset *rowset;
};

/* How an event ended, or that a statement is to be executed. */
enum ag_step {
    AG_STEP_STMT,        /* call filled: execute it */
    AG_STEP_COMMITTED,   /* the event is complete */
    AG_STEP_ROLLED_BACK, /* complete, rolled back on purpose (counts as done) */
    AG_STEP_FAILED,      /* the family gave the event up */
};

struct ag_family;

/* Base of a family's parsed workload: its first member. */
struct ag_wl {
    const struct ag_family *fam;
};

/* Base of a family's per-connection generator: its first member. */
struct ag_gen {
    const struct ag_family *fam;
};

/* One statement stream of a command (prepare, cleanup, prewarm, check):
 * text statements executed in order on one connection. */
struct ag_piece {
    void *it;
    bool (*next)(void *it, const char **sql, size_t *sql_len, uint64_t *rows);
    /* Optional: the stream reads its statements' results (check). Called
     * with the result of each statement before the next next(); returns
     * NULL, or a message (owned by it) that fails the command. */
    const char *(*result)(void *it, const struct ag_result *res);
    /* Optional: after next() returned false, why the stream failed (owned
     * by it), or NULL when it simply ended. */
    const char *(*error)(void *it);
    /* Optional: after result() returned NULL, an informational line for
     * the command's report (owned by it, copied at once), or NULL: it goes
     * to the coordinator in DONE.notes (tpcc check: conditions 10-12 that
     * do not hold after a run). */
    const char *(*note)(void *it);
    /* Each statement is a unit of its own (autocommit): one that fails with
     * a deadlock (1213) or a lock wait timeout (1205) was rolled back by the
     * server and is sent again, as it was, up to AG_PIECE_RETRIES times
     * (tpcc_load redoes a failed unit too). Parallel multi-row INSERTs into
     * one InnoDB table do deadlock now and then. false: any error fails the
     * command. */
    bool retry_locks;
    /* Optional: its statements' results keep every row and column here
     * (with result set), for a stream that reads them (a Lua command). */
    struct ag_rowset *rowset;
    /* Optional (NULL: any error fails the command). A statement failed with
     * a server error (after retry_locks' retries) on a connection still
     * open: true when the stream took it and goes on with its next() (a Lua
     * script's sysbench.hooks.sql_error_ignorable or its own pcall; counted
     * as an ignored error), false: the command fails with the error. */
    bool (*failed)(void *it, const struct ag_result *res);
};

#define AG_PIECE_RETRIES 100 /* attempts of a retry_locks statement after its first */

/* The loaders' sink: ag_run collects a command's streams. destroy frees
 * piece.it after the command (NULL: nothing to free). */
typedef void (*ag_piece_add_fn)(void *ctx, struct ag_piece piece, void (*destroy)(void *it));

/* The ops of a family. Every function is thread-safe on distinct objects;
 * a generator is used by one thread at a time. */
struct ag_family {
    const char *name; /* "sysbench" */

    /* True when workload `name` ("oltp_read_write") belongs to the family. */
    bool (*has_workload)(const char *name);

    /* Parse the options (opts copied) for workload `name`; NULL with err
     * filled (PR_EINVAL naming the option) on a bad option. Caller owns. */
    struct ag_wl *(*wl_new)(const char *name, const struct ag_kv *opts, size_t nopts,
                            struct pr_error *err);
    void (*wl_destroy)(struct ag_wl **wl);
    /* The parsed options (general and mysql sets included): borrowed. */
    const pr_opts *(*wl_opts)(const struct ag_wl *wl);
    /* The run's seed (PLAN.seed). Before any generator exists. */
    void (*wl_set_run_seed)(struct ag_wl *wl, uint64_t seed);
    /* Confine the run to this agent's share (--partition, PLAN.tables):
     * 0, or PR_EINVAL with err saying why. Before any generator exists. */
    int (*wl_set_share)(struct ag_wl *wl, enum pr_partition part, const struct pr_msg_table *t,
                        size_t n, struct pr_error *err);
    /* The prepared-statement set each connection prepares (0: text only). */
    size_t (*wl_nstmts)(const struct ag_wl *wl);
    /* The statement kinds (READY.kinds): *names borrowed, static or valid
     * for wl's life; returns how many (<= PR_MSG_MAX_KINDS). Optional (NULL:
     * no per-kind figures). */
    size_t (*wl_kinds)(const struct ag_wl *wl, const char *const **names);
    const struct ag_stmt_def *(*wl_stmt)(const struct ag_wl *wl, size_t i);

    /* A connection's generator: seed, its GLOBAL index and the global
     * connection count. Never NULL. wl must outlive it. */
    struct ag_gen *(*gen_new)(const struct ag_wl *wl, uint64_t seed, uint32_t conn_index,
                              uint32_t conns_total);
    void (*gen_destroy)(struct ag_gen **g);
    void (*begin)(struct ag_gen *g);
    enum ag_step (*next)(struct ag_gen *g, struct ag_call *call);
    void (*result)(struct ag_gen *g, const struct ag_result *res); /* optional */
    bool (*retry)(struct ag_gen *g, const struct ag_result *res);
    /* After the last event: final statements outside any event (false:
     * none left). */
    bool (*finish)(struct ag_gen *g, struct ag_call *call);

    /* Loaders: the streams of command plan->cmd (prepare, cleanup, prewarm,
     * check) added to sink in the order they may start. 0, or a negative
     * code with err filled (nothing added then needs no more than destroy). */
    int (*loads)(const struct ag_wl *wl, const struct pr_msg_plan *plan, ag_piece_add_fn add,
                 void *ctx, struct pr_error *err);

    /* Optional: the kind (an index into wl_kinds) the event that next()
     * just ended counts under, as a whole: its count when committed or
     * rolled back on purpose, its errors when failed, and its latency from
     * begin() to the end, retries included (TPC-C's transaction types).
     * Called once per event, right after next() ended it. NULL, or a value
     * >= the number of kinds: the event counts under no kind (its
     * statements still count under theirs). */
    uint16_t (*event_kind)(const struct ag_gen *g);
    /* Optional (NULL: nothing to do). The whole PLAN, after wl_new and
     * wl_set_run_seed, before wl_set_share or any generator: a scripted
     * family takes its sources from it. 0, or a negative code with err. */
    int (*wl_set_plan)(struct ag_wl *wl, const struct pr_msg_plan *plan, struct pr_error *err);
    /* Optional (NULL: never). After next() returned AG_STEP_FAILED or
     * retry() false: the family's fatal error (a script error, with
     * FILE:LINE), owned by g, or NULL when the event merely failed. The
     * engine then ends the run with it. */
    const char *(*gen_error)(struct ag_gen *g);
    /* Optional (NULL: a fatal error ends the run). An event's statement
     * failed with an error that is not ignorable (--mysql-ignore-errors)
     * nor a lost connection: true when the family goes on as after retry()
     * (a Lua script's sysbench.hooks.sql_error_ignorable said so; the
     * error counts as an ignored one), false to end the run with it. */
    bool (*retry_fatal)(struct ag_gen *g, const struct ag_result *res);
    /* Optional (NULL: none). The kinds (bit i: kind i of wl_kinds) whose
     * events that end committed or rolled back on purpose the engine
     * records one by one into STATS.trx (proto/msg/pr_msg_trx.h: connection,
     * end, response time, wall-clock start of the last attempt and end).
     * Read once, when the engine is made; 0 costs nothing. */
    uint64_t (*wl_record_kinds)(const struct ag_wl *wl);
    /* Optional (NULL: none). Kind k's response-time limit in ns (k an
     * index into wl_kinds), or UINT64_MAX for none: an event of the kind
     * that ends committed or rolled back on purpose whose latency (as
     * event_kind times it, retries included) is >= the limit counts as
     * late (STATS.kst late: tpcc_start's `rt < limit` is sc, else lt).
     * Read once per kind, when the engine is made. */
    uint64_t (*wl_kind_limit_ns)(const struct ag_wl *wl, uint16_t k);
    /* Optional (NULL: the engine's advice). What to do about server error
     * err_no met while connecting or preparing (tpcc: a missing table means
     * `stampede tpcc prepare`): a static string (or one owned by wl), or
     * NULL for the engine's. */
    const char *(*wl_error_hint)(const struct ag_wl *wl, unsigned err_no);
    /* Optional (NULL: none). Errors the family counted itself in the event
     * that next() just ended (a Lua script's sb_counter_inc(tid,
     * SB_CNT_ERROR), as sysbench: each one an ignored error; the event
     * still ends as next() said). Called once per event, and resets. */
    uint32_t (*event_errors)(struct ag_gen *g);
    /* Optional (NULL: every connection opens PLAN.database). The database
     * the run's connection with global index conn_index opens (tpcc_start
     * -m/-o: one schema per connection), owned by wl and valid for its
     * life, or NULL for PLAN.database. Called once per connection, when
     * the engine makes it; its reconnects open the same database. */
    const char *(*wl_conn_db)(const struct ag_wl *wl, uint32_t conn_index);
    /* Optional (NULL: never). The name of the script a PLAN of the family
     * carries to run (borrowed from plan), or NULL: such a plan is refused
     * unless the agent's config says allow-scripts = yes (ag_ctl). Called
     * on the control thread before anything of the plan is made. */
    const char *(*plan_script)(const struct pr_msg_plan *plan);
    /* Optional (NULL: PLAN.conns). How many connections a loader command
     * (prepare, cleanup, prewarm, check) opens on this agent, after
     * wl_set_plan: a script's plain command runs once, on one connection,
     * where PLAN.conns is --threads (sysbench runs it in its main thread). */
    uint32_t (*cmd_conns)(const struct ag_wl *wl, const struct pr_msg_plan *plan);
};

#endif
