/* pr_tc_opts: the tpcc family's options (pr_opts' PR_WL_TPCC entries) as
 * typed values, checked once, the same way on the coordinator (command
 * line) and on the agent (PLAN). Pure parsing: no mysql, no uv.
 */
#ifndef PR_TC_OPTS_H
#define PR_TC_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_opts.h"

#define PR_TC_MAX_WAREHOUSES 32767 /* w_id is a smallint (create_table.sql) */

#define PR_TC_MAX_SCHEMAS       10000      /* --multi-schema: the agent keeps a name per schema */
#define PR_TC_MAX_SCHEMA_OFFSET 1000000000 /* --multi-schema-offset */

/* The option rows themselves (PR_TC_OPT_ROWS): pr_tc_opt_rows.h. */

/* TPC-C's row counts (docs/design.md §13.2). */
#define PR_TC_ITEMS         100000u
#define PR_TC_DIST_PER_WARE 10u
#define PR_TC_CUST_PER_DIST 3000u
#define PR_TC_ORD_PER_DIST  3000u
#define PR_TC_NEW_ORD_FIRST 2101u /* orders 2101..3000 of a district are new */

/* The five transactions, in tpcc-mysql's order (its index 0..4), which is
 * also the order of the family's first five kinds. */
enum pr_tc_txn {
    PR_TC_NEW_ORDER,
    PR_TC_PAYMENT,
    PR_TC_ORDER_STATUS,
    PR_TC_DELIVERY,
    PR_TC_STOCK_LEVEL,
    PR_TC_TXN_COUNT_
};

/* The family's kinds (READY.kinds), in this order:
 *   0..4  the transactions (event kinds): count = completed (committed, or
 *         New-Order's 1% rolled back on purpose), errors = given up (failed
 *         after --max-retries attempts), latency = first attempt to success.
 *   5..9  "<txn>_stmt": that transaction type's statements (COMMIT and
 *         ROLLBACK excepted): count = succeeded, errors = failed (each
 *         failed attempt of a transaction ends with one: the retries).
 *   10    "commit": COMMIT statements (Delivery sends one per district).
 *   11    "rollback": ROLLBACK on purpose (New-Order's invalid item).
 *   12    "retry_rollback": ROLLBACK after a failed statement.
 * So the server cross-check is delta(Com_commit) + delta(Com_rollback) ==
 * commit + rollback + retry_rollback counts, and New-Order commits are
 * new_order - rollback. */
enum pr_tc_kind {
    PR_TC_K_NEW_ORDER,
    PR_TC_K_PAYMENT,
    PR_TC_K_ORDER_STATUS,
    PR_TC_K_DELIVERY,
    PR_TC_K_STOCK_LEVEL,
    PR_TC_K_NEW_ORDER_STMT,
    PR_TC_K_PAYMENT_STMT,
    PR_TC_K_ORDER_STATUS_STMT,
    PR_TC_K_DELIVERY_STMT,
    PR_TC_K_STOCK_LEVEL_STMT,
    PR_TC_K_COMMIT,
    PR_TC_K_ROLLBACK,
    PR_TC_K_RETRY_ROLLBACK,
    PR_TC_K_COUNT_
};

/* Name of kind k ("new_order", ..., "retry_rollback"); "?" out of range. */
const char *pr_tc_kind_name(enum pr_tc_kind k);
/* The kind names as an array of PR_TC_K_COUNT_ static strings. */
const char *const *pr_tc_kind_names(void);
/* tpcc-mysql's label of a transaction ("New-Order", "Payment", ...). */
const char *pr_tc_txn_label(enum pr_tc_txn t);

/* --load-parts bits (tpcc_load -l 1..4). */
#define PR_TC_PART_ITEMS     0x1u /* item */
#define PR_TC_PART_WAREHOUSE 0x2u /* warehouse, stock, district */
#define PR_TC_PART_CUSTOMER  0x4u /* customer, history */
#define PR_TC_PART_ORDERS    0x8u /* orders, new_orders, order_line */
#define PR_TC_PART_ALL       0xfu

struct pr_tc_opts {
    uint32_t warehouses;                    /* --warehouses, 1..PR_TC_MAX_WAREHOUSES */
    uint32_t warmup_s;                      /* --warmup-time */
    uint32_t rt_limit_ms[PR_TC_TXN_COUNT_]; /* --rt-limits */
    uint32_t max_retries;                   /* --max-retries, >= 1 */
    unsigned parts;                         /* --load-parts, PR_TC_PART_* bits, != 0 */
    uint32_t wh_first, wh_last;             /* --warehouse-first/-last, resolved:
                                               1 <= first <= last <= PR_TC_MAX_WAREHOUSES
                                               (last defaults to --warehouses) */
    bool foreign_keys;                      /* --foreign-keys */
    bool check_all;                         /* --check-all */
    bool record_new_order;                  /* --report-file or --trx-file given: the
                                               agents record every New-Order (STATS.trx) */
    uint32_t schemas;                       /* --multi-schema (tpcc_start -m), 0..
                                               PR_TC_MAX_SCHEMAS; 0: off */
    uint32_t schema_offset;                 /* --multi-schema-offset (-o), 0..
                                               PR_TC_MAX_SCHEMA_OFFSET */
};

/* Read o's tpcc options into *out. Returns 0, or PR_EINVAL with err naming
 * the option, the bad value and what is allowed. */
int pr_tc_opts_get(const pr_opts *o, struct pr_tc_opts *out, struct pr_error *err);

/* tpcc_start's multi-schema mode (-m N -o K, o->schemas > 0): the database
 * of the connection with global index t, "<base>_<(t % N) + K>", written
 * into buf (cap bytes, NUL included). Returns its length, as snprintf: a
 * result >= cap means it was cut. */
int pr_tc_schema_db(const char *base, const struct pr_tc_opts *o, uint64_t t, char *buf,
                    size_t cap);

#endif
