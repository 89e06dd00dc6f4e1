/* co_plan_family: what co_plan (co_plan.c) publishes to a family that
 * builds its own PLANs (co_family.h's plan op, e.g. the tpcc family's
 * co_tc_plan.c): the plan's fields its op fills, and the parts of a PLAN
 * every family shares. The rest of the coordinator sees co_plan as opaque
 * (co_plan.h). */
#ifndef CO_PLAN_FAMILY_H
#define CO_PLAN_FAMILY_H

#include <stdbool.h>
#include <stdint.h>

#include "co_args.h"
#include "pr_err.h"
#include "pr_msg.h"

#define CO_PLAN_MAX_PHASES 3

/* A family's plan op fills n_phases, names, msgs (n_agents each, calloc'd;
 * type NONE = that agent has nothing to do in the phase) and rows_total;
 * co_plan_new hashes the plans and co_plan_destroy frees them. */
struct co_plan {
    uint32_t n_agents;                       /* agents in name order */
    uint32_t n_phases;                       /* 1..CO_PLAN_MAX_PHASES */
    const char *names[CO_PLAN_MAX_PHASES];   /* phase names (static strings) */
    struct pr_msg *msgs[CO_PLAN_MAX_PHASES]; /* n_agents each; type NONE = nothing to do */
    uint64_t rows_total;                     /* prepare: rows it inserts (progress line) */
};

/* For a family's plan op: make *m agent's PLAN with what every plan
 * shares: command, workload, agent index/count, seed, lead, partition,
 * report_ms (--report-interval, 1 s without one), PLAN.opts (a's
 * passthrough) and the targets (hosts, ports, sockets, user, db, password). Returns 0 or PR_EINVAL
 * with err set (a bad --mysql-port or list); *m is a PLAN either way (co_plan_destroy frees it). */
int co_plan_base(struct pr_msg *m, const struct co_args *a, uint32_t agent, uint32_t n,
                 uint64_t seed, struct pr_error *err);

/* For a family's plan op: append one PLAN.tables entry {table, lo, hi,
 * ct, ci} to pl (the rows an agent loads or runs on, and whether it
 * creates or indexes the table). */
void co_plan_add_table(struct pr_msg_plan *pl, uint32_t table, uint64_t lo, uint64_t hi, bool ct,
                       bool ci);

#endif
