/* pr_sb_schema: the sysbench family's statement kinds and its --partition
 * plan rule, shared by coordinator and agent (contract: pr_sb_schema.h). */
#include "pr_sb_schema.h"

#include "pr_opts.h"

static const char *const kind_names[PR_SB_K_COUNT_] = {
#define PR__SB_KIND_NAME(id, name) name,
    PR_SB_KINDS(PR__SB_KIND_NAME)
#undef PR__SB_KIND_NAME
};

bool pr_sb_has_workload(const char *name)
{
    int wl = pr_workload_from_name(name);
    return wl >= 0 && wl <= PR_WL_SB_LAST_;
}

const char *pr_sb_kind_name(enum pr_sb_kind k)
{
    return (unsigned)k < PR_SB_K_COUNT_ ? kind_names[k] : "?";
}

const char *pr_sb_partition_unfit(int wl, enum pr_partition part)
{
    if (part == PR_PART_NONE)
        return NULL;
    if (part == PR_PART_WAREHOUSES)
        return "it has tables and rows, not TPC-C warehouses";
    switch (wl) {
    case PR_WL_SELECT_RANDOM_POINTS:
    case PR_WL_SELECT_RANDOM_RANGES:
        return "it reads only sbtest1, by k values from per-connection segments that never "
               "overlap across agents";
    case PR_WL_BULK_INSERT:
        return "its tables are per connection (sbtest<global connection index + 1>), never "
               "shared across agents";
    case PR_WL_OLTP_INSERT:
        return part == PR_PART_ROWS ? "it inserts new ids (auto_inc, or rand.unique slices "
                                      "per connection), never ids of 1..table_size"
                                    : NULL;
    default:
        return NULL;
    }
}
