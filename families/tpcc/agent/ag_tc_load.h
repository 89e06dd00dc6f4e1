/* ag_tc_load: the tpcc family's loaders — the statement streams of
 * `stampede tpcc prepare`, `cleanup` and `check` (docs/design.md
 * §13.2), built from the PLAN. No I/O: every stream is a struct ag_piece
 * of text statements that ag_run executes on one connection each.
 *
 * What a PLAN gives (the tpcc reading of PLAN.tables, written by the
 * coordinator): {n = 1, lo..hi, ct, ci} is a warehouse range (ct:
 * this agent drops and creates the 9 tables, or drops them in cleanup; ci:
 * it adds add_fkey_idx.sql's indexes and foreign keys); {n = 2, lo..hi} an
 * item id range this agent loads.
 */
#ifndef AG_TC_LOAD_H
#define AG_TC_LOAD_H

#include "ag_family.h"
#include "pr_err.h"
#include "pr_msg.h"
#include "pr_opts.h"
#include "pr_tc_opts.h"

/* The streams of command plan->cmd (PR_CMD_PREPARE, PR_CMD_CLEANUP,
 * PR_CMD_CHECK) for this agent's share of plan->tables, added to add(ctx,
 * piece, destroy) in the order they may start:
 *   prepare: an entry with ct: one stream that drops and creates the 9
 *            tables (create_table.sql); warehouse ranges: one stream per
 *            (warehouse, part) of o->parts (warehouse+stock+district,
 *            customer+history, orders+new_orders+order_line; stock split
 *            in item ranges), item ranges: streams of up to 25,000 items
 *            (only when o->parts has PR_TC_PART_ITEMS); an entry with ci
 *            (and o->foreign_keys): one stream of add_fkey_idx.sql's 4
 *            indexes and 10 foreign keys. Each loading stream starts with
 *            SET UNIQUE_CHECKS=0, FOREIGN_KEY_CHECKS=0, autocommit=1 and a
 *            probe of its tables (missing: "table X does not exist: run
 *            `stampede tpcc prepare` first"), then sends multi-row INSERTs;
 *            next() reports each INSERT's rows. The streams of one call run
 *            in parallel, so create, load and index come in separate PLANs
 *            (the coordinator's 3 phases), never in one.
 *            Data: tpcc_load's (cardinalities, value rules, Lastname,
 *            NURand with ag_tc_consts_init(0)), seeded from (plan->seed,
 *            table, warehouse, district), so a load repeats.
 *   cleanup: an entry with ct: DROP TABLE IF EXISTS of the 9 tables.
 *   check:   per warehouse range: a stream per warehouse that runs
 *            conditions 1-4 (5-12 too with o->check_all) as one query per
 *            condition, reading results through piece.result; a failing
 *            condition fails the command with a message naming it, the
 *            warehouse (and district) and the figures.
 * o and po are the plan's parsed options (pr_tc_opts_get on po); both are
 * read during the call only. Streams own their state (destroy frees it).
 * Returns 0, or PR_EINVAL with err filled (a bad entry: n not 1 or 2, an
 * item range outside 1..100000, a warehouse above PR_TC_MAX_WAREHOUSES —
 * checked before anything is added — or another command: tpcc has no
 * prewarm, and run has no streams).
 * Thread-safe (no shared state). */
int ag_tc_loads(const struct pr_tc_opts *o, const pr_opts *po, const struct pr_msg_plan *plan,
                ag_piece_add_fn add, void *ctx, struct pr_error *err);

#endif
