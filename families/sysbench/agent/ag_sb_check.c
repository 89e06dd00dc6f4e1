/* ag_sb_check: the sysbench family's check stream. See ag_sb_check.h. */
#include "ag_sb_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum expect {
    EXPECT_EXACT, /* COUNT == table_size, ids 1..table_size */
    EXPECT_AT_LEAST,
    EXPECT_EXISTS,
};

struct ag_sb_check {
    uint32_t *tables;   /* table numbers, owned */
    size_t ntables;     /* their count */
    size_t pos;         /* statements emitted */
    uint64_t want_rows; /* rows each table must hold (EXPECT_EXACT/AT_LEAST) */
    enum expect expect; /* what the workload keeps */
    char sql[128];      /* the statement being checked */
    char msg[256];      /* a mismatch */
};

ag_sb_check *ag_sb_check_new(const ag_sb_workload *wl, const uint32_t *tables, size_t n)
{
    ag_sb_check *c = pr_xcalloc(1, sizeof *c);
    const pr_opts *o = ag_sb_workload_opts(wl);
    const char *name = ag_sb_workload_name(wl);
    int64_t ts = pr_opts_int(o, "table_size");

    c->tables = pr_xmalloc((n ? n : 1) * sizeof *tables);
    if (n)
        memcpy(c->tables, tables, n * sizeof *tables);
    c->ntables = n;
    c->want_rows = ts < 0 ? 0 : (uint64_t)ts;
    c->expect = EXPECT_EXACT;
    if (strcmp(name, "bulk_insert") == 0) {
        c->expect = EXPECT_EXISTS;
    } else if (strcmp(name, "oltp_insert") == 0) {
        c->expect = EXPECT_AT_LEAST;
        if (!pr_opts_bool(o, "auto_inc"))
            c->want_rows = 0; /* prepare loads no row (ag_sb_load.h) */
    }
    return c;
}

void ag_sb_check_destroy(ag_sb_check **c)
{
    if (!*c)
        return;
    free((*c)->tables);
    free(*c);
    *c = NULL;
}

static bool check_next(void *it, const char **sql, size_t *sql_len, uint64_t *rows)
{
    ag_sb_check *c = it;

    if (c->pos >= c->ntables)
        return false;
    uint32_t t = c->tables[c->pos++];
    int n = snprintf(c->sql, sizeof c->sql,
                     "SELECT COUNT(*), COALESCE(MIN(id),0), COALESCE(MAX(id),0) FROM sbtest%u", t);
    *sql = c->sql;
    *sql_len = (size_t)n;
    *rows = 0;
    return true;
}

static const char *check_result(void *it, const struct ag_result *res)
{
    ag_sb_check *c = it;
    uint32_t t = c->tables[c->pos - 1];

    if (res->ncols < 3 || !res->is_num[0] || !res->is_num[1] || !res->is_num[2]) {
        snprintf(c->msg, sizeof c->msg, "check sbtest%u: unexpected result shape", t);
        return c->msg;
    }
    uint64_t count = (uint64_t)res->ival[0];
    uint64_t lo = (uint64_t)res->ival[1], hi = (uint64_t)res->ival[2];
    bool ok = true;
    switch (c->expect) {
    case EXPECT_EXACT:
        ok = count == c->want_rows && (count == 0 || (lo == 1 && hi == c->want_rows));
        break;
    case EXPECT_AT_LEAST:
        ok = count >= c->want_rows;
        break;
    case EXPECT_EXISTS:
        break;
    }
    if (ok)
        return NULL;
    snprintf(c->msg, sizeof c->msg,
             "check sbtest%u: %llu rows with ids %llu..%llu, expected %s%llu rows%s; run cleanup "
             "and prepare again with the same --tables and --table_size",
             t, (unsigned long long)count, (unsigned long long)lo, (unsigned long long)hi,
             c->expect == EXPECT_AT_LEAST ? "at least " : "", (unsigned long long)c->want_rows,
             c->expect == EXPECT_EXACT ? " with ids 1..--table_size" : "");
    return c->msg;
}

struct ag_piece ag_sb_check_piece(ag_sb_check *c)
{
    return (struct ag_piece){.it = c, .next = check_next, .result = check_result};
}
