/* ag_result: a MySQL result read into a struct ag_result (ag_family.h),
 * for ag_conn: stored results only, text into the caller's buffer. */
#include "ag_result.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The connection sets the array before a read; row_ival is const in
 * struct ag_result because the generator only reads it. */
void ag_result_keep_rows(struct ag_result *r, int64_t *rows)
{
    r->row_ival = rows;
    r->nrow_ival = 0;
}

static int64_t *rows_of(struct ag_result *r)
{
    return (int64_t *)(uintptr_t)r->row_ival;
}

void ag_result_reset(struct ag_result *r)
{
    r->err_no = 0;
    r->errmsg = "";
    r->rows = 0;
    r->affected = 0;
    r->insert_id = 0;
    r->ncols = 0;
    r->truncated = false;
}

/* Column i's numeric value, when its type is numeric. */
static void parse_num(struct ag_result *r, uint32_t i, enum enum_field_types type)
{
    r->is_num[i] = false;
    if (r->col[i] == NULL || !IS_NUM(type))
        return;
    char *end;
    r->dval[i] = strtod(r->col[i], &end);
    r->ival[i] = strtoll(r->col[i], NULL, 10);
    r->is_num[i] = end != r->col[i];
}

/* Copy column i (len bytes at s, NULL for SQL NULL) into buf at *used. */
static void put_col(struct ag_result *r, char *buf, size_t *used, uint32_t i, const char *s,
                    size_t len)
{
    if (s == NULL) {
        r->col[i] = NULL;
        r->col_len[i] = 0;
        return;
    }
    size_t room = AG_RESULT_BUF - *used - 1;
    if (len > room) {
        len = room;
        r->truncated = true;
    }
    memcpy(buf + *used, s, len);
    buf[*used + len] = '\0';
    r->col[i] = buf + *used;
    r->col_len[i] = (uint32_t)len;
    *used += len + 1;
}

/* AG_WANT_ROWS on a text result: every row's first column, then back to
 * the first row. Stored rows: no I/O. */
static void keep_rows_res(struct ag_result *r, MYSQL_RES *res)
{
    int64_t *out = rows_of(r);
    MYSQL_ROW row;

    while (r->nrow_ival < AG_RESULT_MAX_ROWS && (row = mysql_fetch_row(res)) != NULL)
        out[r->nrow_ival++] = row[0] ? strtoll(row[0], NULL, 10) : 0;
    r->truncated = r->truncated || r->nrow_ival < r->rows;
    mysql_data_seek(res, 0);
}

void ag_result_from_res(struct ag_result *r, char *buf, MYSQL_RES *res)
{
    unsigned nf = mysql_num_fields(res);
    MYSQL_FIELD *f = mysql_fetch_fields(res);
    size_t used = 0;

    r->rows = mysql_num_rows(res);
    r->ncols = 0;
    if (r->rows == 0)
        return;
    if (r->row_ival && nf > 0)
        keep_rows_res(r, res);
    if (r->rowset)
        ag_rowset_from_res(r->rowset, res);
    MYSQL_ROW row = mysql_fetch_row(res);
    unsigned long *len = mysql_fetch_lengths(res);
    if (row == NULL || len == NULL)
        return;
    r->ncols = nf > AG_RESULT_MAX_COLS ? AG_RESULT_MAX_COLS : nf;
    r->truncated = r->truncated || nf > AG_RESULT_MAX_COLS; /* keep_rows_res may have set it */
    for (uint32_t i = 0; i < r->ncols; i++) {
        put_col(r, buf, &used, i, row[i], len[i]);
        parse_num(r, i, f[i].type);
    }
}

void ag_result_from_stmt(struct ag_result *r, char *buf, MYSQL_STMT *st, MYSQL_BIND *binds)
{
    unsigned nf = mysql_stmt_field_count(st);
    uint32_t n = nf > AG_RESULT_MAX_COLS ? AG_RESULT_MAX_COLS : nf;
    unsigned long len[AG_RESULT_MAX_COLS];
    my_bool null[AG_RESULT_MAX_COLS], err[AG_RESULT_MAX_COLS];
    size_t per = AG_RESULT_BUF / (n ? n : 1);

    r->rows = mysql_stmt_num_rows(st);
    r->ncols = 0;
    if (r->rows == 0 || n == 0 || n < nf) {
        if (r->rowset && r->rows > 0 && n < nf) /* a Lua script's: every column */
            ag_rowset_from_stmt_wide(r->rowset, st, nf);
        return; /* binding fewer columns than the result has is an error */
    }
    memset(binds, 0, n * sizeof *binds);
    for (uint32_t i = 0; i < n; i++) {
        binds[i].buffer_type = MYSQL_TYPE_STRING;
        binds[i].buffer = buf + i * per;
        binds[i].buffer_length = per;
        binds[i].length = &len[i];
        binds[i].is_null = &null[i];
        binds[i].error = &err[i];
    }
    if (mysql_stmt_bind_result(st, binds) != 0)
        return;
    if (r->rowset)
        ag_rowset_from_stmt(r->rowset, st, binds, n, len, null);
    if (r->row_ival) { /* AG_WANT_ROWS: every row's first column, then the first row */
        int64_t *out = rows_of(r);
        int frc;
        while (r->nrow_ival < AG_RESULT_MAX_ROWS &&
               ((frc = mysql_stmt_fetch(st)) == 0 || frc == MYSQL_DATA_TRUNCATED)) {
            size_t l = len[0] < per ? len[0] : per - 1;
            buf[l] = '\0';
            out[r->nrow_ival++] = null[0] ? 0 : strtoll(buf, NULL, 10);
        }
        r->truncated = r->truncated || r->nrow_ival < r->rows;
        mysql_stmt_data_seek(st, 0);
    }
    int rc = mysql_stmt_fetch(st); /* from the stored rows: no I/O */
    if (rc != 0 && rc != MYSQL_DATA_TRUNCATED)
        return;
    r->ncols = n;
    for (uint32_t i = 0; i < n; i++) {
        if (null[i]) {
            r->col[i] = NULL;
            r->col_len[i] = 0;
            r->is_num[i] = false;
            continue;
        }
        size_t l = len[i] < per ? len[i] : per - 1;
        r->truncated = r->truncated || len[i] >= per;
        buf[i * per + l] = '\0';
        r->col[i] = buf + i * per;
        r->col_len[i] = (uint32_t)l;
        parse_num(r, i, st->fields[i].type);
    }
}
