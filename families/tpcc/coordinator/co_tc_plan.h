/* co_tc_plan: the tpcc family's PLANs (the contract in co_tc_plan.c's
 * comment, README "TPC-C"): PLAN.tables entries are warehouse ranges
 * {n = 1, lo, hi, ct = create/drop the 9 tables, ci = add_fkey_idx.sql} and
 * the item range {n = 2, 1, 100000}.
 *
 *   prepare, a full load (every part, warehouses 1..W): phases "create"
 *     (agent 0: {1, 1, 0, ct}), "load" (each agent its warehouse range by
 *     weight, none when it gets no warehouse; agent 0 the items too) and
 *     "index" (agent 0: {1, 1, 0, ci}; no phase with --foreign-keys=off).
 *   prepare, partial (--load-parts not all, or --warehouse-first/-last
 *     other than 1..W: tpcc_load -l/-m/-n): the "load" phase only, over
 *     --warehouse-first..--warehouse-last; the tables must exist.
 *   run: PLAN.time_s = --warmup-time + --time, PLAN.report_ms = 1000; with
 *     --partition=warehouses each agent one {1, lo, hi} (its home
 *     warehouses, split by its connections so that every warehouse has a
 *     connection when --threads >= --warehouses).
 *   check: each agent its warehouse range of 1..W (split as the load).
 *   cleanup: agent 0 {1, 1, 0, ct}.
 */
#ifndef CO_TC_PLAN_H
#define CO_TC_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "co_args.h"
#include "co_plan.h"
#include "pr_err.h"
#include "pr_tc_opts.h"

/* Rows a load of parts (PR_TC_PART_* bits) over n_wh warehouses inserts,
 * by tpcc_load's cardinalities (order_line: 10 lines per order on
 * average, so an estimate): the progress line's denominator. */
uint64_t co_tc_plan_rows(unsigned parts, uint32_t n_wh);

/* True when prepare loads less than everything (a tpcc_load -l/-m/-n
 * style load: its one "load" phase needs the tables to exist). */
bool co_tc_plan_is_partial(const struct pr_tc_opts *o);

/* Connections of a prepare over all agents: --threads when given, else
 * min(3 * warehouses loaded + 1 (items), 8), one load stream each. */
uint64_t co_tc_plan_load_conns(const struct co_args *a, const struct pr_tc_opts *o);

/* co_family's plan op for tpcc (see above). 0 or PR_EINVAL with err
 * naming what is wrong (an agent without a connection, a bad option). */
int co_tc_plan_build(co_plan *p, const struct co_args *a, const uint64_t *weights, uint64_t seed,
                     struct pr_error *err);

#endif
