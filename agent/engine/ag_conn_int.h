/* ag_conn_int: internals shared by ag_conn.c (connect, prepare, waiting on
 * the socket and timers, close) and ag_conn_exec.c (the statement path:
 * execute, results, dry run). Not part of any public API. */
#ifndef AG_CONN_INT_H
#define AG_CONN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <mysql.h>
#include <uv.h>

#include "ag_conn.h"
#include "ag_tlsconn.h"

enum op {
    OP_NONE,
    OP_CONNECT,
    OP_PREPARE,
    OP_EXECUTE,
    OP_STMT_STORE,
    OP_STMT_FREE,
    OP_QUERY,
    OP_STORE,
    OP_NEXT,
};

enum req { REQ_NONE, REQ_OPEN, REQ_EXEC };

/* One prepared statement of the set, with its preallocated bindings. */
struct ag__stmt {
    const struct ag_stmt_def *def; /* borrowed from the workload */
    MYSQL_STMT *stmt;              /* NULL when closed */
    MYSQL_BIND *bind;              /* def->nparams entries, allocated once */
    unsigned long *len;            /* string lengths the bindings point to */
    bool has_str;                  /* rebind before each execute (string pointers move) */
    bool is_read;                  /* field count > 0 at prepare (sysbench's tag) */
    bool emulated;                 /* the server refused to prepare it (1295): sent as text */
};

/* The fields every statement touches come first, in the struct's first
 * three cache lines (ag_conn_new allocates it 64-byte aligned): cb through
 * dry_pending, then the head of call (ag_family.h puts its small fields
 * before the parameter arrays). A wake then reads two or three lines of
 * our own state instead of seven; what only connects, errors, results that
 * are kept, and deferred completions use follows. */
struct ag_conn {
    ag_conn_cb cb;                   /* completion callback */
    void *data;                      /* callback data */
    MYSQL *mysql;                    /* NULL when closed */
    uv_poll_t *poll;                 /* poll on the current socket; freed in its close cb */
    struct ag__stmt *stmts;          /* the set */
    const struct ag_conn_opts *opts; /* borrowed */
    uv_loop_t *loop;                 /* the owning loop */
    MYSQL_RES *ret_res;              /* _start/_cont results, by type */
    uint64_t timer_due_ms;           /* when the armed timer fires (loop time, uv_now) */
    uint64_t timeout_due_ms;         /* the current wait's library deadline (uv_now), 0: none */
    size_t nstmts;                   /* size of the statement set (0: text only) */
    int poll_fd;                     /* fd poll watches, -1 if none */
    int poll_events;                 /* events poll is started with (0: stopped) */
    enum req req;                    /* request in flight */
    enum op op;                      /* library operation in flight */
    int32_t cur_stmt;                /* statement of the operation, -1 for text */
    int ret_int;
    enum ag_conn_class cls;              /* class of the last successful statement */
    enum ag_conn_status deferred_status; /* a deferred completion's status */
    my_bool ret_bool;
    bool timer_armed;    /* timer started for a library timeout */
    bool in_request;     /* inside ag_conn_open/exec: defer completion */
    bool deferred;       /* a completion waits for the zero timer */
    bool open;           /* connected and prepared */
    bool first_result;   /* text query: classify by the first result */
    bool res_err;        /* res.err_no may be set: cleared at the next exec */
    bool dry_pending;    /* a dry-run completion waits for dry_idle */
    struct ag_call call; /* the call buffer; INT bindings point into it */

    const struct ag_conn_target *target; /* borrowed */
    uv_timer_t timer;                    /* library timeouts and deferred completions */
    MYSQL *ret_mysql;
    char *emu;                /* text of an emulated statement (grown, never shrunk) */
    size_t emu_cap;           /* its size */
    struct ag_conn_error err; /* last error */
    struct ag_result res;     /* the last exec's result (ag_conn_result) */
    char *res_buf;            /* its first-row text (AG_RESULT_BUF), allocated at first want */
    MYSQL_BIND *res_bind;     /* PS result bindings (AG_RESULT_MAX_COLS), with res_buf */
    int64_t *res_rows;        /* AG_WANT_ROWS' first columns (AG_RESULT_MAX_ROWS), at first use */
    uv_idle_t *dry_idle;      /* --mysql-dry-run completions; freed in its close cb */
    ag_tlsconn *bg;           /* a TLS connect on the thread pool (ag_tlsconn.h), or NULL */
};

/* ag_conn.c: end the request in flight with status (deferred to a zero
 * timer inside ag_conn_open/exec). */
void ag__conn_complete(ag_conn *c, enum ag_conn_status status);
/* ag_conn.c: record the handle's (statement's) error for what and complete
 * with its class (fatal: AG_CONN_FATAL). Returns -1. */
int ag__conn_fail_mysql(ag_conn *c, const char *what, bool fatal);
int ag__conn_fail_stmt(ag_conn *c, const char *what, bool fatal);
/* ag_conn.c: drive the chain from a _start/_cont status. */
void ag__conn_run(ag_conn *c, int status);

/* ag_conn_exec.c: the statement operation in flight (execute, store, free,
 * query, next result) has finished: start the next one (returns its status,
 * >= 0) or complete the request (-1). */
int ag__conn_exec_done(ag_conn *c);
/* ag_conn_exec.c: --mysql-dry-run completion of request req. Returns 0. */
int ag__conn_dry_complete(ag_conn *c, enum req req);

#endif
