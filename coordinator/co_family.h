/* co_family: the coordinator's side of a workload family (DESIGN.md §11):
 * its option rules, its plan rules (which --partition fits) and its text
 * report. co_registry.c holds the one list; the merge (co_merge) and the
 * outputs name no family. */
#ifndef CO_FAMILY_H
#define CO_FAMILY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "co_args.h"
#include "co_plan.h"
#include "pr_err.h"

struct co_family {
    const char *name; /* "sysbench" */
    /* True when workload `name` belongs to the family. */
    bool (*has_workload)(const char *name);
    /* The family's option rules once every option is in: 0, or PR_EINVAL
     * with err naming the option (warnings go to a's list). */
    int (*check_options)(struct co_args *a, struct pr_error *err);
    /* Plan rule: why partition part cannot confine a's workload, or NULL. */
    const char *(*partition_unfit)(const struct co_args *a, enum pr_partition part);
    /* Optional: build every phase's PLANs into p (co_plan_int.h: phases,
     * names, msgs, rows_total) by the family's own rules; co_plan_new hashes
     * them. NULL: co_plan's sysbench rules. 0 or PR_EINVAL with err. */
    int (*plan)(co_plan *p, const struct co_args *a, const uint64_t *weights, uint64_t seed,
                struct pr_error *err);
    /* Optional: the line printed before a prepare/check/cleanup phase
     * starts (busy: agents with a plan in it; agent0: the first agent's
     * name). NULL: co_run's sysbench lines (tables, table_size). */
    void (*phase_line)(FILE *out, const struct co_args *a, const char *phase, uint32_t busy,
                       const char *agent0);
    /* Optional: text added after the option list of `stampede WORKLOAD
     * help` (defaults the family changes, other command lines), or NULL. */
    const char *help_text;
    /* Optional: the title of the per-kind latency table (co_kinds_out_text)
     * when the family's kinds are not all statements, or NULL for
     * "Latency by statement (ms):". */
    const char *kinds_title;
};

/* The family of workload `name`, or NULL. */
const struct co_family *co_registry_find(const char *name);

extern const struct co_family co_sb_family;
extern const struct co_family co_lua_family;
extern const struct co_family co_tc_family;

#endif
