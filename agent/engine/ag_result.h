/* ag_result: filling a struct ag_result (ag_family.h) from a MySQL result,
 * for ag_conn. No I/O: only stored (buffered) results are read. No
 * allocation: text goes into the caller's buffer of AG_RESULT_BUF bytes. */
#ifndef AG_RESULT_H
#define AG_RESULT_H

#include <mysql.h>

#include "ag_family.h"

/* Forget everything but nothing else: a success with no rows (row_ival
 * and nrow_ival untouched). */
void ag_result_reset(struct ag_result *r);

/* Keep the first column of every row (AG_WANT_ROWS) of the next result
 * read into r: rows is the caller's array of AG_RESULT_MAX_ROWS entries;
 * NULL keeps none. Sets nrow_ival to 0. */
void ag_result_keep_rows(struct ag_result *r, int64_t *rows);

/* A text query's stored result set: its row count and first row (and,
 * after ag_result_keep_rows, every row's first column). */
void ag_result_from_res(struct ag_result *r, char *buf, MYSQL_RES *res);

/* A prepared statement's stored result set (after mysql_stmt_store_result):
 * its row count and first row. binds: AG_RESULT_MAX_COLS entries of
 * scratch. Leaves the statement's result bound to buf (rebound each time). */
void ag_result_from_stmt(struct ag_result *r, char *buf, MYSQL_STMT *st, MYSQL_BIND *binds);

/* ---- struct ag_rowset (ag_rowset.c) ---- */

/* Empty (no rows), keeping the memory. */
void ag_rowset_clear(struct ag_rowset *rs);
/* Free the memory; rs is empty and reusable after. */
void ag_rowset_free(struct ag_rowset *rs);
/* Every row and column of a stored text result, then back to its first
 * row. */
void ag_rowset_from_res(struct ag_rowset *rs, MYSQL_RES *res);
/* Every row of a stored statement result whose n columns are bound to
 * binds (lengths len, null flags null, as ag_result_from_stmt binds them);
 * a value longer than its buffer is fetched whole. Then back to the first
 * row. */
void ag_rowset_from_stmt(struct ag_rowset *rs, MYSQL_STMT *st, MYSQL_BIND *binds, uint32_t n,
                         const unsigned long *len, const my_bool *null);
/* The same for a stored statement result of nf columns, more than
 * AG_RESULT_MAX_COLS (ag_result_from_stmt binds no row then): binds every
 * column itself, values fetched by length. */
void ag_rowset_from_stmt_wide(struct ag_rowset *rs, MYSQL_STMT *st, unsigned nf);

#endif
