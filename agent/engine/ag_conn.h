/* ag_conn: one MySQL connection as a state machine over MariaDB Connector/C's
 * non-blocking _start/_cont calls, driven by a libuv loop.
 *
 * The connection waits on its socket with a uv_poll (restarted only when the
 * library's wait mask changes) and on a uv_timer armed from
 * mysql_get_timeout_value_ms() whenever the library asks for
 * MYSQL_WAIT_TIMEOUT. Connect, read and write timeouts are always set, so a
 * silent server cannot hang a connection (the API's traps 1-8 of
 * docs/design.md §13.3 are handled here).
 *
 * A connection opens (connect + prepare the workload's statement set, with
 * MYSQL_BIND arrays preallocated per statement), then executes one struct
 * ag_call at a time. A statement the server refuses to prepare with
 * ER_UNSUPPORTED_PS (1295) is emulated, as sysbench's --db-ps-mode=auto
 * does: its calls go out as text with the parameters rendered in
 * (ag_stmt_render), classified by their result like any text query; any
 * other prepare error fails the open. Each request completes through the callback given at
 * creation, never before the request function returns, with a status:
 *   AG_CONN_OK       success; ag_conn_class() says read / write / other
 *                    (sysbench's rule: result set -> read, else affected
 *                    rows > 0 -> write, else other);
 *   AG_CONN_IGNORED  a server error in the ignore list (the caller restarts
 *                    its event); the connection stays usable;
 *   AG_CONN_LOST     2013, 2006, 2011, 2055, or a server error sent as it
 *                    closes the connection (1053 shutdown, 1927 killed,
 *                    4031 MySQL idle timeout): the connection is already
 *                    closed; the caller reopens it (reconnect);
 *   AG_CONN_FATAL    any other error, or a failed open: ag_conn_error() has
 *                    errno, sqlstate, message and what was running. A failed
 *                    open leaves the connection closed.
 * No allocation happens per statement.
 *
 * Thread: a connection belongs to the thread running its loop.
 */
#ifndef AG_CONN_H
#define AG_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "ag_family.h"
#include "pr_opts.h"

typedef struct ag_conn ag_conn;

/* Where to connect. Borrowed: must outlive the connection. */
struct ag_conn_target {
    const char *host;   /* numeric address (resolved beforehand), or "localhost" */
    unsigned port;      /* TCP port (ignored with socket) */
    const char *socket; /* Unix socket path, or NULL for TCP */
    const char *name;   /* the host as given, connected to by name when the TLS options
                           check the server's identity (pr_tls_wants_name); NULL: host */
};

struct pr_tls_opts; /* pr_tls.h */

/* How to connect and what to tolerate. Borrowed: must outlive the connection.
 * The password is never logged or copied into error messages. */
struct ag_conn_opts {
    const char *user;
    const char *password;
    const char *db;
    unsigned connect_timeout_s;            /* > 0 */
    unsigned read_timeout_s;               /* > 0 */
    unsigned write_timeout_s;              /* > 0 */
    const struct pr_ignore_errors *ignore; /* --mysql-ignore-errors (pr_opts' parse) */
    bool dry_run; /* --mysql-dry-run: every open and exec completes with AG_CONN_OK at once,
                     without a socket or a library call (no result set, 0 rows affected:
                     class OTHER, as sysbench's dry run), still through the loop */
    const struct pr_tls_opts *tls; /* TLS and compression (pr_tls.h); NULL: plain */
};

enum ag_conn_status { AG_CONN_OK, AG_CONN_IGNORED, AG_CONN_LOST, AG_CONN_FATAL };
enum ag_conn_class { AG_CONN_READ, AG_CONN_WRITE, AG_CONN_OTHER };

/* The last error of a connection (valid until its next request). */
struct ag_conn_error {
    unsigned err_no;  /* server or client error number */
    char sqlstate[6]; /* "HY000" ... */
    char msg[256];    /* the library's message */
    char what[64];    /* "connect", "prepare point_selects", "execute begin", "query inserts" */
};

/* Completion of ag_conn_open / ag_conn_exec. Runs on the loop thread; it may
 * start the next request on c (or close/destroy it). */
typedef void (*ag_conn_cb)(ag_conn *c, enum ag_conn_status status, void *data);

/* A closed connection on loop. wl supplies the prepared-statement set
 * (its family's wl_nstmts/wl_stmt; NULL: text queries only). target, opts
 * and wl are borrowed. Never NULL (aborts on out of memory). */
ag_conn *ag_conn_new(uv_loop_t *loop, const struct ag_conn_target *target,
                     const struct ag_conn_opts *opts, const struct ag_wl *wl, ag_conn_cb cb,
                     void *data);

/* Close the connection (dropping any request in flight without calling the
 * callback) and free it once its uv handles are closed; *c becomes NULL.
 * NULL or *c == NULL is a no-op. Loop thread only. */
void ag_conn_destroy(ag_conn **c);

/* Connect and prepare the statement set. Returns 0 and later calls the
 * callback, or -EBUSY when the connection is not closed and idle. */
int ag_conn_open(ag_conn *c);

/* The call buffer to fill (with the generator's next) before ag_conn_exec;
 * owned by the connection, stable for its lifetime (prepared statements bind
 * to it). */
struct ag_call *ag_conn_call(ag_conn *c);

/* The result of the last exec (ag_family.h): err_no (0 on success, else the
 * error of a non-OK status) always; with call.want AG_WANT_RESULT also the
 * row count, affected rows, insert id and the first row (text, and numeric
 * columns parsed). Owned by c, valid until its next request. */
const struct ag_result *ag_conn_result(const ag_conn *c);

/* Execute the call in ag_conn_call(c): a prepared statement (stmt >= 0) or a
 * text query (stmt < 0). The whole result is read and freed (what call.want
 * asks for kept first, ag_conn_result). Returns 0 and
 * later calls the callback, -EBUSY when a request is in flight, -ENOTCONN
 * when closed, -EINVAL for a bad statement index or parameter count. */
int ag_conn_exec(ag_conn *c);

/* Close now: a request in flight is aborted (its callback is not called),
 * the poll handle is closed before the socket, and the connection can be
 * opened again. Idempotent. */
void ag_conn_close(ag_conn *c);

/* Classification of the last successful statement. */
enum ag_conn_class ag_conn_class(const ag_conn *c);
/* The last error (meaningful after a non-OK status). */
const struct ag_conn_error *ag_conn_error(const ag_conn *c);
/* True when the connection is open (connected and prepared). */
bool ag_conn_is_open(const ag_conn *c);
/* True when a request is in flight. */
bool ag_conn_is_busy(const ag_conn *c);
/* The callback data given at creation. */
void *ag_conn_data(const ag_conn *c);

/* Lost-connection error numbers (2013, 2006, 2011, 2055, 1053, 1927, 4031). */
bool ag_conn_errno_is_lost(unsigned err_no);

#endif
