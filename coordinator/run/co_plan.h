/* co_plan: one PLAN per agent per phase, from the command line and the
 * fleet (docs/design.md §5).
 *
 * Agents are given in name order (index 0 = first name); that index is the
 * plan's agent_index, and agent 0 is the lead (it samples server status).
 * Connections, events and rate are split with pr_split_u64() (weights
 * optional), so shares always sum to the totals.
 *
 * Phases. `run` has one phase. `prepare` has one phase when every table is
 * loaded by a single agent (each creates, loads and indexes its own tables);
 * when a table is split over several agents (fewer tables than agents) it
 * has three: "create" (each shared table's creating agent creates it, no
 * rows), "load" (every piece loads its ids) and "index" (each shared
 * table's indexing agent builds its secondary index), so no agent inserts
 * before its table exists and no index is built before the last row.
 * `cleanup` and `prewarm` go to agent 0 only (they touch every table once).
 *
 * Ownership: co_plan owns every message; co_plan_msg() lends one.
 */
#ifndef CO_PLAN_H
#define CO_PLAN_H

#include <stdint.h>

#include "co_args.h"
#include "pr_err.h"
#include "pr_msg.h"

typedef struct co_plan co_plan;

/* Build every phase's plans for n_agents agents. weights: per agent in
 * name order, NULL = equal. seed: the run seed (--rand-seed, or the
 * coordinator's choice when that is 0). NULL with err saying what is wrong
 * (fewer connections than agents, fewer tables than agents with
 * --partition=tables, ...). */
co_plan *co_plan_new(const struct co_args *a, uint32_t n_agents, const uint64_t *weights,
                     uint64_t seed, struct pr_error *err);

/* Number of phases (>= 1). */
uint32_t co_plan_phases(const co_plan *p);

/* Name of a phase: "run", "create", "load", "index", "cleanup", ... */
const char *co_plan_phase_name(const co_plan *p, uint32_t phase);

/* The PLAN for agent i (name order) in a phase, or NULL when that agent has
 * nothing to do in it. Borrowed from p; plan_hash is filled. */
const struct pr_msg *co_plan_msg(const co_plan *p, uint32_t phase, uint32_t agent);

/* Check a READY from agent i in a phase against the PLAN it was sent: 0
 * when ready->plan_hash is that plan's hash, else PR_EINVAL with err
 * naming both hashes (the agent answered another plan: a stale or foreign
 * READY, or an agent that hashes differently); PR_ERANGE when the agent has
 * no plan in that phase. */
int co_plan_check_ready(const co_plan *p, uint32_t phase, uint32_t agent,
                        const struct pr_msg_ready *ready, struct pr_error *err);

/* Rows the whole prepare inserts (tables * table_size), 0 for other
 * commands: the denominator of the progress line. */
uint64_t co_plan_rows_total(const co_plan *p);

/* How often the agents report (PLAN.report_ms, the same in every plan):
 * --report-interval, 1 s without one; a family may choose its own (tpcc:
 * 1 s, its lines are cut from 1-second intervals). The merge's interval. */
uint32_t co_plan_report_ms(const co_plan *p);

/* The run's time limit as the agents got it (PLAN.time_s): --time, or a
 * family's own (tpcc: --warmup-time + --time); 0 = none. */
uint64_t co_plan_time_s(const co_plan *p);

void co_plan_destroy(co_plan **p);

#endif
