/* co_family: the coordinator's side of a workload family (DESIGN.md §11):
 * its option rules, its plan rules (which --partition fits) and its text
 * report. co_registry.c holds the one list; the merge (co_merge) and the
 * outputs name no family. */
#ifndef CO_FAMILY_H
#define CO_FAMILY_H

#include <stdbool.h>

#include "co_args.h"
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
};

/* The family of workload `name`, or NULL. */
const struct co_family *co_registry_find(const char *name);

extern const struct co_family co_sb_family;
extern const struct co_family co_lua_family;

#endif
