/* ag_tc_gen: the tpcc family's parsed workload and its per-connection
 * generator: tpcc-mysql's five transactions statement for statement as
 * tpcc_start sends them (docs/design.md §8.3, §13.2).
 *
 * Statements. The 35 prepared statements of tpcc_start, in its order and
 * with its SQL text (ag_tc_wl_stmt), each counted under its transaction's
 * "<txn>_stmt" kind; COMMIT and ROLLBACK are text statements under the
 * kinds commit, rollback (New-Order's invalid item) and retry_rollback
 * (after a failed statement); "SET autocommit=0" (what mysql_autocommit(0)
 * sends) opens a connection's first event and follows a reconnect, counted
 * under no kind. Parameters tpcc_start binds as C floats (amounts,
 * balances) go out as decimal strings with 2 places; the float arithmetic
 * behind them is tpcc-mysql's (single precision).
 *
 * Events. Each event is one transaction: the next card of the
 * connection's deck of 23 (10 New-Order, 10 Payment, 1 each Order-Status,
 * Delivery, Stock-Level), reshuffled (Fisher-Yates) when drawn through.
 * Inputs are drawn once per event and kept on every retry; the
 * timestamps (o_entry_d, h_date, ol_delivery_d) are the client's local
 * time "YYYY-MM-DD HH:MM:SS" taken at each attempt's start. Warehouses:
 * U[1..W] per transaction, or the connection's home warehouse with
 * --partition=warehouses (remote warehouses always from 1..W). The NURand
 * constants are ag_tc_consts_init(0)'s, the loader's (fixed, the same on
 * every agent and every run).
 *
 * Outcomes. COMMIT succeeded: committed. New-Order's 1% invalid item:
 * ROLLBACK (kind rollback), rolled back on purpose. Delivery commits once
 * per district that has a new order. A failed statement (the engine's
 * retry): ROLLBACK (kind retry_rollback; before it SET autocommit=0 unless
 * the error was a deadlock, lock wait timeout, 1020 or duplicate key: any
 * other error may mean a new session after a reconnect), then the same
 * inputs from
 * the transaction's first statement (Delivery from district 1, as
 * tpcc_start); after --max-retries attempts the event fails (its ROLLBACK is
 * still sent). A row tpcc_start requires and does not find (New-Order's
 * customer, district or stock row; Payment's warehouse or customer;
 * Order-Status's last order; Delivery's order; Stock-Level's district)
 * fails the event at once after a ROLLBACK (retry_rollback): the same
 * inputs on the same data cannot succeed, where tpcc_start would retry
 * them 2000 times. With --mysql-dry-run (no server: every result is
 * empty) nothing counts as missing and only the unused item 100001 rolls
 * back, so a dry run goes through every transaction's statements.
 *
 * No allocation per statement: every buffer a call points into lives in
 * the generator. A generator is used by one thread at a time; the workload
 * is read-only once its first generator exists.
 */
#ifndef AG_TC_GEN_H
#define AG_TC_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ag_family.h"
#include "ag_tc_rand.h"
#include "pr_err.h"
#include "pr_msg.h"
#include "pr_opts.h"
#include "pr_tc_opts.h"

#define AG_TC_NSTMTS 35 /* tpcc_start's prepared statements */

/* The tpcc workload: options, constants and the statement set. Plain
 * data; struct ag_wl first. */
struct ag_tc_wl {
    struct ag_wl base;
    pr_opts *opts;              /* owned */
    struct pr_tc_opts tc;       /* pr_tc_opts_get(opts) */
    struct ag_tc_consts consts; /* ag_tc_consts_init(0) */
    uint64_t run_seed;          /* PLAN.seed, kept for reference: each generator gets its seed
                                   from the engine (pr_split_seed(seed, 0, global conn)) and the
                                   loaders read plan->seed */
    bool dry_run;               /* --mysql-dry-run: results are empty (no row is missing) */
    uint32_t home_lo, home_hi;  /* --partition=warehouses: this agent's home warehouses;
                                   home_lo == 0: none (every w_id from 1..W) */
    struct ag_stmt_def stmts[AG_TC_NSTMTS];
    char **schema_db;  /* tpcc_start -m/-o: schema i's database (tc.schemas of them), or
                          NULL when off (every connection opens PLAN.database) */
    char *schema_hint; /* -m/-o: what to do about a missing schema (wl_error_hint) */
    char *grant_hint;  /* access denied (1044, 1045, 1142): the GRANT to give, from
                          wl_set_plan, or NULL before it */
};

/* Fill wl->stmts (tpcc_start's 35 statements, kind ids set). */
void ag_tc_wl_stmts_init(struct ag_tc_wl *wl);

/* A connection's generator on wl (borrowed, must outlive it): ag_rand
 * seeded with seed, its global connection index (home warehouse) and the
 * global count. Never NULL. */
struct ag_gen *ag_tc_gen_new(const struct ag_tc_wl *wl, uint64_t seed, uint32_t conn_index,
                             uint32_t conns_total);
void ag_tc_gen_destroy(struct ag_gen **g);

/* The ag_family generator ops (ag_family.h's contract). */
void ag_tc_gen_begin(struct ag_gen *g);
enum ag_step ag_tc_gen_next(struct ag_gen *g, struct ag_call *call);
void ag_tc_gen_result(struct ag_gen *g, const struct ag_result *res);
bool ag_tc_gen_retry(struct ag_gen *g, const struct ag_result *res);
/* After the last event: one COMMIT (kind commit), as tpcc_start's thread
 * commits after its driver loop (it closes a Delivery's trailing read);
 * then false. */
bool ag_tc_gen_finish(struct ag_gen *g, struct ag_call *call);
/* The transaction type of the event next() just ended (PR_TC_K_*). */
uint16_t ag_tc_gen_event_kind(const struct ag_gen *g);

#endif
