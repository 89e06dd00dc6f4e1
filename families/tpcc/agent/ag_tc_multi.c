/* ag_tc_multi: the tpcc loaders run once per schema of --multi-schema
 * (contract: ag_tc_multi.h). A stream is wrapped: its first statement is
 * the USE, then the inner stream's own, results handed on. */
#include "ag_tc_multi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_tc_load.h"
#include "pr_parse.h"

struct wrap {
    struct ag_piece in;           /* the inner stream */
    void (*in_destroy)(void *it); /* its destroy, or NULL */
    char db[72];                  /* the schema */
    char use_sql[160];            /* "USE `db`" (pr_sql_ident) */
    size_t use_len;               /* its length */
    bool used;                    /* the USE was sent */
    bool in_stmt;                 /* the last statement sent was the inner stream's */
    char msg[1024];               /* a message of the inner stream, prefixed */
};

/* The sink that wraps each stream it gets into the current schema. */
struct sink {
    ag_piece_add_fn add;
    void *ctx;
    const char *db; /* the current schema */
};

static void wrap_destroy(void *it)
{
    struct wrap *w = it;
    if (w->in_destroy)
        w->in_destroy(w->in.it);
    free(w);
}

static bool wrap_next(void *it, const char **sql, size_t *sql_len, uint64_t *rows)
{
    struct wrap *w = it;
    if (!w->used) {
        w->used = true;
        w->in_stmt = false;
        *sql = w->use_sql;
        *sql_len = w->use_len;
        *rows = 0;
        return true;
    }
    w->in_stmt = true;
    return w->in.next(w->in.it, sql, sql_len, rows);
}

static const char *prefixed(struct wrap *w, const char *m)
{
    if (m == NULL)
        return NULL;
    snprintf(w->msg, sizeof w->msg, "%s: %s", w->db, m);
    return w->msg;
}

static const char *wrap_result(void *it, const struct ag_result *res)
{
    struct wrap *w = it;
    if (!w->in_stmt || w->in.result == NULL)
        return NULL;
    return prefixed(w, w->in.result(w->in.it, res));
}

static const char *wrap_error(void *it)
{
    struct wrap *w = it;
    return w->in.error && w->used ? prefixed(w, w->in.error(w->in.it)) : NULL;
}

static const char *wrap_note(void *it)
{
    struct wrap *w = it;
    return w->in_stmt && w->in.note ? prefixed(w, w->in.note(w->in.it)) : NULL;
}

static bool wrap_failed(void *it, const struct ag_result *res)
{
    struct wrap *w = it;
    return w->in_stmt && w->in.failed && w->in.failed(w->in.it, res);
}

static void sink_add(void *ctx, struct ag_piece piece, void (*destroy)(void *it))
{
    struct sink *s = ctx;
    struct wrap *w = pr_xcalloc(1, sizeof *w);

    w->in = piece;
    w->in_destroy = destroy;
    snprintf(w->db, sizeof w->db, "%s", s->db);
    memcpy(w->use_sql, "USE ", 4);
    size_t q = pr_sql_ident(w->use_sql + 4, sizeof w->use_sql - 4, w->db);
    w->use_len = q ? 4 + q : (size_t)snprintf(w->use_sql, sizeof w->use_sql, "USE ``");
    struct ag_piece p = {.it = w,
                         .next = wrap_next,
                         .result = piece.result ? wrap_result : NULL,
                         .error = piece.error ? wrap_error : NULL,
                         .note = piece.note ? wrap_note : NULL,
                         .retry_locks = piece.retry_locks,
                         .rowset = piece.rowset,
                         .failed = piece.failed ? wrap_failed : NULL};
    s->add(s->ctx, p, wrap_destroy);
}

int ag_tc_multi_loads(const char *const *dbs, uint32_t n, const struct pr_tc_opts *o,
                      const pr_opts *po, const struct pr_msg_plan *plan, ag_piece_add_fn add,
                      void *ctx, struct pr_error *err)
{
    if (n == 0)
        return ag_tc_loads(o, po, plan, add, ctx, err);
    struct sink s = {add, ctx, NULL};
    for (uint32_t i = 0; i < n; i++) {
        s.db = dbs[i];
        int rc = ag_tc_loads(o, po, plan, sink_add, &s, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}
