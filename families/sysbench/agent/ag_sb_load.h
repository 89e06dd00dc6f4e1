/* ag_sb_load: the text statements of sysbench's prepare, cleanup and prewarm
 * commands (docs/design.md §13.1, Data set), as iterators. No I/O.
 *
 * Each iterator yields, in order, the statements one connection executes.
 * Statement texts are exact: the CREATE TABLE DDL (with its newlines,
 * two-space indents and trailing space), multi-row INSERTs batched in a
 * 512 KiB buffer as db_bulk_insert_next does (2716 rows per statement for
 * 4-digit k), rows generated in sysbench's draw order (c, pad, then k),
 * CREATE INDEX k_N ON sbtestN(k), DROP TABLE IF EXISTS sbtestN, the prewarm
 * SETs and queries, and bulk_insert's own CREATE TABLE IF NOT EXISTS.
 *
 * Pieces. A prepare piece covers table N, ids id_lo..id_hi. With
 * --auto_inc=on sysbench omits the id column and lets the server number rows
 * 1..table_size; that only works when one connection loads the whole table
 * in order. When a table is split into several pieces loaded concurrently,
 * the caller sets explicit_ids: the id column is then inserted even with
 * auto_inc on, which leaves the same data shape (ids 1..table_size, the
 * AUTO_INCREMENT counter moves past the largest id). The coordinator creates
 * the table in exactly one piece and the index after every piece of the
 * table is loaded (a piece with create_index and no rows).
 *
 * As sysbench, oltp_insert with --auto_inc=off loads no rows (table_size is
 * forced to 0) and bulk_insert creates empty tables.
 * Deviations: prepare data comes from a seeded xoroshiro128+ (sysbench's is
 * unseeded), so a prepare is reproducible; select_random_*
 * cleanup does not assert --tables=1. Verified against the real sysbench's
 * general log: identical DDL and identical batch shapes (rows and bytes per
 * INSERT).
 */
#ifndef AG_SB_LOAD_H
#define AG_SB_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ag_sb_workload.h"

/* One piece of a prepare: plain data, chosen by the coordinator. */
struct ag_sb_load_piece {
    uint32_t table;    /* table number N of sbtestN, >= 1 */
    uint64_t id_lo;    /* first id of the piece (>= 1) */
    uint64_t id_hi;    /* last id, inclusive; id_hi < id_lo means no rows */
    bool create_table; /* emit CREATE TABLE first */
    bool create_index; /* emit CREATE INDEX last (when --create_secondary=on) */
    bool explicit_ids; /* insert the id column even with --auto_inc=on */
};

/* One statement to execute (text protocol). Buffers belong to the iterator
 * and stay valid until its next call. */
struct ag_sb_load_stmt {
    const char *text; /* the statement, NUL terminated */
    size_t text_len;  /* strlen(text) */
    const char *note; /* sysbench's console line to print before it, or NULL */
    uint64_t rows;    /* rows an INSERT carries (progress), else 0 */
};

typedef struct ag_sb_load ag_sb_load;

/* Prepare statements for one piece of wl's data. seed seeds the row data.
 * Returns NULL with err filled (PR_EINVAL) on a bad piece (table 0, ids
 * beyond --table_size). Caller owns the result; wl must outlive it. */
ag_sb_load *ag_sb_load_prepare_new(const ag_sb_workload *wl, const struct ag_sb_load_piece *piece,
                                   uint64_t seed, struct pr_error *err);

/* Cleanup: DROP TABLE IF EXISTS sbtestN for each of tables[0..n). The
 * tables are copied. Caller owns the result. */
ag_sb_load *ag_sb_load_cleanup_new(const ag_sb_workload *wl, const uint32_t *tables, size_t n);

/* Prewarm on one connection: the two session SETs, then for each of
 * tables[0..n) ANALYZE TABLE and the two full-scan SELECTs. Caller owns. */
ag_sb_load *ag_sb_load_prewarm_new(const ag_sb_workload *wl, const uint32_t *tables, size_t n);

/* Next statement into *out; false when there are no more. */
bool ag_sb_load_next(ag_sb_load *l, struct ag_sb_load_stmt *out);

/* A command stream over l (struct ag_piece: it, next); l is borrowed and
 * must outlive the run. */
struct ag_piece ag_sb_load_piece(ag_sb_load *l);

/* Free *l and NULL it. */
void ag_sb_load_destroy(ag_sb_load **l);

/* Tables connection `conn` of `conns` handles in sysbench's parallel
 * prepare/prewarm (round robin: conn+1, conn+1+conns, ... <= tables). Writes
 * up to cap numbers into out; returns how many there are in total. */
size_t ag_sb_load_tables_for(uint32_t tables, uint32_t conn, uint32_t conns, uint32_t *out,
                             size_t cap);

#endif
