/* ag_tc_schema: tpcc-mysql's schema as statement streams
 * (docs/design.md §13.2): create_table.sql's 9 tables (table new_orders,
 * its types, column order and primary keys, ENGINE=InnoDB), add_fkey_idx.sql's
 * 4 indexes and 10 foreign keys, the drops of cleanup, and the probe that
 * tells a missing or foreign table before any statement touches it.
 *
 * The statements are our own text with the scripts' effect; like the
 * scripts, the create, index and drop streams run with FOREIGN_KEY_CHECKS=0
 * (so tables with foreign keys drop in any order and ADD FOREIGN KEY is an
 * in-place change that does not re-read the rows) and UNIQUE_CHECKS=0.
 * No I/O: the streams are struct ag_piece iterators.
 */
#ifndef AG_TC_SCHEMA_H
#define AG_TC_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "ag_family.h"

/* The 9 tables, in create_table.sql's order. */
enum ag_tc_table {
    AG_TC_WAREHOUSE,
    AG_TC_DISTRICT,
    AG_TC_CUSTOMER,
    AG_TC_HISTORY,
    AG_TC_NEW_ORDERS,
    AG_TC_ORDERS,
    AG_TC_ORDER_LINE,
    AG_TC_ITEM,
    AG_TC_STOCK,
    AG_TC_TABLE_COUNT_
};

#define AG_TC_ALL_TABLES ((1u << AG_TC_TABLE_COUNT_) - 1) /* a mask of every table */

/* The table's name ("new_orders"); "?" out of range. Static. */
const char *ag_tc_table_name(enum ag_tc_table t);

/* Its number of columns in create_table.sql (warehouse 9, ..., stock 17). */
unsigned ag_tc_table_ncols(enum ag_tc_table t);

/* The probe: one SELECT returning, for each table of mask (1 << enum
 * ag_tc_table bits) that is missing from the current database, or with
 * columns has another column count than create_table.sql's, a row (name,
 * expected columns, columns found: 0 when missing), in table order.
 * Without columns it reads information_schema.TABLES only (no on-disk
 * temporary table: what every load stream sends); with columns
 * information_schema.COLUMNS (check). Written into buf (NUL terminated);
 * returns its length, or 0 when cap is too small (1 KiB is enough). */
size_t ag_tc_schema_probe_sql(unsigned mask, bool columns, char *buf, size_t cap);

/* Reads the probe's result: NULL when every table is there, else the
 * message that fails the command (in msg, cap bytes): "table X does not
 * exist: run `stampede tpcc prepare` first" or "table X has N columns,
 * tpcc-mysql's has M: ...". */
const char *ag_tc_schema_probe_check(const struct ag_result *res, char *msg, size_t cap);

/* A stream of the schema's fixed statements. */
typedef struct ag_tc_script ag_tc_script;

/* prepare's create phase: SET FOREIGN_KEY_CHECKS=0, UNIQUE_CHECKS=0, then
 * DROP TABLE IF EXISTS and CREATE TABLE for each of the 9 tables. */
ag_tc_script *ag_tc_schema_create_new(void);

/* prepare's index phase: add_fkey_idx.sql's 4 CREATE INDEX and 10 ALTER
 * TABLE ... ADD CONSTRAINT ... FOREIGN KEY, then a count of the foreign
 * keys the server kept: fewer than 10 fails the command ("the server kept
 * N of tpcc-mysql's 10 foreign keys ... use --foreign-keys=off"). */
ag_tc_script *ag_tc_schema_index_new(void);

/* cleanup: DROP TABLE IF EXISTS of the 9 tables. */
ag_tc_script *ag_tc_schema_drop_new(void);

/* Free a script (also the destroy of its piece). NULL is fine. */
void ag_tc_script_destroy(void *s);

/* The stream over s (it, next, result); s is borrowed. */
struct ag_piece ag_tc_script_piece(ag_tc_script *s);

#endif
