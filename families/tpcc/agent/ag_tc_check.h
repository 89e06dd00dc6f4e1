/* ag_tc_check: `stampede tpcc check`, the TPC-C consistency conditions
 * (clause 3.3.2; docs/design.md §13.2; families/tpcc/proto/pr_tc_check.h names them),
 * as one statement stream per warehouse.
 *
 * A warehouse's stream runs, inside one START TRANSACTION WITH CONSISTENT
 * SNAPSHOT: the table probe (a missing table: "run `stampede tpcc
 * prepare` first"), a presence query (the warehouse row and its 10
 * districts), then one query per condition (go-tpc's shape: each returns
 * the rows that break it, in key order): conditions 1-4 always, 5-12 with
 * check_all. The first breaking row fails the command with a message
 * naming the condition, the warehouse (district, order, customer) and the
 * figures, e.g. "TPC-C condition 2 fails for warehouse 1 district 3:
 * d_next_o_id - 1 = 3000, max(o_id) = 3001, max(no_o_id) = 3001 (1 of 10
 * districts); reload with `stampede tpcc prepare`".
 *
 * Conditions 10-12 after a run. tpcc-mysql's transactions, which the
 * family reproduces, break 10 and 12 (Payment never updates c_ytd_payment;
 * Delivery can deliver an order twice) and every Delivery breaks 11, which
 * holds only right after a load. So before them the stream asks whether
 * the warehouse is as loaded (sum(d_next_o_id) = 10 x 3001, 9000
 * new_orders rows, 30000 history rows for it): if so 10-12 are checked as
 * the others; if transactions ran, a breaking row of 10-12 is
 * informational: the agent prints it on its standard error
 * ("informational after a run") and the check goes on and passes.
 */
#ifndef AG_TC_CHECK_H
#define AG_TC_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "ag_family.h"

/* Add warehouse w's check stream to add(ctx, ...): conditions 1-4, and
 * 5-12 when all. The stream owns its state (the destroy passed frees it). */
void ag_tc_check_add(uint32_t w, bool all, ag_piece_add_fn add, void *ctx);

#endif
