/* ag_conn_exec: the statement path of a connection (see ag_conn.h): start
 * an exec (prepared, emulated or text), walk its result operations, keep
 * what the call wants, and the --mysql-dry-run completions. Connect,
 * prepare and the socket/timer waits are in ag_conn.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include "ag_conn.h"
#include "ag_conn_int.h"
#include "ag_pvio.h"
#include "ag_result.h"
#include "pr_err.h"

static enum ag_conn_class rows_class(my_ulonglong affected)
{
    return affected > 0 && affected != (my_ulonglong)-1 ? AG_CONN_WRITE : AG_CONN_OTHER;
}

static int stored(ag_conn *c)
{
    if (c->call.want && c->first_result) {
        if (c->ret_res) {
            ag_result_from_res(&c->res, c->res_buf, c->ret_res);
        } else {
            c->res.affected = mysql_affected_rows(c->mysql);
            c->res.insert_id = mysql_insert_id(c->mysql);
        }
    }
    if (c->ret_res) {
        mysql_free_result(c->ret_res); /* no I/O after store_result (trap 7) */
        c->ret_res = NULL;
        if (c->first_result)
            c->cls = AG_CONN_READ;
    } else if (mysql_field_count(c->mysql) > 0) {
        return ag__conn_fail_mysql(c, "query", false);
    } else if (c->first_result) {
        c->cls = rows_class(mysql_affected_rows(c->mysql));
    }
    c->first_result = false;
    if (mysql_more_results(c->mysql)) {
        c->op = OP_NEXT;
        return mysql_next_result_start(&c->ret_int, c->mysql);
    }
    ag__conn_complete(c, AG_CONN_OK);
    return -1;
}

/* The statement operations of the chain (see ag_conn.c's on_done). */
int ag__conn_exec_done(ag_conn *c)
{
    MYSQL_STMT *st = c->cur_stmt >= 0 ? c->stmts[c->cur_stmt].stmt : NULL;

    switch (c->op) {
    case OP_EXECUTE:
        if (c->ret_int)
            return ag__conn_fail_stmt(c, "execute", false);
        if (c->stmts[c->cur_stmt].is_read) {
            c->op = OP_STMT_STORE;
            return mysql_stmt_store_result_start(&c->ret_int, st);
        }
        c->cls = rows_class(mysql_stmt_affected_rows(st));
        if (c->call.want) {
            c->res.affected = mysql_stmt_affected_rows(st);
            c->res.insert_id = mysql_stmt_insert_id(st);
        }
        ag__conn_complete(c, AG_CONN_OK);
        return -1;
    case OP_STMT_STORE:
        if (c->ret_int)
            return ag__conn_fail_stmt(c, "execute", false);
        if (c->call.want)
            ag_result_from_stmt(&c->res, c->res_buf, st, c->res_bind);
        c->op = OP_STMT_FREE;
        return mysql_stmt_free_result_start(&c->ret_bool, st);
    case OP_STMT_FREE:
        if (c->ret_bool)
            return ag__conn_fail_stmt(c, "execute", false);
        c->cls = AG_CONN_READ;
        ag__conn_complete(c, AG_CONN_OK);
        return -1;
    case OP_QUERY:
        if (c->ret_int)
            return ag__conn_fail_mysql(c, "query", false);
        c->op = OP_STORE;
        return mysql_store_result_start(&c->ret_res, c->mysql);
    case OP_STORE:
        return stored(c);
    case OP_NEXT:
        if (c->ret_int > 0)
            return ag__conn_fail_mysql(c, "query", false);
        if (c->ret_int < 0) {
            ag__conn_complete(c, AG_CONN_OK);
            return -1;
        }
        c->op = OP_STORE;
        return mysql_store_result_start(&c->ret_res, c->mysql);
    default:
        break;
    }
    return -1;
}

static void dry_idle_cb(uv_idle_t *h)
{
    ag_conn *c = h->data;

    uv_idle_stop(h);
    c->dry_pending = false;
    ag__conn_complete(c, AG_CONN_OK);
}

/* --mysql-dry-run: the request succeeds without touching the network. It
 * completes from the loop's next iteration (an idle handle: a zero timer
 * started from a timer callback would run in the same pass, and a chain of
 * them would starve the loop's other work), so the caller's per-call cost,
 * loop included, is what is measured. */
int ag__conn_dry_complete(ag_conn *c, enum req req)
{
    if (c->dry_idle == NULL) {
        c->dry_idle = pr_xmalloc(sizeof *c->dry_idle);
        uv_idle_init(c->loop, c->dry_idle);
        c->dry_idle->data = c;
    }
    c->req = req;
    c->cur_stmt = -1;
    c->cls = AG_CONN_OTHER;
    c->dry_pending = true;
    uv_idle_start(c->dry_idle, dry_idle_cb);
    return 0;
}

struct ag_call *ag_conn_call(ag_conn *c)
{
    return &c->call;
}

const struct ag_result *ag_conn_result(const ag_conn *c)
{
    return &c->res;
}

/* A new request's result: only err_no unless the call wants more. */
static void result_start(ag_conn *c)
{
    if (c->res_err) { /* only an error sets it: no store into res per statement */
        c->res.err_no = 0;
        c->res_err = false;
    }
    if (c->call.want == AG_WANT_NONE)
        return;
    if (c->res_buf == NULL) { /* once per connection */
        c->res_buf = pr_xmalloc(AG_RESULT_BUF);
        c->res_bind = pr_xcalloc(AG_RESULT_MAX_COLS, sizeof *c->res_bind);
    }
    ag_result_reset(&c->res);
    if (c->call.want == AG_WANT_ROWS && c->res_rows == NULL)
        c->res_rows = pr_xmalloc(AG_RESULT_MAX_ROWS * sizeof *c->res_rows);
    ag_result_keep_rows(&c->res, c->call.want == AG_WANT_ROWS ? c->res_rows : NULL);
    c->res.rowset = c->call.rowset; /* a Lua script's: every row (ag_rowset.c) */
}

/* Point string bindings at this call's buffers (they move per call). */
static int rebind(ag_conn *c, struct ag__stmt *s)
{
    for (uint32_t p = 0; p < s->def->nparams; p++) {
        if (s->def->type[p] != AG_PARAM_STR)
            continue;
        s->bind[p].buffer = (void *)c->call.sval[p];
        s->bind[p].buffer_length = c->call.slen[p];
        s->len[p] = c->call.slen[p];
    }
    return mysql_stmt_bind_param(s->stmt, s->bind);
}

/* The text of an emulated statement's call, in c->emu (grown to fit once). */
static size_t render_emulated(ag_conn *c, const struct ag__stmt *s)
{
    size_t len = ag_stmt_render(s->def, &c->call, c->emu, c->emu_cap);

    if (len >= c->emu_cap) {
        c->emu_cap = 2 * (len + 1);
        c->emu = pr_xrealloc(c->emu, c->emu_cap);
        len = ag_stmt_render(s->def, &c->call, c->emu, c->emu_cap);
    }
    return len;
}

static int exec_text(ag_conn *c, const char *text, size_t len)
{
    c->req = REQ_EXEC;
    c->in_request = true;
    c->cur_stmt = -1;
    c->first_result = true;
    c->op = OP_QUERY;
    ag_pvio_skip_read(c->mysql); /* the reply is not there yet (ag_pvio.h) */
    int status = mysql_real_query_start(&c->ret_int, c->mysql, text, len);
    ag_pvio_skip_clear();
    return status;
}

int ag_conn_exec(ag_conn *c)
{
    const struct ag_call *call = &c->call;
    int status;

    if (c->req != REQ_NONE)
        return -EBUSY;
    if (!c->open)
        return -ENOTCONN;
    if (call->stmt >= 0 &&
        ((size_t)call->stmt >= c->nstmts || call->nparams != c->stmts[call->stmt].def->nparams))
        return -EINVAL;
    result_start(c);
    if (c->opts->dry_run)
        return ag__conn_dry_complete(c, REQ_EXEC);
    if (call->stmt >= 0 && c->stmts[call->stmt].emulated) {
        size_t len = render_emulated(c, &c->stmts[call->stmt]);
        status = exec_text(c, c->emu, len);
    } else if (call->stmt >= 0) {
        struct ag__stmt *s = &c->stmts[call->stmt];
        c->req = REQ_EXEC;
        c->in_request = true;
        c->cur_stmt = call->stmt;
        if (s->has_str && rebind(c, s)) {
            ag__conn_fail_stmt(c, "bind", true);
            c->in_request = false;
            return 0;
        }
        c->op = OP_EXECUTE;
        ag_pvio_skip_read(c->mysql); /* the reply is not there yet (ag_pvio.h) */
        status = mysql_stmt_execute_start(&c->ret_int, s->stmt);
        ag_pvio_skip_clear();
    } else {
        status = exec_text(c, call->text, call->text_len);
    }
    ag__conn_run(c, status);
    c->in_request = false;
    return 0;
}

enum ag_conn_class ag_conn_class(const ag_conn *c)
{
    return c->cls;
}
