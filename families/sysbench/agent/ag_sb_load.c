/* ag_sb_load: sysbench's prepare/cleanup/prewarm statements. See ag_sb_load.h. */
#include "ag_sb_load.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_rand.h"

#define BULK_BYTES 524288 /* db_bulk_insert buffer, NUL included */

static const char c_tmpl[] = "###########-###########-###########-###########-###########-"
                             "###########-###########-###########-###########-###########";
static const char pad_tmpl[] = "###########-###########-###########-###########-###########";
#define C_LEN   (sizeof c_tmpl - 1)
#define PAD_LEN (sizeof pad_tmpl - 1)

enum load_cmd { CMD_PREPARE, CMD_CLEANUP, CMD_PREWARM };

/* Prepare steps in order. */
enum prep_step { ST_CREATE, ST_ROWS, ST_INDEX, ST_DONE };

struct ag_sb_load {
    enum load_cmd cmd;        /* which command */
    const ag_sb_workload *wl; /* borrowed */
    uint32_t table_size;      /* --table_size */
    /* cleanup / prewarm */
    uint32_t *tables; /* table numbers, owned */
    size_t ntables;   /* their count */
    size_t pos;       /* statements emitted so far */
    /* prepare */
    struct ag_sb_load_piece piece;  /* what to load */
    enum prep_step step;            /* where we are */
    bool bulk_ddl;                  /* bulk_insert's own table */
    bool with_id;                   /* id column in the INSERTs */
    bool first_insert;              /* the next INSERT is the piece's first */
    uint64_t next_id;               /* next row id to generate */
    struct ag_dist dist;            /* --rand-type for k */
    struct ag_rand rng;             /* row data */
    char *buf;                      /* statement buffer (BULK_BYTES) */
    size_t len, prefix;             /* used bytes, INSERT prefix length */
    uint64_t rows;                  /* rows in buf */
    bool reset_pending;             /* buf was emitted: restart it */
    char row[C_LEN + PAD_LEN + 64]; /* generated row not yet appended */
    size_t row_len;
    bool row_ready;
    char note[128]; /* console line for the statement */
};

size_t ag_sb_load_tables_for(uint32_t tables, uint32_t conn, uint32_t conns, uint32_t *out,
                             size_t cap)
{
    size_t n = 0;

    if (conns == 0)
        return 0;
    for (uint64_t t = conn % conns + 1; t <= tables; t += conns) {
        if (n < cap)
            out[n] = (uint32_t)t;
        n++;
    }
    return n;
}

static ag_sb_load *load_new(const ag_sb_workload *wl, enum load_cmd cmd)
{
    ag_sb_load *l = pr_xcalloc(1, sizeof *l);
    int64_t ts = pr_opts_int(ag_sb_workload_opts(wl), "table_size");

    l->cmd = cmd;
    l->wl = wl;
    l->table_size = ts < 0 ? 0 : ts > UINT32_MAX ? UINT32_MAX : (uint32_t)ts;
    l->buf = pr_xmalloc(BULK_BYTES);
    return l;
}

static ag_sb_load *list_new(const ag_sb_workload *wl, enum load_cmd cmd, const uint32_t *tables,
                            size_t n)
{
    ag_sb_load *l = load_new(wl, cmd);

    l->tables = pr_xmalloc((n ? n : 1) * sizeof *tables);
    if (n)
        memcpy(l->tables, tables, n * sizeof *tables);
    l->ntables = n;
    return l;
}

ag_sb_load *ag_sb_load_cleanup_new(const ag_sb_workload *wl, const uint32_t *tables, size_t n)
{
    return list_new(wl, CMD_CLEANUP, tables, n);
}

ag_sb_load *ag_sb_load_prewarm_new(const ag_sb_workload *wl, const uint32_t *tables, size_t n)
{
    return list_new(wl, CMD_PREWARM, tables, n);
}

void ag_sb_load_destroy(ag_sb_load **l)
{
    if (!*l)
        return;
    free((*l)->tables);
    free((*l)->buf);
    free(*l);
    *l = NULL;
}

static bool emit(ag_sb_load *l, struct ag_sb_load_stmt *out, size_t len, bool note, uint64_t rows)
{
    out->text = l->buf;
    out->text_len = len;
    out->note = note ? l->note : NULL;
    out->rows = rows;
    return true;
}

static bool cleanup_next(ag_sb_load *l, struct ag_sb_load_stmt *out)
{
    if (l->pos >= l->ntables)
        return false;
    uint32_t t = l->tables[l->pos++];
    snprintf(l->note, sizeof l->note, "Dropping table 'sbtest%u'...", t);
    int n = snprintf(l->buf, BULK_BYTES, "DROP TABLE IF EXISTS sbtest%u", t);
    return emit(l, out, (size_t)n, true, 0);
}

/* cmd_prewarm: two SETs, then three statements per table. */
static bool prewarm_next(ag_sb_load *l, struct ag_sb_load_stmt *out)
{
    static const char *const sets[] = {"SET tmp_table_size=2*1024*1024*1024",
                                       "SET max_heap_table_size=2*1024*1024*1024"};
    size_t i = l->pos++;
    int n;

    if (i < 2) {
        n = snprintf(l->buf, BULK_BYTES, "%s", sets[i]);
        return emit(l, out, (size_t)n, false, 0);
    }
    i -= 2;
    if (i / 3 >= l->ntables)
        return false;
    uint32_t t = l->tables[i / 3];
    switch (i % 3) {
    case 0:
        snprintf(l->note, sizeof l->note, "Prewarming table sbtest%u", t);
        n = snprintf(l->buf, BULK_BYTES, "ANALYZE TABLE sbtest%u", t);
        return emit(l, out, (size_t)n, true, 0);
    case 1:
        n = snprintf(l->buf, BULK_BYTES,
                     "SELECT AVG(id) FROM (SELECT * FROM sbtest%u FORCE KEY (PRIMARY) LIMIT %u) t",
                     t, l->table_size);
        break;
    default:
        n = snprintf(
            l->buf, BULK_BYTES,
            "SELECT COUNT(*) FROM (SELECT * FROM sbtest%u WHERE k LIKE '%%0%%' LIMIT %u) t", t,
            l->table_size);
        break;
    }
    return emit(l, out, (size_t)n, false, 0);
}

/* create_table()'s DDL (oltp_common) or bulk_insert's prepare(). */
static size_t ddl(ag_sb_load *l)
{
    const pr_opts *o = ag_sb_workload_opts(l->wl);
    uint32_t t = l->piece.table;

    snprintf(l->note, sizeof l->note, "Creating table 'sbtest%u'...", t);
    if (l->bulk_ddl)
        return (size_t)snprintf(l->buf, BULK_BYTES,
                                "        CREATE TABLE IF NOT EXISTS sbtest%u (\n"
                                "          id INTEGER NOT NULL,\n"
                                "          k INTEGER DEFAULT '0' NOT NULL,\n"
                                "          PRIMARY KEY (id))",
                                t);
    return (size_t)snprintf(
        l->buf, BULK_BYTES,
        "CREATE TABLE sbtest%u(\n"
        "  id %s,\n"
        "  k INTEGER DEFAULT '0' NOT NULL,\n"
        "  c CHAR(120) DEFAULT '' NOT NULL,\n"
        "  pad CHAR(60) DEFAULT '' NOT NULL,\n"
        "  %s (id)\n"
        ") /*! ENGINE = %s */ ",
        t, pr_opts_bool(o, "auto_inc") ? "INTEGER NOT NULL AUTO_INCREMENT" : "INTEGER NOT NULL",
        pr_opts_bool(o, "secondary") ? "KEY xid" : "PRIMARY KEY",
        pr_opts_str(o, "mysql_storage_engine"));
}

/* One row, drawn as sysbench does: c, pad, then k. */
static void make_row(ag_sb_load *l)
{
    char c[C_LEN], pad[PAD_LEN];

    ag_rand_string(&l->rng, c_tmpl, C_LEN, c);
    ag_rand_string(&l->rng, pad_tmpl, PAD_LEN, pad);
    uint32_t k = ag_dist_draw(&l->dist, &l->rng, 1, l->table_size);
    if (l->with_id)
        l->row_len =
            (size_t)snprintf(l->row, sizeof l->row, "(%llu, %u, '%.*s', '%.*s')",
                             (unsigned long long)l->next_id, k, (int)C_LEN, c, (int)PAD_LEN, pad);
    else
        l->row_len = (size_t)snprintf(l->row, sizeof l->row, "(%u, '%.*s', '%.*s')", k, (int)C_LEN,
                                      c, (int)PAD_LEN, pad);
    l->next_id++;
    l->row_ready = true;
}

/* Emit the INSERT in buf (rows > 0); the buffer restarts on the next call. */
static bool flush_rows(ag_sb_load *l, struct ag_sb_load_stmt *out)
{
    bool note = l->first_insert && l->piece.create_table;

    if (note)
        snprintf(l->note, sizeof l->note, "Inserting %u records into 'sbtest%u'", l->table_size,
                 l->piece.table);
    l->first_insert = false;
    l->reset_pending = true;
    return emit(l, out, l->len, note, l->rows);
}

/* The row loop of create_table(): db_bulk_insert_next's rule is to flush
 * before a row when len + row + 1 (NUL) + 1 (comma) would exceed 512 KiB. */
static bool rows_next(ag_sb_load *l, struct ag_sb_load_stmt *out)
{
    if (l->reset_pending) {
        l->len = l->prefix;
        l->rows = 0;
        l->reset_pending = false;
    }
    for (;;) {
        if (!l->row_ready) {
            if (l->next_id > l->piece.id_hi || l->piece.id_hi < l->piece.id_lo)
                break;
            make_row(l);
        }
        if (l->rows > 0 && l->len + l->row_len + 1 + 1 > BULK_BYTES)
            return flush_rows(l, out);
        if (l->rows > 0)
            l->buf[l->len++] = ',';
        memcpy(l->buf + l->len, l->row, l->row_len);
        l->len += l->row_len;
        l->buf[l->len] = '\0';
        l->rows++;
        l->row_ready = false;
    }
    l->step = ST_INDEX;
    if (l->rows > 0)
        return flush_rows(l, out);
    return false;
}

static void start_rows(ag_sb_load *l)
{
    l->len = (size_t)snprintf(l->buf, BULK_BYTES, "INSERT INTO sbtest%u%s VALUES", l->piece.table,
                              l->with_id ? "(id, k, c, pad)" : "(k, c, pad)");
    l->prefix = l->len;
    l->rows = 0;
    l->reset_pending = false;
}

static bool prepare_next(ag_sb_load *l, struct ag_sb_load_stmt *out)
{
    switch (l->step) {
    case ST_CREATE:
        l->step = ST_ROWS;
        if (l->piece.create_table)
            return emit(l, out, ddl(l), true, 0);
        /* fall through */
    case ST_ROWS:
        if (l->len == 0)
            start_rows(l);
        if (rows_next(l, out))
            return true;
        /* fall through */
    case ST_INDEX: {
        l->step = ST_DONE;
        uint32_t t = l->piece.table;
        if (!l->piece.create_index || l->bulk_ddl ||
            !pr_opts_bool(ag_sb_workload_opts(l->wl), "create_secondary"))
            return false;
        snprintf(l->note, sizeof l->note, "Creating a secondary index on 'sbtest%u'...", t);
        int n = snprintf(l->buf, BULK_BYTES, "CREATE INDEX k_%u ON sbtest%u(k)", t, t);
        return emit(l, out, (size_t)n, true, 0);
    }
    case ST_DONE:
        break;
    }
    return false;
}

ag_sb_load *ag_sb_load_prepare_new(const ag_sb_workload *wl, const struct ag_sb_load_piece *piece,
                                   uint64_t seed, struct pr_error *err)
{
    const pr_opts *o = ag_sb_workload_opts(wl);
    const char *name = ag_sb_workload_name(wl);
    bool has_rows = piece->id_hi >= piece->id_lo;

    if (piece->table < 1)
        return pr_error_set(err, PR_EINVAL, "prepare: table number must be >= 1"), NULL;
    if (has_rows && (piece->id_lo < 1 || piece->id_hi > (uint64_t)pr_opts_int(o, "table_size")))
        return pr_error_set(err, PR_EINVAL, "prepare: ids %llu..%llu outside 1..--table_size",
                            (unsigned long long)piece->id_lo, (unsigned long long)piece->id_hi),
               NULL;
    ag_sb_load *l = load_new(wl, CMD_PREPARE);
    l->piece = *piece;
    l->bulk_ddl = strcmp(name, "bulk_insert") == 0;
    /* bulk_insert creates empty tables; oltp_insert with auto_inc off
     * forces table_size=0 so unique() ids cannot collide. */
    if (l->bulk_ddl || (strcmp(name, "oltp_insert") == 0 && !pr_opts_bool(o, "auto_inc")))
        l->piece.id_hi = 0, l->piece.id_lo = 1;
    l->with_id = !pr_opts_bool(o, "auto_inc") || piece->explicit_ids;
    l->first_insert = true;
    l->next_id = l->piece.id_lo;
    ag_rand_init(&l->rng, seed);
    if (ag_dist_init(&l->dist, pr_opts_str(o, "rand-type"), pr_opts_int(o, "rand-spec-iter"),
                     pr_opts_int(o, "rand-spec-pct"), pr_opts_int(o, "rand-spec-res"),
                     pr_opts_double(o, "rand-pareto-h"), pr_opts_double(o, "rand-zipfian-exp"),
                     err) < 0)
        ag_sb_load_destroy(&l); /* cannot happen: ag_sb_workload_new validated these */
    return l;
}

bool ag_sb_load_next(ag_sb_load *l, struct ag_sb_load_stmt *out)
{
    switch (l->cmd) {
    case CMD_PREPARE:
        return prepare_next(l, out);
    case CMD_CLEANUP:
        return cleanup_next(l, out);
    case CMD_PREWARM:
        return prewarm_next(l, out);
    }
    return false;
}

static bool piece_next(void *it, const char **sql, size_t *sql_len, uint64_t *rows)
{
    struct ag_sb_load_stmt st;

    if (!ag_sb_load_next(it, &st))
        return false;
    *sql = st.text;
    *sql_len = st.text_len;
    *rows = st.rows;
    return true;
}

struct ag_piece ag_sb_load_piece(ag_sb_load *l)
{
    return (struct ag_piece){.it = l, .next = piece_next};
}
