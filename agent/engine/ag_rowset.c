/* ag_rowset: filling a struct ag_rowset (ag_family.h) from a stored MySQL
 * result, for ag_result. See ag_result.h. No I/O: the rows are stored. */
#include <stdlib.h>
#include <string.h>

#include "ag_result.h"

void ag_rowset_clear(struct ag_rowset *rs)
{
    rs->nrows = 0;
    rs->ncols = 0;
    rs->text_len = 0;
}

void ag_rowset_free(struct ag_rowset *rs)
{
    free(rs->text);
    free(rs->off);
    free(rs->len);
    memset(rs, 0, sizeof *rs);
}

/* Room for cells more cells and bytes more bytes of text. */
static void reserve(struct ag_rowset *rs, size_t cells, size_t bytes)
{
    if (cells > rs->cells_cap) {
        rs->cells_cap = cells > 2 * rs->cells_cap ? cells : 2 * rs->cells_cap;
        rs->off = pr_xrealloc(rs->off, rs->cells_cap * sizeof *rs->off);
        rs->len = pr_xrealloc(rs->len, rs->cells_cap * sizeof *rs->len);
    }
    if (rs->text_len + bytes > rs->text_cap) {
        size_t need = rs->text_len + bytes;
        rs->text_cap = need > 2 * rs->text_cap ? need : 2 * rs->text_cap;
        rs->text = pr_xrealloc(rs->text, rs->text_cap);
    }
}

/* Cell i: len bytes at s (NULL: SQL NULL), copied with its NUL. */
static void put(struct ag_rowset *rs, size_t i, const char *s, size_t len)
{
    if (s == NULL) {
        rs->off[i] = AG_ROWSET_NULL;
        rs->len[i] = 0;
        return;
    }
    reserve(rs, 0, len + 1);
    memmove(rs->text + rs->text_len, s, len); /* s may be there already */
    rs->text[rs->text_len + len] = '\0';
    rs->off[i] = rs->text_len;
    rs->len[i] = (uint32_t)len;
    rs->text_len += len + 1;
}

void ag_rowset_from_res(struct ag_rowset *rs, MYSQL_RES *res)
{
    unsigned nf = mysql_num_fields(res);
    uint64_t n = mysql_num_rows(res);
    MYSQL_ROW row;

    ag_rowset_clear(rs);
    rs->ncols = nf;
    reserve(rs, (size_t)n * nf, 0);
    while (rs->nrows < n && (row = mysql_fetch_row(res)) != NULL) {
        unsigned long *len = mysql_fetch_lengths(res);
        for (unsigned c = 0; c < nf; c++)
            put(rs, (size_t)rs->nrows * nf + c, row[c], row[c] ? len[c] : 0);
        rs->nrows++;
    }
    mysql_data_seek(res, 0);
}

void ag_rowset_from_stmt(struct ag_rowset *rs, MYSQL_STMT *st, MYSQL_BIND *binds, uint32_t n,
                         const unsigned long *len, const my_bool *null)
{
    uint64_t rows = mysql_stmt_num_rows(st);
    int rc;

    ag_rowset_clear(rs);
    rs->ncols = n;
    reserve(rs, (size_t)rows * n, 0);
    while (rs->nrows < rows && ((rc = mysql_stmt_fetch(st)) == 0 || rc == MYSQL_DATA_TRUNCATED)) {
        for (uint32_t c = 0; c < n; c++) {
            size_t i = (size_t)rs->nrows * n + c;
            if (null[c]) {
                put(rs, i, NULL, 0);
                continue;
            }
            if (len[c] <= binds[c].buffer_length && binds[c].buffer != NULL) {
                put(rs, i, binds[c].buffer, len[c]);
                continue;
            }
            /* longer than the first-row buffer: the whole value, fetched again */
            reserve(rs, 0, len[c] + 1);
            MYSQL_BIND b = {0};
            unsigned long got = 0;
            b.buffer_type = MYSQL_TYPE_STRING;
            b.buffer = rs->text + rs->text_len;
            b.buffer_length = len[c] + 1;
            b.length = &got;
            if (mysql_stmt_fetch_column(st, &b, c, 0) != 0)
                got = 0;
            put(rs, i, rs->text + rs->text_len, got < len[c] ? got : len[c]);
        }
        rs->nrows++;
    }
    mysql_stmt_data_seek(st, 0);
}

void ag_rowset_from_stmt_wide(struct ag_rowset *rs, MYSQL_STMT *st, unsigned nf)
{
    MYSQL_BIND *b = pr_xcalloc(nf, sizeof *b);
    unsigned long *len = pr_xcalloc(nf, sizeof *len);
    my_bool *null = pr_xcalloc(nf, sizeof *null);

    ag_rowset_clear(rs);
    for (unsigned c = 0; c < nf; c++) { /* no buffer: each value by its length */
        b[c].buffer_type = MYSQL_TYPE_STRING;
        b[c].length = &len[c];
        b[c].is_null = &null[c];
    }
    if (mysql_stmt_bind_result(st, b) == 0)
        ag_rowset_from_stmt(rs, st, b, nf, len, null);
    free(null);
    free(len);
    free(b);
}
