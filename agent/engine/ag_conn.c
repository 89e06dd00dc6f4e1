/* ag_conn: one non-blocking MySQL connection (see ag_conn.h).
 *
 * A request (open or exec) is a chain of library operations (connect,
 * prepare i, execute, store, free, query, next result). Each operation is
 * started with its _start call and resumed with _cont from the poll or timer
 * callback until it returns 0; then on_done() inspects the result and starts
 * the next operation of the chain or completes the request. Completions that
 * happen inside ag_conn_open/ag_conn_exec themselves are delivered from a
 * zero timer, so callers never see their callback reentrantly.
 */
#include "ag_conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errmsg.h>
#include <fcntl.h>
#include <mysql.h>

#include "ag_conn_int.h"
#include "ag_result.h"
#include "ag_tlsconn.h"
#include "pr_err.h"
#include "pr_tls.h"

/* ER_UNSUPPORTED_PS: the server cannot prepare this statement. */
#define AG__ER_UNSUPPORTED_PS 1295

static void run(ag_conn *c, int status);
static void timer_cb(uv_timer_t *t);
static void arm_timer(ag_conn *c, uint64_t left_ms);

bool ag_conn_errno_is_lost(unsigned err_no)
{
    switch (err_no) {
    case CR_SERVER_LOST:          /* 2013 */
    case CR_SERVER_GONE_ERROR:    /* 2006 */
    case CR_TCP_CONNECTION:       /* 2011 */
    case CR_SERVER_LOST_EXTENDED: /* 2055 */
    /* Server errors sent just before the server closes the connection:
     * ER_SERVER_SHUTDOWN (restart), ER_CONNECTION_KILLED (MariaDB's KILL),
     * ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8 idle disconnect). */
    case 1053:
    case 1927:
    case 4031:
        return true;
    default:
        return false;
    }
}

static enum ag_conn_status classify(const ag_conn *c, unsigned err_no)
{
    if (ag_conn_errno_is_lost(err_no))
        return AG_CONN_LOST;
    return pr_ignore_errors_has(c->opts->ignore, err_no) ? AG_CONN_IGNORED : AG_CONN_FATAL;
}

static void set_error(ag_conn *c, unsigned err_no, const char *state, const char *msg,
                      const char *what, const char *kind)
{
    c->err.err_no = err_no;
    c->res.err_no = err_no ? err_no : CR_UNKNOWN_ERROR;
    c->res_err = true;
    c->res.errmsg = c->err.msg;
    snprintf(c->err.sqlstate, sizeof c->err.sqlstate, "%s", state ? state : "HY000");
    snprintf(c->err.msg, sizeof c->err.msg, "%s", msg ? msg : "");
    if (kind)
        snprintf(c->err.what, sizeof c->err.what, "%s %s", what, kind);
    else
        snprintf(c->err.what, sizeof c->err.what, "%s", what);
}

static void poll_free_cb(uv_handle_t *h)
{
    free(h);
}

static void poll_drop(ag_conn *c)
{
    if (c->poll) {
        uv_close((uv_handle_t *)c->poll, poll_free_cb);
        c->poll = NULL;
    }
    c->poll_fd = -1;
    c->poll_events = 0;
}

static int op_cont(ag_conn *c, int ws)
{
    MYSQL_STMT *st = c->cur_stmt >= 0 ? c->stmts[c->cur_stmt].stmt : NULL;

    switch (c->op) {
    case OP_CONNECT:
        return mysql_real_connect_cont(&c->ret_mysql, c->mysql, ws);
    case OP_PREPARE:
        return mysql_stmt_prepare_cont(&c->ret_int, st, ws);
    case OP_EXECUTE:
        return mysql_stmt_execute_cont(&c->ret_int, st, ws);
    case OP_STMT_STORE:
        return mysql_stmt_store_result_cont(&c->ret_int, st, ws);
    case OP_STMT_FREE:
        return mysql_stmt_free_result_cont(&c->ret_bool, st, ws);
    case OP_QUERY:
        return mysql_real_query_cont(&c->ret_int, c->mysql, ws);
    case OP_STORE:
        return mysql_store_result_cont(&c->ret_res, c->mysql, ws);
    case OP_NEXT:
        return mysql_next_result_cont(&c->ret_int, c->mysql, ws);
    case OP_NONE:
        break;
    }
    return 0;
}

/* Abort an operation in flight: shut the socket down so every read and
 * write fails, then let the library's coroutine run to its end. If it does
 * not end (no socket yet), the handle is leaked rather than freed under a
 * suspended coroutine. Returns false in that case. */
static bool abort_op(ag_conn *c)
{
    if (c->op == OP_NONE)
        return true;
    mariadb_cancel(c->mysql);
    for (int i = 0; i < 64; i++) {
        if (op_cont(c, MYSQL_WAIT_READ | MYSQL_WAIT_WRITE) == 0) {
            if (c->op == OP_STORE && c->ret_res)
                mysql_free_result(c->ret_res);
            c->op = OP_NONE;
            return true;
        }
    }
    c->op = OP_NONE;
    return false;
}

/* Close the socket side: poll first (trap 6), then the library handle and
 * the statement handles it detached.
 *
 * When a connect fails or the server is lost, the library has already
 * closed its socket when it returns, so closing the poll handle then issues
 * an epoll_ctl(DEL) on a stale fd number that another worker thread may have
 * reused (TSan reports it as a race on that fd; tests/tsan.supp suppresses
 * it). It is harmless: the socket is close-on-exec (wait_for), so no child
 * holds it open and the kernel dropped it from our epoll set when the
 * library closed it; the reused number is registered only in the other
 * thread's set, so the DEL fails with ENOENT; and nothing on this thread can
 * reuse the number before we get here, as the failure is handled
 * synchronously. */
static void teardown(ag_conn *c)
{
    if (c->bg) { /* the job owns the handle and closes it */
        ag_tlsconn_abandon(&c->bg);
        c->mysql = NULL;
        c->op = OP_NONE;
    }
    poll_drop(c);
    if (c->timer_armed) {
        uv_timer_stop(&c->timer);
        c->timer_armed = false;
    }
    if (c->mysql) {
        bool clean = abort_op(c);
        /* As sysbench: one COM_STMT_CLOSE per statement, then COM_QUIT.
         * COM_STMT_CLOSE has no reply, so these calls only write. */
        for (size_t i = 0; i < c->nstmts; i++) {
            if (c->stmts[i].stmt && clean)
                mysql_stmt_close(c->stmts[i].stmt);
            c->stmts[i].stmt = NULL;
        }
        if (clean)
            mysql_close(c->mysql);
        c->mysql = NULL;
        if (pr_tls_is_on(c->opts->tls))
            pr_tls_clear_errors(); /* or the next would-block of any TLS connection fails */
    }
    c->op = OP_NONE;
    c->open = false;
}

static void deliver(ag_conn *c, enum ag_conn_status status)
{
    c->req = REQ_NONE;
    c->cb(c, status, c->data);
}

/* End the request in flight with status. */
static void complete(ag_conn *c, enum ag_conn_status status)
{
    enum req req = c->req;

    c->op = OP_NONE;
    c->timeout_due_ms = 0; /* an armed timer stays armed: the callback ignores it */
    if (status == AG_CONN_LOST || (req == REQ_OPEN && status != AG_CONN_OK))
        teardown(c);
    else if (req == REQ_OPEN)
        c->open = true;
    if (c->in_request) {
        c->deferred = true;
        c->deferred_status = status;
        uv_timer_start(&c->timer, timer_cb, 0, 0);
        c->timer_armed = false; /* the zero timer replaced any timeout */
        return;
    }
    deliver(c, status);
}

static int fail_mysql(ag_conn *c, const char *what, bool fatal)
{
    unsigned e = mysql_errno(c->mysql);
    const char *kind = c->cur_stmt >= 0 ? c->stmts[c->cur_stmt].def->kind : c->call.kind;

    set_error(c, e, mysql_sqlstate(c->mysql), mysql_error(c->mysql), what, kind);
    complete(c, fatal ? AG_CONN_FATAL : classify(c, e));
    return -1;
}

static int fail_stmt(ag_conn *c, const char *what, bool fatal)
{
    MYSQL_STMT *st = c->stmts[c->cur_stmt].stmt;
    unsigned e = mysql_stmt_errno(st);

    set_error(c, e, mysql_stmt_sqlstate(st), mysql_stmt_error(st), what,
              c->stmts[c->cur_stmt].def->kind);
    complete(c, fatal ? AG_CONN_FATAL : classify(c, e));
    return -1;
}

static int start_prepare(ag_conn *c, size_t i)
{
    if (i >= c->nstmts) {
        complete(c, AG_CONN_OK);
        return -1;
    }
    const struct ag_stmt_def *def = c->stmts[i].def;
    c->cur_stmt = (int32_t)i;
    c->op = OP_PREPARE;
    return mysql_stmt_prepare_start(&c->ret_int, c->stmts[i].stmt, def->sql, def->sql_len);
}

static int bind_stmt(ag_conn *c, struct ag__stmt *s)
{
    static char empty[1];

    for (uint32_t p = 0; p < s->def->nparams; p++) {
        MYSQL_BIND *b = &s->bind[p];
        memset(b, 0, sizeof *b);
        if (s->def->type[p] == AG_PARAM_INT) {
            b->buffer_type = MYSQL_TYPE_LONGLONG;
            b->buffer = &c->call.ival[p];
        } else {
            b->buffer_type = MYSQL_TYPE_VAR_STRING;
            b->buffer = empty;
            b->length = &s->len[p];
            s->len[p] = 0;
        }
    }
    return s->def->nparams ? mysql_stmt_bind_param(s->stmt, s->bind) : 0;
}

/* After prepare i: check the parameter count, tag read/non-read, bind. A
 * statement the server cannot prepare (1295) is emulated instead, as
 * sysbench's --db-ps-mode=auto does: sent as text with its parameters
 * rendered in (ag_stmt_render). */
static int prepared(ag_conn *c)
{
    struct ag__stmt *s = &c->stmts[c->cur_stmt];

    if (c->ret_int && mysql_stmt_errno(s->stmt) == AG__ER_UNSUPPORTED_PS) {
        s->emulated = true;
        return start_prepare(c, (size_t)c->cur_stmt + 1);
    }
    if (c->ret_int)
        return fail_stmt(c, "prepare", true);
    if (mysql_stmt_param_count(s->stmt) != s->def->nparams) {
        set_error(c, 0, "HY000", "parameter count differs from the workload's", "prepare",
                  s->def->kind);
        complete(c, AG_CONN_FATAL);
        return -1;
    }
    s->is_read = mysql_stmt_field_count(s->stmt) > 0;
    if (bind_stmt(c, s))
        return fail_stmt(c, "bind", true);
    return start_prepare(c, (size_t)c->cur_stmt + 1);
}

/* Fail the open on a transport error (message msg, the library's error
 * number for TLS failures). */
static void fail_transport(ag_conn *c, const char *msg)
{
    char m[sizeof c->err.msg];

    snprintf(m, sizeof m, "%.*s", (int)sizeof m - 1, msg);
    set_error(c, CR_SSL_CONNECTION_ERROR, "HY000", m, "connect", NULL);
    complete(c, AG_CONN_FATAL);
}

/* A transport the TLS options refuse (a plain connection when TLS is
 * required) fails the open like a connect error. */
static int check_transport(ag_conn *c)
{
    struct pr_error e = {0};

    if (pr_tls_check_conn(c->mysql, c->opts->tls, &e) < 0) {
        fail_transport(c, e.msg);
        return -1;
    }
    int rc = pr_tls_nonblock(c->mysql);
    if (rc < 0) {
        fail_transport(c, strerror(-rc));
        return -1;
    }
    return 0;
}

static int connected(ag_conn *c)
{
    if (!c->ret_mysql)
        return fail_mysql(c, "connect", true);
    if (check_transport(c) < 0)
        return -1;
    for (size_t i = 0; i < c->nstmts; i++) {
        c->stmts[i].emulated = false; /* asked again on every connect */
        c->stmts[i].stmt = mysql_stmt_init(c->mysql);
        if (!c->stmts[i].stmt) {
            set_error(c, CR_OUT_OF_MEMORY, "HY000", "mysql_stmt_init failed", "prepare",
                      c->stmts[i].def->kind);
            complete(c, AG_CONN_FATAL);
            return -1;
        }
    }
    return start_prepare(c, 0);
}

/* The operation in flight has finished: continue the chain. Returns the
 * _start status of the next operation (>= 0), or -1 when the request ended. */
static int on_done(ag_conn *c)
{
    switch (c->op) {
    case OP_CONNECT:
        return connected(c);
    case OP_PREPARE:
        return prepared(c);
    case OP_NONE:
        return -1;
    default:
        return ag__conn_exec_done(c); /* ag_conn_exec.c */
    }
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
    ag_conn *c = h->data;
    int ws = 0;

    if (c->op == OP_NONE) {
        /* Readable while idle: the server closed or sent an error packet;
         * the next statement will see it. Stop level-triggered wakeups. */
        uv_poll_stop(h);
        c->poll_events = 0;
        return;
    }
    if (status < 0) {
        /* libuv stopped the handle; let the library see the error (trap 4). */
        c->poll_events = 0;
        ws = MYSQL_WAIT_READ | MYSQL_WAIT_WRITE;
    } else {
        if (events & UV_READABLE)
            ws |= MYSQL_WAIT_READ;
        if (events & UV_WRITABLE)
            ws |= MYSQL_WAIT_WRITE;
        if (events & UV_PRIORITIZED)
            ws |= MYSQL_WAIT_EXCEPT;
    }
    run(c, op_cont(c, ws));
}

static void timer_cb(uv_timer_t *t)
{
    ag_conn *c = t->data;

    c->timer_armed = false;
    if (c->deferred) {
        c->deferred = false;
        deliver(c, c->deferred_status);
        return;
    }
    if (c->op == OP_NONE || c->timeout_due_ms == 0)
        return; /* armed for an earlier wait */
    uint64_t now = uv_now(c->loop);
    if (now < c->timeout_due_ms) { /* armed for an earlier, sooner deadline */
        arm_timer(c, c->timeout_due_ms - now);
        return;
    }
    run(c, op_cont(c, MYSQL_WAIT_TIMEOUT));
}

/* Arm the timeout timer to fire in left_ms of loop time: its due time is
 * libuv's own (uv_now + left_ms), so the deadlines below need no clock
 * read. */
static void arm_timer(ag_conn *c, uint64_t left_ms)
{
    uv_timer_start(&c->timer, timer_cb, left_ms, 0);
    c->timer_armed = true;
    c->timer_due_ms = uv_now(c->loop) + left_ms;
}

/* Wait for what the library asked: poll the (possibly new) socket, arm the
 * timeout. Returns 0 or a negative uv code. */
static int wait_for(ag_conn *c, int status)
{
    int fd = (int)mysql_get_socket(c->mysql);
    int ev = 0;

    if (status & MYSQL_WAIT_READ)
        ev |= UV_READABLE;
    if (status & MYSQL_WAIT_WRITE)
        ev |= UV_WRITABLE;
    if (status & MYSQL_WAIT_EXCEPT)
        ev |= UV_PRIORITIZED;
    if (fd != c->poll_fd) {
        poll_drop(c); /* a new fd needs a new handle (trap 6) */
        if (fd >= 0) {
            /* Connector/C opens its sockets without close-on-exec. A
             * child forked and exec'd by the host process would keep our
             * socket open after the library closes it; the closed socket
             * then stays in our epoll set, keeps firing (hang-up is level
             * triggered) and libuv DELs its fd number, by then another
             * thread's socket. */
            if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
                return -errno;
            uv_poll_t *p = pr_xmalloc(sizeof *p);
            int rc = uv_poll_init(c->loop, p, fd);
            if (rc < 0) {
                free(p);
                return rc;
            }
            p->data = c;
            c->poll = p;
            c->poll_fd = fd;
        }
    }
    if (c->poll && ev != c->poll_events) { /* restart only on change (trap 5) */
        int rc = ev ? uv_poll_start(c->poll, ev, poll_cb) : uv_poll_stop(c->poll);
        if (rc < 0)
            return rc;
        c->poll_events = ev;
    }
    c->timeout_due_ms = 0;
    if (status & MYSQL_WAIT_TIMEOUT) {
        /* The deadline is in loop time (uv_now, read once per loop turn),
         * as libuv's timers are: no clock read per statement. It can come
         * up to one loop turn before the wait's real start plus the
         * timeout, milliseconds on timeouts of seconds. */
        uint64_t left_ms = mysql_get_timeout_value_ms(c->mysql);
        c->timeout_due_ms = uv_now(c->loop) + left_ms;
        /* Restarting the timer on every wait costs two heap operations per
         * statement. A timer armed for an earlier wait fires no later than
         * needed (its callback re-arms for the rest); restart only when it
         * would fire too late. */
        if (!c->timer_armed || c->timer_due_ms > c->timeout_due_ms)
            arm_timer(c, left_ms);
    }
    return 0;
}

static void run(ag_conn *c, int status)
{
    while (status == 0) {
        status = on_done(c);
        if (status < 0)
            return;
    }
    int rc = wait_for(c, status);
    if (rc < 0) {
        set_error(c, CR_UNKNOWN_ERROR, "HY000", uv_strerror(rc), "poll", NULL);
        teardown(c);
        complete(c, AG_CONN_LOST);
    }
}

ag_conn *ag_conn_new(uv_loop_t *loop, const struct ag_conn_target *target,
                     const struct ag_conn_opts *opts, const struct ag_wl *wl, ag_conn_cb cb,
                     void *data)
{
    /* 64-byte aligned, so the hot head is whole cache lines (ag_conn_int.h) */
    ag_conn *c = pr_xcalloc_aligned(1, sizeof *c, 64);

    c->loop = loop;
    c->target = target;
    c->opts = opts;
    c->cb = cb;
    c->data = data;
    c->poll_fd = -1;
    c->cur_stmt = -1;
    uv_timer_init(loop, &c->timer);
    c->timer.data = c;
    if (wl)
        c->nstmts = wl->fam->wl_nstmts(wl);
    if (c->nstmts) {
        c->stmts = pr_xcalloc(c->nstmts, sizeof *c->stmts);
        for (size_t i = 0; i < c->nstmts; i++) {
            struct ag__stmt *s = &c->stmts[i];
            s->def = wl->fam->wl_stmt(wl, i);
            s->bind = pr_xcalloc(s->def->nparams + 1, sizeof *s->bind);
            s->len = pr_xcalloc(s->def->nparams + 1, sizeof *s->len);
            for (uint32_t p = 0; p < s->def->nparams; p++)
                if (s->def->type[p] == AG_PARAM_STR)
                    s->has_str = true;
        }
    }
    return c;
}

static void conn_free_cb(uv_handle_t *h)
{
    ag_conn *c = h->data;

    for (size_t i = 0; i < c->nstmts; i++) {
        free(c->stmts[i].bind);
        free(c->stmts[i].len);
    }
    free(c->stmts);
    free(c->emu);
    free(c->res_buf);
    free(c->res_bind);
    free(c->res_rows);
    free(c);
}

void ag_conn_destroy(ag_conn **cp)
{
    if (!cp || !*cp)
        return;
    ag_conn *c = *cp;
    *cp = NULL;
    ag_conn_close(c);
    if (c->dry_idle)
        uv_close((uv_handle_t *)c->dry_idle, (uv_close_cb)free);
    uv_close((uv_handle_t *)&c->timer, conn_free_cb);
}

static void set_timeouts(ag_conn *c)
{
    unsigned ct = c->opts->connect_timeout_s, rt = c->opts->read_timeout_s;
    unsigned wt = c->opts->write_timeout_s;

    mysql_options(c->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
    mysql_options(c->mysql, MYSQL_OPT_READ_TIMEOUT, &rt);
    mysql_options(c->mysql, MYSQL_OPT_WRITE_TIMEOUT, &wt);
}

/* The thread pool's connect is done: continue on the loop. */
static void tls_connected(MYSQL *m, MYSQL *ret, void *data)
{
    ag_conn *c = data;

    (void)m;
    c->bg = NULL;
    c->ret_mysql = ret;
    run(c, 0);
}

/* TLS: the handshake cannot run on the loop (ag_tlsconn.h). */
static void open_tls(ag_conn *c, const char *host)
{
    const struct ag_conn_target *t = c->target;
    struct ag_tlsconn_args a = {.host = host,
                                .user = c->opts->user,
                                .password = c->opts->password,
                                .db = c->opts->db,
                                .port = t->socket ? 0 : t->port,
                                .socket = t->socket,
                                .flags = CLIENT_MULTI_STATEMENTS};
    int rc = 0;

    c->bg = ag_tlsconn_start(c->loop, c->mysql, &a, tls_connected, c, &rc);
    if (c->bg == NULL) {
        set_error(c, CR_UNKNOWN_ERROR, "HY000", uv_strerror(rc), "connect", NULL);
        complete(c, AG_CONN_FATAL);
    }
}

int ag_conn_open(ag_conn *c)
{
    const struct ag_conn_target *t = c->target;

    if (c->req != REQ_NONE || c->mysql || (c->opts->dry_run && c->open))
        return -EBUSY;
    if (c->opts->dry_run)
        return ag__conn_dry_complete(c, REQ_OPEN);
    c->mysql = mysql_init(NULL);
    if (!c->mysql)
        abort();
    /* Non-blocking first, or connect crashes (trap 1). */
    mysql_options(c->mysql, MYSQL_OPT_NONBLOCK, 0);
    set_timeouts(c);
    c->req = REQ_OPEN;
    c->in_request = true;
    c->cur_stmt = -1;
    struct pr_error te = {0};
    if (pr_tls_apply(c->mysql, c->opts->tls, &te) < 0) {
        fail_transport(c, te.msg);
        c->in_request = false;
        return 0;
    }
    const char *host = t->socket                                    ? "localhost"
                       : t->name && pr_tls_wants_name(c->opts->tls) ? t->name
                                                                    : t->host;
    c->op = OP_CONNECT;
    if (pr_tls_is_on(c->opts->tls)) {
        open_tls(c, host);
        c->in_request = false;
        return 0;
    }
    int status = mysql_real_connect_start(&c->ret_mysql, c->mysql, host, c->opts->user,
                                          c->opts->password, c->opts->db, t->socket ? 0 : t->port,
                                          t->socket, CLIENT_MULTI_STATEMENTS);
    run(c, status);
    c->in_request = false;
    return 0;
}

void ag_conn_close(ag_conn *c)
{
    if (c->deferred) {
        c->deferred = false;
        uv_timer_stop(&c->timer);
    }
    if (c->dry_pending) {
        c->dry_pending = false;
        uv_idle_stop(c->dry_idle);
    }
    teardown(c);
    c->req = REQ_NONE;
}

const struct ag_conn_error *ag_conn_error(const ag_conn *c)
{
    return &c->err;
}

bool ag_conn_is_open(const ag_conn *c)
{
    return c->open;
}

bool ag_conn_is_busy(const ag_conn *c)
{
    return c->req != REQ_NONE;
}

void *ag_conn_data(const ag_conn *c)
{
    return c->data;
}

/* ---- internals for ag_conn_exec.c (ag_conn_int.h) ----------------------- */

void ag__conn_complete(ag_conn *c, enum ag_conn_status status)
{
    complete(c, status);
}

int ag__conn_fail_mysql(ag_conn *c, const char *what, bool fatal)
{
    return fail_mysql(c, what, fatal);
}

int ag__conn_fail_stmt(ag_conn *c, const char *what, bool fatal)
{
    return fail_stmt(c, what, fatal);
}

void ag__conn_run(ag_conn *c, int status)
{
    run(c, status);
}
