/* co_sb_family: the sysbench family on the coordinator: pr_opts' option
 * sets with co_sb_args' rules, and pr_sb_schema's partition rule. */
#include "co_family.h"
#include "co_sb_args.h"
#include "pr_opts.h"
#include "pr_sb_schema.h"

static const char *sb_partition_unfit(const struct co_args *a, enum pr_partition part)
{
    return pr_sb_partition_unfit(a->wl, part);
}

const struct co_family co_sb_family = {
    .name = "sysbench",
    .has_workload = pr_sb_has_workload,
    .check_options = co_sb_args_check,
    .partition_unfit = sb_partition_unfit,
};
